/* The model's ring of windows: eviction by count and by memory budget,
 * reclaiming what no kept window references, ids never reused, and the
 * ring growing while wrapped. */
#include <check.h>
#include <stdio.h>

#include "model/model.h"
#include "tests/model_util.h"

START_TEST(evict_by_count)
{
	struct model *m = tm_mk(3, 0, 0, 0, 0);
	const struct window *w;
	struct model_stats st;
	char name[16];

	for (int i = 1; i <= 20; i++) {
		snprintf(name, sizeof(name), "w%d", i);
		ck_assert_int_eq(model_begin(m), STATUS_OK);
		ck_assert_int_eq(tm_add(m, "main", name, (uint64_t)i),
		                 STATUS_OK);
		ck_assert_int_eq(model_commit(m, NULL, &w), STATUS_OK);
		ck_assert_uint_eq(w->seq, (uint64_t)i);
		ck_assert_uint_eq(model_window_count(m), i < 3 ? (size_t)i : 3);
	}
	ck_assert_uint_eq(model_window(m, 0)->seq, 18);
	ck_assert_ptr_eq(model_latest(m), w);
	ck_assert_ptr_null(model_window_seq(m, 17));
	ck_assert_ptr_eq(model_window_seq(m, 18), model_window(m, 0));
	ck_assert_uint_eq(model_window_seq(m, 19)->entries[0].m.v[0], 19);
	model_stats(m, &st);
	ck_assert_uint_eq(st.windows_committed, 20);
	ck_assert_uint_eq(st.windows_evicted, 17);
	ck_assert_uint_eq(st.windows_kept, 3);
	ck_assert_uint_eq(st.names_live, 3);
	ck_assert_uint_eq(st.names_reclaimed, 17);
	ck_assert_uint_eq(st.frames_live, 1);
	ck_assert_uint_eq(st.frames_reclaimed, 0);
	model_free(m);
}
END_TEST

/* Three windows of the same shape (the same strings) into a model with
 * budget; bytes[i] gets the accounted total after each commit. */
static void three(size_t budget, size_t *bytes, size_t *kept)
{
	struct model_limits lim;
	struct model *m;
	struct model_stats st;
	const struct window *w;

	model_limits_default(&lim);
	lim.mem_budget = budget;
	ck_assert_int_eq(model_new(&lim, &m), STATUS_OK);
	for (int i = 0; i < 3; i++) {
		ck_assert_int_eq(model_begin(m), STATUS_OK);
		ck_assert_int_eq(tm_add(m, "main;serve", "conn", 1), STATUS_OK);
		ck_assert_int_eq(tm_add(m, "main;tick", "tick", 2), STATUS_OK);
		ck_assert_int_eq(model_commit(m, NULL, &w), STATUS_OK);
		model_stats(m, &st);
		bytes[i] = st.bytes;
		kept[i] = st.windows_kept;
		ck_assert_ptr_eq(model_latest(m), w); /* the newest is kept */
		ck_assert_uint_eq(w->seq, (uint64_t)i + 1);
		size_t sum = 0;
		for (size_t k = 0; k < model_window_count(m); k++)
			sum += model_window(m, k)->bytes;
		ck_assert_uint_gt(st.bytes, sum);
		/* past the budget only when the newest alone is kept */
		if (st.windows_kept > 1)
			ck_assert_uint_le(st.bytes, budget);
	}
	model_free(m);
}

START_TEST(evict_by_memory_budget)
{
	size_t b[3], k[3];

	three((size_t)1 << 30, b, k);
	ck_assert_uint_eq(k[2], 3);
	ck_assert_uint_lt(b[0], b[1]);
	ck_assert_uint_eq(b[2] - b[1], b[1] - b[0]); /* one window's bytes */
	/* room for two windows: the third commit evicts the first */
	{
		size_t b2[3], k2[3];
		three(b[1], b2, k2);
		ck_assert_uint_eq(k2[0], 1);
		ck_assert_uint_eq(k2[1], 2);
		ck_assert_uint_eq(k2[2], 2);
		ck_assert_uint_eq(b2[2], b[1]);
	}
	/* no room at all: the newest is still kept */
	three(1, b, k);
	ck_assert_uint_eq(k[0], 1);
	ck_assert_uint_eq(k[1], 1);
	ck_assert_uint_eq(k[2], 1);
}
END_TEST

