/* The model benchmark (make bench): fold and commit of the shared workload
 * (bench_workload.h: a new model's first window, then its third: all stacks
 * known, one window evicted), against copying and hashing the same bytes once;
 * then the same workload with a parked-at stack (of the workload's depth) and
 * two optional figures on every sample, against the run without them, and
 * the derivation of the grouping by parked-at stack.
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

static void fold(struct model *m, const struct sample *s)
{
	bench_check(prog, model_begin(m), "model_begin");
	for (unsigned j = 0; j < BW_NSAMPLES; j++)
		bench_check(prog, model_add(m, &s[j]), "model_add");
}

/* The workload's samples, each parked at another stack of the workload (one
 * per spawn stack, so the entries stay as many) and knowing two figures. */
static struct sample *parked_samples(const struct bench_workload *wl)
{
	struct sample *s = bench_xcalloc(BW_NSAMPLES, sizeof(*s));

	for (unsigned j = 0; j < BW_NSAMPLES; j++) {
		unsigned st = j % BW_NSTACKS;
		s[j] = wl->s[j];
		s[j].parked = wl->stack[(st * 7 + 3) % BW_NSTACKS];
		s[j].parked_depth = BW_DEPTH;
		s[j].x = (struct extras){ .known = (1u << EXTRA_SELF_WAKES) |
			                           (1u << EXTRA_MAX_POLL) };
		s[j].x.v[EXTRA_SELF_WAKES] = j % 3;
		s[j].x.v[EXTRA_MAX_POLL] = j % 1000;
	}
	return s;
}

static void commit(struct model *m, const struct window **w)
{
	struct window_meta meta;

	bench_meta(&meta);
	bench_check(prog, model_commit(m, &meta, w), "model_commit");
}

/* Runs a new model's three windows of s; t[0..3] get the fold and commit
 * of the first and the third window, *out the model (the caller frees). */
static void three(const struct model_limits *lim, const struct sample *s,
                  double t[4], struct model **out)
{
	const struct window *w;
	struct model *m;

	bench_check(prog, model_new(lim, &m), "model_new");
	for (int k = 0; k < 3; k++) {
		double t0 = bench_now_ms(), tf, tc;
		fold(m, s);
		tf = bench_now_ms() - t0;
		t0 = bench_now_ms();
		commit(m, &w);
		tc = bench_now_ms() - t0;
		if (k != 1) {
			t[k ? 2 : 0] = tf;
			t[k ? 3 : 1] = tc;
		}
	}
	*out = m;
}

int main(int argc, char **argv)
{
	int runs = bench_runs(argc, argv, 5, MAXRUNS);
	double base[MAXRUNS] = { 0 }, plain[4][MAXRUNS] = { { 0 } },
	       parked[4][MAXRUNS] = { { 0 } }, group[MAXRUNS] = { 0 };
	static const char *const keys[4] = { "fold_new", "commit_new",
		                             "fold_known", "commit_known" };
	char *key = bench_xcalloc(BW_DEPTH + 1, BW_NAMELEN);
	struct metrics *acc = bench_xcalloc(BW_NSTACKS, sizeof(*acc));
	uint64_t digest = 0;
	size_t nrows = 0, nentries = 0, prows = 0;
	struct model_limits lim;
	struct bench_workload wl;
	struct sample *ps;

	bench_workload_generate(&wl);
	ps = parked_samples(&wl);
	model_limits_default(&lim);
	lim.max_windows = 2;
	/* Each run: the baseline, then a new model's first window (every
	 * string new), a second and a third (the same samples: all known;
	 * the third commit also evicts the first window); then the same with
	 * parked-at stacks and figures, interleaved so that both see the
	 * same machine load. */
	for (int i = 0; i < runs; i++) {
		const struct window *w, *g;
		struct model *m;
		double t[4], t0 = bench_now_ms();

		digest ^= baseline(&wl, key, acc);
		base[i] = bench_now_ms() - t0;

		three(&lim, wl.s, t, &m);
		for (int k = 0; k < 4; k++)
			plain[k][i] = t[k];
		w = model_latest(m);
		nrows = w->nrows;
		nentries = w->nentries;
		model_free(m);

		three(&lim, ps, t, &m);
		for (int k = 0; k < 4; k++)
			parked[k][i] = t[k];
		w = model_latest(m);
		t0 = bench_now_ms();
		bench_check(
		    prog,
		    model_group(m, w, (struct grouping){ .key = GROUP_PARKED },
		                &g),
		    "model_group");
		group[i] = bench_now_ms() - t0;
		prows = g->nrows;
		model_group_free(g);
		model_free(m);
	}
	bench_print_workload(runs);
	printf("rows %zu\nentries %zu\nparked_rows %zu\n", nrows, nentries,
	       prows);
	printf("base_ms %.2f\n", bench_median(base, (size_t)runs));
	for (int k = 0; k < 4; k++)
		printf("%s_ms %.2f\n", keys[k],
		       bench_median(plain[k], (size_t)runs));
	for (int k = 0; k < 4; k++)
		printf("%s_parked_ms %.2f\n", keys[k],
		       bench_median(parked[k], (size_t)runs));
	printf("group_parked_ms %.2f\n", bench_median(group, (size_t)runs));
	/* keeps the baseline's work observable */
	printf("digest %llu\n", (unsigned long long)(digest & 0xffff));
	mem_free(ps);
	mem_free(key);
	mem_free(acc);
	bench_workload_free(&wl);
	return 0;
}
