/* The viewer's one derived grouping per kept window. */
#include "tui/grouped.h"

#include <stddef.h>

const struct window *grouped_peek(const struct grouped *c,
                                  const struct model *m,
                                  const struct window *kept, struct grouping g)
{
	if (!kept || !c->w || c->m != m || c->src != kept ||
	    c->seq != kept->seq || !grouping_eq(c->g, g))
		return NULL;
	return c->w;
}

void grouped_drop(struct grouped *c)
{
	if (c->w)
		model_group_free(c->w);
	*c = (struct grouped){ .derived = c->derived, .memo = c->memo };
}

void grouped_fini(struct grouped *c)
{
	grouped_drop(c);
	group_memo_fini(&c->memo);
}

enum status grouped_get(struct grouped *c, const struct model *m,
                        const struct window *kept, struct grouping g,
                        const struct window **out)
{
	const struct window *w = grouped_peek(c, m, kept, g);
	enum status st;

	*out = kept;
	if (w) {
		*out = w;
		return STATUS_OK;
	}
	grouped_drop(c);
	/* the default grouping is the kept window itself: nothing to derive */
	if (!kept || grouping_eq(g, (struct grouping){ .key = GROUP_SPAWN }))
		return STATUS_OK;
	c->derived++;
	st = model_group_memo(m, kept, g, &c->memo, &w);
	if (st != STATUS_OK)
		return st;
	*c = (struct grouped){ .m = m,
		               .src = kept,
		               .seq = kept->seq,
		               .g = g,
		               .w = w,
		               .derived = c->derived,
		               .memo = c->memo };
	*out = w;
	return STATUS_OK;
}
