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
