/* The tree's rows are walked, not flattened: on random trees with random
 * expansions, collapses, weightings and pages, every row found by the
 * counts (tree_row) and every row of the page is the one a full
 * flattening of the expanded tree, each level sorted, puts there; and
 * the same split by task name, where a stack has a row per name (its
 * rows, made at once or by steps, in test_tree_rows.c). */
#include <check.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/model.h"
#include "tests/screen_util.h"
#include "tests/tree_util.h"
#include "tests/util.h"
#include "tui/app.h"
#include "tui/tree_parts.h"
#include "tui/view_tree.h"

/* Few frame names and small figures: many shared prefixes, many ties. */
static const char *const names[] = { "a", "b", "c", "d" };

/* Whether each node shows its callees, by the last flatten. */
static bool shows[SU_ROWS * SU_DEPTH + 1];

/* A row of the full flattening: its path, and its node (TREE_NONE for a
 * callee of a leafy frame, which has a node only once a walk reaches it). */
struct want {
	uint64_t path;
	uint32_t node;
};

/* The last full flattening, and how many leafy frames it met (split by
 * name, how many with a stack of more than one row). */
static struct want want[SU_ROWS * SU_DEPTH + 1024];
static size_t leafy_met, leafy_named;

/* Whether the viewer's steps between keys run before each update (the
 * rows made a few at a time, whole or not), and their random state. */
static bool stepping;
static uint64_t step_rnd = 0x5851F42D4C957F2Du;

/* The viewer's pause before a key when stepping: up to 3 steps of the
 * tree's rows of 1 to 40 rows each, on the window the tree was built for
 * (a new window may have come since: the key begins again). */
static void pause_steps(const struct app *a, struct tree *t)
{
	for (int k = stepping ? (int)(tru_rnd(&step_rnd) % 4) : 0;
	     k > 0 && tree_rows_wanted(t, a->m, t->w); k--) {
		bool done;

		ck_assert_int_eq(
		    tree_rows_step(t, 1 + tru_rnd(&step_rnd) % 40, &done),
		    STATUS_OK);
		ck_assert(!done || (t->rows_known && t->copied));
	}
}

/* The callees of leafy node, from the window's rows alone: each stack
 * past it is one (its rows, one a task name), by the weighting summed over
 * its rows (the later first among equals). */
static size_t flatten_rows(struct tree *t, uint32_t node, enum metric metric,
                           bool ascending, struct want *out, size_t n)
{
	static uint32_t rows[4096];
	static uint64_t val[4096];
	const struct tree_node *nd = &t->nodes[node];
	size_t k = 0;

	for (uint32_t r = nd->r0; r < nd->r1; r++) {
		size_t d = 0;
		uint32_t stack = t->w->rows[r].stack;

		(void)model_stack(t->m, stack, &d);
		if (d <= nd->depth)
			continue;
		if (k && t->w->rows[rows[k - 1]].stack == stack) {
			val[k - 1] += t->w->rows[r].m.v[metric];
			leafy_named++;
			continue;
		}
		val[k] = t->w->rows[r].m.v[metric];
		rows[k++] = r;
	}
	ck_assert_uint_eq(k, nd->nchild);
	leafy_met++;
	for (size_t i = 1; i < k; i++) { /* later rows first, then stable */
		uint32_t x = rows[i];
		uint64_t v = val[i];
		size_t j = i;

		while (j && (ascending ? val[j - 1] >= v : val[j - 1] <= v)) {
			val[j] = val[j - 1];
			rows[j] = rows[j - 1];
			j--;
		}
		val[j] = v;
		rows[j] = x;
	}
	for (size_t i = 0; i < k; i++) {
		size_t d = 0;
		const uint32_t *f =
		    model_stack(t->m, t->w->rows[rows[i]].stack, &d);

		out[n++] = (struct want){ .path = tree_path(f, nd->depth + 1),
			                  .node = TREE_NONE };
	}
	return n;
}

/* The full flattening: every shown node in order, callees by the
 * weighting (the later made first among equals), as the tree was drawn
 * before it walked.  Below a node marked all (or inside one, all) every
 * node with callees shows expanded, whatever its own flags say: their
 * callees are made here, as the walk makes them.  Returns the count put
 * in out. */
