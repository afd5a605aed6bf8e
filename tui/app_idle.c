/* Between keys: what the next key most likely needs, made a step at a
 * time.  The table's order that going back to it needs, sorted
 * (tui/table_sort.c) and handed to the view when whole, so that the key
 * that shows the table again sorts nothing; and under a grouping of its
 * own, compare's rows paired with its base, so that = only orders them.
 * Nothing here changes what shows, so it is the same whether it finished
 * or not. */
#include "tui/app.h"

#include "tui/view_search.h"

static bool grouped_rows(const struct app *a)
{
	return !grouping_eq(a->group, (struct grouping){ .key = GROUP_SPAWN });
}

/* The window whose rows the table most likely shows next, when the view
 * does not hold them sorted already: after a weighting key behind a view,
 * the shown window (Esc goes back to it); under a grouping of its own and
 * without a filter, the kept window (a and n go back to it; the filter's
 * full order is left where it is).  NULL: nothing to make. */
static const struct window *table_wanted(const struct app *a)
{
	const struct window *w = NULL;
	const struct view *v = &a->v;

	if (app_showing_progress(a))
		return NULL;
	if (a->table_stale && a->body != APP_BODY_TABLE)
		w = app_shown(a);
	else if (!v->filter_len && grouped_rows(a))
		w = app_kept(a);
	if (!w || w->empty || view_has_order(v, w) ||
	    view_tag_holds(&a->idle_nomem, w))
		return NULL;
	return w;
}

/* Under a grouping of its own: the shown window into *cur and compare's
 * base as held in that grouping into *base, when they are not paired yet
 * (a new window, or the grouping just shown).  A base not held (never
 * shown so) is left to = to derive. */
static bool compare_wanted(const struct app *a, const struct window **cur,
                           const struct window **base)
{
	const struct window *w = app_shown(a), *b;
	bool marked;

	if (app_showing_progress(a) || !grouped_rows(a) || !w || w->empty ||
	    !grouping_eq(w->group, a->group))
		return false;
	b = app_compare_base(a, w, &marked);
	b = b ? grouped_peek(&a->grouped, a->m, b, a->group) : NULL;
	if (!b || compare_paired(&a->cmp, w, b) ||
	    view_tag_holds(&a->idle_cmp_nomem, b))
		return false;
	*cur = w;
	*base = b;
	return true;
}

bool app_idle_pending(const struct app *a)
{
	const struct window *cur, *base;

	return table_wanted(a) || compare_wanted(a, &cur, &base);
}

static size_t step_rows(const struct app *a)
{
	return a->idle_rows ? a->idle_rows : TABLE_SORT_STEP;
}

void app_idle(struct app *a)
{
	const struct window *w = table_wanted(a), *base;
	bool done = false;

	if (!w) {
		if (compare_wanted(a, &w, &base) &&
		    compare_pair_step(&a->cmp, a->m, w, base, a->v.metric,
		                      a->v.ascending, step_rows(a),
		                      &done) != STATUS_OK)
			view_tag_set(&a->idle_cmp_nomem, base);
		return;
	}
	if (table_sort_step(&a->tsort, w, a->v.metric, !a->v.ascending,
	                    step_rows(a), &done) != STATUS_OK) {
		/* tried again only for another window: the key sorts */
		view_tag_set(&a->idle_nomem, w);
		return;
	}
	if (!done)
		return;
	view_adopt_order(&a->v, w, &a->tsort.o);
	table_sort_forget(&a->tsort);
}
