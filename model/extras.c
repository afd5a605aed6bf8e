/* The optional figures' table and their fold. */
#include "model/extras.h"

#include <stddef.h>

#include "model/base.h"

enum fold { SUM, MAX };

static const struct {
	const char *name, *unit;
	enum fold fold;
} info[EXTRA_COUNT] = {
#define EXTRA_INFO(id, n, u, f) [EXTRA_##id] = { n, u, f },
	EXTRA_LIST(EXTRA_INFO)
#undef EXTRA_INFO
};

const char *extra_name(enum extra e)
{
	return (size_t)e < EXTRA_COUNT ? info[e].name : "";
}

const char *extra_unit(enum extra e)
{
	return (size_t)e < EXTRA_COUNT ? info[e].unit : "";
}

bool extra_is_max(enum extra e)
{
	return (size_t)e < EXTRA_COUNT && info[e].fold == MAX;
}

void extras_clean(struct extras *x)
{
	x->known &= EXTRAS_ALL;
	for (size_t e = 0; e < EXTRA_COUNT; e++) {
		if (!((x->known >> e) & 1u))
			x->v[e] = 0;
	}
}

void extras_add(struct extras *a, const struct extras *b)
{
	uint32_t bits = b->known & EXTRAS_ALL;

	for (size_t e = 0; bits; e++, bits >>= 1) {
		if (!(bits & 1u))
			continue;
		if (!((a->known >> e) & 1u))
			a->v[e] = b->v[e];
		else if (info[e].fold == MAX)
			a->v[e] = b->v[e] > a->v[e] ? b->v[e] : a->v[e];
		else
			a->v[e] = u64_add_sat(a->v[e], b->v[e]);
	}
	a->known |= b->known & EXTRAS_ALL;
}
