/* The tokio adapter's state: console-api Updates decoded with protobuf-c
 * into an arena, applied to a table of tasks keyed by span id, and turned
 * into per-task differences between two Updates (docs/tokio.md). */
#include "adapters/tokio_int.h"

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "adapters/tokio/instrument.pb-c.h"
#include "model/alloc.h"
#include "model/reserved.h"

#define NS_PER_S 1000000000LL
/* Timestamps past this many seconds (year ~2262) would overflow ns. */
#define MAX_SECONDS 9223372035LL

typedef Rs__Tokio__Console__Instrument__Update pb_update;
typedef Rs__Tokio__Console__Tasks__Task pb_task;
typedef Rs__Tokio__Console__Tasks__Stats pb_stats;
typedef Rs__Tokio__Console__Common__Field pb_field;
typedef Rs__Tokio__Console__Common__Location pb_location;

/* ---- the table of tasks -------------------------------------------------- */

static uint32_t span_hash(uint64_t span)
{
	return hash_fold32(hash_mix64(span));
}

/* What a lookup compares against: the table's owner and the wanted id. */
struct probe {
	const struct tokio_state *s;
	uint64_t id;
};

static bool span_eq(const void *ctx, uint32_t id, const void *key)
{
	const struct probe *q = ctx;

	(void)key;
	return q->s->tasks[id - 1].span == q->id;
}

static struct tokio_task *task_find(struct tokio_state *s, uint64_t span)
{
	struct probe q = { s, span };
	uint32_t id = hash_table_find(&s->spans, span_hash(span), span_eq, &q);

	return id ? &s->tasks[id - 1] : NULL;
}

static void str_drop(struct tokio_state *s, uint32_t id)
{
	if (id && intern_unref(&s->strs, id))
		intern_remove(&s->strs, id, true);
}

/* The id of a string, with one reference taken; 0 when empty or when it
 * cannot be kept (counted as malformed). */
static uint32_t str_take(struct tokio_state *s, struct strview v)
{
	uint32_t id;
	bool created;

	if (v.len == 0)
		return 0;
	if (v.len > TOKIO_MAX_TEXT)
		v.len = TOKIO_MAX_TEXT;
	if (intern_put(&s->strs, v.ptr, v.len, NULL, 0, TOKIO_MAX_STRINGS, &id,
	               &created) != STATUS_OK) {
		s->malformed++;
		return 0;
	}
	intern_ref(&s->strs, id);
	return id;
}

/* Removes task i (its strings, its span entry) by moving the last one in. */
static void task_remove(struct tokio_state *s, size_t i)
{
	struct tokio_task *t = &s->tasks[i];
	size_t last = s->ntasks - 1;

	if (!(t->flags & TOKIO_RETIRED))
		hash_table_remove(&s->spans, span_hash(t->span),
		                  (uint32_t)(i + 1));
	str_drop(s, t->name);
	str_drop(s, t->kind);
	str_drop(s, t->loc);
	if (i != last) {
		struct tokio_task *m = &s->tasks[last];

		if (!(m->flags & TOKIO_RETIRED)) {
			uint32_t h = span_hash(m->span);

			hash_table_remove(&s->spans, h, (uint32_t)(last + 1));
			hash_table_insert(&s->spans, h, (uint32_t)(i + 1),
			                  NULL);
		}
		*t = *m;
	}
	s->ntasks--;
}

void tokio_state_init(struct tokio_state *s)
{
	memset(s, 0, sizeof(*s));
	hash_table_init(&s->spans);
	hash_table_init(&s->metas);
	intern_init(&s->strs);
}

static void meta_clear(struct tokio_state *s)
{
	size_t i;
	uint32_t j;

	for (i = 0; i < s->nmeta; i++) {
		for (j = 0; j < s->meta[i].n; j++)
			str_drop(s, s->meta[i].names[j]);
		mem_free(s->meta[i].names);
	}
	s->nmeta = 0;
	hash_table_clear(&s->metas);
}

