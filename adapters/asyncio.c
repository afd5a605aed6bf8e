/* The asyncio adapter: one persistent connection to the agent, a mirror of
 * its per-connection tables, and per-task differences between two shared
 * boundaries (docs/asyncio-protocol.md §6). */
/* Readings of the protocol where it leaves room (docs/adapters.md, asyncio):
 * - §6's baseline rule (a record whose t_mark precedes the window's start is
 *   exact there) is applied to tasks first received too, not only known
 *   ones: such a task existed before the window, so counting it from zero
 *   would charge time outside the window;
 * - frames with seq 0 (a final push) are accepted in the middle of a READ's
 *   reply, and END.task_records is checked against the records of its own
 *   seq;
 * - HELLO_OK.pid is not compared with the pid asked for (PID namespaces
 *   differ); SO_PEERCRED and proc_start_ticks decide;
 * - HELLO asks for versions 1..1. */
#include "adapters/asyncio.h"

#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "adapters/asyncio_endpoint.h"
#include "adapters/wire.h"
#include "model/alloc.h"
#include "model/hash.h"
#include "model/reserved.h"

#define MS ((uint64_t)1000000u)

#define TASK_RECORD 112
#define AGG_RECORD  64
#define END_SIZE    64
#define HELLO_FIXED 64
#define MAX_STRING  4096
#define MAX_OWN     128               /* frames of one STACKS entry */
#define MAX_ENTRIES ((size_t)1 << 17) /* strings or stacks per connection */
#define MAX_TASKS   ((size_t)1 << 22)
#define MAX_SITES   ((size_t)1 << 20)
#define MAX_FRAMES  4096 /* frames handed over per sample (leaf side) */
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
	TASK_SPAWN_UNKNOWN = 1u << 0,
};

/* A u64 -> index map (open addressing, key 0 is empty, backward-shift
 * deletion). */
struct idmap {
	uint64_t *keys;
	uint32_t *vals;
	size_t cap, n;
};

struct str {
	char *p;
	uint32_t len;
};

struct stk {
	uint32_t parent; /* index + 1 into stacks; 0: none */
	uint32_t n, off; /* own frames: string indices in frame_pool */
};

struct task {
	uint64_t id, created, ended, t_mark;
	uint64_t polls, wakes, busy, sched, idle; /* up to t_mark */
	uint32_t stack, name, thread;             /* index + 1; 0: none */
	uint8_t state;
	bool unknown_site, has_base;
	struct metrics base; /* figures at the window's start */
};

struct site {
	uint64_t key;
	uint32_t stack, thread;   /* index + 1; 0: none */
	uint64_t cur[6], base[6]; /* tasks, polls, wakes, busy, sched, idle */
};

struct aio {
	struct asyncio_endpoint ep;
	int fd;
	uint32_t seq, max_payload;
	long agent_pid;
	/* per-connection tables */
	struct str *strs;
	size_t nstrs, capstrs;
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
	struct strview *out;
	size_t capout;
	char thread_frame[MAX_STRING + 16];
	char source[160];
	char err[600];
	struct wire w;
	unsigned char *rx;
	size_t caprx;
};

/* ---- the id map ---------------------------------------------------------- */

static void idmap_fini(struct idmap *m)
{
	mem_free(m->keys);
	mem_free(m->vals);
	memset(m, 0, sizeof(*m));
}

static size_t idmap_slot(const struct idmap *m, uint64_t key)
{
	return (size_t)hash_mix64(key) & (m->cap - 1);
}

/* The index stored under key, or false. */
static bool idmap_get(const struct idmap *m, uint64_t key, uint32_t *val)
{
	size_t i;

	if (!m->cap)
		return false;
	for (i = idmap_slot(m, key); m->keys[i]; i = (i + 1) & (m->cap - 1)) {
		if (m->keys[i] == key) {
			*val = m->vals[i];
			return true;
		}
	}
	return false;
}

static void idmap_put_raw(struct idmap *m, uint64_t key, uint32_t val)
{
	size_t i;

	for (i = idmap_slot(m, key); m->keys[i] && m->keys[i] != key;
	     i = (i + 1) & (m->cap - 1))
		;
	if (!m->keys[i])
		m->n++;
	m->keys[i] = key;
	m->vals[i] = val;
}

/* Sets key (nonzero) to val. */
static enum status idmap_put(struct idmap *m, uint64_t key, uint32_t val)
{
	if ((m->n + 1) * 4 > m->cap * 3) {
		struct idmap g;
		size_t i;

		memset(&g, 0, sizeof(g));
		g.cap = m->cap ? m->cap * 2 : 64;
		g.keys = mem_calloc(g.cap, sizeof(*g.keys));
		g.vals = mem_calloc(g.cap, sizeof(*g.vals));
		if (!g.keys || !g.vals) {
			idmap_fini(&g);
			return STATUS_NOMEM;
		}
		for (i = 0; i < m->cap; i++)
			if (m->keys[i])
				idmap_put_raw(&g, m->keys[i], m->vals[i]);
		idmap_fini(m);
		*m = g;
	}
	idmap_put_raw(m, key, val);
	return STATUS_OK;
}

static void idmap_del(struct idmap *m, uint64_t key)
{
	size_t i, j, mask = m->cap - 1;

	if (!m->cap)
		return;
	for (i = idmap_slot(m, key); m->keys[i] && m->keys[i] != key;
	     i = (i + 1) & mask)
		;
	if (!m->keys[i])
		return;
	m->keys[i] = 0;
	m->n--;
	/* backward shift: pull later entries of the run into the hole */
	for (j = (i + 1) & mask; m->keys[j]; j = (j + 1) & mask) {
		size_t home = idmap_slot(m, m->keys[j]);

		if (((j - home) & mask) >= ((j - i) & mask)) {
			m->keys[i] = m->keys[j];
			m->vals[i] = m->vals[j];
			m->keys[j] = 0;
			i = j;
		}
	}
}

/* ---- connection state ---------------------------------------------------- */

/* Forgets everything tied to the connection (tables, baselines). */
static void reset(struct aio *p)
{
	size_t i;

	if (p->fd >= 0)
		close(p->fd);
	p->fd = -1;
	for (i = 0; i < p->nstrs; i++)
		mem_free(p->strs[i].p);
	p->nstrs = p->nstks = p->nframes = p->ntasks = p->nsites = 0;
	idmap_fini(&p->str_ids);
	idmap_fini(&p->stk_ids);
	idmap_fini(&p->task_ids);
	idmap_fini(&p->site_ids);
	p->have_start = false;
	p->t_start = p->t_last = 0;
	p->loop_threads = 0;
}

static const char remedy_optin[] =
    "the application must opt in to the agent: run it as `python3 -m "
    "asynctop_agent app.py` or call `import asynctop_agent; "
    "asynctop_agent.start()` (adapters/asyncio on PYTHONPATH); the "
    "process may also have exited";

static const char remedy_slow[] =
    "the event loop's process may be stopped, or a long step or a C "
    "extension may hold the GIL; asynctop keeps retrying";

/* ---- socket I/O ---------------------------------------------------------- */

