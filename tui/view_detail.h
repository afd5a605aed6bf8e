/* The detail of one row (Enter or d): its whole stack root first, the five
 * metrics with each one's share of the window, the per-poll means and the
 * optional figures ("unknown" where the runtime cannot tell), a sparkline
 * of the weighting for this row across the kept windows (in the shown
 * grouping, summed from each kept window's entries), the row's other
 * stacks (where its tasks are parked, or where the tasks parked here were
 * spawned) and the tasks folded into the row by name with their own
 * figures, sorted by the weighting.  A pure renderer into screen lines; it
 * scrolls. */
#ifndef ASYNCTOP_TUI_VIEW_DETAIL_H
#define ASYNCTOP_TUI_VIEW_DETAIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/metric.h"
#include "model/model.h"
#include "model/status.h"
#include "tui/render.h"

/* The most kept windows the sparkline draws (the newest ones). */
#define SPARK_MAX 120
/* Entries a sparkline update scans at most (a kept window's entries are
 * scanned for a row by parked-at stack): the rest waits for the next
 * update, so a key is answered within its bound whatever the history. */
#define SPARK_BUDGET 200000

/* The figures of one row (a grouping, a stack and a name) in the newest
 * kept windows, summed once per window and kept across draws and keys. */
struct spark {
	const struct model *m; /* compared only */
	struct grouping g;
	uint32_t stack, name;
	size_t n; /* windows, oldest first */
	uint64_t seq[SPARK_MAX];
	struct metrics v[SPARK_MAX];
	bool have[SPARK_MAX]; /* the window has the row */
	bool done[SPARK_MAX]; /* v and have are known */
	size_t pending;       /* windows not summed yet */
};

/* The sparkline's columns on a screen cols wide. */
size_t spark_columns(size_t cols);

/* Brings sp up to the newest ncols kept windows of m for the row (g,
 * stack, name): windows summed before are kept, the others are summed,
 * newest first, until budget entries were scanned (SPARK_BUDGET in the
 * viewer; at least one window a call); sp->pending says how many are left
 * for the next call.  Cannot fail. */
void spark_update(struct spark *sp, const struct model *m, struct grouping g,
                  uint32_t stack, uint32_t name, size_t ncols, size_t budget);

/* One of a row's other stacks: its entries' sums. */
struct detail_other {
	uint32_t stack;
	uint64_t tasks;
	struct metrics m;
};

/* What the detail of a row computes from its entries, kept across draws
 * (a row may fold a whole window: 100,000 entries): its other stacks
 * folded once per row, their order and the tasks' once per weighting.
 * Zero-initialised; detail_prepare fills it, detail_cache_fini frees. */
struct detail_cache {
	const struct model *m;  /* compared only */
	const struct window *w; /* compared only */
	uint64_t seq;
	struct grouping g;
	size_t row;
	bool folded, sorted;
	enum metric metric;
	bool ascending;
	struct detail_other *other; /* by stack id */
	size_t nother;
	uint32_t names;   /* distinct task names of the row */
	uint32_t *oorder; /* others, heaviest first by the weighting */
	uint32_t *torder; /* the row's entries (from its first) as shown */
	size_t tsorted;   /* those in torder, from the first: a page's worth,
	                     or all of them */
	/* private: capacities and the radix sort's scratch */
	size_t other_cap, oorder_cap, torder_cap;
	uint64_t *keys, *tkeys;
	uint32_t *tvals;
	size_t keys_cap, tkeys_cap, tvals_cap;
};

void detail_cache_fini(struct detail_cache *dc);

struct detail_in {
	const struct model *m;
	const struct window *w; /* the shown window */
	uint32_t stack;         /* the row's stack (of w->group.key) */
	uint32_t name;          /* its task name when split by name */
	enum metric metric; /* the weighting: share, sparkline, task order */
	bool ascending;
	size_t top;  /* first line of the detail shown (scrolled) */
	size_t page; /* lines the body shows (0: as many as it has) */
	const struct spark *spark; /* spark_update'd for this row, or NULL */
	const struct detail_cache *cache; /* detail_prepare'd, or NULL */
};

/* Brings dc up to date for in's row, weighting and direction (a no-op when
 * it is); what in->cache must be for the draw to list the other stacks and
 * the tasks.  STATUS_NOMEM (the draw then says so). */
enum status detail_prepare(struct detail_cache *dc,
                           const struct detail_in *in) MUST_CHECK;

/* The row of in's stack and name in in->w, or SIZE_MAX. */
size_t detail_row(const struct detail_in *in);

/* Lines the detail of in has in all (for the app to clamp scrolling). */
size_t detail_count(const struct detail_in *in);

/* Draws the title row at s->lines[top] and the detail from in->top in
 * lines (top, end).  A stack gone from the shown window says so.
 * render_body's draw for ctx a struct detail_in.  STATUS_NOMEM. */
enum status detail_draw(const void *ctx, const struct render_in *rin,
                        struct screen *s, size_t top, size_t end) MUST_CHECK;

#endif
