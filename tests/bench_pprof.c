/* The pprof benchmark (make bench): the workload of pprof.md §9, generated
 * with splitmix64 exactly as tests/bench/gobench does, timed in-process.
 * Prints "key value" lines for tests/bench/run.sh.
 *   bench_pprof [RUNS [OUT.pb.gz]] */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "encode/out.h"
#include "encode/pprof.h"
#include "model/alloc.h"
#include "model/buf.h"
#include "model/model.h"

enum {
	NSTACKS = 10000,
	DEPTH = 8,
	NSAMPLES = 100000,
	NTASKS = 1000,
	NAMELEN = 64,
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

struct data {
	char (*frame)[NAMELEN]; /* level d index k: frame[d * 1500 + k] */
	char (*leaf)[NAMELEN];
	char (*task)[NAMELEN];
	uint32_t (*stack)[DEPTH - 1]; /* pool indices per level */
	uint32_t *s_stack, *s_task;
	struct metrics *s_m;
	uint64_t *s_tasks;
};

static void *xalloc(size_t n, size_t size)
{
	void *p = mem_calloc(n, size);

	if (!p) {
		fputs("bench_pprof: out of memory\n", stderr);
		exit(1);
	}
	return p;
}

static void generate(struct data *d)
{
	d->frame = xalloc((DEPTH - 1) * 1500, NAMELEN);
	d->leaf = xalloc(NSTACKS, NAMELEN);
	d->task = xalloc(NTASKS, NAMELEN);
	d->stack = xalloc(NSTACKS, sizeof(*d->stack));
	d->s_stack = xalloc(NSAMPLES, sizeof(*d->s_stack));
	d->s_task = xalloc(NSAMPLES, sizeof(*d->s_task));
	d->s_m = xalloc(NSAMPLES, sizeof(*d->s_m));
	d->s_tasks = xalloc(NSAMPLES, sizeof(*d->s_tasks));
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
	for (unsigned i = 0; i < NSTACKS; i++)
		for (unsigned l = 0; l < DEPTH - 1; l++)
			d->stack[i][l] = (uint32_t)(splitmix64() % pool[l]);
	for (unsigned j = 0; j < NSAMPLES; j++) {
		struct metrics *m = &d->s_m[j];
		d->s_stack[j] = j % NSTACKS;
		d->s_task[j] =
		    (uint32_t)((j / NSTACKS) * 100 + splitmix64() % 100);
		m->v[METRIC_IDLE] = splitmix64() % 5000000000u;
		m->v[METRIC_BUSY] = splitmix64() % 10000000u;
		m->v[METRIC_SCHED] = splitmix64() % 1000000u;
		m->v[METRIC_POLLS] = 1 + splitmix64() % 1000u;
		m->v[METRIC_WAKES] = splitmix64() % 500u;
		d->s_tasks[j] = 1 + splitmix64() % 4u;
	}
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
		fprintf(stderr, "bench_pprof: %s: %s\n", what, status_str(st));
		exit(1);
	}
}

static struct model *fold(const struct data *d, const struct window **w)
{
	static const char *const comments[] = { "asynctop bench" };
	struct window_meta meta;
	struct strview fr[DEPTH];
	struct model *m;

	check(model_new(NULL, &m), "model_new");
	check(model_begin(m), "model_begin");
	for (unsigned j = 0; j < NSAMPLES; j++) {
		unsigned s = d->s_stack[j];
		struct sample smp;
		for (unsigned l = 0; l < DEPTH - 1; l++)
			fr[l] = sv_c(d->frame[l * 1500 + d->stack[s][l]]);
		fr[DEPTH - 1] = sv_c(d->leaf[s]);
		smp.frames = fr;
		smp.depth = DEPTH;
		smp.task = sv_c(d->task[d->s_task[j]]);
		smp.m = d->s_m[j];
		smp.tasks = d->s_tasks[j];
		check(model_add(m, &smp), "model_add");
	}
	memset(&meta, 0, sizeof(meta));
	meta.time_nanos = INT64_C(1700000000000000000);
	meta.duration_nanos = INT64_C(5000000000);
	meta.comments = comments;
	meta.ncomments = 1;
	check(model_commit(m, &meta, w), "model_commit");
	return m;
}

