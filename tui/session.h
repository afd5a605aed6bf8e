/* One source session, shared by `record` and the viewer: which adapter (the
 * registry's defaults, validation, worded usage errors), the `-- COMMAND`
 * launch through the adapter's launch hook, opening, the worker; then
 * stopping it (a grace, then abandoning a hung source) and closing it
 * (ending the program, removing its directory).  The front ends keep only
 * their own loops (docs/architecture.md, Sessions and launching). */
#ifndef ASYNCTOP_TUI_SESSION_H
#define ASYNCTOP_TUI_SESSION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "adapters/adapter.h"
#include "adapters/worker.h"
#include "model/base.h"
#include "model/status.h"
#include "tui/cli.h"
#include "tui/launch.h"

/* How long an error of a running launched program waits for the program's
 * end before it is reported. */
#define SESSION_HOLD_MS 1000

/* How a front end runs its session. */
struct session_opts {
	const char *prog;          /* for messages */
	const char *cmd;           /* "record", or NULL for the viewer */
	enum launch_output output; /* where a launched program's output goes */
	uint64_t stop_grace_ms;    /* how long a stopping source may take */
	int events;                /* test events, or -1 */
	int sigfd;                 /* the signal pipe (tui/signals.h), or -1 */
};

struct session {
	struct session_opts so;
	const struct opts *o;
	const struct adapter_ops *ops;
	struct adapter *a;
	struct worker *w;
	struct launch child;     /* -- COMMAND */
	struct launch_plan plan; /* its directory, environment, endpoint */
	bool ready;              /* the launched program became ready */
	bool worker_done;        /* WORKER_DONE was read */
	bool stopping;
	bool abandoned;          /* the source would not stop: left running */
	bool child_told;         /* session_child_ended said so once */
	int signo;               /* the signal that ended a launch wait */
	uint64_t stop_at_ms;     /* monotonic deadline once stopping */
	struct worker_msg *held; /* see session_screen */
	uint64_t held_until_ms;
	char source[1024]; /* "ADAPTER ENDPOINT, ENDPOINT" */
	/* What else works, when the adapter was the registry's default for
	 * attaching rather than the operator's choice: appended to an
	 * unreachable error ("" otherwise). */
	char also[1536];
	const char *endpoint; /* in source, after the adapter's name */
};

/* Whether windows can be saved in dir (the viewer's -d, which exists):
 * probed as record probes its output, before the source opens.  0 when a
 * file can be made there, with notice "".  When it cannot, a directory
 * given with -d fails: exit 1 (EXIT_ERROR) after "PROG: cannot save
 * windows in DIR: REASON" on stderr; the working directory, the default,
 * only warns: the same words (naming "the working directory") go into
 * notice (size bytes) for the status line, and 0.  Blocks on the file
 * system. */
int session_probe_saves(const char *prog, const char *dir, char *notice,
                        size_t size);

/* Decides the adapter: -a, else the registry's launch_default for a
 * command, else its attach_default; checks -e against a command and a
 * command against the adapter.  0, or an exit status (enum asynctop_exit)
 * after a worded message on stderr: an unknown name gets "did you mean",
 * nothing to attach to gets the registry's hints.  s is then safe to
 * session_close.  Does not block. */
int session_resolve(struct session *s, const struct opts *o,
                    const struct adapter_registry *reg,
                    const struct session_opts *so);

/* Starts the command (when there is one) and waits, polling the adapter's
 * launch_ready every 20 ms, until it is ready, exits, times out or a
 * stopping signal arrives on so->sigfd; then opens the adapter.  0, or an
 * exit status after a worded message on stderr (and an "error" event).
 * Blocks for the launch only. */
int session_open(struct session *s);

/* Starts the worker.  STATUS_OK, or what worker_start returned. */
enum status session_start(struct session *s,
                          const struct worker_opts *wo) MUST_CHECK;

/* Asks the worker to stop (once) and starts the grace clock. */
void session_stop(struct session *s);

/* Milliseconds left of the grace once stopping (0: over), -1 otherwise. */
int session_stop_left_ms(const struct session *s);

/* The source did not stop in time: says so on stderr and leaves it. */
void session_give_up(struct session *s);

/* Stops the worker and waits (up to the grace) for it to finish, reading
 * and dropping its messages; gives up on it past the grace. */
void session_drain(struct session *s);

/* True, once, when the launched program has ended by itself; msg then says
 * how ("`./app serve` exited with status 1", "was killed by SIGSEGV")
 * with the last lines of its output.  Never blocks. */
bool session_child_ended(struct session *s, char *msg, size_t size);

/* What a front end does with a worker message, as session_screen says. */
enum session_verdict {
	SESSION_TAKE, /* take it as usual, then free it */
	SESSION_DROP, /* free it unread */
	SESSION_HOLD, /* the session keeps it: read no further message until
	               * session_release gives it back or drops it */
};

/* Looks at a worker message (may be changed) of a launched program before
 * the front end takes it.  An error or a retry once the program has ended
 * is dropped: what the front end reports is the program's end
 * (session_child_ended), never an unreachable source.  An error while the
 * program still runs is held (the session then owns msg) for up to
 * SESSION_HOLD_MS, since a program's exit closes its connection before it
 * can be reaped.  Errors of a program asynctop started lose their
 * remediation (how to make a program reachable does not apply to it).
 * SESSION_TAKE for every message of a session without a launched program.
 * Never blocks. */
enum session_verdict session_screen(struct session *s, struct worker_msg *msg);

/* Milliseconds until a held message is due (0: now), or -1 when none is
 * held: the front end's poll() timeout. */
int session_held_ms(const struct session *s);

/* The held message once it is due and the program still runs (the caller
 * takes and frees it); NULL while it is held, or when it was dropped
 * because the program has ended.  Never blocks. */
struct worker_msg *session_release(struct session *s);

/* Job control: stops (SIGSTOP) or continues (SIGCONT) the launched
 * program's process group, which a ^Z at the terminal does not reach (it
 * runs in a group of its own).  A no-op without a running program. */
void session_pause_child(struct session *s, bool stop);

/* adapter_format_error for this session's adapter and endpoint, with
 * numbers in the C locale whatever an embedder set. */
void session_format_error(const struct session *s,
                          const struct adapter_error *e, double seconds,
                          char *dst, size_t size);

/* Frees the worker and the adapter (unless abandoned), lists the other
 * processes the adapter saw, ends the program (unless --keep once it was
 * ready), and removes its directory.  Safe on a zeroed or failed s. */
void session_close(struct session *s);

#endif
