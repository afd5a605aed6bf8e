/* The tree's rows are walked, not flattened: on random trees with random
 * expansions, collapses, weightings and pages, every row found by the
 * counts (tree_row) and every row of the page is the one a full
 * flattening of the expanded tree, each level sorted, puts there. */
#include <check.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
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

/* Whether each node shows its callees, by the last flatten. */
static bool shows[SU_ROWS * SU_DEPTH + 1];

/* The full flattening: every shown node in order, callees by the
 * weighting (the later made first among equals), as the tree was drawn
 * before it walked.  Below a node marked all (or inside one, all) every
 * node with callees shows expanded, whatever its own flags say: their
 * callees are made here.  Returns the count put in out. */
static size_t flatten(struct tree *t, uint32_t node, bool all,
                      enum metric metric, bool ascending, uint32_t *out,
                      size_t n)
{
	uint32_t kids[SU_ROWS * SU_DEPTH];
	size_t k = 0;

	all = all || t->nodes[node].all;
	if (all)
		ck_assert_int_eq(tree_children(t, node), STATUS_OK);
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
		bool open = (all || t->nodes[kids[i]].expanded) &&
		            t->nodes[kids[i]].kids;

		shows[kids[i]] = open;
		out[n++] = kids[i];
		if (open)
			n = flatten(t, kids[i], all, metric, ascending, out, n);
	}
	return n;
}

/* Random stacks, 1 to 6 frames deep, into rows; returns how many. */
static size_t random_rows(struct su_row *rows, uint64_t *s)
{
	size_t n = 1 + rnd(s) % SU_ROWS;

	memset(rows, 0, SU_ROWS * sizeof(*rows));
	for (size_t r = 0; r < n; r++) {
		size_t d = 1 + rnd(s) % 6;

		for (size_t f = 0; f < d; f++)
			rows[r].frames[f] = names[rnd(s) % 4];
		rows[r].task = "t";
		for (int m = 0; m < METRIC_COUNT; m++)
			rows[r].v[m] = rnd(s) % 4;
		rows[r].tasks = 1 + rnd(s) % 3;
	}
	return n;
}

/* A window of random stacks. */
static void random_window(struct app *a, uint64_t *s, int64_t start)
{
	static struct su_row rows[SU_ROWS];
	size_t n = random_rows(rows, s);

	su_commit(a, rows, n, start);
}

/* tree_row and the page against the full flattening. */
static void check_rows(struct tree *t, enum metric metric, bool ascending)
{
	static uint32_t want[SU_ROWS * SU_DEPTH];
	size_t n = flatten(t, 0, false, metric, ascending, want, 0);

	ck_assert_uint_eq(t->nshown, n);
	for (size_t i = 0; i < n; i++)
		ck_assert_uint_eq(tree_row(t, i), want[i]);
	ck_assert_uint_eq(tree_row(t, n), TREE_NONE);
	ck_assert_uint_eq(t->nview,
	                  n - t->top < t->page ? n - t->top : t->page);
	for (size_t i = 0; i < t->nview; i++) {
		uint32_t id = t->view[i];

		ck_assert_uint_eq(id, want[t->top + i]);
		/* its glyph says what shows */
		if (t->nodes[id].kids)
			ck_assert(t->nodes[id].expanded == shows[id]);
	}
	if (n) {
		ck_assert_uint_lt(t->sel, n);
		ck_assert_uint_ge(t->sel, t->top);
		ck_assert_uint_lt(t->sel, t->top + t->page);
		ck_assert_uint_eq(t->nodes[want[t->sel]].path, t->sel_path);
	}
}

/* 40 random keys on the latest window of a (a weighting, expand, expand
 * all, collapse, a move by up to reach rows), some frames laid out by the
 * flame between them, each update against the full flattening; returns
 * the rows shown, summed. */
static size_t random_keys(struct app *a, struct tree *t, uint64_t *s,
                          long reach)
{
	size_t shown = 0;

	for (int op = 0; op < 40; op++) {
		enum metric metric = (enum metric)(rnd(s) % METRIC_COUNT);
		bool ascending = rnd(s) % 4 == 0;
		uint64_t path;
		bool reorder = op && rnd(s) % 3 == 0;

		t->page = 1 + rnd(s) % 12;
		ck_assert_int_eq(
		    tree_update(t, a->m, model_latest(a->m), metric, ascending),
		    STATUS_OK);
		check_rows(t, metric, ascending);
		shown += t->nshown;
		path = t->sel_path;
		if (reorder) {
			/* another weighting: the selection keeps its path */
			metric = (enum metric)((metric + 1) % METRIC_COUNT);
			ck_assert_int_eq(tree_update(t, a->m,
			                             model_latest(a->m), metric,
			                             !ascending),
			                 STATUS_OK);
			check_rows(t, metric, !ascending);
			ck_assert_uint_eq(t->sel_path, path);
			continue;
		}
		/* the flame lays out some frames of the same tree: only
		 * their callees a column wide, or all when they are few */
		if (rnd(s) % 4 == 0 && t->n)
			ck_assert_int_eq(
			    tree_wide_children(t, (uint32_t)(rnd(s) % t->n),
			                       metric, rnd(s) % 6),
			    STATUS_OK);
		switch (rnd(s) % 4) {
		case 0:
			tree_expand(t, rnd(s) % 3 == 0);
			break;
		case 1:
			tree_collapse(t);
			break;
		default:
			tree_move(t,
			          (long)(rnd(s) % (2 * (uint64_t)reach + 1)) -
			              reach);
			break;
		}
	}
	return shown;
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
		shown += random_keys(&a, &t, &s, 8);
	}
	/* the trees were not all trivial */
	ck_assert_uint_gt(shown, 40 * 4);
	tree_fini(&t);
	app_fini(&a);
}
END_TEST