void tokio_state_reset(struct tokio_state *s)
{
	while (s->ntasks)
		task_remove(s, s->ntasks - 1);
	meta_clear(s);
	hash_table_clear(&s->spans);
	s->npending = s->pending_head = 0;
	s->have_now = s->have_start = false;
	s->now = s->start = 0;
	s->updates = s->first_tasks = 0;
}

void tokio_state_fini(struct tokio_state *s)
{
	tokio_state_reset(s);
	mem_free(s->tasks);
	mem_free(s->pending);
	mem_free(s->meta);
	hash_table_fini(&s->spans);
	hash_table_fini(&s->metas);
	intern_fini(&s->strs);
	memset(s, 0, sizeof(*s));
}

/* ---- time ---------------------------------------------------------------- */

/* Seconds and nanoseconds as ns; out-of-range parts are clamped and
 * counted. */
static int64_t to_ns(struct tokio_state *s, int64_t sec, int32_t nanos)
{
	if (nanos < 0 || nanos >= NS_PER_S) {
		s->malformed++;
		nanos = nanos < 0 ? 0 : (int32_t)(NS_PER_S - 1);
	}
	if (sec > MAX_SECONDS || sec < -MAX_SECONDS) {
		s->malformed++;
		sec = sec > 0 ? MAX_SECONDS : -MAX_SECONDS;
	}
	return sec * NS_PER_S + nanos;
}

static bool stamp(struct tokio_state *s, const Google__Protobuf__Timestamp *t,
                  int64_t *out)
{
	if (!t)
		return false;
	*out = to_ns(s, t->seconds, t->nanos);
	return true;
}

static uint64_t span_ns(struct tokio_state *s,
                        const Google__Protobuf__Duration *d)
{
	int64_t v;

	if (!d)
		return 0;
	v = to_ns(s, d->seconds, d->nanos);
	if (v < 0) {
		s->malformed++;
		return 0;
	}
	return (uint64_t)v;
}

static uint64_t diff(int64_t a, int64_t b)
{
	return a > b ? (uint64_t)a - (uint64_t)b : 0;
}

void tokio_stats_at(const struct tokio_stats *st, int64_t now,
                    struct metrics *m, uint64_t *poll_now)
{
	bool dropped = st->flags & TOKIO_HAS_DROPPED;
	int64_t end = dropped ? st->dropped : now;
	bool polling =
	    (st->flags & TOKIO_HAS_STARTED) &&
	    (!(st->flags & TOKIO_HAS_ENDED) || st->started > st->ended);
	bool scheduled =
	    (st->flags & TOKIO_HAS_WAKE) &&
	    (!(st->flags & TOKIO_HAS_STARTED) || st->last_wake > st->started);
	uint64_t total = diff(end, st->created), busy = st->busy,
	         sched = st->sched, running = 0;

	if (polling && !dropped) {
		running = diff(now, st->started);
		busy = u64_add_sat(busy, running);
	}
	if (scheduled && !dropped)
		sched = u64_add_sat(sched, diff(now, st->last_wake));
	memset(m, 0, sizeof(*m));
	m->v[METRIC_BUSY] = busy;
	m->v[METRIC_SCHED] = sched;
	m->v[METRIC_IDLE] =
	    total > u64_add_sat(busy, sched) ? total - busy - sched : 0;
	m->v[METRIC_POLLS] = st->polls;
	m->v[METRIC_WAKES] = st->wakes;
	if (poll_now)
		*poll_now = running;
}

/* ---- decoding -------------------------------------------------------------
 */

static void stats_read(struct tokio_state *s, const pb_stats *p,
                       struct tokio_stats *st)
{
	const Rs__Tokio__Console__Common__PollStats *ps = p->poll_stats;