/* Waits for fd to be ready for ev until the deadline (our clock). */
static enum status wait_ready(int fd, short ev, uint64_t deadline)
{
	for (;;) {
		uint64_t now = collect_now();
		struct pollfd pf = { fd, ev, 0 };
		int r;

		if (now >= deadline)
			return STATUS_TIMEOUT;
		r = poll(&pf, 1,
		         (int)u64_min((deadline - now + MS - 1) / MS, 1000));
		if (r < 0 && errno != EINTR)
			return STATUS_IO;
		if (r > 0)
			return STATUS_OK;
	}
}

/* Reads exactly n bytes; *got says how many arrived (for EOF texts).
 * STATUS_EOF on a close, STATUS_TIMEOUT, STATUS_IO. */
static enum status read_full(int fd, void *dst, size_t n, uint64_t deadline,
                             size_t *got)
{
	unsigned char *d = dst;

	*got = 0;
	while (*got < n) {
		ssize_t r = read(fd, d + *got, n - *got);
		enum status st;

		if (r > 0) {
			*got += (size_t)r;
			continue;
		}
		if (r == 0)
			return STATUS_EOF;
		if (errno == EINTR)
			continue;
		if (errno == ECONNRESET)
			return STATUS_EOF;
		if (errno != EAGAIN && errno != EWOULDBLOCK)
			return STATUS_IO;
		st = wait_ready(fd, POLLIN, deadline);
		if (st != STATUS_OK)
			return st;
	}
	return STATUS_OK;
}

static enum status write_full(int fd, const void *src, size_t n,
                              uint64_t deadline)
{
	const unsigned char *s = src;

	while (n) {
		ssize_t r = send(fd, s, n, MSG_NOSIGNAL); /* no SIGPIPE */
		enum status st;

		if (r > 0) {
			s += r;
			n -= (size_t)r;
			continue;
		}
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0 && (errno == EPIPE || errno == ECONNRESET))
			return STATUS_EOF;
		if (r < 0 && errno != EAGAIN && errno != EWOULDBLOCK)
			return STATUS_IO;
		st = wait_ready(fd, POLLOUT, deadline);
		if (st != STATUS_OK)
			return st;
	}
	return STATUS_OK;
}

/* ---- failures ------------------------------------------------------------ */

/* A failure with its operator text; the connection is dropped. */
struct failure {
	enum status st;
	char detail[512];
	const char *remedy;
	const char *reason; /* for a window kept partial */
};

static enum status failf(struct failure *f, enum status st, const char *remedy,
                         const char *reason, const char *fmt, ...) PRINTF(5, 6);
static enum status failf(struct failure *f, enum status st, const char *remedy,
                         const char *reason, const char *fmt, ...)
{
	va_list ap;

	f->st = st;
	f->remedy = remedy;
	f->reason = reason;
	va_start(ap, fmt);
	vsnprintf(f->detail, sizeof(f->detail), fmt, ap);
	va_end(ap);
	return st;
}

static enum status malformed(struct failure *f, const struct wire *w,
                             const char *frame)
{
	return failf(f, STATUS_MALFORMED, NULL, NULL, "%s frame: %s", frame,
	             w->err);
}

static const char *frame_name(uint16_t type)
{
	switch (type) {
	case ASYNCIO_HELLO_OK:
		return "HELLO_OK";
	case ASYNCIO_STRINGS:
		return "STRINGS";
	case ASYNCIO_STACKS:
		return "STACKS";
	case ASYNCIO_TASKS:
		return "TASKS";
	case ASYNCIO_AGGS:
		return "AGGS";
	case ASYNCIO_END:
		return "END";
	case ASYNCIO_ERROR:
		return "ERROR";
	default:
		return "unknown";
	}
}

/* ---- frames -------------------------------------------------------------- */

static enum status send_frame(struct aio *p, uint16_t type, const void *body,
                              size_t len, uint64_t deadline, struct failure *f)
{
	struct buf b;
	enum status st;

	buf_init(&b);
	(void)buf_add(&b, "ATOP", 4);
	(void)wire_put_u16(&b, ASYNCIO_PROTO_VERSION);
	(void)wire_put_u16(&b, type);
	(void)wire_put_u32(&b, (uint32_t)len);
	(void)wire_put_u32(&b, p->seq);
	if (len)
		(void)buf_add(&b, body, len);
	st = buf_status(&b);
	if (st == STATUS_OK)
		st = write_full(p->fd, b.data, b.len, deadline);
	buf_fini(&b);
	if (st == STATUS_NOMEM)
		return failf(f, st, NULL, NULL, "%s", status_str(st));
	if (st == STATUS_TIMEOUT)
		return failf(f, st, remedy_slow, "the agent stopped answering",
		             "the agent did not take a request within %gs",
		             (double)(deadline - collect_now() + 0) / 1e9);
	if (st != STATUS_OK)
		return failf(f, STATUS_UNREACHABLE, remedy_optin,
		             "agent connection lost",
		             "the agent closed the connection (%s)",
		             st == STATUS_EOF ? "broken pipe"
		                              : strerror(errno));
	return STATUS_OK;
}

/* Reads one frame into p->rx and points p->w at its payload. */
static enum status read_frame(struct aio *p, uint64_t deadline,
                              uint64_t timeout_ns, uint16_t *type,
                              uint32_t *seq, struct failure *f)
{
	unsigned char h[ASYNCIO_HEADER_SIZE];
	size_t got = 0;
	uint32_t len;
	uint16_t version;
	enum status st = read_full(p->fd, h, sizeof(h), deadline, &got);

	if (st == STATUS_EOF && got == 0)
		return failf(f, STATUS_UNREACHABLE, remedy_optin,
		             "agent connection lost",
		             "the agent closed the connection without a final "
		             "snapshot (the process may have been killed)");
	if (st == STATUS_EOF)
		return failf(f, STATUS_MALFORMED, NULL, NULL,
		             "the agent closed the connection in the middle of "
		             "a frame header (%zu of %d bytes)",
		             got, ASYNCIO_HEADER_SIZE);
	if (st == STATUS_TIMEOUT)
		return failf(f, st, remedy_slow, "the agent stopped answering",
		             "the agent did not answer within %gs%s",
		             (double)timeout_ns / 1e9,
		             got ? " (it stopped in the middle of a frame)"
		                 : "");
	if (st != STATUS_OK)
		return failf(f, STATUS_IO, NULL, "agent connection lost",
		             "reading from the agent: %s", strerror(errno));
	if (memcmp(h, "ATOP", 4))
		return failf(f, STATUS_MALFORMED, NULL, NULL,
		             "the reply does not start with the magic \"ATOP\" "
		             "(got %02x %02x %02x %02x): not an asynctop agent",
		             h[0], h[1], h[2], h[3]);
	version = wire_le16(h + 4);
	*type = wire_le16(h + 6);
	len = wire_le32(h + 8);
	*seq = wire_le32(h + 12);
	if (version != ASYNCIO_PROTO_VERSION)
		return failf(
		    f, STATUS_MALFORMED,
		    "use the asynctop_agent shipped with this asynctop", NULL,
		    "agent speaks protocol version %u, this reader "
		    "speaks %d",
		    version, ASYNCIO_PROTO_VERSION);
	if (*type < ASYNCIO_HELLO_OK ||
	    (*type > ASYNCIO_END && *type != ASYNCIO_ERROR))
		return failf(f, STATUS_MALFORMED, NULL, NULL,
		             "unknown frame type 0x%04x", *type);
	if (len > p->max_payload)
		return failf(f, STATUS_MALFORMED, NULL, NULL,
		             "a %s frame of %u bytes exceeds the %u-byte limit",
		             frame_name(*type), len, p->max_payload);
	if (mem_grow(&p->rx, &p->caprx, (size_t)len + 1, 1) != STATUS_OK)
		return failf(f, STATUS_NOMEM, NULL, NULL, "%s",
		             status_str(STATUS_NOMEM));
	st = read_full(p->fd, p->rx, len, deadline, &got);
	if (st == STATUS_EOF)
		return failf(f, STATUS_MALFORMED, NULL, NULL,
		             "the agent closed the connection in the middle of "
		             "a %s frame (%zu of %u bytes)",
		             frame_name(*type), got, len);
	if (st == STATUS_TIMEOUT)
		return failf(f, st, remedy_slow, "the agent stopped answering",
		             "the agent did not answer within %gs (it stopped "
		             "in the middle of a %s frame)",
		             (double)timeout_ns / 1e9, frame_name(*type));
	if (st != STATUS_OK)
		return failf(f, STATUS_IO, NULL, "agent connection lost",
		             "reading from the agent: %s", strerror(errno));
	wire_init(&p->w, p->rx, len);
	return STATUS_OK;
}

