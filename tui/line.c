/* Writing into one line of a screen. */
#include "tui/line.h"

#include "encode/utf8.h"

void line_reset(struct screen_line *l, enum elem base)
{
	buf_reset(&l->text);
	l->width = 0;
	l->nspans = 0;
	l->base = base;
}

void line_span(struct screen_line *l, size_t start, enum elem el)
{
	if (l->text.len == start)
		return;
	if (l->nspans && l->spans[l->nspans - 1].el == el &&
	    l->spans[l->nspans - 1].end == start) {
		l->spans[l->nspans - 1].end = l->text.len;
		return;
	}
	if (l->nspans == SCREEN_SPANS) {
		/* out of spans: the rest keeps the last element */
		l->spans[l->nspans - 1].end = l->text.len;
		return;
	}
	l->spans[l->nspans].start = start;
	l->spans[l->nspans].end = l->text.len;
	l->spans[l->nspans].el = el;
	l->nspans++;
}

/* Appends s sanitised and cut to at most max columns. */
void line_put(struct screen_line *l, enum elem el, struct strview s, size_t max,
              unsigned flags)
{
	size_t start = l->text.len, w = 0;

	if (utf8_fit_ex(&l->text, s, max, FIT_END, flags, &w) != STATUS_OK)
		return;
	l->width += w;
	line_span(l, start, el);
}

void line_puts(struct screen_line *l, enum elem el, const char *s, size_t max,
               unsigned flags)
{
	line_put(l, el, sv_c(s), max, flags);
}

/* Text that is ours and ASCII or known-width: no fitting beyond max. */
void line_pad(struct screen_line *l, enum elem el, size_t col)
{
	size_t start = l->text.len;

	while (l->width < col) {
		buf_addc(&l->text, ' ');
		l->width++;
	}
	line_span(l, start, el);
}

/* Right-aligns s (ours, ASCII or short) in a cell of width cols. */
void line_right(struct screen_line *l, enum elem el, const char *s, size_t cols,
                unsigned flags)
{
	size_t w = utf8_width(sv_c(s));

	if (w < cols)
		line_pad(l, l->base, l->width + cols - w);
	line_puts(l, el, s, w < cols ? w : cols, flags);
}

size_t line_room(const struct screen *s, const struct screen_line *l)
{
	return l->width < s->cols ? s->cols - l->width : 0;
}