	memset(st, 0, sizeof(*st));
	if (!stamp(s, p->created_at, &st->created)) {
		s->malformed++; /* always sent: absent, the task is new now */
		st->created = s->now;
	}
	if (stamp(s, p->dropped_at, &st->dropped))
		st->flags |= TOKIO_HAS_DROPPED;
	if (stamp(s, p->last_wake, &st->last_wake))
		st->flags |= TOKIO_HAS_WAKE;
	st->wakes = p->wakes;
	st->self_wakes = p->self_wakes;
	st->clones = p->waker_clones;
	st->drops = p->waker_drops;
	st->sched = span_ns(s, p->scheduled_time); /* absent: older tokio */
	if (ps) {
		st->polls = ps->polls;
		st->busy = span_ns(s, ps->busy_time);
		if (stamp(s, ps->last_poll_started, &st->started))
			st->flags |= TOKIO_HAS_STARTED;
		if (stamp(s, ps->last_poll_ended, &st->ended))
			st->flags |= TOKIO_HAS_ENDED;
	}
}

static struct strview field_text(const pb_field *f)
{
	if (f->value_case == RS__TOKIO__CONSOLE__COMMON__FIELD__VALUE_DEBUG_VAL)
		return sv_c(f->debug_val);
	if (f->value_case == RS__TOKIO__CONSOLE__COMMON__FIELD__VALUE_STR_VAL)
		return sv_c(f->str_val);
	return sv_n("", 0);
}

static const struct tokio_meta *meta_find(const struct tokio_state *s,
                                          uint64_t id);

/* The field's name, from str_name or from its metadata's field_names. */
static struct strview field_name(struct tokio_state *s, const pb_field *f,
                                 uint64_t meta_id)
{
	const struct tokio_meta *m;

	if (f->name_case == RS__TOKIO__CONSOLE__COMMON__FIELD__NAME_STR_NAME)
		return sv_c(f->str_name);
	if (f->name_case != RS__TOKIO__CONSOLE__COMMON__FIELD__NAME_NAME_IDX)
		return sv_n("", 0);
	if (f->metadata_id)
		meta_id = f->metadata_id->id;
	m = meta_find(s, meta_id);
	if (!m || f->name_idx >= m->n) {
		s->malformed++;
		return sv_n("", 0);
	}
	return intern_view(&s->strs, m->names[f->name_idx]);
}

static const char *after_last(const char *p, size_t n, const char *needle,
                              bool to_slash)
{
	const char *best = NULL, *hit;
	size_t k = strlen(needle);

	for (hit = p; (size_t)(hit - p) + k <= n; hit++) {
		const char *q;

		if (memcmp(hit, needle, k) != 0)
			continue;
		q = hit + k;
		if (to_slash) { /* skip the one registry directory */
			q = memchr(q, '/', n - (size_t)(q - p));
			if (!q)
				continue;
			q++;
		}
		best = q;
	}
	return best;
}

size_t tokio_location(char *dst, size_t size, struct strview file,
                      bool has_line, uint32_t line, bool has_col, uint32_t col)
{
	const char *reg, *git, *from = file.ptr;
	size_t len = file.len, n;
	int k;

	if (size == 0)
		return 0;
	reg = after_last(file.ptr, file.len, "/.cargo/registry/src/", true);
	git = after_last(file.ptr, file.len, "/.cargo/git/checkouts/", false);
	if (git > reg)
		reg = git;
	if (reg) {
		len -= (size_t)(reg - file.ptr);
		from = reg;
	}
	k = snprintf(dst, size, "%s%.*s", reg ? "<cargo>/" : "",
	             (int)size_min(len, TOKIO_MAX_TEXT), from ? from : "");
	n = k < 0 ? 0 : size_min((size_t)k, size - 1);
	if (has_line) {
		k = snprintf(dst + n, size - n, ":%u", line);
		n = k < 0 ? n : size_min(n + (size_t)k, size - 1);
		if (has_col) {
			k = snprintf(dst + n, size - n, ":%u", col);
			n = k < 0 ? n : size_min(n + (size_t)k, size - 1);
		}
	}
	return n;
}

