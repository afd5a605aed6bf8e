/* A stack as the model keeps it (internal to model/): its key text,
 * [uint32 depth] then [uint32 len][bytes] per frame, root first, with its
 * frame ids stored before the key as the interned string's extra bytes;
 * the hash of its frames; and the canonical order on keys. */
#ifndef ASYNCTOP_MODEL_STACKKEY_H
#define ASYNCTOP_MODEL_STACKKEY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "model/hash.h"
#include "model/intern.h"
#include "model/strview.h"

static inline uint32_t stackkey_rd32(const char *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/* The frame ids of a key, root first (stackkey_rd32(key) of them). */
static inline const uint32_t *stackkey_ids(const char *key)
{
	size_t depth = stackkey_rd32(key);

	return (const uint32_t *)(const void *)(key - sizeof(uint32_t) -
	                                        depth * sizeof(uint32_t));
}

/* n frames as a lookup key: the frames, and the length of their key
 * text. */
struct frames_key {
	const struct strview *v;
	size_t n, len;
};

/* Writes the key text of n frames into out (room checked by the caller);
 * returns its length. */
size_t stackkey_text(char *out, const struct strview *v, size_t n);
/* The hash of n frames and the comparison of the stacks' id index are
 * inline, so that hash_table_find inlines the comparison into its probe:
 * they run once per sample. */

static inline uint64_t stackkey_rotl64(uint64_t x, unsigned r)
{
	return (x << r) | (x >> (64 - r));
}

static inline uint64_t stackkey_ld64(const char *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static inline uint64_t stackkey_ld32(const char *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/* Up to 7 bytes at p in a word, with fixed-size loads. */
static inline uint64_t stackkey_short_word(const char *p, size_t n)
{
	if (n >= 4)
		return stackkey_ld32(p) | stackkey_ld32(p + n - 4) << 32;
	if (n == 0)
		return 0;
	return (uint64_t)(unsigned char)p[0] << 16 |
	       (uint64_t)(unsigned char)p[n / 2] << 8 | (unsigned char)p[n - 1];
}

static inline uint64_t stackkey_lane(uint64_t x, uint64_t w)
{
	return stackkey_rotl64((x ^ w) * 0x9e3779b97f4a7c15ull, 29);
}

/* The hash of n frames: three lanes take a frame's words in turn (so that
 * their multiplications overlap), a fourth its last 8 bytes (which may
 * overlap the others': any word will do) and its length. */
static inline uint64_t stackkey_hash(const struct strview *v, size_t n)
{
	uint64_t a = n, b = 0x243f6a8885a308d3ull, c = 0x13198a2e03707344ull,
	         d = 0xa4093822299f31d0ull;

	for (size_t f = 0; f < n; f++) {
		const char *p = v[f].ptr;
		size_t len = v[f].len;
		uint64_t t;
		if (len >= 8) {
			size_t i = 0;
			for (; i + 16 < len; i += 16) {
				a = stackkey_lane(a, stackkey_ld64(p + i));
				b = stackkey_lane(b, stackkey_ld64(p + i + 8));
			}
			if (i + 8 < len)
				c = stackkey_lane(c, stackkey_ld64(p + i));
			t = stackkey_ld64(p + len - 8);
		} else {
			t = stackkey_short_word(p, len);
		}
		d = stackkey_lane(d, t ^ (uint64_t)len << 56);
	}
	a ^= stackkey_rotl64(b, 16) ^ stackkey_rotl64(c, 32) ^
	     stackkey_rotl64(d, 48);
	return hash_mix64(a ^ (b + c + d));
}

/* Whether n bytes at a and b are equal, a word at a time. */
static inline bool stackkey_bytes_eq(const char *a, const char *b, size_t n)
{
	uint64_t d = 0;

	if (n < 8)
		return n == 0 || memcmp(a, b, n) == 0;
	for (size_t i = 0; i + 8 <= n; i += 8)
		d |= stackkey_ld64(a + i) ^ stackkey_ld64(b + i);
	return (d | (stackkey_ld64(a + n - 8) ^ stackkey_ld64(b + n - 8))) == 0;
}

/* Whether a stack's key text holds the frames of ctx (a frames_key).
 * Once the lengths agree, every offset comes from the frames, not from
 * the key, so that the key's cache lines are all fetched at once. */
static inline bool stackkey_eq(const void *ctx, uint32_t id, const void *key)
{
	const struct frames_key *k = ctx;
	const char *p = key;

	(void)id;
	if (intern_keylen(p) != k->len || stackkey_rd32(p) != k->n)
		return false;
	p += sizeof(uint32_t);
	for (size_t i = 0; i < k->n; i++) {
		size_t len = k->v[i].len;
		if (stackkey_rd32(p) != len ||
		    !stackkey_bytes_eq(p + sizeof(uint32_t), k->v[i].ptr, len))
			return false;
		p += sizeof(uint32_t) + len;
	}
	return true;
}

/* The canonical order on two keys: frame by frame, equal frame ids equal
 * without reading their bytes, byte-wise otherwise, a prefix first. */
int stackkey_cmp(const char *a, const char *b);

/* Length of p cut to at most max bytes without splitting a UTF-8 sequence
 * that starts before the cut (invalid bytes are cut where they fall). */
size_t model_utf8_cut(const char *p, size_t len, size_t max);

#endif
