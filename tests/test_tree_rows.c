/* The tree's rows (tree_rows_make, tree_rows_step): each row's stack and
 * frames as the model has them, made at once or a step at a time, from
 * the window before's copy or the model, and made between keys only
 * while the tree shows. */
#include <check.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "model/model.h"
#include "tests/screen_util.h"
#include "tests/tree_util.h"
#include "tui/app.h"
#include "tui/view_tree.h"

/* t's rows are made (rows_known): each row's stack and frames are the
 * window's, and copied side by side in row order when t says so. */
static void check_frames(const struct tree *t)
{
	ck_assert(t->rows_known);
	for (uint32_t r = 0; r < t->w->nrows; r++) {
		size_t d = 0;
		const uint32_t *f = model_stack(t->m, t->w->rows[r].stack, &d);

		ck_assert_uint_eq(t->stacks[r], t->w->rows[r].stack);
		ck_assert_uint_eq(t->rowd[r], d);
		ck_assert(!memcmp(t->rowf[r], f, d * sizeof(*f)));
		if (t->copied && r)
			ck_assert(t->rowf[r] ==
			          t->rowf[r - 1] + t->rowd[r - 1]);
	}
}

/* The rows made a step at a time (steps of 1 to 64 rows) are those made
 * in one step, on windows sharing most stacks (made from the window
 * before's copy), split by name or not, and a key may read them as soon
 * as they are looked up, copied in part or not; now and then another
 * window arrives mid-way, and the steps begin again on it. */
START_TEST(tree_rows_steps_equal_whole)
{
	uint64_t s = 0xA0761D6478BD642Fu + (uint64_t)_i;
	struct app a;
	struct tree whole, steps;
	size_t cut = 0, took = 0, partly = 0;

	su_app(&a);
	tree_init(&whole);
	tree_init(&steps);
	tru_by_name = _i % 2;
	for (int w = 0; w < 6; w++) {
		const struct window *win;
		/* the third window in steps of a few rows: cut short */
		size_t budget = 1 + tru_rnd(&s) % (w == 2 ? 8 : 64), k = 0;
		bool done = false;

		tru_wide_window(&a, &s, T0 + w * 5 * SEC);
		win = tru_shown(&a);
		ck_assert_int_eq(tree_sync(&steps, a.m, win), STATUS_OK);
		while (!done) {
			ck_assert(tree_rows_wanted(&steps, a.m, win));
			ck_assert_int_eq(tree_rows_step(&steps, budget, &done),
			                 STATUS_OK);
			took++;
			if (steps.rows_known && !done) {
				check_frames(&steps);
				partly++;
			}
			/* another window mid-way, now and then */
			if (!done && ++k == 3 &&
			    (w == 2 || tru_rnd(&s) % 3 == 0)) {
				tru_wide_window(&a, &s, T0 + (w * 5 + 1) * SEC);
				win = tru_shown(&a);
				ck_assert_int_eq(tree_sync(&steps, a.m, win),
				                 STATUS_OK);
				cut++;
			}
		}
		ck_assert(!tree_rows_wanted(&steps, a.m, win));
		ck_assert(steps.copied);
		check_frames(&steps);
		ck_assert_int_eq(tree_sync(&whole, a.m, win), STATUS_OK);
		ck_assert_int_eq(tree_rows_step(&whole, SIZE_MAX, &done),
		                 STATUS_OK);
		ck_assert(done && whole.copied);
		check_frames(&whole);
		/* made: a key makes nothing more */
		ck_assert_int_eq(tree_rows_make(&steps), STATUS_OK);
		check_frames(&steps);
	}
	ck_assert_uint_gt(took, 6);
	ck_assert_uint_gt(cut, 0);
	ck_assert_uint_gt(partly, 0);
	tree_fini(&whole);
	tree_fini(&steps);
	tru_shown_fini();
	app_fini(&a);
}
END_TEST

