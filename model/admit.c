/* Checking a sample against the model's limits before it is added. */
#include "model/admit.h"

#include "model/base.h"

static bool view_ok(struct strview v)
{
	return v.ptr != NULL || v.len == 0;
}

bool admit_cut(const struct model_limits *lim, size_t depth, size_t dropped)
{
	return depth > lim->max_depth || (dropped && depth);
}

size_t admit_kept(const struct model_limits *lim, size_t depth)
{
	return size_min(depth, lim->max_depth - 1);
}

/* The frames' part of admit_scan. */
static bool scan_frames(const struct model_limits *lim, const struct strview *f,
                        size_t depth, size_t dropped, uint64_t *clipped)
{
	size_t from = 0;

	if (depth && !f)
		return false;
	if (admit_cut(lim, depth, dropped))
		from = depth - admit_kept(lim, depth);
	for (size_t i = 0; i < depth; i++) {
		if (!view_ok(f[i]))
			return false;
		if (i >= from && f[i].len > lim->max_name)
			(*clipped)++;
	}
	return true;
}

bool admit_scan(const struct model_limits *lim, const struct sample *s,
                uint64_t *clipped)
{
	if (!view_ok(s->task))
		return false;
	*clipped = s->task.len > lim->max_name;
	return scan_frames(lim, s->frames, s->depth, s->dropped, clipped) &&
	       scan_frames(lim, s->parked, s->parked_depth, s->parked_dropped,
	                   clipped);
}
