/* The `text` format of `record -f text` (docs/design.md §5): a header with the
 * window's totals, then for each metric the top stacks in columns IDLE
 * BUSY SCHED POLLS WAKES TASKS STACK (leaf ← root), humanised, locale-free.
 * docs/formats.md shows an example. */
#ifndef ASYNCTOP_ENCODE_TEXT_H
#define ASYNCTOP_ENCODE_TEXT_H

#include <stdbool.h>
#include <stddef.h>

#include "model/base.h"
#include "model/buf.h"
#include "model/metric.h"
#include "model/status.h"

struct model;
struct window;

#define TEXT_TOP_DEFAULT 10

struct text_opts {
	enum metric first; /* the first section (-m); default METRIC_IDLE */
	size_t top;        /* rows per section; 0 = every row; default 10 */
	size_t width;      /* 0: never truncate; else fit lines to it */
	bool ascii;        /* ASCII only: "<-", "~", '?' for non-ASCII */
};

/* Fills o with the defaults: idle first, top 10, width 0, UTF-8. */
void text_opts_default(struct text_opts *o);

/* Appends the text report of window w of m (both borrowed) to out.  o may
 * be NULL for the defaults.
 *
 * Header lines: "window N", the start in UTC, the measured length, the
 * task and stack counts; "partial: REASON" when the window is partial;
 * "source: SOURCE" when known; "total" and the five totals.  Then one section
 * per metric, from o->first in display order (idle busy sched polls wakes,
 * wrapping): a blank line, "top N by METRIC", the column headings, and the
 * stacks with a nonzero value for that metric, largest first (ties: stack text
 * ascending), at most top of them, or "(no tasks with METRIC)".  Numeric
 * columns are right-aligned and as wide as their widest figure (at least
 * 7 for durations, 6 for counts).  Stacks are printed leaf first, joined
 * by " ← ", sanitised for display (utf8.h: never a raw control character
 * or escape sequence); stacks that read the same once sanitised are merged.
 *
 * With a width, every line is cut to that many display columns: the STACK
 * column is elided at its end with "…" and the header lines likewise; the
 * numeric columns are never cut, so below about 60 columns a table line
 * can be wider than asked.  Width 0 never truncates.
 *
 * Returns STATUS_EMPTY_WINDOW for an empty window (nothing appended),
 * STATUS_INVAL for bad arguments, STATUS_NOMEM or out's sticky error (then
 * out's appended bytes are unspecified).  Deterministic; does not block. */
enum status text_encode(const struct model *m, const struct window *w,
                        const struct text_opts *o, struct buf *out) MUST_CHECK;

#endif