/* A key that comes before the steps are done finds the rows looked up
 * (tree_rows_make goes on from the last step, without the copy), and the
 * steps after it copy them. */
START_TEST(tree_rows_key_between_steps)
{
	uint64_t s = 0x1D8E4E27C47D124Fu + (uint64_t)_i;
	struct app a;
	struct tree t;

	su_app(&a);
	tree_init(&t);
	tru_by_name = _i % 2;
	for (int w = 0; w < 4; w++) {
		const struct window *win;
		bool done = false;
		int k = (int)(tru_rnd(&s) % 4);

		tru_wide_window(&a, &s, T0 + w * 5 * SEC);
		win = tru_shown(&a);
		ck_assert_int_eq(tree_sync(&t, a.m, win), STATUS_OK);
		while (k-- > 0)
			ck_assert_int_eq(
			    tree_rows_step(&t, 1 + tru_rnd(&s) % 64, &done),
			    STATUS_OK);
		ck_assert_int_eq(tree_rows_make(&t), STATUS_OK);
		check_frames(&t);
		ck_assert(tree_rows_wanted(&t, a.m, win) == !t.copied);
		while (tree_rows_wanted(&t, a.m, win))
			ck_assert_int_eq(
			    tree_rows_step(&t, 1 + tru_rnd(&s) % 64, &done),
			    STATUS_OK);
		ck_assert(done && t.copied);
		check_frames(&t);
	}
	tree_fini(&t);
	tru_shown_fini();
	app_fini(&a);
}
END_TEST

/* Renders a at 80x24. */
static void render(struct app *a)
{
	struct buf b;

	buf_init(&b);
	su_screen(a, 80, 24, &b);
	buf_fini(&b);
}

/* The viewer makes the tree's rows between keys only while the tree
 * shows: t on a window (its top one frame, no row read), the steps until
 * none is left (a few, of 8 rows), then * finds them made; Esc, a new
 * window, nothing to make; t again (nothing expanded), they are wanted
 * again. */
START_TEST(tree_rows_made_between_keys_while_shown)
{
	uint64_t s = 0x2D358DCCAA6C78A5u;
	struct app a;
	int steps = 0;

	su_app(&a);
	a.idle_rows = 8;
	tru_wide_window(&a, &s, T0);
	render(&a);
	ck_assert(!app_idle_pending(&a));
	(void)app_key(&a, 't');
	render(&a);
	ck_assert(!a.tree.rows_known);
	while (app_idle_pending(&a)) {
		ck_assert_int_lt(steps++, 1000);
		app_idle(&a);
	}
	ck_assert_int_gt(steps, 10);
	ck_assert(a.tree.rows_known);
	(void)app_key(&a, '*');
	render(&a);
	ck_assert(a.tree.rows_known);
	ck_assert_uint_gt(a.tree.nshown, 100);
	(void)app_key(&a, KC_ESC);
	render(&a);
	tru_wide_window(&a, &s, T0 + 5 * SEC);
	render(&a);
	ck_assert(!app_idle_pending(&a));
	/* nothing expanded (* is kept by path: t would make the rows) */
	tree_paths_clear(&a.tree.open);
	tree_paths_clear(&a.tree.open_all);
	(void)app_key(&a, 't');
	render(&a);
	ck_assert(app_idle_pending(&a));
	app_fini(&a);
}
END_TEST

Suite *suite_tree_rows(void);
Suite *suite_tree_rows(void)
{
	Suite *s = suite_create("tree_rows");
	TCase *tc = tcase_create("tree_rows");

	tcase_set_timeout(tc, 60);
	tcase_add_loop_test(tc, tree_rows_steps_equal_whole, 0, 20);
	tcase_add_loop_test(tc, tree_rows_key_between_steps, 0, 20);
	tcase_add_test(tc, tree_rows_made_between_keys_while_shown);
	suite_add_tcase(s, tc);
	return s;
}
