/* The viewer's derived groupings of kept windows, a few at once. */
#include "tui/grouped.h"

#include <stddef.h>

static bool holds(const struct grouped_slot *s, const struct model *m,
                  const struct window *kept, struct grouping g)
{
	return s->w && s->m == m && s->src == kept && s->seq == kept->seq &&
	       grouping_eq(s->g, g);
}

const struct window *grouped_peek(const struct grouped *c,
                                  const struct model *m,
                                  const struct window *kept, struct grouping g)
{
	for (size_t i = 0; kept && i < GROUPED_SLOTS; i++)
		if (holds(&c->slot[i], m, kept, g))
			return c->slot[i].w;
	return NULL;
}

static void slot_free(struct grouped_slot *s)
{
	if (s->w)
		model_group_free(s->w);
	*s = (struct grouped_slot){ .w = NULL };
}

void grouped_forget(struct grouped *c, const struct model *m)
{
	for (size_t i = 0; i < GROUPED_SLOTS; i++) {
		struct grouped_slot *s = &c->slot[i];

		/* reads only m's ring: src itself may be freed already */
		if (s->w && s->m == m && model_window_seq(m, s->seq) != s->src)
			slot_free(s);
	}
}

void grouped_drop(struct grouped *c)
{
	for (size_t i = 0; i < GROUPED_SLOTS; i++)
		slot_free(&c->slot[i]);
}

void grouped_fini(struct grouped *c)
{
	grouped_drop(c);
	group_memo_fini(&c->memo);
}

/* The slot a new grouping takes: a free one, else the one got longest
 * ago that does not hold keep. */
_Static_assert(GROUPED_SLOTS >= 2, "a slot besides the kept one");

static struct grouped_slot *victim(struct grouped *c, const struct window *keep)
{
	struct grouped_slot *v = NULL;

	for (size_t i = 0; i < GROUPED_SLOTS; i++) {
		struct grouped_slot *s = &c->slot[i];

		if (!s->w)
			return s;
		if (s->w != keep && (!v || s->used < v->used))
			v = s;
	}
	return v;
}

enum status grouped_get(struct grouped *c, const struct model *m,
                        const struct window *kept, struct grouping g,
                        const struct window *keep, const struct window **out)
{
	struct grouped_slot *s = NULL;

	*out = kept;
	/* the default grouping is the kept window itself: nothing to derive */
	if (!kept || grouping_eq(g, (struct grouping){ .key = GROUP_SPAWN }))
		return STATUS_OK;
	for (size_t i = 0; !s && i < GROUPED_SLOTS; i++)
		if (holds(&c->slot[i], m, kept, g))
			s = &c->slot[i];
	if (!s) {
		const struct window *w;
		enum status st;

		c->derived++;
		st = model_group_memo(m, kept, g, &c->memo, &w);
		if (st != STATUS_OK)
			return st;
		s = victim(c, keep);
		slot_free(s);
		*s = (struct grouped_slot){
			.m = m, .src = kept, .seq = kept->seq, .g = g, .w = w
		};
	}
	s->used = ++c->clock;
	*out = s->w;
	return STATUS_OK;
}
