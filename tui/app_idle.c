/* Between keys: the table's order that going back to it needs, sorted a
 * step at a time (tui/table_sort.c) and handed to the view when whole,
 * so that the key that shows the table again sorts nothing.  Nothing
 * here changes what shows, so it is the same whether it finished or not. */
#include "tui/app.h"

#include "tui/view_search.h"

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
	else if (!v->filter_len &&
	         !grouping_eq(a->group,
	                      (struct grouping){ .key = GROUP_SPAWN }))
		w = app_kept(a);
	if (!w || w->empty || view_has_order(v, w) ||
	    view_tag_holds(&a->idle_nomem, w))
		return NULL;
	return w;
}

bool app_idle_pending(const struct app *a)
{
	return table_wanted(a) != NULL;
}

void app_idle(struct app *a)
{
	const struct window *w = table_wanted(a);
	bool done = false;

	if (!w)
		return;
	if (table_sort_step(&a->tsort, w, a->v.metric, !a->v.ascending,
	                    a->idle_rows ? a->idle_rows : TABLE_SORT_STEP,
	                    &done) != STATUS_OK) {
		/* tried again only for another window: the key sorts */
		view_tag_set(&a->idle_nomem, w);
		return;
	}
	if (!done)
		return;
	view_adopt_order(&a->v, w, &a->tsort.o);
	table_sort_forget(&a->tsort);
}
