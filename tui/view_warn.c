/* The warnings list (W), rendered as a scrolled list of lines. */
#include "tui/view_warn.h"

#include <stdio.h>
#include <string.h>

#include "tui/glyph.h"
#include "tui/line.h"

/* Columns of the rule's name and of the figure. */
#define WARN_NAME_COLS 18
#define WARN_FIG_COLS  42

static bool listing(const struct warn_in *in)
{
	return in->w && in->ws->ok && in->ws->n;
}

size_t warn_count(const struct warn_in *in)
{
	return listing(in) ? in->ws->n : 1 + WARN_COUNT;
}

static void row(const struct warn_in *in, const struct render_in *rin,
                struct screen *s, struct screen_line *l,
                const struct warning *wn, struct buf *tmp)
{
	const struct fold_row *fr = &in->w->rows[wn->row];
	char fig[128];
	size_t sw = 0;

	line_puts(l, EL_ERROR, " ! ", line_room(s, l), rin->flags);
	line_puts(l, EL_KEYCOL, warn_name(wn->rule), WARN_NAME_COLS - 1,
	          rin->flags);
	line_pad(l, EL_NORMAL, 3 + WARN_NAME_COLS);
	warn_figure(wn, fig, sizeof(fig));
	line_puts(l, EL_NORMAL, fig, WARN_FIG_COLS - 1, rin->flags);
	line_pad(l, EL_NORMAL, 3 + WARN_NAME_COLS + WARN_FIG_COLS);
	if (in->w->group.by_name) {
		struct strview n = model_name(in->m, fr->name);

		line_put(l, EL_NORMAL, n.len ? n : sv_c("<unnamed>"),
		         line_room(s, l), rin->flags);
		line_puts(l, EL_NORMAL, ": ", line_room(s, l), rin->flags);
	}
	buf_reset(tmp);
	if (render_stack(tmp, in->m, fr->stack, line_room(s, l), rin->flags,
	                 &sw) == STATUS_OK)
		line_put(l, EL_NORMAL, buf_view(tmp), sw, rin->flags);
}

enum status warn_draw(const void *ctx, const struct render_in *rin,
                      struct screen *s, size_t top, size_t end)
{
	const struct warn_in *in = ctx;
	struct screen_line *t = &s->lines[top];
	const char *d = glyph(GLYPH_SEP, rin->flags);
	size_t n = warn_count(in), at = in->top;
	char head[160];
	struct buf tmp;
	enum status st;

	line_reset(t, EL_TITLE);
	if (listing(in))
		snprintf(head, sizeof(head),
		         " WARNINGS%s%zu on window %llu%sEsc back", d,
		         in->ws->n, (unsigned long long)in->w->seq, d);
	else
		snprintf(head, sizeof(head), " WARNINGS%sEsc back", d);
	line_puts(t, EL_TITLE, head, line_room(s, t), rin->flags);
	line_pad(t, EL_TITLE, s->cols);
	buf_init(&tmp);
	for (size_t r = top + 1; r < end; r++, at++) {
		struct screen_line *l = &s->lines[r];

		line_reset(l, EL_NORMAL);
		if (at < n && listing(in)) {
			row(in, rin, s, l, &in->ws->v[at], &tmp);
		} else if (at == 0) {
			line_puts(
			    l, EL_DIM,
			    in->w ? " no warnings on this window; the rules:"
			          : " no window to warn about; the rules:",
			    line_room(s, l), rin->flags);
		} else if (at < n) {
			enum warn_rule wr = (enum warn_rule)(at - 1);

			line_puts(l, EL_KEYCOL, "   ", line_room(s, l),
			          rin->flags);
			line_puts(l, EL_KEYCOL, warn_name(wr),
			          WARN_NAME_COLS - 1, rin->flags);
			line_pad(l, EL_NORMAL, 3 + WARN_NAME_COLS);
			line_puts(l, EL_NORMAL, warn_help(wr), line_room(s, l),
			          rin->flags);
		}
		line_pad(l, EL_NORMAL, s->cols);
	}
	st = buf_status(&tmp);
	buf_fini(&tmp);
	return st;
}