static size_t flatten(struct tree *t, uint32_t node, bool all,
                      enum metric metric, bool ascending, struct want *out,
                      size_t n)
{
	uint32_t kids[SU_ROWS * SU_DEPTH];
	size_t k = 0;

	all = all || t->nodes[node].all;
	if (all)
		ck_assert_int_eq(tree_callees(t, node), STATUS_OK);
	if (t->nodes[node].leafy)
		return flatten_rows(t, node, metric, ascending, out, n);
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
		out[n++] = (struct want){ .path = t->nodes[kids[i]].path,
			                  .node = kids[i] };
		if (open)
			n = flatten(t, kids[i], all, metric, ascending, out, n);
	}
	return n;
}

/* Random stacks, 1 to 6 frames deep, into rows; returns how many. */
static size_t random_rows(struct su_row *rows, uint64_t *s)
{
	size_t n = 1 + tru_rnd(s) % SU_ROWS;

	memset(rows, 0, SU_ROWS * sizeof(*rows));
	for (size_t r = 0; r < n; r++) {
		size_t d = 1 + tru_rnd(s) % 6;

		for (size_t f = 0; f < d; f++)
			rows[r].frames[f] = names[tru_rnd(s) % 4];
		rows[r].task = tru_by_name && tru_rnd(s) % 2 ? "u" : "t";
		for (int m = 0; m < METRIC_COUNT; m++)
			rows[r].v[m] = tru_rnd(s) % 4;
		rows[r].tasks = 1 + tru_rnd(s) % 3;
	}
	return n;
}

/* A window of random stacks; under one top frame when chain (the root's
 * one callee, made before any row's frames). */
static void random_window(struct app *a, uint64_t *s, int64_t start, bool chain)
{
	static struct su_row rows[SU_ROWS];
	size_t n = random_rows(rows, s);

	for (size_t r = 0; chain && r < n; r++)
		rows[r].frames[0] = names[0];
	su_commit(a, rows, n, start);
}

/* tree_row and the page against the full flattening. */
/* Whether the row id found by the walk is want. */
static void check_row(const struct tree *t, uint32_t id, const struct want *w)
{
	ck_assert_uint_ne(id, TREE_NONE);
	ck_assert_uint_eq(t->nodes[id].path, w->path);
	if (w->node != TREE_NONE)
		ck_assert_uint_eq(id, w->node);
}

/* Node id's sums are those of the window's rows under its path. */
static void check_sums(const struct tree *t, uint32_t id)
{
	const struct tree_node *n = &t->nodes[id];
	struct metrics m = { { 0 } };
	uint64_t tasks = 0;

	for (size_t r = 0; r < t->w->nrows; r++) {
		size_t d = 0;
		const uint32_t *f = model_stack(t->m, t->w->rows[r].stack, &d);

		if (d < n->depth || tree_path(f, n->depth) != n->path)
			continue;
		for (int k = 0; k < METRIC_COUNT; k++)
			m.v[k] += t->w->rows[r].m.v[k];
		tasks += t->w->rows[r].tasks;
	}
	for (int k = 0; k < METRIC_COUNT; k++)
		ck_assert_uint_eq(n->m.v[k], m.v[k]);
	ck_assert_uint_eq(n->tasks, tasks);
}

