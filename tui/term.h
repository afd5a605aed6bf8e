/* The terminal: curses on /dev/tty (stdin and stdout stay free), raw mode,
 * colours or monochrome (NO_COLOR), resize and suspend (the signal
 * self-pipe is tui/signals.h), and a reset that also runs from crash signals
 * (precomputed, async-signal-safe: write + tcsetattr, no curses in handlers).
 */
#ifndef ASYNCTOP_TUI_TERM_H
#define ASYNCTOP_TUI_TERM_H

#include <stdbool.h>
#include <stddef.h>

#include "model/base.h"
#include "model/status.h"
#include "tui/render.h"

struct term {
	int fd;       /* /dev/tty */
	void *in;     /* FILE * curses reads */
	void *out;    /* FILE * curses writes */
	void *screen; /* SCREEN * */
	bool color;   /* colours in use */
	bool utf8;    /* the codeset is UTF-8 */
	bool open;
	size_t cols, rows;
	int attrs[EL_COUNT]; /* curses attributes per element */
};

/* Whether the terminal $TERM names can show the viewer: STATUS_INVAL, with
 * a one-line reason in err, for one that cannot address the cursor (a
 * hardcopy or "dumb" terminal); STATUS_OK otherwise, an unknown TERM
 * included (term_open reports that).  Reads the terminfo database only. */
enum status term_check(char *err, size_t errsz) MUST_CHECK;

/* Opens curses on /dev/tty: raw, no echo, keypad, mouse, ESC delay 25 ms,
 * invisible cursor, colours unless NO_COLOR is set and non-empty or the
 * terminal has none; alternate screen.  Saves the tty's termios and the
 * reset string (alternate screen, attributes, cursor, keypad and mouse
 * reporting off) first and installs the crash handlers (SEGV, BUS, FPE,
 * ILL, ABRT).  STATUS_IO with the reason in err when there is no
 * terminal. */
enum status term_open(struct term *t, char *err, size_t errsz) MUST_CHECK;

/* Restores the terminal (endwin, termios) and the crash handlers. */
void term_close(struct term *t);

/* Leaves curses, stops the process (SIGTSTP), and comes back on SIGCONT. */
void term_suspend(struct term *t);

/* After SIGCONT: puts the tty back in curses's modes (raw, no echo), which
 * the shell changed if the process was stopped by a SIGSTOP it did not
 * expect, and reads the tty's size. */
void term_resume(struct term *t);

/* Reads the tty's size and resizes curses to it. */
void term_resize(struct term *t);

/* Input events of term_read. */
enum term_input {
	TERM_NONE,  /* nothing waiting */
	TERM_KEY,   /* *key set (enum key or a code point) */
	TERM_MOUSE, /* *x, *y, *wheel set */
};

/* Takes one input without blocking. */
enum term_input term_read(struct term *t, int *key, size_t *x, size_t *y,
                          int *wheel);

#endif
