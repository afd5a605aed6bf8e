/* The tree's rows' frames, looked up all at once or one by one. */
#include "tui/view_tree.h"

#include <string.h>

#include "model/alloc.h"
#include "tui/grouped.h"

/* The most frames a window's rows copy side by side (64 MiB); past it
 * the rows point into the model's stacks. */
#define FRAMES_MAX ((size_t)1 << 24)
/* How far on a stack of the window before is looked for in turn. */
#define PREV_NEAR 64
/* Stacks not found so near one after the other that say the rows of the
 * window before were left behind (a run of its stacks gone, longer than
 * PREV_NEAR rows: every stack after would miss too): the next is looked
 * for PREV_FAR rows on (once: most misses are new stacks), and past
 * PREV_LOST misses in a row, indexed. */
#define PREV_ASTRAY 4
#define PREV_FAR    4096
#define PREV_LOST   16

/* Keeps the rows just made (copied) as the window before's: the arrays
 * change places, so the next rows are made into the older ones. */
static void keep_prev(struct tree *t, size_t n)
{
	struct tree_prev *p = &t->prev;
	const uint32_t **rowf = t->rowf;
	uint32_t *rowd = t->rowd, *frames = t->frames, *stacks = t->stacks;
	uint32_t *fresh = t->fresh;
	struct tree_index x;
	size_t c;

	t->rowf = p->rowf;
	p->rowf = rowf;
	t->rowd = p->rowd;
	p->rowd = rowd;
	t->frames = p->frames;
	p->frames = frames;
	t->stacks = p->stacks;
	p->stacks = stacks;
	t->fresh = p->fresh;
	p->fresh = fresh;
	c = t->rowf_cap, t->rowf_cap = p->rowf_cap, p->rowf_cap = c;
	c = t->rowd_cap, t->rowd_cap = p->rowd_cap, p->rowd_cap = c;
	c = t->frames_cap, t->frames_cap = p->frames_cap, p->frames_cap = c;
	c = t->stacks_cap, t->stacks_cap = p->stacks_cap, p->stacks_cap = c;
	c = t->fresh_cap, t->fresh_cap = p->fresh_cap, p->fresh_cap = c;
	/* the copy's index (whole when the steps made it) goes with it */
	x = t->index;
	t->index = p->index;
	p->index = x;
	p->n = n;
	p->far = p->lost = 0;
	p->least = t->rows_least;
	p->most = t->rows_most;
}

static size_t slot_of(uint32_t stack, size_t mask)
{
	return (size_t)(((uint64_t)stack * 0x9E3779B97F4A7C15u) >> 32) & mask;
}

/* Begins the index of rows [0, n) of stacks (their stacks' first rows: a
 * stack split by name has its rows side by side, and only the first is
 * put, so the table is sized by stacks), empty; false out of memory. */
static bool index_begin(struct tree_index *x, const uint32_t *stacks, size_t n)
{
	size_t cap = 16, heads = 0;

	for (size_t r = 0; r < n; r++)
		heads += !r || stacks[r] != stacks[r - 1];
	while (cap < 2 * heads)
		cap *= 2;
	x->whole = false;
	x->next = 0;
	if (mem_grow(&x->v, &x->cap, cap, sizeof(*x->v)))
		return false;
	x->begun = true;
	x->mask = cap - 1;
	memset(x->v, 0xff, cap * sizeof(*x->v));
	return true;
}

/* Puts the rows from x->next to end of stacks into x (begun). */
static void index_put(struct tree_index *x, const uint32_t *stacks, size_t end)
{
	for (size_t r = x->next; r < end; r++) {
		size_t i;

		if (r && stacks[r] == stacks[r - 1])
			continue;
		i = slot_of(stacks[r], x->mask);
		while (x->v[i] != UINT64_MAX &&
		       (uint32_t)(x->v[i] >> 32) != stacks[r])
			i = (i + 1) & x->mask;
		if (x->v[i] == UINT64_MAX)
			x->v[i] = (uint64_t)stacks[r] << 32 | (uint32_t)r;
	}
	x->next = end;
}

