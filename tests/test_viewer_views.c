/* The exploration views, headless: detail (Enter, d), and golden screens of
 * each at 80x24 and 160x45 over rows that mix tasks of several names,
 * a stack 30 frames deep, and hostile names (controls, invalid UTF-8, CJK,
 * a 10 kB name); every view also in the C locale. */
#include <check.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "encode/utf8.h"
#include "model/model.h"
#include "model/sort.h"
#include "tests/model_util.h"
#include "tests/screen_util.h"
#include "tests/util.h"
#include "tui/app.h"
#include "tui/view_detail.h"

#define POOL "app:main:88", "pool:worker:42"
#define MS   ((uint64_t)1000000)

static char huge[10 * 1024 + 1];

/* A gather that mixes a CPU hog, a sleeper and a spinner under one spawn
 * stack; a stack 30 frames deep; hostile names. */
static struct su_row rows[] = {
	{ { POOL }, "fetch-1", { 4000 * MS, 10 * MS, 1 * MS, 5, 5 }, 1 },
	{ { POOL }, "sleeper", { 4900 * MS, 1 * MS, 0, 1, 1 }, 20 },
	{ { POOL }, "hog", { 100 * MS, 4800 * MS, 20 * MS, 4, 4 }, 1 },
	{ { POOL },
	  "spinner",
	  { 2000 * MS, 900 * MS, 300 * MS, 9000, 9000 },
	  1 },
	{ { POOL },
	  "evil\x1b]0;pwned\x07\x1b[2J\xff",
	  { 10 * MS, 0, 0, 1, 1 },
	  1 },
	{ { POOL },
	  "\xE3\x82\xBF\xE3\x82\xB9\xE3\x82\xAF",
	  { 20 * MS, 0, 0, 1, 1 },
	  3 },
	{ { "app:main:91", "app:spin:12" },
	  "spin",
	  { 500 * MS, 3000 * MS, 50 * MS, 50000, 50000 },
	  1 },
	{ { "d00", "d01", "d02", "d03", "d04", "d05",
	    "d06", "d07", "d08", "d09", "d10", "d11",
	    "d12", "d13", "d14", "d15", "d16", "d17",
	    "d18", "d19", "d20", "d21", "d22", "d23",
	    "d24", "d25", "d26", "d27", "d28", "deep_leaf_at_thirty" },
	  "deep",
	  { 300 * MS, 2 * MS, 1 * MS, 3, 3 },
	  1 },
	{ { "main", "evil\x1b]0;pwned\x07\x1b[2J\x9b"
	            "31m\r\nnext\xff" },
	  "bad\x1b[5mtask",
	  { 30 * MS, 0, 0, 1, 1 },
	  1 },
	{ { "main", "\xE6\x97\xA5\xE6\x9C\xAC\xE8\xAA\x9E:\xE5\x87\xA6\xE7"
	            "\x90\x86:7" },
	  "\xE3\x82\xBF\xE3\x82\xB9\xE3\x82\xAF",
	  { 20 * MS, 0, 0, 1, 1 },
	  2 },
	{ { "main", NULL }, NULL, { 200 * MS, 1 * MS, 0, 2, 2 }, 1 },
};

static void setup_rows(void)
{
	memset(huge, 'x', sizeof(huge) - 1);
	huge[sizeof(huge) - 1] = '\0';
	rows[ARRAY_SIZE(rows) - 1].frames[1] = huge;
	rows[ARRAY_SIZE(rows) - 1].task = huge;
}

/* Three windows: the pool's idle grows; the spin stack only in the last
 * two. */
static void three_windows(struct app *a)
{
	setup_rows();
	su_commit(a, rows, 5, T0);
	su_commit(a, rows + 2, ARRAY_SIZE(rows) - 2, T0 + 5 * SEC);
	su_commit(a, rows, ARRAY_SIZE(rows), T0 + 10 * SEC);
}

