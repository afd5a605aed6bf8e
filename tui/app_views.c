/* The actions of the views that replace the table: opening and leaving
 * them, moving and scrolling in them, the tree's expansion, and the mark
 * compare measures against. */
#include "tui/app.h"

#include <inttypes.h>

/* Up, down, pages, top and bottom scroll a view (the renderer clamps). */
static unsigned body_scroll(struct app *a, enum action act, long page)
{
	size_t by = act == ACTION_UP || act == ACTION_DOWN ? 1 : (size_t)page;

	if (act == ACTION_TOP)
		a->body_top = 0;
	else if (act == ACTION_BOTTOM)
		a->body_top = SIZE_MAX / 2;
	else if (act == ACTION_UP || act == ACTION_PAGE_UP)
		a->body_top = a->body_top > by ? a->body_top - by : 0;
	else
		a->body_top += by;
	return APP_REDRAW;
}

/* The tree as of the shown window, before a key acts on it.  Only a draw
 * syncs it otherwise, and keys taken in one burst come before the draw:
 * t and + at once would act on the tree of the window it was last drawn
 * for, which may have left the history or the groupings since. */
static bool tree_current(struct app *a)
{
	const struct window *w = app_shown(a);

	if (app_showing_progress(a) || !w)
		return false;
	if (tree_update(&a->tree, a->m, w, a->v.metric, a->v.ascending) ==
	    STATUS_OK)
		return true;
	app_set_status(a, true, "out of memory building the tree");
	return false;
}

/* Up, down, pages, top and bottom move the tree's selection. */
static unsigned tree_nav(struct app *a, enum action act, long page)
{
	static const long far = 1L << 30;

	if (!tree_current(a))
		return APP_REDRAW;
	tree_move(&a->tree, act == ACTION_UP          ? -1
	                    : act == ACTION_DOWN      ? 1
	                    : act == ACTION_PAGE_UP   ? -page
	                    : act == ACTION_PAGE_DOWN ? page
	                    : act == ACTION_TOP       ? -far
	                                              : far);
	return APP_REDRAW;
}

/* Enter or d: the selected row in detail; again: back to the table. */
static unsigned detail(struct app *a)
{
	const struct window *w = app_shown(a);
	struct view *v = app_view(a);
	size_t r = view_row_at(v, v->sel);

	if (a->body == APP_BODY_DETAIL) {
		a->body = APP_BODY_TABLE;
		return APP_REDRAW;
	}
	if (!w || w->empty || r == SIZE_MAX || r >= w->nrows) {
		app_set_status(a, false, "no row to show in detail");
		return APP_REDRAW;
	}
	a->body = APP_BODY_DETAIL;
	a->body_stack = w->rows[r].stack;
	a->body_name = w->rows[r].name;
	a->body_m = app_model(a);
	a->body_top = 0;
	return APP_REDRAW;
}

/* A view's key: the view, or back to the table from it.  The tree and
 * the flame lay out finished windows only (their layout is kept between
 * windows of one model): on the window in progress they say so. */
static unsigned toggle_body(struct app *a, enum app_body b)
{
	if ((b == APP_BODY_TREE || b == APP_BODY_FLAME) &&
	    app_showing_progress(a)) {
		app_set_status(
		    a, false,
		    "the %s shows finished windows; o goes back to them",
		    b == APP_BODY_TREE ? "tree" : "flame");
		return APP_REDRAW;
	}
	a->body = a->body == b ? APP_BODY_TABLE : b;
	a->body_top = 0;
	return APP_REDRAW;
}

/* + - * in the tree; elsewhere they say where they work. */
static unsigned tree_key(struct app *a, enum action act)
{
	if (a->body != APP_BODY_TREE) {
		app_set_status(a, false,
		               "+ - * expand and collapse in the tree (t)");
		return APP_REDRAW;
	}
	if (!tree_current(a))
		return APP_REDRAW;
	if (act == ACTION_TREE_COLLAPSE)
		tree_collapse(&a->tree);
	else
		tree_expand(&a->tree, act == ACTION_TREE_EXPAND_ALL);
	return APP_REDRAW;
}

