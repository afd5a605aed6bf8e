/* encode/utf8: decoding, sanitising, widths and width-aware truncation. */
#include <check.h>
#include <stdio.h>
#include <string.h>

#include "encode/utf8.h"
#include "model/buf.h"
#include "tests/util.h"

/* Decodes s (length n) into a list of "len:cp" pairs, cp in hex or "BAD". */
static void decode_all(const char *s, size_t n, char *dst, size_t size)
{
	struct strview v = sv_n(s, n);
	size_t used = 0;

	dst[0] = '\0';
	while (v.len) {
		uint32_t cp;
		size_t k = utf8_decode(v, &cp);
		int w;

		ck_assert_uint_ge(k, 1);
		ck_assert_uint_le(k, v.len);
		if (cp == UTF8_INVALID)
			w = snprintf(dst + used, size - used, "%s%zu:BAD",
			             used ? " " : "", k);
		else
			w = snprintf(dst + used, size - used, "%s%zu:%X",
			             used ? " " : "", k, (unsigned)cp);
		ck_assert_int_gt(w, 0);
		used += (size_t)w;
		ck_assert_uint_lt(used, size);
		v.ptr += k;
		v.len -= k;
	}
}

#define DECODES(lit, expect)                                          \
	do {                                                          \
		char got_[256];                                       \
		decode_all(lit, sizeof(lit) - 1, got_, sizeof(got_)); \
		ck_assert_str_eq(got_, expect);                       \
	} while (0)

START_TEST(decode_valid)
{
	uint32_t cp = 0;

	DECODES("Az", "1:41 1:7A");
	DECODES("\xC2\x80\xDF\xBF", "2:80 2:7FF");
	DECODES("\xE0\xA0\x80\xE4\xB8\xAD\xEF\xBF\xBF", "3:800 3:4E2D 3:FFFF");
	DECODES("\xF0\x90\x80\x80\xF0\x9F\x98\x80\xF4\x8F\xBF\xBF",
	        "4:10000 4:1F600 4:10FFFF");
	ck_assert_uint_eq(utf8_decode(sv_n("", 0), &cp), 0);
	ck_assert_uint_eq(cp, UTF8_INVALID);
	DECODES("\0", "1:0");
}
END_TEST

START_TEST(decode_invalid)
{
	/* stray continuation bytes and impossible leads */
	DECODES("\x80\xBF", "1:BAD 1:BAD");
	DECODES("\xF5\xF8\xFE\xFF", "1:BAD 1:BAD 1:BAD 1:BAD");
	/* overlongs: C0/C1 leads, E0 80.., F0 80.. */
	DECODES("\xC0\xAF", "1:BAD 1:BAD");
	DECODES("\xC1\xBF", "1:BAD 1:BAD");
	DECODES("\xE0\x80\xAF", "1:BAD 1:BAD 1:BAD");
	DECODES("\xF0\x8F\xBF\xBF", "1:BAD 1:BAD 1:BAD 1:BAD");
	/* surrogates */
	DECODES("\xED\xA0\x80", "1:BAD 1:BAD 1:BAD");
	DECODES("\xED\x9F\xBF", "3:D7FF");
	/* past U+10FFFF */
	DECODES("\xF4\x90\x80\x80", "1:BAD 1:BAD 1:BAD 1:BAD");
	/* truncated: one replacement per maximal subpart */
	DECODES("\xE4\xB8", "2:BAD");
	DECODES("\xF0\x9F\x98", "3:BAD");
	DECODES("\xE4\xB8"
	        "A",
	        "2:BAD 1:41");
	DECODES("\xF0\x9F"
	        "\xE4\xB8\xAD",
	        "2:BAD 3:4E2D");
	DECODES("\xC3", "1:BAD");
}
END_TEST

START_TEST(valid)
{
	ck_assert(utf8_valid(sv_c("")));
	ck_assert(utf8_valid(sv_c("plain ascii")));
	ck_assert(utf8_valid(sv_c("\xE4\xB8\xAD\xF0\x9F\x98\x80 e\xCC\x81")));
	ck_assert(!utf8_valid(sv_c("a\xFF")));
	ck_assert(!utf8_valid(sv_c("\xC0\x80")));
	ck_assert(!utf8_valid(sv_c("\xED\xB0\x80")));
	ck_assert(!utf8_valid(sv_c("\xF4\x90\x80\x80")));
	ck_assert(!utf8_valid(sv_c("ok\xE4\xB8")));
	ck_assert(utf8_valid(sv_n("a\0b", 3))); /* NUL is valid UTF-8 */
}
END_TEST