/* Name, kind and spawn location of a new task into t (references taken). */
static void task_describe(struct tokio_state *s, const pb_task *p,
                          struct tokio_task *t)
{
	const pb_location *l = p->location;
	uint64_t meta_id = p->metadata ? p->metadata->id : 0;
	struct strview name = { 0 }, kind = { 0 }, where = { 0 };
	char text[TOKIO_MAX_TEXT + 32];
	bool has_id = false;
	uint64_t task_id = 0;
	size_t i, n;

	for (i = 0; i < p->n_fields; i++) {
		const pb_field *f = p->fields[i];
		struct strview fn = field_name(s, f, meta_id);

		if (sv_eq(fn, sv_c("task.name")))
			name = field_text(f);
		else if (sv_eq(fn, sv_c("kind")))
			kind = field_text(f);
		else if (sv_eq(fn, sv_c("spawn.location")))
			where = field_text(f);
		else if (sv_eq(fn, sv_c("task.id")) &&
		         f->value_case ==
		             RS__TOKIO__CONSOLE__COMMON__FIELD__VALUE_U64_VAL) {
			has_id = true;
			task_id = f->u64_val;
		}
	}
	if (!name.len && has_id) {
		char id[48];
		int k = snprintf(id, sizeof(id), "task %llu",
		                 (unsigned long long)task_id);

		t->name = str_take(s, sv_n(id, k < 0 ? 0 : (size_t)k));
	} else {
		t->name = str_take(s, name);
	}
	t->kind = str_take(s, kind);
	if (l &&
	    l->_file_case == RS__TOKIO__CONSOLE__COMMON__LOCATION___FILE_FILE) {
		bool mod =
		    l->_module_path_case ==
		        RS__TOKIO__CONSOLE__COMMON__LOCATION___MODULE_PATH_MODULE_PATH &&
		    l->module_path[0];

		n = tokio_location(
		    text, sizeof(text), sv_c(mod ? l->module_path : l->file),
		    l->_line_case ==
		        RS__TOKIO__CONSOLE__COMMON__LOCATION___LINE_LINE,
		    l->line,
		    l->_column_case ==
		        RS__TOKIO__CONSOLE__COMMON__LOCATION___COLUMN_COLUMN,
		    l->column);
		t->loc = str_take(s, sv_n(text, n));
	} else if (where.len) {
		n = tokio_location(text, sizeof(text), where, false, 0, false,
		                   0);
		t->loc = str_take(s, sv_n(text, n));
	}
}

static bool meta_eq(const void *ctx, uint32_t id, const void *key)
{
	const struct probe *q = ctx;

	(void)key;
	return q->s->meta[id - 1].id == q->id;
}

static const struct tokio_meta *meta_find(const struct tokio_state *s,
                                          uint64_t id)
{
	struct probe q = { s, id };
	uint32_t k = hash_table_find(&s->metas, span_hash(id), meta_eq, &q);

	return k ? &s->meta[k - 1] : NULL;
}

static enum status meta_add(struct tokio_state *s, uint64_t id,
                            const Rs__Tokio__Console__Common__Metadata *md)
{
	struct tokio_meta *m;
	size_t i, n;

	if (!md || meta_find(s, id))
		return STATUS_OK; /* metadata never changes */
	if (s->nmeta >= TOKIO_MAX_META) {
		s->malformed++;
		return STATUS_OK;
	}
	if (mem_grow(&s->meta, &s->capmeta, s->nmeta + 1, sizeof(*s->meta)) !=
	        STATUS_OK ||
	    hash_table_reserve(&s->metas, 1) != STATUS_OK)
		return STATUS_NOMEM;
	n = size_min(md->n_field_names, TOKIO_MAX_FIELDS);
	m = &s->meta[s->nmeta];
	m->id = id;
	m->n = 0;
	m->names = n ? mem_calloc(n, sizeof(*m->names)) : NULL;
	if (n && !m->names)
		return STATUS_NOMEM;
	for (i = 0; i < n; i++)
		m->names[m->n++] = str_take(s, sv_c(md->field_names[i]));
	s->nmeta++;
	hash_table_insert(&s->metas, span_hash(id), (uint32_t)s->nmeta, NULL);
	return STATUS_OK;
}

