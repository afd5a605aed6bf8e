/* What model_add admits of a sample, decided from the model's limits
 * alone: whether its views are usable, which of its stacks the depth cap
 * (or its producer) cut, and how many of its strings max_name will clip. */
#ifndef ASYNCTOP_MODEL_ADMIT_H
#define ASYNCTOP_MODEL_ADMIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/model.h"
#include "model/sample.h"

/* Whether a stack of depth frames, of which its producer already left
 * dropped out, is marked [truncated N frames]: it is deeper than
 * lim->max_depth, or the producer cut it. */
bool admit_cut(const struct model_limits *lim, size_t depth, size_t dropped);

/* The frames of a cut stack that are kept, nearest the leaf (the marker
 * takes the remaining slot). */
size_t admit_kept(const struct model_limits *lim, size_t depth);

/* Checks s's views (a NULL pointer with a nonzero length, frames missing
 * for a depth): false when any is unusable.  *clipped gets how many of the
 * strings kept (the task name, the frames the depth cap keeps, of both
 * stacks) are longer than lim->max_name. */
bool admit_scan(const struct model_limits *lim, const struct sample *s,
                uint64_t *clipped);

#endif
