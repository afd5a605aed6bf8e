/* The one place that includes <curses.h>: wide-character functions
 * (_XOPEN_SOURCE_EXTENDED) of ncursesw.  Only tui/ sources include it. */
#ifndef ASYNCTOP_TUI_CURSES_INC_H
#define ASYNCTOP_TUI_CURSES_INC_H

#ifndef _XOPEN_SOURCE_EXTENDED
#define _XOPEN_SOURCE_EXTENDED 1
#endif
#ifndef NCURSES_WIDECHAR
#define NCURSES_WIDECHAR 1
#endif

#include <curses.h>

#endif
