/* The table's state, pure and testable: weighting and direction, the
 * sorted and filtered rows (an order over a window), the selection kept by
 * stack id across refreshes and re-sorts, scrolling and the filter. */
#ifndef ASYNCTOP_TUI_VIEW_H
#define ASYNCTOP_TUI_VIEW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/base.h"
#include "model/buf.h"
#include "model/metric.h"
#include "model/model.h"
#include "model/order.h"
#include "model/status.h"

#define VIEW_FILTER_MAX 256

struct view {
	enum metric metric; /* the weighting: drives the order and the bar */
	bool ascending;     /* inverted order (smallest first) */
	struct order order; /* rows of w shown, in display order */
	bool has_sel;
	uint32_t sel_stack; /* the selected stack's id (kept across builds) */
	size_t sel;         /* its position in order */
	size_t top;         /* first position shown */
	size_t page;        /* rows the body shows (at least 1) */
	char filter[VIEW_FILTER_MAX]; /* NUL-terminated, may be "" */
	size_t filter_len;
	const struct model *m; /* of the last build (borrowed) */
	const struct window *w;
	/* private: rows the last filter kept, so that typing more of a
	 * filter only re-checks those (a bit per row of kept_w) */
	uint64_t *kept;
	size_t kept_words;
	const struct window *kept_w;
	uint64_t kept_seq;
	char kept_filter[VIEW_FILTER_MAX];
	size_t kept_len;
	bool narrowing;
	/* private: each row's frames and task names, lower-cased, one block
	 * per row (hay_off[r] .. hay_off[r + 1]), built once per window while
	 * a filter is on, so typing scans contiguous memory */
	struct buf hay;
	size_t *hay_off;
	size_t hay_cap;
	const struct window *hay_w;
	uint64_t hay_seq;
};

void view_init(struct view *v, enum metric metric);
void view_fini(struct view *v);

/* Rebuilds the rows of w (borrowed from m; NULL for none) in the view's
 * order and filter, then puts the selection back on the same stack id, or,
 * when that stack is gone, on the same position clamped to the rows; and
 * scrolls so the selection shows.  STATUS_NOMEM leaves no rows. */
enum status view_build(struct view *v, const struct model *m,
                       const struct window *w) MUST_CHECK;

/* Sets the body height (rows >= 1) and scrolls to keep the selection. */
void view_set_page(struct view *v, size_t rows);

/* Moves the selection by delta rows, clamped; scrolls to keep it shown. */
void view_move(struct view *v, long delta);
/* Selects position pos (clamped), e.g. from a mouse click. */
void view_select(struct view *v, size_t pos);
/* Scrolls by delta without moving the selection past the page (wheel). */
void view_scroll(struct view *v, long delta);

/* True when row (an index into w->rows) matches needle: a case-insensitive
 * (ASCII) substring of one of its frames or task names.  An empty needle
 * matches everything. */
bool view_row_matches(const struct model *m, const struct window *w, size_t row,
                      const char *needle, size_t len);

/* The window row index at display position pos, or SIZE_MAX. */
size_t view_row_at(const struct view *v, size_t pos);

#endif
