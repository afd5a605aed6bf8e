/* The adapter contract (docs/adapters.md): given a source and a window,
 * produce the task samples for that window.  Everything runtime-specific
 * stays behind struct adapter_ops; the rest of asynctop sees samples. */
#ifndef ASYNCTOP_ADAPTERS_ADAPTER_H
#define ASYNCTOP_ADAPTERS_ADAPTER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/base.h"
#include "model/sample.h"
#include "model/status.h"
#include "model/window.h"

struct adapter;
struct collect;

/* Connection states an adapter reports (shown in the viewer's header). */
#define SOURCE_STATE_LIST(X)        \
	X(CONNECTING, "connecting") \
	X(CONNECTED, "connected")   \
	X(RETRYING, "retrying")     \
	X(LOST, "lost")             \
	X(REPLAY, "replay")

enum source_state {
#define SOURCE_STATE_ENUM(id, text) SOURCE_##id,
	SOURCE_STATE_LIST(SOURCE_STATE_ENUM)
#undef SOURCE_STATE_ENUM
	    SOURCE_STATE_COUNT
};

const char *source_state_str(enum source_state st);

/* Why a collect failed, worded for the operator (docs/design.md §12).  detail
 * is what went wrong, remediation what to do about it (may be empty). */
struct adapter_error {
	enum status st;
	char detail[512];
	char remediation[512];
};

/* The delay before retrying a failed source (docs/design.md §1): the n-th
 * consecutive failure, counted from 0, waits clamp(base·2^n, base, max).
 * Saturates rather than overflows; a max below base is taken as base.
 * Unlike tokio-console's, the cap is a ceiling, not a floor. */
uint64_t backoff_ns(uint64_t base_ns, uint64_t max_ns, unsigned n);

/* Settings shared by every adapter instance; copied at adapter_open. */
struct adapter_config {
	uint64_t connect_timeout_ns; /* default 2 s */
	uint64_t reply_timeout_ns;   /* one agent reply; default 2 s */
	profile_loader_fn loader;    /* replay: reads one saved profile */
	struct load_limits load_limits;
};

/* ---- launching a program for an adapter (`-- COMMAND`) ---------------- */

#define LAUNCH_PLAN_ENV_MAX  8
#define LAUNCH_PLAN_PATH_MAX 4096

/* How a program that asynctop starts is prepared for one adapter, and how
 * its endpoint is found once it runs.  The front end owns the process (its
 * process group, output, end); the adapter owns everything runtime-specific
 * (an injected agent, a port to listen on).  Zero it before use; release it
 * with launch_plan_fini. */
struct launch_plan {
	/* A private directory (mode 0700, ours) made before launch_prepare
	 * and removed, with whatever the adapter put in it, once both the
	 * program and asynctop have ended. */
	char dir[LAUNCH_PLAN_PATH_MAX];
	/* "NAME=VALUE" entries the program gets on top of our environment,
	 * each replacing ours of the same NAME; owned, set with
	 * launch_plan_setenv. */
	char *env[LAUNCH_PLAN_ENV_MAX];
	size_t nenv;
	/* What to open once the program is ready: set by launch_prepare when
	 * it is known up front (a port asynctop chose), else by launch_ready
	 * (the pid that announced itself). */
	char endpoint[LAUNCH_PLAN_PATH_MAX];
};

/* Sets NAME=VALUE in plan->env (copied), replacing an earlier NAME.
 * STATUS_LIMIT past LAUNCH_PLAN_ENV_MAX names; STATUS_INVAL for a name that
 * is empty or holds '='; STATUS_NOMEM. */
enum status launch_plan_setenv(struct launch_plan *plan, const char *name,
                               const char *value) MUST_CHECK;
/* The value plan->env holds for name, or NULL.  Borrowed from plan. */
const char *launch_plan_getenv(const struct launch_plan *plan,
                               const char *name);
/* Frees plan->env and zeroes plan; the directory is the caller's. */
void launch_plan_fini(struct launch_plan *plan);

enum adapter_flags {
	ADAPTER_MULTI_ENDPOINT = 1u << 0, /* -e may repeat (replay) */
	ADAPTER_FINITE = 1u << 1,         /* runs out of windows (replay) */
};

