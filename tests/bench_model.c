/* The model benchmark (make bench): fold and commit of the workload of
 * bench_pprof (a new model's first window, then its third: all stacks known,
 * one window evicted), against copying and hashing the same bytes once.
 *   bench_model [RUNS]    prints "key value" lines for tests/bench/run.sh */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "model/model.h"

enum {
	NSTACKS = 10000,
	DEPTH = 8,
	NSAMPLES = 100000,
	NTASKS = 1000,
	NAMELEN = 64,
	MAXRUNS = 64,
};

static const unsigned pool[DEPTH - 1] = { 4, 16, 64, 256, 512, 1000, 1500 };

static uint64_t rng_state = 0x5EEDu;

static uint64_t splitmix64(void)
{
	uint64_t z = (rng_state += 0x9E3779B97F4A7C15u);

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9u;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBu;
	return z ^ (z >> 31);
}

/* The samples, ready to hand over: views into fixed name tables. */
struct data {
	char (*frame)[NAMELEN]; /* level l index k: frame[l * 1500 + k] */
	char (*leaf)[NAMELEN];
	char (*task)[NAMELEN];
	struct strview (*stack)[DEPTH]; /* frames of each stack, root first */
	struct sample *s;
};

static void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n, size);

	if (!p) {
		fputs("bench_model: out of memory\n", stderr);
		exit(1);
	}
	return p;
}

static void generate(struct data *d)
{
	d->frame = xcalloc((DEPTH - 1) * 1500, NAMELEN);
	d->leaf = xcalloc(NSTACKS, NAMELEN);
	d->task = xcalloc(NTASKS, NAMELEN);
	d->stack = xcalloc(NSTACKS, sizeof(*d->stack));
	d->s = xcalloc(NSAMPLES, sizeof(*d->s));
	for (unsigned l = 0; l < DEPTH - 1; l++)
		for (unsigned k = 0; k < pool[l]; k++)
			snprintf(d->frame[l * 1500 + k], NAMELEN,
			         "app/level%u/mod%u.py:coroutine_%u:%u", l,
			         k % 50, k, (k * 31 + l) % 1000);
	for (unsigned i = 0; i < NSTACKS; i++)
		snprintf(d->leaf[i], NAMELEN, "app/handlers.py:handle_%u:%u", i,
		         i % 997);
	for (unsigned i = 0; i < NTASKS; i++)
		snprintf(d->task[i], NAMELEN, "task-%u", i);
	for (unsigned i = 0; i < NSTACKS; i++) {
		for (unsigned l = 0; l < DEPTH - 1; l++)
			d->stack[i][l] =
			    sv_c(d->frame[l * 1500 + splitmix64() % pool[l]]);
		d->stack[i][DEPTH - 1] = sv_c(d->leaf[i]);
	}
	for (unsigned j = 0; j < NSAMPLES; j++) {
		struct sample *s = &d->s[j];
		unsigned t = (j / NSTACKS) * 100 + splitmix64() % 100;
		s->frames = d->stack[j % NSTACKS];
		s->depth = DEPTH;
		s->task = sv_c(d->task[t]);
		s->m.v[METRIC_IDLE] = splitmix64() % 5000000000u;
		s->m.v[METRIC_BUSY] = splitmix64() % 10000000u;
		s->m.v[METRIC_SCHED] = splitmix64() % 1000000u;
		s->m.v[METRIC_POLLS] = 1 + splitmix64() % 1000u;
		s->m.v[METRIC_WAKES] = splitmix64() % 500u;
		s->tasks = 1 + splitmix64() % 4u;
	}
}

static void data_free(struct data *d)
{
	free(d->frame);
	free(d->leaf);
	free(d->task);
	free(d->stack);
	free(d->s);
}

static double now_ms(void)
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

static double median(double *t, size_t n)
{
	qsort(t, n, sizeof(*t), cmp_double);
	return n % 2 ? t[n / 2] : (t[n / 2 - 1] + t[n / 2]) / 2;
}

static void check(enum status st, const char *what)
{
	if (st != STATUS_OK) {
		fprintf(stderr, "bench_model: %s: %s\n", what, status_str(st));
		exit(1);
	}
}

