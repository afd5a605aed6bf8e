/* The benchmarks' shared workload and timing helpers.  Keep the draw order
 * in step with tests/bench/gobench/main.go: the comparison depends on it. */
#include "tests/bench_workload.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "model/alloc.h"

static const unsigned pool[BW_DEPTH - 1] = { 4, 16, 64, 256, 512, 1000, 1500 };

static uint64_t splitmix64(uint64_t *state)
{
	uint64_t z = (*state += 0x9E3779B97F4A7C15u);

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9u;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBu;
	return z ^ (z >> 31);
}

void *bench_xcalloc(size_t n, size_t size)
{
	void *p = mem_calloc(n, size);

	if (!p) {
		fputs("bench: out of memory\n", stderr);
		exit(1);
	}
	return p;
}

void bench_workload_generate(struct bench_workload *w)
{
	uint64_t rng = 0x5EEDu;

	w->frame = bench_xcalloc((BW_DEPTH - 1) * BW_POOLMAX, BW_NAMELEN);
	w->leaf = bench_xcalloc(BW_NSTACKS, BW_NAMELEN);
	w->task = bench_xcalloc(BW_NTASKS, BW_NAMELEN);
	w->stack = bench_xcalloc(BW_NSTACKS, sizeof(*w->stack));
	w->s = bench_xcalloc(BW_NSAMPLES, sizeof(*w->s));
	for (unsigned l = 0; l < BW_DEPTH - 1; l++)
		for (unsigned k = 0; k < pool[l]; k++)
			snprintf(w->frame[l * BW_POOLMAX + k], BW_NAMELEN,
			         "app/level%u/mod%u.py:coroutine_%u:%u", l,
			         k % 50, k, (k * 31 + l) % 1000);
	for (unsigned i = 0; i < BW_NSTACKS; i++)
		snprintf(w->leaf[i], BW_NAMELEN, "app/handlers.py:handle_%u:%u",
		         i, i % 997);
	for (unsigned i = 0; i < BW_NTASKS; i++)
		snprintf(w->task[i], BW_NAMELEN, "task-%u", i);
	/* Draws: each stack's pool choices, root first; then per sample its
	 * task, the five metrics in order, and its task count. */
	for (unsigned i = 0; i < BW_NSTACKS; i++) {
		for (unsigned l = 0; l < BW_DEPTH - 1; l++) {
			uint64_t k = splitmix64(&rng) % pool[l];
			w->stack[i][l] = sv_c(w->frame[l * BW_POOLMAX + k]);
		}
		w->stack[i][BW_DEPTH - 1] = sv_c(w->leaf[i]);
	}
	for (unsigned j = 0; j < BW_NSAMPLES; j++) {
		struct sample *s = &w->s[j];
		uint64_t t = (j / BW_NSTACKS) * 100 + splitmix64(&rng) % 100;
		s->frames = w->stack[j % BW_NSTACKS];
		s->depth = BW_DEPTH;
		s->task = sv_c(w->task[t]);
		s->m.v[METRIC_IDLE] = splitmix64(&rng) % 5000000000u;
		s->m.v[METRIC_BUSY] = splitmix64(&rng) % 10000000u;
		s->m.v[METRIC_SCHED] = splitmix64(&rng) % 1000000u;
		s->m.v[METRIC_POLLS] = 1 + splitmix64(&rng) % 1000u;
		s->m.v[METRIC_WAKES] = splitmix64(&rng) % 500u;
		s->tasks = 1 + splitmix64(&rng) % 4u;
	}
}

void bench_workload_free(struct bench_workload *w)
{
	mem_free(w->frame);
	mem_free(w->leaf);
	mem_free(w->task);
	mem_free(w->stack);
	mem_free(w->s);
	memset(w, 0, sizeof(*w));
}

void bench_bulk_init(struct bench_bulk *b)
{
	memset(b, 0, sizeof(*b));
	b->frames[0].ptr = "bench::main";
	b->frames[0].len = strlen(b->frames[0].ptr);
	b->frames[1].ptr = b->mid;
	b->frames[2].ptr = b->leaf;
	b->s.frames = b->frames;
	b->s.depth = 3;
	b->s.task.ptr = "worker";
	b->s.task.len = 6;
	b->s.tasks = 1;
}

const struct asynctop_sample *bench_bulk_sample(struct bench_bulk *b,
                                                unsigned long i)
{
	b->frames[1].len =
	    (size_t)snprintf(b->mid, sizeof(b->mid), "bench::pool_%lu", i % 97);
	b->frames[2].len =
	    (size_t)snprintf(b->leaf, sizeof(b->leaf), "bench::task_%lu", i);
	b->s.idle_ns = 1000000u * (i % 1000 + 1);
	b->s.busy_ns = 1000u * (i % 777 + 1);
	b->s.scheduled_ns = 100u * (i % 555 + 1);
	b->s.polls = i % 50 + 1;
	b->s.wakes = i % 40 + 1;
	return &b->s;
}

void bench_meta(struct window_meta *meta)
{
	static const char *const comments[] = { "asynctop bench" };

	memset(meta, 0, sizeof(*meta));
	meta->time_nanos = INT64_C(1700000000000000000);
	meta->duration_nanos = INT64_C(5000000000);
	meta->comments = comments;
	meta->ncomments = 1;
}

int bench_runs(int argc, char **argv, int def, int max)
{
	char *end;
	long n;

	if (argc < 2)
		return def;
	n = strtol(argv[1], &end, 10);
	return end == argv[1] || *end || n < 1 || n > max ? def : (int)n;
}

void bench_print_workload(int runs)
{
	printf("runs %d\nsamples %d\nstacks %d\ndepth %d\ntasks %d\n", runs,
	       BW_NSAMPLES, BW_NSTACKS, BW_DEPTH, BW_NTASKS);
}

double bench_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int cmp_double(const void *a, const void *b)
{
	const double *x = a, *y = b;

	return (*x > *y) - (*x < *y);
}

void bench_sort(double *t, size_t n)
{
	qsort(t, n, sizeof(*t), cmp_double);
}

double bench_median(double *t, size_t n)
{
	bench_sort(t, n);
	return n % 2 ? t[n / 2] : (t[n / 2 - 1] + t[n / 2]) / 2;
}

void bench_check(const char *prog, enum status st, const char *what)
{
	if (st != STATUS_OK) {
		fprintf(stderr, "%s: %s: %s\n", prog, what, status_str(st));
		exit(1);
	}
}