static void check_rows(struct tree *t, enum metric metric, bool ascending)
{
	size_t n = flatten(t, 0, false, metric, ascending, want, 0);

	ck_assert_uint_eq(t->nshown, n);
	for (size_t i = 0; i < t->nview; i++) {
		uint32_t id = t->view[i];

		check_row(t, id, &want[t->top + i]);
		check_sums(t, id);
		/* its glyph says what shows */
		if (t->nodes[id].kids && want[t->top + i].node != TREE_NONE)
			ck_assert(t->nodes[id].expanded == shows[id]);
	}
	for (size_t i = 0; i < n; i++)
		check_row(t, tree_row(t, i), &want[i]);
	ck_assert_uint_eq(tree_row(t, n), TREE_NONE);
	ck_assert_uint_eq(t->nview,
	                  n - t->top < t->page ? n - t->top : t->page);
	if (n) {
		ck_assert_uint_lt(t->sel, n);
		ck_assert_uint_ge(t->sel, t->top);
		ck_assert_uint_lt(t->sel, t->top + t->page);
		ck_assert_uint_eq(want[t->sel].path, t->sel_path);
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
		enum metric metric = (enum metric)(tru_rnd(s) % METRIC_COUNT);
		bool ascending = tru_rnd(s) % 4 == 0;
		uint64_t path;
		bool reorder = op && tru_rnd(s) % 3 == 0;

		t->page = 1 + tru_rnd(s) % 12;
		pause_steps(a, t);
		ck_assert_int_eq(
		    tree_update(t, a->m, tru_shown(a), metric, ascending),
		    STATUS_OK);
		check_rows(t, metric, ascending);
		shown += t->nshown;
		path = t->sel_path;
		if (reorder) {
			/* another weighting: the selection keeps its path */
			metric = (enum metric)((metric + 1) % METRIC_COUNT);
			pause_steps(a, t);
			ck_assert_int_eq(tree_update(t, a->m, tru_shown(a),
			                             metric, !ascending),
			                 STATUS_OK);
			check_rows(t, metric, !ascending);
			ck_assert_uint_eq(t->sel_path, path);
			continue;
		}
		/* the flame lays out some frames of the same tree: only
		 * their callees a column wide, or all when they are few */
		if (tru_rnd(s) % 4 == 0 && t->n)
			ck_assert_int_eq(
			    tree_wide_children(t, (uint32_t)(tru_rnd(s) % t->n),
			                       metric, tru_rnd(s) % 6),
			    STATUS_OK);
		switch (tru_rnd(s) % 4) {
		case 0:
			tree_expand(t, tru_rnd(s) % 3 == 0);
			break;
		case 1:
			tree_collapse(t);
			break;
		default:
			tree_move(
			    t, (long)(tru_rnd(s) % (2 * (uint64_t)reach + 1)) -
			           reach);
			break;
		}
	}
	return shown;
}

/* Random trees, random keys, against the full flattening. */
static void random_trees(int i)
{
	uint64_t s = 0x9E3779B97F4A7C15u + (uint64_t)i;
	struct app a;
	struct tree t;
	size_t shown = 0, chains = 0;

	su_app(&a);
	tree_init(&t);
	for (int w = 0; w < 4; w++) {
		random_window(&a, &s, T0 + w * 5 * SEC, w % 2 == 0);
		t.page = 1 + tru_rnd(&s) % 12;
		ck_assert_int_eq(
		    tree_update(&t, a.m, model_latest(a.m), METRIC_BUSY, false),
		    STATUS_OK);
		check_rows(&t, METRIC_BUSY, false);
		/* a top frame of its own, closed: no row's frames made */
		if (w % 2 == 0 && t.n > 1 && !t.nodes[1].expanded) {
			ck_assert(!t.rows_known);
			chains++;
		}
		shown += random_keys(&a, &t, &s, 8);
	}
	/* the trees were not all trivial */
	ck_assert_uint_gt(shown, 40 * 4);
	ck_assert_uint_gt(chains, 0);
	tree_fini(&t);
	tru_shown_fini();
	app_fini(&a);
}

START_TEST(tree_walk_matches_full_flattening)
{
	random_trees(_i);
}
END_TEST

