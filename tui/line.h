/* Writing into one line of a struct screen: sanitised, cut text with an
 * element span, padding, right-aligned cells.  Shared by render.c and the
 * views' renderers.  Pure: no curses. */
#ifndef ASYNCTOP_TUI_LINE_H
#define ASYNCTOP_TUI_LINE_H

#include <stddef.h>

#include "model/strview.h"
#include "tui/render.h"

/* Empties l; base is the element of its unspanned columns. */
void line_reset(struct screen_line *l, enum elem base);

/* Spans the bytes appended to l since start with el (merged with the last
 * span when it continues it; the last span grows when spans run out). */
void line_span(struct screen_line *l, size_t start, enum elem el);

/* Appends s sanitised (enum utf8_flags flags) and cut to max columns. */
void line_put(struct screen_line *l, enum elem el, struct strview s, size_t max,
              unsigned flags);
void line_puts(struct screen_line *l, enum elem el, const char *s, size_t max,
               unsigned flags);

/* Pads l with spaces up to column col. */
void line_pad(struct screen_line *l, enum elem el, size_t col);

/* Right-aligns s (ours, short) in a cell of cols columns. */
void line_right(struct screen_line *l, enum elem el, const char *s, size_t cols,
                unsigned flags);

/* Columns left on l in s. */
size_t line_room(const struct screen *s, const struct screen_line *l);

#endif
