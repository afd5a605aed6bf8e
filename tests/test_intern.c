/* model/ internals: the id index (hash.h), interned strings (intern.h) and
 * the two sorts (sort.h). */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/alloc.h"
#include "model/hash.h"
#include "model/intern.h"
#include "model/sort.h"
#include "tests/util.h"

static bool id_eq(const void *ctx, uint32_t id, const void *key)
{
	(void)key;
	return *(const uint32_t *)ctx == id;
}

START_TEST(hash_collisions_and_backward_shift)
{
	struct hash_table t;
	uint32_t want = 0;

	hash_table_init(&t);
	ck_assert_uint_eq(hash_table_find(&t, 3, id_eq, &want), 0);
	/* 200 ids on 7 hash values: long runs that wrap around the table */
	for (uint32_t id = 1; id <= 200; id++) {
		ck_assert_int_eq(hash_table_reserve(&t, 1), STATUS_OK);
		hash_table_insert(&t, id % 7 + 0xfffffff0u, id, NULL);
	}
	ck_assert_uint_eq(t.n, 200);
	ck_assert_uint_ge(t.cap * 3 / 4, 200);
	for (uint32_t id = 1; id <= 200; id += 3)
		hash_table_remove(&t, id % 7 + 0xfffffff0u, id);
	hash_table_remove(&t, 5, 999); /* absent: no-op */
	for (uint32_t id = 1; id <= 200; id++) {
		want = id;
		ck_assert_uint_eq(
		    hash_table_find(&t, id % 7 + 0xfffffff0u, id_eq, &want),
		    (id - 1) % 3 == 0 ? 0 : id);
	}
	ck_assert_uint_eq(t.n, 200 - 67);
	ck_assert_uint_eq(hash_table_bytes(&t),
	                  t.cap * sizeof(struct hash_slot));
	hash_table_clear(&t);
	want = 2;
	ck_assert_uint_eq(
	    hash_table_find(&t, 2 % 7 + 0xfffffff0u, id_eq, &want), 0);
	hash_table_fini(&t);
}
END_TEST

START_TEST(hash_bytes_lengths)
{
	ck_assert(hash_bytes("", 0) != hash_bytes("\0", 1));
	ck_assert(hash_bytes("abcdefgh", 8) != hash_bytes("abcdefgi", 8));
	ck_assert(hash_bytes("abcdefghij", 10) == hash_bytes("abcdefghij", 10));
	ck_assert(hash_mix64(1) != hash_mix64(2));
}
END_TEST

START_TEST(intern_ids_refs_and_reclaim)
{
	struct intern t;
	uint32_t a, b, c, again;
	bool created;

	intern_init(&t);
	ck_assert_int_eq(intern_put(&t, "alpha", 5, NULL, 0, 10, &a, &created),
	                 STATUS_OK);
	ck_assert(created);
	ck_assert_uint_eq(a, 1);
	ck_assert_int_eq(intern_put(&t, "a\0b", 3, NULL, 0, 10, &b, &created),
	                 STATUS_OK);
	ck_assert_uint_eq(b, 2);
	ck_assert_int_eq(intern_put(&t, "a\0c", 3, NULL, 0, 10, &c, &created),
	                 STATUS_OK);
	ck_assert_uint_eq(c, 3);
	ck_assert_int_eq(
	    intern_put(&t, "alpha", 5, NULL, 0, 10, &again, &created),
	    STATUS_OK);
	ck_assert(!created);
	ck_assert_uint_eq(again, a);
	ck_assert_uint_eq(intern_find(&t, "a\0c", 3), c);
	ck_assert_uint_eq(intern_find(&t, "a\0", 2), 0);
	ck_assert_uint_eq(intern_keylen(intern_slot(&t, b)->str), 3);
	ck_assert_uint_eq(intern_view(&t, a).len, 5);
	ck_assert_int_eq(memcmp(intern_view(&t, a).ptr, "alpha", 6), 0);
	ck_assert_uint_eq(intern_view(&t, 0).len, 0);
	ck_assert_uint_eq(intern_view(&t, 99).len, 0);
	ck_assert_uint_eq(t.live, 3);
	ck_assert_uint_eq(t.bytes, sizeof(struct intern_page) +
	                               8 * sizeof(void *) + (4 + 6) + (4 + 4) +
	                               (4 + 4));

	intern_ref(&t, a);
	intern_ref(&t, a);
	ck_assert(!intern_unref(&t, a));
	ck_assert(intern_unref(&t, a));
	intern_remove(&t, a, true);
	ck_assert_uint_eq(t.reclaimed, 1);
	ck_assert_uint_eq(t.live, 2);
	ck_assert_ptr_null(intern_slot(&t, a));
	ck_assert_uint_eq(intern_view(&t, a).len, 0);
	ck_assert_uint_eq(intern_find(&t, "alpha", 5), 0);
	/* the same bytes again get a new id, never the old one */
	ck_assert_int_eq(
	    intern_put(&t, "alpha", 5, NULL, 0, 10, &again, &created),
	    STATUS_OK);
	ck_assert_uint_eq(again, 4);
	intern_fini(&t);
}
END_TEST

