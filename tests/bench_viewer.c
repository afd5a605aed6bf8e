/* make bench: the viewer's cost per key and per idle refresh, headless
 * (the pure renderer; curses' own drawing is not included), each key timed
 * with the screen it redraws (200x50).  Windows of 100,000 folded stacks
 * (depth 3; and depth 12 sharing middle frames) and of 10,000; each new
 * window replaces 5% of the stacks.  The baseline is a weighting key
 * (re-sort + render); the filter's keys and window arrivals are also given
 * as ratios to it; each exploration view's keys (open, weight, back),
 * under the groupings too, and the detail of a row of 100,000 entries.
 * Prints "name value" lines (ms or percent), best of RUNS
 * except the filter's very first key, which is timed once (and again as
 * the best of RUNS viewers of their own).  tests/bench_viewer.h says which
 * file holds which block.
 *   bench_viewer [RUNS] */
#include "tests/bench_viewer.h"

#include <stdio.h>
#include <stdlib.h>

/* Best-of times in ms (first_ever: once). */
struct figures {
	double key, idle, arrive;
	double first_ever, first, again, next, back, esc, weigh;
	double idle_filter, arrive_filter;
	double back_pause;
};

static int bench(size_t stacks, size_t depth, int runs, size_t cols,
                 size_t rows)
{
	static const char typed[] = "handler_9";
	static const int slash = '/', bs = KC_BACKSPACE, esc = KC_ESC,
	                 enter = KC_ENTER, weigh[2] = { '2', '1' };
	struct app a;
	struct app_opts o;
	struct screen scr;
	struct figures f;
	struct bv_gen g = { stacks, depth, 88172645463325252u, 0, 0 };
	size_t kept_first = 0, kept_last = 0;
	double step = 0;     /* the longest idle step's CPU time */
	double fstep = 1e30; /* the work between '/' and the very first key */
	char tag[32];

	bv_opts(&o);
	f.key = f.idle = f.arrive = f.first_ever = f.first = f.again = f.next =
	    f.back = f.esc = f.weigh = f.idle_filter = f.arrive_filter =
	        f.back_pause = 1e30;
	if (app_init(&a, &o) != STATUS_OK || bv_fill(&a, &g) ||
	    screen_init(&scr, cols, rows) != STATUS_OK)
		return -1;
	if (app_render(&a, &scr) != STATUS_OK)
		return -1;
	for (int r = 0; r < runs; r++) {
		for (int m = 0; m < METRIC_COUNT; m++) {
			double t0 = bv_now_ms(), t1;
			/* always a change of weighting: a re-sort */
			(void)app_do(&a, (enum action)(ACTION_WEIGHT_IDLE +
			                               (m + 1) % METRIC_COUNT));
			if (app_render(&a, &scr) != STATUS_OK)
				return -1;
			t1 = bv_now_ms();
			if (app_render(&a, &scr) != STATUS_OK)
				return -1;
			f.key = bv_best(f.key, t1 - t0);
			f.idle = bv_best(f.idle, bv_now_ms() - t1);
		}
	}
	for (int r = 0; r < runs; r++) {
		int k1[2] = { slash, typed[0] };
		double t0, sum = 0;

		/* no filter: a window arrives (the baseline of arrivals) */
		if (bv_arrival(&a, &scr, &g, &f.arrive))
			return -1;
		/* the first key of a filter on that window: the very first
		 * one after '/' and the work between keys (the filter's
		 * index from nothing, in steps), the others at once */
		if (r ? bv_timed(&a, &scr, k1, 2, &f.first)
		      : bv_keys(&a, &scr, k1, 1) || bv_idle(&a, &fstep) ||
		            bv_timed(&a, &scr, k1 + 1, 1, &f.first_ever))
			return -1;
		kept_first = a.v.order.n;
		for (size_t k = 1; typed[k]; k++) {
			int c = typed[k];
			t0 = bv_now_ms();
			if (bv_keys(&a, &scr, &c, 1))
				return -1;
			sum += bv_now_ms() - t0;
		}
		f.next = bv_best(f.next, sum / (double)(sizeof(typed) - 2));
		kept_last = a.v.order.n;
		/* Enter keeps the filter: idle refresh, weighting keys, a
		 * window arrives */
		if (bv_keys(&a, &scr, &enter, 1))
			return -1;
		t0 = bv_now_ms();
		if (app_render(&a, &scr) != STATUS_OK)
			return -1;
		f.idle_filter = bv_best(f.idle_filter, bv_now_ms() - t0);
		if (bv_timed(&a, &scr, &weigh[0], 1, &f.weigh) ||
		    bv_timed(&a, &scr, &weigh[1], 1, &f.weigh))
			return -1;
		if (bv_arrival(&a, &scr, &g, &f.arrive_filter))
			return -1;
		if (bv_keys(&a, &scr, &slash, 1) ||
		    bv_timed(&a, &scr, &bs, 1, &f.back) ||
		    bv_timed(&a, &scr, &esc, 1, &f.esc))
			return -1;
		/* the first key again, on a window filtered before */
		if (bv_timed(&a, &scr, k1, 2, &f.again) ||
		    bv_keys(&a, &scr, &esc, 1))
			return -1;
		if (bv_back_after_pause(&a, &scr, &g, typed, &f.back_pause,
		                        &step))
			return -1;
	}
	if (runs == 1)
		f.first = f.first_ever;
	snprintf(tag, sizeof(tag), "%zuk%s", stacks / 1000,
	         depth == 3 ? "" : "_depth12");
	if (bv_very_first(stacks, depth, runs, tag, &step) ||
	    bv_idle_per_window(&a, &scr, &g, runs, tag))
		return -1;
	(void)app_do(&a, ACTION_BOTTOM);
	if (bv_view_keys(&a, &scr, runs, 'd', "detail", tag, &step) ||
	    bv_view_keys(&a, &scr, runs, '=', "compare", tag, &step) ||
	    bv_view_keys(&a, &scr, runs, 't', "tree", tag, &step) ||
	    bv_view_keys(&a, &scr, runs, 'f', "flame", tag, &step) ||
	    bv_view_keys(&a, &scr, runs, 'W', "warnings", tag, &step) ||
	    bv_tree_all(&a, &scr, runs, tag) ||
	    bv_group_keys(&a, &scr, runs, tag, &step))
		return -1;
	{
		struct bv_scr sg = { &scr, &g };

		if (bv_explore_keys(&a, &sg, runs, tag, &step) ||
		    bv_tree_new_window(&a, &sg, runs, tag, &step))
			return -1;
		/* the tree split by name, in a block of its own: 10k skipped */
		if (stacks >= 100000 &&
		    bv_tree_by_name(&a, &sg, runs, tag, &step))
			return -1;
	}
	printf("viewer_idle_step_longest_cpu_%s_ms %.3f\n", tag, step);
	printf("viewer_key_sort_render_%s_ms %.3f\n", tag, f.key);
	printf("viewer_idle_render_%s_ms %.3f\n", tag, f.idle);
	printf("viewer_idle_core_share_at_1hz_%s_percent %.4f\n", tag,
	       f.idle / 1000.0 * 100.0);
	printf("viewer_window_arrival_%s_ms %.3f\n", tag, f.arrive);
	printf("viewer_filter_very_first_key_%s_ms %.3f\n", tag, f.first_ever);
	printf("viewer_filter_first_key_%s_ms %.3f\n", tag, f.first);
	printf("viewer_filter_first_key_again_%s_ms %.3f\n", tag, f.again);
	printf("viewer_filter_next_key_%s_ms %.3f\n", tag, f.next);
	printf("viewer_filter_backspace_%s_ms %.3f\n", tag, f.back);
	printf("viewer_filter_backspace_after_pause_%s_ms %.3f\n", tag,
	       f.back_pause);
	printf("viewer_filter_esc_%s_ms %.3f\n", tag, f.esc);
	printf("viewer_filter_weighting_key_%s_ms %.3f\n", tag, f.weigh);
	printf("viewer_filter_idle_render_%s_ms %.3f\n", tag, f.idle_filter);
	printf("viewer_filter_window_arrival_%s_ms %.3f\n", tag,
	       f.arrive_filter);
	printf("viewer_filter_rows_kept_%s %zu %zu\n", tag, kept_first,
	       kept_last);
	printf(
	    "RATIOS to a weighting key (%s): filter first key %.2f (very "
	    "first %.2f), again %.2f, next key %.2f, backspace %.2f, esc "
	    "%.2f, weighting %.2f; window arrival %.2f, with a filter %.2f\n",
	    tag, f.first / f.key, f.first_ever / f.key, f.again / f.key,
	    f.next / f.key, f.back / f.key, f.esc / f.key, f.weigh / f.key,
	    f.arrive / f.key, f.arrive_filter / f.key);
	screen_fini(&scr);
	app_fini(&a);
	return 0;
}

int main(int argc, char **argv)
{
	int runs = argc > 1 ? (int)strtol(argv[1], NULL, 10) : 5;

	if (runs < 1)
		runs = 1;
	if (bench(100000, 3, runs, 200, 50) ||
	    bench(100000, 12, runs, 200, 50) ||
	    bench(10000, 3, runs, 200, 50) || bv_big_row(runs, 200, 50)) {
		fprintf(stderr, "bench_viewer: failed\n");
		return 1;
	}
	return 0;
}