START_TEST(views_detail_golden_and_keys)
{
	struct app a;
	struct buf out;
	const char *hog, *sleeper;

	buf_init(&out);
	su_app(&a);
	three_windows(&a);
	su_select_leaf(&a, "pool:worker:42");
	ck_assert_uint_eq(app_key(&a, KC_ENTER), APP_REDRAW);
	ck_assert_int_eq(a.body, APP_BODY_DETAIL);
	su_golden(&a, 80, 24, "detail_80x24");
	su_golden(&a, 160, 45, "detail_160x45");
	/* idle: the sleeper's tasks lead; busy: the hog */
	su_screen(&a, 160, 45, &out);
	hog = strstr(out.data, "  hog");
	sleeper = strstr(out.data, "  sleeper");
	ck_assert(hog && sleeper && sleeper < hog);
	ck_assert_ptr_nonnull(strstr(out.data, "6 names, 27 tasks"));
	ck_assert_ptr_nonnull(strstr(out.data, "per poll:  busy"));
	app_key(&a, 'b');
	su_screen(&a, 160, 45, &out);
	hog = strstr(out.data, "  hog");
	sleeper = strstr(out.data, "  sleeper");
	ck_assert(hog && sleeper && hog < sleeper);
	ck_assert_ptr_nonnull(strstr(out.data, "by busy"));
	/* the hostile task name comes out sanitised */
	ck_assert_ptr_null(strstr(out.data, "\x1b"));
	/* it scrolls, and the bottom is clamped to what it holds */
	app_key(&a, KC_END);
	su_screen(&a, 80, 24, &out);
	ck_assert_ptr_nonnull(strstr(out.data, "  evil"));
	ck_assert_ptr_null(strstr(out.data, "Spawn stack, root first"));
	app_key(&a, KC_HOME);
	ck_assert_uint_eq(a.body_top, 0);
	/* the wheel scrolls the detail; a click selects no hidden row */
	ck_assert_uint_eq(app_mouse(&a, 0, 10, 1), APP_REDRAW);
	ck_assert_uint_eq(a.body_top, 3);
	{
		size_t sel = a.v.sel;
		ck_assert_uint_eq(app_mouse(&a, 5, 8, 0), 0);
		ck_assert_uint_eq(a.v.sel, sel);
	}
	app_key(&a, KC_HOME);
	/* Esc back to the table, the selection kept; d toggles */
	ck_assert_uint_eq(app_key(&a, KC_ESC), APP_REDRAW);
	ck_assert_int_eq(a.body, APP_BODY_TABLE);
	app_key(&a, 'd');
	ck_assert_int_eq(a.body, APP_BODY_DETAIL);
	app_key(&a, 'd');
	ck_assert_int_eq(a.body, APP_BODY_TABLE);
	buf_fini(&out);
	app_fini(&a);
}
END_TEST

/* The deep stack, whole, numbered root first; the 10 kB name cut; a stack
 * gone from the shown window says so; the C locale. */
START_TEST(views_detail_deep_hostile_and_gone)
{
	struct app a;
	struct buf out;

	buf_init(&out);
	su_app(&a);
	three_windows(&a);
	su_select_leaf(&a, "deep_leaf_at_thirty");
	app_key(&a, 'd');
	su_screen(&a, 80, 45, &out);
	ck_assert_ptr_nonnull(strstr(out.data, "(30 frames)"));
	ck_assert_ptr_nonnull(strstr(out.data, "    1  d00\n"));
	ck_assert_ptr_nonnull(strstr(out.data, "   30  deep_leaf_at_thirty\n"));
	su_golden(&a, 80, 24, "detail_deep_80x24");
	su_golden(&a, 160, 45, "detail_deep_160x45");
	app_key(&a, KC_ESC);
	su_select_leaf(&a, "xxxxxxxx");
	app_key(&a, 'd');
	su_screen(&a, 80, 24, &out);
	for (const char *p = out.data; *p; p++)
		ck_assert_uint_lt(strcspn(p, "\n"), 80 * 4 + 1);
	ck_assert(utf8_valid(buf_view(&out)));
	/* history: the pool is in every window; the spin stack is not in
	 * the first */
	app_key(&a, KC_ESC);
	su_select_leaf(&a, "app:spin:12");
	app_key(&a, KC_ENTER);
	app_key(&a, '[');
	app_key(&a, '[');
	ck_assert_uint_eq(app_shown(&a)->seq, 1);
	su_screen(&a, 80, 24, &out);
	ck_assert_ptr_nonnull(
	    strstr(out.data, "this stack is not in the shown window"));
	buf_fini(&out);
	app_fini(&a);
}
END_TEST

