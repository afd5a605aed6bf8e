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
	/* a split being made of a window that left goes too */
	if (c->step_m == m && c->step.src &&
	    model_window_seq(m, c->step.seq) != c->step.src)
		group_step_fini(&c->step);
	for (size_t i = 0; i < GROUPED_SLOTS; i++) {
		struct grouped_slot *s = &c->slot[i];

		/* reads only m's ring: src itself may be freed already */
		if (s->w && s->m == m && model_window_seq(m, s->seq) != s->src)
			slot_free(s);
	}
}

void grouped_drop(struct grouped *c)
{
	group_step_fini(&c->step);
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

/* Puts w, kept of m derived as g, in a slot (never keep's). */
static struct grouped_slot *take(struct grouped *c, const struct model *m,
                                 const struct window *kept, struct grouping g,
                                 const struct window *keep,
                                 const struct window *w)
{
	struct grouped_slot *s = victim(c, keep);

	slot_free(s);
	*s = (struct grouped_slot){
		.m = m, .src = kept, .seq = kept->seq, .g = g, .w = w
	};
	return s;
}

enum status grouped_step(struct grouped *c, const struct model *m,
                         const struct window *kept, struct grouping g,
                         const struct window *keep, size_t budget, bool *done)
{
	const struct window *w;
	enum status st;

	*done = false;
	if (!kept || !grouping_eq(g, (struct grouping){ .key = GROUP_SPAWN,
	                                                .by_name = true }))
		return STATUS_INVAL;
	if (grouped_peek(c, m, kept, g)) {
		*done = true;
		return STATUS_OK;
	}
	if (c->step_m != m)
		group_step_fini(&c->step);
	c->step_m = m;
	st = model_split_step(m, kept, &c->step, budget, &w);
	if (st != STATUS_OK || !w)
		return st;
	c->derived++;
	take(c, m, kept, g, keep, w)->used = ++c->clock;
	*done = true;
	return STATUS_OK;
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
	/* a split begun between keys goes on from where it stopped */
	if (c->step_m == m && c->step.src == kept && c->step.seq == kept->seq &&
	    c->step.phase != SPLIT_NONE) {
		bool done;
		enum status st =
		    grouped_step(c, m, kept, g, keep, SIZE_MAX, &done);

		if (st != STATUS_OK && st != STATUS_INVAL)
			return st;
	}
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
		s = take(c, m, kept, g, keep, w);
	}
	s->used = ++c->clock;
	*out = s->w;
	return STATUS_OK;
}
