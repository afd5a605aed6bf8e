/* The optional figures of model/sample.h: their names and units, and how
 * several tasks' figures fold into one. */
#ifndef ASYNCTOP_MODEL_EXTRAS_H
#define ASYNCTOP_MODEL_EXTRAS_H

#include <stdbool.h>
#include <stdint.h>

#include "model/sample.h"

/* The known bits that name a figure; others are ignored. */
#define EXTRAS_ALL ((uint32_t)((1u << EXTRA_COUNT) - 1))

/* "self_wakes", "max_poll", ...: the pprof label key. */
const char *extra_name(enum extra e);
/* "count" or "nanoseconds": the pprof label unit. */
const char *extra_unit(enum extra e);
/* True when the figure folds by its largest value, false by the sum. */
bool extra_is_max(enum extra e);

/* Whether x knows e; *v (may be NULL) gets its value. */
static inline bool extras_get(const struct extras *x, enum extra e, uint64_t *v)
{
	bool known = (x->known >> e) & 1u;

	if (v)
		*v = known ? x->v[e] : 0;
	return known;
}

/* x as kept: the bits past EXTRAS_ALL dropped, the values of unknown
 * figures zeroed, so that two equal sets of figures compare equal. */
void extras_clean(struct extras *x);

/* a folds in b: a figure b knows is summed (saturating) or maxed into a
 * and becomes known in a; one b does not know leaves a as it was.  So a
 * fold knows a figure when any task folded in knew it, and covers those
 * tasks only; "unknown" never turns into 0. */
void extras_add(struct extras *a, const struct extras *b);

#endif
