/* The viewer bench's windows, clock, timed keys and pause
 * (tests/bench_viewer.h). */
#include "tests/bench_viewer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

double bv_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* The task names of a stack's samples when g->names asks for several. */
static const char *const task_names[8] = {
	"worker", "fetcher", "parser",  "writer",
	"poller", "retrier", "flusher", "pinger",
};

/* The samples of stack i: one per task name. */
static size_t names_of(const struct bv_gen *g, size_t i)
{
	return g->names ? 1 + i % g->names : 1;
}

uint64_t bv_xorshift(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

int bv_fill(struct app *a, struct bv_gen *g)
{
	size_t stacks = g->stacks, depth = g->depth, ns = 0;
	struct sample *s;
	struct strview *f = calloc(stacks * depth, sizeof(*f));
	struct strview *pk = calloc(stacks * 2, sizeof(*pk));
	char *names = calloc(stacks + 200, BV_NAME);
	char *waits = calloc(stacks / 10 + 1, BV_NAME);
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
		snprintf(waits + j * BV_NAME, BV_NAME,
		         "waits_%zu:queue_%zu:%zu", j % 31, j, 20 + j % 500);
	for (size_t j = 0; j < 200; j++)
		snprintf(names + (stacks + j) * BV_NAME, BV_NAME,
		         "lib%zu:call_%zu:%zu", j % 13, j, 10 + j);
	ns = 0;
	for (size_t i = 0; i < stacks; i++) {
		size_t li = i + g->windows * (stacks / 20);
		char *leaf = names + i * BV_NAME;
		int n = snprintf(leaf, BV_NAME, "module_%zu:handler_%zu:%zu",
		                 li % 97, li, li % 1000);
		struct strview *fi = f + i * depth;

		fi[0] = sv_c("app:main:1");
		for (size_t k = 1; k + 1 < depth; k++) {
			size_t j = (li / (k * 7 + 1) + k) % 200;
			fi[k] = depth == 3
			            ? sv_c("pool:spawn:7")
			            : sv_c(names + (stacks + j) * BV_NAME);
		}
		fi[depth - 1] = sv_n(leaf, (size_t)n);
		/* a tenth as many parked-at stacks, under one lock */
		pk[2 * i] = sv_c(waits + (i % (stacks / 10 + 1)) * BV_NAME);
		pk[2 * i + 1] = sv_c("asyncio.locks:Lock.acquire:114");
		for (size_t k = 0; k < names_of(g, i); k++, ns++) {
			s[ns].frames = fi;
			s[ns].depth = depth;
			s[ns].task =
			    sv_c(task_names[g->names ? (i + 3 * k) % 8 : 0]);
			for (int m = 0; m < METRIC_COUNT; m++)
				s[ns].m.v[m] = bv_xorshift(&g->x) % 5000000000u;
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

double bv_best(double cur, double t)
{
	return t < cur ? t : cur;
}

int bv_keys(struct app *a, struct screen *scr, const int *k, size_t n)
{
	for (size_t i = 0; i < n; i++)
		(void)app_key(a, k[i]);
	return app_render(a, scr) == STATUS_OK ? 0 : -1;
}

int bv_timed(struct app *a, struct screen *scr, const int *k, size_t n,
             double *fig)
{
	double t0 = bv_now_ms();

	if (bv_keys(a, scr, k, n))
		return -1;
	*fig = bv_best(*fig, bv_now_ms() - t0);
	return 0;
}

int bv_arrival(struct app *a, struct screen *scr, struct bv_gen *g, double *fig)
{
	static const int live = 'L';

	(void)app_do(a, ACTION_PAUSE);
	if (bv_fill(a, g))
		return -1;
	return bv_timed(a, scr, &live, 1, fig);
}

double bv_cpu_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

void bv_pause_idle(struct app *a, double *step)
{
	while (app_idle_pending(a)) {
		double t0 = bv_cpu_ms(), t;

		app_idle(a);
		t = bv_cpu_ms() - t0;
		*step = t > *step ? t : *step;
	}
}

int bv_other_weighting(const struct app *a)
{
	return '1' + (int)((a->v.metric + 1) % METRIC_COUNT);
}

int bv_key_after_pause(struct app *a, struct screen *scr, int into, int back,
                       double *step, double *fig)
{
	int weigh = bv_other_weighting(a);

	if (bv_keys(a, scr, &into, 1) || bv_keys(a, scr, &weigh, 1))
		return -1;
	bv_pause_idle(a, step);
	return bv_timed(a, scr, &back, 1, fig);
}

void bv_opts(struct app_opts *o)
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

int bv_idle(struct app *a, double *step)
{
	double longest = 0;

	for (int i = 0; app_idle_pending(a); i++) {
		double t0 = bv_now_ms(), t;

		if (i == 1000)
			return -1;
		app_idle(a);
		t = bv_now_ms() - t0;
		longest = t > longest ? t : longest;
	}
	*step = bv_best(*step, longest);
	return 0;
}
