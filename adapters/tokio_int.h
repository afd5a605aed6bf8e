/* Private to the tokio adapter: the state its files share.  tokio_state.c
 * decodes console-api Updates (into tokio_arena.c's blocks) and applies
 * them to the tables of tokio_table.c; tokio_window.c turns the tables
 * into window samples and tokio_location.c words spawn locations;
 * tokio_grpc.c reads the stream; tokio.c holds the ops.  Nothing here
 * includes gRPC, so the state is testable without a network
 * (tests/test_tokio.c). */
#ifndef ASYNCTOP_ADAPTERS_TOKIO_INT_H
#define ASYNCTOP_ADAPTERS_TOKIO_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/base.h"
#include "model/hash.h"
#include "model/intern.h"
#include "model/metric.h"
#include "model/sample.h"
#include "model/status.h"

/* Bounds on what a subscriber can make us hold (docs/tokio.md). */
#define TOKIO_MAX_TASKS    ((size_t)1 << 21) /* live and retired tasks */
#define TOKIO_MAX_PENDING  4096  /* stats whose task has not arrived */
#define TOKIO_MAX_META     65536 /* metadata entries (callsites) */
#define TOKIO_MAX_STRINGS  ((size_t)1 << 20)
#define TOKIO_MAX_TEXT     1024 /* bytes of a name or location kept */
#define TOKIO_MAX_FIELDS   256  /* field names of one metadata entry */
#define TOKIO_ARENA_BLOCK  ((size_t)4 << 20)
#define TOKIO_DEFAULT_RECV ((size_t)256 << 20) /* receive limit */

/* Which of a task's optional timestamps are known. */
enum tokio_task_flags {
	TOKIO_HAS_STATS = 1u << 0,
	TOKIO_HAS_DROPPED = 1u << 1,
	TOKIO_HAS_WAKE = 1u << 2,
	TOKIO_HAS_STARTED = 1u << 3,
	TOKIO_HAS_ENDED = 1u << 4,
	TOKIO_HAS_BASE = 1u << 5,
	TOKIO_RETIRED = 1u << 6, /* its span id was announced again */
};

/* A task's cumulative figures as the latest Stats gave them.  Times are
 * nanoseconds of the subscriber's clock (since the epoch). */
struct tokio_stats {
	int64_t created, dropped, last_wake, started, ended;
	uint64_t busy, sched; /* completed polls, completed wake→poll waits */
	uint64_t polls, wakes, self_wakes, clones, drops;
	uint8_t flags; /* TOKIO_HAS_DROPPED .. TOKIO_HAS_ENDED */
};

struct tokio_task {
	uint64_t span; /* the wire key; reused after the span closes */
	struct tokio_stats s;
	uint32_t name, kind, loc; /* ids in tokio_state.strs; 0: none */
	uint8_t flags;            /* TOKIO_HAS_STATS, _BASE, _RETIRED */
	struct metrics base;      /* figures at the window's start */
	uint64_t base_self;       /* self-wakes at the window's start */
};

struct tokio_pending {
	uint64_t span;
	struct tokio_stats s;
};

/* Where one Update is decoded: blocks mapped from the kernel and unmapped
 * once it is applied, so a 100 MB decode of a first Update does not stay
 * in the heap (as freed malloc memory would) for the rest of the run. */
struct tokio_arena_block;

struct tokio_arena {
	struct tokio_arena_block *head;
	bool nomem;
};

struct tokio_meta {
	uint64_t id;
	uint32_t n;      /* field names */
	uint32_t *names; /* ids in strs */
};

/* Everything one subscription told us, and the window being measured. */
struct tokio_state {
	struct tokio_task *tasks;
	size_t ntasks, captasks;
	struct hash_table spans; /* span id -> index + 1 of a live task */
	struct tokio_pending *pending;
	size_t npending, pending_head;
	struct tokio_meta *meta;
	size_t nmeta, capmeta;
	struct hash_table metas;  /* metadata id -> index + 1 */
	struct intern strs;       /* names, kinds, locations, field names */
	struct tokio_arena arena; /* one Update's decoded messages */
	bool have_now, have_start;
	int64_t now;        /* Update.now of the latest Update */
	int64_t start;      /* Update.now at the window's start */
	uint64_t updates;   /* Updates applied on this stream */
	uint64_t dropped;   /* dropped_events, summed, this window */
	uint64_t malformed; /* fields or values we could not use, this window */
	uint64_t first_tasks; /* tasks in the stream's first Update */
	struct strview frames[2];
};

void tokio_state_init(struct tokio_state *s);
void tokio_state_fini(struct tokio_state *s);
/* Forgets every task, stats and metadata (a new stream begins), keeping
 * the memory of the tables. */
void tokio_state_reset(struct tokio_state *s);

/* Decodes n bytes (borrowed) as one Update and applies it: metadata, new
 * tasks (a known span id retires the old task at its drop, else at this
 * Update's now), stats replacing the stored ones (parked, bounded, when
 * their task is unknown), dropped events summed.  STATUS_MALFORMED with a
 * one-line reason in err for bytes that are not an Update (or one without
 * `now`): nothing is applied then.  STATUS_LIMIT when the task table is
 * full (the rest is counted as dropped); STATUS_NOMEM.  Never blocks. */
enum status tokio_state_apply(struct tokio_state *s, const uint8_t *p, size_t n,
                              char *err, size_t errsz) MUST_CHECK;

/* Makes the latest Update's now the window's start: tasks dropped by then
 * and retired ones are forgotten, the others keep their figures at now as
 * their baseline; the window's counters restart. */