/* An ERROR frame, worded. */
static enum status agent_error(struct aio *p, struct failure *f)
{
	struct wire *w = &p->w;
	const unsigned char *text;
	uint32_t code;
	size_t n;

	(void)wire_u32(w, "the error code", &code);
	n = wire_left(w) > 256 ? 256 : wire_left(w);
	(void)wire_bytes(w, "the error text", n, &text);
	if (wire_status(w) != STATUS_OK)
		return malformed(f, w, "ERROR");
	switch (code) {
	case 1:
		return failf(f, STATUS_UNREACHABLE,
		             "run asynctop as the application's user (or root)",
		             NULL, "the agent refused this user: %.*s", (int)n,
		             (const char *)text);
	case 2:
		return failf(f, STATUS_UNREACHABLE,
		             "close another asynctop attached to this process",
		             NULL, "the agent serves too many readers: %.*s",
		             (int)n, (const char *)text);
	case 4:
		return failf(
		    f, STATUS_MALFORMED,
		    "use the asynctop_agent shipped with this asynctop", NULL,
		    "the agent does not speak version %d: %.*s",
		    ASYNCIO_PROTO_VERSION, (int)n, (const char *)text);
	case 5:
		return failf(f, STATUS_IO,
		             "the agent logged the internal error on the "
		             "application's stderr",
		             "agent disabled",
		             "the agent disabled itself after an internal "
		             "error: %.*s",
		             (int)n, (const char *)text);
	default:
		return failf(f, STATUS_IO, NULL, NULL,
		             "the agent answered with error %u: %.*s", code,
		             (int)n, (const char *)text);
	}
}

/* ---- the mirror: strings, stacks, tasks, sites ----------------------------
 */

/* The index + 1 of string id (0 for id 0); false when undefined. */
static bool str_ref(const struct aio *p, uint32_t id, uint32_t *ref)
{
	uint32_t v;

	*ref = 0;
	if (!id)
		return true;
	if (!idmap_get(&p->str_ids, id, &v))
		return false;
	*ref = v + 1;
	return true;
}

static bool stk_ref(const struct aio *p, uint32_t id, uint32_t *ref)
{
	uint32_t v;

	*ref = 0;
	if (!id)
		return true;
	if (!idmap_get(&p->stk_ids, id, &v))
		return false;
	*ref = v + 1;
	return true;
}

static enum status nomem(struct failure *f)
{
	return failf(f, STATUS_NOMEM, NULL, NULL, "%s",
	             status_str(STATUS_NOMEM));
}

static enum status take_strings(struct aio *p, struct failure *f)
{
	struct wire *w = &p->w;
	uint32_t count, i;

	(void)wire_u32(w, "the string count", &count);
	(void)wire_count(w, "the string count", count, 8);
	if (wire_status(w) == STATUS_OK && p->nstrs + count > MAX_ENTRIES)
		(void)wire_fail(w, 0, "more than %zu strings", MAX_ENTRIES);
	for (i = 0; i < count && wire_status(w) == STATUS_OK; i++) {
		size_t at = w->off;
		const unsigned char *bytes;
		uint32_t id, len, dummy;
		char *copy;

		(void)wire_u32(w, "a string id", &id);
		(void)wire_u32(w, "a string length", &len);
		if (wire_status(w) != STATUS_OK)
			break;
		if (id == 0 || idmap_get(&p->str_ids, id, &dummy)) {
			(void)wire_fail(w, at, "string id %u %s", id,
			                id ? "defined twice" : "is reserved");
			break;
		}
		if (len > MAX_STRING) {
			(void)wire_fail(w, at + 4,
			                "string %u is %u bytes long, over %d",
			                id, len, MAX_STRING);
			break;
		}
		if (wire_bytes(w, "a string", len, &bytes) != STATUS_OK)
			break;
		if (mem_grow(&p->strs, &p->capstrs, p->nstrs + 1,
		             sizeof(*p->strs)) != STATUS_OK)
			return nomem(f);
		copy = mem_strndup((const char *)bytes, len);
		if (!copy)
			return nomem(f);
		if (idmap_put(&p->str_ids, id, (uint32_t)p->nstrs) !=
		    STATUS_OK) {
			mem_free(copy);
			return nomem(f);
		}
		p->strs[p->nstrs].p = copy;
		p->strs[p->nstrs].len = len;
		p->nstrs++;
	}
	(void)wire_end(w, "the last string");
	return wire_status(w) == STATUS_OK ? STATUS_OK
	                                   : malformed(f, w, "STRINGS");
}

static enum status take_stacks(struct aio *p, struct failure *f)
{
	struct wire *w = &p->w;
	uint32_t count, i;