/* Enter without a row says so instead of opening an empty detail. */
START_TEST(views_detail_without_rows)
{
	struct app a;

	su_app(&a);
	ck_assert_uint_eq(app_key(&a, KC_ENTER), APP_REDRAW);
	ck_assert_int_eq(a.body, APP_BODY_TABLE);
	ck_assert_str_eq(a.status, "no row to show in detail");
	su_commit(&a, NULL, 0, T0);
	app_key(&a, 'd');
	ck_assert_int_eq(a.body, APP_BODY_TABLE);
	app_fini(&a);
}
END_TEST

/* = compares with the window before; new and gone rows marked; sorted by
 * the change (I inverts); m marks another base. */
START_TEST(views_compare_golden_and_marks)
{
	struct app a;
	struct buf out;
	const char *pool, *spin;

	buf_init(&out);
	su_app(&a);
	three_windows(&a);
	app_key(&a, '[');
	ck_assert_uint_eq(app_key(&a, '='), APP_REDRAW);
	ck_assert_int_eq(a.body, APP_BODY_COMPARE);
	su_golden(&a, 80, 24, "compare_80x24");
	su_golden(&a, 160, 45, "compare_160x45");
	su_screen(&a, 160, 45, &out);
	ck_assert_ptr_nonnull(
	    strstr(out.data, "window 2 against the previous window 1"));
	/* the spin stack is new in window 2; the pool's idle fell */
	spin = strstr(out.data, "new   app:spin:12");
	pool = strstr(out.data, "pool:worker:42");
	ck_assert(spin && pool && spin < pool);
	ck_assert_ptr_nonnull(strstr(out.data, "-8.88s"));
	app_key(&a, 'I');
	su_screen(&a, 160, 45, &out);
	spin = strstr(out.data, "new   app:spin:12");
	pool = strstr(out.data, "pool:worker:42");
	ck_assert(spin && pool && pool < spin);
	app_key(&a, 'I');
	/* mark window 3, show window 1: the rows only in 3 are gone */
	app_key(&a, ']');
	ck_assert_uint_eq(app_shown(&a)->seq, 3);
	app_key(&a, 'm');
	ck_assert_uint_eq(a.mark_seq, 3);
	app_key(&a, '[');
	app_key(&a, '[');
	ck_assert_uint_eq(app_shown(&a)->seq, 1);
	su_screen(&a, 160, 45, &out);
	ck_assert_ptr_nonnull(
	    strstr(out.data, "window 1 against the marked window 3"));
	ck_assert_ptr_nonnull(strstr(out.data, "gone  app:spin:12"));
	/* m on the marked window unmarks it; window 1 has none before */
	app_key(&a, ']');
	app_key(&a, ']');
	app_key(&a, 'm');
	ck_assert_uint_eq(a.mark_seq, 0);
	app_key(&a, '[');
	app_key(&a, '[');
	su_screen(&a, 80, 24, &out);
	ck_assert_ptr_nonnull(
	    strstr(out.data, "no kept window before this one to compare with"));
	ck_assert_uint_eq(app_key(&a, KC_ESC), APP_REDRAW);
	ck_assert_int_eq(a.body, APP_BODY_TABLE);
	buf_fini(&out);
	app_fini(&a);
}
END_TEST