/* Adds a task for a new_tasks entry; a live task of the same span id is
 * retired first (it ends at its drop, else at now). */
static enum status task_add(struct tokio_state *s, const pb_task *p)
{
	struct tokio_task *t, *old;
	uint64_t span;
	size_t i;

	if (!p->id || !p->id->id) {
		s->malformed++;
		return STATUS_OK;
	}
	span = p->id->id;
	old = task_find(s, span);
	if (old) {
		size_t k = (size_t)(old - s->tasks);

		hash_table_remove(&s->spans, span_hash(span),
		                  (uint32_t)(k + 1));
		old->flags |= TOKIO_RETIRED;
		if (!(old->s.flags & TOKIO_HAS_DROPPED)) {
			old->s.flags |= TOKIO_HAS_DROPPED;
			old->s.dropped = s->now;
		}
	}
	if (s->ntasks >= TOKIO_MAX_TASKS) {
		s->dropped++;
		return STATUS_LIMIT;
	}
	if (mem_grow(&s->tasks, &s->captasks, s->ntasks + 1,
	             sizeof(*s->tasks)) != STATUS_OK ||
	    hash_table_reserve(&s->spans, 1) != STATUS_OK)
		return STATUS_NOMEM;
	t = &s->tasks[s->ntasks];
	memset(t, 0, sizeof(*t));
	t->span = span;
	task_describe(s, p, t);
	hash_table_insert(&s->spans, span_hash(span), (uint32_t)(s->ntasks + 1),
	                  NULL);
	s->ntasks++;
	/* stats that came before their task */
	for (i = 0; i < s->npending; i++) {
		struct tokio_pending *q = &s->pending[i];

		if (q->span != span)
			continue;
		t->s = q->s;
		t->flags |= TOKIO_HAS_STATS;
		*q = s->pending[--s->npending];
		break;
	}
	return STATUS_OK;
}

/* Parks stats for a task not yet announced; the oldest parked ones are
 * counted as dropped when the bound is reached. */
static enum status park(struct tokio_state *s, uint64_t span,
                        const struct tokio_stats *st)
{
	size_t i;

	for (i = 0; i < s->npending; i++) {
		if (s->pending[i].span == span) {
			s->pending[i].s = *st;
			return STATUS_OK;
		}
	}
	if (!s->pending) {
		s->pending = mem_calloc(TOKIO_MAX_PENDING, sizeof(*s->pending));
		if (!s->pending)
			return STATUS_NOMEM;
	}
	if (s->npending == TOKIO_MAX_PENDING) {
		i = s->pending_head;
		s->pending_head = (s->pending_head + 1) % TOKIO_MAX_PENDING;
		s->dropped++;
	} else {
		i = s->npending++;
	}
	s->pending[i].span = span;
	s->pending[i].s = *st;
	return STATUS_OK;
}

struct tokio_arena_block {
	struct tokio_arena_block *next;
	size_t used, size; /* bytes, the header included */
};

#define ALIGN 16

