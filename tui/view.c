/* Table state: order, filter, selection by stack id, scrolling.  A filter
 * key picks rows out of a cached full order, the matching ones found with
 * the search index of tui/view_search.c. */
#include "tui/view.h"

#include <string.h>

#include "model/alloc.h"
#include "tui/view_search.h"

void view_init(struct view *v, enum metric metric)
{
	memset(v, 0, sizeof(*v));
	v->metric = metric;
	v->page = 1;
	order_init(&v->order);
	order_init(&v->all);
}

void view_fini(struct view *v)
{
	order_fini(&v->order);
	order_fini(&v->all);
	mem_free(v->match);
	view_index_free(v->ix);
	memset(v, 0, sizeof(*v));
}

/* o holds every row of w in the view's current order. */
static bool sorted(const struct view *v, const struct order *o,
                   const struct view_tag *t, const struct window *w)
{
	return view_tag_holds(t, w) && o->key == v->metric &&
	       o->descending == !v->ascending;
}

static void swap_orders(struct view *v)
{
	struct order o = v->order;
	struct view_tag t = v->order_tag;

	v->order = v->all;
	v->order_tag = v->all_tag;
	v->all = o;
	v->all_tag = t;
}

/* Brings match up to date for w and f (folded, len >= 1).  When it held
 * the rows of a shorter filter contained in f, only the rows it kept are
 * checked again; of a longer one containing f, only the rows it left.
 * When the index would be built mostly from nothing (no pause since '/'
 * let the steps between keys build it), the rows are scanned without it,
 * the build left to those steps. */
static enum status match_rows(struct view *v, const struct window *w,
                              const char *f, size_t len)
{
	size_t words = (w->nrows + 63) / 64;
	enum vsearch_rows how = VSEARCH_ALL;
	struct view_index *ix = v->ix;
	const uint32_t *ord;

	if (view_tag_holds(&v->match_tag, w)) {
		if (v->match_len == len && !memcmp(v->match_fold, f, len))
			return STATUS_OK;
		if (vsearch_find(f, len, v->match_fold, v->match_len))
			how = VSEARCH_SET;
		else if (vsearch_find(v->match_fold, v->match_len, f, len))
			how = VSEARCH_CLEAR;
	}
	if (!ix) {
		if (view_index_new(&v->ix) != STATUS_OK)
			return STATUS_NOMEM;
		ix = v->ix;
	}
	v->match_tag.ok = false;
	if (how == VSEARCH_ALL) {
		if (mem_grow(&v->match, &v->match_words, words,
		             sizeof(*v->match)) != STATUS_OK)
			return STATUS_NOMEM;
		memset(v->match, 0, words * sizeof(*v->match));
	}
	if (view_index_far(ix, v->m, w)) {
		if (view_index_scan(ix, v->m, w, f, len, v->match, how) !=
		    STATUS_OK)
			return STATUS_NOMEM;
	} else {
		if (!view_index_current(ix, v->m, w) &&
		    view_index_build(ix, v->m, w) != STATUS_OK)
			return STATUS_NOMEM;
		if (view_index_search(ix, f, len) != STATUS_OK)
			return STATUS_NOMEM;
		ord = view_index_order(ix);
		for (size_t e = 0; e < w->nrows; e++) {
			size_t r = ord[e];
			bool was = vsearch_bit(v->match, r);

			if ((how == VSEARCH_SET && !was) ||
			    (how == VSEARCH_CLEAR && was))
				continue;
			if (view_index_entry_hits(ix, e) != was)
				v->match[r / 64] ^= (uint64_t)1 << (r % 64);
		}
	}
	view_tag_set(&v->match_tag, w);
	memcpy(v->match_fold, f, len);
	v->match_len = len;
	return STATUS_OK;
}

/* order = every row of w, sorted (from the cache when it has them). */
static enum status build_all(struct view *v, const struct window *w)
{
	enum status st;

	if (sorted(v, &v->all, &v->all_tag, w)) {
		swap_orders(v);
		v->all_tag.ok = false;
		return STATUS_OK;
	}
	if (sorted(v, &v->order, &v->order_tag, w))
		return STATUS_OK;
	v->order_tag.ok = false;
	st = order_build(&v->order, w, v->metric, !v->ascending, NULL, NULL);
	if (st == STATUS_OK)
		view_tag_set(&v->order_tag, w);
	return st;
}

bool view_has_order(const struct view *v, const struct window *w)
{
	return w && (sorted(v, &v->all, &v->all_tag, w) ||
	             sorted(v, &v->order, &v->order_tag, w));
}

