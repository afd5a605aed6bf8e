/* Grouping, headless: a toggles rows between spawn stack and parked-at
 * stack, n splits them by task name; the header, the table, history, the
 * filter, what S saves and the other views follow; a grouping is derived
 * once per shown window, never per key. */
#include <check.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "encode/collapsed.h"
#include "model/model.h"
#include "tests/screen_util.h"
#include "tests/util.h"
#include "tui/app.h"

#define POOL "app:main:88", "pool:worker:42"
#define MS   ((uint64_t)1000000)
#define LOCK "asyncio.locks:Lock.acquire:114"

/* One gather spawns fetchers that queue on a lock, a sleeper and a hog
 * that is running (no parked-at stack); a second spawn stack waits on the
 * same lock. */
static const struct su_row rows[] = {
	{ { POOL }, "fetch", { 4000 * MS, 10 * MS, 1 * MS, 5, 5 }, 3 },
	{ { POOL }, "sleeper", { 4900 * MS, 1 * MS, 0, 1, 1 }, 2 },
	{ { POOL }, "hog", { 100 * MS, 4800 * MS, 20 * MS, 4, 4 }, 1 },
	{ { "app:main:91", "app:report:12" },
	  "report",
	  { 3000 * MS, 30 * MS, 2 * MS, 7, 7 },
	  1 },
};

static const struct su_more more[] = {
	{ .parked = { "shop:fetch:30", LOCK },
	  .x = { .v = { [EXTRA_MAX_POLL] = 120 * MS, [EXTRA_SELF_WAKES] = 0 },
	         .known = 1u << EXTRA_MAX_POLL | 1u << EXTRA_SELF_WAKES } },
	{ .parked = { "shop:sleeper:50", "asyncio.tasks:sleep:665" } },
	{ .parked = { NULL } },
	{ .parked = { "shop:report:70", LOCK },
	  .x = { .v = { [EXTRA_MAX_POLL] = 7 * MS },
	         .known = 1u << EXTRA_MAX_POLL } },
};

static void commit(struct app *a, size_t n, int64_t start)
{
	su_commit_more(a, rows, more, n, start);
}

START_TEST(group_parked_and_by_name)
{
	struct app a;
	struct buf out;
	const struct window *w;

	buf_init(&out);
	su_app(&a);
	commit(&a, ARRAY_SIZE(rows), T0);
	/* the default: rows by spawn stack, and nothing derived */
	ck_assert_uint_eq(app_shown(&a)->nrows, 2);
	su_screen(&a, 160, 45, &out);
	ck_assert_ptr_nonnull(strstr(out.data, "SPAWN STACK"));
	ck_assert_ptr_null(strstr(out.data, "by parked-at"));
	ck_assert_uint_eq(a.grouped.derived, 0);

	/* a: one row per parked-at stack, [not parked] among them */
	ck_assert_uint_eq(app_key(&a, 'a'), APP_REDRAW);
	w = app_shown(&a);
	ck_assert_int_eq(w->group.key, GROUP_PARKED);
	ck_assert_uint_eq(w->nrows, 4);
	ck_assert_uint_eq(a.v.order.n, 4);
	su_golden(&a, 80, 24, "group_parked_80x24");
	su_golden(&a, 160, 45, "group_parked_160x45");
	su_screen(&a, 160, 45, &out);
	ck_assert_ptr_nonnull(strstr(out.data, "by parked-at"));
	ck_assert_ptr_nonnull(strstr(out.data, "PARKED AT"));
	ck_assert_ptr_nonnull(strstr(out.data, "[not parked]"));
	ck_assert_ptr_nonnull(strstr(out.data, "Lock.acquire"));

	/* derived once: keys, weightings and frames drawn reuse it */
	ck_assert_uint_eq(a.grouped.derived, 1);
	app_key(&a, 'j');
	app_key(&a, 'b');
	app_key(&a, 'I');
	su_screen(&a, 160, 45, &out);
	su_screen(&a, 80, 24, &out);
	ck_assert_uint_eq(a.grouped.derived, 1);
	ck_assert_ptr_eq(app_shown(&a), w);

	/* n: split by task name, the name before each stack */
	app_key(&a, 'I');
	ck_assert_uint_eq(app_key(&a, 'n'), APP_REDRAW);
	w = app_shown(&a);
	ck_assert(w->group.by_name);
	ck_assert_uint_eq(w->nrows, 4);
	su_golden(&a, 80, 24, "group_parked_name_80x24");
	su_golden(&a, 160, 45, "group_parked_name_160x45");
	su_screen(&a, 160, 45, &out);
	ck_assert_ptr_nonnull(strstr(out.data, "by parked-at+name"));
	ck_assert_ptr_nonnull(strstr(out.data, "NAME: "));
	ck_assert_ptr_nonnull(strstr(out.data, "fetch: "));

	/* a again: by spawn stack, still split: the gather's three names */
	app_key(&a, 'a');
	w = app_shown(&a);
	ck_assert_int_eq(w->group.key, GROUP_SPAWN);
	ck_assert_uint_eq(w->nrows, 4);
	su_screen(&a, 160, 45, &out);
	ck_assert_ptr_nonnull(strstr(out.data, "by spawn+name"));
	ck_assert_ptr_nonnull(strstr(out.data, "SPAWN NAME: "));
	su_ascii_check(&a, 160, 45, "split by name");
	a.flags = 0;
	/* n again: the default, the kept window itself */
	app_key(&a, 'n');
	ck_assert_ptr_eq(app_shown(&a), app_kept(&a));
	su_screen(&a, 80, 24, &out);
	ck_assert_ptr_null(strstr(out.data, "LIVE · by"));
	buf_fini(&out);
	app_fini(&a);
}
END_TEST

