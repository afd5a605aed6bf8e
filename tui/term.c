/* Terminal set-up and restore, crash signals, resize, suspend, input. */
#include "tui/term.h"

#include <errno.h>
#include <fcntl.h>
#include <langinfo.h>
#include <locale.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>

#include "tui/curses_inc.h"
#include "tui/keymap.h"
#include "tui/signals.h"

/* State the signal handlers need: set before they are installed. */
static int crash_fd = -1;
static struct termios crash_tios;
static char crash_reset[256];
static size_t crash_reset_len;

static const int crash_signals[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT };
static struct sigaction crash_old[ARRAY_SIZE(crash_signals)];
static bool crash_installed;

static void on_crash(int signo)
{
	if (crash_fd >= 0) {
		if (write(crash_fd, crash_reset, crash_reset_len) < 0) {
			/* nothing more can be done */
		}
		tcsetattr(crash_fd, TCSANOW, &crash_tios);
	}
	for (size_t i = 0; i < ARRAY_SIZE(crash_signals); i++)
		if (crash_signals[i] == signo)
			sigaction(signo, &crash_old[i], NULL);
	raise(signo);
}

static void reset_add(const char *cap, const char *fallback)
{
	char *s = tigetstr(cap);
	const char *use = s && s != (char *)-1 ? s : fallback;
	size_t n = strlen(use);

	if (crash_reset_len + n < sizeof(crash_reset)) {
		memcpy(crash_reset + crash_reset_len, use, n);
		crash_reset_len += n;
	}
}

/* Mouse reporting off, as curses would turn it off: the terminal's XM with
 * 0 (xterm's "\033[?1006;1000l"), else the X10 mode's reset where the
 * terminal reports clicks at all.  A crash must not leave clicks typing
 * escapes into the shell. */
static void reset_mouse(void)
{
	char *xm = tigetstr("XM"), *kmous = tigetstr("kmous");
	const char *off = NULL;
	size_t n;

	if (xm && xm != (char *)-1)
		off = tiparm(xm, 0);
	else if (kmous && kmous != (char *)-1)
		off = "\033[?1000l";
	n = off ? strlen(off) : 0;
	if (n && crash_reset_len + n < sizeof(crash_reset)) {
		memcpy(crash_reset + crash_reset_len, off, n);
		crash_reset_len += n;
	}
}

static void crash_install(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_crash;
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < ARRAY_SIZE(crash_signals); i++)
		sigaction(crash_signals[i], &sa, &crash_old[i]);
	crash_installed = true;
}

static void crash_uninstall(void)
{
	if (!crash_installed)
		return;
	for (size_t i = 0; i < ARRAY_SIZE(crash_signals); i++)
		sigaction(crash_signals[i], &crash_old[i], NULL);
	crash_installed = false;
	crash_fd = -1;
}

/* Element -> (foreground, background, colour attrs, mono attrs). */
struct theme_item {
	short fg, bg;
	int cattr, mattr;
};