void view_adopt_order(struct view *v, const struct window *w, struct order *o)
{
	struct order t;

	if (o->key != v->metric || o->descending != !v->ascending ||
	    o->n != w->nrows)
		return;
	t = v->all;
	v->all = *o;
	*o = t;
	view_tag_set(&v->all_tag, w);
}

static bool keep_match(void *ctx, const struct window *w, size_t row)
{
	(void)w;
	return vsearch_bit(ctx, row);
}

/* order = the rows of w matching the filter: picked out of the full order
 * when one is at hand, else sorted alone (after a change of weighting, or
 * a new window). */
static enum status build_filtered(struct view *v, const struct window *w)
{
	char f[VIEW_FILTER_MAX];
	size_t len = v->filter_len < VIEW_FILTER_MAX ? v->filter_len
	                                             : VIEW_FILTER_MAX - 1;
	size_t n = 0;

	vsearch_fold_span(sv_n(v->filter, len), 0, len, f);
	if (match_rows(v, w, f, len) != STATUS_OK)
		return STATUS_NOMEM;
	if (!sorted(v, &v->all, &v->all_tag, w)) {
		if (!sorted(v, &v->order, &v->order_tag, w)) {
			v->order_tag.ok = false;
			return order_build(&v->order, w, v->metric,
			                   !v->ascending, keep_match, v->match);
		}
		swap_orders(v);
	}
	v->order_tag.ok = false;
	if (mem_grow(&v->order.idx, &v->order.cap, v->all.n,
	             sizeof(*v->order.idx)) != STATUS_OK)
		return STATUS_NOMEM;
	for (size_t i = 0; i < v->all.n; i++)
		if (vsearch_bit(v->match, v->all.idx[i]))
			v->order.idx[n++] = v->all.idx[i];
	v->order.n = n;
	v->order.key = v->metric;
	v->order.descending = !v->ascending;
	return STATUS_OK;
}

static void follow(struct view *v)
{
	size_t n = v->order.n;

	if (!n) {
		v->sel = v->top = 0;
		return;
	}
	if (v->sel >= n)
		v->sel = n - 1;
	if (v->sel < v->top)
		v->top = v->sel;
	if (v->sel >= v->top + v->page)
		v->top = v->sel + 1 - v->page;
	if (n > v->page && v->top > n - v->page)
		v->top = n - v->page;
	if (n <= v->page)
		v->top = 0;
	v->has_sel = true;
	v->sel_stack = v->w->rows[v->order.idx[v->sel]].stack;
}

enum status view_build(struct view *v, const struct model *m,
                       const struct window *w)
{
	enum status st;

	v->m = m;
	v->w = w;
	if (!w) {
		v->order.n = 0;
		v->order_tag.ok = false;
		v->sel = v->top = 0;
		return STATUS_OK;
	}
	st = v->filter_len ? build_filtered(v, w) : build_all(v, w);
	if (st != STATUS_OK) {
		v->order.n = 0;
		v->order_tag.ok = false;
		v->sel = v->top = 0;
		return st;
	}
	if (v->has_sel) {
		size_t pos = order_find(&v->order, w, v->sel_stack);
		if (pos != SIZE_MAX)
			v->sel = pos;
	}
	follow(v);
	return STATUS_OK;
}

void view_set_page(struct view *v, size_t rows)
{
	v->page = rows ? rows : 1;
	if (v->w)
		follow(v);
}

void view_move(struct view *v, long delta)
{
	size_t n = v->order.n;

	if (!n)
		return;
	if (delta < 0)
		v->sel = (size_t)-delta > v->sel ? 0 : v->sel - (size_t)-delta;
	else
		v->sel = (size_t)delta >= n - v->sel ? n - 1
		                                     : v->sel + (size_t)delta;
	follow(v);
}

void view_select(struct view *v, size_t pos)
{
	if (!v->order.n)
		return;
	v->sel = pos;
	follow(v);
}

void view_scroll(struct view *v, long delta)
{
	size_t n = v->order.n, maxtop;

	if (n <= v->page)
		return;
	maxtop = n - v->page;
	if (delta < 0)
		v->top = (size_t)-delta > v->top ? 0 : v->top - (size_t)-delta;
	else
		v->top = (size_t)delta >= maxtop - v->top
		             ? maxtop
		             : v->top + (size_t)delta;
	if (v->sel < v->top)
		v->sel = v->top;
	if (v->sel >= v->top + v->page)
		v->sel = v->top + v->page - 1;
	v->sel_stack = v->w->rows[v->order.idx[v->sel]].stack;
}

size_t view_row_at(const struct view *v, size_t pos)
{
	return pos < v->order.n ? v->order.idx[pos] : SIZE_MAX;
}