START_TEST(cp_width)
{
	ck_assert_uint_eq(utf8_cp_width('A'), 1);
	ck_assert_uint_eq(utf8_cp_width(0xE9), 1);    /* é */
	ck_assert_uint_eq(utf8_cp_width(0x4E2D), 2);  /* 中 */
	ck_assert_uint_eq(utf8_cp_width(0x3042), 2);  /* あ */
	ck_assert_uint_eq(utf8_cp_width(0xAC00), 2);  /* 가 */
	ck_assert_uint_eq(utf8_cp_width(0xFF21), 2);  /* Ａ */
	ck_assert_uint_eq(utf8_cp_width(0x3000), 2);  /* ideographic space */
	ck_assert_uint_eq(utf8_cp_width(0x1F600), 2); /* 😀 */
	ck_assert_uint_eq(utf8_cp_width(0x1F680), 2); /* 🚀 */
	ck_assert_uint_eq(utf8_cp_width(0x1F980), 2); /* 🦀 */
	ck_assert_uint_eq(utf8_cp_width(0x20000), 2); /* CJK ext. B */
	ck_assert_uint_eq(utf8_cp_width(0x0301), 0);  /* combining acute */
	ck_assert_uint_eq(utf8_cp_width(0x200D), 0);  /* ZWJ */
	ck_assert_uint_eq(utf8_cp_width(0x200B), 0);  /* ZW space */
	ck_assert_uint_eq(utf8_cp_width(0xFE0F), 0);  /* VS16 */
	ck_assert_uint_eq(utf8_cp_width(0xE0100), 0); /* VS17 */
	ck_assert_uint_eq(utf8_cp_width(0xE0061), 0); /* tag */
	ck_assert_uint_eq(utf8_cp_width(0x3099), 0);  /* kana voicing */
	ck_assert_uint_eq(utf8_cp_width(0x2026), 1);  /* … */
	ck_assert_uint_eq(utf8_cp_width(0x2190), 1);  /* ← */
	ck_assert_uint_eq(utf8_cp_width(0x1B), 1);    /* replaced */
	ck_assert_uint_eq(utf8_cp_width(0x9B), 1);    /* replaced */
	ck_assert_uint_eq(utf8_cp_width(UTF8_INVALID), 1);
	ck_assert_uint_eq(utf8_cp_width(0x10FFFF), 1);
}
END_TEST

START_TEST(controls)
{
	ck_assert(utf8_is_control(0));
	ck_assert(utf8_is_control(0x1B));
	ck_assert(utf8_is_control(0x1F));
	ck_assert(!utf8_is_control(0x20));
	ck_assert(!utf8_is_control(0x7E));
	ck_assert(utf8_is_control(0x7F));
	ck_assert(utf8_is_control(0x80));
	ck_assert(utf8_is_control(0x9F));
	ck_assert(!utf8_is_control(0xA0));
	ck_assert(utf8_is_control(0x2028));
	ck_assert(utf8_is_control(0x202E));
	ck_assert(utf8_is_control(0x2067));
	ck_assert(!utf8_is_control(0x200D));
}
END_TEST

static void check_sanitize(const char *in, size_t n, unsigned flags,
                           const char *expect)
{
	struct buf b;

	buf_init(&b);
	ck_assert_int_eq(utf8_sanitize(&b, sv_n(in, n), flags), STATUS_OK);
	ck_assert_str_eq(buf_cstr(&b), expect);
	ck_assert(utf8_valid(buf_view(&b)));
	buf_fini(&b);
}

#define SANITIZES(lit, flags, expect) \
	check_sanitize(lit, sizeof(lit) - 1, flags, expect)

#define FFFD "\xEF\xBF\xBD"

