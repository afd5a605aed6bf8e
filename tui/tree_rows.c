/* The tree's rows' frames, looked up all at once or one by one. */
#include "tui/view_tree.h"

#include <string.h>

#include "model/alloc.h"

/* The most frames a window's rows copy side by side (64 MiB); past it
 * the rows point into the model's stacks. */
#define FRAMES_MAX ((size_t)1 << 24)
/* How far on a stack of the window before is looked for in turn. */
#define PREV_NEAR 64

/* Copies the rows' frames side by side in row order and points rowf at
 * the copy: the scans of rows under a frame then read them in turn
 * instead of chasing each row's stack.  Past FRAMES_MAX, or out of
 * memory, the rows keep pointing into the model's stacks (or the copy
 * of the window before). */
static void side_by_side(struct tree *t, size_t nframes)
{
	size_t at = 0;

	if (nframes > FRAMES_MAX || mem_grow(&t->frames, &t->frames_cap,
	                                     nframes + 1, sizeof(*t->frames)))
		return;
	for (size_t r = 0; r < t->w->nrows; r++) {
		if (t->rowd[r])
			memcpy(t->frames + at, t->rowf[r],
			       t->rowd[r] * sizeof(*t->frames));
		t->rowf[r] = t->frames + at;
		at += t->rowd[r];
	}
	t->copied = true;
}

/* Keeps the rows just made (copied) as the window before's: the arrays
 * change places, so the next rows are made into the older ones. */
static void keep_prev(struct tree *t, size_t n)
{
	struct tree_prev *p = &t->prev;
	const uint32_t **rowf = t->rowf;
	uint32_t *rowd = t->rowd, *frames = t->frames, *stacks = t->stacks;
	size_t c;

	t->rowf = p->rowf;
	p->rowf = rowf;
	t->rowd = p->rowd;
	p->rowd = rowd;
	t->frames = p->frames;
	p->frames = frames;
	t->stacks = p->stacks;
	p->stacks = stacks;
	c = t->rowf_cap, t->rowf_cap = p->rowf_cap, p->rowf_cap = c;
	c = t->rowd_cap, t->rowd_cap = p->rowd_cap, p->rowd_cap = c;
	c = t->frames_cap, t->frames_cap = p->frames_cap, p->frames_cap = c;
	c = t->stacks_cap, t->stacks_cap = p->stacks_cap, p->stacks_cap = c;
	p->n = n;
	p->indexed = false;
	p->far = 0;
}

static size_t slot_of(uint32_t stack, size_t mask)
{
	return (size_t)(((uint64_t)stack * 0x9E3779B97F4A7C15u) >> 32) & mask;
}

/* Indexes the window before's rows by stack (the first row of each);
 * false out of memory. */
static bool index_prev(struct tree_prev *p)
{
	size_t cap = 16;

	while (cap < 2 * p->n)
		cap *= 2;
	if (mem_grow(&p->index, &p->index_cap, cap, sizeof(*p->index)))
		return false;
	p->mask = cap - 1;
	memset(p->index, 0xff, cap * sizeof(*p->index));
	for (size_t r = p->n; r-- > 0;) {
		size_t i = slot_of(p->stacks[r], p->mask);

		while (p->index[i] != UINT64_MAX &&
		       (uint32_t)(p->index[i] >> 32) != p->stacks[r])
			i = (i + 1) & p->mask;
		p->index[i] = (uint64_t)p->stacks[r] << 32 | (uint32_t)r;
	}
	p->indexed = true;
	return true;
}

/* The row of the window before with stack, UINT32_MAX when none: the one
 * after the last found (*at) when it is, or a few rows on (the rows of
 * both are in stack text order, most stacks in both: a stack gone from
 * between), else, once the stacks not found so near are more than a few
 * (new ones, or the window before's rows left far behind), by the
 * index. */
static uint32_t prev_row(struct tree_prev *p, uint32_t stack, size_t *at)
{
	size_t i;

	if (*at < p->n && p->stacks[*at] == stack)
		return (uint32_t)(*at)++;
	if (!p->indexed) {
		for (i = *at + 1; i < p->n && i <= *at + PREV_NEAR; i++) {
			if (p->stacks[i] == stack) {
				*at = i + 1;
				return (uint32_t)i;
			}
		}
		if (++p->far <= p->n / 8 || !index_prev(p))
			return UINT32_MAX;
	}
	for (i = slot_of(stack, p->mask); p->index[i] != UINT64_MAX;
	     i = (i + 1) & p->mask) {
		if ((uint32_t)(p->index[i] >> 32) == stack) {
			*at = (uint32_t)p->index[i] + 1;
			return (uint32_t)p->index[i];
		}
	}
	return UINT32_MAX;
}

enum status tree_rows_make(struct tree *t)
{
	const struct window *w = t->w;
	size_t nframes = 0, at = 0;

	if (t->rows_known || !w)
		return STATUS_OK;
	if (t->copied)
		keep_prev(t, t->ncopied);
	t->copied = false;
	if (mem_grow(&t->rowf, &t->rowf_cap, w->nrows + 1, sizeof(*t->rowf)) ||
	    mem_grow(&t->rowd, &t->rowd_cap, w->nrows + 1, sizeof(*t->rowd)) ||
	    mem_grow(&t->stacks, &t->stacks_cap, w->nrows + 1,
	             sizeof(*t->stacks)))
		return STATUS_NOMEM;
	for (size_t r = 0; r < w->nrows; r++) {
		uint32_t s = w->rows[r].stack, p;
		size_t d = 0;

		t->stacks[r] = s;
		if (r && s == t->stacks[r - 1]) { /* split by name */
			t->rowf[r] = t->rowf[r - 1];
			d = t->rowd[r - 1];
		} else if ((p = prev_row(&t->prev, s, &at)) != UINT32_MAX) {
			t->rowf[r] = t->prev.rowf[p];
			d = t->prev.rowd[p];
		} else {
			t->rowf[r] = model_stack(t->m, s, &d);
		}
		t->rowd[r] = (uint32_t)d;
		nframes += d;
	}
	side_by_side(t, nframes);
	t->ncopied = w->nrows;
	t->rows_known = true;
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