	(void)wire_u32(w, "the stack count", &count);
	(void)wire_count(w, "the stack count", count, 16);
	if (wire_status(w) == STATUS_OK && p->nstks + count > MAX_ENTRIES)
		(void)wire_fail(w, 0, "more than %zu stacks", MAX_ENTRIES);
	for (i = 0; i < count && wire_status(w) == STATUS_OK; i++) {
		size_t at = w->off;
		uint32_t id, parent, n, j, pref = 0, dummy;

		(void)wire_u32(w, "a stack id", &id);
		(void)wire_u32(w, "a stack's parent", &parent);
		(void)wire_u32(w, "a stack's frame count", &n);
		if (wire_status(w) != STATUS_OK)
			break;
		if (id == 0 || idmap_get(&p->stk_ids, id, &dummy)) {
			(void)wire_fail(w, at, "stack id %u %s", id,
			                id ? "defined twice" : "is reserved");
			break;
		}
		if (parent && parent >= id) {
			(void)wire_fail(
			    w, at + 4,
			    "stack %u names parent %u, which is not "
			    "below it (a cycle)",
			    id, parent);
			break;
		}
		if (!stk_ref(p, parent, &pref)) {
			(void)wire_fail(
			    w, at + 4,
			    "stack %u names parent %u, which is not "
			    "defined",
			    id, parent);
			break;
		}
		if (n < 1 || n > MAX_OWN) {
			(void)wire_fail(
			    w, at + 8,
			    "stack %u has %u frames (1 to %d allowed)", id, n,
			    MAX_OWN);
			break;
		}
		if (wire_count(w, "a stack's frame count", n, 4) != STATUS_OK)
			break;
		if (mem_grow(&p->frame_pool, &p->capframes, p->nframes + n,
		             sizeof(*p->frame_pool)) != STATUS_OK ||
		    mem_grow(&p->stks, &p->capstks, p->nstks + 1,
		             sizeof(*p->stks)) != STATUS_OK)
			return nomem(f);
		for (j = 0; j < n; j++) {
			uint32_t fid, ref;

			(void)wire_u32(w, "a frame id", &fid);
			if (!str_ref(p, fid, &ref) || !ref) {
				(void)wire_fail(
				    w, w->off - 4,
				    "stack %u names string %u, which "
				    "is not defined",
				    id, fid);
				break;
			}
			p->frame_pool[p->nframes + j] = ref - 1;
		}
		if (wire_status(w) != STATUS_OK)
			break;
		if (idmap_put(&p->stk_ids, id, (uint32_t)p->nstks) != STATUS_OK)
			return nomem(f);
		p->stks[p->nstks].parent = pref;
		p->stks[p->nstks].n = n;
		p->stks[p->nstks].off = (uint32_t)p->nframes;
		p->nframes += n;
		p->nstks++;
	}
	(void)wire_end(w, "the last stack");
	return wire_status(w) == STATUS_OK ? STATUS_OK
	                                   : malformed(f, w, "STACKS");
}

static void task_at(const struct task *t, uint64_t T, struct metrics *m);

/* The index of the task table entry for id, made (with no baseline, and
 * only its id set) if new. */
static enum status task_slot(struct aio *p, uint64_t id, uint32_t *out,
                             struct failure *f)
{
	if (idmap_get(&p->task_ids, id, out))
		return STATUS_OK;
	if (p->ntasks >= MAX_TASKS)
		return failf(f, STATUS_MALFORMED, NULL, NULL,
		             "TASKS frame: more than %zu tasks", MAX_TASKS);
	if (mem_grow(&p->tasks, &p->captasks, p->ntasks + 1,
	             sizeof(*p->tasks)) != STATUS_OK ||
	    idmap_put(&p->task_ids, id, (uint32_t)p->ntasks) != STATUS_OK)
		return nomem(f);
	*out = (uint32_t)p->ntasks++;
	memset(&p->tasks[*out], 0, sizeof(p->tasks[*out]));
	return STATUS_OK;
}

static enum status take_tasks(struct aio *p, uint64_t *records,
                              struct failure *f)
{
	struct wire *w = &p->w;
	uint32_t count, size, i;

	(void)wire_u32(w, "the task count", &count);
	(void)wire_u32(w, "the task record size", &size);
	if (wire_status(w) == STATUS_OK && size != TASK_RECORD)
		(void)wire_fail(w, 4, "task records of %u bytes, not %d", size,
		                TASK_RECORD);
	(void)wire_count(w, "the task count", count, TASK_RECORD);
	for (i = 0; i < count && wire_status(w) == STATUS_OK; i++) {
		size_t at = w->off;
		const unsigned char *r;
		struct task n;
		uint32_t ti = 0;
		uint64_t self_wakes;
		uint32_t stack_id, name_id, thread_id;
		uint16_t flags;
		enum status st;

		if (wire_bytes(w, "a task record", TASK_RECORD, &r) !=
		    STATUS_OK)
			break;
		memset(&n, 0, sizeof(n));
		n.id = wire_le64(r);
		stack_id = wire_le32(r + 16);
		name_id = wire_le32(r + 20);
		thread_id = wire_le32(r + 24);
		n.state = r[32];
		flags = wire_le16(r + 34);
		n.created = wire_le64(r + 40);
		n.ended = wire_le64(r + 48);
		n.t_mark = wire_le64(r + 56);
		n.polls = wire_le64(r + 64);
		n.wakes = wire_le64(r + 72);
		self_wakes = wire_le64(r + 80);
		n.busy = wire_le64(r + 88);
		n.sched = wire_le64(r + 96);
		n.idle = wire_le64(r + 104);
		n.unknown_site = (flags & TASK_SPAWN_UNKNOWN) != 0;
		if (n.id == 0)
			(void)wire_fail(w, at, "task id 0");
		else if (n.state < TASK_SCHEDULED || n.state > TASK_DONE)
			(void)wire_fail(w, at + 32, "task %llu has state %u",
			                (unsigned long long)n.id, n.state);
		else if ((n.state == TASK_DONE) != (n.ended != 0))
			(void)wire_fail(w, at + 48,
			                "task %llu is %s but its end time is "
			                "%llu",
			                (unsigned long long)n.id,
			                n.state == TASK_DONE ? "done"
			                                     : "not done",
			                (unsigned long long)n.ended);
		else if (n.t_mark < n.created)
			(void)wire_fail(w, at + 56,
			                "task %llu changed state before it was "
			                "created",
			                (unsigned long long)n.id);
		else if (self_wakes > n.wakes)
			(void)wire_fail(
			    w, at + 80,
			    "task %llu has more self-wakes than wakes",
			    (unsigned long long)n.id);
		else if (!stk_ref(p, stack_id, &n.stack))
			(void)wire_fail(
			    w, at + 16,
			    "task %llu names stack %u, which is not "
			    "defined",
			    (unsigned long long)n.id, stack_id);
		else if (!str_ref(p, name_id, &n.name))
			(void)wire_fail(
			    w, at + 20,
			    "task %llu names string %u, which is not "
			    "defined",
			    (unsigned long long)n.id, name_id);
		else if (!str_ref(p, thread_id, &n.thread))
			(void)wire_fail(
			    w, at + 24,
			    "task %llu names thread string %u, which "
			    "is not defined",
			    (unsigned long long)n.id, thread_id);
		if (wire_status(w) != STATUS_OK)
			break;
		if (n.unknown_site)
			n.stack = 0;
		st = task_slot(p, n.id, &ti, f);
		if (st != STATUS_OK)
			return st;
		n.has_base = p->tasks[ti].has_base;
		n.base = p->tasks[ti].base;
		if (p->have_start && n.t_mark <= p->t_start) {
			/* protocol §6: a record whose state began before the
			 * window's start is exact there: it is the baseline */
			task_at(&n, p->t_start, &n.base);
			n.has_base = true;
		}
		p->tasks[ti] = n;
		(*records)++;
	}
	(void)wire_end(w, "the last task record");
	return wire_status(w) == STATUS_OK ? STATUS_OK
	                                   : malformed(f, w, "TASKS");
}

static enum status take_aggs(struct aio *p, struct failure *f)
{
	struct wire *w = &p->w;
	uint32_t count, size, i;