/* m: marks the shown window as compare's base, or unmarks it. */
static unsigned mark(struct app *a)
{
	const struct window *w = app_showing_progress(a) ? NULL : app_shown(a);

	if (!w) {
		app_set_status(a, false, "no finished window to mark");
		return APP_REDRAW;
	}
	if (a->mark_seq == w->seq) {
		a->mark_seq = 0;
		app_set_status(a, false, "window %" PRIu64 " unmarked", w->seq);
		return APP_REDRAW;
	}
	a->mark_seq = w->seq;
	app_set_status(a, false,
	               "window %" PRIu64
	               " marked: = compares the shown window with it",
	               w->seq);
	return APP_REDRAW;
}

/* Grouped by parked-at, whether every row is "[not parked]": the rows
 * are in stack order, so the first and the last tell. */
static bool none_parked(const struct app *a)
{
	const struct window *w = app_shown(a);
	uint32_t np = model_not_parked(app_model(a));

	return w && !w->empty && w->nrows && w->group.key == GROUP_PARKED &&
	       w->rows[0].stack == np && w->rows[w->nrows - 1].stack == np;
}

/* a and n: rows by parked-at stack or spawn stack, split by task name or
 * not.  The detail's row is of the other grouping: back to the table. */
static unsigned regroup(struct app *a, enum action act)
{
	a->group_chosen = true;
	if (act == ACTION_GROUP_PARKED)
		a->group.key =
		    a->group.key == GROUP_PARKED ? GROUP_SPAWN : GROUP_PARKED;
	else
		a->group.by_name = !a->group.by_name;
	if (a->body == APP_BODY_DETAIL)
		a->body = APP_BODY_TABLE;
	a->body_top = 0;
	app_regroup(a);
	if (view_build(app_view(a), app_model(a), app_shown(a)) != STATUS_OK)
		app_set_status(a, true, "out of memory sorting the rows");
	else if (none_parked(a))
		app_set_status(
		    a, false,
		    "no task of this window told where it waits (its runtime cannot tell, or all ran at the window's end): every row is [not parked]");
	else
		app_set_status(a, false, "rows by %s%s",
		               a->group.key == GROUP_PARKED
		                   ? "parked-at stack (where tasks wait)"
		                   : "spawn stack",
		               a->group.by_name ? ", split by task name" : "");
	return APP_REDRAW;
}

unsigned app_view_move(struct app *a, enum action act, long page)
{
	if (a->body == APP_BODY_TREE)
		return tree_nav(a, act, page);
	if (a->body == APP_BODY_FLAME) {
		flame_select(&a->flame, &a->tree,
		             act == ACTION_UP || act == ACTION_PAGE_UP ||
		                     act == ACTION_TOP
		                 ? 'u'
		                 : 'd');
		return APP_REDRAW;
	}
	return body_scroll(a, act, page);
}

unsigned app_view_action(struct app *a, enum action act)
{
	switch (act) {
	case ACTION_DETAIL:
		return detail(a);
	case ACTION_COMPARE:
		a->cmp_used = true;
		return toggle_body(a, APP_BODY_COMPARE);
	case ACTION_MARK:
		return mark(a);
	case ACTION_TREE:
		return toggle_body(a, APP_BODY_TREE);
	case ACTION_FLAME:
		return toggle_body(a, APP_BODY_FLAME);
	case ACTION_TREE_EXPAND:
	case ACTION_TREE_COLLAPSE:
	case ACTION_TREE_EXPAND_ALL:
		return tree_key(a, act);
	case ACTION_GROUP_PARKED:
	case ACTION_GROUP_NAME:
		return regroup(a, act);
	case ACTION_WARNINGS:
		return toggle_body(a, APP_BODY_WARN);
	default:
		return 0;
	}
}

unsigned app_view_key(struct app *a, int key)
{
	/* in the tree the arrows expand and collapse, as in file trees */
	if (a->body == APP_BODY_TREE && (key == KC_RIGHT || key == KC_LEFT))
		return app_do(a, key == KC_RIGHT ? ACTION_TREE_EXPAND
		                                 : ACTION_TREE_COLLAPSE);
	if (a->body != APP_BODY_FLAME)
		return 0;
	switch (key) {
	case KC_LEFT:
	case KC_RIGHT:
		flame_select(&a->flame, &a->tree, key == KC_LEFT ? 'l' : 'r');
		return APP_REDRAW;
	case KC_ENTER:
		flame_zoom_in(&a->flame, &a->tree);
		return APP_REDRAW;
	case KC_ESC:
		if (!flame_zoom_out(&a->flame))
			a->body = APP_BODY_TABLE;
		return APP_REDRAW;
	default:
		return 0;
	}
}
