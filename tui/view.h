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

struct view_index;

/* private: which window (and seq) a cached result belongs to */
struct view_tag {
	const struct window *w;
	uint64_t seq;
	struct grouping group; /* a derived window's address comes back */
	bool ok;
};

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
	/* private caches, so that a filter key neither sorts nor searches
	 * more than it must.  order_tag: order holds every row of its window
	 * (no filter) in order.key / order.descending.  all: the same for the
	 * filtered view, which then picks the matching rows out of it. */
	struct view_tag order_tag;
	struct order all;
	struct view_tag all_tag;
	/* a bit per row of match_tag's window: the row matches match_fold
	 * (the filter case-folded); a longer or shorter filter only checks
	 * the rows whose answer can change */
	uint64_t *match;
	size_t match_words;
	struct view_tag match_tag;
	char match_fold[VIEW_FILTER_MAX];
	size_t match_len;
	/* the search index of a window (built when a filter first needs it,
	 * or between keys); idle_failed: the window whose build between keys
	 * ran out of memory, left to the keys */
	struct view_index *ix;
	struct view_tag idle_failed;
	/* the positions of order in place, from in_lo to in_hi: all of them
	 * (0 to order.n) but after a build of a large window that found no
	 * full order at hand, which puts only those about the selection's
	 * page in place (a quarter of the rows at most, else it sorts all);
	 * part_tag: the window they are of; part_hits: they are of the rows
	 * match holds (a filter), not of every row.  A move past them puts
	 * more in place first, and a full order of the window
	 * (view_adopt_order) completes them. */
	size_t in_lo, in_hi;
	struct view_tag part_tag;
	bool part_hits;
};

/* An empty view weighted by metric, no filter.  Does not allocate. */
void view_init(struct view *v, enum metric metric);
/* Frees what the view's builds allocated; v can be view_init'ed again. */
void view_fini(struct view *v);

/* Rebuilds the rows of w (borrowed from m; NULL for none) in the view's
 * order, keeping the rows that match the filter (view_row_matches), then
 * puts the selection back on the same stack id, or, when that stack is
 * gone, on the same position clamped to the rows; and scrolls so the
 * selection shows.  Does not block.  What it computes is cached per window
 * (by pointer and seq): a filter key picks the matching rows out of the
 * full order, and searches an index of the frames and stacks that
 * view_idle_step builds between keys and later builds bring up to date;
 * what each stack and task name was found to hold is kept across windows
 * for the same filter.  A key that finds the index far from built (no
 * pause since '/') reads the window's rows and frames without it.
 * Without a full order at hand (with a filter or not), only the positions
 * about the page the selection is on are put in place (VIEW_SELECT at
 * least, doubling), exactly as the full sort places them; the row count
 * is the full sort's (with a filter, the hits'), and a move or
 * view_adopt_order puts more in place.  The
 * caches hold ids of m, so a view serves one model: after that model is
 * freed, view_fini and view_init the view before building with another.
 * STATUS_NOMEM leaves no rows. */
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
 * substring of one of its frames or task names.  Case is folded in ASCII
 * and in the two-byte UTF-8 letters of Latin-1, Latin Extended-A, Greek,
 * Cyrillic and Armenian (simple, length-keeping folds); other bytes match
 * exactly.  An empty needle matches everything. */
bool view_row_matches(const struct model *m, const struct window *w, size_t row,
                      const char *needle, size_t len);

/* The filter's index between keys, so that the first filter key finds
 * it built: view_idle_wanted is true when the index of w (m's; NULL: none)
 * is not built and no build of it ran out of memory; view_idle_step
 * builds a part of it, reading about budget frames of m (a row is one).
 * m and w as for view_build; the rows shown do not change.  STATUS_NOMEM
 * leaves v as it was but for the index, which the next key builds again
 * (and reports), so a caller between keys may ignore it. */
bool view_idle_wanted(const struct view *v, const struct model *m,
                      const struct window *w);
enum status view_idle_step(struct view *v, const struct model *m,
                           const struct window *w, size_t budget);

/* The fewest positions a build puts in place when it sorts only a part. */
#define VIEW_SELECT 64

/* True when v shows rows of w of which only a part is in order (the
 * rest to be sorted between keys, or by the move that needs them).
 * Cannot fail. */
bool view_partial(const struct view *v, const struct window *w);

/* Puts every position of v's order in place (a full sort when only a
 * part is); a no-op otherwise.  The memory is the part's: cannot fail. */
void view_complete(struct view *v);

/* The window row index at display position pos, or SIZE_MAX (also past
 * the positions in place, which the moves never show). */
size_t view_row_at(const struct view *v, size_t pos);

/* True when the view holds every row of w (borrowed, only compared)
 * sorted in its weighting and direction, so that a view_build of w
 * without a filter sorts nothing.  Cannot fail. */
bool view_has_order(const struct view *v, const struct window *w);

/* Takes o (its memory swapped with the view's cache) as every row of w
 * sorted, when it is in the view's weighting: the next view_build of w
 * then needs no sort, and a view showing w in part (a filter's hits too)
 * shows it whole.  o, sorted
 * elsewhere, must hold every row of w (order_build without keep). */
void view_adopt_order(struct view *v, const struct window *w, struct order *o);

#endif
