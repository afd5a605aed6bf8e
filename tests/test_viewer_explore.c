/* Exploring a window under any grouping, headless: compare split by task
 * name matches rows by stack and name; the detail's sparkline follows the
 * shown grouping, summed from each kept window's entries, equal to the
 * rows of each kept window derived so, and done in bounded steps; and a
 * weighting key behind a view leaves the table's sort for its return. */
#include <check.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "model/model.h"
#include "tests/model_util.h"
#include "tests/screen_util.h"
#include "tests/util.h"
#include "tui/app.h"
#include "tui/view_compare.h"
#include "tui/view_detail.h"

#define POOL "app:main:88", "pool:worker:42"
#define MS   ((uint64_t)1000000)
#define LOCK "asyncio.locks:Lock.acquire:114"

/* A gather's fetchers queue on a lock, a sleeper sleeps, a hog runs; a
 * report waits on the same lock.  Window k scales the fetchers by k; the
 * sleeper leaves in window 3 and a "retry" task comes. */
static void commit_k(struct app *a, int k)
{
	uint64_t f = (uint64_t)k;
	struct su_row rows[] = {
		{ { POOL },
		  "fetch",
		  { 1000 * MS * f, 10 * MS, 1 * MS, 5, 5 },
		  3 },
		{ { POOL }, "hog", { 100 * MS, 4800 * MS, 20 * MS, 4, 4 }, 1 },
		{ { "app:main:91", "app:report:12" },
		  "report",
		  { 3000 * MS, 30 * MS, 2 * MS, 7, 7 },
		  1 },
		{ { POOL },
		  k < 3 ? "sleeper" : "retry",
		  { 4900 * MS / f, 1 * MS, 0, 1, 1 },
		  2 },
	};
	struct su_more more[] = {
		{ .parked = { "shop:fetch:30", LOCK } },
		{ .parked = { NULL } },
		{ .parked = { "shop:report:70", LOCK } },
		{ .parked = { "shop:sleeper:50", "asyncio.tasks:sleep:665" } },
	};

	su_commit_more(a, rows, more, ARRAY_SIZE(rows),
	               T0 + (int64_t)(k - 1) * 5 * SEC);
}

/* Selects the shown row of stack leaf (and name, when not NULL). */
static void select_row(struct app *a, const char *leaf, const char *name)
{
	const struct window *w = app_shown(a);

	for (size_t pos = 0; pos < a->v.order.n; pos++) {
		const struct fold_row *r = &w->rows[view_row_at(&a->v, pos)];
		size_t depth;
		const uint32_t *f = model_stack(a->m, r->stack, &depth);
		struct strview lf = model_frame(a->m, f[depth - 1]);
		struct strview nm = model_name(a->m, r->name);

		if (lf.len == strlen(leaf) && !memcmp(lf.ptr, leaf, lf.len) &&
		    (!name || (nm.len == strlen(name) &&
		               !memcmp(nm.ptr, name, nm.len)))) {
			view_select(&a->v, pos);
			return;
		}
	}
	ck_abort_msg("no row %s %s", leaf, name ? name : "");
}

/* = split by name: rows by (stack, name), the name before the stack; the
 * sleeper gone, the retry new. */
START_TEST(compare_split_by_name)
{
	struct app a;
	struct buf out;

	buf_init(&out);
	su_app(&a);
	commit_k(&a, 2);
	commit_k(&a, 3);
	app_key(&a, 'n');
	app_key(&a, '=');
	su_golden(&a, 80, 24, "compare_name_80x24");
	su_golden(&a, 160, 45, "compare_name_160x45");
	su_screen(&a, 160, 45, &out);
	ck_assert_ptr_nonnull(strstr(out.data, "SPAWN NAME: STACK"));
	ck_assert_ptr_null(strstr(out.data, "joins the names"));
	ck_assert(a.cmp.built);
	ck_assert_uint_eq(a.cmp.n, 5); /* four now, the sleeper gone */
	{
		size_t news = 0, gone = 0;
		for (size_t i = 0; i < a.cmp.n; i++) {
			news += a.cmp.rows[i].then == UINT32_MAX;
			gone += a.cmp.rows[i].now == UINT32_MAX;
		}
		ck_assert_uint_eq(news, 1);
		ck_assert_uint_eq(gone, 1);
	}
	/* the largest rise first: the fetchers, 2 s to 3 s idle */
	ck_assert_ptr_nonnull(strstr(out.data, "+1.00s"));
	/* a weighting key only sorts again: the pairs stay */
	app_key(&a, '4');
	ck_assert(a.cmp.paired);
	ck_assert_uint_eq(a.cmp.n, 5);
	/* by parked-at and name too */
	app_key(&a, 'a');
	app_key(&a, '=');
	su_screen(&a, 160, 45, &out);
	ck_assert_ptr_nonnull(strstr(out.data, "PARKED AT NAME: STACK"));
	ck_assert_ptr_nonnull(strstr(out.data, "retry: "));
	su_ascii_check(&a, 160, 45, "compare split by name");
	buf_fini(&out);
	app_fini(&a);
}
END_TEST