/* The text of screen line n (0-based) of out. */
static void line_of(const struct buf *out, size_t n, char *dst, size_t size)
{
	const char *p = out->data;

	while (n-- && (p = strchr(p, '\n')))
		p++;
	ck_assert_ptr_nonnull(p);
	snprintf(dst, size, "%.*s", (int)strcspn(p, "\n"), p);
}

/* t: the prefix tree, top frames first sorted by the weighting; + and the
 * arrows expand and collapse; * opens a 30-deep stack, readable at 80
 * columns; expansion survives a new window. */
START_TEST(views_tree_golden_and_keys)
{
	struct app a;
	struct buf out;
	char l[512];

	buf_init(&out);
	su_app(&a);
	three_windows(&a);
	ck_assert_uint_eq(app_key(&a, 't'), APP_REDRAW);
	ck_assert_int_eq(a.body, APP_BODY_TREE);
	su_screen(&a, 80, 24, &out);
	/* app:main:88 (the pool, idle 11.03 s) leads the top level */
	line_of(&out, 5, l, sizeof(l));
	ck_assert_msg(strstr(l, "app:main:88") && strstr(l, "11.03s"), "%s", l);
	ck_assert_uint_eq(a.tree.sel, 0);
	app_key(&a, KC_RIGHT);
	su_screen(&a, 80, 24, &out);
	line_of(&out, 6, l, sizeof(l));
	ck_assert_msg(strstr(l, "  pool:worker:42"), "%s", l);
	su_golden(&a, 80, 24, "tree_80x24");
	/* busy: the spin stack's root leads */
	app_key(&a, 'b');
	su_screen(&a, 80, 24, &out);
	line_of(&out, 5, l, sizeof(l));
	ck_assert_msg(strstr(l, "app:main:88"), "%s", l);
	app_key(&a, '1');
	/* the deep stack: select its root, expand all below */
	for (size_t i = 0; i < a.tree.nshown; i++)
		if (model_frame(a.m, a.tree.nodes[tree_row(&a.tree, i)].frame)
		        .len == 3)
			a.tree.sel = i;
	a.tree.sel_path = a.tree.nodes[tree_row(&a.tree, a.tree.sel)].path;
	app_key(&a, '*');
	su_golden(&a, 160, 45, "tree_160x45");
	su_screen(&a, 80, 45, &out);
	ck_assert_ptr_nonnull(strstr(out.data, "30:  deep_leaf_at_thirty"));
	ck_assert_ptr_nonnull(strstr(out.data, "29:"));
	/* a new window: the deep stack stays open, the selection on it */
	su_commit(&a, rows, ARRAY_SIZE(rows), T0 + 15 * SEC);
	su_screen(&a, 80, 45, &out);
	ck_assert_ptr_nonnull(strstr(out.data, "deep_leaf_at_thirty"));
	/* - on the leaf goes to its parent; then the left arrow collapses
	 * the parent */
	for (size_t i = 0; i < a.tree.nshown; i++)
		if (model_frame(a.m, a.tree.nodes[tree_row(&a.tree, i)].frame)
		        .len == strlen("deep_leaf_at_thirty"))
			a.tree.sel = i;
	a.tree.sel_path = a.tree.nodes[tree_row(&a.tree, a.tree.sel)].path;
	app_key(&a, '-');
	su_screen(&a, 80, 45, &out);
	ck_assert_ptr_nonnull(strstr(out.data, "deep_leaf_at_thirty"));
	ck_assert_uint_eq(a.tree.nodes[tree_row(&a.tree, a.tree.sel)].depth,
	                  29);
	app_key(&a, KC_LEFT);
	su_screen(&a, 80, 45, &out);
	ck_assert_ptr_null(strstr(out.data, "deep_leaf_at_thirty"));
	ck_assert_uint_eq(app_key(&a, KC_ESC), APP_REDRAW);
	ck_assert_int_eq(a.body, APP_BODY_TABLE);
	/* + elsewhere says where it works */
	app_key(&a, '+');
	ck_assert_ptr_nonnull(strstr(a.status, "in the tree"));
	buf_fini(&out);
	app_fini(&a);
}
END_TEST