static void *pb_alloc(void *data, size_t size)
{
	struct tokio_arena *a = data;
	struct tokio_arena_block *b = a->head;
	size_t hdr = (sizeof(*b) + ALIGN - 1) & ~(size_t)(ALIGN - 1);

	if (size > SIZE_MAX / 2) {
		a->nomem = true;
		return NULL;
	}
	size = (size + ALIGN - 1) & ~(size_t)(ALIGN - 1);
	if (!b || b->size - b->used < size) {
		size_t len = size_max(TOKIO_ARENA_BLOCK, hdr + size);
		/* /dev/zero: MAP_ANONYMOUS is not in our POSIX level */
		int fd = open("/dev/zero", O_RDWR | O_CLOEXEC);
		void *m = fd < 0 ? MAP_FAILED
		                 : mmap(NULL, len, PROT_READ | PROT_WRITE,
		                        MAP_PRIVATE, fd, 0);

		if (fd >= 0)
			close(fd);
		if (m == MAP_FAILED) {
			a->nomem = true;
			return NULL;
		}
		b = m;
		b->next = a->head;
		b->used = hdr;
		b->size = len;
		a->head = b;
	}
	b->used += size;
	return (char *)b + b->used - size;
}

static void pb_free(void *data, void *p)
{
	(void)data; /* unmapped with the arena, once per Update */
	(void)p;
}

static void arena_release(struct tokio_arena *a)
{
	while (a->head) {
		struct tokio_arena_block *next = a->head->next;

		munmap(a->head, a->head->size);
		a->head = next;
	}
	a->nomem = false;
}

static enum status apply(struct tokio_state *s, const pb_update *u)
{
	const Rs__Tokio__Console__Tasks__TaskUpdate *tu = u->task_update;
	const Rs__Tokio__Console__Common__RegisterMetadata *rm =
	    u->new_metadata;
	enum status st = STATUS_OK;
	size_t i;

	s->now = to_ns(s, u->now->seconds, u->now->nanos);
	s->have_now = true;
	for (i = 0; rm && i < rm->n_metadata; i++) {
		const Rs__Tokio__Console__Common__RegisterMetadata__NewMetadata
		    *nm = rm->metadata[i];

		if (!nm->id) {
			s->malformed++;
			continue;
		}
		if (meta_add(s, nm->id->id, nm->metadata) != STATUS_OK)
			return STATUS_NOMEM;
	}
	if (!tu)
		return STATUS_OK;
	s->dropped = u64_add_sat(s->dropped, tu->dropped_events);
	for (i = 0; i < tu->n_new_tasks; i++) {
		enum status r = task_add(s, tu->new_tasks[i]);
		if (r == STATUS_NOMEM)
			return r;
		if (r != STATUS_OK)
			st = r;
	}
	if (s->updates == 0)
		s->first_tasks = tu->n_new_tasks;
	for (i = 0; i < tu->n_stats_update; i++) {
		const Rs__Tokio__Console__Tasks__TaskUpdate__StatsUpdateEntry
		    *e = tu->stats_update[i];
		struct tokio_stats stats;
		struct tokio_task *t;

		if (!e->value) {
			s->malformed++;
			continue;
		}
		stats_read(s, e->value, &stats);
		t = task_find(s, e->key);
		if (t) {
			t->s = stats;
			t->flags |= TOKIO_HAS_STATS;
		} else if (park(s, e->key, &stats) != STATUS_OK) {
			return STATUS_NOMEM;
		}
	}
	return st;
}

enum status tokio_state_apply(struct tokio_state *s, const uint8_t *p, size_t n,
                              char *err, size_t errsz)
{
	ProtobufCAllocator alloc = { pb_alloc, pb_free, &s->arena };
	pb_update *u;
	enum status st;

	u = rs__tokio__console__instrument__update__unpack(&alloc, n, p);
	if (!u) {
		st = s->arena.nomem ? STATUS_NOMEM : STATUS_MALFORMED;
		arena_release(&s->arena);
		return status_errf(
		    err, errsz, st,
		    "%zu bytes that are not a console-api Update "
		    "(corrupt, or not a console-subscriber)",
		    n);
	}
	if (!u->now) {
		arena_release(&s->arena);
		return status_errf(err, errsz, STATUS_MALFORMED,
		                   "an Update of %zu bytes without its `now` "
		                   "timestamp",
		                   n);
	}
	st = apply(s, u);
	arena_release(&s->arena);
	s->updates++;
	if (st == STATUS_NOMEM)
		return status_errf(err, errsz, st, "out of memory");
	if (st == STATUS_LIMIT)
		return status_errf(
		    err, errsz, st,
		    "more than %zu tasks: the rest are counted as "
		    "dropped",
		    TOKIO_MAX_TASKS);
	return STATUS_OK;
}