START_TEST(intern_cap_extra_and_rollback)
{
	struct intern t;
	uint32_t id, mark, extra[2] = { 7, 9 };
	bool created;

	intern_init(&t);
	ck_assert_int_eq(
	    intern_put(&t, "k", 1, extra, sizeof(extra), 2, &id, &created),
	    STATUS_OK);
	ck_assert_int_eq(memcmp(intern_slot(&t, id)->str - 4 - sizeof(extra),
	                        extra, sizeof(extra)),
	                 0);
	intern_ref(&t, id);
	mark = t.next;
	ck_assert_int_eq(intern_put(&t, "x", 1, NULL, 0, 2, &id, &created),
	                 STATUS_OK);
	ck_assert_int_eq(intern_put(&t, "y", 1, NULL, 0, 2, &id, &created),
	                 STATUS_LIMIT);
	/* x was made after mark and nobody refers to it: gone, number back */
	intern_rollback(&t, mark);
	ck_assert_uint_eq(t.next, mark);
	ck_assert_uint_eq(t.live, 1);
	ck_assert_uint_eq(t.reclaimed, 0);
	ck_assert_uint_eq(intern_find(&t, "x", 1), 0);
	/* a referenced id after mark keeps the numbers */
	ck_assert_int_eq(intern_put(&t, "y", 1, NULL, 0, 3, &id, &created),
	                 STATUS_OK);
	intern_ref(&t, id);
	ck_assert_int_eq(intern_put(&t, "z", 1, NULL, 0, 3, &id, &created),
	                 STATUS_OK);
	intern_rollback(&t, mark);
	ck_assert_uint_eq(t.next, mark + 2);
	ck_assert_uint_eq(t.live, 2);
	ck_assert_uint_eq(intern_find(&t, "z", 1), 0);
	intern_fini(&t);
}
END_TEST

START_TEST(intern_pages_freed)
{
	struct intern t;
	uint32_t id;
	char s[16];
	bool created;
	size_t page = sizeof(struct intern_page), before;

	intern_init(&t);
	for (int i = 0; i < 3 * (int)INTERN_PAGE; i++) {
		int n = snprintf(s, sizeof(s), "s%d", i);
		ck_assert_int_eq(intern_put(&t, s, (size_t)n, NULL, 0, SIZE_MAX,
		                            &id, &created),
		                 STATUS_OK);
		ck_assert_uint_eq(id, (uint32_t)i + 1);
	}
	ck_assert_uint_eq(t.npages, 8);
	/* ids 1..255 are page 0, 256..511 page 1 */
	before = t.bytes;
	for (id = 1; id < INTERN_PAGE; id++)
		intern_remove(&t, id, true);
	ck_assert_ptr_null(t.pages[0]);
	ck_assert_uint_lt(t.bytes, before - page + 1);
	for (id = INTERN_PAGE; id < 2 * INTERN_PAGE - 1; id++)
		intern_remove(&t, id, true);
	ck_assert_ptr_nonnull(t.pages[1]); /* id 511 still lives */
	intern_remove(&t, 2 * INTERN_PAGE - 1, true);
	ck_assert_ptr_null(t.pages[1]);
	ck_assert_uint_eq(t.reclaimed, 2 * INTERN_PAGE - 1);
	ck_assert_uint_eq(intern_view(&t, 300).len, 0);
	/* the page of the next id is kept while it is the current one */
	for (id = 2 * INTERN_PAGE; id < t.next; id++)
		intern_remove(&t, id, true);
	ck_assert_ptr_nonnull(t.pages[3]);
	ck_assert_uint_eq(t.live, 0);
	ck_assert_int_eq(
	    intern_put(&t, "new", 3, NULL, 0, SIZE_MAX, &id, &created),
	    STATUS_OK);
	ck_assert_uint_eq(id, 3 * INTERN_PAGE + 1);
	intern_fini(&t);
}
END_TEST

static enum status intern_torture(void *ctx)
{
	struct intern t;
	uint32_t id;
	char s[16];
	bool created;
	enum status st = STATUS_OK;

	(void)ctx;
	intern_init(&t);
	for (int i = 0; i < 300 && st == STATUS_OK; i++) {
		int n = snprintf(s, sizeof(s), "w%d", i % 280);
		uint32_t mark = t.next;
		st =
		    intern_put(&t, s, (size_t)n, s, 2, SIZE_MAX, &id, &created);
		if (st == STATUS_OK && created && i % 2)
			intern_ref(&t, id);
		if (st != STATUS_OK) {
			intern_rollback(&t, mark);
			ck_assert_uint_eq(t.next, mark);
		}
	}
	if (st == STATUS_OK)
		ck_assert_uint_eq(t.live, 280);
	intern_fini(&t);
	return st;
}

START_TEST(intern_nomem)
{
	ck_assert_uint_gt(tu_torture(intern_torture, NULL), 280);
}
END_TEST

