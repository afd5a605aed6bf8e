/* One worker thread per source: it runs the adapter's collect window after
 * window, back to back, and hands each result to the main thread through a
 * pipe (docs/design.md §1).  The worker blocks all signals.  docs/adapters.md.
 *
 * Messages wait in a mutex-guarded queue inside the worker; the pipe only
 * wakes poll() (one byte while the queue is not empty), so a slow reader
 * never loses a message, the worker never blocks on the pipe, and the main
 * thread never blocks.  A second thread per worker, the watchdog, reports a
 * collect that overruns its window (or a stop) by the grace. */
#ifndef ASYNCTOP_ADAPTERS_WORKER_H
#define ASYNCTOP_ADAPTERS_WORKER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "adapters/adapter.h"
#include "model/base.h"
#include "model/sample.h"
#include "model/status.h"
#include "model/window.h"

struct worker;

struct worker_opts {
	uint64_t window_ns;   /* requested; clamped to 60 s (meta says so) */
	uint64_t refresh_ns;  /* progress period; default 1 s */
	uint64_t max_windows; /* 0: until stopped or the source ends; counts
	                       * every window: with data, empty, or failed */
	uint64_t grace_ns;    /* past a window's end (or a stop) before a
	                       * hung collect is reported; 0: 1 s */
	/* After a live source fails (an error or a hung collect), the next
	 * attempt waits backoff_ns(retry_base_ns, retry_max_ns, n) for the
	 * n-th failure in a row (from 0; a window with data resets n).
	 * retry_base_ns 0: the failed window is held to its end instead, so
	 * a source is retried once per window (what record wants). */
	uint64_t retry_base_ns;
	uint64_t retry_max_ns;
};

enum worker_msg_kind {
	WORKER_WINDOW,   /* a finished window: samples + meta (maybe partial) */
	WORKER_PROGRESS, /* the window in progress so far (partial figures) */
	WORKER_STATE,    /* a connection state change; after a failure of a
	                  * live source the worker itself sends RETRYING
	                  * with the delay to the next attempt */
	WORKER_ERROR,    /* collect failed: err says why; the worker goes on
	                  * with the next window unless it is done.  Also
	                  * STATUS_TIMEOUT from the watchdog for a collect
	                  * still running a grace past its window's end (the
	                  * late result of that window is dropped) */
	WORKER_DONE,     /* the worker ended (stopped, max_windows, source
	                  * finished); no more messages.  err.st is
	                  * STATUS_NOMEM when messages were lost to memory */
};

/* A message from the worker.  Owned by the receiver: worker_msg_free. */
struct worker_msg {
	enum worker_msg_kind kind;
	uint64_t index;           /* 1-based window number it belongs to */
	enum source_state state;  /* WORKER_STATE */
	uint64_t retry_in_ns;     /* WORKER_STATE, SOURCE_RETRYING */
	struct adapter_error err; /* WORKER_ERROR */
	struct window_meta meta;  /* WINDOW, PROGRESS: strings owned here */
	size_t nsamples;          /* WINDOW, PROGRESS */
	/* private: the samples' storage (see worker_msg_feed) */
	void *priv;
};

/* Starts the worker on a (borrowed until worker_free).  STATUS_NOMEM, or
 * STATUS_IO when the pipe or thread cannot be made.
 * Each window starts where the previous ended (CLOCK_MONOTONIC); its
 * time_nanos is CLOCK_REALTIME read once at the first window and advanced
 * by each measured length, so time_nanos + duration_nanos of window k is
 * exactly time_nanos of window k + 1.  A live (not ADAPTER_FINITE) adapter
 * whose collect returns before the window's end is held there (unless it
 * succeeded with its own meta), so a failing or idle source cannot spin.
 * A window cut by a stop is partial, reason "stopped"; one cut by
 * worker_end_window is whole.  A failed window of a live source is
 * reported at once (WORKER_ERROR, then WORKER_STATE RETRYING), and the
 * next window starts when the retry is due (see retry_base_ns). */
enum status worker_start(struct adapter *a, const struct worker_opts *o,
                         struct worker **out) MUST_CHECK;

/* The read end of the worker's pipe, for poll(): readable while a message
 * is waiting (worker_read empties it when it takes the last one). */
int worker_fd(const struct worker *w);

/* Takes the next message without blocking: STATUS_OK with *out set,
 * STATUS_AGAIN when none is waiting. */
enum status worker_read(struct worker *w, struct worker_msg **out) MUST_CHECK;

/* Feeds a WINDOW or PROGRESS message's samples to sink (borrowed views,
 * valid during each call), without the meta.  Stops at the first status
 * other than OK or LIMIT and returns it. */
enum status worker_msg_feed(const struct worker_msg *m,
                            const struct sample_sink *sink) MUST_CHECK;
/* The same in slices (batch_feed_from): from sample *next on, until the
 * sink returns STATUS_AGAIN (then STATUS_AGAIN while samples remain). */
enum status worker_msg_feed_from(const struct worker_msg *m, size_t *next,
                                 const struct sample_sink *sink) MUST_CHECK;

void worker_msg_free(struct worker_msg *m);

/* Asks the worker to end the window in progress now (a shared boundary:
 * the next starts at once).  Thread-safe, non-blocking. */
void worker_end_window(struct worker *w);

/* Asks the worker to stop: collect returns within 100 ms with what it has
 * (a partial window), then WORKER_DONE.  Thread-safe, non-blocking. */
void worker_stop(struct worker *w);

/* Stops if needed, joins the threads, frees undelivered messages; NULL ok.
 * Blocks until collect returns: within 100 ms for an adapter that honours
 * stops; for one that never returns, forever (the watchdog has reported
 * it by then, so the caller can tell the operator before freeing). */
void worker_free(struct worker *w);

#endif
