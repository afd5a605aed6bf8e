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
 * the best of RUNS viewers of their own).
 *   bench_viewer [RUNS] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "model/model.h"
#include "tui/app.h"
#include "tui/render.h"

#define NAME 48

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

struct gen {
	size_t stacks, depth;
	uint64_t x;     /* xorshift state of the metrics */
	size_t windows; /* committed so far: shifts the leaves */
	size_t names;   /* stack i has 1 + i % names task names (0: one) */
};

/* The task names of a stack's samples when g->names asks for several. */
static const char *const task_names[8] = {
	"worker", "fetcher", "parser",  "writer",
	"poller", "retrier", "flusher", "pinger",
};

/* The samples of stack i: one per task name. */
static size_t names_of(const struct gen *g, size_t i)
{
	return g->names ? 1 + i % g->names : 1;
}

static uint64_t xorshift(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

/* Commits a window of g->stacks stacks of g->depth frames (>= 3): a shared
 * root, then depth - 2 middle frames out of 200, then a leaf of its own
 * ("module_M:handler_I:L", I shifted by 5% of the stacks a window); task
 * "worker", or with g->names a sample per name (names_of, out of
 * task_names); new metrics. */
static int fill(struct app *a, struct gen *g)
{
	size_t stacks = g->stacks, depth = g->depth, ns = 0;
	struct sample *s;
	struct strview *f = calloc(stacks * depth, sizeof(*f));
	struct strview *pk = calloc(stacks * 2, sizeof(*pk));
	char *names = calloc(stacks + 200, NAME);
	char *waits = calloc(stacks / 10 + 1, NAME);
	struct window_meta meta;
	enum status st;

	for (size_t i = 0; i < stacks; i++)
		ns += names_of(g, i);
	s = calloc(ns, sizeof(*s));
	if (!s || !f || !pk || !names || !waits) {
		free(s);
		free(f);
		free(pk);
		free(names);
		free(waits);
		return -1;
	}
	for (size_t j = 0; j < stacks / 10 + 1; j++)
		snprintf(waits + j * NAME, NAME, "waits_%zu:queue_%zu:%zu",
		         j % 31, j, 20 + j % 500);
	for (size_t j = 0; j < 200; j++)
		snprintf(names + (stacks + j) * NAME, NAME,
		         "lib%zu:call_%zu:%zu", j % 13, j, 10 + j);
	ns = 0;
	for (size_t i = 0; i < stacks; i++) {
		size_t li = i + g->windows * (stacks / 20);
		char *leaf = names + i * NAME;
		int n = snprintf(leaf, NAME, "module_%zu:handler_%zu:%zu",
		                 li % 97, li, li % 1000);
		struct strview *fi = f + i * depth;

		fi[0] = sv_c("app:main:1");
		for (size_t k = 1; k + 1 < depth; k++) {
			size_t j = (li / (k * 7 + 1) + k) % 200;
			fi[k] = depth == 3 ? sv_c("pool:spawn:7")
			                   : sv_c(names + (stacks + j) * NAME);
		}
		fi[depth - 1] = sv_n(leaf, (size_t)n);
		/* a tenth as many parked-at stacks, under one lock */
		pk[2 * i] = sv_c(waits + (i % (stacks / 10 + 1)) * NAME);
		pk[2 * i + 1] = sv_c("asyncio.locks:Lock.acquire:114");
		for (size_t k = 0; k < names_of(g, i); k++, ns++) {
			s[ns].frames = fi;
			s[ns].depth = depth;
			s[ns].task =
			    sv_c(task_names[g->names ? (i + 3 * k) % 8 : 0]);
			for (int m = 0; m < METRIC_COUNT; m++)
				s[ns].m.v[m] = xorshift(&g->x) % 5000000000u;
			s[ns].tasks = 1 + i % 7;
			s[ns].parked = pk + 2 * i;
			s[ns].parked_depth = 2;
		}
	}
	memset(&meta, 0, sizeof(meta));
	meta.time_nanos = (int64_t)1700000000 * 1000000000;
	meta.duration_nanos = 5000000000;
	st = app_commit(a, s, ns, &meta);
	g->windows++;
	free(s);
	free(f);
	free(pk);
	free(names);
	free(waits);
	return st == STATUS_OK ? 0 : -1;
}

/* A screen and the generator of the windows it shows. */
struct scr_gen {
	struct screen *scr;
	struct gen *g;
};

static double best(double cur, double t)
{
	return t < cur ? t : cur;
}

/* Best-of times in ms (first_ever: once). */
struct figures {
	double key, idle, arrive;
	double first_ever, first, again, next, back, esc, weigh;
	double idle_filter, arrive_filter;
	double back_pause;
};

static int keys(struct app *a, struct screen *scr, const int *k, size_t n)
{
	for (size_t i = 0; i < n; i++)
		(void)app_key(a, k[i]);
	return app_render(a, scr) == STATUS_OK ? 0 : -1;
}

/* One timed step: keys, then a render; the time into *fig when better. */
static int timed(struct app *a, struct screen *scr, const int *k, size_t n,
                 double *fig)
{
	double t0 = now_ms();

	if (keys(a, scr, k, n))
		return -1;
	*fig = best(*fig, now_ms() - t0);
	return 0;
}

/* A window arriving while paused, then 'L': the view's work of a new
 * window (refresh_view) and a render, without the model's fold of it. */
static int arrival(struct app *a, struct screen *scr, struct gen *g,
                   double *fig)
{
	static const int live = 'L';

	(void)app_do(a, ACTION_PAUSE);
	if (fill(a, g))
		return -1;
	return timed(a, scr, &live, 1, fig);
}

/* The thread's CPU time in ms: a step's own cost, whatever the load
 * takes from it (a key waits for a step only as long as it runs). */
static double cpu_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* The operator's pause between two keys: the viewer's idle steps, run
 * as the loop runs them while no key comes, until it has nothing left to
 * do; the longest step's CPU time into *step when longer. */
static void pause_idle(struct app *a, double *step)
{
	while (app_idle_pending(a)) {
		double t0 = cpu_ms(), t;

		app_idle(a);
		t = cpu_ms() - t0;
		*step = t > *step ? t : *step;
	}
}

/* The key of the weighting after the shown one: always a change. */
static int other_weighting(const struct app *a)
{
	return '1' + (int)((a->v.metric + 1) % METRIC_COUNT);
}

/* Key into, then a change of weighting, the operator's pause (the idle
 * steps run, the longest into *step), then key back timed into *fig. */
static int key_after_pause(struct app *a, struct screen *scr, int into,
                           int back, double *step, double *fig)
{
	int weigh = other_weighting(a);

	if (keys(a, scr, &into, 1) || keys(a, scr, &weigh, 1))
		return -1;
	pause_idle(a, step);
	return timed(a, scr, &back, 1, fig);
}

/* A view's keys at this size (issue 13 aims at 10 ms): open it from the
 * table, a weighting key inside it, Esc back; each with its render, best
 * of runs; and Esc back after the operator's pause (the idle steps run,
 * the longest into *step).  Prints
 * viewer_view_NAME_{open,weight,back,back_after_pause}_TAG_ms. */
static int view_keys(struct app *a, struct screen *scr, int runs, int open,
                     const char *name, const char *tag, double *step)
{
	static const int esc = KC_ESC;
	double o = 1e30, w = 1e30, b = 1e30, bp = 1e30;

	for (int r = 0; r < runs; r++) {
		/* always a change of weighting: the view is built again */
		int weigh = other_weighting(a);

		if (timed(a, scr, &open, 1, &o) ||
		    timed(a, scr, &weigh, 1, &w) || timed(a, scr, &esc, 1, &b))
			return -1;
		if (key_after_pause(a, scr, open, esc, step, &bp))
			return -1;
	}
	printf("viewer_view_%s_open_%s_ms %.3f\n", name, tag, o);
	printf("viewer_view_%s_weight_%s_ms %.3f\n", name, tag, w);
	printf("viewer_view_%s_back_%s_ms %.3f\n", name, tag, b);
	printf("viewer_view_%s_back_after_pause_%s_ms %.3f\n", name, tag, bp);
	return 0;
}

/* a and n: the grouping derived (model_group) and the rows sorted and
 * drawn; a weighting key under it (nothing derived again); back to the
 * default, at once and after the operator's pause (the idle steps run,
 * the longest into *step).  The groupings the viewer holds are dropped
 * before each run, so that a and n derive as on a window not grouped
 * before.  Prints viewer_group_{parked,name,weight,back,
 * back_after_pause,parked_detail}_TAG_ms. */
static int group_keys(struct app *a, struct screen *scr, int runs,
                      const char *tag, double *step)
{
	static const int ka = 'a', kn = 'n', kd = 'd', esc = KC_ESC;
	double p = 1e30, n = 1e30, w = 1e30, b = 1e30, d = 1e30, bp = 1e30;

	for (int r = 0; r < runs; r++) {
		int weigh = other_weighting(a);
		uint64_t derived;

		grouped_drop(&a->grouped);
		/* the detail of a parked-at row: its spawn stacks summed */
		if (timed(a, scr, &ka, 1, &p) || timed(a, scr, &kd, 1, &d) ||
		    keys(a, scr, &esc, 1) || timed(a, scr, &kn, 1, &n))
			return -1;
		derived = a->grouped.derived;
		if (timed(a, scr, &weigh, 1, &w) ||
		    a->grouped.derived != derived)
			return -1;
		if (keys(a, scr, &kn, 1) || timed(a, scr, &ka, 1, &b))
			return -1;
		/* again, the operator pausing before a goes back */
		if (key_after_pause(a, scr, ka, ka, step, &bp))
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

/* Exploring under a grouping (issue 13's 10 ms): compare split by task
 * name (=, a weighting key, Esc, each timed; the base held from when it
 * was shown, as after a new window; and cold, =, with the base derived
 * for it), the detail by parked-at stack with its sparkline over the kept
 * windows (d, a weighting key), and the flame's first draw of a window it
 * has not laid out (f after a window arrived); = held and cold again
 * after the operator's pause (the idle steps run, the longest into
 * *step).  Prints viewer_explore_{compare_name_open,compare_name_weight,
 * compare_name_back,compare_name_cold_open,compare_name_open_after_pause,
 * compare_name_cold_open_after_pause,detail_parked_open,
 * detail_parked_weight,flame_first}_TAG_ms. */
static int explore_keys(struct app *a, struct scr_gen *sg, int runs,
                        const char *tag, double *step)
{
	static const int kn = 'n', ka = 'a', eq = '=', kd = 'd', kf = 'f',
	                 esc = KC_ESC;
	double co = 1e30, cw = 1e30, cb = 1e30, cc = 1e30, dop = 1e30,
	       dw = 1e30, ff = 1e30, arr = 1e30, cop = 1e30, ccp = 1e30;

	for (int r = 0; r < runs; r++) {
		int weigh = other_weighting(a);

		if (keys(a, sg->scr, &kn, 1) ||
		    timed(a, sg->scr, &eq, 1, &co) ||
		    timed(a, sg->scr, &weigh, 1, &cw) ||
		    timed(a, sg->scr, &esc, 1, &cb))
			return -1;
		/* nothing held (dropped under the default grouping, which
		 * shows the kept window): n derives the shown window, = the
		 * base */
		if (keys(a, sg->scr, &kn, 1))
			return -1;
		grouped_drop(&a->grouped);
		if (keys(a, sg->scr, &kn, 1) ||
		    timed(a, sg->scr, &eq, 1, &cc) ||
		    keys(a, sg->scr, &esc, 1) || keys(a, sg->scr, &kn, 1))
			return -1;
		/* both again, the operator pausing before = */
		if (keys(a, sg->scr, &kn, 1))
			return -1;
		pause_idle(a, step);
		if (timed(a, sg->scr, &eq, 1, &cop) ||
		    keys(a, sg->scr, &esc, 1) || keys(a, sg->scr, &kn, 1))
			return -1;
		grouped_drop(&a->grouped);
		if (keys(a, sg->scr, &kn, 1))
			return -1;
		pause_idle(a, step);
		if (timed(a, sg->scr, &eq, 1, &ccp) ||
		    keys(a, sg->scr, &esc, 1) || keys(a, sg->scr, &kn, 1))
			return -1;
		weigh = other_weighting(a);
		if (keys(a, sg->scr, &ka, 1) ||
		    timed(a, sg->scr, &kd, 1, &dop) ||
		    timed(a, sg->scr, &weigh, 1, &dw) ||
		    keys(a, sg->scr, &esc, 1) || keys(a, sg->scr, &ka, 1))
			return -1;
		/* a new window: the flame lays it out from nothing */
		if (arrival(a, sg->scr, sg->g, &arr) ||
		    timed(a, sg->scr, &kf, 1, &ff) || keys(a, sg->scr, &esc, 1))
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

/* The detail of one row that folds every entry of the window: a window
 * of 100,000 tasks of one spawn stack, each parked at a stack of its
 * own (d, a weighting key, Esc).  Prints
 * viewer_detail_big_row_{open,weight}_ms. */
static int big_row(int runs, size_t cols, size_t rows)
{
	static const int kd = 'd', esc = KC_ESC;
	size_t n = 100000;
	struct app a;
	struct app_opts o;
	struct screen scr;
	struct sample *s = calloc(n, sizeof(*s));
	struct strview *pk = calloc(n * 2, sizeof(*pk));
	char *names = calloc(n, NAME);
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
		int len = snprintf(names + i * NAME, NAME, "waits_%zu:q:%zu",
		                   i % 31, i);
		pk[2 * i] = sv_n(names + i * NAME, (size_t)len);
		pk[2 * i + 1] = sv_c("asyncio.locks:Lock.acquire:114");
		s[i] = (struct sample){ .frames = spawn,
			                .depth = 2,
			                .task = sv_c("worker"),
			                .tasks = 1,
			                .parked = pk + 2 * i,
			                .parked_depth = 2 };
		for (int m = 0; m < METRIC_COUNT; m++)
			s[i].m.v[m] = xorshift(&x) % 5000000000u;
	}
	if (app_commit(&a, s, n, &meta) != STATUS_OK ||
	    screen_init(&scr, cols, rows) != STATUS_OK)
		goto fini;
	if (app_render(&a, &scr) != STATUS_OK)
		goto both;
	for (int r = 0; r < runs; r++) {
		int weigh = '1' + (int)((a.v.metric + 1) % METRIC_COUNT);

		if (timed(&a, &scr, &kd, 1, &op) ||
		    timed(&a, &scr, &weigh, 1, &w) || keys(&a, &scr, &esc, 1))
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

/* The tree with everything expanded (* on its top frame): every stack
 * shows, each level sorted; then a weighting key re-sorts what the page
 * shows, and the other keys through the expanded tree (PgDn, End, Home,
 * - and + on the top frame, Esc back). */
static int tree_all(struct app *a, struct screen *scr, int runs,
                    const char *tag)
{
	static const int t = 't', all = '*', esc = KC_ESC, pgdn = KC_PGDN,
	                 end = KC_END, home = KC_HOME, minus = '-', plus = '+';
	double o = 1e30, w = 1e30, pd = 1e30, en = 1e30, ho = 1e30, mi = 1e30,
	       pl = 1e30, b = 1e30;

	for (int r = 0; r < runs; r++) {
		int weigh = other_weighting(a);

		if (keys(a, scr, &t, 1) || keys(a, scr, &home, 1) ||
		    timed(a, scr, &all, 1, &o) ||
		    timed(a, scr, &weigh, 1, &w) ||
		    timed(a, scr, &pgdn, 1, &pd) ||
		    timed(a, scr, &end, 1, &en) ||
		    timed(a, scr, &home, 1, &ho) ||
		    timed(a, scr, &minus, 1, &mi) ||
		    timed(a, scr, &plus, 1, &pl) || timed(a, scr, &esc, 1, &b))
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
static int star_after_pause(struct app *a, struct scr_gen *sg, double *arr,
                            double *step, double *paused)
{
	static const int t = 't', all = '*', esc = KC_ESC, home = KC_HOME;

	if (arrival(a, sg->scr, sg->g, arr) || keys(a, sg->scr, &t, 1) ||
	    keys(a, sg->scr, &home, 1))
		return -1;
	pause_idle(a, step);
	if (timed(a, sg->scr, &all, 1, paused) || keys(a, sg->scr, &esc, 1))
		return -1;
	tree_forget(a);
	return 0;
}

/* t, then * on a window that just arrived, none of its frames made yet
 * (best of runs, each on a new window); and * after the operator's pause
 * after t (the idle steps run, the longest into *step).  Prints
 * viewer_view_tree_{open,expand_all}_new_window_TAG_ms and
 * viewer_view_tree_expand_all_new_window_after_pause_TAG_ms. */
static int tree_new_window(struct app *a, struct scr_gen *sg, int runs,
                           const char *tag, double *step)
{
	static const int t = 't', all = '*', esc = KC_ESC, home = KC_HOME;
	double first = 1e30, arr = 1e30, open = 1e30, paused = 1e30;

	for (int r = 0; r < runs; r++) {
		if (arrival(a, sg->scr, sg->g, &arr) ||
		    timed(a, sg->scr, &t, 1, &open) ||
		    keys(a, sg->scr, &home, 1) ||
		    timed(a, sg->scr, &all, 1, &first) ||
		    keys(a, sg->scr, &esc, 1))
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

/* The tree split by task name (n then t): every stack of a window has 1
 * to 3 task names (of 8), so a frame's leaves are runs of rows, not a row
 * each.  Each run on a window just arrived (g->names set for the block):
 * t, * on it (none of its frames made), a weighting key with everything
 * expanded, End; then on another, * after the operator's pause after t
 * (the idle steps run, the longest into *step); n again after.  Prints
 * viewer_view_tree_name_{open_new_window,expand_all_new_window,
 * expand_all_new_window_after_pause,all_weight,all_end}_TAG_ms. */
static int tree_by_name(struct app *a, struct scr_gen *sg, int runs,
                        const char *tag, double *step)
{
	static const int t = 't', all = '*', esc = KC_ESC, home = KC_HOME,
	                 end = KC_END, kn = 'n';
	double open = 1e30, first = 1e30, w = 1e30, en = 1e30, arr = 1e30,
	       paused = 1e30;
	size_t names = sg->g->names;

	sg->g->names = 3;
	if (keys(a, sg->scr, &kn, 1))
		return -1;
	for (int r = 0; r < runs; r++) {
		int weigh = other_weighting(a);

		if (arrival(a, sg->scr, sg->g, &arr) ||
		    timed(a, sg->scr, &t, 1, &open) ||
		    keys(a, sg->scr, &home, 1) ||
		    timed(a, sg->scr, &all, 1, &first) ||
		    timed(a, sg->scr, &weigh, 1, &w) ||
		    timed(a, sg->scr, &end, 1, &en) ||
		    keys(a, sg->scr, &esc, 1))
			return -1;
		tree_forget(a);
		if (star_after_pause(a, sg, &arr, step, &paused))
			return -1;
	}
	sg->g->names = names;
	if (keys(a, sg->scr, &kn, 1))
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

/* The options of a bench viewer. */
static void bench_opts(struct app_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->prog = "bench";
	o->adapter = "bench";
	o->endpoint = "";
	o->window_ns = 5000000000u;
	o->refresh_ns = 1000000000u;
	o->save_dir = ".";
	o->history = 4;
	o->events = -1;
}

/* The viewer's work between keys, as its loop does it while no key
 * comes: steps until none is left (at most 1000); the longest step into
 * *step when better. */
static int idle(struct app *a, double *step)
{
	double longest = 0;

	for (int i = 0; app_idle_pending(a); i++) {
		double t0 = now_ms(), t;

		if (i == 1000)
			return -1;
		app_idle(a);
		t = now_ms() - t0;
		longest = t > longest ? t : longest;
	}
	*step = best(*step, longest);
	return 0;
}

/* Backspace on a window that came filtered by typed, after the operator's
 * pause between '/' and the key (the idle steps, the longest into *step):
 * the time of the key and its render into *fig when better.  Esc ends
 * the filter. */
static int back_after_pause(struct app *a, struct screen *scr, struct gen *g,
                            const char *typed, double *fig, double *step)
{
	static const int slash = '/', bs = KC_BACKSPACE, esc = KC_ESC,
	                 enter = KC_ENTER;
	double arrive = 1e30;

	if (keys(a, scr, &slash, 1))
		return -1;
	for (; *typed; typed++) {
		int c = (unsigned char)*typed;

		if (keys(a, scr, &c, 1))
			return -1;
	}
	if (keys(a, scr, &enter, 1) || arrival(a, scr, g, &arrive) ||
	    keys(a, scr, &slash, 1))
		return -1;
	pause_idle(a, step);
	return timed(a, scr, &bs, 1, fig) || keys(a, scr, &esc, 1);
}

/* The filter's very first key, best of runs (bench times it once): each
 * run a viewer of its own shows its first window, then '/' opens the
 * filter, the viewer works between keys (the filter's index, in steps),
 * and a letter filters.  Then the same with '/' and the letter at once,
 * nothing between them, after the operator's pause on the window (the
 * idle steps run, the longest into *longest: the index made before '/'
 * when the window is large).  And '/' with a word pasted (its keys at
 * once, one screen drawn after them), after that pause, and with none:
 * the keys come with the window, and the word finds no index.  Prints
 * viewer_filter_{very_first_key_best,very_first_key_no_idle_best,
 * pasted_word_best,pasted_word_no_pause_best,slash,index_idle_step}_TAG_ms.
 */
static int very_first(size_t stacks, size_t depth, int runs, const char *tag,
                      double *longest)
{
	static const int k[2] = { '/', 'h' };
	static const int word[10] = { '/', 'h', 'a', 'n', 'd',
		                      'l', 'e', 'r', '_', '9' };
	double ms = 1e30, cold = 1e30, slash = 1e30, step = 1e30, pasted = 1e30,
	       bare = 1e30;

	for (int r = 0; r < 4 * runs; r++) {
		struct gen g = { stacks, depth, 88172645463325252u, 0, 0 };
		struct app a;
		struct app_opts o;
		struct screen scr;
		int rc;

		bench_opts(&o);
		if (app_init(&a, &o) != STATUS_OK)
			return -1;
		if (fill(&a, &g) || screen_init(&scr, 200, 50) != STATUS_OK) {
			app_fini(&a);
			return -1;
		}
		/* runs with and without the idle steps in turn, and pasted */
		rc = app_render(&a, &scr) != STATUS_OK;
		switch (rc ? -1 : r % 4) {
		case 0:
			rc = timed(&a, &scr, k, 1, &slash) || idle(&a, &step) ||
			     timed(&a, &scr, k + 1, 1, &ms);
			break;
		case 1:
			pause_idle(&a, longest);
			rc = timed(&a, &scr, k, 2, &cold);
			break;
		case 2:
			pause_idle(&a, longest);
			rc = timed(&a, &scr, word, 10, &pasted);
			break;
		case 3:
			rc = timed(&a, &scr, word, 10, &bare);
			break;
		}
		screen_fini(&scr);
		app_fini(&a);
		if (rc)
			return -1;
	}
	printf("viewer_filter_very_first_key_best_%s_ms %.3f\n", tag, ms);
	printf("viewer_filter_very_first_key_no_idle_best_%s_ms %.3f\n", tag,
	       cold);
	printf("viewer_filter_pasted_word_best_%s_ms %.3f\n", tag, pasted);
	printf("viewer_filter_pasted_word_no_pause_best_%s_ms %.3f\n", tag,
	       bare);
	printf("viewer_filter_slash_%s_ms %.3f\n", tag, slash);
	printf("viewer_filter_index_idle_step_%s_ms %.3f\n", tag, step);
	return 0;
}

/* What every viewer pays between keys for a window that arrives, no
 * filter on and the table shown (the filter's index of a large window,
 * made before '/'): the CPU time of the idle steps until none is left,
 * best of runs windows.  Prints viewer_idle_cpu_per_window_TAG_ms. */
static int idle_per_window(struct app *a, struct screen *scr, struct gen *g,
                           int runs, const char *tag)
{
	double arrive = 1e30, per = 1e30;

	for (int r = 0; r < runs; r++) {
		double t0;

		if (arrival(a, scr, g, &arrive))
			return -1;
		t0 = cpu_ms();
		for (int i = 0; app_idle_pending(a); i++) {
			if (i == 1000)
				return -1;
			app_idle(a);
		}
		per = best(per, cpu_ms() - t0);
	}
	printf("viewer_idle_cpu_per_window_%s_ms %.3f\n", tag, per);
	return 0;
}

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
	struct gen g = { stacks, depth, 88172645463325252u, 0, 0 };
	size_t kept_first = 0, kept_last = 0;
	double step = 0;     /* the longest idle step's CPU time */
	double fstep = 1e30; /* the work between '/' and the very first key */
	char tag[32];

	bench_opts(&o);
	f.key = f.idle = f.arrive = f.first_ever = f.first = f.again = f.next =
	    f.back = f.esc = f.weigh = f.idle_filter = f.arrive_filter =
	        f.back_pause = 1e30;
	if (app_init(&a, &o) != STATUS_OK || fill(&a, &g) ||
	    screen_init(&scr, cols, rows) != STATUS_OK)
		return -1;
	if (app_render(&a, &scr) != STATUS_OK)
		return -1;
	for (int r = 0; r < runs; r++) {
		for (int m = 0; m < METRIC_COUNT; m++) {
			double t0 = now_ms(), t1;
			/* always a change of weighting: a re-sort */
			(void)app_do(&a, (enum action)(ACTION_WEIGHT_IDLE +
			                               (m + 1) % METRIC_COUNT));
			if (app_render(&a, &scr) != STATUS_OK)
				return -1;
			t1 = now_ms();
			if (app_render(&a, &scr) != STATUS_OK)
				return -1;
			f.key = best(f.key, t1 - t0);
			f.idle = best(f.idle, now_ms() - t1);
		}
	}
	for (int r = 0; r < runs; r++) {
		int k1[2] = { slash, typed[0] };
		double t0, sum = 0;

		/* no filter: a window arrives (the baseline of arrivals) */
		if (arrival(&a, &scr, &g, &f.arrive))
			return -1;
		/* the first key of a filter on that window: the very first
		 * one after '/' and the work between keys (the filter's
		 * index from nothing, in steps), the others at once */
		if (r ? timed(&a, &scr, k1, 2, &f.first)
		      : keys(&a, &scr, k1, 1) || idle(&a, &fstep) ||
		            timed(&a, &scr, k1 + 1, 1, &f.first_ever))
			return -1;
		kept_first = a.v.order.n;
		for (size_t k = 1; typed[k]; k++) {
			int c = typed[k];
			t0 = now_ms();
			if (keys(&a, &scr, &c, 1))
				return -1;
			sum += now_ms() - t0;
		}
		f.next = best(f.next, sum / (double)(sizeof(typed) - 2));
		kept_last = a.v.order.n;
		/* Enter keeps the filter: idle refresh, weighting keys, a
		 * window arrives */
		if (keys(&a, &scr, &enter, 1))
			return -1;
		t0 = now_ms();
		if (app_render(&a, &scr) != STATUS_OK)
			return -1;
		f.idle_filter = best(f.idle_filter, now_ms() - t0);
		if (timed(&a, &scr, &weigh[0], 1, &f.weigh) ||
		    timed(&a, &scr, &weigh[1], 1, &f.weigh))
			return -1;
		if (arrival(&a, &scr, &g, &f.arrive_filter))
			return -1;
		if (keys(&a, &scr, &slash, 1) ||
		    timed(&a, &scr, &bs, 1, &f.back) ||
		    timed(&a, &scr, &esc, 1, &f.esc))
			return -1;
		/* the first key again, on a window filtered before */
		if (timed(&a, &scr, k1, 2, &f.again) || keys(&a, &scr, &esc, 1))
			return -1;
		if (back_after_pause(&a, &scr, &g, typed, &f.back_pause, &step))
			return -1;
	}
	if (runs == 1)
		f.first = f.first_ever;
	snprintf(tag, sizeof(tag), "%zuk%s", stacks / 1000,
	         depth == 3 ? "" : "_depth12");
	if (very_first(stacks, depth, runs, tag, &step) ||
	    idle_per_window(&a, &scr, &g, runs, tag))
		return -1;
	(void)app_do(&a, ACTION_BOTTOM);
	if (view_keys(&a, &scr, runs, 'd', "detail", tag, &step) ||
	    view_keys(&a, &scr, runs, '=', "compare", tag, &step) ||
	    view_keys(&a, &scr, runs, 't', "tree", tag, &step) ||
	    view_keys(&a, &scr, runs, 'f', "flame", tag, &step) ||
	    view_keys(&a, &scr, runs, 'W', "warnings", tag, &step) ||
	    tree_all(&a, &scr, runs, tag) ||
	    group_keys(&a, &scr, runs, tag, &step))
		return -1;
	{
		struct scr_gen sg = { &scr, &g };

		if (explore_keys(&a, &sg, runs, tag, &step) ||
		    tree_new_window(&a, &sg, runs, tag, &step))
			return -1;
		/* the tree split by name, in a block of its own: 10k skipped */
		if (stacks >= 100000 && tree_by_name(&a, &sg, runs, tag, &step))
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
	    bench(10000, 3, runs, 200, 50) || big_row(runs, 200, 50)) {
		fprintf(stderr, "bench_viewer: failed\n");
		return 1;
	}
	return 0;
}
