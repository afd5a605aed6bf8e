/* Drawing the tree's page. */
#include "tui/view_tree.h"

#include <stdio.h>

#include "encode/humanize.h"
#include "tui/glyph.h"
#include "tui/line.h"

/* Columns of the value, share and tasks cells before the tree. */
#define TREE_VALUE_COLS 9
#define TREE_SHARE_COLS 8
#define TREE_TASKS_COLS 7

static void titles(const struct render_in *rin, const struct tree *t,
                   struct screen *s, size_t top)
{
	struct screen_line *l = &s->lines[top];
	char h[160];

	line_reset(l, EL_TITLE);
	snprintf(h, sizeof(h),
	         " TREE %s%s+ %s expand, - %s collapse, * all below, Esc back",
	         metric_name(t->metric), glyph(GLYPH_SEP, rin->flags),
	         glyph(GLYPH_ARROW_RIGHT, rin->flags),
	         glyph(GLYPH_ARROW_LEFT, rin->flags));
	line_puts(l, EL_TITLE, h, line_room(s, l), rin->flags);
	line_pad(l, EL_TITLE, s->cols);
}

static void node_line(const struct tree_in *in, const struct render_in *rin,
                      struct screen *s, struct screen_line *l, uint32_t id,
                      bool selected)
{
	const struct tree *t = in->t;
	const struct tree_node *n = &t->nodes[id];
	size_t fixed = TREE_VALUE_COLS + TREE_SHARE_COLS + TREE_TASKS_COLS + 2;
	size_t avail = s->cols > fixed ? s->cols - fixed : 0;
	/* indent two columns a level up to a third of the room; deeper
	 * levels say their depth instead */
	size_t levels = avail / 3 / 2, d = n->depth - 1;
	char v[HUMAN_BUFSZ];

	line_reset(l, selected ? EL_SELECTED : EL_NORMAL);
	human_metric(v, sizeof(v), t->metric, n->m.v[t->metric]);
	line_right(l, EL_KEYCOL, v, TREE_VALUE_COLS, rin->flags);
	human_percent(v, sizeof(v), n->m.v[t->metric],
	              in->w->total.v[t->metric]);
	line_right(l, l->base, v, TREE_SHARE_COLS, rin->flags);
	human_count(v, sizeof(v), n->tasks);
	line_right(l, l->base, v, TREE_TASKS_COLS, rin->flags);
	line_pad(l, l->base, l->width + 2 + 2 * size_min(d, levels));
	if (d > levels) {
		char deep[24];

		snprintf(deep, sizeof(deep), "%zu:", d + 1);
		line_puts(l, EL_DIM, deep, line_room(s, l), rin->flags);
	}
	line_puts(l, EL_DIM,
	          !n->kids      ? " "
	          : n->expanded ? glyph(GLYPH_TREE_OPEN, rin->flags)
	                        : glyph(GLYPH_TREE_CLOSED, rin->flags),
	          line_room(s, l), rin->flags);
	line_puts(l, l->base, " ", line_room(s, l), rin->flags);
	line_put(l, l->base, model_frame(in->m, n->frame), line_room(s, l),
	         rin->flags);
	line_pad(l, l->base, s->cols);
}

enum status tree_draw(const void *ctx, const struct render_in *rin,
                      struct screen *s, size_t top, size_t end)
{
	const struct tree_in *in = ctx;
	const struct tree *t = in->t;
	struct screen_line *l;

	titles(rin, t, s, top);
	if (top + 1 >= end)
		return STATUS_OK;
	l = &s->lines[top + 1];
	line_reset(l, EL_TITLE);
	line_right(l, EL_TITLE, metric_header(t->metric), TREE_VALUE_COLS,
	           rin->flags);
	line_right(l, EL_TITLE, "SHARE", TREE_SHARE_COLS, rin->flags);
	line_right(l, EL_TITLE, "TASKS", TREE_TASKS_COLS, rin->flags);
	line_puts(l, EL_TITLE, "  FRAMES (root first)", line_room(s, l),
	          rin->flags);
	line_pad(l, EL_TITLE, s->cols);
	for (size_t r = top + 2, i = t->top; r < end && i - t->top < t->nview;
	     r++, i++) {
		node_line(in, rin, s, &s->lines[r], t->view[i - t->top],
		          i == t->sel);
		if (i == t->sel)
			s->cursor_row = r;
	}
	return STATUS_OK;
}
