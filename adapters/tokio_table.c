/* The tokio adapter's tables: tasks keyed by span id, metadata keyed by
 * its id, the strings both name, and stats parked until their task is
 * announced. */
#include "adapters/tokio_int.h"

#include <string.h>

#include "model/alloc.h"

/* ---- the table of tasks -------------------------------------------------- */

static uint32_t id_hash(uint64_t id)
{
	return hash_fold32(hash_mix64(id));
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
	uint32_t id = hash_table_find(&s->spans, id_hash(span), span_eq, &q);

	return id ? &s->tasks[id - 1] : NULL;
}

static void str_drop(struct tokio_state *s, uint32_t id)
{
	if (id && intern_unref(&s->strs, id))
		intern_remove(&s->strs, id, true);
}

uint32_t tokio_str_take(struct tokio_state *s, struct strview v)
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

void tokio_task_remove(struct tokio_state *s, size_t i)
{
	struct tokio_task *t = &s->tasks[i];
	size_t last = s->ntasks - 1;

	if (!(t->flags & TOKIO_RETIRED))
		hash_table_remove(&s->spans, id_hash(t->span),
		                  (uint32_t)(i + 1));
	str_drop(s, t->name);
	str_drop(s, t->kind);
	str_drop(s, t->loc);
	if (i != last) {
		struct tokio_task *m = &s->tasks[last];

		if (!(m->flags & TOKIO_RETIRED)) {
			uint32_t h = id_hash(m->span);

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
		tokio_task_remove(s, s->ntasks - 1);
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

/* ---- metadata ------------------------------------------------------------ */

static bool meta_eq(const void *ctx, uint32_t id, const void *key)
{
	const struct probe *q = ctx;

	(void)key;
	return q->s->meta[id - 1].id == q->id;
}

const struct tokio_meta *tokio_meta_find(const struct tokio_state *s,
                                         uint64_t id)
{
	struct probe q = { s, id };
	uint32_t k = hash_table_find(&s->metas, id_hash(id), meta_eq, &q);

	return k ? &s->meta[k - 1] : NULL;
}

enum status tokio_meta_add(struct tokio_state *s, uint64_t id,
                           char *const *names, size_t nnames)
{
	struct tokio_meta *m;
	size_t i, n;

	if (tokio_meta_find(s, id))
		return STATUS_OK; /* metadata never changes */
	if (s->nmeta >= TOKIO_MAX_META) {
		s->malformed++;
		return STATUS_OK;
	}
	if (mem_grow(&s->meta, &s->capmeta, s->nmeta + 1, sizeof(*s->meta)) !=
	        STATUS_OK ||
	    hash_table_reserve(&s->metas, 1) != STATUS_OK)
		return STATUS_NOMEM;
	n = size_min(nnames, TOKIO_MAX_FIELDS);
	m = &s->meta[s->nmeta];
	m->id = id;
	m->n = 0;
	m->names = n ? mem_calloc(n, sizeof(*m->names)) : NULL;
	if (n && !m->names)
		return STATUS_NOMEM;
	for (i = 0; i < n; i++)
		m->names[m->n++] = tokio_str_take(s, sv_c(names[i]));
	s->nmeta++;
	hash_table_insert(&s->metas, id_hash(id), (uint32_t)s->nmeta, NULL);
	return STATUS_OK;
}

/* ---- tasks announced and their stats ------------------------------------- */

enum status tokio_task_new(struct tokio_state *s, uint64_t span,
                           struct tokio_task **out)
{
	struct tokio_task *t, *old;
	size_t i;

	old = task_find(s, span);
	if (old) {
		size_t k = (size_t)(old - s->tasks);

		hash_table_remove(&s->spans, id_hash(span), (uint32_t)(k + 1));
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
	hash_table_insert(&s->spans, id_hash(span), (uint32_t)(s->ntasks + 1),
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
	*out = t;
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

enum status tokio_task_stats(struct tokio_state *s, uint64_t span,
                             const struct tokio_stats *st)
{
	struct tokio_task *t = task_find(s, span);

	if (!t)
		return park(s, span, st);
	t->s = *st;
	t->flags |= TOKIO_HAS_STATS;
	return STATUS_OK;
}