/* One adapter, as registered.  Designated initializers only. */
struct adapter_ops {
	const char *name;             /* as an operator types it */
	const char *const *aliases;   /* NULL-terminated; may be NULL */
	const char *summary;          /* one line for `asynctop adapters` */
	const char *default_endpoint; /* NULL: -e is required */
	unsigned flags;               /* enum adapter_flags */
	size_t private_size;          /* zeroed state the framework allocates */
	/* Non-blocking set-up; no connection yet.  May fail with INVAL (bad
	 * endpoint syntax) and fill err. */
	enum status (*open)(struct adapter *a, struct adapter_error *err);
	/* Collects one window; see the collect_* functions.  Blocks for at
	 * most the window plus 1 s of grace, and returns within 100 ms of a
	 * stop request.  STATUS_OK with samples added; STATUS_EMPTY_WINDOW is
	 * decided by the framework, not the adapter; STATUS_EOF when a finite
	 * source has no more windows; or an error via collect_fail. */
	enum status (*collect)(struct adapter *a, struct collect *c);
	void (*close)(struct adapter *a);
	/* Optional: prepares plan for a program about to be started with
	 * `-- COMMAND` (plan->dir exists): fills plan->env and, when known,
	 * plan->endpoint.  STATUS_INVAL with err when such a launch cannot
	 * work here (no agent to inject).  Does not block.  NULL: this
	 * adapter cannot launch programs. */
	enum status (*launch_prepare)(const struct adapter_ops *ops,
	                              struct launch_plan *plan,
	                              struct adapter_error *err);
	/* With launch_prepare: is the started program ready to be opened?
	 * STATUS_OK (plan->endpoint set); STATUS_AGAIN, not yet, with
	 * err->detail saying what is awaited and err->remediation what the
	 * operator can check (the front end asks again every 20 ms and shows
	 * both if the launch times out); another status with err when it
	 * never will be.  Blocks at most ~50 ms (a loopback connect).  The
	 * front end, not the adapter, watches the program exit. */
	enum status (*launch_ready)(const struct adapter_ops *ops,
	                            struct launch_plan *plan,
	                            struct adapter_error *err);
	/* Optional: after the run, the pids of further processes of the
	 * program that the adapter saw (forks that announced an agent too),
	 * up to max in pids; returns how many there were in all.  Never
	 * blocks. */
	size_t (*launch_others)(const struct adapter_ops *ops,
	                        const struct launch_plan *plan, long *pids,
	                        size_t max);
	/* For the custom adapter: passed through to it, see asynctop.h. */
	const void *user;
};

/* An open source.  Owned by whoever opened it; used by one thread at a
 * time (the worker while it runs). */
struct adapter {
	const struct adapter_ops *ops;
	char **endpoints; /* owned copies; the default endpoint if none given */
	size_t nendpoints;
	struct adapter_config cfg;
	void *priv; /* private_size bytes, zeroed */
};

/* ---- the registry ------------------------------------------------------ */

/* A set of adapters an executable offers (the stock binary's, or an
 * embedder's own).  Borrowed: the ops must outlive the registry. */
struct adapter_registry {
	const struct adapter_ops *const *ops;
	size_t n;
	/* The adapter `-- COMMAND` uses when -a is not given; NULL: -a is
	 * required with a command. */
	const struct adapter_ops *launch_default;
	/* The adapter the viewer and record attach to when given neither -a
	 * nor a command (at its default endpoint); NULL: they say what works
	 * instead. */
	const struct adapter_ops *attach_default;
	/* NULL-terminated lines that say what works, for an operator who
	 * gave nothing to attach to ("asynctop -- python3 app.py   start a
	 * program and watch it"); PROG in a line is replaced by the program's
	 * name.  May be NULL. */
	const char *const *hints;
};

/* The adapter named or aliased name (case-sensitive), or NULL. */
const struct adapter_ops *adapter_find(const struct adapter_registry *r,
                                       const char *name);

/* "asyncio, replay, tokio (alias kernal-api-async)" for error messages
 * ("(aliases a, b)" for several), in registry order, into dst (always
 * NUL-terminated, cut if short). */
void adapter_list_names(const struct adapter_registry *r, char *dst,
                        size_t size);

/* The defaults: connect and reply timeouts 2 s, no loader, the default
 * load limits (docs/design.md §6). */
void adapter_config_default(struct adapter_config *cfg);

/* The one-line error for an unknown adapter name (docs/design.md §12):
 * `no async profiling adapter named "X"; available: a, b, c`, the name
 * quoted and escaped.  Into dst (always NUL-terminated, cut if short). */
void adapter_format_unknown(const struct adapter_registry *r, const char *name,
                            char *dst, size_t size);

/* The paragraph an operator reads for a failed window of adapter (its
 * name) at endpoint (NULL or "" reads "its default endpoint"):
 * STATUS_UNREACHABLE: `the A source is not reachable at E: DETAIL`, then
 * the remediation on its own line (when there is one);
 * STATUS_EMPTY_WINDOW: `the A source produced no task data over %gs. ...`
 * with seconds the MEASURED length; STATUS_TIMEOUT: `the A source at E
 * timed out: DETAIL`; STATUS_MALFORMED: `the A source at E sent malformed
 * data: DETAIL`; anything else `the A source at E failed: DETAIL` (the
 * status's message when there is no detail), each followed by the
 * remediation line when there is one.  No trailing newline.  Numbers in
 * the C locale whatever the process's locale.  Into dst (always
 * NUL-terminated, cut if short). */