/* Indexes the window before's rows by stack at once (the lookup's, when
 * the steps did not); false out of memory. */
static bool index_prev(struct tree_prev *p)
{
	if (!index_begin(&p->index, p->stacks, p->n))
		return false;
	index_put(&p->index, p->stacks, p->n);
	p->index.whole = true;
	return true;
}

/* Row i of the window before, found: *at goes past its stack's rows (split
 * by name, side by side), where the next stack is looked for first. */
static uint32_t prev_found(struct tree_prev *p, size_t i, size_t *at)
{
	size_t e = i + 1;

	while (e < p->n && p->stacks[e] == p->stacks[i])
		e++;
	*at = e;
	p->lost = 0;
	return (uint32_t)i;
}

/* The row of the window before with stack, UINT32_MAX when none: the one
 * after the last found (*at) when it is; none when stack is outside the
 * window before's least and greatest (ids follow the order of arrival,
 * so a new stack is greater than all its stacks: it is not looked for,
 * nor counted as a miss); else by the index when it is
 * made (between keys, or here before); without it, a few rows on (the
 * rows of both are in stack text order, most stacks in both: a stack
 * gone from between), or farther on once after a few misses in a row (a
 * run of stacks gone), and the index is made here once the stacks not
 * found so are more than an eighth (new ones) or PREV_LOST in a row (the
 * window before's rows left far behind). */
static uint32_t prev_row(struct tree_prev *p, uint32_t stack, size_t *at)
{
	size_t i;

	if (*at < p->n && p->stacks[*at] == stack)
		return prev_found(p, *at, at);
	if (!p->n || stack < p->least || stack > p->most)
		return UINT32_MAX;
	if (!p->index.whole) {
		size_t reach = p->lost == PREV_ASTRAY ? PREV_FAR : PREV_NEAR;

		for (i = *at + 1; i < p->n && i <= *at + reach; i++)
			if (p->stacks[i] == stack)
				return prev_found(p, i, at);
		if ((++p->far <= p->n / 8 && ++p->lost <= PREV_LOST) ||
		    !index_prev(p))
			return UINT32_MAX;
	}
	for (i = slot_of(stack, p->index.mask); p->index.v[i] != UINT64_MAX;
	     i = (i + 1) & p->index.mask)
		if ((uint32_t)(p->index.v[i] >> 32) == stack)
			return prev_found(p, (uint32_t)p->index.v[i], at);
	return UINT32_MAX;
}

/* Makes room for the running sums of t's window, their first row zero
 * when none is summed yet.  STATUS_NOMEM. */
static enum status sums_room(struct tree *t)
{
	size_t n = t->w->nrows;

	if (n >= SIZE_MAX / sizeof(*t->pre) / TREE_SUMS - 1 ||
	    mem_grow(&t->pre, &t->pre_cap, (n + 1) * TREE_SUMS,
	             sizeof(*t->pre)))
		return STATUS_NOMEM;
	if (!t->sums_next) {
		for (int k = 0; k < TREE_SUMS; k++)
			t->pre[k] = 0;
		t->sums_wrapped = 0;
	}
	return STATUS_OK;
}

/* Adds row r's figures to the running sums (the rows before it summed):
 * the row's sums follow the row before's in memory. */
static inline void sum_row(struct tree *t, size_t r)
{
	const struct fold_row *row = &t->w->rows[r];
	const uint64_t *p = t->pre + r * TREE_SUMS;
	uint64_t *q = t->pre + (r + 1) * TREE_SUMS;

	for (int k = 0; k < METRIC_COUNT; k++) {
		q[k] = p[k] + row->m.v[k];
		t->sums_wrapped |= (unsigned)(q[k] < p[k]) << k;
	}
	q[METRIC_COUNT] = p[METRIC_COUNT] + row->tasks;
}

enum status tree_sums(struct tree *t)
{
	size_t n = t->w ? t->w->nrows : 0;