static void theme(struct term *t)
{
	struct theme_item items[EL_COUNT];

	memset(items, 0, sizeof(items));
	for (int i = 0; i < EL_COUNT; i++)
		items[i].fg = items[i].bg = -1;
	items[EL_HEADER] =
	    (struct theme_item){ COLOR_CYAN, -1, A_BOLD, A_BOLD };
	items[EL_TITLE] =
	    (struct theme_item){ COLOR_BLACK, COLOR_GREEN, 0, A_REVERSE };
	items[EL_TITLE_KEY] =
	    (struct theme_item){ COLOR_BLACK, COLOR_CYAN, A_BOLD,
		                 A_REVERSE | A_BOLD | A_UNDERLINE };
	items[EL_KEYCOL] =
	    (struct theme_item){ COLOR_CYAN, -1, A_BOLD, A_BOLD };
	items[EL_SELECTED] =
	    (struct theme_item){ COLOR_BLACK, COLOR_CYAN, 0, A_REVERSE };
	items[EL_BAR] = (struct theme_item){ COLOR_GREEN, -1, 0, 0 };
	items[EL_HOT] = (struct theme_item){ COLOR_RED, -1, A_BOLD, A_BOLD };
	items[EL_DIM] = (struct theme_item){ -1, -1, A_DIM, A_DIM };
	items[EL_NOTICE] =
	    (struct theme_item){ COLOR_YELLOW, -1, A_BOLD, A_BOLD };
	items[EL_ERROR] = (struct theme_item){ COLOR_RED, -1, A_BOLD, A_BOLD };
	items[EL_STATUS] = (struct theme_item){ COLOR_GREEN, -1, 0, 0 };
	items[EL_FOOTER_KEY] = (struct theme_item){ -1, -1, A_BOLD, A_BOLD };
	items[EL_FOOTER] =
	    (struct theme_item){ COLOR_BLACK, COLOR_CYAN, 0, A_REVERSE };
	items[EL_PROMPT] = (struct theme_item){ COLOR_YELLOW, -1, A_BOLD,
		                                A_BOLD | A_UNDERLINE };
	for (int i = 0; i < EL_COUNT; i++) {
		if (!t->color) {
			t->attrs[i] = items[i].mattr;
			continue;
		}
		init_pair((short)(i + 1), items[i].fg, items[i].bg);
		t->attrs[i] = items[i].cattr | (int)COLOR_PAIR(i + 1);
	}
}

enum status term_check(char *err, size_t errsz)
{
	const char *name = getenv("TERM");
	FILE *nul = fopen("/dev/null", "r+e");
	SCREEN *scr = nul ? newterm(NULL, nul, nul) : NULL;
	const char *cup;
	bool hard;

	if (!scr) { /* unknown: term_open says so */
		if (nul)
			fclose(nul);
		return STATUS_OK;
	}
	cup = tigetstr("cup");
	hard = !cup || cup == (char *)-1;
	endwin();
	delscreen(scr);
	fclose(nul);
	if (!hard)
		return STATUS_OK;
	snprintf(
	    err, errsz,
	    "the terminal (TERM=%s) cannot move its cursor, so the live viewer cannot draw on it",
	    name ? name : "");
	return STATUS_INVAL;
}

enum status term_open(struct term *t, char *err, size_t errsz)
{
	const char *nc = getenv("NO_COLOR");
	const char *cs;
	FILE *in, *out;
	int fd2;
	SCREEN *scr;

	memset(t, 0, sizeof(*t));
	t->fd = open("/dev/tty", O_RDWR | O_CLOEXEC | O_NOCTTY);
	if (t->fd < 0) {
		snprintf(err, errsz, "cannot open the terminal /dev/tty: %s",
		         strerror(errno));
		return STATUS_IO;
	}
	if (tcgetattr(t->fd, &crash_tios) < 0) {
		snprintf(err, errsz, "/dev/tty is not a terminal: %s",
		         strerror(errno));
		close(t->fd);
		return STATUS_IO;
	}
	fd2 = dup(t->fd);
	in = fdopen(t->fd, "r");
	out = fd2 >= 0 ? fdopen(fd2, "w") : NULL;
	if (!in || !out) {
		snprintf(err, errsz, "cannot use /dev/tty: %s",
		         strerror(errno));
		if (in)
			fclose(in);
		else
			close(t->fd);
		if (out)
			fclose(out);
		else if (fd2 >= 0)
			close(fd2);
		return STATUS_IO;
	}
	scr = newterm(NULL, out, in);
	if (!scr) {
		snprintf(err, errsz,
		         "cannot start curses on /dev/tty (TERM=%s unknown?)",
		         getenv("TERM") ? getenv("TERM") : "");
		fclose(in);
		fclose(out);
		return STATUS_IO;
	}
	t->in = in;
	t->out = out;
	t->screen = scr;
	t->open = true;
	crash_fd = t->fd;
	crash_reset_len = 0;
	reset_add("rmcup", "\033[?1049l");
	reset_add("sgr0", "\033[0m");
	reset_add("cnorm", "\033[?25h");
	reset_add("rmkx", "");
	reset_mouse();
	crash_install();
	cs = nl_langinfo(CODESET);
	t->utf8 = cs && (!strcmp(cs, "UTF-8") || !strcmp(cs, "utf8"));
	raw();
	noecho();
	nonl();
	keypad(stdscr, TRUE);
	nodelay(stdscr, TRUE);
	set_escdelay(25);
	curs_set(0);
	mousemask(BUTTON1_PRESSED | BUTTON4_PRESSED | BUTTON5_PRESSED, NULL);
	mouseinterval(0);
	t->color = !(nc && *nc) && has_colors();
	if (t->color && start_color() == ERR)
		t->color = false;
	if (t->color)
		use_default_colors();
	theme(t);
	term_resize(t);
	return STATUS_OK;
}