START_TEST(sanitize_display)
{
	SANITIZES("", 0, "");
	SANITIZES("app:main:88", 0, "app:main:88");
	SANITIZES("\xE4\xB8\xAD\xE6\x96\x87 \xF0\x9F\x98\x80", 0,
	          "\xE4\xB8\xAD\xE6\x96\x87 \xF0\x9F\x98\x80");
	/* ESC sequences lose their ESC; CSI as C1 too */
	SANITIZES("\x1b[31mred\x1b[0m", 0, FFFD "[31mred" FFFD "[0m");
	SANITIZES("a\xC2\x9B"
	          "2Jb",
	          0, "a" FFFD "2Jb");
	SANITIZES("\x1b]0;title\x07", 0, FFFD "]0;title" FFFD);
	SANITIZES("t\tn\nr\rd\x7f", 0, "t" FFFD "n" FFFD "r" FFFD "d" FFFD);
	SANITIZES("a\0b", 0, "a" FFFD "b");
	/* invalid bytes, overlongs, surrogates, truncation */
	SANITIZES("x\xFFy", 0, "x" FFFD "y");
	SANITIZES("\xC0\xAF", 0, FFFD FFFD);
	SANITIZES("\xED\xA0\x80", 0, FFFD FFFD FFFD);
	SANITIZES("end\xE4\xB8", 0, "end" FFFD);
	/* bidi override and line separator */
	SANITIZES("a\xE2\x80\xAE"
	          "b\xE2\x80\xA8"
	          "c",
	          0, "a" FFFD "b" FFFD "c");
	/* ';' untouched without the flag */
	SANITIZES("[u8; 32]", 0, "[u8; 32]");
}
END_TEST

START_TEST(sanitize_collapsed)
{
	unsigned f = UTF8_CTRL_SPACE | UTF8_SEMI_COLON;

	SANITIZES("[u8; 32]", f, "[u8: 32]");
	SANITIZES("a\tb\nc\r\n", f, "a b c  ");
	SANITIZES("\x1b[1m", f, " [1m");
	SANITIZES("x\xFF;y", f, "x" FFFD ":y");
	SANITIZES("\xE4\xB8\xAD", f, "\xE4\xB8\xAD");
}
END_TEST

START_TEST(sanitize_ascii)
{
	SANITIZES("ab", UTF8_ASCII, "ab");
	SANITIZES("\xE4\xB8\xAD"
	          "a\xFF\xC3\xA9",
	          UTF8_ASCII, "?a??");
	SANITIZES("e\xCC\x81", UTF8_ASCII, "e"); /* combining dropped */
	SANITIZES("\x1b[0m", UTF8_ASCII, "?[0m");
	SANITIZES("\x1b[0m", UTF8_ASCII | UTF8_CTRL_SPACE, " [0m");
}
END_TEST

/* utf8_sanitize with UTF8_KEEP_CONTROL, compared by length (NUL kept). */
static void check_keep(const char *in, size_t n, unsigned flags,
                       const char *expect, size_t elen)
{
	struct buf b;

	buf_init(&b);
	ck_assert_int_eq(utf8_sanitize(&b, sv_n(in, n), flags), STATUS_OK);
	ck_assert_uint_eq(b.len, elen);
	ck_assert(elen == 0 || memcmp(b.data, expect, elen) == 0);
	ck_assert(utf8_valid(buf_view(&b)));
	buf_fini(&b);
}

#define KEEPS(lit, flags, expect)                                             \
	check_keep(lit, sizeof(lit) - 1, (flags) | UTF8_KEEP_CONTROL, expect, \
	           sizeof(expect) - 1)

START_TEST(sanitize_keep_control)
{
	KEEPS("", 0, "");
	KEEPS("app:main:88", 0, "app:main:88");
	/* C0, DEL, C1, bidi and separators pass; so does NUL */
	KEEPS("t\tn\nr\rd\x7f", 0, "t\tn\nr\rd\x7f");
	KEEPS("\x1b[31mred\x1b[0m", 0, "\x1b[31mred\x1b[0m");
	KEEPS("a\xC2\x9B"
	      "2Jb",
	      0,
	      "a\xC2\x9B"
	      "2Jb");
	KEEPS("a\xE2\x80\xAE"
	      "b",
	      0,
	      "a\xE2\x80\xAE"
	      "b");
	KEEPS("a\0b\0", 0, "a\0b\0");
	/* the flag wins over UTF8_CTRL_SPACE; ';' still follows its flag */
	KEEPS("a\tb;c", UTF8_CTRL_SPACE, "a\tb;c");
	KEEPS("a\tb;c", UTF8_SEMI_COLON, "a\tb:c");
	/* only invalid subparts change, one U+FFFD each */
	KEEPS("x\xFFy", 0, "x" FFFD "y");
	KEEPS("\xC0\xAF", 0, FFFD FFFD);
	KEEPS("\xED\xA0\x80", 0, FFFD FFFD FFFD);
	KEEPS("\xF4\x90\x80\x80", 0, FFFD FFFD FFFD FFFD);
	KEEPS("\xE0\x80\x41", 0, FFFD FFFD "A");
	KEEPS("\xE2\x82\x41", 0, FFFD "A");
	KEEPS("\xF0\x9F\x98\0", 0, FFFD "\0");
	KEEPS("end\xE4\xB8", 0, "end" FFFD);
	KEEPS("\x01\xF0\x9F\x98\x80\x80", 0, "\x01\xF0\x9F\x98\x80" FFFD);
}
END_TEST

