/* model/arena: alignment, block reuse, big requests, failure and reset. */
#include <check.h>
#include <stdint.h>
#include <string.h>

#include "model/alloc.h"
#include "model/arena.h"

START_TEST(aligned_and_distinct)
{
	struct arena a;
	unsigned char *p[64];

	arena_init(&a, 1024);
	for (size_t i = 0; i < ARRAY_SIZE(p); i++) {
		p[i] = arena_alloc(&a, i);
		ck_assert_ptr_nonnull(p[i]);
		ck_assert_uint_eq((uintptr_t)p[i] % ARENA_ALIGN, 0);
		memset(p[i], (int)i, i);
	}
	/* nothing overlapped: each keeps its own bytes */
	for (size_t i = 0; i < ARRAY_SIZE(p); i++) {
		for (size_t k = 0; k < i; k++)
			ck_assert_uint_eq(p[i][k], i);
		if (i > 0)
			ck_assert_ptr_ne(p[i], p[i - 1]);
	}
	ck_assert(!a.nomem);
	arena_fini(&a);
	ck_assert_ptr_null(a.head);
	ck_assert_uint_eq(a.block, 1024);
}
END_TEST

START_TEST(one_allocation_per_block)
{
	struct arena a;
	void *big;

	arena_init(&a, 4096);
	mem_count_reset();
	for (int i = 0; i < 100; i++) /* 100 * 32 bytes: one block */
		ck_assert_ptr_nonnull(arena_alloc(&a, 30));
	ck_assert_uint_eq(mem_count(), 1);
	/* a request over the block size gets a block of its own size */
	big = arena_alloc(&a, 100000);
	ck_assert_ptr_nonnull(big);
	memset(big, 0xAB, 100000);
	ck_assert_uint_eq(mem_count(), 2);
	/* the next small one needs a fresh block: the big one is full */
	ck_assert_ptr_nonnull(arena_alloc(&a, 1));
	ck_assert_uint_eq(mem_count(), 3);
	arena_fini(&a);
}
END_TEST

START_TEST(failure_is_reported)
{
	struct arena a;

	arena_init(&a, 256);
	mem_fail_at(1);
	ck_assert_ptr_null(arena_alloc(&a, 10));
	mem_fail_at(0);
	ck_assert(a.nomem);
	ck_assert_ptr_null(a.head);
	/* the arena stays usable */
	ck_assert_ptr_nonnull(arena_alloc(&a, 10));
	/* a size that cannot be rounded or headed fails without allocating */
	mem_count_reset();
	ck_assert_ptr_null(arena_alloc(&a, SIZE_MAX));
	ck_assert_ptr_null(arena_alloc(&a, SIZE_MAX - 300));
	ck_assert_uint_eq(mem_count(), 0);
	arena_fini(&a);
	ck_assert(!a.nomem);
}
END_TEST

Suite *suite_arena(void);
Suite *suite_arena(void)
{
	Suite *s = suite_create("arena");
	TCase *tc = tcase_create("arena");

	tcase_add_test(tc, aligned_and_distinct);
	tcase_add_test(tc, one_allocation_per_block);
	tcase_add_test(tc, failure_is_reported);
	suite_add_tcase(s, tc);
	return s;
}
