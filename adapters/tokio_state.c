/* The tokio adapter's decoding: console-api Updates unpacked with
 * protobuf-c into the arena (tokio_arena.c) and applied to the tables of
 * tasks and metadata (tokio_table.c); docs/tokio.md. */
#include "adapters/tokio_int.h"

#include <stdio.h>
#include <string.h>

#include "adapters/tokio/instrument.pb-c.h"

#define NS_PER_S 1000000000LL
/* Timestamps past this many seconds (year ~2262) would overflow ns. */
#define MAX_SECONDS 9223372035LL

typedef Rs__Tokio__Console__Instrument__Update pb_update;
typedef Rs__Tokio__Console__Tasks__Task pb_task;
typedef Rs__Tokio__Console__Tasks__Stats pb_stats;
typedef Rs__Tokio__Console__Common__Field pb_field;
typedef Rs__Tokio__Console__Common__Location pb_location;

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
	m = tokio_meta_find(s, meta_id);
	if (!m || f->name_idx >= m->n) {
		s->malformed++;
		return sv_n("", 0);
	}
	return intern_view(&s->strs, m->names[f->name_idx]);
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

		t->name = tokio_str_take(s, sv_n(id, k < 0 ? 0 : (size_t)k));
	} else {
		t->name = tokio_str_take(s, name);
	}
	t->kind = tokio_str_take(s, kind);
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
		t->loc = tokio_str_take(s, sv_n(text, n));
	} else if (where.len) {
		n = tokio_location(text, sizeof(text), where, false, 0, false,
		                   0);
		t->loc = tokio_str_take(s, sv_n(text, n));
	}
}

/* Adds a task for a new_tasks entry; a live task of the same span id is
 * retired first (it ends at its drop, else at now). */
static enum status task_add(struct tokio_state *s, const pb_task *p)
{
	struct tokio_task *t;
	enum status st;

	if (!p->id || !p->id->id) {
		s->malformed++;
		return STATUS_OK;
	}
	st = tokio_task_new(s, p->id->id, &t);
	if (st == STATUS_OK)
		task_describe(s, p, t);
	return st;
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

		const Rs__Tokio__Console__Common__Metadata *md;

		if (!nm->id) {
			s->malformed++;
			continue;
		}
		md = nm->metadata;
		if (md && tokio_meta_add(s, nm->id->id, md->field_names,
		                         md->n_field_names) != STATUS_OK)
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

		if (!e->value) {
			s->malformed++;
			continue;
		}
		stats_read(s, e->value, &stats);
		if (tokio_task_stats(s, e->key, &stats) != STATUS_OK)
			return STATUS_NOMEM;
	}
	return st;
}

enum status tokio_state_apply(struct tokio_state *s, const uint8_t *p, size_t n,
                              char *err, size_t errsz)
{
	ProtobufCAllocator mem = {
		.alloc = tokio_arena_alloc,
		.free = tokio_arena_free,
		.allocator_data = &s->arena,
	};
	pb_update *u;
	enum status st;

	u = rs__tokio__console__instrument__update__unpack(&mem, n, p);
	if (!u) {
		st = s->arena.nomem ? STATUS_NOMEM : STATUS_MALFORMED;
		tokio_arena_release(&s->arena);
		return status_errf(
		    err, errsz, st,
		    "%zu bytes that are not a console-api Update "
		    "(corrupt, or not a console-subscriber)",
		    n);
	}
	if (!u->now) {
		tokio_arena_release(&s->arena);
		return status_errf(err, errsz, STATUS_MALFORMED,
		                   "an Update of %zu bytes without its `now` "
		                   "timestamp",
		                   n);
	}
	st = apply(s, u);
	tokio_arena_release(&s->arena);
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
