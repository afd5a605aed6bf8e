/* Warnings: rules (a task console's usual lints, and more) evaluated on the
 * rows of a window, one table of rules (X-macro) that the marker column, the
 * header's count and the W list all read.  Pure: numbers in, warnings
 * out; no curses, no formatting of rows. */
#ifndef ASYNCTOP_TUI_WARN_H
#define ASYNCTOP_TUI_WARN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/base.h"
#include "model/model.h"
#include "model/status.h"

/* X(ID, name, what the rule says of a row) in the W list's order. */
#define WARN_LIST(X)                                                     \
	X(LONG_POLL, "long-poll",                                        \
	  "a poll or step held the loop longer than the threshold")      \
	X(NO_WAKER, "no-waker", "parked where nothing can wake it")      \
	X(SELF_WAKES, "self-wakes", "woke itself for most of its wakes") \
	X(STUCK_IDLE, "stuck-idle",                                      \
	  "idle all window with no wakes, for the last N windows")       \
	X(WAKE_STORM, "wakes-over-polls", "wakes far above polls (lost work)")

enum warn_rule {
#define WARN_ENUM(id, name, help) WARN_##id,
	WARN_LIST(WARN_ENUM)
#undef WARN_ENUM
	    WARN_COUNT
};

const char *warn_name(enum warn_rule r);
const char *warn_help(enum warn_rule r);

/* The thresholds (--warn-poll, --warn-idle). */
struct warn_cfg {
	uint64_t poll_ns;      /* long-poll: default 50 ms */
	uint64_t idle_windows; /* stuck-idle: default 3 windows */
};

#define WARN_POLL_NS_DEFAULT      ((uint64_t)50 * 1000000)
#define WARN_IDLE_WINDOWS_DEFAULT 3
/* self-wakes: more than half the wakes, of at least this many */
#define WARN_SELF_WAKES_MIN 10
/* wakes-over-polls: wakes at least this many times the polls, and at
 * least WARN_STORM_MIN wakes */
#define WARN_STORM_FACTOR 4
#define WARN_STORM_MIN    100

/* One warning: the rule, the row of the window, and its figure (the
 * longest poll in ns; tasks with no waker; self-wakes; windows idle;
 * wakes) and what it is measured against (the threshold; -; the wakes;
 * the window count asked; the polls). */
struct warning {
	uint32_t row;
	enum warn_rule rule;
	uint64_t figure, of;
};

/* The warnings of one window, kept with what they were evaluated for. */
struct warnings {
	struct warning *v; /* by rule, then by row in canonical order */
	size_t n, cap;
	uint64_t *rows; /* a bit per row: it has a warning */
	size_t rows_cap;
	size_t nrows;
	uint32_t rule_count[WARN_COUNT];
	/* what it holds: m and w (compared only), w's seq and grouping, cfg */
	const struct model *m;
	const struct window *w;
	uint64_t seq;
	struct grouping group;
	struct warn_cfg cfg;
	bool ok;
};

void warn_init(struct warnings *ws);
void warn_fini(struct warnings *ws);

/* Evaluates cfg's rules on w's rows (w of m).  stuck-idle looks back at
 * the kept windows of m before w, and only for a window by spawn stack
 * unsplit (the kept windows' grouping; another grouping would need each
 * one derived again).  Does nothing when ws already holds w as it is.
 * STATUS_NOMEM (ws then holds nothing). */
enum status warn_eval(struct warnings *ws, const struct model *m,
                      const struct window *w,
                      const struct warn_cfg *cfg) MUST_CHECK;
/* True when ws holds w of m evaluated with cfg (warn_eval of them would
 * do nothing).  Cannot fail. */
bool warn_holds(const struct warnings *ws, const struct model *m,
                const struct window *w, const struct warn_cfg *cfg);

/* warn_eval of w, built but not kept yet, as the window that will follow
 * m's kept windows (stuck-idle looks back only at those that stay once w
 * is kept, past max_windows).  It only reads m, so it may run beside a
 * thread that only reads m too.  STATUS_NOMEM. */
enum status warn_eval_next(struct warnings *ws, const struct model *m,
                           const struct window *w,
                           const struct warn_cfg *cfg) MUST_CHECK;
/* Takes next's warnings into ws (their memories swapped) when next holds
 * w, evaluated by warn_eval_next before w was kept; w's seq is now set.
 * Otherwise does nothing (warn_eval then evaluates w as usual). */
void warn_adopt(struct warnings *ws, struct warnings *next,
                const struct window *w);

/* Row r of the evaluated window has a warning.  Cannot fail. */
static inline bool warn_row(const struct warnings *ws, size_t r)
{
	return ws->ok && r < ws->nrows && (ws->rows[r / 64] >> (r % 64) & 1);
}

/* The figure of w worded into dst: "longest poll 120.0ms (over 50.0ms)",
 * "2 tasks parked with no waker", "31 of 40 wakes", "idle 3 windows",
 * "900 wakes, 12 polls". */
void warn_figure(const struct warning *wn, char *dst, size_t size);

#endif
