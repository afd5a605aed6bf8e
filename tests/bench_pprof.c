/* The pprof benchmark (make bench): the shared workload (bench_workload.h,
 * the same as tests/bench/gobench's), folded, encoded and parsed in-process.
 * Prints "key value" lines for tests/bench/run.sh: each timed step's wall
 * time (NAME_ms) and CPU time, user and system, of all threads
 * (NAME_cpu_ms), as gobench does, so a loaded machine can be told from a
 * slower program.
 *   bench_pprof [RUNS [OUT.pb.gz]] */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "encode/out.h"
#include "encode/pprof.h"
#include "model/buf.h"
#include "model/model.h"
#include "tests/bench_workload.h"

static const char prog[] = "bench_pprof";

/* CPU time, user and system, of every thread of the process, in ms */
static double cpu_ms(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_SELF, &ru) != 0) {
		perror("bench_pprof: getrusage");
		exit(1);
	}
	return (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e3 +
	       (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e3;
}

/* One timed step: its wall and CPU time */
struct span {
	double wall, cpu;
};

static struct span span_start(void)
{
	return (struct span){ .wall = bench_now_ms(), .cpu = cpu_ms() };
}

/* Stores the time since s in wall[i] and cpu[i] */
static void span_end(struct span s, double *wall, double *cpu, int i)
{
	wall[i] = bench_now_ms() - s.wall;
	cpu[i] = cpu_ms() - s.cpu;
}

static struct model *fold(const struct bench_workload *wl,
                          const struct window **w)
{
	struct window_meta meta;
	struct model *m;

	bench_check(prog, model_new(NULL, &m), "model_new");
	bench_check(prog, model_begin(m), "model_begin");
	for (unsigned j = 0; j < BW_NSAMPLES; j++)
		bench_check(prog, model_add(m, &wl->s[j]), "model_add");
	bench_meta(&meta);
	bench_check(prog, model_commit(m, &meta, w), "model_commit");
	return m;
}

static enum status gzip_at(int level, const struct buf *in, struct buf *out)
{
	struct out *mem, *gz;
	enum status st;

	if ((st = out_mem_new(out, &mem)) != STATUS_OK)
		return st;
	if ((st = out_gzip_new(level, mem, &gz)) != STATUS_OK) {
		out_free(mem);
		return st;
	}
	st = out_write(gz, in->data, in->len);
	if (st == STATUS_OK)
		st = out_finish(gz);
	out_free(gz);
	return st;
}

static enum status gzip_pprof(const struct buf *in, struct buf *out)
{
	return gzip_at(OUT_GZIP_PPROF, in, out);
}

/* Every gzip level on the encoded profile: time and size, to choose by */
static void gzip_levels(const struct buf *raw, int runs, double *t)
{
	for (int level = 1; level <= 9; level++) {
		struct buf z;
		size_t len = 0;

		for (int i = 0; i < runs; i++) {
			double t0 = bench_now_ms();
			buf_init(&z);
			bench_check(prog, gzip_at(level, raw, &z), "gzip");
			t[i] = bench_now_ms() - t0;
			len = z.len;
			buf_fini(&z);
		}
		printf("gzip_l%d_ms %.2f\ngzip_l%d_bytes %zu\n", level,
		       bench_median(t, (size_t)runs), level, len);
	}
}

/* Replay into a model, as `asynctop -r` does */
struct replay {
	struct model *m;
	struct window_meta meta;
	char text[4][64]; /* the comments, which the decoder only lends */
	const char *comments[4];
};

static enum status replay_sample(void *ctx, const struct sample *s)
{
	struct replay *r = ctx;

	return model_add(r->m, s);
}

static enum status replay_meta(void *ctx, const struct window_meta *meta)
{
	struct replay *r = ctx;

	r->meta = *meta;
	r->meta.ncomments = meta->ncomments < 4 ? meta->ncomments : 4;
	for (size_t i = 0; i < r->meta.ncomments; i++) {
		snprintf(r->text[i], sizeof(r->text[i]), "%s",
		         meta->comments[i]);
		r->comments[i] = r->text[i];
	}
	r->meta.comments = r->comments;
	return STATUS_OK;
}

/* End to end: the saved file replayed into a model and saved again (in
 * memory, as gobench's Parse + Write), back to the same bytes.  Stores
 * its times in wall[i] and cpu[i]. */
static void replay_and_save(const struct buf *z, double *wall, double *cpu,
                            int i)
{
	struct replay r = { .m = NULL };
	struct sample_sink k = { replay_sample, replay_meta, &r };
	const struct window *w;
	struct buf b, out;
	char err[256];
	struct span s = span_start();

	buf_init(&b);
	buf_init(&out);
	bench_check(prog, model_new(NULL, &r.m), "model_new");
	bench_check(prog, model_begin(r.m), "model_begin");
	bench_check(prog,
	            pprof_decode(z->data, z->len, NULL, &k, err, sizeof(err)),
	            "pprof_decode");
	bench_check(prog, model_commit(r.m, &r.meta, &w), "model_commit");
	bench_check(prog, pprof_encode(r.m, w, NULL, &b), "pprof_encode");
	bench_check(prog, gzip_pprof(&b, &out), "gzip");
	span_end(s, wall, cpu, i);
	if (out.len != z->len || memcmp(out.data, z->data, z->len) != 0) {
		fprintf(stderr, "%s: replay and save changed the file\n", prog);
		exit(1);
	}
	buf_fini(&b);
	buf_fini(&out);
	model_free(r.m);
}

static enum status count_sample(void *ctx, const struct sample *s)
{
	uint64_t *n = ctx;

	(*n) += s->depth == BW_DEPTH;
	return STATUS_OK;
}

/* Prints the medians of NAME_ms and NAME_cpu_ms */
static void print_span(const char *name, double *wall, double *cpu, int runs)
{
	printf("%s_ms %.2f\n%s_cpu_ms %.2f\n", name,
	       bench_median(wall, (size_t)runs), name,
	       bench_median(cpu, (size_t)runs));
}

int main(int argc, char **argv)
{
	int runs = bench_runs(argc, argv, 5, 32);
	double t[32], c[32];
	const struct window *w;
	struct bench_workload wl;
	struct model *m;
	struct buf b, z;
	struct span s;
	uint64_t n;
	char err[256];

	memset(t, 0, sizeof(t));
	memset(c, 0, sizeof(c));
	buf_init(&b);
	buf_init(&z);
	bench_workload_generate(&wl);
	bench_print_workload(runs);

	for (int i = 0; i < runs; i++) {
		double t0 = bench_now_ms();
		m = fold(&wl, &w);
		t[i] = bench_now_ms() - t0;
		model_free(m);
	}
	printf("fold_ms %.2f\n", bench_median(t, (size_t)runs));

	m = fold(&wl, &w);
	for (int i = 0; i < runs; i++) {
		buf_init(&b);
		s = span_start();
		bench_check(prog, pprof_encode(m, w, NULL, &b), "pprof_encode");
		span_end(s, t, c, i);
		if (i < runs - 1)
			buf_fini(&b);
	}
	print_span("encode", t, c, runs);
	printf("encode_bytes %zu\n", b.len);
	gzip_levels(&b, runs, t);
	buf_fini(&b);

	for (int i = 0; i < runs; i++) {
		buf_init(&b);
		buf_init(&z);
		s = span_start();
		bench_check(prog, pprof_encode(m, w, NULL, &b), "pprof_encode");
		bench_check(prog, gzip_pprof(&b, &z), "gzip");
		span_end(s, t, c, i);
		buf_fini(&b);
		if (i < runs - 1)
			buf_fini(&z);
	}
	print_span("gzip", t, c, runs);
	printf("gzip_bytes %zu\n", z.len);
	if (argc > 2) { /* keep the file, e.g. to compare with gobench's */
		FILE *f = fopen(argv[2], "wb");
		if (!f || fwrite(z.data, 1, z.len, f) != z.len || fclose(f)) {
			fprintf(stderr, "%s: cannot write %s\n", prog, argv[2]);
			return 1;
		}
	}

	for (int i = 0; i < runs; i++) {
		struct sample_sink k = { count_sample, NULL, &n };
		n = 0;
		s = span_start();
		bench_check(
		    prog,
		    pprof_decode(z.data, z.len, NULL, &k, err, sizeof(err)),
		    "pprof_decode");
		span_end(s, t, c, i);
		if (n != BW_NSAMPLES) {
			fprintf(stderr,
			        "%s: decoded %" PRIu64 " samples, want %d\n",
			        prog, n, BW_NSAMPLES);
			return 1;
		}
	}
	print_span("parse", t, c, runs);
	for (int i = 0; i < runs; i++)
		replay_and_save(&z, t, c, i);
	print_span("e2e", t, c, runs);
	buf_fini(&z);
	model_free(m);
	bench_workload_free(&wl);
	return 0;
}