/* The same split by task name: a stack's rows side by side. */
START_TEST(tree_walk_split_by_name)
{
	tru_by_name = true;
	random_trees(_i);
}
END_TEST

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
	leafy_met = 0;
	for (int w = 0; w < 3; w++) {
		tru_wide_window(&a, &s, T0 + w * 5 * SEC);
		shown += random_keys(&a, &t, &s, 300);
	}
	ck_assert_uint_gt(shown, 40 * 3 * 3);
	ck_assert_uint_gt(leafy_met, 0);
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
	pause_steps(a, t);
	ck_assert_int_eq(tree_update(t, a->m, tru_shown(a), METRIC_BUSY, false),
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
	t.page = 1 + tru_rnd(&s) % 12;
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
		select_row(&t, tru_rnd(&s) % t.nshown);
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

/* tree_update for metric, then the rows against the full flattening;
 * returns the rows shown. */
static size_t update_check_by(struct app *a, struct tree *t, enum metric metric,
                              bool ascending)
{
	pause_steps(a, t);
	ck_assert_int_eq(tree_update(t, a->m, tru_shown(a), metric, ascending),
	                 STATUS_OK);
	check_rows(t, metric, ascending);
	return t->nshown;
}

/* Frames of a few hundred callees of one row each (leafy: nodes made only
 * for the rows a walk reaches, their order selected): * on a window just
 * arrived, End, a move up, collapse twice, a weighting key, +, the
 * flame's wide callees between, then a new window finds the selection
 * by its path among the rows when it is there. */
static void leafy_windows(int seed)
{
	uint64_t s = 0x94D049BB133111EBu + (uint64_t)seed;
	struct app a;
	struct tree t;
	enum metric metric = METRIC_BUSY;
	bool ascending = false;

	su_app(&a);
	tree_init(&t);
	leafy_met = 0;
	for (int w = 0; w < 4; w++) {
		uint64_t path = t.sel_path;
		size_t n;

		tru_wide_window(&a, &s, T0 + w * 5 * SEC);
		t.page = 1 + tru_rnd(&s) % 12;
		n = update_check_by(&a, &t, metric, ascending);
		/* the selection kept by its path where the window has it */
		for (size_t i = 0; w && i < n; i++)
			if (want[i].path == path)
				ck_assert_uint_eq(t.sel_path, path);
		select_row(&t, 0);
		tree_expand(&t, true);
		n = update_check_by(&a, &t, metric, ascending);
		select_row(&t, n - 1);
		(void)update_check_by(&a, &t, metric, ascending);
		tree_move(&t, -(long)(tru_rnd(&s) % 40));
		(void)update_check_by(&a, &t, metric, ascending);
		tree_collapse(&t);
		(void)update_check_by(&a, &t, metric, ascending);
		if (tru_rnd(&s) % 2 && t.n)
			ck_assert_int_eq(tree_wide_children(
			                     &t, (uint32_t)(tru_rnd(&s) % t.n),
			                     metric, tru_rnd(&s) % 6),
			                 STATUS_OK);
		tree_collapse(&t);
		(void)update_check_by(&a, &t, metric, ascending);
		metric = (enum metric)((metric + 1) % METRIC_COUNT);
		ascending = tru_rnd(&s) % 3 == 0;
		(void)update_check_by(&a, &t, metric, ascending);
		tree_expand(&t, false);
		n = update_check_by(&a, &t, metric, ascending);
		/* a leaf selected, mostly, for the next window */
		select_row(&t, tru_rnd(&s) % n);
		(void)update_check_by(&a, &t, metric, ascending);
	}
	ck_assert_uint_gt(leafy_met, 0);
	tree_fini(&t);
	tru_shown_fini();
	app_fini(&a);
}

START_TEST(tree_walk_leafy_new_window)
{
	leafy_windows(_i);
}
END_TEST

/* The same split by task name: a leafy frame's callees are its stacks,
 * some of several rows. */
START_TEST(tree_walk_leafy_split_by_name)
{
	tru_by_name = true;
	leafy_named = 0;
	leafy_windows(_i);
	ck_assert_uint_gt(leafy_named, 0);
}
END_TEST

/* The tests above with the viewer's steps of the rows between keys, split
 * by name or not. */
START_TEST(tree_walk_steps_between_keys)
{
	stepping = true;
	step_rnd += (uint64_t)_i;
	tru_by_name = _i % 2;
	if (_i % 4 < 2)
		random_trees(_i);
	else
		leafy_windows(_i);
}
END_TEST

Suite *suite_tree_walk(void);
Suite *suite_tree_walk(void)
{
	Suite *s = suite_create("tree_walk");
	TCase *tc = tcase_create("tree_walk");

	tcase_set_timeout(tc, 60);
	tcase_add_loop_test(tc, tree_walk_matches_full_flattening, 0,
	                    TU_PROP_RUNS(50));
	tcase_add_loop_test(tc, tree_walk_expand_all_then_change, 0,
	                    TU_PROP_RUNS(50));
	tcase_add_loop_test(tc, tree_walk_many_callees, 0, TU_PROP_RUNS(20));
	tcase_add_loop_test(tc, tree_walk_leafy_new_window, 0,
	                    TU_PROP_RUNS(40));
	tcase_add_loop_test(tc, tree_walk_split_by_name, 0, TU_PROP_RUNS(50));
	tcase_add_loop_test(tc, tree_walk_leafy_split_by_name, 0,
	                    TU_PROP_RUNS(40));
	tcase_add_loop_test(tc, tree_walk_steps_between_keys, 0,
	                    TU_PROP_RUNS(40));
	suite_add_tcase(s, tc);
	return s;
}
