/* model_group against a straightforward computation, on random windows:
 * the entries sorted one by one by text (row stack, name, other stack),
 * cut into rows and summed, must be what the derivation gives, with a
 * memo carried across windows, with a fresh one, and with none; and the
 * by-id index must find every row's stack. */
#include <check.h>
#include <stdio.h>
#include <string.h>

#include "model/alloc.h"
#include "model/extras.h"
#include "model/model.h"
#include "model/ring.h"
#include "tests/model_util.h"
#include "tests/util.h"

static uint64_t next(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

/* A stack of 1 to 4 frames out of a few, so stacks share prefixes and
 * one is often the prefix of another. */
static void rand_stack(uint64_t *x, char *out, size_t size)
{
	static const char *const fr[] = { "a", "b", "ab", "main", "b;x", "z" };
	size_t depth = 1 + next(x) % 4, at = 0;

	out[0] = '\0';
	for (size_t i = 0; i < depth && at < size; i++)
		at += (size_t)snprintf(out + at, size - at, "%s%s",
		                       i ? ";" : "", fr[next(x) % 6]);
}

struct naive {
	const struct model *m;
	struct grouping g;
};

static int cmp_entry(const struct naive *c, const struct fold_entry *a,
                     const struct fold_entry *b)
{
	bool parked = c->g.key == GROUP_PARKED;
	int d = model_stack_cmp(c->m, parked ? a->parked : a->stack,
	                        parked ? b->parked : b->stack);

	if (!d)
		d = sv_cmp(model_name(c->m, a->name),
		           model_name(c->m, b->name));
	if (!d)
		d = model_stack_cmp(c->m, parked ? a->stack : a->parked,
		                    parked ? b->stack : b->parked);
	return d;
}

/* g's by-id index holds every row once, by stack id then name id. */
static void check_byid(const struct window *g)
{
	const uint32_t *byid =
	    ((const struct window_priv *)(const void *)g)->byid;
	unsigned char *seen = mem_calloc(g->nrows + 1, 1);

	ck_assert_ptr_nonnull(seen);
	for (size_t i = 0; i < g->nrows; i++) {
		const struct fold_row *r = &g->rows[byid[i]];

		ck_assert_uint_lt(byid[i], g->nrows);
		ck_assert(!seen[byid[i]]);
		seen[byid[i]] = 1;
		if (i) {
			const struct fold_row *q = &g->rows[byid[i - 1]];
			ck_assert(q->stack < r->stack ||
			          (q->stack == r->stack && q->name < r->name));
		}
	}
	mem_free(seen);
}

/* Checks g (w derived as by) against the entries of w sorted by
 * insertion and cut into rows. */
static void check_against_naive(const struct model *m, const struct window *w,
                                const struct window *g, struct grouping by)
{
	struct naive c = { m, by };
	size_t n = w->nentries, nrows = 0;
	struct fold_entry *e = mem_calloc(n ? n : 1, sizeof(*e));

	ck_assert_ptr_nonnull(e);
	memcpy(e, w->entries, n * sizeof(*e));
	for (size_t i = 1; i < n; i++) {
		struct fold_entry x = e[i];
		size_t j = i;
		for (; j > 0 && cmp_entry(&c, &e[j - 1], &x) > 0; j--)
			e[j] = e[j - 1];
		e[j] = x;
	}
	ck_assert_uint_eq(g->nentries, n);
	for (size_t i = 0; i < n; i++) {
		const struct fold_entry *a = &g->entries[i];
		bool parked = by.key == GROUP_PARKED;
		uint32_t key = parked ? e[i].parked : e[i].stack;

		/* the entry whole: ids, figures and the extras' index */
		ck_assert_int_eq(memcmp(a, &e[i], sizeof(*a)), 0);
		if (i == 0 ||
		    key != (parked ? e[i - 1].parked : e[i - 1].stack) ||
		    (by.by_name && e[i].name != e[i - 1].name)) {
			const struct fold_row *r = &g->rows[nrows++];
			struct metrics sum = { { 0 } };
			struct extras x = { .known = 0 };
			uint64_t tasks = 0;
			size_t k = i;

			ck_assert_uint_le(nrows, g->nrows);
			ck_assert_uint_eq(r->stack, key);
			ck_assert_uint_eq(r->name, by.by_name ? e[i].name : 0);
			ck_assert_uint_eq(r->first, i);
			for (; k < n &&
			       (parked ? e[k].parked : e[k].stack) == key &&
			       (!by.by_name || e[k].name == e[i].name);
			     k++) {
				metrics_add(&sum, &e[k].m);
				tasks += e[k].tasks;
				if (e[k].xi)
					extras_add(&x, window_extras(w, &e[k]));
			}
			ck_assert_uint_eq(r->count, k - i);
			ck_assert_uint_eq(r->tasks, tasks);
			for (int mt = 0; mt < METRIC_COUNT; mt++)
				ck_assert_uint_eq(r->m.v[mt], sum.v[mt]);
			ck_assert_uint_eq(r->x.known, x.known);
			for (int xe = 0; xe < EXTRA_COUNT; xe++)
				ck_assert_uint_eq(r->x.v[xe], x.v[xe]);
		}
	}
	ck_assert_uint_eq(g->nrows, nrows);
	check_byid(g);
	/* every row's stack is found, on its first row by name id */
	for (size_t r = 0; r < g->nrows; r++) {
		size_t f = window_find_row(g, g->rows[r].stack);
		ck_assert_uint_ne(f, SIZE_MAX);
		ck_assert_uint_eq(g->rows[f].stack, g->rows[r].stack);
		ck_assert_uint_le(g->rows[f].name, g->rows[r].name);
	}
	mem_free(e);
}

/* A window of n random samples: some not parked, a few names. */
static const struct window *rand_window(struct model *m, uint64_t *x, size_t n)
{
	static const char *const names[] = { "w", "reader", "a", "zz",
		                             "Worker" };
	const struct window *w = NULL;
	struct window_meta meta = { .duration_nanos = 1000000000 };
	char s[64], p[64];

	ck_assert_int_eq(model_begin(m), STATUS_OK);
	for (size_t i = 0; i < n; i++) {
		/* a third with figures of their own, some known */
		struct extras xs = { .known = (uint32_t)next(x) & 0x1f };

		for (int e = 0; e < EXTRA_COUNT; e++)
			xs.v[e] = next(x) % 1000;
		rand_stack(x, s, sizeof(s));
		rand_stack(x, p, sizeof(p));
		ck_assert_int_eq(tm_add_p(m, s, next(x) % 5 ? p : NULL,
		                          names[next(x) % 5], 1 + next(x) % 9,
		                          next(x) % 3 ? NULL : &xs),
		                 STATUS_OK);
	}
	ck_assert_int_eq(model_commit(m, &meta, &w), STATUS_OK);
	return w;
}

START_TEST(groupings_match_a_straightforward_sort)
{
	static const struct grouping gs[] = {
		{ .key = GROUP_PARKED },
		{ .key = GROUP_SPAWN, .by_name = true },
		{ .key = GROUP_PARKED, .by_name = true },
	};
	struct model *m = tm_mk(3, 0, 0, 0, 0);
	struct group_memo memo = { .m = NULL };
	uint64_t x = 0x9E3779B97F4A7C15u;

	for (int round = 0; round < 40; round++) {
		const struct window *w = rand_window(m, &x, 1 + next(&x) % 300);

		for (size_t k = 0; k < 3; k++) {
			struct grouping by = gs[(k + (size_t)round) % 3];
			struct group_memo fresh = { .m = NULL };
			const struct window *a, *b, *c;

			ck_assert_int_eq(model_group_memo(m, w, by, &memo, &a),
			                 STATUS_OK);
			ck_assert_int_eq(model_group_memo(m, w, by, &fresh, &b),
			                 STATUS_OK);
			ck_assert_int_eq(model_group(m, w, by, &c), STATUS_OK);
			check_against_naive(m, w, a, by);
			check_against_naive(m, w, b, by);
			check_against_naive(m, w, c, by);
			model_group_free(a);
			model_group_free(b);
			model_group_free(c);
			group_memo_fini(&fresh);
		}
		/* now and then an older kept window, against the memo of a
		 * newer one */
		if (round % 5 == 4) {
			const struct window *o = model_window(m, 0), *a;
			ck_assert_int_eq(
			    model_group_memo(m, o, gs[0], &memo, &a),
			    STATUS_OK);
			check_against_naive(m, o, a, gs[0]);
			model_group_free(a);
		}
	}
	group_memo_fini(&memo);
	model_free(m);
}
END_TEST

/* A window of n samples: spawn stack i % spawns, parked-at stack
 * i % parks, name i % names (texts numbered from base, so a later window
 * brings ids of its own). */
static const struct window *shaped_window(struct model *m, size_t n,
                                          size_t spawns, size_t parks,
                                          size_t names, size_t base)
{
	const struct window *w = NULL;
	struct window_meta meta = { .duration_nanos = 1000000000 };

	ck_assert_int_eq(model_begin(m), STATUS_OK);
	for (size_t i = 0; i < n; i++) {
		char s[32], p[32], t[32];

		snprintf(s, sizeof(s), "s;%zu", base + i % spawns);
		snprintf(p, sizeof(p), "p;%zu", base + (i * 7) % parks);
		snprintf(t, sizeof(t), "t%zu", base + (i * 3) % names);
		ck_assert_int_eq(tm_add_p(m, s, p, t, 1 + i % 7, NULL),
		                 STATUS_OK);
	}
	ck_assert_int_eq(model_commit(m, &meta, &w), STATUS_OK);
	return w;
}

/* The shapes the derivation by parked-at stack takes a path each for:
 * one name; few pairs of stack and name (one sort on both); many (a
 * sort on each); and ids far apart (a stack kept since the first window
 * among ones given many windows later: ranked by hashing, not by a
 * table as long as their span), each with a memo and without. */
START_TEST(every_shape_of_parked_grouping_matches)
{
	static const struct grouping gs[] = {
		{ .key = GROUP_PARKED },
		{ .key = GROUP_PARKED, .by_name = true },
		{ .key = GROUP_SPAWN, .by_name = true },
	};
	static const size_t shape[][4] = {
		/* entries, spawn stacks, parked-at stacks, names */
		{ 200, 50, 9, 1 },  { 200, 50, 5, 4 },  { 240, 240, 60, 11 },
		{ 97, 13, 97, 97 }, { 300, 7, 3, 300 }, { 1, 1, 1, 1 },
	};
	struct model *m = tm_mk(2, 0, 0, 0, 0);
	struct group_memo memo = { .m = NULL };
	const struct window *w;

	for (size_t k = 0; k < sizeof(shape) / sizeof(shape[0]); k++) {
		w = shaped_window(m, shape[k][0], shape[k][1], shape[k][2],
		                  shape[k][3], 1000 * k);
		for (size_t j = 0; j < 3; j++) {
			const struct window *a, *b;

			ck_assert_int_eq(
			    model_group_memo(m, w, gs[j], &memo, &a),
			    STATUS_OK);
			ck_assert_int_eq(model_group(m, w, gs[j], &b),
			                 STATUS_OK);
			check_against_naive(m, w, a, gs[j]);
			check_against_naive(m, w, b, gs[j]);
			model_group_free(a);
			model_group_free(b);
		}
	}
	/* ids far apart: the stack and name of the window below stay kept
	 * while 40 windows of 50 new ones each go by */
	model_free(m);
	group_memo_fini(&memo);
	m = tm_mk(2, 0, 0, 0, 0);
	for (size_t r = 0; r < 42; r++) {
		const struct window *a;
		struct window_meta meta = { .duration_nanos = 1000000000 };

		ck_assert_int_eq(model_begin(m), STATUS_OK);
		ck_assert_int_eq(tm_add_p(m, "s;old", "p;old", "old", 3, NULL),
		                 STATUS_OK);
		for (size_t i = 0; r < 40 && i < 50; i++) {
			char p[32], t[32];

			snprintf(p, sizeof(p), "p;%zu", r * 50 + i);
			snprintf(t, sizeof(t), "t%zu", r * 50 + i);
			ck_assert_int_eq(tm_add_p(m, "s;new", p, t, 1, NULL),
			                 STATUS_OK);
		}
		if (r == 41)
			ck_assert_int_eq(
			    tm_add_p(m, "s;new", "p;last", "last", 2, NULL),
			    STATUS_OK);
		ck_assert_int_eq(model_commit(m, &meta, &w), STATUS_OK);
		for (size_t j = 0; j < 2; j++) {
			ck_assert_int_eq(
			    model_group_memo(m, w, gs[j], &memo, &a),
			    STATUS_OK);
			check_against_naive(m, w, a, gs[j]);
			model_group_free(a);
		}
	}
	group_memo_fini(&memo);
	model_free(m);
}
END_TEST

/* A memo made on one model starts again on another (ids differ). */
START_TEST(a_memo_serves_one_model)
{
	struct model *m1 = tm_mk(2, 0, 0, 0, 0), *m2 = tm_mk(2, 0, 0, 0, 0);
	struct group_memo memo = { .m = NULL };
	struct grouping by = { .key = GROUP_PARKED };
	uint64_t x = 42;
	const struct window *w1 = rand_window(m1, &x, 200), *a;
	const struct window *w2 = rand_window(m2, &x, 200);

	ck_assert_int_eq(model_group_memo(m1, w1, by, &memo, &a), STATUS_OK);
	check_against_naive(m1, w1, a, by);
	model_group_free(a);
	ck_assert_ptr_eq(memo.m, m1);
	ck_assert_int_eq(model_group_memo(m2, w2, by, &memo, &a), STATUS_OK);
	ck_assert_ptr_eq(memo.m, m2);
	check_against_naive(m2, w2, a, by);
	model_group_free(a);
	group_memo_fini(&memo);
	model_free(m1);
	model_free(m2);
}
END_TEST

/* An empty window (the no-data error, kept) groups into no rows. */
START_TEST(an_empty_window_groups_into_nothing)
{
	struct model *m = tm_mk(2, 0, 0, 0, 0);
	struct group_memo memo = { .m = NULL };
	struct window_meta meta = { .duration_nanos = 1000000000 };
	const struct window *w = NULL;
	struct grouping gs[] = { { .key = GROUP_PARKED },
		                 { .key = GROUP_SPAWN, .by_name = true },
		                 { .key = GROUP_PARKED, .by_name = true } };

	ck_assert_int_eq(model_begin(m), STATUS_OK);
	ck_assert_int_eq(model_commit(m, &meta, &w), STATUS_EMPTY_WINDOW);
	ck_assert_ptr_nonnull(w);
	for (size_t k = 0; k < 3; k++) {
		const struct window *a = NULL;

		ck_assert_int_eq(model_group_memo(m, w, gs[k], &memo, &a),
		                 STATUS_OK);
		ck_assert_uint_eq(a->nrows, 0);
		ck_assert_uint_eq(a->nentries, 0);
		ck_assert(a->empty);
		ck_assert_uint_eq(window_find_row(a, 1), SIZE_MAX);
		model_group_free(a);
	}
	group_memo_fini(&memo);
	model_free(m);
}
END_TEST

/* Every allocation of a derivation failing in turn: NOMEM or the right
 * window, the memo usable after, nothing leaked. */
START_TEST(derivation_survives_allocation_failure)
{
	struct model *m = tm_mk(2, 0, 0, 0, 0);
	struct group_memo memo = { .m = NULL };
	uint64_t x = 7;
	const struct window *w = rand_window(m, &x, 60);
	struct grouping gs[] = { { .key = GROUP_PARKED },
		                 { .key = GROUP_SPAWN, .by_name = true } };

	for (size_t k = 0; k < 2; k++)
		for (unsigned long nth = 1; nth < 40; nth++) {
			const struct window *a = NULL;
			enum status st;

			mem_fail_at(nth);
			st = model_group_memo(m, w, gs[k], &memo, &a);
			mem_fail_at(0);
			ck_assert(st == STATUS_OK || st == STATUS_NOMEM);
			if (st == STATUS_OK) {
				check_against_naive(m, w, a, gs[k]);
				model_group_free(a);
			} else {
				ck_assert_ptr_null(a);
			}
		}
	group_memo_fini(&memo);
	model_free(m);
}
END_TEST

Suite *suite_group_prop(void);
Suite *suite_group_prop(void)
{
	Suite *s = suite_create("group_prop");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, groupings_match_a_straightforward_sort);
	tcase_add_test(tc, a_memo_serves_one_model);
	tcase_add_test(tc, every_shape_of_parked_grouping_matches);
	tcase_add_test(tc, derivation_survives_allocation_failure);
	tcase_add_test(tc, an_empty_window_groups_into_nothing);
	suite_add_tcase(s, tc);
	return s;
}
