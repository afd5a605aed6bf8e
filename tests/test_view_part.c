/* The table's order put in place in part (tui/view.c, model/order.c): a
 * key that finds no full order at hand sorts only the positions about the
 * selection's page.  order_range and order_rank give order_build's
 * positions, ties included, for keys wide, narrow, equal and skewed; a
 * view without a filter shows, after any move, weighting, new window or
 * full order adopted, exactly what a view that sorts all shows (the same
 * rows through a filter every row matches); and in the viewer, over random
 * keys with idle steps before, between and after them and windows arriving
 * mid-way, the page, the selection and the row count are the full sort's. */
#include <check.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/model.h"
#include "model/order.h"
#include "tests/screen_util.h"
#include "tests/view_util.h"
#include "tui/app.h"
#include "tui/keymap.h"
#include "tui/view.h"

static uint64_t next(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

/* A value of distribution d: wide, a few (ties), all equal, mostly 0. */
static uint64_t value(uint64_t *x, unsigned d)
{
	uint64_t r = next(x);

	switch (d % 4) {
	case 0:
		return r % 5000000000u;
	case 1:
		return 1000 * (r % 4);
	case 2:
		return 7;
	default:
		return r % 10 ? 0 : r % 100000;
	}
}

/* n rows "main;lI" (as vu_commit makes them), idle of distribution d
 * and busy of d + 1, leaves shifted by shift (another window shares
 * most of them). */
static const struct window *commit_n(struct model *m, uint64_t *x, size_t n,
                                     unsigned d, size_t shift)
{
	static char names[2048][8];
	static const char *leaf[2048];
	static uint64_t idle[2048], busy[2048];

	ck_assert_uint_le(n, 2048);
	for (size_t i = 0; i < n; i++) {
		snprintf(names[i], sizeof(names[i]), "l%zu", i + shift);
		leaf[i] = names[i];
		idle[i] = value(x, d);
		busy[i] = value(x, d + 1);
	}
	return vu_commit(m, leaf, idle, busy, n);
}

START_TEST(range_and_rank_are_the_sort)
{
	struct model *m;
	struct order o, ref;
	uint64_t x = 0x2545F4914F6CDD1Du;
	size_t in_part = 0;

	ck_assert_int_eq(model_new(NULL, &m), STATUS_OK);
	order_init(&o);
	order_init(&ref);
	for (unsigned d = 0; d < 4; d++) {
		size_t n = 300 + next(&x) % 1700;
		const struct window *w = commit_n(m, &x, n, d, 0);

		for (int k = 0; k < 2; k++) {
			for (int desc = 0; desc < 2; desc++) {
				enum metric key = k ? METRIC_BUSY : METRIC_IDLE;

				ck_assert_int_eq(
				    order_build(&ref, w, key, desc, NULL, NULL),
				    STATUS_OK);
				ck_assert_int_eq(order_keys(&o, w, key, desc),
				                 STATUS_OK);
				ck_assert_uint_eq(o.n, n);
				for (int t = 0; t < 20; t++) {
					size_t lo = next(&x) % n, from = 0, to;
					size_t hi = lo + 1 + next(&x) % 64;

					hi = hi < n ? hi : n;
					to = order_range(&o, lo, hi, &from);
					if (!to)
						continue;
					in_part++;
					ck_assert_uint_le(from, lo);
					ck_assert_uint_ge(to, hi);
					ck_assert_uint_le(to - from, n / 4);
					for (size_t i = from; i < to; i++)
						ck_assert_uint_eq(o.idx[i],
						                  ref.idx[i]);
				}
				for (size_t i = 0; i < n; i += 1 + n / 50)
					ck_assert_uint_eq(
					    order_rank(&o, ref.idx[i]), i);
			}
		}
	}
	/* the wide and narrow keys were selected, not all sorted */
	ck_assert_uint_gt(in_part, 40);
	order_fini(&o);
	order_fini(&ref);
	model_free(m);
}
END_TEST

/* v (no filter: sorted in part) shows what f (a filter every row
 * matches: sorted whole) shows. */
static void same_views(const struct view *v, const struct view *f)
{
	size_t n = v->order.n, end;

	ck_assert_uint_eq(n, f->order.n);
	ck_assert_uint_eq(v->sel, f->sel);
	ck_assert_uint_eq(v->top, f->top);
	if (!n)
		return;
	ck_assert_uint_eq(v->sel_stack, f->sel_stack);
	end = v->top + v->page < n ? v->top + v->page : n;
	ck_assert_uint_le(v->in_lo, v->top);
	ck_assert_uint_ge(v->in_hi, end);
	for (size_t pos = v->top; pos < end; pos++)
		ck_assert_uint_eq(view_row_at(v, pos), view_row_at(f, pos));
}

START_TEST(a_view_in_part_shows_the_full_sort)
{
	struct model *m;
	struct view v, f;
	struct order o;
	const struct window *w;
	uint64_t x = 0x9E3779B97F4A7C15u;
	size_t parts = 0;

	ck_assert_int_eq(model_new(NULL, &m), STATUS_OK);
	view_init(&v, METRIC_IDLE);
	view_init(&f, METRIC_IDLE);
	order_init(&o);
	vu_set_filter(&f, "main");
	w = commit_n(m, &x, 1500, 0, 0);
	ck_assert_int_eq(view_build(&v, m, w), STATUS_OK);
	ck_assert_int_eq(view_build(&f, m, w), STATUS_OK);
	for (int round = 0; round < 400; round++) {
		long page = (long)v.page, d = (long)(next(&x) % 3000);
		unsigned op = (unsigned)(next(&x) % 10);

		switch (op) {
		case 0: /* a move of a row or a page, either way */
		case 1:
			d = next(&x) % 2 ? page : 1;
			d = next(&x) % 2 ? d : -d;
			view_move(&v, d);
			view_move(&f, d);
			break;
		case 2: /* End, or a click anywhere */
			if (next(&x) % 3 == 0)
				d = 0;
			view_select(&v, d ? (size_t)d : v.order.n - 1);
			view_select(&f, d ? (size_t)d : f.order.n - 1);
			break;
		case 3: /* the wheel */
			d = next(&x) % 2 ? d % 200 : -(d % 200);
			view_scroll(&v, d);
			view_scroll(&f, d);
			break;
		case 4: /* the terminal resized */
			view_set_page(&v, 1 + next(&x) % 60);
			view_set_page(&f, v.page);
			break;
		case 5: /* a weighting key, or I */
			if (next(&x) % 3)
				v.metric = v.metric == METRIC_IDLE
				               ? METRIC_BUSY
				               : METRIC_IDLE;
			else
				v.ascending = !v.ascending;
			f.metric = v.metric;
			f.ascending = v.ascending;
			ck_assert_int_eq(view_build(&v, m, w), STATUS_OK);
			ck_assert_int_eq(view_build(&f, m, w), STATUS_OK);
			break;
		case 6: /* a new window, its rows shifted, sizes and ties */
			w = commit_n(m, &x, 260 + next(&x) % 1700,
			             (unsigned)(next(&x) % 4), next(&x) % 300);
			ck_assert_int_eq(view_build(&v, m, w), STATUS_OK);
			ck_assert_int_eq(view_build(&f, m, w), STATUS_OK);
			break;
		case 7: /* the full order made between keys, adopted */
			ck_assert_int_eq(order_build(&o, w, v.metric,
			                             !v.ascending, NULL, NULL),
			                 STATUS_OK);
			view_adopt_order(&v, w, &o);
			ck_assert(!view_partial(&v, w));
			break;
		default: /* the same window again */
			ck_assert_int_eq(view_build(&v, m, w), STATUS_OK);
			ck_assert_int_eq(view_build(&f, m, w), STATUS_OK);
			break;
		}
		parts += view_partial(&v, w);
		same_views(&v, &f);
	}
	ck_assert_uint_gt(parts, 50);
	view_complete(&v);
	ck_assert(!view_partial(&v, w));
	same_views(&v, &f);
	order_fini(&o);
	view_fini(&f);
	vu_close(m, &v);
}
END_TEST

/* A window of n stacks of 2 or 3 frames out of a few, a task name out of
 * three, each parked at one of a few stacks; values with ties. */
static void commit_app(struct app *a, uint64_t *x, size_t n, int64_t start)
{
	static const char *const names[] = { "worker", "fetch", "retry" };
	static const char *const waits[] = { "asyncio:sleep:1", "lock:acq:2",
		                             "queue:get:3", "io:read:4" };
	struct sample *s = calloc(n, sizeof(*s));
	struct strview *f = calloc(3 * n, sizeof(*f));
	struct strview *pk = calloc(n, sizeof(*pk));
	char(*leaf)[24] = calloc(n, sizeof(*leaf));
	struct window_meta meta = { .time_nanos = start,
		                    .duration_nanos = 5 * SEC };
	unsigned d = (unsigned)(next(x) % 4);

	ck_assert(s && f && pk && leaf);
	for (size_t i = 0; i < n; i++) {
		size_t depth = 2 + next(x) % 2;

		snprintf(leaf[i], sizeof(leaf[i]), "h:%zu", next(x) % (2 * n));
		f[3 * i] = sv_c("app:main:1");
		f[3 * i + 1] = sv_c(next(x) % 2 ? "pool:run:7" : "db:q:2");
		f[3 * i + depth - 1] = sv_c(leaf[i]);
		pk[i] = sv_c(waits[next(x) % 4]);
		s[i].frames = f + 3 * i;
		s[i].depth = depth;
		s[i].task = sv_c(names[next(x) % 3]);
		s[i].tasks = 1 + next(x) % 3;
		s[i].parked = pk + i;
		s[i].parked_depth = 1;
		for (int k = 0; k < METRIC_COUNT; k++)
			s[i].m.v[k] = value(x, d + (unsigned)k) + 1;
	}
	ck_assert_int_eq(app_commit(a, s, n, &meta), STATUS_OK);
	free(s);
	free(f);
	free(pk);
	free(leaf);
}

/* The table's page, selection and row count are the full sort's. */
static bool check_page(struct app *a)
{
	const struct window *w = app_shown(a);
	const struct view *v = &a->v;
	struct order ref;
	size_t end;
	bool part;

	if (a->body != APP_BODY_TABLE || !w || w->empty || v->filter_len)
		return false;
	order_init(&ref);
	ck_assert_int_eq(
	    order_build(&ref, w, v->metric, !v->ascending, NULL, NULL),
	    STATUS_OK);
	ck_assert_uint_eq(v->order.n, ref.n);
	ck_assert_uint_lt(v->sel, ref.n);
	end = v->top + v->page < ref.n ? v->top + v->page : ref.n;
	for (size_t pos = v->top; pos < end; pos++)
		ck_assert_uint_eq(view_row_at(v, pos), ref.idx[pos]);
	ck_assert_uint_eq(view_row_at(v, v->sel), ref.idx[v->sel]);
	part = view_partial(v, w);
	order_fini(&ref);
	return part;
}

START_TEST(keys_before_during_and_after_the_steps)
{
	static const int keys[] = {
		'1',   '2',    '5',     'I',     'a',    'n',     '=',
		't',   KC_ESC, KC_PGDN, KC_PGUP, KC_END, KC_HOME, KC_DOWN,
		KC_UP, '[',    ']',     'L',     KC_ESC, KC_PGDN
	};
	struct app a;
	struct screen scr;
	uint64_t x = 0xD1B54A32D192ED03u;
	size_t parts = 0, finished = 0;

	su_app(&a);
	ck_assert_int_eq(screen_init(&scr, 80, 24), STATUS_OK);
	commit_app(&a, &x, 1200, T0);
	for (int round = 0; round < 500; round++) {
		int key = keys[next(&x) % (sizeof(keys) / sizeof(keys[0]))];
		bool was = view_partial(&a.v, app_shown(&a));

		a.idle_rows = 1 + next(&x) % 600;
		/* the operator's pause: none, a few steps, or all of them;
		 * now and then a window arriving mid-way */
		for (size_t i = next(&x) % 3 ? next(&x) % 6 : 1000;
		     i > 0 && app_idle_pending(&a); i--) {
			app_idle(&a);
			if (next(&x) % 40 == 0)
				commit_app(&a, &x, 300 + next(&x) % 1500,
				           T0 + round * 5 * SEC);
		}
		finished += was && !view_partial(&a.v, app_shown(&a));
		(void)app_key(&a, key);
		ck_assert_int_eq(app_render(&a, &scr), STATUS_OK);
		parts += check_page(&a);
	}
	/* keys answered in part, and the steps finished such sorts */
	ck_assert_uint_gt(parts, 20);
	ck_assert_uint_gt(finished, 5);
	screen_fini(&scr);
	app_fini(&a);
}
END_TEST

Suite *suite_view_part(void);
Suite *suite_view_part(void)
{
	Suite *s = suite_create("view_part");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, range_and_rank_are_the_sort);
	tcase_add_test(tc, a_view_in_part_shows_the_full_sort);
	tcase_add_test(tc, keys_before_during_and_after_the_steps);
	suite_add_tcase(s, tc);
	return s;
}
