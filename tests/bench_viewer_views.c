/* The viewer bench's views: a view's keys, the groupings, exploring under
 * one, and the detail of a row of 100,000 entries (tests/bench_viewer.h). */
#include "tests/bench_viewer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int bv_view_keys(struct app *a, struct screen *scr, int runs, int open,
                 const char *name, const char *tag, double *step)
{
	static const int esc = KC_ESC;
	double o = 1e30, w = 1e30, b = 1e30, bp = 1e30;

	for (int r = 0; r < runs; r++) {
		/* always a change of weighting: the view is built again */
		int weigh = bv_other_weighting(a);

		if (bv_timed(a, scr, &open, 1, &o) ||
		    bv_timed(a, scr, &weigh, 1, &w) ||
		    bv_timed(a, scr, &esc, 1, &b))
			return -1;
		if (bv_key_after_pause(a, scr, open, esc, step, &bp))
			return -1;
	}
	printf("viewer_view_%s_open_%s_ms %.3f\n", name, tag, o);
	printf("viewer_view_%s_weight_%s_ms %.3f\n", name, tag, w);
	printf("viewer_view_%s_back_%s_ms %.3f\n", name, tag, b);
	printf("viewer_view_%s_back_after_pause_%s_ms %.3f\n", name, tag, bp);
	return 0;
}

int bv_group_keys(struct app *a, struct screen *scr, int runs, const char *tag,
                  double *step)
{
	static const int ka = 'a', kn = 'n', kd = 'd', esc = KC_ESC;
	double p = 1e30, n = 1e30, w = 1e30, b = 1e30, d = 1e30, bp = 1e30;

	for (int r = 0; r < runs; r++) {
		int weigh = bv_other_weighting(a);
		uint64_t derived;

		grouped_drop(&a->grouped);
		/* the detail of a parked-at row: its spawn stacks summed */
		if (bv_timed(a, scr, &ka, 1, &p) ||
		    bv_timed(a, scr, &kd, 1, &d) || bv_keys(a, scr, &esc, 1) ||
		    bv_timed(a, scr, &kn, 1, &n))
			return -1;
		derived = a->grouped.derived;
		if (bv_timed(a, scr, &weigh, 1, &w) ||
		    a->grouped.derived != derived)
			return -1;
		if (bv_keys(a, scr, &kn, 1) || bv_timed(a, scr, &ka, 1, &b))
			return -1;
		/* again, the operator pausing before a goes back */
		if (bv_key_after_pause(a, scr, ka, ka, step, &bp))
			return -1;
	}
	printf("viewer_group_parked_%s_ms %.3f\n", tag, p);
	printf("viewer_group_name_%s_ms %.3f\n", tag, n);
	printf("viewer_group_weight_%s_ms %.3f\n", tag, w);
	printf("viewer_group_back_%s_ms %.3f\n", tag, b);
	printf("viewer_group_back_after_pause_%s_ms %.3f\n", tag, bp);
	printf("viewer_group_parked_detail_%s_ms %.3f\n", tag, d);
	return 0;
}

