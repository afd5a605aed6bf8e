/* The table's filter ignores case: ASCII, and the letters of Latin-1,
 * Latin Extended-A, Greek, Cyrillic and Armenian that fold one to one,
 * each rule of the fold checked; other bytes match as they are. */
#include <check.h>
#include <stdio.h>
#include <string.h>

#include "model/model.h"
#include "tests/view_util.h"
#include "tui/view.h"

START_TEST(view_filter_ascii_case)
{
	static const struct vu_row t[] = {
		{ { "main", "Pool::Worker" }, { "Task-A" }, 30, 1 },
		{ { "main", "db::REAPER" }, { "reaper" }, 20, 2 },
		{ { "main", "http:Handler" }, { "Serve-Index" }, 10, 3 },
	};
	struct model *m;
	struct view v;
	const struct window *w;

	w = vu_open_rows(&m, &v, t, 3);
	ck_assert_uint_eq(vu_kept(&v, m, w, "POOL"), 1);
	ck_assert_str_eq(VU_LEAF_AT(&v, 0), "Pool::Worker");
	ck_assert_uint_eq(vu_kept(&v, m, w, "rEaPeR"), 1);
	ck_assert_str_eq(VU_LEAF_AT(&v, 0), "db::REAPER");
	ck_assert_uint_eq(vu_kept(&v, m, w, "serve-INDEX"), 1);
	ck_assert_str_eq(VU_LEAF_AT(&v, 0), "http:Handler");
	ck_assert_uint_eq(vu_kept(&v, m, w, "::"), 2);
	ck_assert_str_eq(VU_LEAF_AT(&v, 0), "Pool::Worker");
	ck_assert_str_eq(VU_LEAF_AT(&v, 1), "db::REAPER");
	ck_assert_uint_eq(vu_kept(&v, m, w, "MAIN"), 3);
	/* [ and ` sit next to the capitals: no false folds */
	ck_assert_uint_eq(vu_kept(&v, m, w, "pool[:worker"), 0);
	ck_assert_uint_eq(vu_kept(&v, m, w, "`"), 0);
	vu_close(m, &v);
}
END_TEST

START_TEST(view_filter_utf8_case)
{
	static const struct vu_row t[] = {
		{ { "\xC3\x84rger:\xC3\xB6"
		    "ffnen" },
		  { "x" },
		  60,
		  0 },
		{ { "\xD0\x9F\xD0\xA0\xD0\x98\xD0\x92\xD0\x95\xD0\xA2:"
		    "\xD0\xBC\xD0\xB8\xD1\x80" },
		  { "y" },
		  50,
		  0 },
		{ { "\xCE\xA3\xCE\x9F\xCE\xA6\xCE\x8A\xCE\x91" },
		  { "z" },
		  40,
		  0 },
		{ { "\xE6\x97\xA5\xE6\x9C\xAC:run" },
		  { "na\xC3\x8Fve" },
		  30,
		  0 },
		{ { "bad\xC3(" }, { "x\xFFy" }, 20, 0 },
		{ { "\xC3\x84x" }, { "w" }, 10, 0 },
	};
	struct model *m;
	struct view v;
	const struct window *w;

	w = vu_open_rows(&m, &v, t, 6);
	/* Latin-1: a-umlaut and o-umlaut, either case */
	ck_assert_uint_eq(vu_kept(&v, m, w, "\xC3\xA4rger"), 1);
	ck_assert_uint_eq(vu_kept(&v, m, w, "\xC3\x84RGER:\xC3\x96"), 1);
	ck_assert_uint_eq(vu_kept(&v, m, w, "\xC3\xA4"), 2);
	/* Cyrillic: privet, MIR */
	ck_assert_uint_eq(vu_kept(&v, m, w,
	                          "\xD0\xBF\xD1\x80\xD0\xB8\xD0\xB2\xD0\xB5"
	                          "\xD1\x82"),
	                  1);
	ck_assert_uint_eq(vu_kept(&v, m, w, "\xD0\x9C\xD0\x98\xD0\xA0"), 1);
	/* Greek sofia with the tonos, lower case */
	ck_assert_uint_eq(
	    vu_kept(&v, m, w, "\xCF\x83\xCE\xBF\xCF\x86\xCE\xAF\xCE\xB1"), 1);
	ck_assert_str_eq(VU_LEAF_AT(&v, 0),
	                 "\xCE\xA3\xCE\x9F\xCE\xA6\xCE\x8A\xCE\x91");
	/* final sigma folds like sigma */
	ck_assert_uint_eq(vu_kept(&v, m, w, "\xCF\x82\xCE\xBF"), 1);
	/* no case: exact bytes; a task name: I-diaeresis folded */
	ck_assert_uint_eq(vu_kept(&v, m, w, "\xE6\x9C\xAC:RUN"), 1);
	ck_assert_uint_eq(vu_kept(&v, m, w, "NA\xC3\xAFVE"), 1);
	/* a different letter sharing the lead byte does not match */
	ck_assert_uint_eq(vu_kept(&v, m, w, "\xC3\xA5rger"), 0);
	/* invalid UTF-8 is matched byte for byte, ASCII folded around it */
	ck_assert_uint_eq(vu_kept(&v, m, w, "BAD\xC3("), 1);
	ck_assert_uint_eq(vu_kept(&v, m, w, "X\xFFY"), 1);
	ck_assert_uint_eq(vu_kept(&v, m, w, "\xC3"), 4);
	ck_assert_uint_eq(vu_kept(&v, m, w, "\xFF"), 1);
	vu_close(m, &v);
}
END_TEST

