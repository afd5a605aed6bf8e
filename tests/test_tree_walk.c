/* The tree's rows are walked, not flattened: on random trees with random
 * expansions, collapses, weightings and pages, every row found by the
 * counts (tree_row) and every row of the page is the one a full
 * flattening of the expanded tree, each level sorted, puts there. */
#include <check.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "model/model.h"
#include "tests/screen_util.h"
#include "tui/app.h"
#include "tui/view_tree.h"

/* Few frame names and small figures: many shared prefixes, many ties. */
static const char *const names[] = { "a", "b", "c", "d" };

static uint64_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* The full flattening: every shown node in order, callees by the
 * weighting (the later made first among equals), as the tree was drawn
 * before it walked.  Returns the count put in out. */
static size_t flatten(const struct tree *t, uint32_t node, enum metric metric,
                      bool ascending, uint32_t *out, size_t n)
{
	uint32_t kids[SU_ROWS * SU_DEPTH];
	size_t k = 0;

	for (uint32_t c = t->nodes[node].first_child; c != TREE_NONE;
	     c = t->nodes[c].next_sibling)
		kids[k++] = c;
	/* insertion sort, stable on the reversed order of making */
	for (size_t i = 0; i < k / 2; i++) {
		uint32_t x = kids[i];
		kids[i] = kids[k - 1 - i];
		kids[k - 1 - i] = x;
	}
	for (size_t i = 1; i < k; i++) {
		uint32_t x = kids[i];
		uint64_t v = t->nodes[x].m.v[metric];
		size_t j = i;

		while (j &&
		       (ascending ? t->nodes[kids[j - 1]].m.v[metric] > v
		                  : t->nodes[kids[j - 1]].m.v[metric] < v)) {
			kids[j] = kids[j - 1];
			j--;
		}
		kids[j] = x;
	}
	for (size_t i = 0; i < k; i++) {
		const struct tree_node *c = &t->nodes[kids[i]];

		out[n++] = kids[i];
		if (c->expanded && c->kids)
			n = flatten(t, kids[i], metric, ascending, out, n);
	}
	return n;
}

/* A window of random stacks, 1 to 6 frames deep. */
static void random_window(struct app *a, uint64_t *s, int64_t start)
{
	static struct su_row rows[SU_ROWS];
	size_t n = 1 + rnd(s) % SU_ROWS;

	memset(rows, 0, sizeof(rows));
	for (size_t r = 0; r < n; r++) {
		size_t d = 1 + rnd(s) % 6;

		for (size_t f = 0; f < d; f++)
			rows[r].frames[f] = names[rnd(s) % 4];
		rows[r].task = "t";
		for (int m = 0; m < METRIC_COUNT; m++)
			rows[r].v[m] = rnd(s) % 4;
		rows[r].tasks = 1 + rnd(s) % 3;
	}
	su_commit(a, rows, n, start);
}

/* tree_row and the page against the full flattening. */
static void check_rows(struct tree *t, enum metric metric, bool ascending)
{
	static uint32_t want[SU_ROWS * SU_DEPTH];
	size_t n = flatten(t, 0, metric, ascending, want, 0);

	ck_assert_uint_eq(t->nshown, n);
	for (size_t i = 0; i < n; i++)
		ck_assert_uint_eq(tree_row(t, i), want[i]);
	ck_assert_uint_eq(tree_row(t, n), TREE_NONE);
	ck_assert_uint_eq(t->nview,
	                  n - t->top < t->page ? n - t->top : t->page);
	for (size_t i = 0; i < t->nview; i++)
		ck_assert_uint_eq(t->view[i], want[t->top + i]);
	if (n) {
		ck_assert_uint_lt(t->sel, n);
		ck_assert_uint_ge(t->sel, t->top);
		ck_assert_uint_lt(t->sel, t->top + t->page);
		ck_assert_uint_eq(t->nodes[want[t->sel]].path, t->sel_path);
	}
}

START_TEST(tree_walk_matches_full_flattening)
{
	uint64_t s = 0x9E3779B97F4A7C15u + (uint64_t)_i;
	struct app a;
	struct tree t;
	size_t shown = 0;

	su_app(&a);
	tree_init(&t);
	for (int w = 0; w < 4; w++) {
		random_window(&a, &s, T0 + w * 5 * SEC);
		for (int op = 0; op < 40; op++) {
			enum metric metric =
			    (enum metric)(rnd(&s) % METRIC_COUNT);
			bool ascending = rnd(&s) % 4 == 0;
			uint64_t path;
			bool reorder = op && rnd(&s) % 3 == 0;

			t.page = 1 + rnd(&s) % 12;
			ck_assert_int_eq(tree_update(&t, a.m, model_latest(a.m),
			                             metric, ascending),
			                 STATUS_OK);
			check_rows(&t, metric, ascending);
			shown += t.nshown;
			path = t.sel_path;
			if (reorder) {
				/* another weighting: the selection keeps its
				 * path */
				metric =
				    (enum metric)((metric + 1) % METRIC_COUNT);
				ck_assert_int_eq(
				    tree_update(&t, a.m, model_latest(a.m),
				                metric, !ascending),
				    STATUS_OK);
				check_rows(&t, metric, !ascending);
				ck_assert_uint_eq(t.sel_path, path);
				continue;
			}
			switch (rnd(&s) % 4) {
			case 0:
				tree_expand(&t, rnd(&s) % 3 == 0);
				break;
			case 1:
				tree_collapse(&t);
				break;
			default:
				tree_move(&t, (long)(rnd(&s) % 17) - 8);
				break;
			}
		}
	}
	/* the trees were not all trivial */
	ck_assert_uint_gt(shown, 40 * 4);
	tree_fini(&t);
	app_fini(&a);
}
END_TEST

Suite *suite_tree_walk(void);
Suite *suite_tree_walk(void)
{
	Suite *s = suite_create("tree_walk");
	TCase *tc = tcase_create("tree_walk");

	tcase_set_timeout(tc, 60);
	tcase_add_loop_test(tc, tree_walk_matches_full_flattening, 0, 50);
	suite_add_tcase(s, tc);
	return s;
}
