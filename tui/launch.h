/* `asynctop -- COMMAND`, the generic part: a private directory, the program
 * started in its own process group with the environment an adapter's launch
 * plan adds, its output, its end (docs/launch.md).  Nothing here knows a
 * runtime: what a program needs for one adapter is that adapter's
 * launch_prepare (adapters/adapter.h). */
#ifndef ASYNCTOP_TUI_LAUNCH_H
#define ASYNCTOP_TUI_LAUNCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "adapters/adapter.h"
#include "model/base.h"
#include "model/status.h"

#define LAUNCH_PATH_MAX 4096
/* How long the program has to become ready, unless
 * $ASYNCTOP_ANNOUNCE_TIMEOUT (seconds, decimals) says otherwise. */
#define LAUNCH_TIMEOUT_NS ((uint64_t)10000000000u)
/* How long the program has between SIGTERM and SIGKILL. */
#define LAUNCH_TERM_GRACE_MS 2000
/* How much of the end of its output a message quotes. */
#define LAUNCH_TAIL_BYTES 2048

/* Where the program's stdout and stderr go. */
enum launch_output {
	LAUNCH_OUTPUT_STDERR, /* record: both pass through to our stderr */
	LAUNCH_OUTPUT_LOG,    /* viewer: both go to l->log */
};

/* A launched program.  Zero it (or launch_start does) before use. */
struct launch {
	pid_t pid;   /* the program (its own process group); 0: none */
	bool exited; /* reaped; wstatus is its status */
	int wstatus;
	enum launch_output output;
	char log[LAUNCH_PATH_MAX]; /* its output in LOG mode, or "" */
	char name[256];            /* the command, for messages */
};

/* Makes the private directory of one launch (mode 0700) under $TMPDIR (an
 * absolute one) or /tmp into dir.  STATUS_INVAL with a one-line reason in
 * err when it cannot be made. */
enum status launch_dir_make(char *dir, size_t size, char *err,
                            size_t errsz) MUST_CHECK;

/* Removes dir and what it holds (files, sockets, one level of
 * subdirectories: whatever an adapter or its agent put there).  "" is a
 * no-op. */
void launch_dir_remove(const char *dir);

/* The ready timeout: $ASYNCTOP_ANNOUNCE_TIMEOUT seconds when set and
 * valid (0.1 to 3600), else LAUNCH_TIMEOUT_NS. */
uint64_t launch_timeout_ns(void);

/* Starts argv (borrowed, NULL-terminated; argv[0] looked up on PATH) in its
 * own process group, stdin /dev/null, output as out says (LOG: a new file
 * asynctop-output-XXXXXX.log beside plan->dir, which outlives the run), the
 * environment ours with plan->env on top.  Resets the signals asynctop
 * handles or ignores to their defaults in the child.  STATUS_INVAL when it
 * cannot be started (no such command), with a one-line reason in err; the
 * caller exits 2.  STATUS_NOMEM.  On failure l holds nothing to end, but
 * launch_end is still safe.  Does not block. */
enum status launch_start(struct launch *l, char *const *argv,
                         const struct launch_plan *plan, enum launch_output out,
                         char *err, size_t errsz) MUST_CHECK;

/* Reaps the program if it has exited; true when it has.  Never blocks. */
bool launch_exited(struct launch *l);

/* How the reaped program ended: "exited with status 1", "was killed by
 * SIGSEGV (Segmentation fault)".  Into dst (always NUL-terminated). */
void launch_describe_end(const struct launch *l, char *dst, size_t size);

/* Appends to err (NUL-terminated, cut if short) the last lines of the
 * program's output: in LOG mode up to LAUNCH_TAIL_BYTES of the log, cut at
 * a line start; with output on stderr a note that it is above. */
void launch_add_tail(const struct launch *l, char *err, size_t errsz);

/* Ends the program: unless keep, SIGTERM to its process group, SIGKILL
 * after LAUNCH_TERM_GRACE_MS if the program is still there (then the group
 * gets SIGKILL too, so no fork outlives it).  Blocks up to the grace
 * period.  Safe on a zeroed or failed l. */
void launch_end(struct launch *l, bool keep);

#endif
