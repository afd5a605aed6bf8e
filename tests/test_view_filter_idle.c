/* The filter's index built between keys (app_idle): wanted only while the
 * filter's prompt is open and the shown window's index is not whole, done
 * in steps that end, and the keys after them show exactly the screen of a
 * viewer that had no moment between keys, on the first window and on one
 * that came while the prompt was open; a window that came filtered
 * sorted whole between keys, for a key erased; and keys pasted at once
 * (no screen between them) filtered once, for the text they leave, into
 * the rows and screens of the same keys typed one at a time. */
#include <check.h>
#include <stdio.h>
#include <string.h>

#include "model/buf.h"
#include "tests/screen_util.h"
#include "tui/app.h"

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

/* Steps between keys until none is wanted; how many it took. */
static size_t idle_all(struct app *a)
{
	size_t n = 0;

	while (app_idle_pending(a)) {
		app_idle(a);
		ck_assert_uint_lt(++n, 100);
	}
	return n;
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
	ck_assert_uint_ge(idle_all(&a), 2);
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
	ck_assert_uint_ge(idle_all(&a), 1);
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
	idle_all(&a);
	/* the next window comes filtered: its hits sorted, not the rest */
	su_commit(&a, rows[1], NROWS, T0 + 5 * SEC);
	su_commit(&b, rows[1], NROWS, T0 + 5 * SEC);
	same_screens(&a, &b);
	ck_assert_uint_eq(a.v.order.n, 11); /* 1, 10 .. 19 */
	ck_assert(!view_has_order(&a.v, app_shown(&a)));
	ck_assert(app_idle_pending(&a));
	ck_assert_uint_ge(idle_all(&a), 2);
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
	idle_all(&a);
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

Suite *suite_view_filter_idle(void);
Suite *suite_view_filter_idle(void)
{
	Suite *s = suite_create("view_filter_idle");
	TCase *tc = tcase_create("idle");

	tcase_add_test(tc, filter_idle_between_slash_and_key);
	tcase_add_test(tc, filtered_window_sorted_between_keys);
	tcase_add_test(tc, filter_pasted_keys_once);
	suite_add_tcase(s, tc);
	return s;
}
