/* The fold and the commit against a plain reference over windows whose
 * stacks come, go and come back; near-equal and hash-colliding stacks; the
 * canonical order when a window shares only some stacks with the last. */
#include <check.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "model/model.h"
#include "tests/model_util.h"

enum { NFRAMES = 48, NSTACKS = 300, MAXD = 7, NNAMES = 12, NSAMP = 1500 };

static uint64_t xs(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

/* A universe of stacks over frames of 1 to 40 bytes that share prefixes
 * and suffixes (so that hashes see near-equal words), and a reference
 * fold of (stack, name) pairs with their sums. */
struct world {
	char frame[NFRAMES][48];
	struct strview stack[NSTACKS][MAXD];
	size_t depth[NSTACKS];
	char name[NNAMES][8];
	/* the reference of one window: sums per (stack, name) */
	uint64_t tasks[NSTACKS][NNAMES];
	struct metrics m[NSTACKS][NNAMES];
};

static int frames_cmp(const struct strview *a, size_t na,
                      const struct strview *b, size_t nb)
{
	for (size_t i = 0; i < na && i < nb; i++) {
		int c = sv_cmp(a[i], b[i]);
		if (c)
			return c;
	}
	return (na > nb) - (na < nb);
}

static void world_init(struct world *wd, uint64_t *x)
{
	memset(wd, 0, sizeof(*wd));
	for (int f = 0; f < NFRAMES; f++) {
		size_t len = 1 + (size_t)(xs(x) % 40);
		for (size_t i = 0; i < len; i++)
			wd->frame[f][i] = (char)('a' + (f + i) % 3);
		/* one byte in the middle or at either end tells them apart */
		wd->frame[f][(size_t)(xs(x) % len)] = (char)('0' + f % 10);
		wd->frame[f][0] = (char)('A' + f / 10);
	}
	for (int s = 0; s < NSTACKS; s++) {
		bool again = true;
		while (again) {
			/* the first stacks are prefixes of one another */
			wd->depth[s] = s < MAXD ? (size_t)s + 1
			                        : 1 + (size_t)(xs(x) % MAXD);
			for (size_t d = 0; d < wd->depth[s]; d++) {
				int f =
				    s < MAXD ? (int)d : (int)(xs(x) % NFRAMES);
				wd->stack[s][d] = sv_c(wd->frame[f]);
			}
			again = false;
			for (int t = 0; t < s && !again; t++)
				again =
				    frames_cmp(wd->stack[s], wd->depth[s],
				               wd->stack[t], wd->depth[t]) == 0;
		}
	}
	for (int n = 0; n < NNAMES; n++)
		snprintf(wd->name[n], sizeof(wd->name[n]), "%c%d", "tw"[n % 2],
		         n * 5 % NNAMES);
}

/* The universe index of a row's stack, by its frames' text. */
static int which_stack(const struct world *wd, const struct model *m,
                       uint32_t id)
{
	size_t depth;
	const uint32_t *f = model_stack(m, id, &depth);
	struct strview v[MAXD];

	ck_assert_uint_le(depth, MAXD);
	for (size_t i = 0; i < depth; i++)
		v[i] = model_frame(m, f[i]);
	for (int s = 0; s < NSTACKS; s++) {
		if (frames_cmp(v, depth, wd->stack[s], wd->depth[s]) == 0)
			return s;
	}
	ck_abort_msg("row of stack %u is no stack of the universe", id);
	return -1;
}

static int which_name(const struct world *wd, struct strview n)
{
	for (int i = 0; i < NNAMES; i++) {
		if (sv_eq(n, sv_c(wd->name[i])))
			return i;
	}
	ck_abort_msg("unknown name");
	return -1;
}

/* w must hold exactly the reference, in canonical order. */
static void check_window(const struct world *wd, const struct model *m,
                         const struct window *w)
{
	size_t want = 0, at = 0;
	int prev = -1;

	for (int s = 0; s < NSTACKS; s++)
		for (int n = 0; n < NNAMES; n++)
			want += wd->tasks[s][n] != 0;
	ck_assert_uint_eq(w->nentries, want);
	for (size_t r = 0; r < w->nrows; r++) {
		const struct fold_row *row = &w->rows[r];
		int s = which_stack(wd, m, row->stack);
		uint64_t tasks = 0;
		ck_assert_uint_eq(window_find_row(w, row->stack), r);
		ck_assert_uint_eq(row->first, at);
		if (prev >= 0)
			ck_assert_int_lt(frames_cmp(wd->stack[prev],
			                            wd->depth[prev],
			                            wd->stack[s], wd->depth[s]),
			                 0);
		prev = s;
		for (uint32_t i = row->first; i < row->first + row->count;
		     i++) {
			const struct fold_entry *e = &w->entries[i];
			int n = which_name(wd, model_name(m, e->name));
			ck_assert_uint_eq(e->stack, row->stack);
			if (i > row->first)
				ck_assert_int_lt(
				    sv_cmp(model_name(m, e[-1].name),
				           model_name(m, e->name)),
				    0);
			ck_assert_uint_eq(e->tasks, wd->tasks[s][n]);
			for (int k = 0; k < METRIC_COUNT; k++)
				ck_assert_uint_eq(e->m.v[k], wd->m[s][n].v[k]);
			tasks += e->tasks;
		}
		ck_assert_uint_eq(row->tasks, tasks);
		at += row->count;
	}
	ck_assert_uint_eq(at, w->nentries);
}

START_TEST(fold_matches_reference)
{
	static struct world wd;
	uint64_t x = 0x9e3779b97f4a7c15ull + (uint64_t)_i;
	/* a short ring, so that stacks are reclaimed and come back */
	struct model *m = tm_mk(2, 0, 0, 0, 0);
	const struct window *w;

	world_init(&wd, &x);
	for (int win = 0; win < 10; win++) {
		/* a window uses a moving part of the universe */
		int from = (win * 37) % NSTACKS, span = 60 + win * 20;
		memset(wd.tasks, 0, sizeof(wd.tasks));
		memset(wd.m, 0, sizeof(wd.m));
		ck_assert_int_eq(model_begin(m), STATUS_OK);
		for (int j = 0; j < NSAMP; j++) {
			int s =
			    (from + (int)(xs(&x) % (uint64_t)span)) % NSTACKS;
			int n = (int)(xs(&x) % NNAMES);
			struct sample smp = {
				.frames = wd.stack[s],
				.depth = wd.depth[s],
				.task = sv_c(wd.name[n]),
				.m = tm_vals(1 + xs(&x) % 1000),
				.tasks = xs(&x) % 3,
			};
			ck_assert_int_eq(model_add(m, &smp), STATUS_OK);
			wd.tasks[s][n] += smp.tasks ? smp.tasks : 1;
			metrics_add(&wd.m[s][n], &smp.m);
		}
		ck_assert_int_eq(model_commit(m, NULL, &w), STATUS_OK);
		check_window(&wd, m, w);
	}
	model_free(m);
}
END_TEST

/* Frames that a word-wise hash could confuse: one byte apart at every
 * position, the same bytes split differently between frames, lengths
 * 256 apart with the same last bytes. */
START_TEST(near_equal_stacks_stay_apart)
{
	struct model *m = tm_mk(0, 0, 0, 0, 0);
	const struct window *w;
	char base[300], var[40][300];
	struct strview fr[3];
	size_t n = 0;

	memset(base, 'x', sizeof(base));
	ck_assert_int_eq(model_begin(m), STATUS_OK);
	for (size_t len = 1; len <= 24; len++) {
		for (size_t at = 0; at < len; at++) {
			memcpy(var[at], base, len);
			var[at][at] = 'y';
			fr[0] = sv_n(var[at], len);
			struct sample s = { .frames = fr,
				            .depth = 1,
				            .task = sv_c("t"),
				            .m = tm_vals(1),
				            .tasks = 1 };
			ck_assert_int_eq(model_add(m, &s), STATUS_OK);
			ck_assert_int_eq(model_add(m, &s), STATUS_OK);
			n++;
		}
	}
	/* "ab" "c" and "a" "bc"; "xyz" and 259 bytes ending in "xyz" */
	{
		struct strview a[2] = { sv_c("ab"), sv_c("c") },
		               b[2] = { sv_c("a"), sv_c("bc") };
		struct sample s = { .frames = a,
			            .depth = 2,
			            .task = sv_c("t"),
			            .m = tm_vals(1),
			            .tasks = 1 };
		ck_assert_int_eq(model_add(m, &s), STATUS_OK);
		s.frames = b;
		ck_assert_int_eq(model_add(m, &s), STATUS_OK);
		memcpy(var[0], base, 256);
		memcpy(var[0] + 256, "xyz", 3);
		fr[0] = sv_n(var[0], 259);
		fr[1] = sv_c("xyz");
		s.frames = fr;
		s.depth = 1;
		ck_assert_int_eq(model_add(m, &s), STATUS_OK);
		s.frames = fr + 1;
		ck_assert_int_eq(model_add(m, &s), STATUS_OK);
		n += 4;
	}
	ck_assert_int_eq(model_commit(m, NULL, &w), STATUS_OK);
	ck_assert_uint_eq(w->nrows, n);
	ck_assert_uint_eq(w->nentries, n);
	for (size_t r = 0; r + 1 < w->nrows; r++)
		ck_assert_int_lt(
		    model_stack_cmp(m, w->rows[r].stack, w->rows[r + 1].stack),
		    0);
	/* each one-byte variant was added twice and folded */
	ck_assert_uint_eq(w->tasks, 2 * (n - 4) + 4);
	model_free(m);
}
END_TEST

/* Pairs of stacks whose 32-bit hashes (model.c's stack_hash, as of this
 * writing) are equal, found by a birthday search: the index finds both
 * under one hash, and only the comparison of their frames tells them
 * apart (a word left out of it would merge them). */
START_TEST(hash_collisions_are_compared)
{
	static const char *const pairs[][2] = {
		{ "handler:fmbfa", "handler:qndga" },
		{ "handler:yyjea", "handler:xhfga" },
		{ "root;lgjcaa", "root;ptqoaa" },
		{ "root;qcxcaa", "root;ofkkaa" },
	};
	struct model *m = tm_mk(0, 0, 0, 0, 0);
	const struct window *w;

	ck_assert_int_eq(model_begin(m), STATUS_OK);
	for (size_t k = 0; k < ARRAY_SIZE(pairs); k++) {
		ck_assert_int_eq(tm_add(m, pairs[k][0], "t", 1), STATUS_OK);
		ck_assert_int_eq(tm_add(m, pairs[k][1], "t", 2), STATUS_OK);
		ck_assert_int_eq(tm_add(m, pairs[k][1], "t", 2), STATUS_OK);
	}
	ck_assert_int_eq(model_commit(m, NULL, &w), STATUS_OK);
	tm_check_dump(m, w,
	              "R handler:fmbfa t=1 v=1,5\n  t t=1 v=1\n"
	              "R handler:qndga t=2 v=4,20\n  t t=2 v=4\n"
	              "R handler:xhfga t=2 v=4,20\n  t t=2 v=4\n"
	              "R handler:yyjea t=1 v=1,5\n  t t=1 v=1\n"
	              "R root;lgjcaa t=1 v=1,5\n  t t=1 v=1\n"
	              "R root;ofkkaa t=2 v=4,20\n  t t=2 v=4\n"
	              "R root;ptqoaa t=2 v=4,20\n  t t=2 v=4\n"
	              "R root;qcxcaa t=1 v=1,5\n  t t=1 v=1\n");
	model_free(m);
}
END_TEST

/* Each window shares some stacks with the one before and brings new ones
 * that sort between them; with one window kept, the stacks it drops are
 * reclaimed and come back with new ids. */
START_TEST(order_across_windows)
{
	static const char *const win[][7] = {
		{ "f", "b", "d", NULL },
		{ "g", "a", "e", "d", "c", "f", NULL },
		{ "b", "a;x", "g", "a", NULL },
		{ "a;x", "c", "a;x;y", "h", "a", NULL },
	};
	static const char *const want[] = {
		"R b t=1 v=1,5\n  t t=1 v=1\n"
		"R d t=1 v=1,5\n  t t=1 v=1\n"
		"R f t=1 v=1,5\n  t t=1 v=1\n",
		"R a t=1 v=1,5\n  t t=1 v=1\n"
		"R c t=1 v=1,5\n  t t=1 v=1\n"
		"R d t=1 v=1,5\n  t t=1 v=1\n"
		"R e t=1 v=1,5\n  t t=1 v=1\n"
		"R f t=1 v=1,5\n  t t=1 v=1\n"
		"R g t=1 v=1,5\n  t t=1 v=1\n",
		"R a t=1 v=1,5\n  t t=1 v=1\n"
		"R a;x t=1 v=1,5\n  t t=1 v=1\n"
		"R b t=1 v=1,5\n  t t=1 v=1\n"
		"R g t=1 v=1,5\n  t t=1 v=1\n",
		"R a t=1 v=1,5\n  t t=1 v=1\n"
		"R a;x t=1 v=1,5\n  t t=1 v=1\n"
		"R a;x;y t=1 v=1,5\n  t t=1 v=1\n"
		"R c t=1 v=1,5\n  t t=1 v=1\n"
		"R h t=1 v=1,5\n  t t=1 v=1\n",
	};

	for (size_t keep = 1; keep <= 4; keep += 3) {
		struct model *m = tm_mk(keep, 0, 0, 0, 0);
		const struct window *w;
		for (size_t k = 0; k < 4; k++) {
			ck_assert_int_eq(model_begin(m), STATUS_OK);
			for (size_t i = 0; win[k][i]; i++)
				ck_assert_int_eq(tm_add(m, win[k][i], "t", 1),
				                 STATUS_OK);
			ck_assert_int_eq(model_commit(m, NULL, &w), STATUS_OK);
			tm_check_dump(m, w, want[k]);
		}
		if (keep == 1) { /* "b" came back in window 3: a new id */
			struct model_stats st;
			model_stats(m, &st);
			ck_assert_uint_gt(st.stacks_reclaimed, 0);
		}
		model_free(m);
	}
}
END_TEST

Suite *suite_model_fold(void);
Suite *suite_model_fold(void)
{
	Suite *s = suite_create("model_fold");
	TCase *tc = tcase_create("fold");

	tcase_add_loop_test(tc, fold_matches_reference, 0, 3);
	tcase_add_test(tc, near_equal_stacks_stay_apart);
	tcase_add_test(tc, hash_collisions_are_compared);
	tcase_add_test(tc, order_across_windows);
	suite_add_tcase(s, tc);
	return s;
}
