/* Private to the asyncio adapter: the state its files share (the mirror of
 * the agent's tables, the window's boundaries, failures) and the functions
 * they call across (asyncio.c, asyncio_conn.c, asyncio_tables.c,
 * asyncio_window.c). */
#ifndef ASYNCTOP_ADAPTERS_ASYNCIO_INT_H
#define ASYNCTOP_ADAPTERS_ASYNCIO_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "adapters/adapter.h"
#include "adapters/asyncio.h"
#include "adapters/asyncio_endpoint.h"
#include "adapters/wire.h"
#include "model/base.h"
#include "model/status.h"

#define MS ((uint64_t)1000000u)

#define TASK_RECORD 128
#define AGG_RECORD  64
#define END_SIZE    64
#define HELLO_FIXED 64
#define MAX_STRING  4096
#define MAX_OWN     128               /* frames of one STACKS entry */
#define MAX_ENTRIES ((size_t)1 << 17) /* strings or stacks per connection */
#define MAX_TASKS   ((size_t)1 << 22)
#define MAX_SITES   ((size_t)1 << 20)
#define MAX_FRAMES  4096 /* frames handed over per sample (leaf side) */
#define MAX_SLICES  1024 /* replies of one READ answered in slices */
#define REPLY_CAP   4    /* one reply's longest wait, in reply timeouts */
#define STOP_READ_NS \
	(800 * MS) /* a read at or past the end, within the grace */
#define SNAPSHOT_NS (1000 * MS) /* the longest gap between two READs */

enum task_state {
	TASK_SCHEDULED = 1,
	TASK_RUNNING = 2,
	TASK_IDLE = 3,
	TASK_DONE = 4,
};

enum {
	END_FINAL = 1u << 0,
	END_FIRST = 1u << 1,
	END_MORE = 1u << 4,
	TASK_SPAWN_UNKNOWN = 1u << 0,
	TASK_NO_WAKER = 1u << 3,
};

/* A u64 -> index map (open addressing, key 0 is empty, backward-shift
 * deletion). */
struct idmap {
	uint64_t *keys;
	uint32_t *vals;
	size_t cap, n;
};

struct str {
	char *p; /* NULL: a free slot (a retired string's) */
	uint32_t len, id;
	bool framed;   /* a stack names it: never retired */
	bool retiring; /* retired: freed at the next window's start */
};

struct stk {
	uint32_t parent;  /* index + 1 into stacks; 0: none */
	uint32_t n, off;  /* own frames: string indices in frame_pool */
	uint32_t dropped; /* frames the agent left out above the own ones */
	uint64_t total;   /* frames of the whole chain, dropped ones too */
};

struct task {
	uint64_t id, created, ended, t_mark;
	uint64_t polls, wakes, busy, sched, idle; /* up to t_mark */
	uint64_t self_wakes, base_self_wakes;     /* cumulative; at the start */
	uint64_t max_step; /* the longest step received in this window */
	uint32_t stack, name, thread; /* index + 1; 0: none */
	uint32_t parked; /* parked-at stack, index + 1; 0: unknown */
	uint8_t state;
	bool unknown_site, has_base, no_waker;
	struct metrics base; /* figures at the window's start */
};

struct site {
	uint64_t key;
	uint32_t stack, thread;   /* index + 1; 0: none */
	uint64_t cur[7], base[7]; /* tasks, polls, wakes, busy, sched, idle,
	                             self_wakes */
};

struct aio {
	struct asyncio_endpoint ep;
	/* found without -e: the agent's command line, by which a restarted
	 * program (a new pid) is found again before each connect */
	bool discovered;
	char cmd[96];
	int fd;
	uint32_t seq, max_payload;
	long agent_pid;
	/* per-connection tables */
	struct str *strs;
	size_t nstrs, capstrs;
	uint32_t *free_strs; /* slots of retired strings, for reuse */
	size_t nfree, capfree, nretiring;
	struct stk *stks;
	size_t nstks, capstks;
	uint32_t *frame_pool;
	size_t nframes, capframes;
	struct task *tasks;
	size_t ntasks, captasks;
	struct site *sites;
	size_t nsites, capsites;
	struct idmap str_ids, stk_ids, task_ids, site_ids;
	/* boundaries */
	bool have_start;
	uint64_t t_start, t_last; /* agent CLOCK_MONOTONIC */
	int64_t real_start;
	uint32_t loop_threads;
	bool state_sent;
	enum source_state last_state;
	/* reusable output */
	struct strview *out, *pout; /* spawn and parked-at frames */
	size_t capout, cappout;
	char thread_frame[MAX_STRING + 16];
	char source[160];
	char err[600];
	struct wire w;
	struct collect *hold; /* the window a reply is read for, or NULL */
	unsigned char *rx;
	size_t caprx;
};

/* A failure with its operator text; the connection is dropped. */
struct failure {
	enum status st;
	char detail[512];
	const char *remedy;
	const char *reason; /* for a window kept partial */
};

/* What an END said. */
struct end {
	uint64_t boundary, records;
	int64_t real;
	uint32_t loop_threads, flags;
};

/* Operator remedies shared by the connection and the ops. */
extern const char aio_remedy_optin[];
extern const char aio_remedy_slow[];
extern const char aio_remedy_gone[]; /* a connected agent went away */

