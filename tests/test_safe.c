/* tui/safe: a message's outside text reaches stderr with no control byte
 * but its line breaks, cut at a character's boundary: U+FFFD for what is
 * not shown in a UTF-8 locale, '?' in any other (LANG=C), as on screen. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "encode/utf8.h"
#include "tests/screen_util.h"
#include "tui/safe.h"
#include "tui/screen_dump.h"

#define FFFD "\xEF\xBF\xBD"

/* The locale safe_text reads: the environment's, whatever it was. */
static void locale_is(const char *name)
{
	unsetenv("LANGUAGE");
	unsetenv("LC_CTYPE");
	unsetenv("LANG");
	setenv("LC_ALL", name, 1);
}

START_TEST(safe_controls_replaced_lines_kept)
{
	char out[256];

	locale_is("C.UTF-8");
	ck_assert(safe_utf8());

	safe_text(out, sizeof(out),
	          "bad\033]0;x\007 name\n\tnext\r\n\x9b"
	          "2J caf\xC3\xA9");
	ck_assert_str_eq(out, "bad" FFFD "]0;x" FFFD " name\n" FFFD "next" FFFD
	                      "\n" FFFD "2J caf\xC3\xA9");
	safe_text(out, sizeof(out), "");
	ck_assert_str_eq(out, "");
	/* C1 controls written as characters, and bidi overrides */
	safe_text(out, sizeof(out),
	          "a\xC2\x9B"
	          "b\xE2\x80\xAE"
	          "c");
	ck_assert_str_eq(out, "a" FFFD "b" FFFD "c");
}
END_TEST

START_TEST(safe_cut_at_a_character)
{
	char out[6];

	locale_is("C.UTF-8");

	/* "ab" then U+00E9 twice: 6 bytes do not fit in 5 */
	safe_text(out, sizeof(out), "ab\xC3\xA9\xC3\xA9");
	ck_assert_str_eq(out, "ab\xC3\xA9");
	/* a replacement is never cut in half either */
	safe_text(out, sizeof(out), "abc\033");
	ck_assert_str_eq(out, "abc");
	safe_text(out, 1, "abc");
	ck_assert_str_eq(out, "");
}
END_TEST

/* Which locales are UTF-8: LC_ALL, else LC_CTYPE, else LANG; one that
 * does not exist is "C". */
START_TEST(safe_utf8_follows_the_environment)
{
	locale_is("C");
	ck_assert(!safe_utf8());
	locale_is("POSIX");
	ck_assert(!safe_utf8());
	locale_is("no_SUCH.locale");
	ck_assert(!safe_utf8());
	locale_is("C.UTF-8");
	ck_assert(safe_utf8());
	unsetenv("LC_ALL");
	setenv("LANG", "C", 1);
	setenv("LC_CTYPE", "C.UTF-8", 1);
	ck_assert(safe_utf8());
	unsetenv("LC_CTYPE");
	ck_assert(!safe_utf8());
}
END_TEST

/* LANG=C: a terminal that cannot show U+FFFD, and might take a UTF-8
 * byte for a C1 control, gets '?' for every byte that is not printable
 * ASCII, valid characters too; lines and the cut stay as in UTF-8. */
START_TEST(safe_c_locale_question_marks)
{
	char out[256];

	locale_is("C");
	safe_text(out, sizeof(out),
	          "bad\033]0;x\007 name\n\tnext\r\n\x9b"
	          "2J caf\xC3\xA9 \xC2\x9B"
	          "b\xE2\x80\xAE"
	          "c\xFF");
	ck_assert_str_eq(out, "bad?]0;x? name\n?next?\n?2J caf? ?b?c?");
	safe_text(out, 5, "abc\033d");
	ck_assert_str_eq(out, "abc?");
}
END_TEST

/* The same text on the screen's status line: U+FFFD in UTF-8, '?' in the
 * C locale (the viewer's flags, from the terminal's codeset). */
START_TEST(safe_screen_status_per_locale)
{
	struct app a;
	struct buf b;

	su_app(&a);
	snprintf(a.status, sizeof(a.status), "%s",
	         "agent said \033[2Jx\xFF caf\xC3\xA9");
	a.status_error = true;
	buf_init(&b);
	a.flags = 0;
	ck_assert_int_eq(screen_dump(&a, 80, 10, &b), STATUS_OK);
	ck_assert_msg(
	    strstr(buf_cstr(&b), "agent said " FFFD "[2Jx" FFFD " caf\xC3\xA9"),
	    "%s", buf_cstr(&b));
	buf_reset(&b);
	a.flags = UTF8_ASCII;
	ck_assert_int_eq(screen_dump(&a, 80, 10, &b), STATUS_OK);
	ck_assert_msg(strstr(buf_cstr(&b), "agent said ?[2Jx? caf?"), "%s",
	              buf_cstr(&b));
	for (size_t i = 0; i < b.len; i++)
		ck_assert_msg(
		    (unsigned char)b.data[i] < 0x80 &&
		        (b.data[i] == '\n' || (unsigned char)b.data[i] >= 0x20),
		    "not printable ASCII:\n%s", b.data);
	buf_fini(&b);
	app_fini(&a);
}
END_TEST

Suite *suite_safe(void);
Suite *suite_safe(void)
{
	Suite *s = suite_create("safe");
	TCase *tc = tcase_create("safe");

	tcase_add_test(tc, safe_controls_replaced_lines_kept);
	tcase_add_test(tc, safe_cut_at_a_character);
	tcase_add_test(tc, safe_utf8_follows_the_environment);
	tcase_add_test(tc, safe_c_locale_question_marks);
	tcase_add_test(tc, safe_screen_status_per_locale);
	suite_add_tcase(s, tc);
	return s;
}