	(void)wire_u32(w, "the aggregate count", &count);
	(void)wire_u32(w, "the aggregate record size", &size);
	if (wire_status(w) == STATUS_OK && size != AGG_RECORD)
		(void)wire_fail(w, 4, "aggregate records of %u bytes, not %d",
		                size, AGG_RECORD);
	(void)wire_count(w, "the aggregate count", count, AGG_RECORD);
	for (i = 0; i < count && wire_status(w) == STATUS_OK; i++) {
		size_t at = w->off;
		const unsigned char *r;
		uint32_t sref, tref, idx;
		uint64_t key;
		struct site *s;

		if (wire_bytes(w, "an aggregate record", AGG_RECORD, &r) !=
		    STATUS_OK)
			break;
		if (!stk_ref(p, wire_le32(r), &sref)) {
			(void)wire_fail(w, at,
			                "an aggregate names stack %u, "
			                "which is not defined",
			                wire_le32(r));
			break;
		}
		if (!str_ref(p, wire_le32(r + 4), &tref)) {
			(void)wire_fail(w, at + 4,
			                "an aggregate names thread string %u, "
			                "which is not defined",
			                wire_le32(r + 4));
			break;
		}
		key = ((uint64_t)sref << 32 | tref) + 1;
		if (!idmap_get(&p->site_ids, key, &idx)) {
			if (p->nsites >= MAX_SITES)
				return failf(f, STATUS_MALFORMED, NULL, NULL,
				             "AGGS frame: more than %zu sites",
				             MAX_SITES);
			if (mem_grow(&p->sites, &p->capsites, p->nsites + 1,
			             sizeof(*p->sites)) != STATUS_OK ||
			    idmap_put(&p->site_ids, key, (uint32_t)p->nsites) !=
			        STATUS_OK)
				return nomem(f);
			idx = (uint32_t)p->nsites++;
			memset(&p->sites[idx], 0, sizeof(p->sites[idx]));
			p->sites[idx].key = key;
			p->sites[idx].stack = sref;
			p->sites[idx].thread = tref;
		}
		s = &p->sites[idx];
		s->cur[0] = wire_le64(r + 8);  /* tasks */
		s->cur[1] = wire_le64(r + 16); /* polls */
		s->cur[2] = wire_le64(r + 24); /* wakes; +32 self_wakes */
		s->cur[3] = wire_le64(r + 40); /* busy */
		s->cur[4] = wire_le64(r + 48); /* sched */
		s->cur[5] = wire_le64(r + 56); /* idle */
	}
	(void)wire_end(w, "the last aggregate record");
	return wire_status(w) == STATUS_OK ? STATUS_OK
	                                   : malformed(f, w, "AGGS");
}

/* What an END said. */
struct end {
	uint64_t boundary, records;
	int64_t real;
	uint32_t loop_threads, flags;
};

static enum status take_end(struct aio *p, struct end *e, struct failure *f)
{
	struct wire *w = &p->w;
	uint64_t gen, fin, live, agg, real;

	if (wire_left(w) != END_SIZE) {
		(void)wire_fail(w, 0, "an END of %zu bytes, not %d",
		                wire_left(w), END_SIZE);
		return malformed(f, w, "END");
	}
	(void)wire_u64(w, "boundary_ns", &e->boundary);
	(void)wire_u64(w, "boundary_real_ns", &real);
	(void)wire_u64(w, "generation", &gen);
	(void)wire_u64(w, "finished_total", &fin);
	(void)wire_u64(w, "live_tasks", &live);
	(void)wire_u32(w, "loop_threads", &e->loop_threads);
	(void)wire_u32(w, "flags", &e->flags);
	(void)wire_u64(w, "aggregated_total", &agg);
	(void)wire_u64(w, "task_records", &e->records);
	e->real = (int64_t)(real > INT64_MAX ? INT64_MAX : real);
	if (wire_status(w) == STATUS_OK && e->boundary < p->t_last)
		(void)wire_fail(
		    w, 0,
		    "the boundary %llu ns precedes the previous one "
		    "(%llu ns)",
		    (unsigned long long)e->boundary,
		    (unsigned long long)p->t_last);
	return wire_status(w) == STATUS_OK ? STATUS_OK : malformed(f, w, "END");
}

/* Reads frames until the END of request seq (or a FINAL push, seq 0).
 * want 0: only a pushed final reply is expected. */
static enum status read_reply(struct aio *p, uint32_t want, uint64_t deadline,
                              uint64_t timeout_ns, struct end *e,
                              struct failure *f)
{
	uint64_t records[2] = { 0, 0 }; /* [0] pushed, [1] requested */

	for (;;) {
		uint16_t type;
		uint32_t seq;
		enum status st =
		    read_frame(p, deadline, timeout_ns, &type, &seq, f);
		uint64_t *rec;

		if (st != STATUS_OK)
			return st;
		if (seq != 0 && seq != want)
			return failf(f, STATUS_MALFORMED, NULL, NULL,
			             "the %s frame answers request %u while "
			             "%s%.0u was pending",
			             frame_name(type), seq,
			             want ? "request " : "none", want);
		rec = &records[seq != 0];
		switch (type) {
		case ASYNCIO_STRINGS:
			st = take_strings(p, f);
			break;
		case ASYNCIO_STACKS:
			st = take_stacks(p, f);
			break;
		case ASYNCIO_TASKS:
			st = take_tasks(p, rec, f);
			break;
		case ASYNCIO_AGGS:
			st = take_aggs(p, f);
			break;
		case ASYNCIO_ERROR:
			return agent_error(p, f);
		case ASYNCIO_END:
			st = take_end(p, e, f);
			if (st != STATUS_OK)
				return st;
			if (!seq && !(e->flags & END_FINAL))
				return failf(f, STATUS_MALFORMED, NULL, NULL,
				             "END frame: an unrequested reply "
				             "without the FINAL flag");
			if (e->records != *rec)
				return failf(f, STATUS_MALFORMED, NULL, NULL,
				             "END frame: it counts %llu task "
				             "records, the reply carried %llu",
				             (unsigned long long)e->records,
				             (unsigned long long)*rec);
			return STATUS_OK;
		default:
			return failf(f, STATUS_MALFORMED, NULL, NULL,
			             "an unexpected %s frame in a reply",
			             frame_name(type));
		}
		if (st != STATUS_OK)
			return st;
	}
}

/* ---- the window arithmetic ------------------------------------------------
 */

/* Task t's cumulative figures at boundary T (§6). */
static void task_at(const struct task *t, uint64_t T, struct metrics *m)
{
	uint64_t more =
	    t->state != TASK_DONE && T > t->t_mark ? T - t->t_mark : 0;

	memset(m, 0, sizeof(*m));
	m->v[METRIC_BUSY] = t->busy;
	m->v[METRIC_SCHED] = t->sched;
	m->v[METRIC_IDLE] = t->idle;
	m->v[METRIC_POLLS] = t->polls;
	m->v[METRIC_WAKES] = t->wakes;
	if (t->state == TASK_RUNNING)
		m->v[METRIC_BUSY] = u64_add_sat(t->busy, more);
	else if (t->state == TASK_SCHEDULED)
		m->v[METRIC_SCHED] = u64_add_sat(t->sched, more);
	else if (t->state == TASK_IDLE)
		m->v[METRIC_IDLE] = u64_add_sat(t->idle, more);
}