/* ---- the id map (asyncio_tables.c) ---- */

/* Frees the map's arrays and empties it. */
void aio_idmap_fini(struct idmap *m);
/* The index stored under key into *val, or false (nothing written). */
bool aio_idmap_get(const struct idmap *m, uint64_t key, uint32_t *val);
/* Sets key (nonzero) to val, growing the map; STATUS_NOMEM leaves it
 * unchanged. */
enum status aio_idmap_put(struct idmap *m, uint64_t key, uint32_t val);
/* Removes key if present. */
void aio_idmap_del(struct idmap *m, uint64_t key);

/* ---- the connection and its frames (asyncio_conn.c) ---- */

/* Closes the connection and forgets everything tied to it (tables,
 * baselines); the arrays' storage is kept for reuse. */
void aio_reset(struct aio *p);
/* aio_reset, and frees the arrays' storage too: p holds nothing after. */
void aio_fini(struct aio *p);
/* Fills f (detail formatted from fmt, remedy and reason borrowed: static
 * texts) and returns st. */
enum status aio_failf(struct failure *f, enum status st, const char *remedy,
                      const char *reason, const char *fmt, ...) PRINTF(5, 6);
/* Fills f with w's error about a frame of type name; STATUS_MALFORMED. */
enum status aio_malformed(struct failure *f, const struct wire *w,
                          const char *frame);
/* The protocol name of a frame type (a static string; "unknown"). */
const char *aio_frame_name(uint16_t type);
/* Sends one frame (body borrowed) with the next header; blocks until the
 * deadline (our clock).  On failure fills f: STATUS_NOMEM, STATUS_TIMEOUT,
 * STATUS_UNREACHABLE. */
enum status aio_send_frame(struct aio *p, uint16_t type, const void *body,
                           size_t len, uint64_t deadline, struct failure *f);
/* Reads one frame into p->rx and points p->w at its payload; blocks until
 * the deadline (timeout_ns is for the text).  On failure fills f. */
MUST_CHECK enum status aio_read_frame(struct aio *p, uint64_t deadline,
                                      uint64_t timeout_ns, uint16_t *type,
                                      uint32_t *seq, struct failure *f);
/* Words the ERROR frame in p->w into f; returns its status. */
MUST_CHECK enum status aio_agent_error(struct aio *p, struct failure *f);
/* Reads frames into the tables until the END of request want (or a FINAL
 * push, seq 0; want 0: only such a push is expected), into *e.  The
 * deadline counts from the last frame received: each frame moves it to
 * timeout_ns later (holding p->hold that long, when set), up to REPLY_CAP
 * timeouts after the first deadline, so an agent that keeps sending is
 * waited for, and one that trickles is still bounded.  On failure fills f. */
MUST_CHECK enum status aio_read_reply(struct aio *p, uint32_t want,
                                      uint64_t deadline, uint64_t timeout_ns,
                                      struct end *e, struct failure *f);

/* ---- decoding replies into the tables (asyncio_tables.c) ---- */

/* Each takes the frame in p->w into the tables (strings copied); on
 * failure fills f (STATUS_MALFORMED, STATUS_NOMEM).  take_tasks counts the
 * records it took in *records. */
MUST_CHECK enum status aio_take_strings(struct aio *p, struct failure *f);
MUST_CHECK enum status aio_take_stacks(struct aio *p, struct failure *f);
MUST_CHECK enum status aio_take_tasks(struct aio *p, uint64_t *records,
                                      struct failure *f);
MUST_CHECK enum status aio_take_aggs(struct aio *p, struct failure *f);
/* Takes a RETIRE frame: each id must be a defined string that no stack,
 * no unfinished task's name and no thread names; it is marked retiring (a
 * record naming it is then malformed) and freed by aio_forget_retired, at
 * the window's roll, once the finished tasks that named it are gone. */
MUST_CHECK enum status aio_take_retire(struct aio *p, struct failure *f);
/* Frees the strings marked retiring. */
void aio_forget_retired(struct aio *p);
/* Reads the END in p->w into *e; STATUS_MALFORMED (f filled). */
MUST_CHECK enum status aio_take_end(struct aio *p, struct end *e,
                                    struct failure *f);

/* ---- the window arithmetic (asyncio_window.c) ---- */

/* Task t's cumulative figures at boundary T (§6) into *m. */
void aio_task_at(const struct task *t, uint64_t T, struct metrics *m);
/* Task i's sample for the window ending at T into *s: spawn stack,
 * parked-at stack (each with [thread NAME] first when several loops ran),
 * the five figures and the extras the agent tells (frames borrowed from p
 * until the next call).  STATUS_NOMEM. */
MUST_CHECK enum status aio_task_sample(struct aio *p, size_t i, uint64_t T,
                                       struct sample *s);
/* Replaces c's samples with every task's and site's figures from the
 * window's start to T (frames borrowed from p until the next call). */
void aio_emit(struct aio *p, struct collect *c, uint64_t T);
/* Makes T the start of the next window: finished tasks are forgotten,
 * the others keep their figures at T as their baseline. */
void aio_roll(struct aio *p, uint64_t T);

#endif
