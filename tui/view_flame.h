/* Flame (f): an icicle of the shown window in the terminal, the root on
 * top, each frame as wide as its share of the weighting under the zoomed
 * frame, labels where they fit; the arrows select a frame, Enter zooms
 * into it and Esc out.  Laid out from the prefix tree (view_tree.h); a
 * pure layout and renderer. */
#ifndef ASYNCTOP_TUI_VIEW_FLAME_H
#define ASYNCTOP_TUI_VIEW_FLAME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/metric.h"
#include "model/model.h"
#include "model/status.h"
#include "tui/render.h"
#include "tui/view_tree.h"

/* One frame drawn: its node and columns [x0, x1) on level row. */
struct flame_box {
	uint32_t node;
	uint32_t row;
	size_t x0, x1;
};

/* The deepest frame the flame zooms into. */
#define FLAME_ZOOM_MAX 256

struct flame {
	/* the zoomed frame by its frames from the root (ids stay valid
	 * across windows, so a zoom outlives the tree it was made in) */
	uint32_t zoom_frames[FLAME_ZOOM_MAX];
	size_t zoom_depth;
	uint64_t zoom_path, sel_path; /* 0: the root */
	struct flame_box *boxes;      /* by level, left to right */
	size_t n, cap;
	uint32_t zoom, sel; /* nodes of the last layout */
	/* private scratch of the children's sort */
	uint64_t *keys, *tkeys;
	uint32_t *vals, *tvals;
	size_t keys_cap, tkeys_cap, vals_cap, tvals_cap;
	struct tree_run *runs; /* scratch: the wide callees of a frame */
	size_t runs_cap;
};

void flame_init(struct flame *f);
void flame_fini(struct flame *f);

/* Lays out t (synced to its window; the callees it needs are built)
 * weighted by metric in cols x levels, from the zoomed frame (its deepest
 * frame still in the window); the selection falls back to the zoomed
 * frame.  A frame's callees a column wide or more are found without
 * reading every row under it: a callee of at least a column's value
 * holds a multiple of that value in the running sum of the weighting
 * over the rows, so the rows at those multiples (at most as many as
 * columns) are found by binary searches, and each one's run of rows by
 * galloping to where the frame at that level changes.  STATUS_NOMEM
 * leaves no boxes. */
enum status flame_layout(struct flame *f, struct tree *t, enum metric metric,
                         size_t cols, size_t levels) MUST_CHECK;

/* Moves the selection: dir 'u' to the parent (not above the zoom), 'd'
 * to its widest child, 'l' and 'r' to the box beside it on its level. */
void flame_select(struct flame *f, const struct tree *t, char dir);
/* Enter: zooms into the selection.  Esc: out one frame; false when at the
 * root already (the view is left). */
void flame_zoom_in(struct flame *f, const struct tree *t);
bool flame_zoom_out(struct flame *f);

/* What flame_draw draws (borrowed). */
struct flame_in {
	const struct model *m;
	const struct tree *t;
	const struct flame *f;
	const struct window *w;
	enum metric metric;
};

/* Rows above the levels: the title, with the selected frame. */
#define FLAME_HEAD_ROWS 1

/* render_body's draw for ctx a struct flame_in.  STATUS_NOMEM. */
enum status flame_draw(const void *ctx, const struct render_in *rin,
                       struct screen *s, size_t top, size_t end) MUST_CHECK;

#endif