void tokio_state_roll(struct tokio_state *s);

/* Hands every task's figures from the window's start to the latest now to
 * sink, one sample per task (frames: the kind, then the spawn location),
 * with self-wakes, wakers held and a poll in progress as extras.  Stops at
 * the first status from the sink that is neither OK nor LIMIT and returns
 * it. */
enum status tokio_state_emit(struct tokio_state *s,
                             const struct sample_sink *sink);

/* A task's figures at now with tokio-console's formulas (docs/tokio.md):
 * busy includes a poll in progress, scheduled a pending wake, idle is the
 * rest of its life up to now (or its drop).  *poll_now: how long a poll
 * in progress has run (0: none). */
void tokio_stats_at(const struct tokio_stats *st, int64_t now,
                    struct metrics *m, uint64_t *poll_now);

/* Writes a spawn location as tokio-console prints it, file:line:col, with
 * everything up to a cargo registry or git checkout directory shortened to
 * "<cargo>/"; returns its length (cut to fit size, NUL-terminated). */
size_t tokio_location(char *dst, size_t size, struct strview file,
                      bool has_line, uint32_t line, bool has_col, uint32_t col);

/* ---- across the state's files ------------------------------------------- */

/* protobuf-c's allocator on a struct tokio_arena (tokio_arena.c): blocks
 * of at least TOKIO_ARENA_BLOCK, 16-byte aligned; NULL with nomem set when
 * the kernel refuses.  Freeing one allocation does nothing: release unmaps
 * every block at once and clears nomem. */
void *tokio_arena_alloc(void *arena, size_t size);
void tokio_arena_free(void *arena, void *p);
void tokio_arena_release(struct tokio_arena *a);

/* The id of a string (cut to TOKIO_MAX_TEXT), with one reference taken;
 * 0 when empty or when it cannot be kept (counted as malformed). */
uint32_t tokio_str_take(struct tokio_state *s, struct strview v);

/* Removes task i (its strings, its span entry) by moving the last one in. */
void tokio_task_remove(struct tokio_state *s, size_t i);

/* The metadata of an id, or NULL. */
const struct tokio_meta *tokio_meta_find(const struct tokio_state *s,
                                         uint64_t id);

/* Keeps the first nnames field names (at most TOKIO_MAX_FIELDS) of a new
 * metadata id; a known id is left as it is (metadata never changes), one
 * past TOKIO_MAX_META is counted as malformed.  STATUS_OK or
 * STATUS_NOMEM. */
enum status tokio_meta_add(struct tokio_state *s, uint64_t id,
                           char *const *names, size_t nnames) MUST_CHECK;

/* Adds a task of span id span, unnamed, with its parked stats if any, in
 * *out; a live task of the same span id is retired first (it ends at its
 * drop, else at now).  STATUS_LIMIT when the table is full (counted as
 * dropped), STATUS_NOMEM. */
enum status tokio_task_new(struct tokio_state *s, uint64_t span,
                           struct tokio_task **out) MUST_CHECK;

/* Replaces the stats of the task of span id span, or parks them (bounded:
 * the oldest parked are counted as dropped) until it is announced.
 * STATUS_OK or STATUS_NOMEM. */
enum status tokio_task_stats(struct tokio_state *s, uint64_t span,
                             const struct tokio_stats *st) MUST_CHECK;

/* ---- endpoints and the launch hook (tokio.c) ----------------------------- */

/* The gRPC target for an endpoint as an operator writes it: `host:port`
 * and `http://host:port` give `host:port`, `unix:/path` stays, and
 * `file://localhost/path` or `file:///path` give `unix:/path`.
 * STATUS_INVAL with a one-line reason in err (https, no port, a bad port,
 * control characters, too long). */
enum status tokio_endpoint(const char *ep, char *target, size_t size, char *err,
                           size_t errsz) MUST_CHECK;

/* ---- the stream (tokio_grpc.c, the only file that sees gRPC) ------------ */

struct tokio_stream;

/* How a stream ended or failed, for the operator. */
struct tokio_stream_error {
	enum status st;
	char detail[400];
};

/* Opens one channel to target (a gRPC target: "host:port", "unix:/path")
 * and starts WatchUpdates on it, with a receive limit of max_recv bytes and
 * connect_ns as the connect timeout.  Starts the gRPC library for this
 * stream.  Does not block on the network; STATUS_NOMEM or STATUS_IO with
 * e filled. */
enum status tokio_stream_open(const char *target, size_t max_recv,
                              uint64_t connect_ns, struct tokio_stream **out,
                              struct tokio_stream_error *e) MUST_CHECK;

/* Waits until deadline_ns (CLOCK_MONOTONIC) for the next message:
 * STATUS_OK with *p and *n set (borrowed until the next call or close);
 * STATUS_AGAIN at the deadline; otherwise the stream is over and e says
 * why: STATUS_EOF (the server ended it), STATUS_UNREACHABLE (nothing
 * listens, or not a console-subscriber), STATUS_TOO_LARGE (over
 * max_recv, sizes named), STATUS_TIMEOUT; every later call says the same. */
enum status tokio_stream_next(struct tokio_stream *s, uint64_t deadline_ns,
                              const uint8_t **p, size_t *n,
                              struct tokio_stream_error *e) MUST_CHECK;

/* Cancels the call, drains it, and frees everything (the gRPC library
 * too, once no stream uses it).  Returns within a few ms; NULL is a no-op. */
void tokio_stream_close(struct tokio_stream *s);

#endif
