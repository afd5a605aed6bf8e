/* Helpers of the launcher's end-to-end suites: asynctop runs as a real
 * process in a private directory (its cwd, TMPDIR and XDG_RUNTIME_DIR) on
 * the programs of tests/data/launch/, with its test events. */
#ifndef ASYNCTOP_TESTS_LAUNCH_UTIL_H
#define ASYNCTOP_TESTS_LAUNCH_UTIL_H

#include <stdbool.h>
#include <stddef.h>

#include "model/buf.h"
#include "tests/util.h"

/* The bound on every wait of these suites, in seconds. */
#define LIMIT_S 60

struct lu_run {
	char dir[512];   /* the child's working directory, TMPDIR and
	                  * XDG_RUNTIME_DIR */
	struct tu_run p; /* the child: its exit code, stdout and stderr */
	struct buf events;
};

/* ASYNCTOP_BIN when it names an executable, else NULL. */
const char *lu_bin(void);
/* False (with a printed reason) when the test cannot run here. */
bool lu_can_run(const char *test);
/* A fresh private directory; this process becomes a child subreaper. */
void lu_init(struct lu_run *r);
void lu_fini(struct lu_run *r);
/* r->dir/name into dst. */
void lu_in_dir(char *dst, size_t size, const struct lu_run *r,
               const char *name);
/* tests/data/launch/name into dst. */
void lu_data(char *dst, size_t size, const char *name);
/* Makes b->data a string even when b is empty. */
void lu_text(struct buf *b);
/* Starts asynctop with argv (argv[0] replaced) in r->dir, extra
 * "NAME=VALUE" settings (NULL-terminated, may be NULL), events to the file
 * or FIFO events in r->dir. */
void lu_start(struct lu_run *r, const char *const *argv,
              const char *const *extra, const char *events);
/* Waits for asynctop; reads its events from r->dir/.events. */
void lu_collect(struct lu_run *r);
/* lu_start with events to a file, then lu_collect. */
void lu_run_bin(struct lu_run *r, const char *const *argv,
                const char *const *extra);
/* The number after "WORD " in the events, or 0. */
long lu_event_pid(const struct lu_run *r, const char *word);
size_t lu_count_events(const struct lu_run *r, const char *word);
/* No asynctop-launch-* directory is left in r->dir. */
void lu_assert_no_launch_dir(const struct lu_run *r);
/* The process is gone and reaped. */
void lu_assert_gone(long pid);
/* Reaps an orphan of ours (we are a subreaper); its wait status. */
int lu_reap(long pid);
/* "asynctop record -w 1 -n 1 -f text -o - --" and cmd into argv. */
void lu_with_command(const char **argv, size_t size, const char *const *cmd);
/* The opening of most record tests: false (with a printed reason) when test
 * cannot run here; else r is made fresh (lu_init) and asynctop has run to
 * its end, as lu_with_command makes it, on cmd (NULL-terminated, borrowed)
 * with the settings extra (as lu_start's; may be NULL). */
bool lu_record(struct lu_run *r, const char *test, const char *const *cmd,
               const char *const *extra);
/* asynctop exited 0; else the test fails with the exit and its stderr. */
void lu_assert_exit_ok(const struct lu_run *r);
/* The pid in the "announced" event, checked to be the one "launched". */
long lu_announced_pid(const struct lu_run *r);
/* Makes the FIFO r->dir/.fifo and opens it for reading (non-blocking). */
int lu_events_fifo(struct lu_run *r, char *path, size_t size);
/* Reads events from fd into seen until a whole line starting with word
 * arrived (its number into *value when not NULL): true; false when fd
 * ends or LIMIT_S passes first. */
bool lu_wait_event(int fd, struct buf *seen, const char *word, long *value);

#endif