/* History, the filter, the save and the views follow the grouping. */
START_TEST(group_history_filter_save_views)
{
	struct app a;
	struct buf out;
	const struct window *w;
	uint64_t derived;

	buf_init(&out);
	su_app(&a);
	commit(&a, 2, T0);
	app_key(&a, 'a');
	ck_assert_uint_eq(app_shown(&a)->nrows, 2);
	/* a new window is grouped as the last one was */
	commit(&a, ARRAY_SIZE(rows), T0 + 5 * SEC);
	w = app_shown(&a);
	ck_assert_uint_eq(w->seq, 2);
	ck_assert_int_eq(w->group.key, GROUP_PARKED);
	ck_assert_uint_eq(w->nrows, 4);
	/* [ steps back: the older window, grouped the same way */
	app_key(&a, '[');
	w = app_shown(&a);
	ck_assert_uint_eq(w->seq, 1);
	ck_assert_int_eq(w->group.key, GROUP_PARKED);
	ck_assert_uint_eq(w->nrows, 2);
	app_key(&a, ']');
	ck_assert_uint_eq(app_shown(&a)->seq, 2);

	/* the filter finds the rows by their parked-at frames: the two
	 * queues on the lock */
	app_key(&a, '/');
	for (const char *k = "lock.acq"; *k; k++)
		app_key(&a, (unsigned char)*k);
	app_key(&a, KC_ENTER);
	ck_assert_uint_eq(a.v.order.n, 2);
	su_screen(&a, 80, 24, &out);
	ck_assert_ptr_nonnull(strstr(out.data, "2 of 4 rows"));
	app_key(&a, KC_ESC);
	ck_assert_uint_eq(a.v.order.n, 4);

	/* S and C save app_shown: the parked-at stacks */
	buf_reset(&out);
	ck_assert_int_eq(
	    collapsed_encode(a.m, app_shown(&a), METRIC_IDLE, &out), STATUS_OK);
	buf_cstr(&out);
	ck_assert_ptr_nonnull(strstr(out.data, "shop:fetch:30;" LOCK));
	ck_assert_ptr_null(strstr(out.data, "pool:worker:42"));

	/* the tree is of parked-at frames; compare matches parked-at rows */
	app_key(&a, 't');
	su_screen(&a, 160, 45, &out);
	ck_assert_ptr_nonnull(strstr(out.data, "shop:fetch:30"));
	ck_assert_ptr_null(strstr(out.data, "pool:worker:42"));
	app_key(&a, 't');
	app_key(&a, 'f');
	su_screen(&a, 160, 45, &out);
	ck_assert_ptr_nonnull(strstr(out.data, "shop:report:70"));
	app_key(&a, 'f');
	derived = a.grouped.derived;
	app_key(&a, '=');
	su_screen(&a, 160, 45, &out);
	ck_assert_ptr_nonnull(strstr(out.data, "asyncio.tasks:sleep"));
	ck_assert_ptr_null(strstr(out.data, "pool:worker:42"));
	/* the base was grouped so when it was shown: held, not derived
	 * again, beside the shown window's grouping */
	ck_assert_uint_eq(a.grouped.derived, derived);
	su_screen(&a, 160, 45, &out);
	ck_assert_uint_eq(a.grouped.derived, derived);
	ck_assert_ptr_nonnull(
	    grouped_peek(&a.grouped, a.m, app_kept(&a), a.group));
	/* split by name, compare matches rows by stack and name */
	app_key(&a, 'n');
	su_screen(&a, 160, 45, &out);
	ck_assert_ptr_nonnull(strstr(out.data, "PARKED AT NAME: STACK"));
	ck_assert_ptr_nonnull(strstr(out.data, "asyncio.tasks:sleep"));
	ck_assert_int_eq(a.cmp.group.by_name, true);
	app_key(&a, 'n');
	app_key(&a, KC_ESC);
	/* detail of a parked-at row; a leaves it for the table */
	app_key(&a, 'd');
	ck_assert_int_eq(a.body, APP_BODY_DETAIL);
	app_key(&a, 'a');
	ck_assert_int_eq(a.body, APP_BODY_TABLE);
	buf_fini(&out);
	app_fini(&a);
}
END_TEST