/* ---- windows --------------------------------------------------------------
 */

void tokio_state_roll(struct tokio_state *s)
{
	size_t i = 0;

	while (i < s->ntasks) {
		struct tokio_task *t = &s->tasks[i];
		uint64_t ignored;

		if ((t->flags & TOKIO_RETIRED) ||
		    ((t->s.flags & TOKIO_HAS_DROPPED) &&
		     t->s.dropped <= s->now)) {
			task_remove(s, i);
			continue;
		}
		tokio_stats_at(&t->s, s->now, &t->base, &ignored);
		t->base_self = t->s.self_wakes;
		t->flags |= TOKIO_HAS_BASE;
		i++;
	}
	s->start = s->now;
	s->have_start = true;
	s->dropped = 0;
	s->malformed = 0;
}

/* Task t's figures in the window; a task first seen in it, though created
 * before it, counts its life from the window's start. */
static void task_window(const struct tokio_state *s, const struct tokio_task *t,
                        struct sample *out)
{
	struct metrics base;
	uint64_t poll_now;
	int i;

	tokio_stats_at(&t->s, s->now, &out->m, &poll_now);
	memset(&base, 0, sizeof(base));
	if (t->flags & TOKIO_HAS_BASE)
		base = t->base;
	else
		base.v[METRIC_IDLE] = diff(s->start, t->s.created);
	for (i = 0; i < METRIC_COUNT; i++)
		out->m.v[i] =
		    out->m.v[i] > base.v[i] ? out->m.v[i] - base.v[i] : 0;
	out->x.v[EXTRA_SELF_WAKES] =
	    diff((int64_t)t->s.self_wakes,
	         (int64_t)((t->flags & TOKIO_HAS_BASE) ? t->base_self : 0));
	out->x.v[EXTRA_WAKERS] =
	    t->s.clones > t->s.drops ? t->s.clones - t->s.drops : 0;
	out->x.v[EXTRA_POLL_NOW] = poll_now;
	out->x.known =
	    1u << EXTRA_SELF_WAKES | 1u << EXTRA_WAKERS | 1u << EXTRA_POLL_NOW;
}

enum status tokio_state_emit(struct tokio_state *s,
                             const struct sample_sink *sink)
{
	size_t i;

	for (i = 0; i < s->ntasks; i++) {
		const struct tokio_task *t = &s->tasks[i];
		size_t depth = 0;
		struct sample smp = { .tasks = 1 };
		enum status st;

		if (!(t->flags & TOKIO_HAS_STATS))
			continue; /* nothing known of it yet */
		if ((t->s.flags & TOKIO_HAS_DROPPED) && s->have_start &&
		    t->s.dropped < s->start)
			continue; /* ended before the window */
		if (t->kind)
			s->frames[depth++] = intern_view(&s->strs, t->kind);
		if (t->loc)
			s->frames[depth++] = intern_view(&s->strs, t->loc);
		else if (depth)
			s->frames[depth++] =
			    reserved_name(RESERVED_SPAWN_UNKNOWN);
		smp.frames = s->frames;
		smp.depth = depth;
		smp.task = intern_view(&s->strs, t->name);
		task_window(s, t, &smp);
		st = sink->sample(sink->ctx, &smp);
		if (st != STATUS_OK && st != STATUS_LIMIT)
			return st;
	}
	return STATUS_OK;
}
