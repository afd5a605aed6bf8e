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

/* v's order complete: every position in place. */
static void whole(struct view *v)
{
	v->in_lo = 0;
	v->in_hi = v->order.n;
}

/* How many of the first n bits of b are set. */
static size_t bits_set(const uint64_t *b, size_t n)
{
	size_t c = 0;

	for (size_t i = 0; i < (n + 63) / 64; i++) {
		uint64_t x = b[i];

		if (n - 64 * i < 64)
			x &= ((uint64_t)1 << (n - 64 * i)) - 1;
		x -= (x >> 1) & 0x5555555555555555u;
		x = (x & 0x3333333333333333u) +
		    ((x >> 2) & 0x3333333333333333u);
		x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0Fu;
		c += (size_t)((x * 0x0101010101010101u) >> 56);
	}
	return c;
}

/* The full order the positions in place of v's order are part of, when
 * v->all holds it (sorted between keys), taken: then all are in place.
 * The filter's hits in part are picked out of it (the same rows as the
 * keys read, match unchanged since: else it is left). */
static bool take_all(struct view *v)
{
	const struct order *a = &v->all;
	struct order *o = &v->order;
	size_t n = 0;

	if (!view_tag_holds(&v->all_tag, v->w) || a->key != o->key ||
	    a->descending != o->descending || a->n != v->w->nrows)
		return false;
	if (!v->part_hits) {
		if (a->n != o->n)
			return false;
		swap_orders(v);
		v->all_tag.ok = false;
		view_tag_set(&v->order_tag, v->w);
		whole(v);
		return true;
	}
	if (bits_set(v->match, a->n) != o->n)
		return false;
	for (size_t i = 0; i < a->n; i++)
		if (vsearch_bit(v->match, a->idx[i]))
			o->idx[n++] = a->idx[i];
	whole(v);
	return true;
}

/* At least positions lo to hi (clamped to the rows) in place: selected
 * again (order_range) with room about them, twice as much as the last
 * time so that paging on selects seldom, or all sorted past a quarter
 * of the rows (order_sort: cannot fail). */
static void in_place(struct view *v, size_t lo, size_t hi)
{
	size_t n = v->order.n, span = VIEW_SELECT, got = 0, from = 0;

	hi = hi < n ? hi : n;
	lo = lo < hi ? lo : (hi ? hi - 1 : 0);
	if (!n || (lo >= v->in_lo && hi <= v->in_hi) || take_all(v))
		return;
	while (span < 2 * (hi - lo) || span <= 2 * (v->in_hi - v->in_lo))
		span *= 2;
	lo = lo > span / 4 ? lo - span / 4 : 0;
	hi = n - hi > span / 4 ? hi + span / 4 : n;
	if (hi - lo < n / 4)
		got = order_range(&v->order, lo, hi, &from);
	if (got) {
		v->in_lo = from;
		v->in_hi = got;
		return;
	}
	/* from the keys read: the rows are not read again */
	order_sort(&v->order);
	if (!v->part_hits)
		view_tag_set(&v->order_tag, v->w);
	whole(v);
}

/* The positions the page may show when the selection is at sel (follow
 * leaves the page's top at most a page before it) in place. */
static void about(struct view *v, size_t sel)
{
	in_place(v, sel >= v->page ? sel + 1 - v->page : 0,
	         size_add_sat(sel, v->page));
}

/* The selection in v's order, read from the keys (order_rank), put
 * back on the stack it was on when kept, else where it was (clamped),
 * and the positions about its page put in place. */
static void place(struct view *v, const struct window *w)
{
	size_t row, pos = v->sel, n = v->order.n;

	if (v->has_sel &&
	    (row = window_find_row(w, v->sel_stack)) != SIZE_MAX &&
	    (row = order_rank(&v->order, row)) != SIZE_MAX)
		pos = row;
	v->sel = pos < n ? pos : (n ? n - 1 : 0);
	about(v, v->sel);
}

/* order = every row of w, only the positions about the selection's page
 * in place: the selection's position counted from the keys (the stack it
 * was on, else where it was), the rest left to in_place. */
static enum status build_top(struct view *v, const struct window *w)
{
	if (!view_partial(v, w) || v->part_hits || v->order.key != v->metric ||
	    v->order.descending == v->ascending) {
		enum status st =
		    order_keys(&v->order, w, v->metric, !v->ascending);

		if (st != STATUS_OK)
			return st;
		v->part_hits = false;
		v->in_lo = v->in_hi = 0;
		view_tag_set(&v->part_tag, w);
	}
	place(v, w);
	return STATUS_OK;
}

