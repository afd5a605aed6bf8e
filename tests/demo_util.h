/* Helpers of the suites that run the real viewer on the bundled demo shop
 * (`asynctop -- python3 adapters/asyncio/demo/shop.py`): a private
 * directory with the event FIFO, each weighting's designed leader read
 * from shop.py, a guardian that cleans up when a check fails, and waits on
 * the test event channel. */
#ifndef ASYNCTOP_TESTS_DEMO_UTIL_H
#define ASYNCTOP_TESTS_DEMO_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "model/metric.h"
#include "tests/tmux.h"

#define DEMO_MS         30000 /* for the demo to start, or a window to come */
#define DEMO_COLS       160
#define DEMO_ROWS       30
#define DEMO_EXIT_AFTER "60" /* windows: the viewer ends itself if we die */

/* What runs, and where. */
struct demo {
	char dir[512];   /* private: the event FIFO, saves/, tmp/ */
	char saves[600]; /* -d */
	char tmp[600];   /* the viewer's TMPDIR: the launcher's log */
	char shop[4096];
	char agent[4096]; /* ASYNCTOP_AGENT_PATH: any BUILD finds the agent */
	const char *bin;
	char leader[METRIC_COUNT][64]; /* the designed first row's leaf */
	struct tmux_events ev;
};

/* Readies d: the binary and the sources from ASYNCTOP_BIN and
 * ASYNCTOP_SRC, the leaders, the directories and the event FIFO.  False
 * (with the reason printed as test's skip) when the demo cannot run
 * here. */
bool demo_init(struct demo *d, const char *test);
/* Closes the FIFO and removes what the run left in d's directories. */
void demo_fini(struct demo *d);

/* A guardian: a process of its own that ends what a test started (the
 * tmux server t, the job shell pid) and removes d's files when the test
 * process dies: a failed check _exits, a timeout kills its process group.
 * Told that all went well, it just ends. */
struct guardian {
	int fd; /* write end of its pipe: a byte, or EOF when we die */
	pid_t pid;
};

/* Starts g watching the tmux server t (NULL: none) and the job shell
 * shell (0: none); a forked process, it keeps its own copies of d and t.
 * Fails the test when it cannot start. */
void guardian_start(struct guardian *g, const struct demo *d,
                    const struct tmux *t, pid_t shell);
/* All went well: the guardian ends without touching anything. */
void guardian_done(struct guardian *g);

/* The number of the last "window K committed" event in seen[0, to). */
unsigned long demo_last_window(const struct tmux_events *e, size_t to);
/* Waits until window n was committed (whatever was matched since). */
void demo_wait_windows(struct tmux_events *e, unsigned long n);
/* Waits for the first window; fails at once, with the viewer's stderr
 * (d->dir/stderr), when the viewer ends before it (no agent, no python3
 * 3.11+, ...). */
void demo_wait_first_window(struct demo *d);
/* The number in the first event "WORD N" seen; 0 when none. */
long demo_event_pid(const struct tmux_events *e, const char *word);
/* Reads every event written by now, and what the terminal (drain) has. */
void demo_drain(struct tmux_events *e);

#endif
