/* make bench: the viewer's cost per key and per idle refresh, headless
 * (the pure renderer; curses' own drawing is not included).  A window of
 * 100,000 folded stacks: re-sort (a weighting key) + render a 200x50
 * screen; and 10,000 stacks: one idle refresh (render only) at 1 Hz as a
 * share of a core.  Prints "name value" lines (ms, or percent).
 *   bench_viewer [RUNS] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "model/model.h"
#include "tui/app.h"
#include "tui/render.h"

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int fill(struct app *a, size_t stacks)
{
	struct sample *s = calloc(stacks, sizeof(*s));
	struct strview *f = calloc(stacks * 3, sizeof(*f));
	char *names = calloc(stacks, 48);
	struct window_meta meta;
	uint64_t x = 88172645463325252u;
	enum status st;

	if (!s || !f || !names)
		return -1;
	for (size_t i = 0; i < stacks; i++) {
		int n =
		    snprintf(names + i * 48, 48, "module_%zu:handler_%zu:%zu",
		             i % 97, i, i % 1000);
		f[i * 3] = sv_c("app:main:1");
		f[i * 3 + 1] = sv_c("pool:spawn:7");
		f[i * 3 + 2] = sv_n(names + i * 48, (size_t)n);
		s[i].frames = f + i * 3;
		s[i].depth = 3;
		s[i].task = sv_c("worker");
		for (int m = 0; m < METRIC_COUNT; m++) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			s[i].m.v[m] = x % 5000000000u;
		}
		s[i].tasks = 1 + i % 7;
	}
	memset(&meta, 0, sizeof(meta));
	meta.time_nanos = (int64_t)1700000000 * 1000000000;
	meta.duration_nanos = 5000000000;
	st = app_commit(a, s, stacks, &meta);
	free(s);
	free(f);
	free(names);
	return st == STATUS_OK ? 0 : -1;
}

static int bench(size_t stacks, int runs, size_t cols, size_t rows)
{
	struct app a;
	struct app_opts o;
	struct screen scr;
	double key = 1e30, idle = 1e30;

	memset(&o, 0, sizeof(o));
	o.prog = "bench";
	o.adapter = "bench";
	o.endpoint = "";
	o.window_ns = 5000000000u;
	o.refresh_ns = 1000000000u;
	o.save_dir = ".";
	o.history = 4;
	o.events = -1;
	if (app_init(&a, &o) != STATUS_OK || fill(&a, stacks) ||
	    screen_init(&scr, cols, rows) != STATUS_OK)
		return -1;
	for (int r = 0; r < runs; r++) {
		for (int m = 0; m < METRIC_COUNT; m++) {
			double t0 = now_ms(), t1, t2;
			(void)app_do(&a, (enum action)(ACTION_WEIGHT_IDLE + m));
			if (app_render(&a, &scr) != STATUS_OK)
				return -1;
			t1 = now_ms();
			if (app_render(&a, &scr) != STATUS_OK)
				return -1;
			t2 = now_ms();
			if (t1 - t0 < key)
				key = t1 - t0;
			if (t2 - t1 < idle)
				idle = t2 - t1;
		}
	}
	{
		/* typing a filter: the first character checks every row,
		 * the next ones only the rows still kept */
		double first = 1e30, next = 1e30;
		const char *typed = "handler_9";
		for (int r = 0; r < runs; r++) {
			double t0 = now_ms(), t1;
			(void)app_do(&a, ACTION_FILTER);
			(void)app_key(&a, typed[0]);
			if (app_render(&a, &scr) != STATUS_OK)
				return -1;
			t1 = now_ms();
			for (size_t k = 1; typed[k]; k++)
				(void)app_key(&a, typed[k]);
			if (app_render(&a, &scr) != STATUS_OK)
				return -1;
			if (t1 - t0 < first)
				first = t1 - t0;
			if ((now_ms() - t1) / (double)(strlen(typed) - 1) <
			    next)
				next = (now_ms() - t1) /
				       (double)(strlen(typed) - 1);
			(void)app_key(&a, KC_ESC);
		}
		printf("viewer_filter_first_key_%zuk_ms %.3f\n", stacks / 1000,
		       first);
		printf("viewer_filter_next_key_%zuk_ms %.3f\n", stacks / 1000,
		       next);
	}
	printf("viewer_key_sort_render_%zuk_ms %.3f\n", stacks / 1000, key);
	printf("viewer_idle_render_%zuk_ms %.3f\n", stacks / 1000, idle);
	printf("viewer_idle_core_share_at_1hz_%zuk_percent %.4f\n",
	       stacks / 1000, idle / 1000.0 * 100.0);
	screen_fini(&scr);
	app_fini(&a);
	return 0;
}

int main(int argc, char **argv)
{
	int runs = argc > 1 ? (int)strtol(argv[1], NULL, 10) : 5;

	if (runs < 1)
		runs = 1;
	if (bench(100000, runs, 200, 50) || bench(10000, runs, 200, 50)) {
		fprintf(stderr, "bench_viewer: failed\n");
		return 1;
	}
	return 0;
}
