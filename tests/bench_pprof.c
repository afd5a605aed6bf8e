/* The pprof benchmark (make bench): the shared workload (bench_workload.h,
 * the same as tests/bench/gobench's), folded, encoded and parsed in-process.
 * Prints "key value" lines for tests/bench/run.sh.
 *   bench_pprof [RUNS [OUT.pb.gz]] */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "encode/out.h"
#include "encode/pprof.h"
#include "model/buf.h"
#include "model/model.h"
#include "tests/bench_workload.h"

static const char prog[] = "bench_pprof";

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

/* Every zlib level on the encoded profile: time and size, to choose by */
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
 * memory, as gobench's Parse + Write), back to the same bytes. */
static double replay_and_save(const struct buf *z)
{
	struct replay r = { .m = NULL };
	struct sample_sink k = { replay_sample, replay_meta, &r };
	const struct window *w;
	struct buf b, out;
	char err[256];
	double t0 = bench_now_ms(), t;

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
	t = bench_now_ms() - t0;
	if (out.len != z->len || memcmp(out.data, z->data, z->len) != 0) {
		fprintf(stderr, "%s: replay and save changed the file\n", prog);
		exit(1);
	}
	buf_fini(&b);
	buf_fini(&out);
	model_free(r.m);
	return t;
}

static enum status count_sample(void *ctx, const struct sample *s)
{
	uint64_t *n = ctx;

	(*n) += s->depth == BW_DEPTH;
	return STATUS_OK;
}

int main(int argc, char **argv)
{
	int runs = bench_runs(argc, argv, 5, 32);
	double t[32], t0;
	const struct window *w;
	struct bench_workload wl;
	struct model *m;
	struct buf b, z;
	uint64_t n;
	char err[256];

	memset(t, 0, sizeof(t));
	buf_init(&b);
	buf_init(&z);
	bench_workload_generate(&wl);
	bench_print_workload(runs);

	for (int i = 0; i < runs; i++) {
		t0 = bench_now_ms();
		m = fold(&wl, &w);
		t[i] = bench_now_ms() - t0;
		model_free(m);
	}
	printf("fold_ms %.2f\n", bench_median(t, (size_t)runs));

	m = fold(&wl, &w);
	for (int i = 0; i < runs; i++) {
		buf_init(&b);
		t0 = bench_now_ms();
		bench_check(prog, pprof_encode(m, w, NULL, &b), "pprof_encode");
		t[i] = bench_now_ms() - t0;
		if (i < runs - 1)
			buf_fini(&b);
	}
	printf("encode_ms %.2f\nencode_bytes %zu\n",
	       bench_median(t, (size_t)runs), b.len);
	gzip_levels(&b, runs, t);
	buf_fini(&b);

	for (int i = 0; i < runs; i++) {
		buf_init(&b);
		buf_init(&z);
		t0 = bench_now_ms();
		bench_check(prog, pprof_encode(m, w, NULL, &b), "pprof_encode");
		bench_check(prog, gzip_pprof(&b, &z), "gzip");
		t[i] = bench_now_ms() - t0;
		buf_fini(&b);
		if (i < runs - 1)
			buf_fini(&z);
	}
	printf("gzip_ms %.2f\ngzip_bytes %zu\n", bench_median(t, (size_t)runs),
	       z.len);
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
		t0 = bench_now_ms();
		bench_check(
		    prog,
		    pprof_decode(z.data, z.len, NULL, &k, err, sizeof(err)),
		    "pprof_decode");
		t[i] = bench_now_ms() - t0;
		if (n != BW_NSAMPLES) {
			fprintf(stderr,
			        "%s: decoded %" PRIu64 " samples, want %d\n",
			        prog, n, BW_NSAMPLES);
			return 1;
		}
	}
	printf("parse_ms %.2f\n", bench_median(t, (size_t)runs));
	for (int i = 0; i < runs; i++)
		t[i] = replay_and_save(&z);
	printf("e2e_ms %.2f\n", bench_median(t, (size_t)runs));
	buf_fini(&z);
	model_free(m);
	bench_workload_free(&wl);
	return 0;
}