	if (t->sums_next >= n)
		return STATUS_OK;
	if (sums_room(t) != STATUS_OK)
		return STATUS_NOMEM;
	for (size_t r = t->sums_next; r < n; r++)
		sum_row(t, r);
	t->sums_next = n;
	return STATUS_OK;
}

/* Begins the rows of t's window: the copy of the window before kept (when
 * it was made whole), the arrays grown to the window's rows.
 * STATUS_NOMEM. */
static enum status rows_begin(struct tree *t)
{
	size_t n = t->w->nrows + 1;

	if (t->copied)
		keep_prev(t, t->ncopied);
	t->copied = false;
	if (mem_grow(&t->rowf, &t->rowf_cap, n, sizeof(*t->rowf)) ||
	    mem_grow(&t->rowd, &t->rowd_cap, n, sizeof(*t->rowd)) ||
	    mem_grow(&t->stacks, &t->stacks_cap, n, sizeof(*t->stacks)) ||
	    mem_grow(&t->fresh, &t->fresh_cap, n, sizeof(*t->fresh)) ||
	    sums_room(t) != STATUS_OK)
		return STATUS_NOMEM;
	t->fresh[0] = 0;
	t->index.whole = t->index.begun = false;
	t->index.next = 0;
	t->rows_next = t->rows_frames = t->rows_at = t->prev.lost = 0;
	t->rows_least = UINT32_MAX;
	t->rows_most = 0;
	t->rows_copying = false;
	t->rows_begun = true;
	return STATUS_OK;
}

/* Looks the frames of rows [rows_next, end) up: a stack split by name
 * takes the row before's, one the window before had that window's copy,
 * a new one the model's; and sums them. */
/* The frames row r (of depth d) adds to the tree after row r - 1: those
 * past the prefix they share (rows in stack text order: the longest it
 * shares with any row before it). */
static uint32_t adds(const struct tree *t, size_t r, uint32_t d)
{
	const uint32_t *a, *b = t->rowf[r];
	uint32_t pd, k = 0;

	if (!r)
		return d;
	a = t->rowf[r - 1];
	pd = t->rowd[r - 1];
	while (k < d && k < pd && a[k] == b[k])
		k++;
	return d - k;
}

static void look_up(struct tree *t, size_t end)
{
	const struct window *w = t->w;
	const struct tree_prev *pv = &t->prev;
	/* summed here unless the flame summed them all (the row is read) */
	bool sum = t->sums_next == t->rows_next;

	for (size_t r = t->rows_next; r < end; r++) {
		uint32_t s = w->rows[r].stack, p, add;
		size_t d = 0;

		if (sum)
			sum_row(t, r);
		t->stacks[r] = s;
		t->rows_least = s < t->rows_least ? s : t->rows_least;
		t->rows_most = s > t->rows_most ? s : t->rows_most;
		if (r && s == t->stacks[r - 1]) { /* split by name */
			t->rowf[r] = t->rowf[r - 1];
			d = t->rowd[r - 1];
			add = 0;
		} else if ((p = prev_row(&t->prev, s, &t->rows_at)) !=
		           UINT32_MAX) {
			t->rowf[r] = pv->rowf[p];
			d = pv->rowd[p];
			/* between the same stacks there: what it added there */
			add = r && p && pv->stacks[p - 1] == t->stacks[r - 1]
			          ? pv->fresh[p + 1] - pv->fresh[p]
			          : adds(t, r, (uint32_t)d);
		} else {
			t->rowf[r] = model_stack(t->m, s, &d);
			add = adds(t, r, (uint32_t)d);
		}
		t->rowd[r] = (uint32_t)d;
		t->fresh[r + 1] = t->fresh[r] + add;
		t->rows_frames += d;
	}
	if (sum)
		t->sums_next = end;
	t->rows_next = end;
}

/* Copies the frames of rows [copy_next, end) side by side in row order
 * and points their rowf at the copy: the scans of rows under a frame then
 * read them in turn instead of chasing each row's stack.  The rows not
 * copied yet still point where they were found. */