void term_close(struct term *t)
{
	if (!t->open)
		return;
	curs_set(1);
	endwin();
	delscreen(t->screen);
	tcsetattr(t->fd, TCSANOW, &crash_tios);
	crash_uninstall();
	fclose(t->in);
	fclose(t->out);
	t->open = false;
}

void term_suspend(struct term *t)
{
	if (!t->open)
		return;
	endwin();
	tcsetattr(t->fd, TCSANOW, &crash_tios);
	signals_stop_self();
	reset_prog_mode();
	term_resize(t);
}

void term_resume(struct term *t)
{
	if (!t->open)
		return;
	/* a SIGSTOP from outside (not our ^Z) left the tty in the modes the
	 * shell set when the job stopped: cooked, echoing */
	reset_prog_mode();
	term_resize(t);
}

void term_resize(struct term *t)
{
	struct winsize ws;

	if (!t->open)
		return;
	if (ioctl(t->fd, TIOCGWINSZ, &ws) == 0 && ws.ws_col && ws.ws_row)
		resize_term(ws.ws_row, ws.ws_col);
	t->cols = (size_t)(COLS > 0 ? COLS : 0);
	t->rows = (size_t)(LINES > 0 ? LINES : 0);
}

static int map_key(int k)
{
	switch (k) {
	case KEY_UP:
		return KC_UP;
	case KEY_DOWN:
		return KC_DOWN;
	case KEY_LEFT:
		return KC_LEFT;
	case KEY_RIGHT:
		return KC_RIGHT;
	case KEY_PPAGE:
		return KC_PGUP;
	case KEY_NPAGE:
		return KC_PGDN;
	case KEY_HOME:
		return KC_HOME;
	case KEY_END:
		return KC_END;
	case KEY_F(1):
		return KC_F1;
	case KEY_F(3):
		return KC_F3;
	case KEY_F(10):
		return KC_F10;
	case KEY_ENTER:
		return KC_ENTER;
	case KEY_BACKSPACE:
		return KC_BACKSPACE;
	case KEY_RESIZE:
		return KC_RESIZE;
	case KEY_MOUSE:
		return KC_MOUSE;
	default:
		return 0;
	}
}

enum term_input term_read(struct term *t, int *key, size_t *x, size_t *y,
                          int *wheel)
{
	wint_t wc;
	int r;

	if (!t->open)
		return TERM_NONE;
	r = wget_wch(stdscr, &wc);
	if (r == ERR)
		return TERM_NONE;
	if (r == KEY_CODE_YES) {
		int k = map_key((int)wc);
		if (k == KC_MOUSE) {
			MEVENT ev;
			if (getmouse(&ev) != OK)
				return TERM_NONE;
			*x = ev.x < 0 ? 0 : (size_t)ev.x;
			*y = ev.y < 0 ? 0 : (size_t)ev.y;
			*wheel = (ev.bstate & BUTTON4_PRESSED)   ? -1
			         : (ev.bstate & BUTTON5_PRESSED) ? 1
			                                         : 0;
			return TERM_MOUSE;
		}
		if (k == KC_RESIZE)
			term_resize(t);
		*key = k;
		return k ? TERM_KEY : TERM_NONE;
	}
	if (wc == 27)
		*key = KC_ESC;
	else if (wc == '\r' || wc == '\n')
		*key = KC_ENTER;
	else if (wc == 0x7f || wc == 0x08)
		*key = KC_BACKSPACE;
	else
		*key = (int)wc;
	return TERM_KEY;
}