/* With UTF8_KEEP_CONTROL, sanitising is exactly utf8_decode's split:
 * every unit it calls invalid (a maximal subpart) becomes one U+FFFD,
 * every other unit is copied.  Checked on every string of up to three
 * bytes over the bytes where the rules change. */
START_TEST(sanitize_keep_control_matches_decode)
{
	static const unsigned char a[] = {
		0x00, 0x01, 0x1F, 0x3B, 0x41, 0x7F, 0x80, 0x8F, 0x90, 0x9F,
		0xA0, 0xBF, 0xC0, 0xC1, 0xC2, 0xDF, 0xE0, 0xE1, 0xEC, 0xED,
		0xEE, 0xEF, 0xF0, 0xF1, 0xF3, 0xF4, 0xF5, 0xFF,
	};
	const size_t na = ARRAY_SIZE(a);
	struct buf got, want;
	char in[3];

	buf_init(&got);
	buf_init(&want);
	for (size_t len = 1; len <= 3; len++) {
		size_t total = na;
		for (size_t i = 1; i < len; i++)
			total *= na;
		for (size_t x = 0; x < total; x++) {
			struct strview v = sv_n(in, len);
			uint32_t cp;
			for (size_t i = 0, y = x; i < len; i++, y /= na)
				in[i] = (char)a[y % na];
			buf_reset(&got);
			buf_reset(&want);
			while (v.len) {
				size_t k = utf8_decode(v, &cp);
				if (cp == UTF8_INVALID)
					buf_adds(&want, FFFD);
				else
					buf_add(&want, v.ptr, k);
				v.ptr += k;
				v.len -= k;
			}
			ck_assert_int_eq(utf8_sanitize(&got, sv_n(in, len),
			                               UTF8_KEEP_CONTROL),
			                 STATUS_OK);
			ck_assert_uint_eq(got.len, want.len);
			ck_assert(memcmp(got.data, want.data, got.len) == 0);
		}
	}
	buf_fini(&got);
	buf_fini(&want);
}
END_TEST

START_TEST(sanitize_appends_and_fails)
{
	struct buf b;

	buf_init(&b);
	buf_adds(&b, "x=");
	ck_assert_int_eq(utf8_sanitize(&b, sv_c("\x01y"), 0), STATUS_OK);
	ck_assert_str_eq(buf_cstr(&b), "x=" FFFD "y");
	buf_fini(&b);

	buf_init(&b);
	b.limit = 4;
	ck_assert_int_eq(utf8_sanitize(&b, sv_c("abc\x01"), 0), STATUS_LIMIT);
	buf_fini(&b);
}
END_TEST

START_TEST(width)
{
	ck_assert_uint_eq(utf8_width(sv_c("")), 0);
	ck_assert_uint_eq(utf8_width(sv_c("abc")), 3);
	ck_assert_uint_eq(utf8_width(sv_c("\xE4\xB8\xAD\xE6\x96\x87")), 4);
	ck_assert_uint_eq(utf8_width(sv_c("\xF0\x9F\x98\x80!")), 3);
	ck_assert_uint_eq(utf8_width(sv_c("e\xCC\x81")), 1);
	/* 👨‍👩: two wide emoji joined by ZWJ */
	ck_assert_uint_eq(
	    utf8_width(sv_c("\xF0\x9F\x91\xA8\xE2\x80\x8D\xF0\x9F\x91\xA9")),
	    4);
	/* ☺ + VS16 */
	ck_assert_uint_eq(utf8_width(sv_c("\xE2\x98\xBA\xEF\xB8\x8F")), 1);
	/* every control or invalid byte shows as one U+FFFD */
	ck_assert_uint_eq(utf8_width(sv_c("a\x1b[0m")), 5);
	ck_assert_uint_eq(utf8_width(sv_c("\xFF\xFE")), 2);
	ck_assert_uint_eq(utf8_width(sv_c("\xE4\xB8")), 1);
	ck_assert_uint_eq(utf8_width(sv_c("\xE2\x80\xA6")), 1);
}
END_TEST