static void copy_rows(struct tree *t, size_t end)
{
	for (size_t r = t->copy_next; r < end; r++) {
		if (t->rowd[r])
			memcpy(t->frames + t->copy_at, t->rowf[r],
			       t->rowd[r] * sizeof(*t->frames));
		t->rowf[r] = t->frames + t->copy_at;
		t->copy_at += t->rowd[r];
	}
	t->copy_next = end;
}

/* The rows are looked up (a key may read them now): their copy side by
 * side begins, unless past FRAMES_MAX or out of memory (they then keep
 * pointing into the model's stacks or the copy of the window before). */
static void looked_up(struct tree *t)
{
	t->rows_known = true;
	t->rows_begun = false;
	t->copy_next = t->copy_at = 0;
	t->rows_copying =
	    t->rows_frames <= FRAMES_MAX &&
	    mem_grow(&t->frames, &t->frames_cap, t->rows_frames + 1,
	             sizeof(*t->frames)) == STATUS_OK;
}

/* At most left of the rows from at to n. */
static size_t upto(size_t at, size_t n, size_t *left)
{
	size_t k = n - at < *left ? n - at : *left;

	*left -= k;
	return at + k;
}

/* The rows are copied and their index by stack is not whole: what the
 * step that finishes the copy makes (the next window's lookup finds it
 * made). */
static bool index_wanted(const struct tree *t)
{
	return t->copied && !t->index.whole;
}

enum status tree_rows_step(struct tree *t, size_t budget, bool *done)
{
	size_t n, left = budget ? budget : 1;

	*done =
	    (t->rows_known && !t->rows_copying && !index_wanted(t)) || !t->w;
	if (*done)
		return STATUS_OK;
	if (!t->rows_known && !t->rows_begun && rows_begin(t) != STATUS_OK) {
		t->rows_failed = true;
		return STATUS_NOMEM;
	}
	n = t->w->nrows;
	if (!t->rows_known) {
		look_up(t, upto(t->rows_next, n, &left));
		if (t->rows_next < n)
			return STATUS_OK;
		looked_up(t);
	}
	if (t->rows_copying) {
		copy_rows(t, upto(t->copy_next, n, &left));
		if (t->copy_next < n)
			return STATUS_OK;
		/* whole: the next window's rows take their frames from it */
		t->rows_copying = false;
		t->copied = true;
		t->ncopied = n;
	}
	/* by steps too, after the copy: whole in one step, 100,000 stacks
	 * put at random into 2 MB took 4 ms of CPU, and 15 where the
	 * table's pages were first touched */
	if (index_wanted(t)) {
		if (!t->index.begun && !index_begin(&t->index, t->stacks, n)) {
			t->rows_failed = true;
			return STATUS_NOMEM;
		}
		index_put(&t->index, t->stacks, upto(t->index.next, n, &left));
		if (t->index.next < n)
			return STATUS_OK;
		t->index.whole = true;
	}
	*done = true;
	return STATUS_OK;
}

bool tree_rows_wanted(const struct tree *t, const struct model *m,
                      const struct window *w)
{
	return w && t->w == w && t->m == m && t->seq == w->seq &&
	       grouping_eq(t->group, w->group) &&
	       (!t->rows_known || t->rows_copying || index_wanted(t)) &&
	       !t->rows_failed;
}

enum status tree_rows_make(struct tree *t)
{
	if (t->rows_known || !t->w)
		return STATUS_OK;
	if (!t->rows_begun && rows_begin(t) != STATUS_OK)
		return STATUS_NOMEM;
	look_up(t, t->w->nrows);
	looked_up(t);
	return STATUS_OK;
}

const uint32_t *tree_rows_frames(const struct tree *t, uint32_t r,
                                 uint32_t *depth)
{
	const uint32_t *f;
	size_t d = 0;

	if (t->rows_known) {
		*depth = t->rowd[r];
		return t->rowf[r];
	}
	f = model_stack(t->m, t->w->rows[r].stack, &d);
	*depth = (uint32_t)d;
	return f;
}