void adapter_format_error(const struct adapter_error *e, const char *adapter,
                          const char *endpoint, double seconds, char *dst,
                          size_t size);

/* Opens an instance of ops for endpoints (copied; n may be 0 for the
 * default).  cfg (copied; NULL for the defaults; its zero fields get the
 * defaults).  STATUS_INVAL with err filled for several endpoints on an
 * adapter without ADAPTER_MULTI_ENDPOINT, or none where one is needed, or
 * what ops->open refused; STATUS_NOMEM.  err may be NULL.  Does not
 * block (ops->open must not). */
enum status adapter_open(const struct adapter_ops *ops,
                         const char *const *endpoints, size_t n,
                         const struct adapter_config *cfg,
                         struct adapter_error *err,
                         struct adapter **out) MUST_CHECK;
/* Calls ops->close and frees a; NULL is a no-op. */
void adapter_close(struct adapter *a);

/* ---- inside collect: what adapters and producers call ----------------- */
/* Only from inside ops->collect, on the worker thread (adapters/worker.c
 * implements them). */

/* The window asked for, already clamped to 60 s. */
uint64_t collect_length(const struct collect *c);
/* CLOCK_MONOTONIC instant the window started (the previous one's end). */
uint64_t collect_start(const struct collect *c);
/* collect_start + collect_length: when collect should return. */
uint64_t collect_deadline(const struct collect *c);
/* Starts the window afresh at now, deadline and watchdog included: for an
 * adapter whose first window begins at its source's first snapshot, taken
 * after connecting (docs/design.md §2), so that a slow connection neither
 * shortens that window nor eats its grace. */
void collect_restart(struct collect *c);
/* Says the adapter is in a wait bounded by a timeout of its own that may
 * end after the window's (connecting, a first reply): the watchdog then
 * counts its grace from until_ns (monotonic) instead, so a slow but
 * bounded step is not reported as a hang, while an adapter that overruns
 * its own timeout still is.  The latest until_ns wins, for this window. */
void collect_hold(struct collect *c, uint64_t until_ns);
/* The 1-based number of the window being collected. */
uint64_t collect_index(const struct collect *c);
/* The refresh period for progress reports. */
uint64_t collect_refresh(const struct collect *c);
/* CLOCK_MONOTONIC now, in ns. */
uint64_t collect_now(void);
/* True once a stop or an "end the window now" was requested. */
bool collect_stopping(const struct collect *c);
/* A descriptor that is readable once a stop or an "end the window now"
 * was requested for this window, for an adapter that poll()s its own
 * sockets (add it with POLLIN; never read it: the worker resets it). */
int collect_stop_fd(const struct collect *c);
/* Sleeps until the monotonic deadline, or a stop or end-now request.
 * STATUS_OK at the deadline, STATUS_STOPPED when asked to stop early. */
enum status collect_wait_until(struct collect *c, uint64_t deadline_ns);
/* Adds a sample (borrowed, copied) to the window being collected.
 * STATUS_OK; STATUS_LIMIT when the window's cap (4 M samples, 256 MiB of
 * strings) is reached and STATUS_NOMEM: the sample is then dropped and
 * counted in the window's meta.dropped, and collect may go on. */
enum status collect_add(struct collect *c, const struct sample *s) MUST_CHECK;
/* Counts n samples the source lost (added to the window's meta.dropped). */
void collect_dropped(struct collect *c, uint64_t n);
/* Forgets the samples added so far in this window (for a source that
 * recomputes the whole window from cumulative state at each refresh). */
void collect_clear(struct collect *c);
/* Sets the window's measured metadata (copied): start, length, partial,
 * source, dropped, comments.  It then replaces what the worker measured;
 * requested_nanos and clamped are still the worker's, except for an
 * ADAPTER_FINITE adapter (replay keeps the file's).  Out of memory makes
 * the window a STATUS_NOMEM error. */
void collect_set_meta(struct collect *c, const struct window_meta *meta);
/* Reports a connection state; retry_in_ns for SOURCE_RETRYING. */
void collect_state(struct collect *c, enum source_state st,
                   uint64_t retry_in_ns);
/* Sends a copy of the samples added so far in this window (they stay in
 * the window) as a WORKER_PROGRESS view of the window in progress (the
 * viewer's `o` key).  An undelivered progress view of the same window is
 * replaced, so progress never piles up.  STATUS_NOMEM (nothing sent). */
enum status collect_progress(struct collect *c) MUST_CHECK;
/* Records an error for the caller and returns st (use: return
 * collect_fail(c, STATUS_UNREACHABLE, "...", "...")).  Text is copied. */
enum status collect_fail(struct collect *c, enum status st, const char *detail,
                         const char *remediation);

#endif
