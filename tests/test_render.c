/* Pure renderers: share and progress bars, layouts per width, stacks leaf
 * first cut by display width (CJK, emoji, hostile bytes), word wrapping,
 * the too-small notice; nothing raw ever reaches a screen line. */
#include <check.h>
#include <stdio.h>
#include <string.h>

#include "encode/utf8.h"
#include "model/model.h"
#include "tests/util.h"
#include "tui/glyph.h"
#include "tui/render.h"

static const char *bar(uint64_t part, uint64_t whole, size_t width,
                       unsigned flags)
{
	static struct buf b;

	buf_fini(&b);
	ck_assert_int_eq(render_bar(&b, part, whole, width, flags), STATUS_OK);
	buf_cstr(&b);
	return b.data ? b.data : "";
}

START_TEST(render_bar_eighths)
{
	ck_assert_str_eq(bar(1, 1, 4, 0), "████");
	ck_assert_str_eq(bar(1, 2, 4, 0), "██  ");
	ck_assert_str_eq(bar(9, 16, 4, 0), "██▎ ");
	ck_assert_str_eq(bar(0, 16, 3, 0), "   ");
	/* a nonzero share never draws as nothing */
	ck_assert_str_eq(bar(1, 1000000, 3, 0), "▏  ");
	ck_assert_str_eq(bar(5, 0, 2, 0), "  ");
	ck_assert_str_eq(bar(7, 3, 2, 0), "██");
	ck_assert_str_eq(bar(UINT64_MAX / 2, UINT64_MAX, 2, 0), "█ ");
	ck_assert_str_eq(bar(9, 16, 4, UTF8_ASCII), "##  ");
	ck_assert_str_eq(bar(1, 1000, 3, UTF8_ASCII), ".  ");
	ck_assert_str_eq(bar(1, 1, 0, 0), "");
}
END_TEST

START_TEST(render_layout_widths)
{
	struct layout l;

	layout_compute(100, METRIC_IDLE, &l);
	for (int i = 0; i < METRIC_COUNT; i++)
		ck_assert(l.metric[i]);
	ck_assert(l.tasks);
	ck_assert_uint_eq(l.bar, 16);
	/* three durations, two counts (wide enough for "POLLS▼" and a gap),
	 * TASKS, SHARE with its gaps, the bar */
	ck_assert_uint_eq(l.stack, 100 - 24 - 14 - 6 - 10 - 16);
	layout_compute(80, METRIC_IDLE, &l);
	ck_assert(l.tasks);
	ck_assert_uint_eq(l.bar, 4);
	ck_assert_uint_eq(l.stack, 22);
	/* narrow: TASKS, then the other metrics from the right go; the
	 * weighting stays */
	layout_compute(50, METRIC_WAKES, &l);
	ck_assert(!l.tasks);
	ck_assert(l.metric[METRIC_WAKES]);
	ck_assert(!l.metric[METRIC_POLLS]);
	ck_assert_uint_ge(l.stack, LAYOUT_STACK_MIN);
	/* the smallest: the weighting, the share, and the rest for the stack */
	layout_compute(RENDER_MIN_COLS, METRIC_BUSY, &l);
	ck_assert(l.metric[METRIC_BUSY]);
	ck_assert(!l.metric[METRIC_IDLE]);
	ck_assert_uint_eq(l.bar, 0);
	ck_assert_uint_eq(l.stack, RENDER_MIN_COLS - LAYOUT_DURATION_COLS -
	                               LAYOUT_SHARE_COLS - 2);
}
END_TEST

static struct model *one_stack(const char *const *frames, size_t depth,
                               uint32_t *stack)
{
	struct model *m;
	struct strview f[8];
	struct sample s;
	const struct window *w;

	for (size_t i = 0; i < depth; i++)
		f[i] = sv_c(frames[i]);
	memset(&s, 0, sizeof(s));
	s.frames = f;
	s.depth = depth;
	s.task = sv_c("t");
	s.m.v[METRIC_IDLE] = 1;
	ck_assert_int_eq(model_new(NULL, &m), STATUS_OK);
	ck_assert_int_eq(model_begin(m), STATUS_OK);
	ck_assert_int_eq(model_add(m, &s), STATUS_OK);
	ck_assert_int_eq(model_commit(m, NULL, &w), STATUS_OK);
	*stack = w->rows[0].stack;
	return m;
}

