/* One grouping derived from a kept window (model_group_memo), kept until
 * the window or the grouping changes, so the viewer derives once per shown
 * window and grouping, never per frame drawn; and the memo of the text
 * order of the parked-at stacks and names, kept across windows, so that
 * deriving sorts only what a window brings new (a few ms at 100,000
 * entries, where sorting them all took 35 to 80). */
#ifndef ASYNCTOP_TUI_GROUPED_H
#define ASYNCTOP_TUI_GROUPED_H

#include <stdbool.h>
#include <stdint.h>

#include "model/base.h"
#include "model/model.h"
#include "model/status.h"

struct grouped {
	const struct model *m;    /* of src (borrowed) */
	const struct window *src; /* the kept window, compared only */
	uint64_t seq;             /* src's, so a reused address is told */
	struct grouping g;
	const struct window *w; /* src grouped as g; src itself by default */
	uint64_t derived;       /* model_group calls over c's life */
	struct group_memo memo; /* kept across windows and drops */
};

/* Two groupings are the same rows. */
static inline bool grouping_eq(struct grouping a, struct grouping b)
{
	return a.key == b.key && a.by_name == b.by_name;
}

/* kept (a kept window of m, or NULL) grouped as g, derived only when c
 * does not hold it already.  *out gets it; kept itself for the default
 * grouping, and NULL for a NULL kept.  On STATUS_NOMEM *out is kept
 * (ungrouped: its w->group says so) and c holds nothing. */
enum status grouped_get(struct grouped *c, const struct model *m,
                        const struct window *kept, struct grouping g,
                        const struct window **out) MUST_CHECK;

/* What c holds, when it holds kept of m as g; else NULL.  Cannot fail. */
const struct window *grouped_peek(const struct grouped *c,
                                  const struct model *m,
                                  const struct window *kept, struct grouping g);

/* Frees what c derived (before its kept window can be evicted: before
 * every commit to its model); c then holds nothing but its memo. */
void grouped_drop(struct grouped *c);
/* grouped_drop, and frees the memo too: c can be zeroed after. */
void grouped_fini(struct grouped *c);

#endif
