/* The filter's index built between keys (app_idle): wanted while the
 * filter's prompt is open and the shown window's index is not whole, or
 * before any '/' for a window of idle_filter_rows rows or more once
 * nothing else is left to make, done in steps that end, and the keys after
 * them show exactly the screen of a viewer that had no moment between
 * keys, on the first window and on one that came while the prompt was
 * open or half-way through the build; '/' and keys pasted after the index
 * was made search it and scan nothing; a window that came filtered sorted
 * whole between keys, for a key erased; and keys pasted at once (no
 * screen between them) filtered once, for the text they leave, into the
 * rows and screens of the same keys typed one at a time.  Over random
 * windows and keys too, against the plain matcher. */
#include <check.h>
#include <stdio.h>
#include <string.h>

#include "model/buf.h"
#include "tests/screen_util.h"
#include "tests/view_util.h"
#include "tui/app.h"
#include "tui/view_search.h"

#define NROWS 60

static char leaf[2][NROWS][32];
static struct su_row rows[2][NROWS];

/* Window k's rows: "main", "leaf_<k>_<i>", task "t<i % 7>". */
static void make_rows(void)
{
	static const char *const task[] = { "t0", "t1", "t2", "t3",
		                            "t4", "t5", "t6" };

	for (size_t k = 0; k < 2; k++) {
		for (size_t i = 0; i < NROWS; i++) {
			struct su_row *r = &rows[k][i];

			snprintf(leaf[k][i], sizeof(leaf[k][i]), "leaf_%zu_%zu",
			         k, i);
			memset(r, 0, sizeof(*r));
			r->frames[0] = "main";
			r->frames[1] = leaf[k][i];
			r->task = task[i % 7];
			r->v[METRIC_IDLE] = 1000 + 37 * i % 101;
			r->v[METRIC_BUSY] = 10 + i;
			r->tasks = 1;
		}
	}
}

/* a and b show the same screen and rows. */
static void same_screens(struct app *a, struct app *b)
{
	struct buf sa, sb;

	buf_init(&sa);
	buf_init(&sb);
	su_screen(a, 80, 24, &sa);
	su_screen(b, 80, 24, &sb);
	ck_assert_str_eq(buf_cstr(&sa), buf_cstr(&sb));
	ck_assert_uint_eq(a->v.order.n, b->v.order.n);
	buf_fini(&sa);
	buf_fini(&sb);
}

/* The key k to a and b, then their screens compared. */
static void key_both(struct app *a, struct app *b, int k)
{
	app_key(a, k);
	app_key(b, k);
	same_screens(a, b);
}

/* Types s into a and b, their screens compared after each key. */
static void type_both(struct app *a, struct app *b, const char *s)
{
	for (; *s; s++)
		key_both(a, b, (unsigned char)*s);
}

START_TEST(filter_idle_between_slash_and_key)
{
	struct app a, b; /* a works between keys, b never does */

	make_rows();
	su_app(&a);
	su_app(&b);
	su_commit(&a, rows[0], NROWS, T0);
	su_commit(&b, rows[0], NROWS, T0);
	/* nothing to do before the prompt opens */
	ck_assert(!app_idle_pending(&a));
	key_both(&a, &b, '/');
	ck_assert(app_idle_pending(&a));
	/* the sort, then the rows */
	ck_assert_uint_ge(su_idle_all(&a, 4999), 2);
	type_both(&a, &b, "LEAF_0_1");
	ck_assert_uint_eq(a.v.order.n, 11); /* 1, 10 .. 19 */
	ck_assert(!app_idle_pending(&a));
	for (int i = 0; i < 3; i++)
		key_both(&a, &b, KC_BACKSPACE);
	ck_assert_uint_eq(a.v.order.n, NROWS);
	/* Esc closes the prompt: nothing wanted, even on a new window */
	key_both(&a, &b, KC_ESC);
	su_commit(&a, rows[1], NROWS, T0 + 5 * SEC);
	su_commit(&b, rows[1], NROWS, T0 + 5 * SEC);
	ck_assert(!app_idle_pending(&a));
	/* a window comes while the prompt is open, its index in part */
	key_both(&a, &b, '/');
	ck_assert(app_idle_pending(&a));
	app_idle(&a);
	su_commit(&a, rows[0], NROWS, T0 + 10 * SEC);
	su_commit(&b, rows[0], NROWS, T0 + 10 * SEC);
	ck_assert(app_idle_pending(&a));
	ck_assert_uint_ge(su_idle_all(&a, 4999), 1);
	type_both(&a, &b, "t3");
	ck_assert_uint_eq(a.v.order.n, 9); /* i % 7 == 3 below 60 */
	key_both(&a, &b, KC_ENTER);
	ck_assert(!a.editing);
	ck_assert(!app_idle_pending(&a));
	app_fini(&a);
	app_fini(&b);
}
END_TEST

