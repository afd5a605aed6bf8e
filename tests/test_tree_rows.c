/* The tree's rows (tree_rows_make, tree_rows_step): each row's stack and
 * frames as the model has them, made at once or a step at a time, from
 * the window before's copy or the model, and made between keys only
 * while the tree shows. */
#include <check.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "model/model.h"
#include "tests/screen_util.h"
#include "tests/tree_util.h"
#include "tests/util.h"
#include "tui/app.h"
#include "tui/view_tree.h"

/* Each running sum of t (tree_sum) at each row is the sum of the rows
 * before it, and at the end the window's. */
static void check_sums(const struct tree *t)
{
	uint64_t sum[TREE_SUMS] = { 0 };

	ck_assert_uint_eq(t->sums_next, t->w->nrows);
	/* checked by hand, asserted on failure: a passed ck_assert costs a
	 * write to Check's pipe, per row and sum of every window */
	for (uint32_t r = 0; r <= t->w->nrows; r++) {
		for (int k = 0; k < TREE_SUMS; k++)
			if (tree_sum(t, k, r) != sum[k])
				ck_abort_msg(
				    "row %u sum %d: %llu, want %llu", r, k,
				    (unsigned long long)tree_sum(t, k, r),
				    (unsigned long long)sum[k]);
		if (r == t->w->nrows)
			break;
		for (int k = 0; k < METRIC_COUNT; k++)
			sum[k] += t->w->rows[r].m.v[k];
		sum[METRIC_COUNT] += t->w->rows[r].tasks;
	}
}

/* t's rows are made (rows_known): each row's stack and frames are the
 * window's, and copied side by side in row order when t says so; the
 * frames each adds to the tree are those past the prefix it shares with
 * the row before; the running sums are the rows'. */
static void check_frames(const struct tree *t)
{
	const uint32_t *g = NULL;
	size_t e = 0;

	ck_assert(t->rows_known);
	ck_assert_uint_eq(t->fresh[0], 0);
	check_sums(t);
	for (uint32_t r = 0; r < t->w->nrows; r++) {
		size_t d = 0, k = 0;
		const uint32_t *f = model_stack(t->m, t->w->rows[r].stack, &d);

		while (r && k < d && k < e && f[k] == g[k])
			k++;
		g = f;
		e = d;
		/* as in check_sums: asserted only on failure */
		if (t->fresh[r + 1] - t->fresh[r] != d - k ||
		    t->stacks[r] != t->w->rows[r].stack || t->rowd[r] != d ||
		    memcmp(t->rowf[r], f, d * sizeof(*f)) ||
		    (t->copied && r &&
		     t->rowf[r] != t->rowf[r - 1] + t->rowd[r - 1]))
			ck_abort_msg("row %u: fresh %zu (want %zu), stack %u "
			             "(want %u), depth %u (want %zu), frames "
			             "%s, %s",
			             r, (size_t)(t->fresh[r + 1] - t->fresh[r]),
			             d - k, t->stacks[r], t->w->rows[r].stack,
			             (unsigned)t->rowd[r], d,
			             memcmp(t->rowf[r], f, d * sizeof(*f))
			                 ? "differ"
			                 : "equal",
			             t->copied && r &&
			                     t->rowf[r] !=
			                         t->rowf[r - 1] + t->rowd[r - 1]
			                 ? "not side by side"
			                 : "in place");
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
		ck_assert(steps.copied && steps.index.whole);
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
		/* the copy, then its index by stack, are left to the steps */
		ck_assert(tree_rows_wanted(&t, a.m, win) ==
		          !(t.copied && t.index.whole));
		while (tree_rows_wanted(&t, a.m, win))
			ck_assert_int_eq(
			    tree_rows_step(&t, 1 + tru_rnd(&s) % 64, &done),
			    STATUS_OK);
		ck_assert(done && t.copied && t.index.whole);
		check_frames(&t);
	}
	tree_fini(&t);
	tru_shown_fini();
	app_fini(&a);
}
END_TEST

/* A window of stacks root;s_I for I in [0, n) but [gone0, gone1), and,
 * when fresh, root;s_I_new beside every seventh: in text order, a run of
 * gone1 - gone0 stacks gone from between, and new stacks scattered.  With
 * tru_by_name a stack has 1 to 3 task names. */
