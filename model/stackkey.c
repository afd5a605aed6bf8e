/* A stack's key text, its hash and the canonical order on keys: the
 * layout model.c interns stacks in and commit.c orders rows by. */
#include "model/stackkey.h"

#include "model/hash.h"
#include "model/intern.h"

/* Length of p cut to at most max bytes without splitting a UTF-8 sequence
 * that starts before the cut (invalid bytes are cut where they fall). */
size_t model_utf8_cut(const char *p, size_t len, size_t max)
{
	size_t k = max;

	if (len <= max)
		return len;
	while (k > 0 && max - k < 4) {
		unsigned char c = (unsigned char)p[--k];
		size_t need;
		if ((c & 0xc0) == 0x80)
			continue;
		if (c < 0xc0)
			break;
		need = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : 2;
		return k + need > max ? k : max;
	}
	return max;
}

/* The canonical order on two stack keys: frame by frame, equal frame ids
 * equal without reading their bytes, a prefix first. */
int stackkey_cmp(const char *a, const char *b)
{
	uint32_t da = stackkey_rd32(a), db = stackkey_rd32(b);
	const uint32_t *ia = stackkey_ids(a), *ib = stackkey_ids(b);

	a += sizeof(uint32_t);
	b += sizeof(uint32_t);
	for (uint32_t i = 0; i < da && i < db; i++) {
		uint32_t la = stackkey_rd32(a), lb = stackkey_rd32(b);
		if (ia[i] != ib[i]) {
			int c = sv_cmp(sv_n(a + 4, la), sv_n(b + 4, lb));
			if (c)
				return c < 0 ? -1 : 1;
		}
		a += 4 + (size_t)la;
		b += 4 + (size_t)lb;
	}
	return (da > db) - (da < db);
}

/* Writes the key text of n frames into out (room checked by the caller);
 * returns its length. */
size_t stackkey_text(char *out, const struct strview *v, size_t n)
{
	uint32_t n32 = (uint32_t)n;
	size_t at = sizeof(n32);

	memcpy(out, &n32, sizeof(n32));
	for (size_t i = 0; i < n; i++) {
		n32 = (uint32_t)v[i].len;
		memcpy(out + at, &n32, sizeof(n32));
		memcpy(out + at + sizeof(n32), v[i].ptr, v[i].len);
		at += sizeof(n32) + v[i].len;
	}
	return at;
}

static inline uint64_t rotl64(uint64_t x, unsigned r)
{
	return (x << r) | (x >> (64 - r));
}

static inline uint64_t ld64(const char *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static inline uint64_t ld32(const char *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/* Up to 7 bytes at p in a word, with fixed-size loads. */
static inline uint64_t short_word(const char *p, size_t n)
{
	if (n >= 4)
		return ld32(p) | ld32(p + n - 4) << 32;
	if (n == 0)
		return 0;
	return (uint64_t)(unsigned char)p[0] << 16 |
	       (uint64_t)(unsigned char)p[n / 2] << 8 | (unsigned char)p[n - 1];
}

static inline uint64_t lane(uint64_t x, uint64_t w)
{
	return rotl64((x ^ w) * 0x9e3779b97f4a7c15ull, 29);
}

/* The hash of n frames: three lanes take a frame's words in turn (so that
 * their multiplications overlap), a fourth its last 8 bytes (which may
 * overlap the others': any word will do) and its length. */
uint64_t stackkey_hash(const struct strview *v, size_t n)
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
				a = lane(a, ld64(p + i));
				b = lane(b, ld64(p + i + 8));
			}
			if (i + 8 < len)
				c = lane(c, ld64(p + i));
			t = ld64(p + len - 8);
		} else {
			t = short_word(p, len);
		}
		d = lane(d, t ^ (uint64_t)len << 56);
	}
	a ^= rotl64(b, 16) ^ rotl64(c, 32) ^ rotl64(d, 48);
	return hash_mix64(a ^ (b + c + d));
}

/* Whether n bytes at a and b are equal, a word at a time. */
static inline bool bytes_eq(const char *a, const char *b, size_t n)
{
	uint64_t d = 0;

	if (n < 8)
		return n == 0 || memcmp(a, b, n) == 0;
	for (size_t i = 0; i + 8 <= n; i += 8)
		d |= ld64(a + i) ^ ld64(b + i);
	return (d | (ld64(a + n - 8) ^ ld64(b + n - 8))) == 0;
}

/* Whether a stack's key text holds the frames of ctx (a frames_key).
 * Once the lengths agree, every offset comes from the frames, not from
 * the key, so that the key's cache lines are all fetched at once. */
bool stackkey_eq(const void *ctx, uint32_t id, const void *key)
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
		    !bytes_eq(p + sizeof(uint32_t), k->v[i].ptr, len))
			return false;
		p += sizeof(uint32_t) + len;
	}
	return true;
}
