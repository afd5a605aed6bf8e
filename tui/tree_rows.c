/* The tree's rows' frames, looked up all at once or one by one. */
#include "tui/view_tree.h"

#include "model/alloc.h"

enum status tree_rows_make(struct tree *t)
{
	const struct window *w = t->w;

	if (t->rows_known)
		return STATUS_OK;
	if (mem_grow(&t->rowf, &t->rowf_cap, w->nrows + 1, sizeof(*t->rowf)) ||
	    mem_grow(&t->rowd, &t->rowd_cap, w->nrows + 1, sizeof(*t->rowd)))
		return STATUS_NOMEM;
	for (size_t r = 0; r < w->nrows; r++) {
		size_t d = 0;

		t->rowf[r] = model_stack(t->m, w->rows[r].stack, &d);
		t->rowd[r] = (uint32_t)d;
	}
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
