/* The table's order made between keys (tui/table_sort.c, tui/app_idle.c)
 * against the full sort: steps of any size give order_build's order, ties
 * included, in all five weightings both ways, with another window or
 * weighting begun mid-way; and in the viewer, on random windows and keys
 * with idle steps between them and windows arriving mid-way, the table
 * shows exactly the full sort, and the idle work, once it has nothing
 * left, has made what going back to the table needs. */
#include <check.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "model/alloc.h"
#include "model/model.h"
#include "model/order.h"
#include "tests/model_util.h"
#include "tests/screen_util.h"
#include "tests/util.h"
#include "tui/app.h"
#include "tui/keymap.h"
#include "tui/table_sort.h"

static uint64_t next(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

/* A window of n stacks out of 3n / 2, each weighting's values out of a
 * few (ties) spread over one to five bytes (one to five radix passes). */
static const struct window *commit_many(struct model *m, uint64_t *x, size_t n)
{
	const struct window *w = NULL;
	struct window_meta meta = { .duration_nanos = 1000000000 };

	ck_assert_int_eq(model_begin(m), STATUS_OK);
	for (size_t i = 0; i < n; i++) {
		char st[64];
		struct metrics v;

		snprintf(st, sizeof(st), "app:main:1;mod_%u:h:%u",
		         (unsigned)(next(x) % 7),
		         (unsigned)(next(x) % (3 * n / 2 + 1)));
		for (int k = 0; k < METRIC_COUNT; k++)
			v.v[k] = (next(x) % 5) << (8 * k) | next(x) % 3;
		ck_assert_int_eq(tm_add_m(m, st, "w", v, 1), STATUS_OK);
	}
	ck_assert_int_eq(model_commit(m, &meta, &w), STATUS_OK);
	return w;
}

static void same_order(const struct order *o, const struct order *ref)
{
	ck_assert_uint_eq(o->n, ref->n);
	ck_assert_int_eq(o->key, ref->key);
	ck_assert_int_eq(o->descending, ref->descending);
	for (size_t i = 0; i < ref->n; i++)
		ck_assert_uint_eq(o->idx[i], ref->idx[i]);
}

/* Steps of budget rows on w until done; how many steps it took. */
static size_t sort_all(struct table_sort *t, const struct window *w,
                       enum metric key, bool desc, size_t budget)
{
	size_t steps = 0;
	bool done = false;

	while (!done) {
		ck_assert_int_eq(
		    table_sort_step(t, w, key, desc, budget, &done), STATUS_OK);
		ck_assert_uint_lt(++steps, 100000);
	}
	ck_assert(table_sort_done(t, w, key, desc));
	return steps;
}

START_TEST(steps_give_the_full_sort)
{
	static const size_t sizes[] = { 0, 1, 24, 25, 300, 5000 };
	static const size_t budgets[] = { 1, 7, 100, 4096, SIZE_MAX };
	struct model *m = tm_mk(8, 0, 0, 0, 0);
	uint64_t x = 0x2545F4914F6CDD1Du;
	size_t many = 0;

	for (size_t s = 0; s < ARRAY_SIZE(sizes); s++) {
		const struct window *w =
		    sizes[s] ? commit_many(m, &x, sizes[s]) : NULL;
		struct table_sort t;

		if (!w)
			continue;
		table_sort_init(&t);
		for (int k = 0; k < METRIC_COUNT; k++)
			for (int desc = 0; desc < 2; desc++) {
				struct order ref;

				order_init(&ref);
				ck_assert_int_eq(order_build(&ref, w,
				                             (enum metric)k,
				                             desc, NULL, NULL),
				                 STATUS_OK);
				for (size_t b = 0; b < ARRAY_SIZE(budgets);
				     b++) {
					size_t steps =
					    sort_all(&t, w, (enum metric)k,
					             desc, budgets[b]);

					same_order(&t.o, &ref);
					many += steps > 10;
					table_sort_forget(&t);
				}
				order_fini(&ref);
			}
		table_sort_fini(&t);
	}
	/* the sorts were cut into steps, not made in one */
	ck_assert_uint_gt(many, 2 * METRIC_COUNT * 2);
	model_free(m);
}
END_TEST

START_TEST(another_window_or_weighting_midway)
{
	struct model *m = tm_mk(8, 0, 0, 0, 0);
	uint64_t x = 99;
	const struct window *a = commit_many(m, &x, 3000);
	const struct window *b = commit_many(m, &x, 2000);
	struct table_sort t;
	struct order ref;
	bool done = false;

	table_sort_init(&t);
	order_init(&ref);
	for (int round = 0; round < 40; round++) {
		const struct window *w = next(&x) % 2 ? a : b;
		enum metric k = (enum metric)(next(&x) % METRIC_COUNT);
		bool desc = next(&x) % 2;

		/* part of a sort of the other window or weighting first */
		for (size_t i = next(&x) % 30; i > 0 && !done; i--)
			ck_assert_int_eq(
			    table_sort_step(
			        &t, w == a ? b : a,
			        (enum metric)((k + 1) % METRIC_COUNT), !desc,
			        500, &done),
			    STATUS_OK);
		done = false;
		sort_all(&t, w, k, desc, 1 + next(&x) % 2000);
		ck_assert(!table_sort_done(&t, w == a ? b : a, k, desc));
		ck_assert_int_eq(order_build(&ref, w, k, desc, NULL, NULL),
		                 STATUS_OK);
		same_order(&t.o, &ref);
		table_sort_forget(&t);
	}
	/* no memory: nothing begun, and it begins again after */
	table_sort_fini(&t);
	mem_fail_at(1);
	ck_assert_int_eq(table_sort_step(&t, a, METRIC_BUSY, true, 10, &done),
	                 STATUS_NOMEM);
	mem_fail_at(0);
	ck_assert(!done);
	ck_assert(!table_sort_done(&t, a, METRIC_BUSY, true));
	sort_all(&t, a, METRIC_BUSY, true, 64);
	ck_assert_int_eq(order_build(&ref, a, METRIC_BUSY, true, NULL, NULL),
	                 STATUS_OK);
	same_order(&t.o, &ref);
	order_fini(&ref);
	table_sort_fini(&t);
	model_free(m);
}
END_TEST

/* A window of 25 to 64 rows (more than the radix sort sorts by
 * insertion): stacks out of a few, names, parked-at stacks or none;
 * values out of a few, so rows tie. */
static void commit_random(struct app *a, uint64_t *x, int64_t start)
{
	static const char *const fr[] = { "app:main:1",  "pool:run:7",
		                          "db:query:12", "net:read:3",
		                          "lock:wait:9", "io:poll:4" };
	static const char *const names[] = { "worker", "fetch", "", "retry" };
	static const char *const waits[] = { "asyncio:sleep:1", "lock:acq:2",
		                             "queue:get:3" };
	struct su_row rows[SU_ROWS];
	struct su_more more[SU_ROWS];
	size_t n = 25 + next(x) % (SU_ROWS - 24);

	memset(rows, 0, sizeof(rows));
	memset(more, 0, sizeof(more));
	for (size_t i = 0; i < n; i++) {
		size_t d = 1 + next(x) % 4;

		for (size_t k = 0; k < d; k++)
			rows[i].frames[k] = fr[next(x) % 6];
		rows[i].task = names[next(x) % 4];
		rows[i].tasks = 1 + next(x) % 3;
		for (int m = 0; m < METRIC_COUNT; m++)
			rows[i].v[m] = (next(x) % 4) * 1000000 + next(x) % 2;
		if (next(x) % 4)
			more[i].parked[0] = waits[next(x) % 3];
	}
	su_commit_more(a, rows, more, n, start);
}

/* The table shows the rows of the shown window in the full sort's order
 * (no filter is typed here). */
static void check_table(struct app *a)
{
	const struct window *w = app_shown(a);
	struct order ref;

	if (a->body != APP_BODY_TABLE || !w || w->empty)
		return;
	order_init(&ref);
	ck_assert_int_eq(
	    order_build(&ref, w, a->v.metric, !a->v.ascending, NULL, NULL),
	    STATUS_OK);
	same_order(&a->v.order, &ref);
	order_fini(&ref);
}

START_TEST(the_table_after_idle_steps_is_the_full_sort)
{
	static const int keys[] = { '1', '2',    '3', '4', '5', 'I', '=', 't',
		                    'f', KC_ESC, 'd', 'a', 'n', '[', ']', 'L' };
	struct app a;
	struct screen scr;
	uint64_t x = 0x9E3779B97F4A7C15u;
	size_t made = 0, back = 0;

	su_app(&a);
	ck_assert_int_eq(screen_init(&scr, 80, 24), STATUS_OK);
	commit_random(&a, &x, T0);
	for (int round = 0; round < 400; round++) {
		int key = keys[next(&x) % ARRAY_SIZE(keys)];
		bool stale = a.table_stale && a.body != APP_BODY_TABLE;

		a.idle_rows = 1 + next(&x) % 40;
		/* a pause of a few steps, a window arriving mid-way */
		for (size_t i = next(&x) % 8; i > 0; i--) {
			app_idle(&a);
			if (next(&x) % 16 == 0)
				commit_random(&a, &x, T0 + round * 5 * SEC);
		}
		if (!app_idle_pending(&a) && stale &&
		    !app_showing_progress(&a)) {
			/* done: going back to the table sorts nothing */
			ck_assert(view_has_order(&a.v, app_shown(&a)));
			made++;
			back += key == KC_ESC;
		}
		(void)app_key(&a, key);
		ck_assert_int_eq(app_render(&a, &scr), STATUS_OK);
		check_table(&a);
	}
	/* the idle work finished behind views, and Esc went back on it */
	ck_assert_uint_gt(made, 20);
	ck_assert_uint_gt(back, 2);
	screen_fini(&scr);
	app_fini(&a);
}
END_TEST

START_TEST(idle_without_memory_leaves_the_key_its_sort)
{
	struct app a;
	struct screen scr;
	uint64_t x = 7;

	su_app(&a);
	ck_assert_int_eq(screen_init(&scr, 80, 24), STATUS_OK);
	commit_random(&a, &x, T0);
	(void)app_key(&a, 't');
	(void)app_key(&a, '3');
	ck_assert(app_idle_pending(&a));
	mem_fail_at(1);
	app_idle(&a);
	mem_fail_at(0);
	/* given up for this window: the loop does not spin on it */
	ck_assert(!app_idle_pending(&a));
	(void)app_key(&a, KC_ESC);
	ck_assert_int_eq(app_render(&a, &scr), STATUS_OK);
	check_table(&a);
	screen_fini(&scr);
	app_fini(&a);
}
END_TEST

Suite *suite_table_sort(void);
Suite *suite_table_sort(void)
{
	Suite *s = suite_create("table_sort");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, steps_give_the_full_sort);
	tcase_add_test(tc, another_window_or_weighting_midway);
	tcase_add_test(tc, the_table_after_idle_steps_is_the_full_sort);
	tcase_add_test(tc, idle_without_memory_leaves_the_key_its_sort);
	suite_add_tcase(s, tc);
	return s;
}