/* Task t's figures in the window ending at T: from its baseline, or from
 * zero when it was first received in the window; never negative. */
static void task_window(const struct task *t, uint64_t T, struct metrics *m)
{
	int i;

	task_at(t, T, m);
	if (!t->has_base)
		return;
	for (i = 0; i < METRIC_COUNT; i++)
		m->v[i] = m->v[i] > t->base.v[i] ? m->v[i] - t->base.v[i] : 0;
}

static struct strview str_view(const struct aio *p, uint32_t ref)
{
	return ref ? sv_n(p->strs[ref - 1].p, p->strs[ref - 1].len)
	           : sv_n("", 0);
}

/* Fills p->out with a spawn stack, root first: [thread NAME] when asked,
 * then [spawn site unknown] when unknown, else the chain of stack (its
 * 4096 frames nearest the leaf), or nothing for stack 0 (the model's [no
 * spawn stack]; spelled out under a thread frame).  STATUS_NOMEM. */
static enum status frames_of(struct aio *p, uint32_t stack, bool unknown,
                             bool thread, uint32_t tref, size_t *depth)
{
	size_t total = 0, off = thread ? 1 : 0, d, pos;
	uint32_t s;

	if (unknown)
		stack = 0;
	for (s = stack; s && total < MAX_FRAMES; s = p->stks[s - 1].parent)
		total += p->stks[s - 1].n;
	d = stack ? size_min(total, MAX_FRAMES) : (unknown || thread) ? 1 : 0;
	if (mem_grow(&p->out, &p->capout, off + d + 1, sizeof(*p->out)) !=
	    STATUS_OK)
		return STATUS_NOMEM;
	if (thread) {
		struct strview n = str_view(p, tref);
		int k =
		    snprintf(p->thread_frame, sizeof(p->thread_frame),
		             "[thread %.*s]", (int)n.len, n.len ? n.ptr : "");

		p->out[0] = sv_n(p->thread_frame,
		                 size_min((size_t)(k < 0 ? 0 : k),
		                          sizeof(p->thread_frame) - 1));
	}
	if (!stack) {
		if (d)
			p->out[off] =
			    reserved_name(unknown ? RESERVED_SPAWN_UNKNOWN
			                          : RESERVED_NO_STACK);
		*depth = off + d;
		return STATUS_OK;
	}
	pos = off + d;
	for (s = stack; s && pos > off; s = p->stks[s - 1].parent) {
		const struct stk *k = &p->stks[s - 1];
		uint32_t j;

		for (j = k->n; j > 0 && pos > off; j--)
			p->out[--pos] =
			    str_view(p, p->frame_pool[k->off + j - 1] + 1);
	}
	*depth = off + d;
	return STATUS_OK;
}

/* Replaces the window's samples with every task's and site's figures
 * from the window's start to T. */
static void emit(struct aio *p, struct collect *c, uint64_t T)
{
	bool threads = p->loop_threads > 1;
	size_t i, depth;

	collect_clear(c);
	for (i = 0; i < p->ntasks; i++) {
		const struct task *t = &p->tasks[i];
		struct sample s;

		memset(&s, 0, sizeof(s));
		if (frames_of(p, t->stack, t->unknown_site, threads, t->thread,
		              &depth) != STATUS_OK) {
			collect_dropped(c, 1);
			continue;
		}
		task_window(t, T, &s.m);
		s.frames = p->out;
		s.depth = depth;
		s.task = str_view(p, t->name);
		s.tasks = 1;
		if (collect_add(c, &s) != STATUS_OK)
			continue; /* counted as dropped by the worker */
	}
	for (i = 0; i < p->nsites; i++) {
		const struct site *x = &p->sites[i];
		uint64_t d[6];
		char name[64];
		struct sample s;
		int k;

		for (k = 0; k < 6; k++)
			d[k] =
			    x->cur[k] > x->base[k] ? x->cur[k] - x->base[k] : 0;
		if (!d[0])
			continue;
		if (frames_of(p, x->stack, false, threads, x->thread, &depth) !=
		    STATUS_OK) {
			collect_dropped(c, 1);
			continue;
		}
		memset(&s, 0, sizeof(s));
		k = snprintf(name, sizeof(name), "<%llu finished tasks>",
		             (unsigned long long)d[0]);
		s.frames = p->out;
		s.depth = depth;
		s.task = sv_n(name, (size_t)k);
		s.tasks = d[0];
		s.m.v[METRIC_POLLS] = d[1];
		s.m.v[METRIC_WAKES] = d[2];
		s.m.v[METRIC_BUSY] = d[3];
		s.m.v[METRIC_SCHED] = d[4];
		s.m.v[METRIC_IDLE] = d[5];
		if (collect_add(c, &s) != STATUS_OK)
			continue;
	}
}

/* Makes T the start of the next window: finished tasks are forgotten,
 * the others keep their figures at T as their baseline. */
static void roll(struct aio *p, uint64_t T)
{
	size_t i = 0;

	while (i < p->ntasks) {
		struct task *t = &p->tasks[i];

		if (t->state != TASK_DONE) {
			task_at(t, T, &t->base);
			t->has_base = true;
			i++;
			continue;
		}
		idmap_del(&p->task_ids, t->id);
		if (i + 1 < p->ntasks) {
			*t = p->tasks[p->ntasks - 1];
			(void)idmap_put(&p->task_ids, t->id, (uint32_t)i);
		}
		p->ntasks--;
	}
	for (i = 0; i < p->nsites; i++)
		memcpy(p->sites[i].base, p->sites[i].cur,
		       sizeof(p->sites[i].base));
	p->t_start = p->t_last = T;
}

/* ---- connecting ---------------------------------------------------------- */

static void state(struct aio *p, struct collect *c, enum source_state st,
                  uint64_t retry_in)
{
	if (p->state_sent && p->last_state == st && st != SOURCE_RETRYING)
		return;
	p->state_sent = true;
	p->last_state = st;
	collect_state(c, st, retry_in);
}

static enum status hello(struct adapter *a, struct failure *f)
{
	struct aio *p = a->priv;
	struct wire *w = &p->w;
	unsigned char body[8] = { 1, 0, 1, 0, 0, 0, 0, 0 }; /* 1..1, 0 */
	uint64_t timeout = a->cfg.reply_timeout_ns;
	uint64_t deadline = u64_add_sat(collect_now(), timeout), ticks, now;
	uint64_t start, agent_start;
	uint32_t pid, flags, ring, maxp, hz, euid;
	uint16_t type, lp, lc, la, zero;
	uint32_t seq;
	const unsigned char *text;
	enum status st;