static const char *stack_text(const struct model *m, uint32_t id, size_t cols,
                              unsigned flags, size_t *width)
{
	static struct buf b;

	buf_fini(&b);
	ck_assert_int_eq(render_stack(&b, m, id, cols, flags, width),
	                 STATUS_OK);
	buf_cstr(&b);
	return b.data ? b.data : "";
}

START_TEST(render_stack_leaf_first_and_fitted)
{
	static const char *const fr[] = { "app:main:88", "pool:worker:42" };
	static const char *const cjk[] = { "main",
		                           "\xE6\x97\xA5\xE6\x9C\xAC\xE8\xAA"
		                           "\x9E\xE3\x81\xAE\xE9\x96\xA2\xE6"
		                           "\x95\xB0" };
	static const char *const emoji[] = { "root", "\xF0\x9F\x9A\x80 launch "
		                                     "\xF0\x9F\x94\xA5" };
	static const char *const hostile[] = { "main",
		                               "evil\x1b]0;pwned\x07\x1b[2J"
		                               "\x9b"
		                               "31m\xff" };
	struct model *m;
	uint32_t id;
	size_t w;
	const char *t;

	m = one_stack(fr, 2, &id);
	ck_assert_str_eq(stack_text(m, id, 80, 0, &w),
	                 "pool:worker:42 ← app:main:88");
	ck_assert_uint_eq(w, 28);
	ck_assert_str_eq(stack_text(m, id, 20, 0, &w), "pool:worker:42 ← ap…");
	ck_assert_uint_eq(w, 20);
	ck_assert_str_eq(stack_text(m, id, 80, UTF8_ASCII, &w),
	                 "pool:worker:42 < app:main:88");
	model_free(m);

	/* CJK: two columns each, never half a character */
	m = one_stack(cjk, 2, &id);
	t = stack_text(m, id, 7, 0, &w);
	ck_assert_str_eq(t, "日本語…");
	ck_assert_uint_eq(w, 7);
	t = stack_text(m, id, 6, 0, &w);
	ck_assert_str_eq(t, "日本…");
	ck_assert_uint_eq(w, 5);
	model_free(m);

	m = one_stack(emoji, 2, &id);
	t = stack_text(m, id, 10, 0, &w);
	ck_assert_str_eq(t, "🚀 launch…");
	ck_assert_uint_eq(w, 10);
	model_free(m);

	/* escape sequences and C1 controls never come through raw */
	m = one_stack(hostile, 2, &id);
	t = stack_text(m, id, 200, 0, &w);
	ck_assert_ptr_null(strchr(t, 0x1b));
	ck_assert_ptr_null(strchr(t, 0x07));
	ck_assert_ptr_null(strstr(t, "\xc2\x9b"));
	ck_assert(utf8_valid(sv_c(t)));
	ck_assert_ptr_nonnull(strstr(t, "evil\xEF\xBF\xBD]0;pwned"));
	model_free(m);
}
END_TEST

struct lines {
	char v[16][64];
	size_t n;
};

static void take_line(void *ctx, struct strview l)
{
	struct lines *ls = ctx;

	ck_assert_uint_lt(ls->n, 16);
	snprintf(ls->v[ls->n++], 64, "%.*s", (int)l.len, l.ptr);
}

START_TEST(render_wrap_words)
{
	struct lines ls;

	memset(&ls, 0, sizeof(ls));
	ck_assert_uint_eq(render_wrap(sv_c("the quick brown fox jumps\n\nover"),
	                              10, take_line, &ls),
	                  5);
	ck_assert_str_eq(ls.v[0], "the quick");
	ck_assert_str_eq(ls.v[1], "brown fox");
	ck_assert_str_eq(ls.v[2], "jumps");
	ck_assert_str_eq(ls.v[3], "");
	ck_assert_str_eq(ls.v[4], "over");
	memset(&ls, 0, sizeof(ls));
	/* a word wider than the line is cut; CJK by columns */
	ck_assert_uint_eq(
	    render_wrap(sv_c("abcdefghij 日本語日本"), 4, take_line, &ls), 6);
	ck_assert_str_eq(ls.v[0], "abcd");
	ck_assert_str_eq(ls.v[2], "ij");
	ck_assert_str_eq(ls.v[3], "日本");
	ck_assert_str_eq(ls.v[4], "語日");
	ck_assert_str_eq(ls.v[5], "本");
}
END_TEST

