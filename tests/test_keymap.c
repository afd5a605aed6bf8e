/* The keymap: one table drives dispatch, help, footer and docs/keys.md;
 * no key bound twice, every action bound and explained, keys.md fresh. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/buf.h"
#include "tests/util.h"
#include "tui/keymap.h"

START_TEST(keymap_no_key_twice)
{
	size_t n;
	const struct binding *b = keymap_bindings(&n);

	ck_assert_uint_gt(n, 30);
	for (size_t i = 0; i < n; i++) {
		ck_assert_int_ne(b[i].action, ACTION_NONE);
		ck_assert_ptr_nonnull(b[i].label);
		ck_assert_uint_gt(strlen(b[i].label), 0);
		for (size_t k = i + 1; k < n; k++)
			ck_assert_msg(b[i].key != b[k].key,
			              "key %s bound twice (%s and %s)",
			              b[i].label, action_name(b[i].action),
			              action_name(b[k].action));
	}
}
END_TEST

START_TEST(keymap_every_action_bound_and_explained)
{
	size_t n;
	const struct binding *b = keymap_bindings(&n);

	for (int a = ACTION_NONE + 1; a < ACTION_COUNT; a++) {
		bool bound = false;
		for (size_t i = 0; i < n; i++)
			bound |= b[i].action == (enum action)a;
		ck_assert_msg(bound, "%s has no key", action_name(a));
		ck_assert_uint_gt(strlen(action_help((enum action)a)), 3);
		ck_assert_str_ne(action_name((enum action)a), "?");
	}
	ck_assert_str_eq(action_name(ACTION_NONE), "none");
	ck_assert_str_eq(action_name(ACTION_COUNT), "?");
}
END_TEST

START_TEST(keymap_lookup_issue_keys)
{
	/* the keys issue 6 names */
	ck_assert_int_eq(keymap_lookup('1'), ACTION_WEIGHT_IDLE);
	ck_assert_int_eq(keymap_lookup('i'), ACTION_WEIGHT_IDLE);
	ck_assert_int_eq(keymap_lookup('2'), ACTION_WEIGHT_BUSY);
	ck_assert_int_eq(keymap_lookup('b'), ACTION_WEIGHT_BUSY);
	ck_assert_int_eq(keymap_lookup('s'), ACTION_WEIGHT_SCHED);
	ck_assert_int_eq(keymap_lookup('p'), ACTION_WEIGHT_POLLS);
	ck_assert_int_eq(keymap_lookup('5'), ACTION_WEIGHT_WAKES);
	ck_assert_int_eq(keymap_lookup('w'), ACTION_WEIGHT_WAKES);
	ck_assert_int_eq(keymap_lookup(KC_RIGHT), ACTION_WEIGHT_NEXT);
	ck_assert_int_eq(keymap_lookup(KC_LEFT), ACTION_WEIGHT_PREV);
	ck_assert_int_eq(keymap_lookup('I'), ACTION_INVERT);
	ck_assert_int_eq(keymap_lookup(KC_UP), ACTION_UP);
	ck_assert_int_eq(keymap_lookup('k'), ACTION_UP);
	ck_assert_int_eq(keymap_lookup('j'), ACTION_DOWN);
	ck_assert_int_eq(keymap_lookup(KC_PGDN), ACTION_PAGE_DOWN);
	ck_assert_int_eq(keymap_lookup(KC_HOME), ACTION_TOP);
	ck_assert_int_eq(keymap_lookup('g'), ACTION_TOP);
	ck_assert_int_eq(keymap_lookup('G'), ACTION_BOTTOM);
	ck_assert_int_eq(keymap_lookup(KC_END), ACTION_BOTTOM);
	ck_assert_int_eq(keymap_lookup('['), ACTION_HIST_BACK);
	ck_assert_int_eq(keymap_lookup(']'), ACTION_HIST_FWD);
	ck_assert_int_eq(keymap_lookup('L'), ACTION_LIVE);
	ck_assert_int_eq(keymap_lookup(' '), ACTION_PAUSE);
	ck_assert_int_eq(keymap_lookup('o'), ACTION_PROGRESS);
	ck_assert_int_eq(keymap_lookup('S'), ACTION_SAVE_PPROF);
	ck_assert_int_eq(keymap_lookup('C'), ACTION_SAVE_COLLAPSED);
	ck_assert_int_eq(keymap_lookup('?'), ACTION_HELP);
	ck_assert_int_eq(keymap_lookup(KC_F1), ACTION_HELP);
	ck_assert_int_eq(keymap_lookup('/'), ACTION_FILTER);
	ck_assert_int_eq(keymap_lookup('q'), ACTION_QUIT);
	ck_assert_int_eq(keymap_lookup(key_ctrl('c')), ACTION_QUIT);
	ck_assert_int_eq(keymap_lookup(key_ctrl('z')), ACTION_SUSPEND);
	ck_assert_int_eq(keymap_lookup('x'), ACTION_NONE);
	ck_assert_int_eq(keymap_lookup(KC_ESC), ACTION_NONE);
}
END_TEST

