/* The viewer run in tmux against a source of the test's choosing
 * (tests/test_viewer_faults.c, tests/test_viewer_garbage.c), and the checks
 * made of it. */
#ifndef ASYNCTOP_TESTS_VIEWER_RUN_H
#define ASYNCTOP_TESTS_VIEWER_RUN_H

#include <stdbool.h>
#include <stddef.h>

#include "model/buf.h"
#include "tests/launch_util.h"
#include "tests/tmux.h"

/* A generous bound for anything the viewer is waited for. */
#define FRUN_WAIT_MS (LIMIT_S * 1000)

/* The viewer in tmux (120x30) in a private directory (its cwd, TMPDIR and
 * XDG_RUNTIME_DIR), saving into DIR/saves, run by tests/data/jobctl.py as
 * an interactive shell runs a job; once it ends, "viewer exit N" shows
 * and the terminal stays open to be looked at. */
struct frun {
	char dir[512], saves[640], never[640];
	struct tmux_events ev;
	struct tmux t;
	struct buf screen;
	long pid; /* the viewer's */
};

/* Starts the viewer with args after the settings env (may be ""); false,
 * the test skipped as name, where it cannot run. */
bool frun_start(struct frun *r, const char *name, const char *env,
                const char *args);
/* frun_start in a terminal cols wide (frun_start's: 120): room for a
 * status line naming a long socket path and still saying why. */
bool frun_start_wide(struct frun *r, int cols, const char *name,
                     const char *env, const char *args);
/* Ends tmux and the viewer; removes the private directory. */
void frun_end(struct frun *r);

/* The viewer's own terminal while it runs: raw, alternate screen, mouse
 * reporting on. */
void frun_assert_viewer(struct frun *r);
/* The terminal as the shell had it: no alternate screen, no mouse
 * reporting, canonical and echoing. */
void frun_assert_shell(struct frun *r, const char *when);

/* A screen_ok: the screen holds the text ctx. */
bool frun_shows(const struct buf *screen, const void *ctx);
/* Waits for "viewer exit N" in the pane, N being code (code < 0: any
 * but 0), then checks the terminal. */
void frun_expect_exit(struct frun *r, int code);
/* The number of "window N committed" events so far. */
size_t frun_committed(const struct frun *r);
/* Every window committed is in the history: the header counts them all. */
void frun_assert_all_kept(struct frun *r);
/* S saves the window shown: a profile that reads back with samples. */
void frun_assert_saves(struct frun *r);
/* Quits with q: exit 0, the terminal restored. */
void frun_quit(struct frun *r);
/* How a case ends once the viewer came through its fault: still in its
 * own terminal (frun_assert_viewer), every window kept, S saves, q quits
 * cleanly; then frun_end. */
void frun_survived(struct frun *r);

#endif