START_TEST(reclaim_and_ids_never_reused)
{
	struct model *m = tm_mk(1, 0, 0, 0, 0);
	const struct window *w;
	struct model_stats st;
	uint32_t old_stack, old_a, old_b, old_name, keep_stack;
	const uint32_t *f;
	size_t depth;

	ck_assert_int_eq(model_begin(m), STATUS_OK);
	ck_assert_int_eq(tm_add(m, "a;b", "x", 1), STATUS_OK);
	ck_assert_int_eq(tm_add(m, "a;c", "y", 1), STATUS_OK);
	ck_assert_int_eq(model_commit(m, NULL, &w), STATUS_OK);
	old_stack = tm_row_stack(w, 0);
	f = model_stack(m, old_stack, &depth);
	ck_assert_uint_eq(depth, 2);
	old_a = f[0];
	old_b = f[1];
	old_name = w->entries[0].name;
	keep_stack = tm_row_stack(w, 1);
	/* ids start at 1; the pinned [other] frame, stack and name have 1,
	 * the pinned [not parked] frame and stack 2 */
	ck_assert_uint_eq(old_a, 3);
	ck_assert_uint_eq(old_b, 4);
	ck_assert_uint_eq(old_stack, 3);
	ck_assert_uint_eq(old_name, 2);

	ck_assert_int_eq(model_begin(m), STATUS_OK);
	ck_assert_int_eq(tm_add(m, "a;c", "y", 2), STATUS_OK);
	ck_assert_int_eq(model_commit(m, NULL, &w), STATUS_OK);
	model_stats(m, &st);
	ck_assert_uint_eq(st.windows_kept, 1);
	ck_assert_uint_eq(st.frames_reclaimed, 1); /* b; a is shared */
	ck_assert_uint_eq(st.stacks_reclaimed, 1);
	ck_assert_uint_eq(st.names_reclaimed, 1);
	ck_assert_uint_eq(st.frames_live, 2);
	ck_assert_uint_eq(st.stacks_live, 1);
	ck_assert_uint_eq(st.names_live, 1);
	ck_assert_uint_eq(tm_row_stack(w, 0), keep_stack);
	ck_assert_uint_eq(model_frame(m, old_b).len, 0);
	ck_assert_uint_eq(model_frame(m, old_a).len, 1);
	ck_assert_uint_eq(model_name(m, old_name).len, 0);
	ck_assert_ptr_null(model_stack(m, old_stack, &depth));
	ck_assert_uint_eq(depth, 0);
	ck_assert_uint_eq(model_frame(m, 0).len, 0);
	ck_assert_uint_eq(model_frame(m, 12345).len, 0);
	/* a reclaimed id reads as the empty stack: before any other */
	ck_assert_int_eq(model_stack_cmp(m, old_stack, keep_stack), -1);
	ck_assert_int_eq(model_stack_cmp(m, keep_stack, old_stack), 1);

	/* the same strings again: new ids */
	ck_assert_int_eq(model_begin(m), STATUS_OK);
	ck_assert_int_eq(tm_add(m, "a;b", "x", 3), STATUS_OK);
	ck_assert_int_eq(model_commit(m, NULL, &w), STATUS_OK);
	f = model_stack(m, tm_row_stack(w, 0), &depth);
	ck_assert_uint_eq(depth, 2);
	ck_assert_uint_eq(f[0], old_a); /* a was never reclaimed */
	ck_assert_uint_gt(f[1], 5);
	ck_assert_uint_gt(tm_row_stack(w, 0), keep_stack);
	ck_assert_uint_gt(w->entries[0].name, 3);
	model_stats(m, &st);
	ck_assert_uint_eq(st.frames_reclaimed, 2); /* c */
	ck_assert_uint_eq(st.stacks_reclaimed, 2);
	model_free(m);
}
END_TEST

