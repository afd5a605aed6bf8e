/* The detail of one row (Enter or d): its whole stack root first, the five
 * metrics with each one's share of the window, the per-poll means and the
 * optional figures ("unknown" where the runtime cannot tell), a sparkline
 * of the weighting for this stack across the kept windows, the row's other
 * stacks (where its tasks are parked, or where the tasks parked here were
 * spawned) and the tasks folded into the row by name with their own
 * figures, sorted by the weighting.  A pure renderer into screen lines; it
 * scrolls. */
#ifndef ASYNCTOP_TUI_VIEW_DETAIL_H
#define ASYNCTOP_TUI_VIEW_DETAIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/metric.h"
#include "model/model.h"
#include "model/status.h"
#include "tui/render.h"

struct detail_in {
	const struct model *m;
	const struct window *w; /* the shown window */
	uint32_t stack;         /* the row's stack (of w->group.key) */
	uint32_t name;          /* its task name when split by name */
	enum metric metric; /* the weighting: share, sparkline, task order */
	bool ascending;
	size_t top; /* first line of the detail shown (scrolled) */
};

/* The row of in's stack and name in in->w, or SIZE_MAX. */
size_t detail_row(const struct detail_in *in);

/* Lines the detail of in has in all (for the app to clamp scrolling). */
size_t detail_count(const struct detail_in *in);

/* Draws the title row at s->lines[top] and the detail from in->top in
 * lines (top, end).  A stack gone from the shown window says so.
 * render_body's draw for ctx a struct detail_in.  STATUS_NOMEM. */
enum status detail_draw(const void *ctx, const struct render_in *rin,
                        struct screen *s, size_t top, size_t end) MUST_CHECK;

#endif