static int cmp_u64(const void *a, const void *b)
{
	const uint64_t *x = a, *y = b;

	/* (key, original index) packed by the caller: full order */
	return x[0] < y[0]   ? -1
	       : x[0] > y[0] ? 1
	                     : (x[1] > y[1]) - (x[1] < y[1]);
}

START_TEST(radix_matches_reference)
{
	static const size_t sizes[] = { 0, 1, 2, 24, 25, 1000, 5000 };
	uint64_t seed = 88172645463325252ull;

	for (size_t s = 0; s < ARRAY_SIZE(sizes); s++) {
		size_t n = sizes[s];
		uint64_t *k = malloc((n + 1) * sizeof(*k));
		uint64_t *tk = malloc((n + 1) * sizeof(*tk));
		uint64_t *ref = malloc((n + 1) * 2 * sizeof(*ref));
		uint32_t *v = malloc((n + 1) * sizeof(*v));
		uint32_t *tv = malloc((n + 1) * sizeof(*tv));

		for (size_t i = 0; i < n; i++) {
			seed ^= seed << 13, seed ^= seed >> 7,
			    seed ^= seed << 17;
			/* few distinct keys (ties) and some huge ones */
			k[i] = i % 3 ? seed % 17 : seed;
			v[i] = (uint32_t)i;
			ref[2 * i] = k[i];
			ref[2 * i + 1] = i;
		}
		sort_radix(k, v, tk, tv, n);
		qsort(ref, n, 2 * sizeof(*ref), cmp_u64);
		for (size_t i = 0; i < n; i++) {
			ck_assert_uint_eq(k[i], ref[2 * i]);
			ck_assert_uint_eq(v[i], ref[2 * i + 1]);
		}
		free(k), free(tk), free(ref), free(v), free(tv);
	}
}
END_TEST

/* sort_first gives the first k of the stable sort's order, for every k
 * up to n (and past it: all n), keys with many ties among them. */
START_TEST(first_matches_the_sort)
{
	static const size_t sizes[] = { 0, 1, 2, 7, 64, 1000 };
	uint64_t seed = 0x9E3779B97F4A7C15ull;

	for (size_t s = 0; s < ARRAY_SIZE(sizes); s++) {
		size_t n = sizes[s];
		uint64_t *k = malloc((n + 1) * sizeof(*k));
		uint64_t *sk = malloc((n + 1) * sizeof(*sk));
		uint64_t *tk = malloc((n + 1) * sizeof(*tk));
		uint32_t *v = malloc((n + 1) * sizeof(*v));
		uint32_t *tv = malloc((n + 1) * sizeof(*tv));
		uint32_t *out = malloc((n + 2) * sizeof(*out));
		uint32_t *heap = malloc((n + 2) * sizeof(*heap));

		for (size_t i = 0; i < n; i++) {
			seed ^= seed << 13, seed ^= seed >> 7,
			    seed ^= seed << 17;
			k[i] = sk[i] = i % 3 ? seed % 5 : ~seed % 11;
			v[i] = (uint32_t)i;
		}
		sort_radix(sk, v, tk, tv, n);
		for (size_t want = 0; want <= n + 1; want++) {
			size_t got = want < n ? want : n;

			sort_first(k, n, want, out, heap);
			for (size_t i = 0; i < got; i++)
				ck_assert_msg(out[i] == v[i],
				              "n %zu k %zu: position %zu", n,
				              want, i);
		}
		free(k), free(sk), free(tk), free(v), free(tv), free(out),
		    free(heap);
	}
}
END_TEST

static int cmp_mod10(const void *ctx, uint32_t a, uint32_t b)
{
	(void)ctx;
	return (int)(a % 10) - (int)(b % 10);
}

START_TEST(merge_is_stable)
{
	uint32_t a[1000], tmp[1000], pos[1000];

	/* a permutation of 0..999; pos[x] is where x was in the input */
	for (uint32_t i = 0; i < 1000; i++) {
		a[i] = (i * 7919u) % 1000;
		pos[a[i]] = i;
	}
	sort_merge(a, tmp, 1000, cmp_mod10, NULL);
	for (size_t i = 1; i < 1000; i++) {
		ck_assert_uint_le(a[i - 1] % 10, a[i] % 10);
		if (a[i - 1] % 10 == a[i] % 10)
			ck_assert_uint_lt(pos[a[i - 1]], pos[a[i]]);
	}
}
END_TEST

Suite *suite_intern(void);
Suite *suite_intern(void)
{
	Suite *s = suite_create("intern");
	TCase *tc = tcase_create("intern");

	tcase_add_test(tc, hash_collisions_and_backward_shift);
	tcase_add_test(tc, hash_bytes_lengths);
	tcase_add_test(tc, intern_ids_refs_and_reclaim);
	tcase_add_test(tc, intern_cap_extra_and_rollback);
	tcase_add_test(tc, intern_pages_freed);
	tcase_add_test(tc, intern_nomem);
	tcase_add_test(tc, radix_matches_reference);
	tcase_add_test(tc, first_matches_the_sort);
	tcase_add_test(tc, merge_is_stable);
	suite_add_tcase(s, tc);
	return s;
}
