/* The thin curses layer: puts a rendered struct screen on the terminal. */
#ifndef ASYNCTOP_TUI_DRAW_H
#define ASYNCTOP_TUI_DRAW_H

#include <stdbool.h>

#include "tui/render.h"
#include "tui/term.h"

/* Puts s on t (one doupdate), the hardware cursor on the selected row so
 * screen readers follow it; repaint clears the terminal first.  Element
 * attributes come from t->attrs (colour or monochrome theme). */
void draw_screen(struct term *t, const struct screen *s, bool repaint);

#endif
