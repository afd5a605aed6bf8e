/* Helpers shared by the record tests: a toy producer run by asynctop_main
 * in a forked child, the real binary ($ASYNCTOP_BIN) run as a child, both
 * in a temporary directory, and the test event channel. */
#ifndef ASYNCTOP_TESTS_RECORD_UTIL_H
#define ASYNCTOP_TESTS_RECORD_UTIL_H

#include <stdbool.h>
#include <stddef.h>

#include "model/buf.h"
#include "tests/util.h"

/* How long any one child may take: generous, only against hangs. */
#define CHILD_LIMIT_S 60

/* What the toy producer (adapter "toy", endpoint sim://t) does. */
enum toy_mode {
	TOY_DATA,        /* two tasks every window */
	TOY_EMPTY,       /* nothing, ever */
	TOY_EMPTY_2ND,   /* nothing in window 2 */
	TOY_UNREACHABLE, /* never reachable */
	TOY_LOST_2ND,    /* data, then unreachable from window 2 */
	TOY_HANG_2ND,    /* data, then window 2 never returns */
	TOY_HOSTILE,     /* never reachable, explained with escapes */
	TOY_HANG_1ST,    /* window 1 never returns */
};

/* A temporary directory and the child run in it. */
struct rt_run {
	char dir[512];   /* the child's working directory */
	struct tu_run p; /* the child: its exit code, stdout and stderr */
};

/* Makes the directory; rt_fini removes it (and its subdirectory "in"). */
void rt_init(struct rt_run *r);
void rt_fini(struct rt_run *r);
/* The path of name in r's directory into dst. */
void rt_path(char *dst, size_t size, const struct rt_run *r, const char *name);
/* Whether name exists in r's directory. */
bool rt_exists(const struct rt_run *r, const char *name);

/* $ASYNCTOP_BIN when it is an executable, else NULL. */
const char *rt_bin(void);
/* Starts the real binary with argv (NULL-terminated; argv[0] is replaced)
 * and events (a path, or NULL: none) as ASYNCTOP_TEST_EVENTS; r->p.pid is
 * the child.  rt_run_bin also waits for it (tu_run_wait). */
void rt_start_bin(struct rt_run *r, const char *const *argv,
                  const char *events);
void rt_run_bin(struct rt_run *r, const char *const *argv);
/* The same for asynctop_main with the toy producer in mode, in a forked
 * child. */
void rt_start_main(struct rt_run *r, const char *const *argv,
                   enum toy_mode mode, const char *events);
void rt_run_main(struct rt_run *r, const char *const *argv, enum toy_mode mode);
/* Saves one window of the toy as name (in r's directory). */
void rt_make_saved(struct rt_run *r, const char *name);

/* Makes the FIFO .events in r's directory (its path into fifo) and opens it
 * to read, without blocking; returns the descriptor. */
int rt_events_fifo(const struct rt_run *r, char *fifo, size_t size);
/* Reads the event channel fd into seen until a line equal to want; false
 * at EOF or after CHILD_LIMIT_S without news. */
bool rt_wait_event(int fd, struct buf *seen, const char *want);

/* A child's test event channel: its FIFO, read end, and what was read. */
struct rt_events {
	char fifo[640]; /* give it as the events of rt_start_* */
	int fd;
	struct buf seen;
};

/* rt_events_fifo in r's directory into e, with nothing seen yet. */
void rt_events_open(struct rt_events *e, const struct rt_run *r);
/* Closes and removes the FIFO; frees what was seen. */
void rt_events_close(struct rt_events *e);

/* The child ended with exit status want; else fails showing its stderr. */
#define ASSERT_EXIT(r, want)                                        \
	ck_assert_msg((r)->p.code == (want), "exit %d, not %d: %s", \
	              (r)->p.code, (want), (r)->p.err.data)

#define ASSERT_ERR_HAS(r, s)                                \
	ck_assert_msg(strstr((r)->p.err.data, (s)) != NULL, \
	              "stderr lacks \"%s\":\n%s", (s), (r)->p.err.data)

#define SKIP_WITHOUT_BIN(name)                                           \
	do {                                                             \
		if (!rt_bin()) {                                         \
			tu_skip(name, "ASYNCTOP_BIN is not set to the "  \
			              "asynctop binary (run via make)"); \
			return;                                          \
		}                                                        \
	} while (0)

#endif
