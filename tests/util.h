/* Helpers shared by the test suites: temporary directories, files, the
 * allocation-failure ("torture") loop, skipping with a reason, the event
 * channel's FIFO and its bounded reads, a process's state, and running a
 * child process with a hard time limit. */
#ifndef ASYNCTOP_TESTS_UTIL_H
#define ASYNCTOP_TESTS_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include <time.h>

#include "model/buf.h"
#include "model/status.h"

/* How many runs a property test's loop makes: n, and a fifth of it (at least
 * one) in a build under AddressSanitizer, where each run of a large random
 * case is ten to twenty times slower.  The sanitizer needs the code paths
 * and a few varied cases, not many of them; the plain run keeps them all
 * (docs/testing.md, "CI's time"). */
#if defined(__SANITIZE_ADDRESS__)
#define TU_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TU_SANITIZED 1
#endif
#endif
#ifdef TU_SANITIZED
#define TU_PROP_RUNS(n) (((n) + 4) / 5)
#else
#define TU_PROP_RUNS(n) (n)
#endif

/* A fresh private directory under $TMPDIR (or /tmp); the path is written
 * into dir.  Aborts the test on failure. */
void tu_mkdtemp(char *dir, size_t size);
/* Removes dir and everything in it (one level of files). */
void tu_rmtree(const char *dir);

/* How many entries dir holds, "." and ".." aside, and except too when not
 * NULL.  Fails the test when dir cannot be read. */
int tu_count_entries(const char *dir, const char *except);

/* Reads a whole file into b (which must be initialised); status of I/O. */
enum status tu_read_file(const char *path, struct buf *b);
enum status tu_write_file(const char *path, const void *data, size_t len);

/* Path of a fixture under tests/data ($ASYNCTOP_TESTDATA). */
void tu_data_path(char *dst, size_t size, const char *name);

/* Runs fn(ctx) once to count its allocations, then once per allocation with
 * that one failing.  Every run must return STATUS_OK or STATUS_NOMEM, and
 * at least one failing run STATUS_NOMEM; fn must free everything it made
 * whatever happens (LeakSanitizer and valgrind check).  Returns the number
 * of allocations counted in the clean run. */
typedef enum status (*tu_torture_fn)(void *ctx);
unsigned long tu_torture(tu_torture_fn fn, void *ctx);

/* A Unix stream socket listening at path, never accepting by itself (fails
 * the test when it cannot be made); the caller closes it. */
int tu_listen_unix(const char *path);

/* Prints "SKIP <test>: <why>" once to stderr, so a skip is never silent. */
void tu_skip(const char *test, const char *why);

/* Makes a FIFO at path and opens it to read without blocking (no writer
 * need be there yet); returns the descriptor.  Fails the test on error. */
int tu_fifo_open(const char *path);

/* Whether the text read so far is what tu_read_until waits for. */
typedef bool (*tu_seen_fn)(const char *text, const void *ctx);
/* Reads fd (non-blocking) into seen (initialised) until done(its text, ctx)
 * holds: true; false when fd ends or limit_s passes without a byte.  seen
 * is a C string whenever done is asked. */
bool tu_read_until(int fd, struct buf *seen, tu_seen_fn done, const void *ctx,
                   int limit_s);

/* The state letter of /proc/PID/stat ('T' stopped), or 0 when it cannot be
 * read (the process is gone). */
char tu_proc_state(long pid);

/* ---- child processes ----------------------------------------------------
 * A child runs in a process group of its own, with every signal unblocked,
 * stdin from /dev/null and stdout and stderr captured (in unlinked temporary
 * files, so it never blocks on a full pipe and a program it leaves running
 * cannot hold the capture open).  When it has not ended by its time limit,
 * its whole process group is killed and the test fails, naming the command
 * and showing what it wrote.  The test's own stdio is flushed before it
 * starts.  A failure to start it (fork, the captures) fails the test; one in
 * the child before the program runs (chdir, setenv) exits 125 with the
 * reason on its stderr. */

enum { TU_RUN_TIMEOUT_MS = 60000 };

/* How a child runs; every field may be zero (NULL). */
struct tu_proc {
	const char *dir;              /* working directory; NULL: ours */
	const char *const *env_unset; /* names to remove, NULL-terminated */
	const char *const *env_set;   /* "NAME=VALUE", NULL-terminated, set
	                               * after the removals, in order */
	int timeout_ms;               /* from the start; 0: TU_RUN_TIMEOUT_MS */
};

/* One child at a time: tu_run_init once, then start and wait as often as
 * needed, then tu_run_fini. */
struct tu_run {
	pid_t pid;      /* while it runs; 0 once waited for */
	int status;     /* waitpid's status */
	int code;       /* its exit status, or 128 + the signal that ended it */
	struct buf out; /* what it wrote to stdout and stderr; after */
	struct buf err; /* tu_run_wait, data is a C string (never NULL) */
	/* private */
	int out_fd, err_fd, timeout_ms;
	struct timespec deadline;
	char what[128];
};

/* Readies r: no child yet, empty buffers. */
void tu_run_init(struct tu_run *r);
/* Frees the buffers; a child still running is killed and reaped. */
void tu_run_fini(struct tu_run *r);

/* Starts argv (NULL-terminated, borrowed for the call; argv[0] is looked
 * up on PATH when it has no slash) under p (NULL: defaults).  Does not
 * block; r->pid is the child.  A program that cannot be started exits 127
 * with the reason on its stderr. */
void tu_run_start(struct tu_run *r, const struct tu_proc *p,
                  const char *const *argv);
/* The same with fn(ctx) run in the forked child instead of a program: its
 * return value is the exit status (stdio is flushed first).  what names it
 * in failure messages. */
void tu_run_start_fn(struct tu_run *r, const struct tu_proc *p,
                     const char *what, int (*fn)(void *ctx), void *ctx);
/* Blocks until the child ends or its time limit passes (then kills its
 * process group and fails the test); fills status, code, out and err. */
void tu_run_wait(struct tu_run *r);
/* tu_run_start then tu_run_wait. */
void tu_run(struct tu_run *r, const struct tu_proc *p, const char *const *argv);

#endif
