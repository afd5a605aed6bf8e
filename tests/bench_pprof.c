/* The pprof benchmark (make bench): the shared workload (bench_workload.h,
 * the same as tests/bench/gobench's), folded, encoded and parsed in-process.
 * Prints "key value" lines for tests/bench/run.sh.
 *   bench_pprof [RUNS [OUT.pb.gz]] */
#include <inttypes.h>
#include <stdio.h>
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
	buf_fini(&b);

	for (int i = 0; i < runs; i++) {
		buf_init(&b);
		buf_init(&z);
		t0 = bench_now_ms();
		bench_check(prog, pprof_encode(m, w, NULL, &b), "pprof_encode");
		bench_check(prog, gzip6(&b, &z), "gzip");
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
	buf_fini(&z);
	model_free(m);
	bench_workload_free(&wl);
	return 0;
}
