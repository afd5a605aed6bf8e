/* asynctop's public C API: run asynctop over your own async runtime.
 *
 * An in-house executor registers a producer under its own adapter name and
 * hands its command line to asynctop_main(), which then offers `record` and
 * the live viewer with that adapter, beside the stock ones.
 * Self-contained: this header needs only the C standard library.
 * Link with `pkg-config --libs asynctop` (libasynctop.a). */
#ifndef ASYNCTOP_H
#define ASYNCTOP_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Bumped on any incompatible change of this header.  Version 2 added the
 * fields of struct asynctop_sample after `tasks`; an adapter built for
 * version 1 (abi = 1) is still accepted, and its samples are read up to
 * `tasks` only. */
#define ASYNCTOP_ABI_VERSION 2

/* A string that need not be NUL-terminated. */
struct asynctop_str {
	const char *ptr;
	size_t len;
};

/* One task's figures over the window.  Everything is borrowed for the call
 * to asynctop_window_add, which copies what it keeps. */
struct asynctop_sample {
	const struct asynctop_str *frames; /* spawn stack, ROOT FIRST */
	size_t depth;
	struct asynctop_str task; /* name; empty becomes <unnamed> */
	uint64_t idle_ns;         /* waiting */
	uint64_t busy_ns;         /* running (inside a poll) */
	uint64_t scheduled_ns;    /* woken, waiting for the executor */
	uint64_t polls;
	uint64_t wakes;
	uint64_t tasks; /* tasks folded in; 0 means 1 */
	/* ABI 2.  Where the task is parked at the window's end, ROOT FIRST
	 * like frames (its own coroutine first, the innermost suspension
	 * point, then what it awaits, last); parked_depth 0: unknown. */
	const struct asynctop_str *parked;
	size_t parked_depth;
	/* ABI 2.  Optional figures: set the ASYNCTOP_KNOWN_* bit of each one
	 * the runtime can tell; a figure whose bit is clear is "unknown",
	 * never 0. */
	uint32_t known;
	uint64_t self_wakes;  /* wakes the task gave itself */
	uint64_t max_poll_ns; /* its longest single poll or step */
	uint64_t wakers;      /* wakers held at the window's end */
	uint64_t poll_now_ns; /* how long a poll still running has run */
	uint64_t no_waker;    /* 1: parked where nothing can wake it */
};

/* Bits of asynctop_sample.known. */
#define ASYNCTOP_KNOWN_SELF_WAKES (1u << 0)
#define ASYNCTOP_KNOWN_MAX_POLL   (1u << 1)
#define ASYNCTOP_KNOWN_WAKERS     (1u << 2)
#define ASYNCTOP_KNOWN_POLL_NOW   (1u << 3)
#define ASYNCTOP_KNOWN_NO_WAKER   (1u << 4)

/* What a producer returns. */
enum asynctop_result {
	ASYNCTOP_OK = 0,          /* samples added (none: the no-data error) */
	ASYNCTOP_UNREACHABLE = 1, /* the source could not be reached */
	ASYNCTOP_TIMEOUT = 2,     /* the source stopped answering */
	ASYNCTOP_MALFORMED = 3,   /* the source sent something unusable */
	ASYNCTOP_FAILED = 4,      /* anything else */
};

/* One window being collected: opaque, valid during the producer call. */
struct asynctop_window;

/* Called on asynctop's worker thread (every signal blocked) once per
 * window, back to back.  It should gather what happened during the window
 * (for example: asynctop_window_wait, snapshot cumulative counters, add
 * their differences from the previous window's snapshot, kept for the
 * next; a call that begins late still covers the whole time) and return
 * within the window plus 1 s.  user is the adapter's user pointer. */
typedef enum asynctop_result (*asynctop_producer)(void *user,
                                                  struct asynctop_window *w);

/* The window's requested length (clamped to 60 s), in ns. */
uint64_t asynctop_window_length_ns(const struct asynctop_window *w);
/* The endpoint given with -e (or the adapter's default), or "". */
const char *asynctop_window_endpoint(const struct asynctop_window *w);
/* Sleeps until the window's end, or until asynctop asks the producer to
 * stop (then returns within 100 ms).  Returns 0 at the window's end, 1 when
 * asked to stop early: return what you have. */
int asynctop_window_wait(struct asynctop_window *w);
/* Nonzero once asynctop asked the producer to stop early. */
int asynctop_window_stopping(const struct asynctop_window *w);
/* Adds one sample.  Returns 0, or -1 when it could not be stored (out of
 * memory, past the window's cap of 4 M samples, 16 M frames or 256 MiB of
 * text, or a NULL pointer with a nonzero length); the sample is then lost
 * and counted. */
int asynctop_window_add(struct asynctop_window *w,
                        const struct asynctop_sample *s);
/* Explains a failure for the operator: what went wrong, and what to do
 * (either may be NULL).  Copied.  Use before returning an error. */
void asynctop_window_explain(struct asynctop_window *w, const char *detail,
                             const char *remediation);

/* An adapter an embedder offers. */
struct asynctop_adapter {
	int abi;             /* ASYNCTOP_ABI_VERSION (1 is still accepted) */
	const char *name;    /* as operators type it: -a NAME */
	const char *summary; /* one line for `asynctop adapters` */
	const char *default_endpoint; /* may be NULL */
	asynctop_producer produce;
	void *user;
};

/* The whole asynctop command line (`record`, `adapters`, --help, ...) with
 * the stock adapters plus the n given ones (borrowed for the call).
 * Returns the exit status asynctop documents (0, 1, 2, 3, 4, 130).  Blocks
 * until done. */
int asynctop_main(int argc, char **argv,
                  const struct asynctop_adapter *adapters, size_t n);

#ifdef __cplusplus
}
#endif

#endif
