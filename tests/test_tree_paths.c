/* The tree's sets of expanded paths: a batch settles sorted and without
 * duplicates, what was there stays, forget removes one, and the set stops
 * at its bound. */
#include <check.h>
#include <stdint.h>

#include "tui/tree_paths.h"

/* Whether s is strictly ascending and settled. */
static void ascending(const struct tree_paths *s)
{
	ck_assert_uint_eq(s->sorted, s->n);
	for (size_t i = 1; i < s->n; i++)
		ck_assert(s->v[i - 1] < s->v[i]);
}

START_TEST(tree_paths_batches_merge)
{
	static const uint64_t first[] = { 50, 10, 30, 10, 70 };
	static const uint64_t second[] = { 20, 70, 5, 80, 20, 60 };
	static const uint64_t want[] = { 5, 10, 20, 30, 50, 60, 70, 80 };
	struct tree_paths s;

	tree_paths_init(&s, 100);
	for (size_t i = 0; i < sizeof(first) / sizeof(*first); i++)
		ck_assert(tree_paths_add(&s, first[i]));
	/* found before they settle too */
	ck_assert(tree_paths_has(&s, 30));
	ck_assert(!tree_paths_has(&s, 31));
	tree_paths_settle(&s);
	ascending(&s);
	ck_assert_uint_eq(s.n, 4);
	for (size_t i = 0; i < sizeof(second) / sizeof(*second); i++)
		ck_assert(tree_paths_add(&s, second[i]));
	/* 70 was there: not added again */
	ck_assert_uint_eq(s.n, 4 + 5);
	tree_paths_settle(&s);
	ascending(&s);
	ck_assert_uint_eq(s.n, sizeof(want) / sizeof(*want));
	for (size_t i = 0; i < s.n; i++)
		ck_assert_uint_eq(s.v[i], want[i]);
	tree_paths_forget(&s, 30);
	tree_paths_forget(&s, 31);
	ck_assert_uint_eq(s.n, 7);
	ck_assert(!tree_paths_has(&s, 30));
	ck_assert(tree_paths_has(&s, 5) && tree_paths_has(&s, 80));
	ascending(&s);
	tree_paths_clear(&s);
	ck_assert(!tree_paths_has(&s, 5));
	tree_paths_fini(&s);
}
END_TEST

START_TEST(tree_paths_bounded)
{
	struct tree_paths s;

	tree_paths_init(&s, 3);
	ck_assert(tree_paths_add(&s, 9));
	ck_assert(tree_paths_add(&s, 8));
	ck_assert(tree_paths_add(&s, 7));
	ck_assert(!tree_paths_add(&s, 6));
	tree_paths_settle(&s);
	/* one already there, when full, still says it is kept */
	ck_assert(tree_paths_add(&s, 9));
	ck_assert(!tree_paths_has(&s, 6));
	ascending(&s);
	ck_assert_uint_eq(s.n, 3);
	tree_paths_fini(&s);
}
END_TEST

Suite *suite_tree_paths(void);
Suite *suite_tree_paths(void)
{
	Suite *s = suite_create("tree_paths");
	TCase *tc = tcase_create("tree_paths");

	tcase_add_test(tc, tree_paths_batches_merge);
	tcase_add_test(tc, tree_paths_bounded);
	suite_add_tcase(s, tc);
	return s;
}