int bv_explore_keys(struct app *a, struct bv_scr *sg, int runs, const char *tag,
                    double *step)
{
	static const int kn = 'n', ka = 'a', eq = '=', kd = 'd', kf = 'f',
	                 esc = KC_ESC;
	double co = 1e30, cw = 1e30, cb = 1e30, cc = 1e30, dop = 1e30,
	       dw = 1e30, ff = 1e30, arr = 1e30, cop = 1e30, ccp = 1e30;

	for (int r = 0; r < runs; r++) {
		int weigh = bv_other_weighting(a);

		if (bv_keys(a, sg->scr, &kn, 1) ||
		    bv_timed(a, sg->scr, &eq, 1, &co) ||
		    bv_timed(a, sg->scr, &weigh, 1, &cw) ||
		    bv_timed(a, sg->scr, &esc, 1, &cb))
			return -1;
		/* nothing held (dropped under the default grouping, which
		 * shows the kept window): n derives the shown window, = the
		 * base */
		if (bv_keys(a, sg->scr, &kn, 1))
			return -1;
		grouped_drop(&a->grouped);
		if (bv_keys(a, sg->scr, &kn, 1) ||
		    bv_timed(a, sg->scr, &eq, 1, &cc) ||
		    bv_keys(a, sg->scr, &esc, 1) || bv_keys(a, sg->scr, &kn, 1))
			return -1;
		/* both again, the operator pausing before = */
		if (bv_keys(a, sg->scr, &kn, 1))
			return -1;
		bv_pause_idle(a, step);
		if (bv_timed(a, sg->scr, &eq, 1, &cop) ||
		    bv_keys(a, sg->scr, &esc, 1) || bv_keys(a, sg->scr, &kn, 1))
			return -1;
		grouped_drop(&a->grouped);
		if (bv_keys(a, sg->scr, &kn, 1))
			return -1;
		bv_pause_idle(a, step);
		if (bv_timed(a, sg->scr, &eq, 1, &ccp) ||
		    bv_keys(a, sg->scr, &esc, 1) || bv_keys(a, sg->scr, &kn, 1))
			return -1;
		weigh = bv_other_weighting(a);
		if (bv_keys(a, sg->scr, &ka, 1) ||
		    bv_timed(a, sg->scr, &kd, 1, &dop) ||
		    bv_timed(a, sg->scr, &weigh, 1, &dw) ||
		    bv_keys(a, sg->scr, &esc, 1) || bv_keys(a, sg->scr, &ka, 1))
			return -1;
		/* a new window: the flame lays it out from nothing */
		if (bv_arrival(a, sg->scr, sg->g, &arr) ||
		    bv_timed(a, sg->scr, &kf, 1, &ff) ||
		    bv_keys(a, sg->scr, &esc, 1))
			return -1;
	}
	printf("viewer_explore_compare_name_open_%s_ms %.3f\n", tag, co);
	printf("viewer_explore_compare_name_weight_%s_ms %.3f\n", tag, cw);
	printf("viewer_explore_compare_name_back_%s_ms %.3f\n", tag, cb);
	printf("viewer_explore_compare_name_cold_open_%s_ms %.3f\n", tag, cc);
	printf("viewer_explore_compare_name_open_after_pause_%s_ms %.3f\n", tag,
	       cop);
	printf("viewer_explore_compare_name_cold_open_after_pause_%s_ms "
	       "%.3f\n",
	       tag, ccp);
	printf("viewer_explore_detail_parked_open_%s_ms %.3f\n", tag, dop);
	printf("viewer_explore_detail_parked_weight_%s_ms %.3f\n", tag, dw);
	printf("viewer_explore_flame_first_%s_ms %.3f\n", tag, ff);
	return 0;
}

int bv_big_row(int runs, size_t cols, size_t rows)
{
	static const int kd = 'd', esc = KC_ESC;
	size_t n = 100000;
	struct app a;
	struct app_opts o;
	struct screen scr;
	struct sample *s = calloc(n, sizeof(*s));
	struct strview *pk = calloc(n * 2, sizeof(*pk));
	char *names = calloc(n, BV_NAME);
	struct strview spawn[2];
	struct window_meta meta;
	double op = 1e30, w = 1e30;
	uint64_t x = 88172645463325252u;
	int rc = -1;

	memset(&o, 0, sizeof(o));
	o.prog = o.adapter = "bench";
	o.endpoint = "";
	o.window_ns = o.refresh_ns = 1000000000u;
	o.save_dir = ".";
	o.history = 4;
	o.events = -1;
	memset(&meta, 0, sizeof(meta));
	meta.duration_nanos = 5000000000;
	spawn[0] = sv_c("app:main:1");
	spawn[1] = sv_c("pool:spawn:7");
	if (!s || !pk || !names || app_init(&a, &o) != STATUS_OK)
		goto out;
	for (size_t i = 0; i < n; i++) {
		int len = snprintf(names + i * BV_NAME, BV_NAME,
		                   "waits_%zu:q:%zu", i % 31, i);
		pk[2 * i] = sv_n(names + i * BV_NAME, (size_t)len);
		pk[2 * i + 1] = sv_c("asyncio.locks:Lock.acquire:114");
		s[i] = (struct sample){ .frames = spawn,
			                .depth = 2,
			                .task = sv_c("worker"),
			                .tasks = 1,
			                .parked = pk + 2 * i,
			                .parked_depth = 2 };
		for (int m = 0; m < METRIC_COUNT; m++)
			s[i].m.v[m] = bv_xorshift(&x) % 5000000000u;
	}
	if (app_commit(&a, s, n, &meta) != STATUS_OK ||
	    screen_init(&scr, cols, rows) != STATUS_OK)
		goto fini;
	if (app_render(&a, &scr) != STATUS_OK)
		goto both;
	for (int r = 0; r < runs; r++) {
		int weigh = '1' + (int)((a.v.metric + 1) % METRIC_COUNT);

		if (bv_timed(&a, &scr, &kd, 1, &op) ||
		    bv_timed(&a, &scr, &weigh, 1, &w) ||
		    bv_keys(&a, &scr, &esc, 1))
			goto both;
	}
	printf("viewer_detail_big_row_open_100k_ms %.3f\n", op);
	printf("viewer_detail_big_row_weight_100k_ms %.3f\n", w);
	rc = 0;
both:
	screen_fini(&scr);
fini:
	app_fini(&a);
out:
	free(s);
	free(pk);
	free(names);
	return rc;
}