	p->seq = 1;
	p->max_payload = ASYNCIO_MAX_PAYLOAD;
	st = send_frame(p, ASYNCIO_HELLO, body, sizeof(body), deadline, f);
	if (st == STATUS_OK)
		st = read_frame(p, deadline, timeout, &type, &seq, f);
	if (st != STATUS_OK)
		return st;
	if (type == ASYNCIO_ERROR)
		return agent_error(p, f);
	if (type != ASYNCIO_HELLO_OK || seq != p->seq)
		return failf(f, STATUS_MALFORMED, NULL, NULL,
		             "a %s frame (request %u) answered HELLO",
		             frame_name(type), seq);
	(void)wire_u32(w, "pid", &pid);
	(void)wire_u32(w, "agent flags", &flags);
	(void)wire_u64(w, "proc_start_ticks", &start);
	(void)wire_u64(w, "agent_start_ns", &agent_start);
	(void)wire_u64(w, "now_ns", &now);
	(void)wire_u64(w, "now_real_ns", &now);
	(void)wire_u32(w, "ring capacity", &ring);
	(void)wire_u32(w, "max reply payload", &maxp);
	(void)wire_u32(w, "clock ticks per second", &hz);
	(void)wire_u32(w, "the agent's uid", &euid);
	(void)wire_u16(w, "len_python", &lp);
	(void)wire_u16(w, "len_cmdline", &lc);
	(void)wire_u16(w, "len_agent", &la);
	(void)wire_u16(w, "a zero field", &zero);
	if (wire_status(w) == STATUS_OK && (lp > 256 || lc > 1024 || la > 64))
		(void)wire_fail(
		    w, 56, "string lengths %u, %u, %u exceed 256, 1024, 64", lp,
		    lc, la);
	if (wire_status(w) == STATUS_OK && maxp < 4096)
		(void)wire_fail(w, 44, "a reply limit of %u bytes", maxp);
	(void)wire_bytes(w, "the interpreter string", lp, &text);
	(void)wire_bytes(w, "the command line", lc, &text);
	(void)wire_bytes(w, "the agent version", la, &text);
	(void)wire_end(w, "the agent version");
	if (wire_status(w) != STATUS_OK)
		return malformed(f, w, "HELLO_OK");
	p->max_payload =
	    maxp < ASYNCIO_MAX_PAYLOAD ? maxp : ASYNCIO_MAX_PAYLOAD;
	p->agent_pid = pid;
	if (p->ep.pid && start &&
	    asyncio_endpoint_start_ticks(p->ep.pid, &ticks) == STATUS_OK &&
	    ticks != start)
		return failf(f, STATUS_UNREACHABLE,
		             "the agent's process has exited; run without -e "
		             "to list the live agents",
		             NULL,
		             "pid %ld was reused: the agent's process started "
		             "at tick %llu, pid %ld at tick %llu",
		             p->ep.pid, (unsigned long long)start, p->ep.pid,
		             (unsigned long long)ticks);
	if (p->ep.pid)
		snprintf(p->source, sizeof(p->source), "asyncio pid %ld",
		         p->ep.pid);
	else
		snprintf(p->source, sizeof(p->source),
		         "asyncio pid %u (%.100s)", pid, p->ep.path[0]);
	return STATUS_OK;
}

static enum status attach(struct adapter *a, struct collect *c,
                          struct failure *f)
{
	struct aio *p = a->priv;
	enum status st;

	state(p, c, SOURCE_CONNECTING, 0);
	st = asyncio_endpoint_connect(&p->ep, a->cfg.connect_timeout_ns,
	                              collect_stop_fd(c), &p->fd, p->err,
	                              sizeof(p->err));
	if (st == STATUS_STOPPED)
		return st;
	if (st == STATUS_UNREACHABLE)
		return failf(f, st, remedy_optin, NULL, "no agent answers: %s",
		             p->err);
	if (st == STATUS_TIMEOUT)
		return failf(f, st, remedy_slow, NULL, "%s", p->err);
	if (st != STATUS_OK)
		return failf(f, STATUS_UNREACHABLE,
		             "another process serves the agent's socket (pid "
		             "reuse, or a planted socket): check its directory",
		             NULL, "%s", p->err);
	return hello(a, f);
}

/* Sends READ and reads its reply (or a final push). */
static enum status do_read(struct adapter *a, struct collect *c, struct end *e,
                           struct failure *f)
{
	struct aio *p = a->priv;
	uint64_t timeout = a->cfg.reply_timeout_ns, deadline;
	enum status st;

	/* at or past the window's end, the read must fit in the grace */
	if (collect_stopping(c) || collect_now() >= collect_deadline(c))
		timeout = u64_min(timeout, STOP_READ_NS);
	deadline = u64_add_sat(collect_now(), timeout);
	p->seq = p->seq == UINT32_MAX ? 1 : p->seq + 1;
	st = send_frame(p, ASYNCIO_READ, NULL, 0, deadline, f);
	if (st == STATUS_UNREACHABLE) {
		/* the agent may have pushed its final reply and closed just
		 * before the READ: that reply is still ours to read */
		struct failure g;

		if (read_reply(p, p->seq, deadline, timeout, e, &g) ==
		        STATUS_OK &&
		    (e->flags & END_FINAL))
			st = STATUS_OK;
	} else if (st == STATUS_OK) {
		st = read_reply(p, p->seq, deadline, timeout, e, f);
	}
	if (st == STATUS_OK)
		p->loop_threads = e->loop_threads;
	return st;
}

enum wait_result {
	WAIT_TIME,
	WAIT_STOP,
	WAIT_DATA,
};

/* Sleeps until the deadline, a stop or end-now, or data from the agent. */
static enum wait_result idle_wait(struct aio *p, struct collect *c,
                                  uint64_t until)
{
	for (;;) {
		struct pollfd pf[2];
		uint64_t now = collect_now();
		int r;

		if (collect_stopping(c))
			return WAIT_STOP;
		if (now >= until)
			return WAIT_TIME;
		pf[0].fd = p->fd;
		pf[0].events = POLLIN;
		pf[0].revents = 0;
		pf[1].fd = collect_stop_fd(c);
		pf[1].events = POLLIN;
		pf[1].revents = 0;
		r = poll(pf, 2, (int)u64_min((until - now + MS - 1) / MS, 100));
		if (r > 0 && pf[0].revents)
			return WAIT_DATA;
	}
}

/* ---- collect ---------------------------------------------------------------
 */

/* Ends the window at e's boundary with every figure, and starts the next. */
static enum status finish(struct aio *p, struct collect *c, const struct end *e,
                          const char *reason)
{
	struct window_meta m;

	emit(p, c, e->boundary);
	memset(&m, 0, sizeof(m));
	m.time_nanos = p->real_start;
	m.duration_nanos = (int64_t)(e->boundary - p->t_start);
	m.partial = reason != NULL;
	m.reason = reason;
	m.source = p->source;
	collect_set_meta(c, &m);
	p->real_start += m.duration_nanos;
	roll(p, e->boundary);
	if (e->flags & END_FINAL) {
		reset(p);
		state(p, c, SOURCE_LOST, 0);
	}
	return STATUS_OK;
}

/* A failure before the window had a start: nothing to keep. */
static enum status give_up(struct adapter *a, struct collect *c,
                           struct failure *f)
{
	struct aio *p = a->priv;
	uint64_t now = collect_now(), end = collect_deadline(c);

	reset(p);
	collect_clear(c);
	state(p, c, SOURCE_RETRYING, end > now ? end - now : 0);
	return collect_fail(c, f->st, f->detail, f->remedy);
}

/* A failure inside a window: keep what the last progress read saw, as a
 * partial window, when the failure allows; else report it. */
static enum status cut_short(struct adapter *a, struct collect *c,
                             struct failure *f)
{
	struct aio *p = a->priv;
	struct window_meta m;
	char reason[640];