/* Keys taken in one burst come before the draw that would sync the tree
 * with the shown window: t and + at once, after the window the tree was
 * last drawn for left the groupings, must act on the shown window's tree
 * (they acted on the freed one).  Against a viewer that draws after t. */
#define BURST_ROWS 40
static struct su_row burst[3][BURST_ROWS];
static char burst_leaf[3][BURST_ROWS][16];

static void burst_rows(void)
{
	for (int k = 0; k < 3; k++)
		for (int i = 0; i < BURST_ROWS; i++) {
			struct su_row *r = &burst[k][i];

			memset(r, 0, sizeof(*r));
			snprintf(burst_leaf[k][i], sizeof(burst_leaf[k][i]),
			         "leaf_%d_%d", k, i / 2);
			r->frames[0] = "root";
			r->frames[1] = i % 4 < 2 ? "mid" : "mid2";
			r->frames[2] = burst_leaf[k][i];
			r->task = i % 2 ? "odd" : "even";
			r->v[METRIC_IDLE] = (uint64_t)(100 + i) * MS;
			r->tasks = 1;
		}
}

/* The tree drawn split by name, left, five windows drawn in the table;
 * then t (a draw after it when synced), the keys, and the screen. */
static void burst_run(struct buf *out, bool synced, bool idle, const char *keys)
{
	struct app a;

	su_app(&a);
	su_commit(&a, burst[0], BURST_ROWS, T0);
	su_commit(&a, burst[1], BURST_ROWS, T0 + 5 * SEC);
	app_key(&a, 'n');
	app_key(&a, 't');
	su_screen(&a, 100, 30, out);
	while (idle && app_idle_pending(&a))
		app_idle(&a);
	app_key(&a, 't');
	su_screen(&a, 100, 30, out);
	for (int k = 0; k < 5; k++) {
		su_commit(&a, burst[1 + k % 2], BURST_ROWS,
		          T0 + (uint64_t)(10 + 5 * k) * SEC);
		su_screen(&a, 100, 30, out);
	}
	app_key(&a, 't');
	if (synced)
		su_screen(&a, 100, 30, out);
	for (const char *k = keys; *k; k++)
		app_key(&a, *k);
	su_screen(&a, 100, 30, out);
	app_fini(&a);
}

START_TEST(views_tree_keys_in_a_burst)
{
	/* a frame of several callees; one callee a level (read from its
	 * rows); the arrows' selection */
	static const char *const keys[] = { "+j+", "j+j+", "*jjj-" };
	struct buf got, want;

	buf_init(&got);
	buf_init(&want);
	burst_rows();
	for (size_t i = 0; i < ARRAY_SIZE(keys); i++)
		for (int idle = 0; idle < 2; idle++) {
			burst_run(&got, false, idle, keys[i]);
			burst_run(&want, true, idle, keys[i]);
			ck_assert_msg(got.len == want.len &&
			                  !memcmp(got.data, want.data, got.len),
			              "keys %s (idle %d): a burst\n%s\nafter a "
			              "draw\n%s",
			              keys[i], idle, got.data, want.data);
			ck_assert_ptr_nonnull(strstr(got.data, "root"));
		}
	buf_fini(&got);
	buf_fini(&want);
}
END_TEST

/* f: an icicle, "all" on top, widths by the weighting; the arrows select,
 * Enter zooms into a frame and Esc out, then back to the table. */
