/* Between keys: what the next key most likely needs, made a step at a
 * time.  While the filter's prompt waits for its first key, the filter's
 * index of the shown window (tui/view_search.c), so that key only
 * searches (before any '/', a large window's too, last: see app_idle).
 * While the tree (or the flame) shows, its window's rows looked up,
 * copied side by side and indexed by stack (tree_rows_step), so that the
 * first key that scans them (*, or a frame of several callees opened)
 * finds them made, and the next window's lookup finds this one's rows.  The
 * table's order that going back to it needs, sorted
 * (tui/table_sort.c) and handed to the view when whole, so that the key
 * that shows the table again, or widens its filter, sorts nothing; and under a
 * grouping of its own (or any, once = was used), compare's base derived
 * (split by name) and its rows paired with the shown window's, so that =
 * only orders them. Nothing here
 * changes what shows, so it is the same whether it finished or not. */
#include "tui/app.h"

#include "tui/view_search.h"

static bool grouped_rows(const struct app *a)
{
	return !grouping_eq(a->group, (struct grouping){ .key = GROUP_SPAWN });
}

/* The window whose rows the table most likely shows next, when the view
 * does not hold them sorted already: after a weighting key behind a view,
 * the shown window (Esc goes back to it); the shown window when a key
 * put only the positions about its page in place (a move needs the
 * rest); under a grouping of its own and without a filter, the kept
 * window (a and n go back to it; the filter's full order is left where
 * it is); with a filter, the shown window (a window that came filtered
 * had only its hits sorted, and a key erased picks the wider filter's
 * rows out of its full order).  NULL: nothing to make. */
static const struct window *table_wanted(const struct app *a)
{
	const struct window *w = NULL;
	const struct view *v = &a->v;

	if (app_showing_progress(a))
		return NULL;
	if (a->table_stale && a->body != APP_BODY_TABLE)
		w = app_shown(a);
	else if (view_partial(v, app_shown(a)))
		w = app_shown(a);
	else if (!v->filter_len && grouped_rows(a))
		w = app_kept(a);
	else if (v->filter_len)
		w = app_shown(a);
	if (!w || w->empty || view_has_order(v, w) ||
	    view_tag_holds(&a->idle_nomem, w))
		return NULL;
	return w;
}

/* Under a grouping of its own, or under any once = was used: the shown
 * window into *cur and compare's base into *base, when = would find them
 * not yet paired (a new window, or the grouping just shown): as held in
 * that grouping (*derive false), or, split by name under the spawn stack
 * and never shown so, as kept, to be derived first (*derive true).  A
 * base by parked-at stack not held is left to = to derive (that
 * derivation is not made by steps). */
static bool compare_wanted(const struct app *a, const struct window **cur,
                           const struct window **base, bool *derive)
{
	const struct window *w = app_shown(a), *kb, *b;
	bool marked;

	if (app_showing_progress(a) || !(grouped_rows(a) || a->cmp_used) ||
	    !w || w->empty || !grouping_eq(w->group, a->group))
		return false;
	kb = app_compare_base(a, w, &marked);
	/* by spawn stack, unsplit, the kept base is the one compared */
	b = kb && grouped_rows(a)
	        ? grouped_peek(&a->grouped, a->m, kb, a->group)
	        : kb;
	*derive = kb && !b && a->group.key == GROUP_SPAWN;
	if (*derive) {
		b = kb;
	} else if (!b || compare_paired(&a->cmp, w, b)) {
		return false;
	}
	if (view_tag_holds(&a->idle_cmp_nomem, b))
		return false;
	*cur = w;
	*base = b;
	return true;
}

/* The tree or the flame (which lays the tree out) shows, and the rows of
 * the window it was built for (the shown one) are not made yet: the
 * flame's binary searches then read them side by side, and a later
 * window takes its frames from their copy, as after the tree. */
static bool tree_wanted(const struct app *a)
{
	return (a->body == APP_BODY_TREE || a->body == APP_BODY_FLAME) &&
	       !app_showing_progress(a) &&
	       tree_rows_wanted(&a->tree, a->m, app_shown(a));
}

/* The shown window's filter index is not built, and either the prompt is
 * open, or no '/' came yet and the window is big enough for a key
 * without the index to cost milliseconds (at least idle_filter_rows
 * rows) and not huge, and nothing else is left to make between keys: '/'
 * and a key at once, or a word pasted, then find it built. */
static bool filter_wanted(const struct app *a)
{
	const struct window *w = app_shown(a), *cur, *base;
	size_t least =
	    a->idle_filter_rows ? a->idle_filter_rows : APP_IDLE_FILTER_ROWS;
	bool derive;

	if (app_busy(a) || app_showing_progress(a) ||
	    !view_idle_wanted(&a->v, a->m, w))
		return false;
	return a->editing ||
	       (w->nrows >= least && w->nrows <= APP_IDLE_FILTER_MOST &&
	        !tree_wanted(a) && !table_wanted(a) &&
	        !compare_wanted(a, &cur, &base, &derive));
}

bool app_idle_pending(const struct app *a)
{
	const struct window *cur, *base;
	bool derive;

	return filter_wanted(a) || tree_wanted(a) || table_wanted(a) ||
	       compare_wanted(a, &cur, &base, &derive);
}

static size_t step_rows(const struct app *a)
{
	return a->idle_rows ? a->idle_rows : TABLE_SORT_STEP;
}

/* Compare's pairing reads two rows a row and compares their stacks' text
 * where the windows differ: up to four times a sort step's cost a row
 * (up to 12 ms for 8,192 rows of new stacks on a loaded machine), so its
 * steps take a quarter of the rows. */
static size_t pair_rows(const struct app *a)
{
	return a->idle_rows ? a->idle_rows : TABLE_SORT_STEP / 4;
}

/* A step of compare's base derived, or of its rows paired. */
static void compare_step(struct app *a)
{
	const struct window *w, *base;
	bool derive, done;
	enum status st;

	if (!compare_wanted(a, &w, &base, &derive))
		return;
	st = derive ? grouped_step(&a->grouped, a->m, base, a->group, w,
	                           step_rows(a), &done)
	            : compare_pair_step(&a->cmp, a->m, w, base, a->v.metric,
	                                a->v.ascending, pair_rows(a), &done);
	/* tried again only for another base: = does it */
	if (st != STATUS_OK)
		view_tag_set(&a->idle_cmp_nomem, base);
}

void app_idle(struct app *a)
{
	const struct window *w;
	bool done = false;

	/* the prompt waits for a key first (before '/', the index comes
	 * last); without memory, the key builds the index (and says so) */
	if (filter_wanted(a)) {
		(void)view_idle_step(&a->v, a->m, app_shown(a),
		                     APP_IDLE_FRAMES);
		return;
	}
	/* the tree's next key first: a step of its rows costs little */
	if (tree_wanted(a)) {
		enum status st = tree_rows_step(&a->tree, step_rows(a), &done);

		(void)st; /* out of memory, the tree leaves them to the keys */
		return;
	}
	w = table_wanted(a);
	if (!w) {
		compare_step(a);
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
