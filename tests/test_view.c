/* The table's state: order by the weighting, selection kept by stack id
 * across re-sorts and new windows, clamped when its stack vanishes, and
 * scrolling. */
#include <check.h>
#include <stdio.h>
#include <string.h>

#include "model/model.h"
#include "tests/view_util.h"
#include "tui/view.h"

static const char *const leaves[] = { "a", "b", "c", "d", "e" };
static const uint64_t idle1[] = { 50, 40, 30, 20, 10 };
static const uint64_t busy1[] = { 1, 2, 3, 4, 5 };

START_TEST(view_order_and_selection_across_resort)
{
	struct model *m;
	struct view v;
	const struct window *w;

	ck_assert_int_eq(model_new(NULL, &m), STATUS_OK);
	w = vu_commit(m, leaves, idle1, busy1, 5);
	view_init(&v, METRIC_IDLE);
	view_set_page(&v, 3);
	ck_assert_int_eq(view_build(&v, m, w), STATUS_OK);
	ck_assert_uint_eq(v.order.n, 5);
	ck_assert_str_eq(VU_LEAF_AT(&v, 0), "a");
	ck_assert_str_eq(VU_LEAF_AT(&v, 4), "e");
	ck_assert_uint_eq(v.sel, 0);
	view_move(&v, 1); /* select b */
	ck_assert_str_eq(VU_LEAF_AT(&v, v.sel), "b");
	/* weight by busy: b moves to position 3, the selection follows */
	v.metric = METRIC_BUSY;
	ck_assert_int_eq(view_build(&v, m, w), STATUS_OK);
	ck_assert_str_eq(VU_LEAF_AT(&v, 0), "e");
	ck_assert_uint_eq(v.sel, 3);
	ck_assert_str_eq(VU_LEAF_AT(&v, v.sel), "b");
	/* scrolled so the selection shows on a 3-row page */
	ck_assert_uint_le(v.top, v.sel);
	ck_assert_uint_gt(v.top + v.page, v.sel);
	/* inverted: smallest first */
	v.ascending = true;
	ck_assert_int_eq(view_build(&v, m, w), STATUS_OK);
	ck_assert_str_eq(VU_LEAF_AT(&v, 0), "a");
	ck_assert_str_eq(VU_LEAF_AT(&v, v.sel), "b");
	ck_assert_uint_eq(v.sel, 1);
	vu_close(m, &v);
}
END_TEST

START_TEST(view_selection_across_windows)
{
	static const char *const l2[] = { "x", "c", "a" };
	static const uint64_t i2[] = { 100, 5, 1 };
	static const uint64_t b2[] = { 0, 0, 0 };
	static const char *const l3[] = { "y", "z" };
	struct model *m;
	struct view v;
	const struct window *w;

	ck_assert_int_eq(model_new(NULL, &m), STATUS_OK);
	w = vu_commit(m, leaves, idle1, busy1, 5);
	view_init(&v, METRIC_IDLE);
	view_set_page(&v, 10);
	ck_assert_int_eq(view_build(&v, m, w), STATUS_OK);
	view_move(&v, 2); /* c */
	ck_assert_str_eq(VU_LEAF_AT(&v, v.sel), "c");
	/* next window: c is at position 1 now, the selection stays on it */
	w = vu_commit(m, l2, i2, b2, 3);
	ck_assert_int_eq(view_build(&v, m, w), STATUS_OK);
	ck_assert_str_eq(VU_LEAF_AT(&v, v.sel), "c");
	ck_assert_uint_eq(v.sel, 1);
	view_move(&v, 1); /* a, the last */
	ck_assert_str_eq(VU_LEAF_AT(&v, v.sel), "a");
	/* a vanishes: the position is kept, clamped to the rows */
	w = vu_commit(m, l3, i2, b2, 2);
	ck_assert_int_eq(view_build(&v, m, w), STATUS_OK);
	ck_assert_uint_eq(v.sel, 1);
	ck_assert_str_eq(VU_LEAF_AT(&v, v.sel), "z");
	/* no window */
	ck_assert_int_eq(view_build(&v, m, NULL), STATUS_OK);
	ck_assert_uint_eq(v.order.n, 0);
	view_move(&v, 1);
	ck_assert_uint_eq(v.sel, 0);
	vu_close(m, &v);
}
END_TEST

START_TEST(view_moves_clamp_and_scroll)
{
	char names[40][8];
	const char *l[40];
	uint64_t idle[40], busy[40];
	struct model *m;
	struct view v;
	const struct window *w;

	for (size_t i = 0; i < 40; i++) {
		snprintf(names[i], sizeof(names[i]), "f%02zu", i);
		l[i] = names[i];
		idle[i] = 1000 - i;
		busy[i] = i;
	}
	ck_assert_int_eq(model_new(NULL, &m), STATUS_OK);
	w = vu_commit(m, l, idle, busy, 40);
	view_init(&v, METRIC_IDLE);
	view_set_page(&v, 10);
	ck_assert_int_eq(view_build(&v, m, w), STATUS_OK);
	view_move(&v, -5);
	ck_assert_uint_eq(v.sel, 0);
	view_move(&v, 12);
	ck_assert_uint_eq(v.sel, 12);
	ck_assert_uint_eq(v.top, 3);
	view_move(&v, 1000);
	ck_assert_uint_eq(v.sel, 39);
	ck_assert_uint_eq(v.top, 30);
	view_select(&v, 0);
	ck_assert_uint_eq(v.top, 0);
	view_scroll(&v, 5);
	ck_assert_uint_eq(v.top, 5);
	ck_assert_uint_eq(v.sel, 5); /* dragged along by the page */
	view_scroll(&v, 1000);
	ck_assert_uint_eq(v.top, 30);
	view_scroll(&v, -1000);
	ck_assert_uint_eq(v.top, 0);
	/* a smaller page keeps the selection shown */
	view_select(&v, 20);
	view_set_page(&v, 4);
	ck_assert_uint_le(v.top, 20);
	ck_assert_uint_gt(v.top + 4, 20);
	vu_close(m, &v);
}
END_TEST

Suite *suite_view(void);
Suite *suite_view(void)
{
	Suite *s = suite_create("view");
	TCase *tc = tcase_create("view");

	tcase_add_test(tc, view_order_and_selection_across_resort);
	tcase_add_test(tc, view_selection_across_windows);
	tcase_add_test(tc, view_moves_clamp_and_scroll);
	suite_add_tcase(s, tc);
	return s;
}