#define GAP_ROWS 300
static void gap_window(struct app *a, uint64_t *s, size_t n, size_t gone0,
                       size_t gone1, bool fresh, int64_t start)
{
	static const char *const tasks[] = { "t", "u", "v" };
	static struct sample smp[6 * GAP_ROWS];
	static struct strview f[2 * GAP_ROWS][2];
	static char leaf[2 * GAP_ROWS][16];
	struct window_meta meta = { .time_nanos = start,
		                    .duration_nanos = 5 * SEC,
		                    .requested_nanos = 5 * SEC };
	size_t ns = 0, k = 0;

	for (size_t i = 0; i < n; i++) {
		for (int v = 0; v < 1 + (fresh && i % 7 == 3); v++, k++) {
			size_t nn = tru_by_name ? 1 + tru_rnd(s) % 3 : 1;

			if (i >= gone0 && i < gone1)
				break;
			snprintf(leaf[k], sizeof(leaf[k]),
			         v ? "s_%04zu_new" : "s_%04zu", i);
			f[k][0] = sv_c("root");
			f[k][1] = sv_c(leaf[k]);
			for (size_t j = 0; j < nn; j++, ns++) {
				smp[ns] =
				    (struct sample){ .frames = f[k],
					             .depth = 2,
					             .task = sv_c(tasks[j]),
					             .tasks = 1 };
				smp[ns].m.v[METRIC_BUSY] = 1 + j;
			}
		}
	}
	ck_assert_int_eq(app_commit(a, smp, ns, &meta), STATUS_OK);
}

/* Whether stack is among stacks[0 .. n). */
static bool has_stack(const uint32_t *stacks, size_t n, uint32_t stack)
{
	for (size_t r = 0; r < n; r++)
		if (stacks[r] == stack)
			return true;
	return false;
}

/* A new window whose stacks skip a run of the window before's, longer
 * than the rows looked at in turn, and bring new ones between: each
 * stack the window before had takes its frames from that window's copy,
 * those past the run too, but, without the copy's index (the steps
 * make it with the copy, unless out of memory), the few looked for in
 * turn before the lookup finds its place again (with it, none); a new
 * one is looked up in the model. */