START_TEST(views_flame_golden_and_zoom)
{
	struct app a;
	struct buf out;
	char l[1024];

	buf_init(&out);
	su_app(&a);
	three_windows(&a);
	ck_assert_uint_eq(app_key(&a, 'f'), APP_REDRAW);
	ck_assert_int_eq(a.body, APP_BODY_FLAME);
	su_golden(&a, 80, 24, "flame_80x24");
	su_golden(&a, 160, 45, "flame_160x45");
	su_screen(&a, 100, 24, &out);
	/* "all" spans the width; the pool's 91.7% of idle leads level 2 */
	line_of(&out, 4, l, sizeof(l));
	ck_assert_msg(strstr(l, "all") && strlen(l) >= 99, "%s", l);
	line_of(&out, 5, l, sizeof(l));
	ck_assert_msg(!strncmp(l,
	                       "\xE2\x96\x95"
	                       "app:main:88",
	                       14),
	              "%s", l);
	/* down to the widest child, zoom into it: it spans the width */
	app_key(&a, KC_DOWN);
	app_key(&a, KC_DOWN);
	ck_assert_uint_eq(app_key(&a, KC_ENTER), APP_REDRAW);
	su_screen(&a, 100, 24, &out);
	line_of(&out, 4, l, sizeof(l));
	ck_assert_msg(strstr(l, "pool:worker:42") && strlen(l) >= 99, "%s", l);
	ck_assert_ptr_nonnull(strstr(out.data, "zoom 9"));
	/* a new window keeps the zoom (kept by frames, not by node) */
	su_commit(&a, rows, ARRAY_SIZE(rows), T0 + 15 * SEC);
	su_screen(&a, 100, 24, &out);
	line_of(&out, 4, l, sizeof(l));
	ck_assert_msg(strstr(l, "pool:worker:42") && strlen(l) >= 99, "%s", l);
	/* right and left move on a level; up stops at the zoom */
	app_key(&a, KC_UP);
	app_key(&a, KC_RIGHT);
	/* Esc out twice, then back to the table */
	app_key(&a, KC_ESC);
	app_key(&a, KC_ESC);
	ck_assert_int_eq(a.body, APP_BODY_FLAME);
	app_key(&a, KC_LEFT);
	app_key(&a, KC_RIGHT);
	app_key(&a, KC_ESC);
	ck_assert_int_eq(a.body, APP_BODY_TABLE);
	buf_fini(&out);
	app_fini(&a);
}
END_TEST

/* Whether every frame and the task name of r are ASCII. */
static bool ascii_row(const struct su_row *r)
{
	for (size_t d = 0; d < SU_DEPTH && r->frames[d]; d++)
		for (const char *p = r->frames[d]; *p; p++)
			if ((unsigned char)*p < 0x20 ||
			    (unsigned char)*p >= 0x7f)
				return false;
	for (const char *p = r->task ? r->task : ""; *p; p++)
		if ((unsigned char)*p < 0x20 || (unsigned char)*p >= 0x7f)
			return false;
	return true;
}

/* Every view in the C locale, over ASCII names (so that any '?' would be
 * a glyph of ours): detail, compare with new and gone rows, the tree open
 * to depth 30, the flame zoomed. */
START_TEST(views_c_locale_every_view_ascii)
{
	static const int keys[][4] = {
		{ 'd', 0 },
		{ '=', 0 },
		{ 'm', '[', 0 },
		{ 't', '*', 0 },
		{ KC_END, KC_LEFT, 0 },
		{ 'f', 0 },
		{ KC_DOWN, KC_DOWN, KC_ENTER, 0 },
		{ KC_RIGHT, 0 },
	};
	struct su_row keep[ARRAY_SIZE(rows)];
	struct app a;
	size_t n = 0;

	setup_rows();
	for (size_t i = 0; i < ARRAY_SIZE(rows); i++)
		if (ascii_row(&rows[i]))
			keep[n++] = rows[i];
	su_app(&a);
	su_commit(&a, keep, n - 3, T0);
	su_commit(&a, keep + 2, n - 2, T0 + 5 * SEC);
	su_commit(&a, keep, n, T0 + 10 * SEC);
	for (size_t k = 0; k < ARRAY_SIZE(keys); k++) {
		char what[32];

		for (size_t i = 0; keys[k][i]; i++)
			app_key(&a, keys[k][i]);
		ck_assert_int_ne(a.body, APP_BODY_TABLE);
		snprintf(what, sizeof(what), "view step %zu", k);
		su_ascii_check(&a, 80, 24, what);
		su_ascii_check(&a, 160, 45, what);
		a.flags = 0;
	}
	app_fini(&a);
}
END_TEST

