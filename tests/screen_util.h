/* Helpers of the headless screen tests: an app at pinned settings, windows
 * committed from tables of rows, the screen as text, a row selected by its
 * leaf, and golden screens under tests/data/screens
 * (ASYNCTOP_UPDATE_GOLDEN=1 rewrites them). */
#ifndef ASYNCTOP_TESTS_SCREEN_UTIL_H
#define ASYNCTOP_TESTS_SCREEN_UTIL_H

#include <stddef.h>
#include <stdint.h>

#include "model/buf.h"
#include "model/metric.h"
#include "tui/app.h"

#define T0  ((int64_t)1700000000 * 1000000000) /* 2023-11-14T22:13:20Z */
#define SEC ((int64_t)1000000000)

/* The most frames and rows su_commit takes. */
#define SU_DEPTH 40
#define SU_ROWS  64

/* One sample of a scripted window. */
struct su_row {
	const char *frames[SU_DEPTH]; /* root first, NULL-terminated */
	const char *task;
	uint64_t v[METRIC_COUNT];
	uint64_t tasks;
};

/* What a sample may tell beside an su_row: where its task is parked, root
 * first, NULL-terminated (none: unknown), and its optional figures. */
struct su_more {
	const char *parked[SU_DEPTH];
	struct extras x;
};

/* An app as the golden screens want it: toyexec sim://golden, 5 s windows,
 * idle, TZ=UTC, its clock at 1000 s. */
void su_app(struct app *a);

/* The viewer's steps between keys until none is wanted (the operator's
 * pause); returns how many it took, and fails the test past most. */
size_t su_idle_all(struct app *a, size_t most);

/* Commits rows[0 .. n) as a 5 s window starting at start (ns since the
 * epoch); an empty window for n 0. */
void su_commit(struct app *a, const struct su_row *rows, size_t n,
               int64_t start);
/* su_commit with more[i] (NULL: none) beside rows[i]. */
void su_commit_more(struct app *a, const struct su_row *rows,
                    const struct su_more *more, size_t n, int64_t start);

/* rows[0 .. n) as a window in progress, as the worker's partial figures
 * come: folded into a->pm, apart from the kept windows, and a->pm shown
 * while 'o' is on. */
void su_progress(struct app *a, const struct su_row *rows, size_t n,
                 int64_t start);

/* a's screen as text at cols x rows into out (initialised; reset first),
 * a C string; fails the test when it cannot be drawn. */
void su_screen(struct app *a, size_t cols, size_t rows, struct buf *out);

/* Selects the table row whose stack's leaf starts with leaf; fails the
 * test, showing the screen, when no row has it. */
void su_select_leaf(struct app *a, const char *leaf);

/* Renders a at cols x rows 2.6 s into the window, checks that it is valid
 * UTF-8 without control bytes, and compares it with
 * tests/data/screens/NAME.screen. */
void su_golden(struct app *a, size_t cols, size_t rows, const char *name);

/* a's screen in the C locale (UTF8_ASCII) at cols x rows: pure ASCII, and
 * no more '?' than the UTF-8 screen has (with ASCII names, an extra '?' is
 * a glyph without its ASCII form).  Leaves a->flags UTF8_ASCII. */
void su_ascii_check(struct app *a, size_t cols, size_t rows, const char *what);

#endif