START_TEST(render_too_small)
{
	struct screen s;
	struct view v;
	struct render_in in;
	struct buf out;

	view_init(&v, METRIC_IDLE);
	memset(&in, 0, sizeof(in));
	in.v = &v;
	ck_assert_int_eq(screen_init(&s, 30, 5), STATUS_OK);
	ck_assert_int_eq(render_screen(&in, &s), STATUS_OK);
	buf_init(&out);
	ck_assert_int_eq(screen_text(&s, &out), STATUS_OK);
	ck_assert_str_eq(buf_cstr(&out), "\n terminal too small: 30x5,\n "
	                                 "need 40x8\n\n\n");
	for (size_t r = 0; r < s.rows; r++)
		ck_assert_uint_eq(s.lines[r].width, 30);
	buf_fini(&out);
	screen_fini(&s);
	view_fini(&v);
}
END_TEST

/* The glyph table: every glyph has an ASCII form that is ASCII and not
 * '?'; glyph_copy swaps the longest match and never splits a character. */
START_TEST(render_glyph_table_ascii)
{
	char d[64];

	for (int g = 0; g < GLYPH_COUNT; g++) {
		const char *a = glyph((enum glyph)g, UTF8_ASCII);
		ck_assert_uint_gt(strlen(a), 0);
		ck_assert_ptr_null(strchr(a, '?'));
		for (const char *p = a; *p; p++)
			ck_assert_uint_lt((unsigned char)*p, 0x80);
		ck_assert_uint_gt(strlen(glyph((enum glyph)g, 0)), 0);
	}
	ck_assert_str_eq(glyph(GLYPH_COUNT, 0), "");
	ck_assert_str_eq(glyph_text("\xE2\x86\x92", UTF8_ASCII), "Right");
	ck_assert_str_eq(glyph_text("\xE2\x86\x92", 0), "\xE2\x86\x92");
	ck_assert_str_eq(glyph_text("q", UTF8_ASCII), "q");
	glyph_copy(d, sizeof(d),
	           "a \xC2\xB7 b\xE2\x80\xA6 \xE2\x86\x90\xE2\x86\x92",
	           UTF8_ASCII);
	ck_assert_str_eq(d, "a - b... <>");
	glyph_copy(d, sizeof(d), "a \xC2\xB7 b", 0);
	ck_assert_str_eq(d, "a \xC2\xB7 b");
	/* cut whole: never half a character, always terminated */
	glyph_copy(d, 4, "ab\xE6\x97\xA5", 0);
	ck_assert_str_eq(d, "ab");
	glyph_copy(d, 4, "ab\xE2\x80\xA6", UTF8_ASCII);
	ck_assert_str_eq(d, "ab");
	glyph_copy(d, 1, "abc", 0);
	ck_assert_str_eq(d, "");
	/* invalid bytes pass through (the renderer sanitises them) */
	glyph_copy(d, sizeof(d), "x\xFF\xC2", UTF8_ASCII);
	ck_assert_str_eq(d, "x\xFF\xC2");
}
END_TEST

Suite *suite_render(void);
Suite *suite_render(void)
{
	Suite *s = suite_create("render");
	TCase *tc = tcase_create("render");

	tcase_add_test(tc, render_bar_eighths);
	tcase_add_test(tc, render_layout_widths);
	tcase_add_test(tc, render_stack_leaf_first_and_fitted);
	tcase_add_test(tc, render_wrap_words);
	tcase_add_test(tc, render_too_small);
	tcase_add_test(tc, render_glyph_table_ascii);
	suite_add_tcase(s, tc);
	return s;
}