/* The detail of a row of 2,000 tasks puts in order only what a page can
 * reach (a selection), exactly the first positions of the full sort, and
 * more as it is scrolled, then all; ties among the figures keep entry
 * order, in either direction. */
START_TEST(views_detail_orders_what_the_page_reaches)
{
	struct model *m = tm_mk(0, 0, 0, 0, 0);
	struct detail_cache dc = { .w = NULL };
	const struct window *w;
	uint64_t x = 0x2545F4914F6CDD1Du, *keys, *tk;
	uint32_t *ref, *tv;
	char name[32];
	size_t n = 2000;

	ck_assert_int_eq(model_begin(m), STATUS_OK);
	for (size_t i = 0; i < n; i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		snprintf(name, sizeof(name), "task-%04zu", i);
		ck_assert_int_eq(
		    tm_add(m, "app:main;pool:worker", name, 1 + x % 40),
		    STATUS_OK);
	}
	ck_assert_int_eq(model_commit(m, &(struct window_meta){ 0 }, NULL),
	                 STATUS_OK);
	w = model_latest(m);
	ck_assert_uint_eq(w->nrows, 1);
	ck_assert_uint_eq(w->rows[0].count, n);
	keys = malloc(n * sizeof(*keys));
	tk = malloc(n * sizeof(*tk));
	ref = malloc(n * sizeof(*ref));
	tv = malloc(n * sizeof(*tv));
	for (int asc = 0; asc < 2; asc++) {
		static const size_t tops[] = { 0, 40, 300, 100000 };
		struct detail_in in = { .m = m,
			                .w = w,
			                .stack = w->rows[0].stack,
			                .metric = METRIC_IDLE,
			                .ascending = asc,
			                .page = 20 };
		const struct fold_entry *e = w->entries + w->rows[0].first;

		for (size_t i = 0; i < n; i++) {
			uint64_t v = e[i].m.v[METRIC_IDLE];
			keys[i] = asc ? v : ~v;
			ref[i] = (uint32_t)i;
		}
		sort_radix(keys, ref, tk, tv, n);
		for (size_t t = 0; t < ARRAY_SIZE(tops); t++) {
			in.top = tops[t];
			ck_assert_int_eq(detail_prepare(&dc, &in), STATUS_OK);
			ck_assert_uint_ge(dc.tsorted,
			                  size_min(in.top + in.page, n));
			if (t == 0)
				ck_assert_uint_lt(dc.tsorted, n / 4);
			if (t == ARRAY_SIZE(tops) - 1)
				ck_assert_uint_eq(dc.tsorted, n);
			for (size_t i = 0; i < dc.tsorted; i++)
				ck_assert_uint_eq(dc.torder[i], ref[i]);
		}
	}
	free(keys), free(tk), free(ref), free(tv);
	detail_cache_fini(&dc);
	model_free(m);
}
END_TEST

Suite *suite_viewer_views(void);
Suite *suite_viewer_views(void)
{
	Suite *s = suite_create("viewer_views");
	TCase *tc = tcase_create("viewer_views");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, views_detail_golden_and_keys);
	tcase_add_test(tc, views_detail_deep_hostile_and_gone);
	tcase_add_test(tc, views_detail_without_rows);
	tcase_add_test(tc, views_detail_orders_what_the_page_reaches);
	tcase_add_test(tc, views_compare_golden_and_marks);
	tcase_add_test(tc, views_tree_golden_and_keys);
	tcase_add_test(tc, views_tree_keys_in_a_burst);
	tcase_add_test(tc, views_flame_golden_and_zoom);
	tcase_add_test(tc, views_c_locale_every_view_ascii);
	suite_add_tcase(s, tc);
	return s;
}