static void check_fit(const char *in, size_t n, size_t cols, enum fit_mode mode,
                      unsigned flags, const char *expect, size_t expect_w)
{
	struct buf b;
	size_t w = 999;

	buf_init(&b);
	ck_assert_int_eq(utf8_fit_ex(&b, sv_n(in, n), cols, mode, flags, &w),
	                 STATUS_OK);
	ck_assert_str_eq(buf_cstr(&b), expect);
	ck_assert_uint_eq(w, expect_w);
	ck_assert_uint_le(w, cols);
	if (!(flags & UTF8_ASCII)) {
		ck_assert_uint_eq(utf8_width(buf_view(&b)), expect_w);
		ck_assert(utf8_valid(buf_view(&b)));
	}
	buf_fini(&b);
	/* utf8_fit is the flag-less variant */
	if (flags == 0) {
		buf_init(&b);
		ck_assert_int_eq(utf8_fit(&b, sv_n(in, n), cols, mode),
		                 STATUS_OK);
		ck_assert_str_eq(buf_cstr(&b), expect);
		buf_fini(&b);
	}
}

#define FITS(lit, cols, mode, expect, w) \
	check_fit(lit, sizeof(lit) - 1, cols, mode, 0, expect, w)
#define FITS_ASCII(lit, cols, mode, expect, w) \
	check_fit(lit, sizeof(lit) - 1, cols, mode, UTF8_ASCII, expect, w)

#define ELL "\xE2\x80\xA6"
#define ZH  "\xE4\xB8\xAD" /* 中, width 2 */

START_TEST(fit_end)
{
	FITS("hello", 5, FIT_END, "hello", 5);
	FITS("hello", 9, FIT_END, "hello", 5);
	FITS("hello", 4, FIT_END, "hel" ELL, 4);
	FITS("hello", 2, FIT_END, "h" ELL, 2);
	FITS("hello", 1, FIT_END, ELL, 1);
	FITS("hello", 0, FIT_END, "", 0);
	FITS("", 0, FIT_END, "", 0);
	FITS("a", 1, FIT_END, "a", 1);
	FITS(ZH, 1, FIT_END, ELL, 1);
	FITS(ZH, 2, FIT_END, ZH, 2);
	/* a wide character at the edge is not split */
	FITS("ab" ZH, 4, FIT_END, "ab" ZH, 4);
	FITS("ab" ZH, 3, FIT_END, "ab" ELL, 3);
	FITS("ab" ZH "c", 4, FIT_END, "ab" ELL, 3);
	FITS(ZH ZH ZH, 5, FIT_END, ZH ZH ELL, 5);
	FITS(ZH ZH ZH, 4, FIT_END, ZH ELL, 3);
	FITS(ZH ZH ZH, 2, FIT_END, ELL, 1);
	/* combining marks stay with their base */
	FITS("e\xCC\x81"
	     "e\xCC\x81"
	     "e\xCC\x81",
	     3, FIT_END,
	     "e\xCC\x81"
	     "e\xCC\x81"
	     "e\xCC\x81",
	     3);
	FITS("e\xCC\x81"
	     "e\xCC\x81"
	     "e\xCC\x81",
	     2, FIT_END, "e\xCC\x81" ELL, 2);
	/* emoji */
	FITS("\xF0\x9F\xA6\x80rust", 4, FIT_END, "\xF0\x9F\xA6\x80r" ELL, 4);
	/* control characters and ESC sequences are replaced, then fitted */
	FITS("\x1b[2J", 10, FIT_END, FFFD "[2J", 4);
	FITS("\x1b[2Jxyz", 4, FIT_END, FFFD "[2" ELL, 4);
	FITS("ab\xFF\xFE", 3, FIT_END, "ab" ELL, 3);
	FITS("pool:worker:42 \xE2\x86\x90 app:main:88", 20, FIT_END,
	     "pool:worker:42 \xE2\x86\x90 ap" ELL, 20);
}
END_TEST

