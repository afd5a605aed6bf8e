/* tui/safe: a message's outside text reaches stderr with no control byte
 * but its line breaks, cut at a character's boundary. */
#include <check.h>
#include <string.h>

#include "tui/safe.h"

#define FFFD "\xEF\xBF\xBD"

START_TEST(safe_controls_replaced_lines_kept)
{
	char out[256];

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

Suite *suite_safe(void);
Suite *suite_safe(void)
{
	Suite *s = suite_create("safe");
	TCase *tc = tcase_create("safe");

	tcase_add_test(tc, safe_controls_replaced_lines_kept);
	tcase_add_test(tc, safe_cut_at_a_character);
	suite_add_tcase(s, tc);
	return s;
}