static enum status gzip6(const struct buf *in, struct buf *out)
{
	struct out *mem, *gz;
	enum status st;

	if ((st = out_mem_new(out, &mem)) != STATUS_OK)
		return st;
	if ((st = out_gzip_new(OUT_GZIP_DEFAULT, mem, &gz)) != STATUS_OK) {
		out_free(mem);
		return st;
	}
	st = out_write(gz, in->data, in->len);
	if (st == STATUS_OK)
		st = out_finish(gz);
	out_free(gz);
	return st;
}

static enum status count_sample(void *ctx, const struct sample *s)
{
	uint64_t *n = ctx;

	(*n) += s->depth == DEPTH;
	return STATUS_OK;
}

int main(int argc, char **argv)
{
	int runs = argc > 1 ? (int)strtol(argv[1], NULL, 10) : 5;
	double t[32], t0;
	const struct window *w;
	struct data d;
	struct model *m;
	struct buf b, z;
	uint64_t n;
	char err[256];

	if (runs < 1 || runs > 32)
		runs = 5;
	memset(t, 0, sizeof(t));
	buf_init(&b);
	buf_init(&z);
	memset(&d, 0, sizeof(d));
	generate(&d);
	printf("runs %d\nsamples %d\nstacks %d\ndepth %d\ntasks %d\n", runs,
	       NSAMPLES, NSTACKS, DEPTH, NTASKS);

	for (int i = 0; i < runs; i++) {
		t0 = now_ms();
		m = fold(&d, &w);
		t[i] = now_ms() - t0;
		model_free(m);
	}
	printf("fold_ms %.2f\n", median(t, (size_t)runs));

	m = fold(&d, &w);
	for (int i = 0; i < runs; i++) {
		buf_init(&b);
		t0 = now_ms();
		check(pprof_encode(m, w, NULL, &b), "pprof_encode");
		t[i] = now_ms() - t0;
		if (i < runs - 1)
			buf_fini(&b);
	}
	printf("encode_ms %.2f\nencode_bytes %zu\n", median(t, (size_t)runs),
	       b.len);
	buf_fini(&b);

	for (int i = 0; i < runs; i++) {
		buf_init(&b);
		buf_init(&z);
		t0 = now_ms();
		check(pprof_encode(m, w, NULL, &b), "pprof_encode");
		check(gzip6(&b, &z), "gzip");
		t[i] = now_ms() - t0;
		buf_fini(&b);
		if (i < runs - 1)
			buf_fini(&z);
	}
	printf("gzip_ms %.2f\ngzip_bytes %zu\n", median(t, (size_t)runs),
	       z.len);
	if (argc > 2) { /* keep the file, e.g. to compare with gobench's */
		FILE *f = fopen(argv[2], "wb");
		if (!f || fwrite(z.data, 1, z.len, f) != z.len || fclose(f)) {
			fprintf(stderr, "bench_pprof: cannot write %s\n",
			        argv[2]);
			return 1;
		}
	}

	for (int i = 0; i < runs; i++) {
		struct sample_sink k = { count_sample, NULL, &n };
		n = 0;
		t0 = now_ms();
		check(pprof_decode(z.data, z.len, NULL, &k, err, sizeof(err)),
		      "pprof_decode");
		t[i] = now_ms() - t0;
		if (n != NSAMPLES) {
			fprintf(stderr,
			        "bench_pprof: decoded %" PRIu64
			        " samples, want %d\n",
			        n, NSAMPLES);
			return 1;
		}
	}
	printf("parse_ms %.2f\n", median(t, (size_t)runs));
	buf_fini(&z);
	model_free(m);
	mem_free(d.frame);
	mem_free(d.leaf);
	mem_free(d.task);
	mem_free(d.stack);
	mem_free(d.s_stack);
	mem_free(d.s_task);
	mem_free(d.s_m);
	mem_free(d.s_tasks);
	return 0;
}