/* A window that comes while a filter is on has only its hits sorted: the
 * steps between keys sort it whole, and a key erased then picks the wider
 * filter's rows out of that order; whether the steps finished or not, the
 * screens are those of a viewer that had no moment between keys. */
START_TEST(filtered_window_sorted_between_keys)
{
	struct app a, b; /* a works between keys, b never does */

	make_rows();
	su_app(&a);
	su_app(&b);
	a.idle_rows = 7; /* several steps for 60 rows */
	su_commit(&a, rows[0], NROWS, T0);
	su_commit(&b, rows[0], NROWS, T0);
	key_both(&a, &b, '/');
	type_both(&a, &b, "leaf_1_1");
	key_both(&a, &b, KC_ENTER);
	ck_assert_uint_eq(a.v.order.n, 0);
	su_idle_all(&a, 4999);
	/* the next window comes filtered: its hits sorted, not the rest */
	su_commit(&a, rows[1], NROWS, T0 + 5 * SEC);
	su_commit(&b, rows[1], NROWS, T0 + 5 * SEC);
	same_screens(&a, &b);
	ck_assert_uint_eq(a.v.order.n, 11); /* 1, 10 .. 19 */
	ck_assert(!view_has_order(&a.v, app_shown(&a)));
	ck_assert(app_idle_pending(&a));
	ck_assert_uint_ge(su_idle_all(&a, 4999), 2);
	ck_assert(view_has_order(&a.v, app_shown(&a)));
	key_both(&a, &b, '/');
	for (int i = 0; i < 3; i++)
		key_both(&a, &b, KC_BACKSPACE);
	ck_assert_uint_eq(a.v.order.n, NROWS); /* "leaf_" */
	key_both(&a, &b, '1');
	key_both(&a, &b, KC_ENTER);
	/* another window, a key erased before the steps finished */
	su_commit(&a, rows[0], NROWS, T0 + 10 * SEC);
	su_commit(&b, rows[0], NROWS, T0 + 10 * SEC);
	same_screens(&a, &b);
	ck_assert_uint_eq(a.v.order.n, 0); /* "leaf_1" in window 0 */
	app_idle(&a);
	ck_assert(!view_has_order(&a.v, app_shown(&a)));
	key_both(&a, &b, '/');
	key_both(&a, &b, KC_BACKSPACE);
	ck_assert_uint_eq(a.v.order.n, NROWS);
	/* the key's sort is the view's own: nothing is left to make */
	su_idle_all(&a, 4999);
	ck_assert(view_has_order(&a.v, app_shown(&a)));
	key_both(&a, &b, KC_ESC);
	app_fini(&a);
	app_fini(&b);
}
END_TEST

/* Keys pasted after '/' into a: each read only at the end (a render, or
 * a key that is not typed into the prompt); b gets them one at a time,
 * its screen drawn after each. */
static void paste(struct app *a, struct app *b, const char *s)
{
	struct buf out;

	buf_init(&out);
	for (; *s; s++) {
		int k = *s == '\b' ? KC_BACKSPACE : (unsigned char)*s;

		ck_assert_uint_eq(app_key(a, k), APP_REDRAW);
		ck_assert_uint_eq(app_key(b, k), APP_REDRAW);
		su_screen(b, 80, 24, &out);
	}
	buf_fini(&out);
}

START_TEST(filter_pasted_keys_once)
{
	struct app a, b;

	make_rows();
	su_app(&a);
	su_app(&b);
	su_commit(&a, rows[0], NROWS, T0);
	su_commit(&b, rows[0], NROWS, T0);
	ck_assert_uint_eq(app_key(&a, '/'), APP_REDRAW);
	ck_assert_uint_eq(app_key(&b, '/'), APP_REDRAW);
	paste(&a, &b, "LEAF_0_1");
	/* not filtered yet: read, it is */
	ck_assert_uint_eq(a.v.order.n, NROWS);
	ck_assert_uint_eq(app_view(&a)->order.n, 11); /* 1, 10 .. 19 */
	same_screens(&a, &b);
	/* erased and typed, then Enter: the rows of the text kept */
	paste(&a, &b, "\b\b\bt3\b\b0_59");
	ck_assert_uint_eq(app_key(&a, KC_ENTER), APP_REDRAW);
	ck_assert_uint_eq(app_key(&b, KC_ENTER), APP_REDRAW);
	ck_assert(!a.editing);
	ck_assert_uint_eq(a.v.order.n, 1); /* 59 */
	same_screens(&a, &b);
	/* pasted on a new window, then read by a render */
	key_both(&a, &b, '/');
	su_commit(&a, rows[1], NROWS, T0 + 5 * SEC);
	su_commit(&b, rows[1], NROWS, T0 + 5 * SEC);
	paste(&a, &b, "\b\b\b\b1_2");
	same_screens(&a, &b);
	ck_assert_uint_eq(a.v.order.n, 11); /* 2, 20 .. 29 */
	key_both(&a, &b, KC_ESC);
	ck_assert_uint_eq(a.v.order.n, NROWS);
	app_fini(&a);
	app_fini(&b);
}
END_TEST

