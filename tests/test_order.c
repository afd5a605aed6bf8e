/* Sorted views of a window's rows: every metric both ways, ties, filters,
 * finding a stack after a re-sort, reuse, allocation failures. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/alloc.h"
#include "model/model.h"
#include "model/order.h"
#include "tests/util.h"

/* Rows r0..r5 (canonical order), values idle, busy, sched, polls, wakes. */
static const uint64_t table[6][METRIC_COUNT] = {
	{ 5, 1, 0, 7, 2 }, { 3, 1, 9, 7, 2 }, { 5, 4, 0, 1, 2 },
	{ 0, 1, 9, 7, 1 }, { 8, 0, 3, 2, 2 }, { UINT64_MAX, 1, 0, 0, 3 },
};

static void add_row(struct model *m, const char *frame, const char *task,
                    const uint64_t *v)
{
	struct strview f = sv_c(frame);
	struct sample s = {
		.frames = &f, .depth = 1, .task = sv_c(task), .tasks = 1
	};

	memcpy(s.m.v, v, sizeof(s.m.v));
	ck_assert_int_eq(model_add(m, &s), STATUS_OK);
}

static const struct window *six(struct model **m)
{
	const struct window *w;
	const uint64_t part_a[METRIC_COUNT] = { 2, 1, 0, 3, 1 };
	const uint64_t part_b[METRIC_COUNT] = { 3, 0, 0, 4, 1 };
	char frame[8];

	ck_assert_int_eq(model_new(NULL, m), STATUS_OK);
	ck_assert_int_eq(model_begin(*m), STATUS_OK);
	/* r0 is the sum of two entries; the rest arrive in reverse */
	add_row(*m, "r0", "a", part_a);
	for (int r = 5; r >= 1; r--) {
		snprintf(frame, sizeof(frame), "r%d", r);
		add_row(*m, frame, "t", table[r]);
	}
	add_row(*m, "r0", "b", part_b);
	ck_assert_int_eq(model_commit(*m, NULL, &w), STATUS_OK);
	ck_assert_uint_eq(w->nrows, 6);
	for (size_t r = 0; r < 6; r++) {
		struct strview f;
		size_t depth;
		f = model_frame(*m,
		                model_stack(*m, w->rows[r].stack, &depth)[0]);
		snprintf(frame, sizeof(frame), "r%zu", r);
		ck_assert_uint_eq(f.len, 2);
		ck_assert_int_eq(memcmp(f.ptr, frame, 2), 0);
		ck_assert_int_eq(
		    memcmp(w->rows[r].m.v, table[r], sizeof(table[r])), 0);
	}
	return w;
}

static void expect(const struct order *o, const uint32_t *want, size_t n)
{
	char got[64] = "", exp[64] = "";
	size_t a = 0, b = 0;

	for (size_t i = 0; i < o->n; i++)
		a += (size_t)snprintf(got + a, sizeof(got) - a, "%u ",
		                      o->idx[i]);
	for (size_t i = 0; i < n; i++)
		b += (size_t)snprintf(exp + b, sizeof(exp) - b, "%u ", want[i]);
	ck_assert_str_eq(got, exp);
}

START_TEST(each_metric_both_ways)
{
	static const uint32_t want[METRIC_COUNT][2][6] = {
		/* descending, ascending; ties by row ascending both ways */
		{ { 5, 4, 0, 2, 1, 3 }, { 3, 1, 0, 2, 4, 5 } },
		{ { 2, 0, 1, 3, 5, 4 }, { 4, 0, 1, 3, 5, 2 } },
		{ { 1, 3, 4, 0, 2, 5 }, { 0, 2, 5, 4, 1, 3 } },
		{ { 0, 1, 3, 4, 2, 5 }, { 5, 2, 4, 0, 1, 3 } },
		{ { 5, 0, 1, 2, 4, 3 }, { 3, 0, 1, 2, 4, 5 } },
	};
	struct model *m;
	const struct window *w = six(&m);
	struct order o;

	order_init(&o);
	for (unsigned k = 0; k < METRIC_COUNT; k++) {
		for (int d = 0; d < 2; d++) {
			ck_assert_int_eq(order_build(&o, w, (enum metric)k,
			                             d == 0, NULL, NULL),
			                 STATUS_OK);
			ck_assert_int_eq(o.key, (int)k);
			ck_assert(o.descending == (d == 0));
			expect(&o, want[k][d], 6);
		}
	}
	order_fini(&o);
	ck_assert_ptr_null(o.idx);
	model_free(m);
}
END_TEST

struct keep_ctx {
	unsigned calls;
	const struct window *w;
};

static bool keep_even(void *ctx, const struct window *w, size_t row)
{
	struct keep_ctx *k = ctx;

	ck_assert_ptr_eq(w, k->w);
	k->calls++;
	return row % 2 == 0;
}

START_TEST(filter_and_find)
{
	static const uint32_t even_idle[] = { 4, 0, 2 };
	static const uint32_t busy_desc[] = { 2, 0, 1, 3, 5, 4 };
	struct model *m;
	const struct window *w = six(&m);
	struct keep_ctx k = { 0, w };
	struct order o;

	order_init(&o);
	ck_assert_int_eq(order_build(&o, w, METRIC_IDLE, true, keep_even, &k),
	                 STATUS_OK);
	ck_assert_uint_eq(k.calls, 6);
	expect(&o, even_idle, 3);
	ck_assert_uint_eq(order_find(&o, w, w->rows[2].stack), 2);
	ck_assert_uint_eq(order_find(&o, w, w->rows[4].stack), 0);
	ck_assert_uint_eq(order_find(&o, w, w->rows[1].stack), SIZE_MAX);
	ck_assert_uint_eq(order_find(&o, w, 99999), SIZE_MAX);
	/* the selection follows its stack through a re-sort */
	ck_assert_int_eq(order_build(&o, w, METRIC_BUSY, true, NULL, NULL),
	                 STATUS_OK);
	expect(&o, busy_desc, 6);
	ck_assert_uint_eq(order_find(&o, w, w->rows[2].stack), 0);
	ck_assert_uint_eq(order_find(&o, w, w->rows[1].stack), 2);
	ck_assert_uint_eq(order_find(&o, w, w->rows[4].stack), 5);
	order_fini(&o);
	model_free(m);
}
END_TEST

