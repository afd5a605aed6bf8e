/* The thin curses layer: a rendered screen onto the terminal. */
#include "tui/draw.h"

#include "tui/curses_inc.h"

void draw_screen(struct term *t, const struct screen *s, bool repaint)
{
	if (!t->open)
		return;
	if (repaint)
		clearok(curscr, TRUE);
	for (size_t r = 0; r < s->rows && r < t->rows; r++) {
		const struct screen_line *l = &s->lines[r];
		bool sel = l->base == EL_SELECTED;

		wmove(stdscr, (int)r, 0);
		for (size_t i = 0; i < l->nspans; i++) {
			const struct span *sp = &l->spans[i];
			int at = t->attrs[sp->el];

			if (sel)
				at = t->attrs[EL_SELECTED] |
				     (sp->el == EL_KEYCOL ? A_BOLD : 0);
			wattrset(stdscr, at);
			waddnstr(stdscr, l->text.data + sp->start,
			         (int)(sp->end - sp->start));
		}
		wattrset(stdscr, A_NORMAL);
		wclrtoeol(stdscr);
	}
	wmove(stdscr, (int)s->cursor_row, 0);
	wnoutrefresh(stdscr);
	doupdate();
}