	if (!f->reason || p->t_last <= p->t_start) {
		state(p, c, SOURCE_LOST, 0);
		return give_up(a, c, f);
	}
	/* the samples of the last progress read are still in the window */
	memset(&m, 0, sizeof(m));
	snprintf(reason, sizeof(reason), "%s: %s", f->reason, f->detail);
	m.time_nanos = p->real_start;
	m.duration_nanos = (int64_t)(p->t_last - p->t_start);
	m.partial = true;
	m.reason = reason;
	m.source = p->source;
	collect_set_meta(c, &m);
	reset(p);
	state(p, c, SOURCE_LOST, 0);
	return STATUS_OK;
}

static enum status aio_collect(struct adapter *a, struct collect *c)
{
	struct aio *p = a->priv;
	uint64_t refresh = collect_refresh(c), next, next_progress, now;
	/* snapshots at least every second, so a window cut short by a lost
	 * agent keeps its figures up to then; progress at the refresh */
	uint64_t snap = u64_min(refresh, SNAPSHOT_NS);
	struct failure f;
	struct end e;
	enum status st;

	memset(&f, 0, sizeof(f));
	memset(&e, 0, sizeof(e));
	if (p->fd < 0) {
		reset(p);
		st = attach(a, c, &f);
		if (st == STATUS_STOPPED) {
			reset(p);
			return st;
		}
		if (st != STATUS_OK)
			return give_up(a, c, &f);
	}
	if (!p->have_start) {
		/* the first snapshot is the first window's start */
		st = do_read(a, c, &e, &f);
		if (st != STATUS_OK)
			return give_up(a, c, &f);
		roll(p, e.boundary);
		p->real_start = e.real;
		p->have_start = true;
		collect_restart(c);
		state(p, c, SOURCE_CONNECTED, 0);
		if (e.flags & END_FINAL) {
			reset(p);
			failf(&f, STATUS_UNREACHABLE, remedy_optin, NULL,
			      "the application exited as the reader attached");
			return give_up(a, c, &f);
		}
	}
	now = collect_now();
	next = u64_add_sat(now, snap);
	next_progress = u64_add_sat(now, refresh);
	for (;;) {
		enum wait_result wr =
		    idle_wait(p, c, u64_min(collect_deadline(c), next));

		if (wr == WAIT_DATA) {
			/* only a final push may arrive unasked */
			uint64_t t = a->cfg.reply_timeout_ns;

			st = read_reply(p, 0, u64_add_sat(collect_now(), t), t,
			                &e, &f);
			if (st != STATUS_OK)
				return cut_short(a, c, &f);
			return finish(p, c, &e, "application exited");
		}
		if (wr == WAIT_STOP || collect_now() >= collect_deadline(c))
			break;
		st = do_read(a, c, &e, &f);
		if (st != STATUS_OK)
			return cut_short(a, c, &f);
		if (e.flags & END_FINAL)
			return finish(p, c, &e, "application exited");
		emit(p, c, e.boundary);
		p->t_last = e.boundary;
		now = collect_now();
		if (now >= next_progress) {
			st = collect_progress(c);
			(void)st; /* a view lost to memory is no error */
			next_progress = u64_add_sat(now, refresh);
		}
		next = u64_add_sat(now, snap);
	}
	st = do_read(a, c, &e, &f);
	if (st != STATUS_OK)
		return cut_short(a, c, &f);
	return finish(p, c, &e,
	              (e.flags & END_FINAL) ? "application exited" : NULL);
}

/* ---- open and close
 * ---------------------------------------------------------- */

/* No -e: the only live agent of this user, by pid. */
static enum status discover(struct adapter *a, struct adapter_error *err)
{
	char dirs[4][ASYNCIO_PATH_MAX], pid[32];
	struct asyncio_agent *ag = NULL;
	size_t nd = asyncio_endpoint_dirs(dirs, 4), n = 0;
	enum status st;
	char *copy;

	st = asyncio_endpoint_list((const char(*)[ASYNCIO_PATH_MAX])dirs, nd,
	                           (long)geteuid(), &ag, &n);
	if (st != STATUS_OK)
		return st;
	if (n == 0) {
		char where[4 * ASYNCIO_PATH_MAX + 16] = "";
		size_t i;

		for (i = 0; i < nd; i++) {
			size_t l = strlen(where);

			snprintf(where + l, sizeof(where) - l, "%s%s",
			         i ? ", " : "", dirs[i]);
		}
		err->st = STATUS_UNREACHABLE;
		snprintf(err->detail, sizeof(err->detail),
		         "no asyncio agent of this user is running (looked in "
		         "%.400s)",
		         where);
		snprintf(err->remediation, sizeof(err->remediation), "%s",
		         remedy_optin);
		return STATUS_UNREACHABLE;
	}
	if (n > 1) {
		err->st = STATUS_INVAL;
		snprintf(err->detail, sizeof(err->detail),
		         "%zu asyncio agents of this user are running: choose "
		         "one with -e PID",
		         n);
		asyncio_endpoint_format_list(ag, n, err->remediation,
		                             sizeof(err->remediation));
		mem_free(ag);
		return STATUS_INVAL;
	}
	snprintf(pid, sizeof(pid), "%ld", ag[0].pid);
	mem_free(ag);
	copy = mem_strndup(pid, strlen(pid));
	if (!copy)
		return STATUS_NOMEM;
	mem_free(a->endpoints[0]);
	a->endpoints[0] = copy;
	return STATUS_OK;
}

static enum status aio_open(struct adapter *a, struct adapter_error *err)
{
	struct aio *p = a->priv;
	enum status st;

	p->fd = -1;
	if (!a->endpoints[0][0]) {
		st = discover(a, err);
		if (st != STATUS_OK)
			return st;
	}
	st = asyncio_endpoint_parse(a->endpoints[0], &p->ep, err->detail,
	                            sizeof(err->detail));
	if (st == STATUS_UNREACHABLE)
		snprintf(err->remediation, sizeof(err->remediation), "%s",
		         "check the pid (the process may have exited)");
	if (st != STATUS_OK) {
		err->st = st;
		return st;
	}
	snprintf(p->source, sizeof(p->source), "asyncio %s", p->ep.text);
	return STATUS_OK;
}

static void aio_close(struct adapter *a)
{
	struct aio *p = a->priv;
	struct failure f;

	if (p->fd >= 0) /* best effort: tell the agent we are done */
		(void)send_frame(p, ASYNCIO_BYE, NULL, 0,
		                 u64_add_sat(collect_now(), 10 * MS), &f);
	reset(p);
	mem_free(p->strs);
	mem_free(p->stks);
	mem_free(p->frame_pool);
	mem_free(p->tasks);
	mem_free(p->sites);
	mem_free(p->out);
	mem_free(p->rx);
}

const struct adapter_ops asyncio_ops = {
	.name = "asyncio",
	.aliases = NULL,
	.summary = "Python asyncio through its opt-in agent (-e PID or "
	           "socket; none: the only live agent)",
	.default_endpoint = "",
	.flags = 0,
	.private_size = sizeof(struct aio),
	.open = aio_open,
	.collect = aio_collect,
	.close = aio_close,
	.user = NULL,
};
