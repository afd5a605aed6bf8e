/* Radix sort of key/value pairs and merge sort with a context. */
#include "model/sort.h"

#include <stdbool.h>
#include <string.h>

#define SMALL 24

static void insertion_pairs(uint64_t *k, uint32_t *v, size_t n)
{
	for (size_t i = 1; i < n; i++) {
		uint64_t key = k[i];
		uint32_t val = v[i];
		size_t j = i;
		for (; j > 0 && k[j - 1] > key; j--) {
			k[j] = k[j - 1];
			v[j] = v[j - 1];
		}
		k[j] = key;
		v[j] = val;
	}
}

void sort_radix(uint64_t *keys, uint32_t *vals, uint64_t *tkeys,
                uint32_t *tvals, size_t n)
{
	size_t count[8][256];
	unsigned pass[8], npass = 0;
	uint64_t *sk = keys, *dk = tkeys, *xk, diff = 0;
	uint32_t *sv = vals, *dv = tvals, *xv;

	if (n <= SMALL) {
		insertion_pairs(keys, vals, n);
		return;
	}
	/* Only the digits where keys differ need a pass. */
	for (size_t i = 1; i < n; i++)
		diff |= keys[i] ^ keys[0];
	for (unsigned p = 0; p < 8; p++) {
		if ((diff >> (8 * p)) & 0xff)
			pass[npass++] = p;
	}
	memset(count, 0, npass * sizeof(count[0]));
	for (size_t i = 0; i < n; i++) {
		uint64_t k = keys[i];
		for (unsigned q = 0; q < npass; q++)
			count[q][(k >> (8 * pass[q])) & 0xff]++;
	}
	for (unsigned q = 0; q < npass; q++) {
		size_t *c = count[q], sum = 0;
		unsigned shift = 8 * pass[q];
		for (unsigned d = 0; d < 256; d++) {
			size_t t = c[d];
			c[d] = sum;
			sum += t;
		}
		for (size_t i = 0; i < n; i++) {
			size_t at = c[(sk[i] >> shift) & 0xff]++;
			dk[at] = sk[i];
			dv[at] = sv[i];
		}
		xk = sk, sk = dk, dk = xk;
		xv = sv, sv = dv, dv = xv;
	}
	if (sk != keys) {
		memcpy(keys, sk, n * sizeof(*keys));
		memcpy(vals, sv, n * sizeof(*vals));
	}
}

static void insertion(uint32_t *a, size_t n, sort_cmp_fn cmp, const void *ctx)
{
	for (size_t i = 1; i < n; i++) {
		uint32_t x = a[i];
		size_t j = i;
		for (; j > 0 && cmp(ctx, a[j - 1], x) > 0; j--)
			a[j] = a[j - 1];
		a[j] = x;
	}
}

void sort_merge(uint32_t *a, uint32_t *tmp, size_t n, sort_cmp_fn cmp,
                const void *ctx)
{
	uint32_t *src = a, *dst = tmp, *x;

	for (size_t i = 0; i < n; i += SMALL)
		insertion(a + i, n - i < SMALL ? n - i : SMALL, cmp, ctx);
	for (size_t w = SMALL; w < n; w *= 2) {
		for (size_t lo = 0; lo < n; lo += 2 * w) {
			size_t mid = lo + w < n ? lo + w : n;
			size_t hi = mid + w < n ? mid + w : n;
			size_t i = lo, j = mid, o = lo;
			/* Already in order: copy the two runs as they are. */
			bool sorted =
			    mid == hi || cmp(ctx, src[mid - 1], src[mid]) <= 0;
			if (sorted) {
				memcpy(dst + lo, src + lo,
				       (hi - lo) * sizeof(*a));
				continue;
			}
			while (i < mid && j < hi)
				dst[o++] = cmp(ctx, src[j], src[i]) < 0
				               ? src[j++]
				               : src[i++];
			while (i < mid)
				dst[o++] = src[i++];
			while (j < hi)
				dst[o++] = src[j++];
		}
		x = src, src = dst, dst = x;
	}
	if (src != a)
		memcpy(a, src, n * sizeof(*a));
}

/* Index a goes before index b: a lower key, or an equal one and a lower
 * index (as the stable sort leaves them). */
static bool first_before(const uint64_t *keys, uint32_t a, uint32_t b)
{
	uint64_t ka = keys[a], kb = keys[b];

	return ka < kb || (ka == kb && a < b);
}

/* Restores the heap of n indices (the one that goes last on top) below
 * slot i. */
static void first_sift(const uint64_t *keys, uint32_t *heap, size_t n, size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, top = i;
		uint32_t t;

		if (l < n && first_before(keys, heap[top], heap[l]))
			top = l;
		if (r < n && first_before(keys, heap[top], heap[r]))
			top = r;
		if (top == i)
			return;
		t = heap[i];
		heap[i] = heap[top];
		heap[top] = t;
		i = top;
	}
}

void sort_first(const uint64_t *keys, size_t n, size_t k, uint32_t *out,
                uint32_t *heap)
{
	size_t h = 0;

	k = k < n ? k : n;
	for (size_t x = 0; x < n && k; x++) {
		if (h < k) {
			size_t i = h++;

			heap[i] = (uint32_t)x;
			/* up while it goes after its parent */
			while (i &&
			       first_before(keys, heap[(i - 1) / 2], heap[i])) {
				uint32_t t = heap[i];
				heap[i] = heap[(i - 1) / 2];
				heap[(i - 1) / 2] = t;
				i = (i - 1) / 2;
			}
		} else if (first_before(keys, (uint32_t)x, heap[0])) {
			heap[0] = (uint32_t)x;
			first_sift(keys, heap, h, 0);
		}
	}
	/* the last of those kept is on top: taken out last first */
	for (size_t i = h; i-- > 0;) {
		out[i] = heap[0];
		heap[0] = heap[i];
		first_sift(keys, heap, i, 0);
	}
}