START_TEST(tree_rows_prev_found_past_a_gap)
{
	uint64_t s = 0x3C6EF372FE94F82Bu + (uint64_t)_i;
	struct app a;
	struct tree t;
	static uint32_t had[3 * GAP_ROWS];
	const struct window *w0, *w1;
	size_t nhad, lost = 0, gone0 = 20 + tru_rnd(&s) % 60, from_prev = 0,
	             new_rows = 0;
	bool done = false, indexed = _i / 2 % 2;

	su_app(&a);
	tree_init(&t);
	tru_by_name = _i % 2;
	gap_window(&a, &s, GAP_ROWS, 0, 0, false, T0);
	w0 = tru_shown(&a);
	ck_assert_int_eq(tree_sync(&t, a.m, w0), STATUS_OK);
	while (!done)
		ck_assert_int_eq(tree_rows_step(&t, 64, &done), STATUS_OK);
	ck_assert(t.copied && t.index.whole);
	/* else as when the step that made the copy ran out of memory for
	 * the index: the lookup makes it when it needs it */
	t.index.whole = indexed;
	for (nhad = 0; nhad < w0->nrows; nhad++)
		had[nhad] = w0->rows[nhad].stack;
	gap_window(&a, &s, GAP_ROWS, gone0, gone0 + 100 + tru_rnd(&s) % 100,
	           true, T0 + 5 * SEC);
	w1 = tru_shown(&a);
	ck_assert_int_eq(tree_sync(&t, a.m, w1), STATUS_OK);
	ck_assert_int_eq(tree_rows_make(&t), STATUS_OK);
	check_frames(&t);
	ck_assert(t.prev.n > 0);
	for (uint32_t r = 0; r < w1->nrows; r++) {
		const uint32_t *f = t.rowf[r];
		bool in_copy =
		    f >= t.prev.frames && f < t.prev.frames + t.prev.frames_cap;

		bool had_it = has_stack(had, nhad, w1->rows[r].stack);

		/* a new stack is never in the copy */
		ck_assert(!in_copy || had_it);
		lost += had_it && !in_copy &&
		        (!r || w1->rows[r].stack != w1->rows[r - 1].stack);
		from_prev += in_copy;
		new_rows += !in_copy;
	}
	ck_assert_uint_gt(from_prev, 0);
	ck_assert_uint_gt(new_rows, 0);
	/* past the run, the stacks looked for near and missed before the
	 * lookup looked farther and found its place again (tree_rows.c's
	 * PREV_ASTRAY); the index finds each at once */
	ck_assert_uint_le(lost, (indexed ? 0 : 4));
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

/* The viewer makes the tree's rows between keys only while the tree (or
 * the flame) shows: t on a window (its top one frame, no row read), the
 * steps until none is left (a few, of 8 rows), then * finds them made;
 * Esc, a new window, nothing of the tree's to make; t again (nothing
 * expanded), they are wanted again; f, and the steps make and copy them. */
START_TEST(tree_rows_made_between_keys_while_shown)
{
	uint64_t s = 0x2D358DCCAA6C78A5u;
	struct app a;

	su_app(&a);
	a.idle_rows = 8;
	tru_wide_window(&a, &s, T0);
	render(&a);
	/* the table's order of a window just arrived, put in place about
	 * its page only, among the steps */
	(void)su_idle_all(&a, 100000);
	ck_assert(!a.tree.rows_known);
	(void)app_key(&a, 't');
	render(&a);
	ck_assert(!a.tree.rows_known);
	ck_assert_uint_gt(su_idle_all(&a, 1000), 10);
	ck_assert(a.tree.rows_known);
	(void)app_key(&a, '*');
	render(&a);
	ck_assert(a.tree.rows_known);
	ck_assert_uint_gt(a.tree.nshown, 100);
	(void)app_key(&a, KC_ESC);
	render(&a);
	tru_wide_window(&a, &s, T0 + 5 * SEC);
	render(&a);
	(void)su_idle_all(&a, 100000);
	/* nothing expanded (* is kept by path: t would make the rows) */
	tree_paths_clear(&a.tree.open);
	tree_paths_clear(&a.tree.open_all);
	(void)app_key(&a, 't');
	render(&a);
	ck_assert(app_idle_pending(&a));
	/* the flame lays the same tree out: its rows are made too */
	(void)app_key(&a, 'f');
	render(&a);
	ck_assert_int_eq(a.body, APP_BODY_FLAME);
	ck_assert_uint_gt(su_idle_all(&a, 1000), 10);
	ck_assert(a.tree.rows_known && a.tree.copied);
	render(&a);
	app_fini(&a);
}
END_TEST

/* Renders a at 100x30 into out (a C string). */
static void screen(struct app *a, struct buf *out)
{
	su_screen(a, 100, 30, out);
}

/* Windows arrive while the tree shows and * comes at once on each, in
 * two viewers fed the same windows: one that pauses before each window
 * (its steps make the rows, their copy and the copy's index, so the key
 * finds the window before's stacks by the index), and one that never
 * pauses (every key looks its rows up in the model, the path before the
 * copy).  Their screens are the same after *, End and Home, split by
 * name or not. */
START_TEST(tree_rows_new_window_while_shown_star_at_once)
{
	uint64_t s0 = 0x7B3F1A2C9D4E5F61u + (uint64_t)_i, s1 = s0;
	static const int keys[] = { '*', KC_END, KC_HOME };
	struct app a, b;
	struct buf sa, sb;
	size_t indexed = 0;

	su_app(&a);
	su_app(&b);
	buf_init(&sa);
	buf_init(&sb);
	tru_by_name = _i % 2;
	if (tru_by_name) {
		(void)app_key(&a, 'n');
		(void)app_key(&b, 'n');
	}
	tru_wide_window(&a, &s0, T0);
	tru_wide_window(&b, &s1, T0);
	(void)app_key(&a, 't');
	(void)app_key(&b, 't');
	for (int w = 1; w < 6; w++) {
		(void)su_idle_all(&a, 100000);
		indexed += a.tree.copied && a.tree.index.whole;
		tru_wide_window(&a, &s0, T0 + w * 5 * SEC);
		tru_wide_window(&b, &s1, T0 + w * 5 * SEC);
		screen(&a, &sa);
		screen(&b, &sb);
		ck_assert_str_eq(sa.data, sb.data);
		for (size_t k = 0; k < sizeof(keys) / sizeof(*keys); k++) {
			(void)app_key(&a, keys[k]);
			(void)app_key(&b, keys[k]);
			screen(&a, &sa);
			screen(&b, &sb);
			ck_assert_str_eq(sa.data, sb.data);
		}
		ck_assert(!b.tree.copied);
		/* the next window finds everything expanded: collapse some */
		if (w % 2) {
			(void)app_key(&a, '-');
			(void)app_key(&b, '-');
		}
	}
	ck_assert_uint_ge(indexed, 4);
	buf_fini(&sa);
	buf_fini(&sb);
	app_fini(&a);
	app_fini(&b);
}
END_TEST

Suite *suite_tree_rows(void);
Suite *suite_tree_rows(void)
{
	Suite *s = suite_create("tree_rows");
	TCase *tc = tcase_create("tree_rows");

	tcase_set_timeout(tc, 60);
	tcase_add_loop_test(tc, tree_rows_steps_equal_whole, 0,
	                    TU_PROP_RUNS(20));
	tcase_add_loop_test(tc, tree_rows_key_between_steps, 0,
	                    TU_PROP_RUNS(20));
	tcase_add_test(tc, tree_rows_made_between_keys_while_shown);
	tcase_add_loop_test(tc, tree_rows_prev_found_past_a_gap, 0, 8);
	tcase_add_loop_test(tc, tree_rows_new_window_while_shown_star_at_once,
	                    0, 4);
	suite_add_tcase(s, tc);
	return s;
}