/* The detail shows the other stacks of the row and the optional figures,
 * "unknown" where no task told them (never 0), a known 0 as 0. */
START_TEST(group_detail_other_stacks_and_figures)
{
	struct app a;
	struct buf out;

	buf_init(&out);
	su_app(&a);
	commit(&a, ARRAY_SIZE(rows), T0);
	/* by spawn stack: the pool's row is parked at three stacks */
	su_select_leaf(&a, "pool:worker:42");
	app_key(&a, 'd');
	su_golden(&a, 80, 24, "detail_spawn_figures_80x24");
	su_golden(&a, 160, 45, "detail_spawn_figures_160x45");
	su_screen(&a, 160, 45, &out);
	ck_assert_ptr_nonnull(strstr(out.data, "Parked at: 3 stacks, by idle"));
	ck_assert_ptr_nonnull(strstr(out.data, "longest poll     120.0ms"));
	ck_assert_ptr_nonnull(strstr(out.data, "self-wakes             0"));
	ck_assert_ptr_nonnull(strstr(out.data, "wakers held      unknown"));
	ck_assert_ptr_nonnull(strstr(out.data, "3 names, 6 tasks"));
	ck_assert_ptr_nonnull(
	    strstr(out.data, "fetch · parked at " LOCK " ← shop:fetch:30"));
	/* by parked-at: the fetchers' queue on the lock, spawned by the pool */
	app_key(&a, 'a');
	ck_assert_int_eq(a.body, APP_BODY_TABLE);
	su_select_leaf(&a, LOCK);
	app_key(&a, 'd');
	su_golden(&a, 80, 24, "detail_parked_80x24");
	su_golden(&a, 160, 45, "detail_parked_160x45");
	su_screen(&a, 160, 45, &out);
	ck_assert_ptr_nonnull(strstr(out.data, "Parked-at stack, root first"));
	ck_assert_ptr_nonnull(strstr(out.data, "Spawned at: 1 stack, by idle"));
	ck_assert_ptr_nonnull(strstr(out.data, "longest poll     120.0ms"));
	/* the sparkline is of the parked-at row too */
	ck_assert_ptr_nonnull(
	    strstr(out.data, "idle in the last 1 window, top 4.00s"));
	ck_assert_ptr_nonnull(strstr(
	    out.data, "fetch · spawned at pool:worker:42 ← app:main:88"));
	/* split by name: the detail is of the selected name's row */
	app_key(&a, KC_ESC);
	app_key(&a, 'n');
	for (size_t pos = 0; pos < a.v.order.n; pos++) {
		const struct fold_row *r =
		    &app_shown(&a)->rows[view_row_at(&a.v, pos)];
		struct strview n = model_name(a.m, r->name);

		if (n.len == 6 && !memcmp(n.ptr, "report", 6))
			view_select(&a.v, pos);
	}
	app_key(&a, 'd');
	su_screen(&a, 160, 45, &out);
	ck_assert_ptr_nonnull(strstr(out.data, "1 name, 1 task,"));
	ck_assert_ptr_nonnull(strstr(out.data, "longest poll       7.0ms"));
	buf_fini(&out);
	app_fini(&a);
}
END_TEST