START_TEST(ids_increase_under_churn)
{
	struct model *m = tm_mk(2, 0, 0, 0, 0);
	const struct window *w;
	struct model_stats st;
	uint32_t last_name = 0, last_stack = 0;
	char name[32], stack[32];

	for (int i = 0; i < 600; i++) {
		snprintf(name, sizeof(name), "task %d", i);
		snprintf(stack, sizeof(stack), "root;site%d", i);
		ck_assert_int_eq(model_begin(m), STATUS_OK);
		ck_assert_int_eq(tm_add(m, stack, name, 1), STATUS_OK);
		ck_assert_int_eq(model_commit(m, NULL, &w), STATUS_OK);
		ck_assert_uint_gt(w->entries[0].name, last_name);
		ck_assert_uint_gt(w->rows[0].stack, last_stack);
		last_name = w->entries[0].name;
		last_stack = w->rows[0].stack;
	}
	model_stats(m, &st);
	ck_assert_uint_eq(st.names_live, 2);
	ck_assert_uint_eq(st.names_reclaimed, 598);
	ck_assert_uint_eq(st.frames_live, 3);
	ck_assert_uint_eq(st.frames_reclaimed, 598);
	ck_assert_uint_eq(last_name, 601);
	model_free(m);
}
END_TEST

/* Windows of 200 rows, always the same stacks. */
static const struct window *big_window(struct model *m)
{
	const struct window *w;
	char stack[32];

	ck_assert_int_eq(model_begin(m), STATUS_OK);
	for (int i = 0; i < 200; i++) {
		snprintf(stack, sizeof(stack), "big;%d", i);
		ck_assert_int_eq(tm_add(m, stack, "t", 1), STATUS_OK);
	}
	ck_assert_int_eq(model_commit(m, NULL, &w), STATUS_OK);
	return w;
}

START_TEST(ring_grows_while_wrapped)
{
	struct model_limits lim;
	struct model *m;
	const struct window *w;
	struct model_stats st;
	size_t one, wbytes;

	m = tm_mk(0, 0, 0, 0, 0);
	wbytes = big_window(m)->bytes;
	model_stats(m, &st);
	one = st.bytes;
	model_free(m);

	/* room for one big window and a half: each evicts the one before,
	 * so the ring's head moves */
	model_limits_default(&lim);
	lim.mem_budget = one + wbytes / 2;
	ck_assert_int_eq(model_new(&lim, &m), STATUS_OK);
	for (int k = 0; k < 5; k++)
		big_window(m);
	ck_assert_uint_eq(model_window_count(m), 1);
	/* then small ones pile up past the ring's first capacity */
	for (int k = 0; k < 30; k++) {
		ck_assert_int_eq(model_begin(m), STATUS_OK);
		ck_assert_int_eq(model_commit(m, NULL, &w),
		                 STATUS_EMPTY_WINDOW);
	}
	ck_assert_uint_eq(model_window_count(m), 31);
	for (size_t i = 0; i < 31; i++) {
		ck_assert_uint_eq(model_window(m, i)->seq, 5 + i);
		ck_assert_ptr_eq(model_window_seq(m, 5 + i),
		                 model_window(m, i));
	}
	ck_assert_uint_eq(model_window(m, 0)->nrows, 200);
	ck_assert_ptr_eq(model_latest(m), w);
	model_stats(m, &st);
	ck_assert_uint_eq(st.windows_evicted, 4);
	ck_assert_uint_eq(st.stacks_live, 200);
	ck_assert_uint_le(st.bytes, lim.mem_budget);
	model_free(m);
}
END_TEST

Suite *suite_model_ring(void);
Suite *suite_model_ring(void)
{
	Suite *s = suite_create("model_ring");
	TCase *tc = tcase_create("ring");

	tcase_add_test(tc, evict_by_count);
	tcase_add_test(tc, evict_by_memory_budget);
	tcase_add_test(tc, reclaim_and_ids_never_reused);
	tcase_add_test(tc, ids_increase_under_churn);
	tcase_add_test(tc, ring_grows_while_wrapped);
	suite_add_tcase(s, tc);
	return s;
}
