/* Stable sorts without globals, foundation code that every folder may use:
 * an LSD radix sort of (uint64 key, uint32 value) pairs and a merge sort of
 * uint32 items with an explicit comparison context. */
#ifndef ASYNCTOP_MODEL_SORT_H
#define ASYNCTOP_MODEL_SORT_H

#include <stddef.h>
#include <stdint.h>

/* Sorts keys[0..n) ascending, moving vals along; equal keys keep their
 * order.  tkeys and tvals are scratch of n items each.  Never fails. */
void sort_radix(uint64_t *keys, uint32_t *vals, uint64_t *tkeys,
                uint32_t *tvals, size_t n);

/* The first k (<= n) of the indices 0 .. n, in the order a stable
 * ascending sort of keys[0..n) gives them (equal keys by index), into
 * out[0..k); heap is scratch of k items.  One pass over the keys that
 * keeps the k first in a heap: for a page of a long list, a fraction of
 * the sort's cost.  Never fails. */
void sort_first(const uint64_t *keys, size_t n, size_t k, uint32_t *out,
                uint32_t *heap);

/* <0, 0, >0 as a sorts before, with or after b. */
typedef int (*sort_cmp_fn)(const void *ctx, uint32_t a, uint32_t b);

/* Sorts a[0..n) by cmp, stable; tmp is scratch of n items.  Never fails. */
void sort_merge(uint32_t *a, uint32_t *tmp, size_t n, sort_cmp_fn cmp,
                const void *ctx);

#endif