/* order = the rows of w that match (v->match), only the positions about
 * the selection's page in place, as build_top: the keys of a part of w
 * in this order (every row, or the hits of a filter the key narrowed)
 * kept for the hits, no row read, when they hold every hit; else only
 * the hits' keys read. */
static enum status build_hits(struct view *v, const struct window *w)
{
	size_t kept = 0;
	bool narrowed = false;
	enum status st;

	if (view_partial(v, w) && v->order.key == v->metric &&
	    v->order.descending == !v->ascending) {
		st = order_keys_narrow(&v->order, v->match, &kept);
		if (st != STATUS_OK)
			return st;
		narrowed = kept == bits_set(v->match, w->nrows);
	}
	if (!narrowed) {
		st = order_keys_in(&v->order, w, v->metric, !v->ascending,
		                   v->match);
		if (st != STATUS_OK)
			return st;
	}
	v->part_hits = true;
	v->in_lo = v->in_hi = 0;
	view_tag_set(&v->part_tag, w);
	place(v, w);
	return STATUS_OK;
}

/* order = every row of w, sorted (from the cache when it has them); of a
 * large window without them, only a part (build_top). */
static enum status build_all(struct view *v, const struct window *w, bool *part)
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
	if (w->nrows >= 4 * VIEW_SELECT && w->nrows <= UINT32_MAX) {
		*part = true;
		return build_top(v, w);
	}
	st = order_build(&v->order, w, v->metric, !v->ascending, NULL, NULL);
	if (st == STATUS_OK)
		view_tag_set(&v->order_tag, w);
	return st;
}

bool view_partial(const struct view *v, const struct window *w)
{
	return w && (v->in_lo || v->in_hi < v->order.n) &&
	       view_tag_holds(&v->part_tag, w);
}

void view_complete(struct view *v)
{
	if (v->w && view_partial(v, v->w))
		in_place(v, 0, v->order.n);
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
	/* a part in place of the same order: whole now (of another
	 * weighting, left to the build that shows this one) */
	if (v->w == w && view_partial(v, w))
		(void)take_all(v);
}

static bool keep_match(void *ctx, const struct window *w, size_t row)
{
	(void)w;
	return vsearch_bit(ctx, row);
}

/* order = the rows of w matching the filter: picked out of the full order
 * when one is at hand, else, of a large window, only those about the
 * selection's page put in place (build_hits), or all sorted alone. */
static enum status build_filtered(struct view *v, const struct window *w,
                                  bool *part)
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
			if (w->nrows >= 4 * VIEW_SELECT &&
			    w->nrows <= UINT32_MAX) {
				*part = true;
				return build_hits(v, w);
			}
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
	bool part = false;
	enum status st;

	v->m = m;
	v->w = w;
	if (!w) {
		v->order.n = v->in_lo = v->in_hi = 0;
		v->order_tag.ok = false;
		v->sel = v->top = 0;
		return STATUS_OK;
	}
	st = v->filter_len ? build_filtered(v, w, &part)
	                   : build_all(v, w, &part);
	if (st != STATUS_OK) {
		v->order.n = v->in_lo = v->in_hi = 0;
		v->part_tag.ok = false;
		v->order_tag.ok = false;
		v->sel = v->top = 0;
		return st;
	}
	/* in part: build_top placed the selection already */
	if (!part) {
		v->in_lo = 0;
		v->in_hi = v->order.n;
		v->part_tag.ok = false;
	}
	if (v->has_sel && !part) {
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
	if (v->w) {
		about(v, v->sel);
		follow(v);
	}
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
	about(v, v->sel);
	follow(v);
}

void view_select(struct view *v, size_t pos)
{
	if (!v->order.n)
		return;
	v->sel = pos < v->order.n ? pos : v->order.n - 1;
	about(v, v->sel);
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
	in_place(v, v->top, size_add_sat(v->top, v->page));
	if (v->sel < v->top)
		v->sel = v->top;
	if (v->sel >= v->top + v->page)
		v->sel = v->top + v->page - 1;
	v->sel_stack = v->w->rows[v->order.idx[v->sel]].stack;
}

size_t view_row_at(const struct view *v, size_t pos)
{
	return pos < v->order.n && pos >= v->in_lo && pos < v->in_hi
	           ? v->order.idx[pos]
	           : SIZE_MAX;
}
