/* Warnings in the viewer, headless: the marker column on the rows
 * concerned, the count in the header, W's list with the rule, the figure
 * and the row (golden screens at 80x24 and 160x45), the rules listed when
 * there is none, the threshold option, and the C locale. */
#include <check.h>
#include <string.h>

#include "model/model.h"
#include "tests/screen_util.h"
#include "tests/util.h"
#include "tui/app.h"

#define MS ((uint64_t)1000000)
#define KNOW(e, val)                                                   \
	{                                                              \
		.v = { [EXTRA_##e] = (val) }, .known = 1u << EXTRA_##e \
	}

static const struct su_row rows[] = {
	{ { "app:main:88", "shop:checkout:40" },
	  "checkout",
	  { 100 * MS, 4000 * MS, 5 * MS, 30, 30 },
	  1 },
	{ { "app:main:88", "shop:reserve:52" },
	  "reserve",
	  { 4900 * MS, 0, 0, 0, 0 },
	  2 },
	{ { "app:main:88", "shop:ticker:60" },
	  "ticker",
	  { 3000 * MS, 10 * MS, 1 * MS, 200, 200 },
	  1 },
	{ { "app:main:88", "shop:fine:70" },
	  "fine",
	  { 2000 * MS, 10 * MS, 1 * MS, 20, 20 },
	  1 },
};

static const struct su_more more[] = {
	{ .x = KNOW(MAX_POLL, 180 * MS) },
	{ .parked = { "shop:reserve:52", "shop:never:9" },
	  .x = KNOW(NO_WAKER, 2) },
	{ .x = KNOW(SELF_WAKES, 190) },
	{ .x = KNOW(MAX_POLL, 3 * MS) },
};

/* The table's line of the row whose stack's leaf is leaf. */
static const char *line_of(const char *screen, const char *leaf)
{
	const char *p = strstr(screen, leaf);

	while (p && p > screen && p[-1] != '\n')
		p--;
	return p;
}

START_TEST(warn_marker_count_and_list)
{
	struct app a;
	struct buf out;
	const char *l;

	buf_init(&out);
	su_app(&a);
	su_commit_more(&a, rows, more, ARRAY_SIZE(rows), T0);
	su_golden(&a, 80, 24, "warn_table_80x24");
	su_golden(&a, 160, 45, "warn_table_160x45");
	su_screen(&a, 160, 45, &out);
	ck_assert_ptr_nonnull(strstr(out.data, "LIVE · 3 warnings"));
	/* the marker on the three rows concerned, not on the fine one */
	l = line_of(out.data, "shop:checkout:40");
	ck_assert_ptr_nonnull(l);
	ck_assert_ptr_nonnull(strstr(l, "! shop:checkout:40"));
	ck_assert_ptr_nonnull(
	    strstr(line_of(out.data, "shop:ticker:60"), "! shop:ticker:60"));
	ck_assert_ptr_nonnull(
	    strstr(line_of(out.data, "shop:fine:70"), "  shop:fine:70"));
	ck_assert_ptr_null(strstr(out.data, "! shop:fine:70"));
	/* W: rule, figure, row */
	ck_assert_uint_eq(app_key(&a, 'W'), APP_REDRAW);
	ck_assert_int_eq(a.body, APP_BODY_WARN);
	su_golden(&a, 80, 24, "warn_list_80x24");
	su_golden(&a, 160, 45, "warn_list_160x45");
	su_screen(&a, 160, 45, &out);
	ck_assert_ptr_nonnull(strstr(out.data, "WARNINGS · 3 on window 1"));
	ck_assert_ptr_nonnull(strstr(out.data, "long-poll"));
	ck_assert_ptr_nonnull(
	    strstr(out.data, "longest poll 180.0ms (threshold 50.0ms)"));
	ck_assert_ptr_nonnull(strstr(out.data, "2 tasks parked with no waker"));
	ck_assert_ptr_nonnull(strstr(out.data, "190 of 200 wakes"));
	su_ascii_check(&a, 80, 24, "warnings");
	a.flags = 0;
	/* Esc back to the table; W again toggles */
	ck_assert_uint_eq(app_key(&a, KC_ESC), APP_REDRAW);
	ck_assert_int_eq(a.body, APP_BODY_TABLE);
	app_key(&a, 'W');
	app_key(&a, 'W');
	ck_assert_int_eq(a.body, APP_BODY_TABLE);
	/* grouped by parked-at the rows are others: evaluated again */
	app_key(&a, 'a');
	su_screen(&a, 160, 45, &out);
	ck_assert_ptr_nonnull(strstr(out.data, "! shop:never:9"));
	buf_fini(&out);
	app_fini(&a);
}
END_TEST

START_TEST(warn_none_lists_rules_and_threshold)
{
	struct app a;
	struct buf out;

	buf_init(&out);
	su_app(&a);
	/* no window yet: W opens, and a window then shows in it */
	app_key(&a, 'W');
	ck_assert_int_eq(a.body, APP_BODY_WARN);
	su_screen(&a, 80, 24, &out);
	app_key(&a, 'W');
	/* the fine row only: no marker column, no count */
	su_commit_more(&a, rows + 3, more + 3, 1, T0);
	su_screen(&a, 160, 45, &out);
	ck_assert_ptr_null(strstr(out.data, "warning"));
	ck_assert_ptr_null(strstr(out.data, "%    shop:fine:70"));
	ck_assert_ptr_nonnull(strstr(out.data, "%  shop:fine:70"));
	app_key(&a, 'W');
	su_golden(&a, 80, 24, "warn_none_80x24");
	su_golden(&a, 160, 45, "warn_none_160x45");
	su_screen(&a, 80, 24, &out);
	ck_assert_ptr_nonnull(strstr(out.data, "no warnings on this window"));
	ck_assert_ptr_nonnull(strstr(out.data, "stuck-idle"));
	app_fini(&a);
	/* a lower threshold catches the 3 ms poll */
	su_app(&a);
	a.o.warn.poll_ns = 2 * MS;
	su_commit_more(&a, rows + 3, more + 3, 1, T0);
	su_screen(&a, 160, 45, &out);
	ck_assert_ptr_nonnull(strstr(out.data, "1 warning"));
	buf_fini(&out);
	app_fini(&a);
}
END_TEST

Suite *suite_viewer_warn(void);
Suite *suite_viewer_warn(void)
{
	Suite *s = suite_create("viewer_warn");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, warn_marker_count_and_list);
	tcase_add_test(tc, warn_none_lists_rules_and_threshold);
	suite_add_tcase(s, tc);
	return s;
}
