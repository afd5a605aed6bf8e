/* Pure renderers of the viewer: the header, the table rows, share and
 * progress bars, messages, help and footer, into a struct screen of text
 * lines with attribute spans.  No curses: draw.c puts a screen on the
 * terminal, screen_dump.c writes it as text (golden tests). */
#ifndef ASYNCTOP_TUI_RENDER_H
#define ASYNCTOP_TUI_RENDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/base.h"
#include "model/buf.h"
#include "model/metric.h"
#include "model/model.h"
#include "model/status.h"
#include "model/strview.h"
#include "tui/view.h"
#include "tui/warn.h"

/* Semantic elements; draw.c maps them to colours or mono attributes. */
/* clang-format off */
#define ELEM_LIST(X) \
	X(NORMAL) \
	X(HEADER) \
	X(TITLE) \
	X(TITLE_KEY) \
	X(KEYCOL) \
	X(SELECTED) \
	X(BAR) \
	X(HOT) \
	X(DIM) \
	X(NOTICE) \
	X(ERROR) \
	X(STATUS) \
	X(FOOTER_KEY) \
	X(FOOTER) \
	X(PROMPT)
/* clang-format on */

enum elem {
#define ELEM_ENUM(id) EL_##id,
	ELEM_LIST(ELEM_ENUM)
#undef ELEM_ENUM
	    EL_COUNT
};

#define SCREEN_SPANS 32

/* A run of a line's bytes drawn with one element. */
struct span {
	size_t start, end; /* byte offsets into the line's text */
	enum elem el;
};

/* One screen line: sanitised UTF-8 text exactly cols columns wide. */
struct screen_line {
	struct buf text;
	size_t width; /* display columns used so far */
	enum elem base;
	struct span spans[SCREEN_SPANS];
	size_t nspans;
};

struct screen {
	size_t cols, rows;
	struct screen_line *lines;
	size_t cursor_row; /* the selected row (for screen readers) */
};

/* Smallest screen the viewer draws on; below it, a notice. */
#define RENDER_MIN_COLS 40
#define RENDER_MIN_ROWS 8

/* Rows taken above and below the table body. */
#define RENDER_TOP_ROWS    4 /* header, progress and totals, notices, titles */
#define RENDER_BOTTOM_ROWS 2 /* status line, footer */

/* A screen of cols x rows blank lines.  STATUS_NOMEM. */
enum status screen_init(struct screen *s, size_t cols, size_t rows) MUST_CHECK;
void screen_fini(struct screen *s);

/* Which table columns show at a width, and how wide they are. */
struct layout {
	bool metric[METRIC_COUNT];
	bool tasks;
	size_t bar;   /* share bar cells (0: percentage only) */
	size_t stack; /* columns for the stack text */
};

/* Columns of a metric's cell, of TASKS and of SHARE without its bar. */
#define LAYOUT_DURATION_COLS 8
#define LAYOUT_COUNT_COLS    7
#define LAYOUT_TASKS_COLS    6
#define LAYOUT_SHARE_COLS    8
#define LAYOUT_STACK_MIN     22

/* Decides the layout for cols columns with key (always shown): all
 * columns at 80 and more, then a shorter bar, then TASKS and the other
 * metrics (rightmost first) go. */
void layout_compute(size_t cols, enum metric key, struct layout *l);

/* Appends a share bar of width cells for part/whole: full blocks and one
 * eighth block (UTF8_ASCII in flags: '#' and nothing finer), padded with
 * spaces to width. */
enum status render_bar(struct buf *out, uint64_t part, uint64_t whole,
                       size_t width, unsigned flags);

/* Appends the stack text of stack id, leaf first ("leaf ← parent ← root",
 * " < " in ASCII), sanitised and cut to columns ("…" where cut); *width
 * gets the columns taken. */
enum status render_stack(struct buf *out, const struct model *m, uint32_t stack,
                         size_t columns, unsigned flags, size_t *width);

/* Wraps text (paragraphs split at '\n', words at ' ') into lines of at
 * most cols columns; calls line(ctx, view) for each line (borrowed).
 * Words wider than cols are cut.  Returns the number of lines. */
size_t render_wrap(struct strview text, size_t cols,
                   void (*line)(void *ctx, struct strview l), void *ctx);

struct render_in;

/* A view that replaces the table (detail, compare, tree, flame): draw
 * fills the titles row s->lines[top] and the body lines (top, end), each
 * exactly s->cols wide, from ctx (borrowed).  STATUS_NOMEM. */
struct render_body {
	enum status (*draw)(const void *ctx, const struct render_in *in,
	                    struct screen *s, size_t top, size_t end);
	const void *ctx;
};

/* Everything the screen shows, gathered by the app (all borrowed). */
struct render_in {
	const struct model *m;
	const struct window *w; /* the shown window, or NULL */
	const struct view *v;
	const char *title;    /* "asynctop · toyexec sim://local" */
	const char *state;    /* "connected", "retrying in 3 s", "REPLAY" */
	bool state_bad;       /* unreachable, lost: shown as an error */
	size_t win_pos;       /* 1-based position among the kept windows */
	size_t win_count;     /* windows kept */
	const char *mode;     /* "LIVE", "PAUSED · 3 new", "HISTORY" */
	bool collecting;      /* show the progress of the next window */
	uint64_t progress_ns; /* of window_ns */
	uint64_t window_ns;
	const char *line2;  /* replaces the progress bar when set ("replay") */
	const char *notice; /* notices line (evictions ...), or NULL */
	const char *status; /* status line message, or NULL */
	bool status_error;
	const char *message; /* body text when there is no window to show */
	bool editing;        /* the filter prompt is open */
	bool help;           /* the help screen replaces the body */
	size_t help_top;     /* its first action shown (it scrolls) */
	bool in_progress;    /* w is the window in progress (partial) */
	bool replay; /* a finite source: no Live or Pause in the footer */
	const struct render_body *body; /* a view instead of the table */
	/* the shown window's warnings: with any, a marker column before the
	 * stacks ("!" on the rows concerned); NULL for none */
	const struct warnings *warn;
	unsigned flags; /* enum utf8_flags: UTF8_ASCII */
};

/* Renders the whole screen (s sized already, its lines overwritten).
 * Below RENDER_MIN_COLS x RENDER_MIN_ROWS, a "terminal too small" notice.
 * STATUS_NOMEM. */
enum status render_screen(const struct render_in *in,
                          struct screen *s) MUST_CHECK;

/* The screen as text: each line's text without trailing spaces, '\n'
 * after each.  Appends to out. */
enum status screen_text(const struct screen *s, struct buf *out) MUST_CHECK;

#endif
