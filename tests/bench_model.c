/* The model benchmark (make bench): fold and commit of the shared workload
 * (bench_workload.h: a new model's first window, then its third: all stacks
 * known, one window evicted), against copying and hashing the same bytes once.
 *   bench_model [RUNS]    prints "key value" lines for tests/bench/run.sh */
#include <stdio.h>
#include <string.h>

#include "model/alloc.h"
#include "model/model.h"
#include "tests/bench_workload.h"

enum { MAXRUNS = 64 };

static const char prog[] = "bench_model";

/* The baseline: what any fold must at least do, once per sample: copy the
 * stack's and the task's bytes into one key and hash it (FNV-1a, 8 bytes a
 * step), then add the values into one of BW_NSTACKS slots.  Returns a digest
 * so the work is not optimised away. */
static uint64_t baseline(const struct bench_workload *wl, char *key,
                         struct metrics *acc)
{
	uint64_t digest = 0;

	for (unsigned j = 0; j < BW_NSAMPLES; j++) {
		const struct sample *s = &wl->s[j];
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
		metrics_add(&acc[h % BW_NSTACKS], &s->m);
		digest ^= h;
	}
	return digest;
}

static void fold(struct model *m, const struct bench_workload *wl)
{
	bench_check(prog, model_begin(m), "model_begin");
	for (unsigned j = 0; j < BW_NSAMPLES; j++)
		bench_check(prog, model_add(m, &wl->s[j]), "model_add");
}

static void commit(struct model *m, const struct window **w)
{
	struct window_meta meta;

	bench_meta(&meta);
	bench_check(prog, model_commit(m, &meta, w), "model_commit");
}

int main(int argc, char **argv)
{
	int runs = bench_runs(argc, argv, 5, MAXRUNS);
	double base[MAXRUNS] = { 0 }, fold1[MAXRUNS] = { 0 },
	       commit1[MAXRUNS] = { 0 }, fold3[MAXRUNS] = { 0 },
	       commit3[MAXRUNS] = { 0 };
	char *key = bench_xcalloc(BW_DEPTH + 1, BW_NAMELEN);
	struct metrics *acc = bench_xcalloc(BW_NSTACKS, sizeof(*acc));
	uint64_t digest = 0;
	size_t nrows = 0, nentries = 0;
	struct model_limits lim;
	struct bench_workload wl;

	bench_workload_generate(&wl);
	model_limits_default(&lim);
	lim.max_windows = 2;
	/* Each run: the baseline, then a new model's first window (every
	 * string new), a second and a third (the same samples: all known;
	 * the third commit also evicts the first window). */
	for (int i = 0; i < runs; i++) {
		const struct window *w;
		struct model *m;
		double t0 = bench_now_ms();

		digest ^= baseline(&wl, key, acc);
		base[i] = bench_now_ms() - t0;

		bench_check(prog, model_new(&lim, &m), "model_new");
		for (int k = 0; k < 3; k++) {
			double tf, tc;
			t0 = bench_now_ms();
			fold(m, &wl);
			tf = bench_now_ms() - t0;
			t0 = bench_now_ms();
			commit(m, &w);
			tc = bench_now_ms() - t0;
			if (k == 0)
				fold1[i] = tf, commit1[i] = tc;
			if (k == 2)
				fold3[i] = tf, commit3[i] = tc;
		}
		nrows = w->nrows;
		nentries = w->nentries;
		model_free(m);
	}
	bench_print_workload(runs);
	printf("rows %zu\nentries %zu\n", nrows, nentries);
	printf("base_ms %.2f\n", bench_median(base, (size_t)runs));
	printf("fold_new_ms %.2f\n", bench_median(fold1, (size_t)runs));
	printf("commit_new_ms %.2f\n", bench_median(commit1, (size_t)runs));
	printf("fold_known_ms %.2f\n", bench_median(fold3, (size_t)runs));
	printf("commit_known_ms %.2f\n", bench_median(commit3, (size_t)runs));
	/* keeps the baseline's work observable */
	printf("digest %llu\n", (unsigned long long)(digest & 0xffff));
	mem_free(key);
	mem_free(acc);
	bench_workload_free(&wl);
	return 0;
}
