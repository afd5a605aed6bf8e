/* What the two files of model_group share (internal to model/): the sums
 * of a derived row and the last touch of a derived window. */
#ifndef ASYNCTOP_MODEL_GROUP_INT_H
#define ASYNCTOP_MODEL_GROUP_INT_H

#include "model/extras.h"
#include "model/model.h"
#include "model/ring.h"

/* Entry e of w summed into the derived row r.  Inline: it runs once an
 * entry, where a call per entry (and one more for the metrics) cost a
 * tenth of a derivation. */
static inline void group_row_add(const struct window *w, struct fold_row *r,
                                 const struct fold_entry *e)
{
	r->count++;
	r->tasks = u64_add_sat(r->tasks, e->tasks);
	for (unsigned i = 0; i < METRIC_COUNT; i++)
		r->m.v[i] = u64_add_sat(r->m.v[i], e->m.v[i]);
	if (e->xi) /* the entries keep pointing at w's figures */
		extras_add(&r->x, window_extras(w, e));
}

/* wp, derived from w as g, made a window like w: the same seq, meta,
 * stats and totals, with its own rows, entries and index. */
const struct window *group_finish(struct window_priv *wp,
                                  const struct window *w, struct grouping g);

/* w, a kept window, split by name under the spawn stack into *out (not
 * finished); STATUS_NOMEM. */
enum status group_split(const struct window *w, struct window_priv **out);

#endif