/* The row's figure in kept window i of m derived as g (0 when absent). */
static bool derived_value(const struct model *m, size_t i, struct grouping g,
                          uint32_t stack, uint32_t name, enum metric mt,
                          uint64_t *v)
{
	const struct window *k = model_window(m, i), *w;
	size_t r;

	ck_assert_int_eq(model_group(m, k, g, &w), STATUS_OK);
	r = window_find_row(w, stack);
	/* split by name, the stack's rows are neighbours */
	while (g.by_name && r != SIZE_MAX && r > 0 &&
	       w->rows[r - 1].stack == stack)
		r--;
	for (; g.by_name && r != SIZE_MAX && r < w->nrows &&
	       w->rows[r].stack == stack && w->rows[r].name != name;
	     r++)
		;
	if (r != SIZE_MAX && (r >= w->nrows || w->rows[r].stack != stack))
		r = SIZE_MAX;
	*v = r == SIZE_MAX ? 0 : w->rows[r].m.v[mt];
	model_group_free(w);
	return r != SIZE_MAX;
}

/* The sparkline under every grouping: goldens, and its figures equal the
 * rows of each kept window derived in the shown grouping. */
START_TEST(detail_sparkline_every_grouping)
{
	static const struct {
		const char *keys, *leaf, *name, *golden;
	} cases[] = {
		{ "a", LOCK, NULL, "detail_spark_parked" },
		{ "n", "pool:worker:42", "fetch", "detail_spark_name" },
		{ "an", LOCK, "report", "detail_spark_parked_name" },
	};
	struct buf out;

	buf_init(&out);
	for (size_t c = 0; c < ARRAY_SIZE(cases); c++) {
		struct app a;
		char name[64];

		su_app(&a);
		for (int k = 1; k <= 4; k++)
			commit_k(&a, k);
		for (const char *p = cases[c].keys; *p; p++)
			app_key(&a, *p);
		select_row(&a, cases[c].leaf, cases[c].name);
		app_key(&a, 'd');
		ck_assert_int_eq(a.body, APP_BODY_DETAIL);
		snprintf(name, sizeof(name), "%s_80x24", cases[c].golden);
		su_golden(&a, 80, 24, name);
		snprintf(name, sizeof(name), "%s_160x45", cases[c].golden);
		su_golden(&a, 160, 45, name);
		su_screen(&a, 160, 45, &out);
		ck_assert_ptr_nonnull(
		    strstr(out.data, "in the last 4 windows"));
		ck_assert_uint_eq(a.spark.n, 4);
		ck_assert_uint_eq(a.spark.pending, 0);
		for (size_t i = 0; i < 4; i++) {
			uint64_t v;
			bool have = derived_value(a.m, i, app_shown(&a)->group,
			                          a.body_stack, a.body_name,
			                          METRIC_IDLE, &v);
			ck_assert_int_eq(a.spark.have[i], have);
			ck_assert_uint_eq(a.spark.v[i].v[METRIC_IDLE], v);
		}
		app_fini(&a);
	}
	buf_fini(&out);
}
END_TEST