/* The baseline: what any fold must at least do, once per sample: copy the
 * stack's and the task's bytes into one key and hash it (FNV-1a, 8 bytes a
 * step), then add the values into one of NSTACKS slots.  Returns a digest
 * so the work is not optimised away. */
static uint64_t baseline(const struct data *d, char *key, struct metrics *acc)
{
	uint64_t digest = 0;

	for (unsigned j = 0; j < NSAMPLES; j++) {
		const struct sample *s = &d->s[j];
		size_t at = 0;
		uint64_t h = 0xcbf29ce484222325u;
		for (size_t i = 0; i < s->depth; i++) {
			memcpy(key + at, s->frames[i].ptr, s->frames[i].len);
			at += s->frames[i].len;
		}
		memcpy(key + at, s->task.ptr, s->task.len);
		at += s->task.len;
		for (size_t i = 0; i + 8 <= at; i += 8) {
			uint64_t w;
			memcpy(&w, key + i, 8);
			h = (h ^ w) * 0x100000001b3u;
		}
		metrics_add(&acc[h % NSTACKS], &s->m);
		digest ^= h;
	}
	return digest;
}

static void fold(struct model *m, const struct data *d)
{
	check(model_begin(m), "model_begin");
	for (unsigned j = 0; j < NSAMPLES; j++)
		check(model_add(m, &d->s[j]), "model_add");
}

static void commit(struct model *m, const struct window **w)
{
	static const char *const comments[] = { "asynctop bench" };
	struct window_meta meta;

	memset(&meta, 0, sizeof(meta));
	meta.time_nanos = INT64_C(1700000000000000000);
	meta.duration_nanos = INT64_C(5000000000);
	meta.comments = comments;
	meta.ncomments = 1;
	check(model_commit(m, &meta, w), "model_commit");
}

int main(int argc, char **argv)
{
	int runs = argc > 1 ? (int)strtol(argv[1], NULL, 10) : 5;
	double base[MAXRUNS] = { 0 }, fold1[MAXRUNS] = { 0 },
	       commit1[MAXRUNS] = { 0 }, fold3[MAXRUNS] = { 0 },
	       commit3[MAXRUNS] = { 0 };
	char *key = xcalloc(DEPTH + 1, NAMELEN);
	struct metrics *acc = xcalloc(NSTACKS, sizeof(*acc));
	uint64_t digest = 0;
	size_t nrows = 0, nentries = 0;
	struct model_limits lim;
	struct data d;

	if (runs < 1 || runs > MAXRUNS)
		runs = 5;
	generate(&d);
	model_limits_default(&lim);
	lim.max_windows = 2;
	/* Each run: the baseline, then a new model's first window (every
	 * string new), a second and a third (the same samples: all known;
	 * the third commit also evicts the first window). */
	for (int i = 0; i < runs; i++) {
		const struct window *w;
		struct model *m;
		double t0 = now_ms();

		digest ^= baseline(&d, key, acc);
		base[i] = now_ms() - t0;

		check(model_new(&lim, &m), "model_new");
		for (int k = 0; k < 3; k++) {
			double tf, tc;
			t0 = now_ms();
			fold(m, &d);
			tf = now_ms() - t0;
			t0 = now_ms();
			commit(m, &w);
			tc = now_ms() - t0;
			if (k == 0)
				fold1[i] = tf, commit1[i] = tc;
			if (k == 2)
				fold3[i] = tf, commit3[i] = tc;
		}
		nrows = w->nrows;
		nentries = w->nentries;
		model_free(m);
	}
	printf("runs %d\nsamples %d\nstacks %d\ndepth %d\ntasks %d\n", runs,
	       NSAMPLES, NSTACKS, DEPTH, NTASKS);
	printf("rows %zu\nentries %zu\n", nrows, nentries);
	printf("base_ms %.2f\n", median(base, (size_t)runs));
	printf("fold_new_ms %.2f\n", median(fold1, (size_t)runs));
	printf("commit_new_ms %.2f\n", median(commit1, (size_t)runs));
	printf("fold_known_ms %.2f\n", median(fold3, (size_t)runs));
	printf("commit_known_ms %.2f\n", median(commit3, (size_t)runs));
	/* keeps the baseline's work observable */
	printf("digest %llu\n", (unsigned long long)(digest & 0xffff));
	free(key);
	free(acc);
	data_free(&d);
	return 0;
}