/* A window of up to WIDE_ROWS stacks under one root, through one of two
 * middle frames, most ending in a leaf of their own: frames with
 * hundreds of callees, which keep them ranked in an array. */
#define WIDE_ROWS 400
static void wide_window(struct app *a, uint64_t *s, int64_t start)
{
	static struct sample smp[WIDE_ROWS];
	static struct strview f[WIDE_ROWS][3];
	static char leaf[WIDE_ROWS][16];
	struct window_meta meta = { .time_nanos = start,
		                    .duration_nanos = 5 * SEC,
		                    .requested_nanos = 5 * SEC };
	size_t n = 100 + rnd(s) % (WIDE_ROWS - 100);

	for (size_t i = 0; i < n; i++) {
		snprintf(leaf[i], sizeof(leaf[i]), "leaf_%zu", i);
		f[i][0] = sv_c("root");
		f[i][1] = sv_c(rnd(s) % 8 ? "mid" : "side");
		f[i][2] = sv_c(leaf[i]);
		smp[i] = (struct sample){ .frames = f[i],
			                  .depth = 1 + (rnd(s) % 16 != 0) +
			                           (rnd(s) % 16 != 0),
			                  .task = sv_c("t"),
			                  .tasks = 1 };
		for (int m = 0; m < METRIC_COUNT; m++)
			smp[i].m.v[m] = rnd(s) % 8;
	}
	ck_assert_int_eq(app_commit(a, smp, n, &meta), STATUS_OK);
}

/* The same against frames with hundreds of callees, with moves that jump
 * far (End, PgDn). */
START_TEST(tree_walk_many_callees)
{
	uint64_t s = 0xD1B54A32D192ED03u + (uint64_t)_i;
	struct app a;
	struct tree t;
	size_t shown = 0;

	su_app(&a);
	tree_init(&t);
	for (int w = 0; w < 3; w++) {
		wide_window(&a, &s, T0 + w * 5 * SEC);
		shown += random_keys(&a, &t, &s, 300);
	}
	ck_assert_uint_gt(shown, 40 * 3 * 3);
	tree_fini(&t);
	app_fini(&a);
}
END_TEST

/* The frames of w's tree counted without it: its stacks' distinct
 * prefixes. */
static size_t prefixes(const struct model *m, const struct window *w)
{
	size_t n = 0;

	for (size_t r = 0; r < w->nrows; r++) {
		size_t d = 0;
		const uint32_t *f = model_stack(m, w->rows[r].stack, &d);

		for (size_t k = 1; k <= d; k++) {
			bool seen = false;

			for (size_t q = 0; q < r && !seen; q++) {
				size_t e = 0;
				const uint32_t *g =
				    model_stack(m, w->rows[q].stack, &e);

				seen = e >= k && !memcmp(f, g, k * sizeof(*f));
			}
			n += !seen;
		}
	}
	return n;
}

/* Selects row i of t (shown) with the keys' move. */
static void select_row(struct tree *t, size_t i)
{
	tree_move(t, (long)i - (long)t->sel);
	ck_assert_uint_eq(t->sel, i);
}

/* tree_update, then the rows against the full flattening. */
static void update_check(struct app *a, struct tree *t)
{
	ck_assert_int_eq(
	    tree_update(t, a->m, model_latest(a->m), METRIC_BUSY, false),
	    STATUS_OK);
	check_rows(t, METRIC_BUSY, false);
}

/* * on every top frame shows every frame of the tree (counted from its
 * stacks, made as walks reach them); then a frame collapsed, a frame
 * inside expanded, * inside, each against the full flattening; a new
 * window of the same stacks shows the same rows, the selection kept. */
START_TEST(tree_walk_expand_all_then_change)
{
	static struct su_row rows[SU_ROWS];
	uint64_t s = 0x2545F4914F6CDD1Du + (uint64_t)_i;
	size_t n = random_rows(rows, &s), shown;
	struct app a;
	struct tree t;
	uint64_t path;

	su_app(&a);
	tree_init(&t);
	su_commit(&a, rows, n, T0);
	t.page = 1 + rnd(&s) % 12;
	update_check(&a, &t);
	for (size_t i = 0; i < t.nshown; i++) {
		if (t.nodes[tree_row(&t, i)].depth != 1)
			continue;
		select_row(&t, i);
		tree_expand(&t, true);
		update_check(&a, &t);
	}
	ck_assert_uint_eq(t.nshown, prefixes(a.m, model_latest(a.m)));
	for (int op = 0; op < 3; op++) {
		select_row(&t, rnd(&s) % t.nshown);
		if (op == 0)
			tree_collapse(&t);
		else
			tree_expand(&t, op == 2);
		update_check(&a, &t);
	}
	shown = t.nshown;
	path = t.sel_path;
	su_commit(&a, rows, n, T0 + 5 * SEC);
	update_check(&a, &t);
	ck_assert_uint_eq(t.nshown, shown);
	ck_assert_uint_eq(t.sel_path, path);
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
	tcase_add_loop_test(tc, tree_walk_expand_all_then_change, 0, 50);
	tcase_add_loop_test(tc, tree_walk_many_callees, 0, 20);
	suite_add_tcase(s, tc);
	return s;
}
