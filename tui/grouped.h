/* The groupings derived from kept windows (model_group_memo), a few kept
 * at once, so the viewer derives once per kept window and grouping, never
 * per frame drawn: the shown window's, and compare's base, which is most
 * often a window shown (and so derived) before; a grouping survives the
 * operator going back to the default and a new window's arrival, and
 * goes only when its window leaves the history or a newer grouping needs
 * its place.  Also the memo of the text order of the parked-at stacks and
 * names, kept across windows, so that deriving sorts only what a window
 * brings new (a few ms at 100,000 entries, where sorting them all took 35
 * to 80). */
#ifndef ASYNCTOP_TUI_GROUPED_H
#define ASYNCTOP_TUI_GROUPED_H

#include <stdbool.h>
#include <stdint.h>

#include "model/base.h"
#include "model/model.h"
#include "model/status.h"

/* The most groupings held at once: each at most the size of the kept
 * window it is derived from (its rows, an index, and a copy of the
 * entries when by parked-at stack). */
#define GROUPED_SLOTS 4

/* One kept window as one grouping. */
struct grouped_slot {
	const struct model *m;    /* of src (borrowed) */
	const struct window *src; /* the kept window, compared only */
	uint64_t seq;             /* src's, so a reused address is told */
	struct grouping g;
	const struct window *w; /* src grouped as g; NULL: a free slot */
	uint64_t used;          /* when last got: the oldest goes first */
};

struct grouped {
	struct grouped_slot slot[GROUPED_SLOTS];
	uint64_t clock;         /* counts the gets, for used */
	uint64_t derived;       /* model_group calls over c's life */
	struct group_memo memo; /* kept across windows and drops */
	struct group_step step; /* a split by name being made (grouped_step) */
	const struct model *step_m;
};

/* Two groupings are the same rows. */
static inline bool grouping_eq(struct grouping a, struct grouping b)
{
	return a.key == b.key && a.by_name == b.by_name;
}

/* kept (a kept window of m, or NULL) grouped as g, derived only when c
 * does not hold it already.  *out gets it; kept itself for the default
 * grouping, and NULL for a NULL kept.  A grouping derived takes a free
 * slot, else the one got longest ago, but never the one holding keep (a
 * window got from c before, that the caller still reads; NULL: none).
 * On STATUS_NOMEM *out is kept (ungrouped: its w->group says so) and c
 * holds what it held. */
enum status grouped_get(struct grouped *c, const struct model *m,
                        const struct window *kept, struct grouping g,
                        const struct window *keep,
                        const struct window **out) MUST_CHECK;

/* grouped_get of kept split by name under the spawn stack, made a step
 * at a time (model_split_step, about budget entries or rows a step):
 * *done once c holds it (a slot taken as grouped_get takes one); a step
 * on another window or model begins again.  STATUS_INVAL for another
 * grouping; STATUS_NOMEM: c holds what it held. */
enum status grouped_step(struct grouped *c, const struct model *m,
                         const struct window *kept, struct grouping g,
                         const struct window *keep, size_t budget,
                         bool *done) MUST_CHECK;

/* What c holds, when it holds kept of m as g; else NULL.  Cannot fail. */
const struct window *grouped_peek(const struct grouped *c,
                                  const struct model *m,
                                  const struct window *kept, struct grouping g);

/* Frees what c derived from windows of m that m no longer keeps (after
 * every commit to m and every eviction from it, before anything reads
 * what c holds). */
void grouped_forget(struct grouped *c, const struct model *m);

/* Frees all that c derived; c then holds nothing but its memo. */
void grouped_drop(struct grouped *c);
/* grouped_drop, and frees the memo too: c can be zeroed after. */
void grouped_fini(struct grouped *c);

#endif
