/* `asynctop -- COMMAND`: start a program with the asyncio agent injected
 * (PYTHONPATH and a chaining sitecustomize), meet it at a rendezvous file,
 * and end it when asynctop ends (docs/design.md §8, docs/launch.md). */
#ifndef ASYNCTOP_TUI_LAUNCH_H
#define ASYNCTOP_TUI_LAUNCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "model/base.h"
#include "model/status.h"

#define LAUNCH_PATH_MAX 4096
/* How long the program has to announce itself, unless
 * $ASYNCTOP_ANNOUNCE_TIMEOUT (seconds, decimals) says otherwise. */
#define LAUNCH_TIMEOUT_NS ((uint64_t)10000000000u)
/* How long the program has between SIGTERM and SIGKILL. */
#define LAUNCH_TERM_GRACE_MS 2000

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
	char dir[LAUNCH_PATH_MAX - 32];   /* private directory, or "" */
	char rendezvous[LAUNCH_PATH_MAX]; /* dir/announce */
	char log[LAUNCH_PATH_MAX];        /* dir/output.log in LOG mode */
	char name[256];                   /* the command, for messages */
	long agent_pid;                   /* the first to announce; 0: none */
	char endpoint[32];                /* agent_pid as text, for -e */
};

/* The directory holding asynctop_agent/ and launch/sitecustomize.py:
 * $ASYNCTOP_AGENT_PATH; else adapters/asyncio of the build tree the running
 * binary sits in (up to three levels above it); else
 * ASYNCTOP_PREFIX/share/asynctop/python.  STATUS_UNREACHABLE when none has
 * the agent (err says where it looked).  Reads the file system only. */
enum status launch_agent_dir(char *dst, size_t size, char *err,
                             size_t errsz) MUST_CHECK;

/* The announcement timeout: $ASYNCTOP_ANNOUNCE_TIMEOUT seconds when set and
 * valid (0.1 to 3600), else LAUNCH_TIMEOUT_NS. */
uint64_t launch_timeout_ns(void);

/* Starts argv (borrowed, NULL-terminated; argv[0] looked up on PATH) in its
 * own process group, stdin /dev/null, output as out says, the environment
 * ours plus PYTHONPATH (the agent first) and ASYNCTOP_RENDEZVOUS.  Resets
 * the signals asynctop handles or ignores to their defaults in the child.
 * STATUS_INVAL when it cannot be started (no such command, no agent, no
 * room for the private directory), with a one-line reason in err; the
 * caller exits 2.  STATUS_NOMEM.  On failure l holds nothing to end, but
 * launch_end is still safe.  Does not block. */
enum status launch_start(struct launch *l, char *const *argv,
                         enum launch_output out, char *err,
                         size_t errsz) MUST_CHECK;

/* Waits until a process of the program announces an agent (then fills
 * l->agent_pid and l->endpoint), at most timeout_ns, or until stop_fd (-1:
 * none) is readable.  STATUS_OK; STATUS_STOPPED; STATUS_UNREACHABLE when the
 * program exited first, STATUS_TIMEOUT when it never announced: err then
 * holds a paragraph (what happened, a hint, and in LOG mode the tail of its
 * output).  Blocks, polling the rendezvous file every 20 ms. */
enum status launch_wait(struct launch *l, uint64_t timeout_ns, int stop_fd,
                        char *err, size_t errsz) MUST_CHECK;

/* Writes the pids announced after the first (forks, other processes of the
 * program), up to max of them, into pids; returns how many there were in
 * all.  Reads the rendezvous file; never blocks. */
size_t launch_others(const struct launch *l, long *pids, size_t max);

/* Reaps the program if it has exited; true when it has.  Never blocks. */
bool launch_exited(struct launch *l);

/* Ends the program: unless keep, SIGTERM to its process group, SIGKILL
 * after LAUNCH_TERM_GRACE_MS if the program is still there (then the group
 * gets SIGKILL too, so no fork outlives it); removes the rendezvous file
 * and the private directory (in LOG mode the log and its directory stay).
 * Blocks up to the grace period.  Safe on a zeroed or failed l. */
void launch_end(struct launch *l, bool keep);

#endif
