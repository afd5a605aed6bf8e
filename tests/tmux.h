/* Helpers of the end-to-end viewer tests: the test event channel
 * (docs/design.md §10) read from a FIFO, running commands, tmux sessions driven
 * by send-keys and capture-pane, and pseudo-terminals. */
#ifndef ASYNCTOP_TESTS_TMUX_H
#define ASYNCTOP_TESTS_TMUX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/buf.h"

/* A generous bound for anything to happen, and for a key to be answered
 * (docs/design.md §10). */
#define TMUX_WAIT_MS 10000
#define TMUX_KEY_MS  2000

/* Milliseconds of CLOCK_MONOTONIC. */
uint64_t tmux_now_ms(void);

/* True when an executable called name is on $PATH. */
bool tmux_on_path(const char *name);

/* Runs argv (searched on $PATH, stdin /dev/null) and waits for it; its
 * stdout appended to out when out is not NULL, else to /dev/null;
 * a tmux client's stderr goes to /dev/null too.  Returns the exit status,
 * 128 when it was killed.  Aborts the test when it cannot fork.  Blocks. */
int tmux_run(const char *const *argv, struct buf *out);

/* The last lines of b, at most max bytes (Check cuts longer failure
 * messages): a pointer into b's text, which is NUL-terminated. */
const char *tmux_tail(struct buf *b, size_t max);

/* ---- the test event channel ------------------------------------------- */

/* The read end of an event FIFO, and what was read from it. */
struct tmux_events {
	int fd;          /* FIFO, read end, non-blocking */
	int drain;       /* another fd to keep drained (a pty master), or -1 */
	struct buf seen; /* every event line read so far */
	size_t pos;      /* in seen, after the last matched event */
	struct buf out;  /* what drain gave */
	char fifo[600];  /* the FIFO's path: give it as ASYNCTOP_TEST_EVENTS */
};

/* Makes the FIFO dir/events and opens its read end.  Aborts the test on
 * failure. */
void tmux_events_open(struct tmux_events *e, const char *dir);
/* Closes and removes the FIFO; frees what was read. */
void tmux_events_close(struct tmux_events *e);

/* Waits up to timeout_ms for events (or drain output), then reads what is
 * there.  Blocks at most timeout_ms. */
void tmux_events_pump(struct tmux_events *e, int timeout_ms);

/* Waits up to ms for the next event line equal to want, or starting with
 * want when it ends in '*', skipping others; copies the line into line
 * (may be NULL).  False on timeout.  Blocks. */
bool tmux_events_wait(struct tmux_events *e, const char *want, int ms,
                      char *line, size_t size);

/* tmux_events_wait, failing the test (at file:line, with the last events)
 * on timeout.  Use TMUX_WAIT. */
void tmux_events_expect(struct tmux_events *e, const char *want, int ms,
                        const char *file, int line);
#define TMUX_WAIT(e, want, ms) \
	tmux_events_expect((e), (want), (ms), __FILE__, __LINE__)

/* True when an event line matching want (as tmux_events_wait matches)
 * lies in seen between the offsets from and to.  Never blocks. */
bool tmux_events_between(const struct tmux_events *e, size_t from, size_t to,
                         const char *want);

/* ---- tmux --------------------------------------------------------------- */

/* A tmux server of its own (tmux -L), one session. */
struct tmux {
	char sock[64];   /* its name (-L) */
	char path[1024]; /* its socket, removed by tmux_end */
};

/* Starts a detached session of cols x rows running cmd (through sh -c)
 * on a server of its own, with no configuration.  False (nothing started)
 * when tmux is not installed; aborts the test when tmux fails. */
bool tmux_start(struct tmux *t, int cols, int rows, const char *cmd);
/* Types keys literally into the pane. */
void tmux_keys(struct tmux *t, const char *keys);
/* Writes n raw bytes into the pane as input (send-keys -H), as a
 * terminal would send them (mouse reports, escape sequences). */
void tmux_bytes(struct tmux *t, const char *bytes, size_t n);
/* The pane's text, one line per row, into out (reset first). */
void tmux_capture(struct tmux *t, struct buf *out);
/* Kills the server and whatever runs in it; removes its socket. */
void tmux_end(struct tmux *t);

/* Whether a captured screen is the one awaited (ctx: the caller's). */
typedef bool (*screen_ok)(const struct buf *screen, const void *ctx);

/* Captures the pane until ok says yes (true) or ms pass (false; screen
 * holds the last capture), reading e's events meanwhile: what a terminal
 * shows lags the viewer's "drawn" event by tmux's own reading of the pty. */
bool tmux_screen_until(struct tmux *t, struct tmux_events *e,
                       struct buf *screen, screen_ok ok, const void *ctx,
                       int ms);

/* ---- captured screens of the viewer ------------------------------------ */

/* Copies row n (0 first) of a captured screen into dst, without its
 * newline; "" when there is no such row. */
void tmux_screen_row(const struct buf *screen, size_t n, char *dst,
                     size_t size);
/* Copies the leaf frame of the viewer's first table row (the word after
 * the share percentage) into dst.  False when there is no table row. */
bool tmux_first_leaf(const struct buf *screen, char *dst, size_t size);

/* ---- pseudo-terminals --------------------------------------------------- */

/* A pseudo-terminal pair; the slave is not our controlling terminal. */
struct tmux_pty {
	int master, slave;
	char name[128]; /* the slave's path, for a child's setsid + open */
};

/* Opens a pair of cols x rows (close-on-exec).  Aborts the test on
 * failure. */
void tmux_pty_open(struct tmux_pty *p, unsigned short cols,
                   unsigned short rows);
/* In a child forked to run on p: a session of its own whose controlling
 * terminal is p's, stdin and stdout from and to /dev/null, stderr into
 * the file errpath (created) or, when NULL, the terminal.  Exits the
 * child with 125 (the terminal), 126 (stdin, stdout) or 127 (stderr)
 * when a step fails. */
void tmux_pty_child(const struct tmux_pty *p, const char *errpath);
void tmux_pty_close(struct tmux_pty *p);

/* Fails the test unless the terminal is back in its first state: the
 * slave canonical and echoing, and out (what the master gave) entered the
 * alternate screen and left it. */
void tmux_assert_restored(const struct tmux_pty *p, const char *out);

#endif