/* Two UTF-8 bytes of code point c (0x80 .. 0x7FF) and a NUL into out. */
static void enc2(char *out, unsigned c)
{
	out[0] = (char)(0xC0 | c >> 6);
	out[1] = (char)(0x80 | (c & 0x3F));
	out[2] = '\0';
}

START_TEST(view_filter_case_pairs)
{
	/* capital, small: one of each rule of the fold */
	static const unsigned fold[][2] = {
		{ 0xC0, 0xE0 },   { 0xDE, 0xFE },   { 0x100, 0x101 },
		{ 0x136, 0x137 }, { 0x139, 0x13A }, { 0x147, 0x148 },
		{ 0x14A, 0x14B }, { 0x176, 0x177 }, { 0x178, 0xFF },
		{ 0x179, 0x17A }, { 0x17D, 0x17E }, { 0x386, 0x3AC },
		{ 0x388, 0x3AD }, { 0x38A, 0x3AF }, { 0x38C, 0x3CC },
		{ 0x38E, 0x3CD }, { 0x38F, 0x3CE }, { 0x391, 0x3B1 },
		{ 0x3AB, 0x3CB }, { 0x3C2, 0x3C3 }, { 0x400, 0x450 },
		{ 0x40F, 0x45F }, { 0x410, 0x430 }, { 0x42F, 0x44F },
		{ 0x460, 0x461 }, { 0x480, 0x481 }, { 0x48A, 0x48B },
		{ 0x4BE, 0x4BF }, { 0x4C0, 0x4CF }, { 0x4C1, 0x4C2 },
		{ 0x4CD, 0x4CE }, { 0x4D0, 0x4D1 }, { 0x52E, 0x52F },
		{ 0x531, 0x561 }, { 0x556, 0x586 },
	};
	/* left alone: not letters, or folds that change length */
	static const unsigned same[][2] = {
		{ 0xD7, 0xF7 },   { 0x130, 0x131 }, { 0x181, 0x253 },
		{ 0x138, 0x137 }, { 0xB5, 0x3BC },
	};
	const size_t nf = sizeof(fold) / sizeof(fold[0]);
	const size_t ns = sizeof(same) / sizeof(same[0]);
	char up[64][3], low[64][3];
	struct vu_row t[64];
	struct model *m;
	struct view v;
	const struct window *w;

	memset(t, 0, sizeof(t));
	for (size_t i = 0; i < nf + ns; i++) {
		const unsigned *p = i < nf ? fold[i] : same[i - nf];
		enc2(up[i], p[0]);
		enc2(low[i], p[1]);
		t[i].f[0] = up[i];
		t[i].idle = 100 - i;
	}
	w = vu_open_rows(&m, &v, t, nf + ns);
	for (size_t i = 0; i < nf + ns; i++) {
		size_t n = vu_kept(&v, m, w, low[i]);

		if (i < nf) {
			ck_assert_uint_eq(n, 1);
			ck_assert_str_eq(VU_LEAF_AT(&v, 0), up[i]);
		}
		for (size_t k = 0; i >= nf && k < n; k++)
			ck_assert_str_ne(VU_LEAF_AT(&v, k), up[i]);
		ck_assert_uint_eq(vu_kept(&v, m, w, up[i]), 1);
		ck_assert_str_eq(VU_LEAF_AT(&v, 0), up[i]);
	}
	vu_close(m, &v);
}
END_TEST

Suite *suite_view_filter_case(void);
Suite *suite_view_filter_case(void)
{
	Suite *s = suite_create("view_filter_case");
	TCase *tc = tcase_create("view");

	tcase_add_test(tc, view_filter_ascii_case);
	tcase_add_test(tc, view_filter_utf8_case);
	tcase_add_test(tc, view_filter_case_pairs);
	suite_add_tcase(s, tc);
	return s;
}