/* The shown window's filter index is whole. */
static bool built(const struct app *a)
{
	const struct window *w = app_shown(a);

	return w && a->v.ix && view_index_current(a->v.ix, a->m, w);
}

/* The shown window was read by a scan without the index. */
static bool scanned(const struct app *a)
{
	const struct window *w = app_shown(a);

	return w && a->v.ix && view_index_scanned(a->v.ix, a->m, w);
}

/* '/' then s pasted into a and b (no screen between the keys), read by
 * a's screen: the same screens. */
static void slash_paste(struct app *a, struct app *b, const char *s)
{
	ck_assert_uint_eq(app_key(a, '/'), APP_REDRAW);
	ck_assert_uint_eq(app_key(b, '/'), APP_REDRAW);
	for (; *s; s++) {
		int k = *s == '\b' ? KC_BACKSPACE : (unsigned char)*s;

		ck_assert_uint_eq(app_key(a, k), APP_REDRAW);
		ck_assert_uint_eq(app_key(b, k), APP_REDRAW);
	}
	same_screens(a, b);
}

START_TEST(filter_index_before_slash)
{
	struct app a, b; /* a works between keys, b never does */

	make_rows();
	su_app(&a);
	su_app(&b);
	a.idle_filter_rows = NROWS; /* a window of NROWS is large enough */
	su_commit(&a, rows[0], NROWS - 1, T0);
	su_commit(&b, rows[0], NROWS - 1, T0);
	/* too small: nothing to make before '/' */
	ck_assert(!app_idle_pending(&a));
	su_commit(&a, rows[0], NROWS, T0 + 5 * SEC);
	su_commit(&b, rows[0], NROWS, T0 + 5 * SEC);
	ck_assert(app_idle_pending(&a));
	ck_assert_uint_ge(su_idle_all(&a, 4999),
	                  2); /* the sort, then the rows */
	ck_assert(built(&a));
	/* '/' and a word at once search the index made before '/' */
	slash_paste(&a, &b, "LEAF_0_1");
	ck_assert_uint_eq(a.v.order.n, 11); /* 1, 10 .. 19 */
	ck_assert(!scanned(&a));
	ck_assert(scanned(&b));
	key_both(&a, &b, KC_ESC);
	/* a window half-way through its build (sorted, no row mapped), then
	 * another: the build starts again for it */
	su_commit(&a, rows[1], NROWS, T0 + 10 * SEC);
	su_commit(&b, rows[1], NROWS, T0 + 10 * SEC);
	app_idle(&a);
	ck_assert(!built(&a));
	su_commit(&a, rows[0], NROWS, T0 + 15 * SEC);
	su_commit(&b, rows[0], NROWS, T0 + 15 * SEC);
	ck_assert(app_idle_pending(&a));
	ck_assert_uint_ge(su_idle_all(&a, 4999), 2);
	ck_assert(built(&a));
	slash_paste(&a, &b, "t3");
	ck_assert_uint_eq(a.v.order.n, 9); /* i % 7 == 3 below 60 */
	ck_assert(!scanned(&a));
	key_both(&a, &b, KC_ENTER);
	key_both(&a, &b, KC_ESC);
	/* the tree's rows are made first, the index after them */
	a.idle_rows = 7;
	su_commit(&a, rows[1], NROWS, T0 + 20 * SEC);
	su_commit(&b, rows[1], NROWS, T0 + 20 * SEC);
	key_both(&a, &b, 't');
	ck_assert(app_idle_pending(&a));
	while (tree_rows_wanted(&a.tree, a.m, app_shown(&a))) {
		ck_assert(!a.v.ix ||
		          !view_index_building(a.v.ix, a.m, app_shown(&a)));
		app_idle(&a);
	}
	ck_assert(!built(&a));
	ck_assert_uint_ge(su_idle_all(&a, 4999), 2);
	ck_assert(built(&a));
	key_both(&a, &b, KC_ESC);
	slash_paste(&a, &b, "leaf_1_5\b2");
	ck_assert(!scanned(&a));
	ck_assert_uint_eq(a.v.order.n, 11); /* 2, 20 .. 29 */
	app_fini(&a);
	app_fini(&b);
}
END_TEST

