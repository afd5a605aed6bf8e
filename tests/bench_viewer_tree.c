/* The viewer bench's tree: fully expanded, on a window just arrived, and
 * split by task name (tests/bench_viewer.h). */
#include "tests/bench_viewer.h"

#include <stdio.h>

int bv_tree_all(struct app *a, struct screen *scr, int runs, const char *tag)
{
	static const int t = 't', all = '*', esc = KC_ESC, pgdn = KC_PGDN,
	                 end = KC_END, home = KC_HOME, minus = '-', plus = '+';
	double o = 1e30, w = 1e30, pd = 1e30, en = 1e30, ho = 1e30, mi = 1e30,
	       pl = 1e30, b = 1e30;

	for (int r = 0; r < runs; r++) {
		int weigh = bv_other_weighting(a);

		if (bv_keys(a, scr, &t, 1) || bv_keys(a, scr, &home, 1) ||
		    bv_timed(a, scr, &all, 1, &o) ||
		    bv_timed(a, scr, &weigh, 1, &w) ||
		    bv_timed(a, scr, &pgdn, 1, &pd) ||
		    bv_timed(a, scr, &end, 1, &en) ||
		    bv_timed(a, scr, &home, 1, &ho) ||
		    bv_timed(a, scr, &minus, 1, &mi) ||
		    bv_timed(a, scr, &plus, 1, &pl) ||
		    bv_timed(a, scr, &esc, 1, &b))
			return -1;
		tree_paths_clear(&a->tree.open);
		tree_paths_clear(&a->tree.open_all);
	}
	printf("viewer_view_tree_expand_all_%s_ms %.3f\n", tag, o);
	printf("viewer_view_tree_all_weight_%s_ms %.3f\n", tag, w);
	printf("viewer_view_tree_all_pgdn_%s_ms %.3f\n", tag, pd);
	printf("viewer_view_tree_all_end_%s_ms %.3f\n", tag, en);
	printf("viewer_view_tree_all_home_%s_ms %.3f\n", tag, ho);
	printf("viewer_view_tree_all_collapse_%s_ms %.3f\n", tag, mi);
	printf("viewer_view_tree_all_expand_%s_ms %.3f\n", tag, pl);
	printf("viewer_view_tree_all_back_%s_ms %.3f\n", tag, b);
	return 0;
}

/* The tree as if never opened: nothing expanded for the next window. */
static void tree_forget(struct app *a)
{
	tree_paths_clear(&a->tree.open);
	tree_paths_clear(&a->tree.open_all);
}

/* On a window just arrived: t, Home, the operator's pause (the idle steps
 * run, the longest into *step), then * timed into *paused; Esc after. */
static int star_after_pause(struct app *a, struct bv_scr *sg, double *arr,
                            double *step, double *paused)
{
	static const int t = 't', all = '*', esc = KC_ESC, home = KC_HOME;

	if (bv_arrival(a, sg->scr, sg->g, arr) || bv_keys(a, sg->scr, &t, 1) ||
	    bv_keys(a, sg->scr, &home, 1))
		return -1;
	bv_pause_idle(a, step);
	if (bv_timed(a, sg->scr, &all, 1, paused) ||
	    bv_keys(a, sg->scr, &esc, 1))
		return -1;
	tree_forget(a);
	return 0;
}

int bv_tree_new_window(struct app *a, struct bv_scr *sg, int runs,
                       const char *tag, double *step)
{
	static const int t = 't', all = '*', esc = KC_ESC, home = KC_HOME;
	double first = 1e30, arr = 1e30, open = 1e30, paused = 1e30;

	for (int r = 0; r < runs; r++) {
		if (bv_arrival(a, sg->scr, sg->g, &arr) ||
		    bv_timed(a, sg->scr, &t, 1, &open) ||
		    bv_keys(a, sg->scr, &home, 1) ||
		    bv_timed(a, sg->scr, &all, 1, &first) ||
		    bv_keys(a, sg->scr, &esc, 1))
			return -1;
		tree_forget(a);
		if (star_after_pause(a, sg, &arr, step, &paused))
			return -1;
	}
	printf("viewer_view_tree_open_new_window_%s_ms %.3f\n", tag, open);
	printf("viewer_view_tree_expand_all_new_window_%s_ms %.3f\n", tag,
	       first);
	printf("viewer_view_tree_expand_all_new_window_after_pause_%s_ms "
	       "%.3f\n",
	       tag, paused);
	return 0;
}

int bv_tree_by_name(struct app *a, struct bv_scr *sg, int runs, const char *tag,
                    double *step)
{
	static const int t = 't', all = '*', esc = KC_ESC, home = KC_HOME,
	                 end = KC_END, kn = 'n';
	double open = 1e30, first = 1e30, w = 1e30, en = 1e30, arr = 1e30,
	       paused = 1e30;
	size_t names = sg->g->names;

	sg->g->names = 3;
	if (bv_keys(a, sg->scr, &kn, 1))
		return -1;
	for (int r = 0; r < runs; r++) {
		int weigh = bv_other_weighting(a);

		if (bv_arrival(a, sg->scr, sg->g, &arr) ||
		    bv_timed(a, sg->scr, &t, 1, &open) ||
		    bv_keys(a, sg->scr, &home, 1) ||
		    bv_timed(a, sg->scr, &all, 1, &first) ||
		    bv_timed(a, sg->scr, &weigh, 1, &w) ||
		    bv_timed(a, sg->scr, &end, 1, &en) ||
		    bv_keys(a, sg->scr, &esc, 1))
			return -1;
		tree_forget(a);
		if (star_after_pause(a, sg, &arr, step, &paused))
			return -1;
	}
	sg->g->names = names;
	if (bv_keys(a, sg->scr, &kn, 1))
		return -1;
	printf("viewer_view_tree_name_open_new_window_%s_ms %.3f\n", tag, open);
	printf("viewer_view_tree_name_expand_all_new_window_%s_ms %.3f\n", tag,
	       first);
	printf("viewer_view_tree_name_expand_all_new_window_after_pause_%s_ms "
	       "%.3f\n",
	       tag, paused);
	printf("viewer_view_tree_name_all_weight_%s_ms %.3f\n", tag, w);
	printf("viewer_view_tree_name_all_end_%s_ms %.3f\n", tag, en);
	return 0;
}
