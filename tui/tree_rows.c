/* The tree's rows' frames, looked up all at once or one by one. */
#include "tui/view_tree.h"

#include <string.h>

#include "model/alloc.h"

/* The most frames a window's rows copy side by side (64 MiB); past it
 * the rows point into the model's stacks. */
#define FRAMES_MAX ((size_t)1 << 24)

/* Copies the rows' frames side by side in row order and points rowf at
 * the copy: the scans of rows under a frame then read them in turn
 * instead of chasing each row's stack.  Past FRAMES_MAX, or out of
 * memory, the rows keep pointing into the model's stacks. */
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
}

enum status tree_rows_make(struct tree *t)
{
	const struct window *w = t->w;
	size_t nframes = 0;

	if (t->rows_known || !w)
		return STATUS_OK;
	if (mem_grow(&t->rowf, &t->rowf_cap, w->nrows + 1, sizeof(*t->rowf)) ||
	    mem_grow(&t->rowd, &t->rowd_cap, w->nrows + 1, sizeof(*t->rowd)))
		return STATUS_NOMEM;
	for (size_t r = 0; r < w->nrows; r++) {
		size_t d = 0;

		t->rowf[r] = model_stack(t->m, w->rows[r].stack, &d);
		t->rowd[r] = (uint32_t)d;
		nframes += d;
	}
	side_by_side(t, nframes);
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