/* A step between keys; whether the shown window's index is then begun
 * and not whole. */
static bool step_building(struct app *a)
{
	const struct window *w;

	app_idle(a);
	w = app_shown(a);
	return w && !built(a) && a->v.ix &&
	       view_index_building(a->v.ix, a->m, w);
}

static uint64_t rnd(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

/* Random windows and keys: a works between keys (a few steps, or all),
 * b never does; their screens are the same after every key read, the
 * rows those of view_row_matches, and a key after an index made before
 * '/' scans nothing.  Windows of 1 .. NROWS rows drawn from two pools
 * (stacks churn), the large enough ones indexed before '/', a window
 * arriving half-way through a build, the grouping split by name and the
 * tree (whose work comes first) among the keys. */
START_TEST(filter_before_slash_random)
{
	static const char keys[] = "leaf_0123t\b\b";
	uint64_t x = 0x6A09E667F3BCC909u + (uint64_t)_i * 7919u;
	struct su_row pick[NROWS];
	size_t before = 0, partial = 0;
	struct app a, b;

	make_rows();
	su_app(&a);
	su_app(&b);
	a.idle_filter_rows = 1 + rnd(&x) % 20;
	for (int ev = 0; ev < 100; ev++) {
		size_t r = rnd(&x) % 10;

		if (r < 3) {
			size_t n = 1 + rnd(&x) % NROWS;

			for (size_t i = 0; i < n; i++)
				pick[i] = rows[rnd(&x) % 2][rnd(&x) % NROWS];
			su_commit(&a, pick, n, T0 + ev * 5 * SEC);
			su_commit(&b, pick, n, T0 + ev * 5 * SEC);
			same_screens(&a, &b);
			/* a step, then maybe another window at once */
			if (rnd(&x) % 2 && app_idle_pending(&a))
				partial += step_building(&a);
		} else if (r < 6) {
			/* a few steps, or all of them */
			size_t steps = 1 + rnd(&x) % 3;

			a.idle_rows = 1 + rnd(&x) % 24;
			if (rnd(&x) % 3 == 0) {
				su_idle_all(&a, 4999);
				if (!a.editing && app_shown(&a) &&
				    app_shown(&a)->nrows >= a.idle_filter_rows)
					ck_assert(built(&a));
			}
			for (size_t i = 0; i < steps && app_idle_pending(&a);
			     i++)
				partial += step_building(&a);
		} else if (r < 8 && !a.editing) {
			char w[8];
			size_t len = 1 + rnd(&x) % 6;
			bool was = built(&a), scan = scanned(&a);

			for (size_t i = 0; i < len; i++)
				w[i] = keys[rnd(&x) % (sizeof(keys) - 1)];
			w[len] = '\0';
			slash_paste(&a, &b, w);
			if (a.v.w)
				(void)vu_check_rows(&a.v);
			/* no new scan: the index made before '/' */
			if (was && a.v.filter_len) {
				ck_assert_int_eq(scanned(&a), scan);
				before++;
			}
		} else if (r < 8) {
			key_both(
			    &a, &b,
			    (unsigned char)keys[rnd(&x) % (sizeof(keys) - 1)]);
			if (app_view(&a)->w)
				(void)vu_check_rows(app_view(&a));
		} else if (a.editing || a.v.filter_len) {
			/* Esc ends the filter (and, in the table, its text) */
			key_both(&a, &b, rnd(&x) % 4 ? KC_ESC : KC_ENTER);
		} else {
			static const int other[] = { 'n', 't', KC_ESC, ' ',
				                     'L' };

			key_both(&a, &b, other[rnd(&x) % 5]);
		}
	}
	/* the paths this test is for, taken */
	ck_assert_uint_gt(before, 0);
	ck_assert_uint_gt(partial, 0);
	app_fini(&a);
	app_fini(&b);
}
END_TEST

Suite *suite_view_filter_idle(void);
Suite *suite_view_filter_idle(void)
{
	Suite *s = suite_create("view_filter_idle");
	TCase *tc = tcase_create("idle");

	tcase_add_test(tc, filter_idle_between_slash_and_key);
	tcase_add_test(tc, filtered_window_sorted_between_keys);
	tcase_add_test(tc, filter_pasted_keys_once);
	tcase_add_test(tc, filter_index_before_slash);
	tcase_add_loop_test(tc, filter_before_slash_random, 0, 6);
	suite_add_tcase(s, tc);
	return s;
}