/* A source that never tells where tasks wait (tokio's stream) groups
 * every task under [not parked]: a says so, rather than draw one row as
 * if every task ran; with one task parked, it does not. */
START_TEST(group_none_parked_says_so)
{
	struct app a;

	su_app(&a);
	su_commit(&a, rows, ARRAY_SIZE(rows), T0);
	app_key(&a, 'a');
	ck_assert_uint_eq(app_shown(&a)->nrows, 1);
	ck_assert_ptr_nonnull(strstr(a.status, "told where it waits"));
	app_key(&a, 'n'); /* split by name: rows of [not parked] only */
	ck_assert_uint_eq(app_shown(&a)->nrows, 4);
	ck_assert_ptr_nonnull(strstr(a.status, "told where it waits"));
	app_key(&a, 'n');
	app_key(&a, 'a');
	commit(&a, ARRAY_SIZE(rows), T0 + 5 * SEC);
	app_key(&a, 'a');
	ck_assert_ptr_nonnull(strstr(a.status, "rows by parked-at stack"));
	app_fini(&a);
}
END_TEST

/* Replay of a file saved grouped by parked-at stack opens so, rather
 * than as rows of one-frame spawn stacks; not when a or n was pressed
 * before its first window, nor for a live source. */
START_TEST(group_replay_opens_as_saved)
{
	static const struct strview spawn[] = { { "app:serve", 9 } };
	static const struct strview parked[] = {
		{ "app:serve", 9 }, { "asyncio.locks:Lock.acquire", 26 }
	};
	struct window_meta meta = { .time_nanos = T0,
		                    .duration_nanos = 5 * SEC,
		                    .saved_by_parked = true };
	struct sample s = { .frames = spawn,
		            .depth = 1,
		            .task = { "w", 1 },
		            .tasks = 1,
		            .parked = parked,
		            .parked_depth = 2,
		            .m = { { 4000 * MS, 1 * MS, 0, 2, 2 } } };

	for (int c = 0; c < 3; c++) {
		struct app a;

		su_app(&a);
		a.o.replay = c != 2;
		if (c == 1)
			app_key(&a, 'n');
		ck_assert_int_eq(app_commit(&a, &s, 1, &meta), STATUS_OK);
		ck_assert_int_eq(a.group.key,
		                 c == 0 ? GROUP_PARKED : GROUP_SPAWN);
		ck_assert_int_eq(app_shown(&a)->group.key, a.group.key);
		if (c == 0)
			ck_assert_ptr_nonnull(
			    strstr(a.status, "saved grouped by parked-at"));
		/* only the first window decides */
		app_key(&a, 'a');
		ck_assert_int_eq(app_commit(&a, &s, 1, &meta), STATUS_OK);
		ck_assert_int_eq(a.group.key,
		                 c == 0 ? GROUP_SPAWN : GROUP_PARKED);
		app_fini(&a);
	}
}
END_TEST

Suite *suite_viewer_group(void);
Suite *suite_viewer_group(void)
{
	Suite *s = suite_create("viewer_group");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, group_parked_and_by_name);
	tcase_add_test(tc, group_history_filter_save_views);
	tcase_add_test(tc, group_detail_other_stacks_and_figures);
	tcase_add_test(tc, group_none_parked_says_so);
	tcase_add_test(tc, group_replay_opens_as_saved);
	suite_add_tcase(s, tc);
	return s;
}
