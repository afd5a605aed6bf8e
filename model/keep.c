/* Keeping a built window and letting old ones go: the steps of a commit
 * (model_build_*), eviction past the bounds, and the release of an evicted
 * window's references a slice at a time (docs/design.md §15). */
#include <string.h>

#include "model/alloc.h"
#include "model/commit.h"
#include "model/model.h"
#include "model/model_int.h"

/* Drops the references of rows [*row, ...) of w while *budget (entries)
 * lasts; *row gets where it stopped.  True when all are dropped. */
static bool unref_rows(struct model *m, const struct window *w, size_t *row,
                       size_t *budget)
{
	for (; *row < w->nrows && *budget; (*row)++) {
		const struct fold_row *r = &w->rows[*row];
		struct intern_slot *s;
		for (uint32_t i = r->first; i < r->first + r->count; i++) {
			uint32_t name = w->entries[i].name;
			uint32_t parked = w->entries[i].parked;
			if (intern_unref(&m->names, name))
				intern_remove(&m->names, name, true);
			if (intern_unref(&m->stacks, parked))
				model_stack_release(m, parked, true);
		}
		/* one reference per entry, dropped all at once */
		s = intern_slot(&m->stacks, r->stack);
		s->refs -= r->count;
		if (s->refs == 0)
			model_stack_release(m, r->stack, true);
		*budget -= size_min(*budget, r->count);
	}
	return *row == w->nrows;
}

/* Whether the oldest window must go: past max_windows or the budget (the
 * newest is always kept). */
static bool over(const struct model *m)
{
	return m->ring.count > 1 && (m->ring.count > m->lim.max_windows ||
	                             model_bytes_used(m) > m->lim.mem_budget);
}

bool model_reclaim(struct model *m, size_t budget)
{
	if (!m)
		return false;
	if (m->open) /* its entries hold no references yet */
		return m->retired || over(m);
	while (budget) {
		if (!m->retired) {
			/* one at a time: the strings only it used go first,
			 * so the budget is checked against what remains */
			if (!over(m))
				return false;
			m->retired = ring_pop(&m->ring);
			m->rrow = 0;
			m->evicted++;
		}
		if (!unref_rows(m, &m->retired->pub, &m->rrow, &budget))
			return true;
		mem_free(m->retired);
		m->retired = NULL;
	}
	return m->retired || over(m);
}

struct model_build {
	struct commit_in in;
	const struct window_meta *meta;
	struct window_priv *w;
	enum status st;
};

enum status model_build_begin(struct model *m, const struct window_meta *meta,
                              struct model_build **out)
{
	struct model_build *b;

	*out = NULL;
	if (!m || !m->open || m->building)
		return STATUS_INVAL;
	/* the slot for the window, so that nothing fails when it is kept */
	if (ring_reserve(&m->ring))
		return STATUS_NOMEM;
	b = mem_calloc(1, sizeof(*b));
	if (!b)
		return STATUS_NOMEM;
	b->in = (struct commit_in){
		.ent = m->ent,
		.nent = m->nent,
		.xs = m->xs,
		.nxs = m->nxs,
		.stacks = &m->stacks,
		.names = &m->names,
		.prev =
		    m->ring.count ? ring_at(&m->ring, m->ring.count - 1) : NULL,
		.max_name = m->lim.max_name,
		.any_parked = m->any_parked,
		.not_parked = m->not_parked,
		.stats = m->cur,
	};
	b->meta = meta;
	b->st = STATUS_INVAL;
	m->building = true;
	*out = b;
	return STATUS_OK;
}

void model_build_run(struct model_build *b)
{
	b->st = commit_build(&b->in, b->meta, &b->w);
}

const struct window *model_build_window(const struct model_build *b)
{
	return b->st == STATUS_OK ? &b->w->pub : NULL;
}

enum status model_build_end(struct model *m, struct model_build *b,
                            const struct window **out)
{
	struct window_priv *w = b->w;
	enum status st = b->st;

	if (out)
		*out = NULL;
	m->building = false;
	mem_free(b);
	if (st != STATUS_OK)
		return st; /* the window stays open */
	w->pub.seq = ++m->committed;
	ring_push(&m->ring, w);
	/* A table grown for a burst is given back; a steady one is reused. */
	if (m->idx_cap > 1024 && m->nent * 8 < m->idx_cap) {
		mem_free(m->ent);
		mem_free(m->idx);
		mem_free(m->xs);
		m->ent = NULL;
		m->idx = NULL;
		m->xs = NULL;
		m->ent_cap = m->idx_cap = m->xs_cap = 0;
	}
	m->nent = 0;
	m->open = false;
	if (out)
		*out = &w->pub;
	return w->pub.empty ? STATUS_EMPTY_WINDOW : STATUS_OK;
}

enum status model_commit(struct model *m, const struct window_meta *meta,
                         const struct window **out)
{
	struct model_build *b;
	enum status st;

	if (out)
		*out = NULL;
	st = model_build_begin(m, meta, &b);
	if (st != STATUS_OK)
		return st;
	model_build_run(b);
	st = model_build_end(m, b, out);
	if (st == STATUS_OK || st == STATUS_EMPTY_WINDOW) {
		while (model_reclaim(m, SIZE_MAX))
			;
	}
	return st;
}