START_TEST(invalid_and_empty)
{
	struct model *m;
	const struct window *w = six(&m), *e;
	struct order o;

	order_init(&o);
	ck_assert_int_eq(order_build(&o, w, METRIC_IDLE, true, NULL, NULL),
	                 STATUS_OK);
	ck_assert_int_eq(
	    order_build(&o, w, (enum metric)METRIC_COUNT, true, NULL, NULL),
	    STATUS_INVAL);
	ck_assert_uint_eq(o.n, 0);
	ck_assert_int_eq(order_build(&o, NULL, METRIC_IDLE, true, NULL, NULL),
	                 STATUS_INVAL);
	ck_assert_int_eq(model_begin(m), STATUS_OK);
	ck_assert_int_eq(model_commit(m, NULL, &e), STATUS_EMPTY_WINDOW);
	ck_assert_int_eq(order_build(&o, e, METRIC_WAKES, false, NULL, NULL),
	                 STATUS_OK);
	ck_assert_uint_eq(o.n, 0);
	ck_assert_uint_eq(order_find(&o, e, w->rows[0].stack), SIZE_MAX);
	order_fini(&o);
	order_fini(&o); /* twice is fine */
	model_free(m);
}
END_TEST

/* A window of n single-frame rows with pseudo-random values (many ties). */
static const struct window *many(struct model **m, size_t n)
{
	const struct window *w;
	uint64_t seed = 0x9e3779b97f4a7c15ull;
	char frame[16];

	ck_assert_int_eq(model_new(NULL, m), STATUS_OK);
	ck_assert_int_eq(model_begin(*m), STATUS_OK);
	for (size_t i = 0; i < n; i++) {
		uint64_t v[METRIC_COUNT];
		for (unsigned k = 0; k < METRIC_COUNT; k++) {
			seed ^= seed << 13, seed ^= seed >> 7,
			    seed ^= seed << 17;
			v[k] = k % 2 ? seed % 50 : seed >> (k * 8);
		}
		v[0] |= 1; /* never all zero */
		snprintf(frame, sizeof(frame), "f%zu", i);
		add_row(*m, frame, "t", v);
	}
	ck_assert_int_eq(model_commit(*m, NULL, &w), STATUS_OK);
	ck_assert_uint_eq(w->nrows, n);
	return w;
}

START_TEST(large_sorted_with_ties)
{
	struct model *m;
	const struct window *w = many(&m, 5000);
	struct order o;
	unsigned char *seen = calloc(5000, 1);

	order_init(&o);
	for (unsigned k = 0; k < METRIC_COUNT; k++) {
		for (int d = 0; d < 2; d++) {
			ck_assert_int_eq(order_build(&o, w, (enum metric)k,
			                             d == 0, NULL, NULL),
			                 STATUS_OK);
			ck_assert_uint_eq(o.n, 5000);
			memset(seen, 0, 5000);
			for (size_t i = 0; i < o.n; i++) {
				ck_assert(!seen[o.idx[i]]);
				seen[o.idx[i]] = 1;
				if (i == 0)
					continue;
				uint64_t a = w->rows[o.idx[i - 1]].m.v[k];
				uint64_t b = w->rows[o.idx[i]].m.v[k];
				if (a == b)
					ck_assert_uint_lt(o.idx[i - 1],
					                  o.idx[i]);
				else if (d == 0)
					ck_assert_uint_gt(a, b);
				else
					ck_assert_uint_lt(a, b);
			}
		}
	}
	/* reuse on a smaller window */
	{
		struct model *m2;
		const struct window *w2 = six(&m2);
		size_t cap = o.cap;
		ck_assert_int_eq(
		    order_build(&o, w2, METRIC_IDLE, false, NULL, NULL),
		    STATUS_OK);
		ck_assert_uint_eq(o.n, 6);
		ck_assert_uint_eq(o.cap, cap);
		model_free(m2);
	}
	order_fini(&o);
	free(seen);
	model_free(m);
}
END_TEST

static enum status order_torture(void *ctx)
{
	const struct window *w = ctx;
	struct order o;
	enum status st;

	order_init(&o);
	st = order_build(&o, w, METRIC_POLLS, true, NULL, NULL);
	if (st == STATUS_NOMEM)
		ck_assert_uint_eq(o.n, 0);
	else
		ck_assert_uint_eq(o.n, w->nrows);
	order_fini(&o);
	return st;
}

START_TEST(order_nomem)
{
	struct model *m;
	const struct window *w = many(&m, 40);

	ck_assert_uint_eq(tu_torture(order_torture, (void *)(uintptr_t)w), 2);
	model_free(m);
}
END_TEST

Suite *suite_order(void);
Suite *suite_order(void)
{
	Suite *s = suite_create("order");
	TCase *tc = tcase_create("order");

	tcase_add_test(tc, each_metric_both_ways);
	tcase_add_test(tc, filter_and_find);
	tcase_add_test(tc, invalid_and_empty);
	tcase_add_test(tc, large_sorted_with_ties);
	tcase_add_test(tc, order_nomem);
	suite_add_tcase(s, tc);
	return s;
}