static uint64_t next(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

/* Random windows: every row of the newest window under every grouping
 * has the sparkline of its derived rows; a small budget sums them in
 * steps that end with the same figures, and nothing is summed twice. */
START_TEST(sparkline_matches_derived_rows_in_steps)
{
	static const char *const fr[] = { "a", "b", "main", "lock" };
	static const char *const names[] = { "w", "r", "x" };
	static const struct grouping gs[] = {
		{ .key = GROUP_SPAWN },
		{ .key = GROUP_PARKED },
		{ .key = GROUP_SPAWN, .by_name = true },
		{ .key = GROUP_PARKED, .by_name = true },
	};
	struct model *m = tm_mk(6, 0, 0, 0, 0);
	struct window_meta meta = { .duration_nanos = 1000000000 };
	uint64_t x = 12345;

	for (int k = 0; k < 8; k++) {
		const struct window *w;

		ck_assert_int_eq(model_begin(m), STATUS_OK);
		for (int i = 0; i < 40; i++) {
			char s[32], p[32];
			snprintf(s, sizeof(s), "%s;%s", fr[next(&x) % 4],
			         fr[next(&x) % 4]);
			snprintf(p, sizeof(p), "%s;%s", fr[next(&x) % 4],
			         fr[next(&x) % 4]);
			ck_assert_int_eq(tm_add_p(m, s, next(&x) % 4 ? p : NULL,
			                          names[next(&x) % 3],
			                          1 + next(&x) % 50, NULL),
			                 STATUS_OK);
		}
		ck_assert_int_eq(model_commit(m, &meta, &w), STATUS_OK);
	}
	for (size_t gi = 0; gi < ARRAY_SIZE(gs); gi++) {
		const struct window *w;

		ck_assert_int_eq(model_group(m, model_latest(m), gs[gi], &w),
		                 STATUS_OK);
		for (size_t r = 0; r < w->nrows; r++) {
			struct spark full = { .m = NULL }, step = { .m = NULL };
			size_t rounds = 0;

			spark_update(&full, m, gs[gi], w->rows[r].stack,
			             w->rows[r].name, 5, SPARK_BUDGET);
			ck_assert_uint_eq(full.pending, 0);
			ck_assert_uint_eq(full.n, 5);
			do {
				spark_update(&step, m, gs[gi], w->rows[r].stack,
				             w->rows[r].name, 5, 1);
				rounds++;
			} while (step.pending && rounds < 10);
			/* a window a call: five calls for five windows */
			ck_assert_uint_eq(rounds, 5);
			for (size_t i = 0; i < full.n; i++) {
				uint64_t v;
				bool have = derived_value(
				    m, model_window_count(m) - 5 + i, gs[gi],
				    w->rows[r].stack, w->rows[r].name,
				    METRIC_WAKES, &v);
				ck_assert_int_eq(full.have[i], have);
				ck_assert_uint_eq(full.v[i].v[METRIC_WAKES], v);
				ck_assert_uint_eq(step.v[i].v[METRIC_WAKES], v);
			}
		}
		model_group_free(w);
	}
	model_free(m);
}
END_TEST

/* Compare's merge in row order against a search of every pair, on random
 * windows under every grouping: each row of either window once, paired
 * with the row of the same stack and name, sorted by the change. */
START_TEST(compare_pairs_match_a_search)
{
	static const char *const fr[] = { "a", "b", "ab", "main", "z" };
	static const char *const names[] = { "w", "r", "x", "W" };
	static const struct grouping gs[] = {
		{ .key = GROUP_SPAWN },
		{ .key = GROUP_PARKED },
		{ .key = GROUP_SPAWN, .by_name = true },
		{ .key = GROUP_PARKED, .by_name = true },
	};
	struct model *m = tm_mk(4, 0, 0, 0, 0);
	struct window_meta meta = { .duration_nanos = 1000000000 };
	uint64_t x = 777;

	for (int round = 0; round < 12; round++) {
		const struct window *k1 = NULL, *k0;

		ck_assert_int_eq(model_begin(m), STATUS_OK);
		for (int i = 0; i < 60; i++) {
			char st[32], p[32];
			snprintf(st, sizeof(st), "%s;%s", fr[next(&x) % 5],
			         fr[next(&x) % 5]);
			snprintf(p, sizeof(p), "%s", fr[next(&x) % 5]);
			ck_assert_int_eq(tm_add_p(m, next(&x) % 6 ? st : "a",
			                          next(&x) % 3 ? p : NULL,
			                          names[next(&x) % 4],
			                          1 + next(&x) % 90, NULL),
			                 STATUS_OK);
		}
		ck_assert_int_eq(model_commit(m, &meta, &k1), STATUS_OK);
		if (model_window_count(m) < 2)
			continue;
		k0 = model_window(m, model_window_count(m) - 2);
		for (size_t gi = 0; gi < ARRAY_SIZE(gs); gi++) {
			const struct window *cur, *base;
			struct compare c;
			size_t seen_now = 0, seen_then = 0;

			ck_assert_int_eq(model_group(m, k1, gs[gi], &cur),
			                 STATUS_OK);
			ck_assert_int_eq(model_group(m, k0, gs[gi], &base),
			                 STATUS_OK);
			compare_init(&c);
			ck_assert_int_eq(compare_build(&c, m, cur, base,
			                               METRIC_WAKES, false),
			                 STATUS_OK);
			for (size_t i = 0; i < c.n; i++) {
				const struct cmp_row *r = &c.rows[c.order[i]];

				if (r->now != UINT32_MAX) {
					const struct fold_row *a =
					    &cur->rows[r->now];
					uint32_t then = UINT32_MAX;
					seen_now++;
					for (size_t j = 0; j < base->nrows; j++)
						if (base->rows[j].stack ==
						        a->stack &&
						    base->rows[j].name ==
						        a->name)
							then = (uint32_t)j;
					ck_assert_uint_eq(r->then, then);
				}
				seen_then += r->then != UINT32_MAX;
				if (i > 0) {
					const struct cmp_row *p =
					    &c.rows[c.order[i - 1]];
					/* the largest rise first */
					if (!p->fall && !r->fall)
						ck_assert_uint_ge(p->mag,
						                  r->mag);
					ck_assert(!p->fall || r->fall);
				}
			}
			ck_assert_uint_eq(seen_now, cur->nrows);
			ck_assert_uint_eq(seen_then, base->nrows);
			compare_fini(&c);
			model_group_free(cur);
			model_group_free(base);
		}
	}
	model_free(m);
}
END_TEST

/* The viewer sums what is left between keys: the loop is told to draw
 * again at once while the sparkline is not whole. */
START_TEST(pending_sparkline_asks_for_a_redraw)
{
	struct app a;

	su_app(&a);
	for (int k = 1; k <= 3; k++)
		commit_k(&a, k);
	app_key(&a, 'a');
	select_row(&a, LOCK, NULL);
	app_key(&a, 'd');
	a.spark = (struct spark){ .m = a.m, .pending = 2 };
	ck_assert_uint_eq(app_next_change(&a), a.now_ns);
	/* a sparkline of another model (the window in progress) waits */
	a.spark.m = a.pm;
	ck_assert_uint_gt(app_next_change(&a), a.now_ns);
	a.spark.m = a.m;
	a.spark.pending = 0;
	ck_assert_uint_gt(app_next_change(&a), a.now_ns);
	app_fini(&a);
}
END_TEST

/* A weighting key behind a view leaves the table's sort for later; back
 * at the table, the rows are in the new order before anything reads them. */
START_TEST(table_sorts_when_it_shows_again)
{
	struct app a;
	struct buf out;
	const struct window *w;

	buf_init(&out);
	su_app(&a);
	commit_k(&a, 1);
	commit_k(&a, 2);
	app_key(&a, '=');
	app_key(&a, '2'); /* busy */
	ck_assert(a.table_stale);
	ck_assert_int_eq(a.v.metric, METRIC_BUSY);
	su_screen(&a, 80, 24, &out);
	ck_assert(a.table_stale); /* compare drew; the table waits */
	ck_assert_ptr_nonnull(strstr(out.data, "COMPARE busy"));
	app_key(&a, KC_ESC);
	ck_assert_int_eq(a.body, APP_BODY_TABLE);
	(void)app_view(&a);
	ck_assert(!a.table_stale);
	w = app_shown(&a);
	ck_assert_uint_eq(a.v.order.n, w->nrows);
	for (size_t i = 1; i < a.v.order.n; i++)
		ck_assert_uint_ge(
		    w->rows[view_row_at(&a.v, i - 1)].m.v[METRIC_BUSY],
		    w->rows[view_row_at(&a.v, i)].m.v[METRIC_BUSY]);
	/* a key in the table sorts at once */
	app_key(&a, '1');
	ck_assert(!a.table_stale);
	buf_fini(&out);
	app_fini(&a);
}
END_TEST

/* Whether a's screen at 100x30 holds text. */
static bool screen_has(struct app *a, const char *text)
{
	struct buf out;
	bool has;

	buf_init(&out);
	su_screen(a, 100, 30, &out);
	has = strstr(out.data, text) != NULL;
	buf_fini(&out);
	return has;
}

/* The window in progress is folded into a model of its own, whose ids
 * differ from the kept windows': a detail opened on it stays on its stack
 * when the window ends and the finished one shows, and the other way,
 * and says so while the shown window does not hold the stack. */
START_TEST(detail_follows_its_stack_across_models)
{
	static const struct su_row early[] = {
		{ { "app:main:91", "app:report:12" },
		  "report",
		  { 3000 * MS, 30 * MS, 2 * MS, 7, 7 },
		  1 },
		{ { POOL }, "fetch", { 1000 * MS, 10 * MS, 1 * MS, 5, 5 }, 3 },
	};
	static const struct su_row only_other[] = {
		{ { "app:other:1" }, "o", { 10 * MS, 1 * MS, 0, 1, 1 }, 1 },
	};
	const char *gone = "this stack is not in the shown window";
	struct app a;

	su_app(&a);
	commit_k(&a, 1);
	/* in progress the report's stack is interned first: other ids */
	su_progress(&a, early, ARRAY_SIZE(early), T0 + 5 * SEC);
	app_key(&a, 'o');
	ck_assert(app_showing_progress(&a));
	view_select(&a.pv, 0);
	while (a.pv.sel < a.pv.order.n) {
		const struct fold_row *r =
		    &app_shown(&a)->rows[view_row_at(&a.pv, a.pv.sel)];
		size_t depth;
		const uint32_t *f = model_stack(a.pm, r->stack, &depth);

		if (sv_eq(model_frame(a.pm, f[depth - 1]),
		          sv_c("app:report:12")))
			break;
		view_move(&a.pv, 1);
	}
	app_key(&a, KC_ENTER);
	ck_assert_int_eq(a.body, APP_BODY_DETAIL);
	ck_assert(screen_has(&a, "app:report:12"));
	ck_assert(!screen_has(&a, gone));
	/* the window ends: the finished one shows, the detail on the same
	 * stack in the kept model's ids */
	commit_k(&a, 2);
	ck_assert(!app_showing_progress(&a));
	ck_assert(screen_has(&a, "app:report:12"));
	ck_assert(screen_has(&a, "report"));
	ck_assert(!screen_has(&a, gone));
	/* a window in progress without it: said, and the stack kept for
	 * when a window holds it again */
	su_progress(&a, only_other, ARRAY_SIZE(only_other), T0 + 10 * SEC);
	app_key(&a, 'o');
	app_key(&a, 'o');
	ck_assert(app_showing_progress(&a));
	ck_assert(screen_has(&a, gone));
	app_key(&a, 'o');
	ck_assert(!app_showing_progress(&a));
	ck_assert(screen_has(&a, "app:report:12"));
	ck_assert(!screen_has(&a, gone));
	/* the tree and flame lay out finished windows: t on the window in
	 * progress says so; o from the tree shows it in the table */
	app_key(&a, 'o');
	app_key(&a, KC_ESC);
	app_key(&a, 't');
	ck_assert_int_eq(a.body, APP_BODY_TABLE);
	ck_assert_ptr_nonnull(strstr(a.status, "finished windows"));
	app_key(&a, 'o');
	app_key(&a, 'f');
	ck_assert_int_eq(a.body, APP_BODY_FLAME);
	app_key(&a, 'o');
	ck_assert_int_eq(a.body, APP_BODY_TABLE);
	ck_assert_ptr_nonnull(strstr(a.status, "the table shows the window"));
	app_fini(&a);
}
END_TEST

/* Under the default grouping the viewer pairs compare's rows between
 * keys only once = was used (every viewer would pay for it otherwise):
 * then each new window finds them paired, as = would pair them. */
START_TEST(compare_paired_between_keys_once_used)
{
	struct app a;
	const struct window *base;
	bool marked;

	su_app(&a);
	commit_k(&a, 1);
	commit_k(&a, 2);
	su_idle_all(&a, 100);
	base = app_compare_base(&a, app_shown(&a), &marked);
	ck_assert_ptr_nonnull(base);
	ck_assert(!compare_paired(&a.cmp, app_shown(&a), base));
	app_key(&a, '=');
	ck_assert(screen_has(&a, "window 2 against the previous window 1"));
	ck_assert(compare_paired(&a.cmp, app_shown(&a), base));
	app_key(&a, KC_ESC);
	commit_k(&a, 3);
	base = app_compare_base(&a, app_shown(&a), &marked);
	ck_assert(!compare_paired(&a.cmp, app_shown(&a), base));
	ck_assert(app_idle_pending(&a));
	su_idle_all(&a, 100);
	ck_assert(compare_paired(&a.cmp, app_shown(&a), base));
	ck_assert(!app_idle_pending(&a));
	app_key(&a, '=');
	ck_assert(screen_has(&a, "window 3 against the previous window 2"));
	app_fini(&a);
}
END_TEST

Suite *suite_viewer_explore(void);
Suite *suite_viewer_explore(void)
{
	Suite *s = suite_create("viewer_explore");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, compare_split_by_name);
	tcase_add_test(tc, detail_sparkline_every_grouping);
	tcase_add_test(tc, sparkline_matches_derived_rows_in_steps);
	tcase_add_test(tc, pending_sparkline_asks_for_a_redraw);
	tcase_add_test(tc, compare_pairs_match_a_search);
	tcase_add_test(tc, table_sorts_when_it_shows_again);
	tcase_add_test(tc, detail_follows_its_stack_across_models);
	tcase_add_test(tc, compare_paired_between_keys_once_used);
	suite_add_tcase(s, tc);
	return s;
}