START_TEST(fit_middle)
{
	FITS("abcdefghij", 10, FIT_MIDDLE, "abcdefghij", 10);
	FITS("abcdefghij", 9, FIT_MIDDLE, "abcd" ELL "ghij", 9);
	FITS("abcdefghij", 6, FIT_MIDDLE, "abc" ELL "ij", 6);
	FITS("abcdefghij", 5, FIT_MIDDLE, "ab" ELL "ij", 5);
	FITS("abcdefghij", 3, FIT_MIDDLE, "a" ELL "j", 3);
	FITS("abcdefghij", 2, FIT_MIDDLE, "a" ELL, 2);
	FITS("abcdefghij", 1, FIT_MIDDLE, ELL, 1);
	FITS("abcdefghij", 0, FIT_MIDDLE, "", 0);
	/* wide characters: the tail takes what the head left */
	FITS(ZH ZH ZH ZH ZH, 5, FIT_MIDDLE, ZH ELL ZH, 5);
	FITS(ZH ZH ZH ZH ZH, 4, FIT_MIDDLE, ZH ELL, 3);
	FITS("a" ZH ZH ZH "b", 6, FIT_MIDDLE, "a" ZH ELL "b", 5);
	FITS(ZH "ab" ZH, 5, FIT_MIDDLE, ZH ELL ZH, 5);
	FITS("ab" ZH "cd" ZH, 6, FIT_MIDDLE, "ab" ELL "d" ZH, 6);
	/* the tail never starts with a combining mark */
	FITS("abcde\xCC\x81"
	     "f",
	     4, FIT_MIDDLE, "ab" ELL "f", 4);
	FITS("abcde\xCC\x81", 4, FIT_MIDDLE, "ab" ELL "e\xCC\x81", 4);
	FITS("app:poll_backend:31", 12, FIT_MIDDLE, "app:po" ELL "nd:31", 12);
	FITS("\x1b"
	     "abcdef\x07",
	     5, FIT_MIDDLE, FFFD "a" ELL "f" FFFD, 5);
}
END_TEST

START_TEST(fit_ascii)
{
	FITS_ASCII("hello world", 6, FIT_END, "hello~", 6);
	FITS_ASCII("hello world", 7, FIT_MIDDLE, "hel~rld", 7);
	FITS_ASCII(ZH "ab", 3, FIT_END, "?ab", 3);
	FITS_ASCII(ZH ZH ZH ZH, 3, FIT_END, "??~", 3);
	FITS_ASCII("e\xCC\x81x", 2, FIT_END, "ex", 2);
	FITS_ASCII("\x1b[0m\xFF", 9, FIT_END, "?[0m?", 5);
	FITS_ASCII("abc", 0, FIT_END, "", 0);
}
END_TEST

START_TEST(fit_appends_and_fails)
{
	struct buf b;

	buf_init(&b);
	buf_adds(&b, "[");
	ck_assert_int_eq(utf8_fit(&b, sv_c("abcdef"), 3, FIT_END), STATUS_OK);
	buf_adds(&b, "]");
	ck_assert_str_eq(buf_cstr(&b), "[ab" ELL "]");
	buf_fini(&b);

	buf_init(&b);
	b.limit = 2;
	ck_assert_int_eq(utf8_fit(&b, sv_c("abcdef"), 3, FIT_END),
	                 STATUS_LIMIT);
	buf_fini(&b);
}
END_TEST

Suite *suite_utf8(void);
Suite *suite_utf8(void)
{
	Suite *s = suite_create("utf8");
	TCase *tc = tcase_create("utf8");

	tcase_add_test(tc, decode_valid);
	tcase_add_test(tc, decode_invalid);
	tcase_add_test(tc, valid);
	tcase_add_test(tc, cp_width);
	tcase_add_test(tc, controls);
	tcase_add_test(tc, sanitize_display);
	tcase_add_test(tc, sanitize_collapsed);
	tcase_add_test(tc, sanitize_ascii);
	tcase_add_test(tc, sanitize_keep_control);
	tcase_add_test(tc, sanitize_keep_control_matches_decode);
	tcase_add_test(tc, sanitize_appends_and_fails);
	tcase_add_test(tc, width);
	tcase_add_test(tc, fit_end);
	tcase_add_test(tc, fit_middle);
	tcase_add_test(tc, fit_ascii);
	tcase_add_test(tc, fit_appends_and_fails);
	suite_add_tcase(s, tc);
	return s;
}
