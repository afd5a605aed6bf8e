/* The warnings of the shown window (W): a line each, the rule, the figure
 * and the row, in the rules' order; with none, the rules and what each
 * looks for.  A pure renderer into screen lines; it scrolls. */
#ifndef ASYNCTOP_TUI_VIEW_WARN_H
#define ASYNCTOP_TUI_VIEW_WARN_H

#include <stddef.h>

#include "model/model.h"
#include "model/status.h"
#include "tui/render.h"
#include "tui/warn.h"

/* What warn_draw draws (all borrowed). */
struct warn_in {
	const struct model *m;
	const struct window *w;    /* the shown window, or NULL */
	const struct warnings *ws; /* evaluated on w */
	size_t top;                /* first line shown (scrolled) */
};

/* Lines the list has in all (for the app to clamp scrolling). */
size_t warn_count(const struct warn_in *in);

/* render_body's draw for ctx a struct warn_in.  STATUS_NOMEM. */
enum status warn_draw(const void *ctx, const struct render_in *rin,
                      struct screen *s, size_t top, size_t end) MUST_CHECK;

#endif