START_TEST(keymap_help_and_footer_from_table)
{
	struct buf b;
	size_t n;
	const struct footer_item *f = keymap_footer(&n);

	buf_init(&b);
	ck_assert_int_eq(keymap_keys_text(ACTION_WEIGHT_IDLE, 0, &b),
	                 STATUS_OK);
	ck_assert_str_eq(buf_cstr(&b), "1, i");
	buf_reset(&b);
	ck_assert_int_eq(keymap_keys_text(ACTION_QUIT, 0, &b), STATUS_OK);
	ck_assert_str_eq(buf_cstr(&b), "q, F10, Ctrl-C");
	buf_fini(&b);
	ck_assert_uint_ge(n, 8);
	for (size_t i = 0; i < n; i++) {
		size_t nb;
		const struct binding *bd = keymap_bindings(&nb);
		bool bound = false;
		for (size_t k = 0; k < nb; k++)
			bound |= bd[k].action == f[i].action;
		ck_assert_msg(bound, "footer %s names an unbound action",
		              f[i].name);
	}
}
END_TEST

START_TEST(keymap_docs_fresh)
{
	const char *src = getenv("ASYNCTOP_SRC");
	const char *update = getenv("ASYNCTOP_UPDATE_GOLDEN");
	char path[1024];
	struct buf want, have;

	if (!src || !*src) {
		tu_skip("keymap_docs_fresh", "ASYNCTOP_SRC is not set (run "
		                             "via make)");
		return;
	}
	snprintf(path, sizeof(path), "%s/docs/keys.md", src);
	buf_init(&want);
	buf_init(&have);
	ck_assert_int_eq(keymap_markdown(&want), STATUS_OK);
	ck_assert(strstr(buf_cstr(&want), "| `1`, `i` | weight-idle |"));
	if (update && *update)
		ck_assert_int_eq(tu_write_file(path, want.data, want.len),
		                 STATUS_OK);
	ck_assert_msg(tu_read_file(path, &have) == STATUS_OK, "%s is missing",
	              path);
	ck_assert_msg(have.len == want.len &&
	                  !memcmp(have.data, want.data, want.len),
	              "docs/keys.md is stale: regenerate it with "
	              "ASYNCTOP_UPDATE_GOLDEN=1 CK_RUN_SUITE=keymap "
	              "build/tests/check_asynctop");
	buf_fini(&want);
	buf_fini(&have);
}
END_TEST

Suite *suite_keymap(void);
Suite *suite_keymap(void)
{
	Suite *s = suite_create("keymap");
	TCase *tc = tcase_create("keymap");

	tcase_add_test(tc, keymap_no_key_twice);
	tcase_add_test(tc, keymap_every_action_bound_and_explained);
	tcase_add_test(tc, keymap_lookup_issue_keys);
	tcase_add_test(tc, keymap_help_and_footer_from_table);
	tcase_add_test(tc, keymap_docs_fresh);
	suite_add_tcase(s, tc);
	return s;
}
