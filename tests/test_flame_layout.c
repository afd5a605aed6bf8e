/* The flame's layout from running sums and binary searches against the
 * same layout over a tree whose every frame has all its callees made (what
 * a scan of every row gives): on random windows of deep and shallow
 * stacks, every grouping and weighting, wide and narrow screens, zoomed
 * and not, and laid out again for another weighting, the boxes are the
 * same frames, sums and columns. */
#include <check.h>
#include <stdio.h>
#include <string.h>

#include "model/model.h"
#include "tests/model_util.h"
#include "tests/util.h"
#include "tui/view_flame.h"
#include "tui/view_tree.h"

static uint64_t next(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

/* A window of n samples: stacks of 1 to 9 frames out of a few (so runs
 * are long and short, and stacks are prefixes of others), a few heavy
 * rows among many light ones and zeros, parked-at stacks, a few names. */
static const struct window *commit_random(struct model *m, uint64_t *x,
                                          size_t n)
{
	static const char *const fr[] = { "a",     "b",    "main", "run",
		                          "x:y:1", "lock", "q" };
	static const char *const names[] = { "w", "f", "" };
	struct window_meta meta = { .duration_nanos = 1000000000 };
	const struct window *w = NULL;

	ck_assert_int_eq(model_begin(m), STATUS_OK);
	for (size_t i = 0; i < n; i++) {
		char st[128], pk[64];
		size_t d = 1 + next(x) % 9, at = 0;
		struct metrics v;

		for (size_t k = 0; k < d && at < sizeof(st); k++)
			at += (size_t)snprintf(st + at, sizeof(st) - at, "%s%s",
			                       k ? ";" : "",
			                       fr[next(x) % (k < 2 ? 2 : 7)]);
		snprintf(pk, sizeof(pk), "lock;%s", fr[next(x) % 7]);
		for (int k = 0; k < METRIC_COUNT; k++) {
			uint64_t r = next(x) % 100;
			v.v[k] = r < 10 ? 0 : r < 97 ? r : r * 100000;
		}
		ck_assert_int_eq(tm_add_m(m, st, names[next(x) % 3], v, 1),
		                 STATUS_OK);
		if (next(x) % 2)
			ck_assert_int_eq(tm_add_p(m, st, pk, names[i % 3],
			                          1 + next(x) % 50, NULL),
			                 STATUS_OK);
	}
	ck_assert_int_eq(model_commit(m, &meta, &w), STATUS_OK);
	return w;
}

/* Makes every frame's callees, depth first. */
static void build_all(struct tree *t)
{
	for (uint32_t id = 0; id < t->n; id++)
		ck_assert_int_eq(tree_children(t, id), STATUS_OK);
}

/* a's boxes (over ta) are b's (over tb): frames by path, sums, places. */
static void same_boxes(const struct flame *a, const struct tree *ta,
                       const struct flame *b, const struct tree *tb)
{
	ck_assert_uint_eq(a->n, b->n);
	for (size_t i = 0; i < a->n; i++) {
		const struct flame_box *x = &a->boxes[i], *y = &b->boxes[i];
		const struct tree_node *nx = &ta->nodes[x->node];
		const struct tree_node *ny = &tb->nodes[y->node];

		ck_assert_uint_eq(x->row, y->row);
		ck_assert_uint_eq(x->x0, y->x0);
		ck_assert_uint_eq(x->x1, y->x1);
		ck_assert_uint_eq(nx->path, ny->path);
		ck_assert_uint_eq(nx->frame, ny->frame);
		ck_assert_uint_eq(nx->r0, ny->r0);
		ck_assert_uint_eq(nx->r1, ny->r1);
		ck_assert_uint_eq(nx->tasks, ny->tasks);
		ck_assert_mem_eq(&nx->m, &ny->m, sizeof(nx->m));
	}
	ck_assert_uint_eq(ta->nodes[a->sel].path, tb->nodes[b->sel].path);
}

START_TEST(flame_layout_is_the_full_scan)
{
	static const struct grouping gs[] = {
		{ .key = GROUP_SPAWN },
		{ .key = GROUP_SPAWN, .by_name = true },
		{ .key = GROUP_PARKED },
		{ .key = GROUP_PARKED, .by_name = true },
	};
	static const size_t sizes[][2] = { { 200, 49 }, { 80, 6 }, { 7, 30 } };
	struct model *m = tm_mk(2, 0, 0, 0, 0);
	uint64_t x = 0x2545F4914F6CDD1Du;
	size_t boxes = 0, zoomed = 0;

	for (int round = 0; round < 6; round++) {
		const struct window *k =
		    commit_random(m, &x, 200 + next(&x) % 3000);

		for (size_t gi = 0; gi < ARRAY_SIZE(gs); gi++) {
			const struct window *w;

			ck_assert_int_eq(model_group(m, k, gs[gi], &w),
			                 STATUS_OK);
			for (size_t si = 0; si < ARRAY_SIZE(sizes); si++) {
				struct tree ta, tb;
				struct flame fa, fb;

				tree_init(&ta);
				tree_init(&tb);
				flame_init(&fa);
				flame_init(&fb);
				ck_assert_int_eq(tree_sync(&ta, m, w),
				                 STATUS_OK);
				ck_assert_int_eq(tree_sync(&tb, m, w),
				                 STATUS_OK);
				build_all(&tb);
				for (int mt = 0; mt < 2 * METRIC_COUNT; mt++) {
					enum metric metric =
					    (enum metric)(mt % METRIC_COUNT);
					size_t cols = sizes[si][0];
					size_t levels = sizes[si][1];

					/* the second time round, zoomed into
					 * the widest frame of the second level
					 */
					if (mt == METRIC_COUNT && fa.n > 1) {
						fa.sel = fa.boxes[1].node;
						fb.sel = fb.boxes[1].node;
						flame_zoom_in(&fa, &ta);
						flame_zoom_in(&fb, &tb);
						zoomed++;
					}
					ck_assert_int_eq(
					    flame_layout(&fa, &ta, metric, cols,
					                 levels),
					    STATUS_OK);
					ck_assert_int_eq(
					    flame_layout(&fb, &tb, metric, cols,
					                 levels),
					    STATUS_OK);
					same_boxes(&fa, &ta, &fb, &tb);
					boxes += fa.n;
				}
				flame_fini(&fa);
				flame_fini(&fb);
				tree_fini(&ta);
				tree_fini(&tb);
			}
			model_group_free(w);
		}
	}
	/* the layouts had something to agree on */
	ck_assert_uint_gt(boxes, 5000);
	ck_assert_uint_gt(zoomed, 20);
	model_free(m);
}
END_TEST

/* The flame's first draw looks up only the rows it reads (and sums them
 * all); the tree's first scan of rows then makes every row's frames, each
 * the model's stack, and its steps (between keys) copy them side by side
 * in row order. */
START_TEST(flame_first_draw_leaves_row_frames_to_the_tree)
{
	struct model *m = tm_mk(2, 0, 0, 0, 0);
	uint64_t x = 0x9E3779B97F4A7C15u;
	const struct window *w = commit_random(m, &x, 3000);
	struct tree t;
	struct flame f;

	tree_init(&t);
	flame_init(&f);
	ck_assert_int_eq(tree_sync(&t, m, w), STATUS_OK);
	ck_assert_int_eq(flame_layout(&f, &t, METRIC_IDLE, 200, 49), STATUS_OK);
	ck_assert_uint_gt(f.n, 1);
	ck_assert(!t.rows_known);
	ck_assert_int_eq(tree_children(&t, 0), STATUS_OK);
	ck_assert(t.rows_known);
	/* the running sums the flame made (no row looked up), which the
	 * lookup then left as they were, are every row's */
	ck_assert_uint_eq(t.sums_next, w->nrows);
	for (size_t r = 0; r < w->nrows; r++) {
		for (int k = 0; k < METRIC_COUNT; k++)
			ck_assert_uint_eq(tree_sum(&t, k, r + 1) -
			                      tree_sum(&t, k, r),
			                  w->rows[r].m.v[k]);
		ck_assert_uint_eq(tree_sum(&t, METRIC_COUNT, r + 1) -
		                      tree_sum(&t, METRIC_COUNT, r),
		                  w->rows[r].tasks);
	}
	for (int copied = 0; copied < 2; copied++) {
		bool done = false;

		for (size_t r = 0, at = 0; r < w->nrows; r++) {
			size_t d = 0;
			const uint32_t *s =
			    model_stack(m, w->rows[r].stack, &d);

			ck_assert_uint_eq(t.rowd[r], d);
			if (copied)
				ck_assert_ptr_eq(t.rowf[r], t.frames + at);
			ck_assert_mem_eq(t.rowf[r], s, d * sizeof(*s));
			at += d;
		}
		while (!done)
			ck_assert_int_eq(tree_rows_step(&t, 64, &done),
			                 STATUS_OK);
	}
	flame_fini(&f);
	tree_fini(&t);
	model_free(m);
}
END_TEST

Suite *suite_flame_layout(void);
Suite *suite_flame_layout(void)
{
	Suite *s = suite_create("flame_layout");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, flame_layout_is_the_full_scan);
	tcase_add_test(tc, flame_first_draw_leaves_row_frames_to_the_tree);
	suite_add_tcase(s, tc);
	return s;
}
