/* The filter's case folding and substring matching, shared by the search
 * index (tui/view_search.c) and the plain matcher, view_row_matches, that
 * the index must agree with. */
#include "tui/view_search.h"

#include <string.h>

/* The simple lower case of a code point of two UTF-8 bytes (U+0080 ..
 * U+07FF) when that is two bytes too; else the code point itself. */
static uint32_t lower2(uint32_t c)
{
	if (c >= 0xC0 && c <= 0xDE && c != 0xD7)
		return c + 0x20;
	if (c == 0x178)
		return 0xFF;
	if (c >= 0x100 && c <= 0x17F) {
		if (c == 0x130 || c == 0x131 || c == 0x138 || c == 0x149 ||
		    c == 0x17F)
			return c;
		/* 0x139 .. 0x148 and 0x179 .. 0x17E (0x17F returned) */
		if ((c >= 0x139 && c <= 0x148) || c >= 0x179)
			return c & 1 ? c + 1 : c;
		return c & 1 ? c : c + 1;
	}
	if (c == 0x386)
		return 0x3AC;
	if (c >= 0x388 && c <= 0x38A)
		return c + 0x25;
	if (c == 0x38C)
		return 0x3CC;
	if (c == 0x38E || c == 0x38F)
		return c + 0x3F;
	if (c >= 0x391 && c <= 0x3AB && c != 0x3A2)
		return c + 0x20;
	if (c == 0x3C2) /* final sigma folds to sigma */
		return 0x3C3;
	if (c >= 0x400 && c <= 0x40F)
		return c + 0x50;
	if (c >= 0x410 && c <= 0x42F)
		return c + 0x20;
	if (c == 0x4C0)
		return 0x4CF;
	if ((c >= 0x460 && c <= 0x481) || (c >= 0x48A && c <= 0x4BF) ||
	    (c >= 0x4D0 && c <= 0x52F))
		return c & 1 ? c : c + 1;
	if (c >= 0x4C1 && c <= 0x4CE)
		return c & 1 ? c + 1 : c;
	if (c >= 0x531 && c <= 0x556)
		return c + 0x30;
	return c;
}

static bool is_lead2(unsigned char c)
{
	return c >= 0xC2 && c <= 0xDF;
}

static bool is_cont(unsigned char c)
{
	return c >= 0x80 && c <= 0xBF;
}

/* Byte i of s (n bytes) case-folded.  Each byte folds alone, or with its
 * neighbour when the two form a well-formed two-byte character (a lead
 * byte is never a continuation byte, so the pairs are unambiguous); the
 * fold keeps lengths, so folded offsets are the string's offsets. */
static unsigned char fold_at(const char *s, size_t n, size_t i)
{
	const unsigned char *u = (const unsigned char *)s;
	unsigned char c = u[i];
	uint32_t cp;

	if (c < 0x80)
		return c >= 'A' && c <= 'Z' ? (unsigned char)(c + 32) : c;
	if (is_lead2(c) && i + 1 < n && is_cont(u[i + 1])) {
		cp = lower2((uint32_t)(c & 0x1F) << 6 | (u[i + 1] & 0x3F));
		return (unsigned char)(0xC0 | cp >> 6);
	}
	if (is_cont(c) && i > 0 && is_lead2(u[i - 1])) {
		cp = lower2((uint32_t)(u[i - 1] & 0x1F) << 6 | (c & 0x3F));
		return (unsigned char)(0x80 | (cp & 0x3F));
	}
	return c;
}

/* Folds n bytes of s from at into out: eight ASCII bytes at a time (A-Z
 * gain 0x20: a byte of 0x41 .. 0x5A sets bit 7 of its sum with 0x3F and
 * not that with 0x25), else a byte at a time. */
void vsearch_fold_span(struct strview s, size_t at, size_t n, char *out)
{
	const uint64_t high = 0x8080808080808080u;
	const unsigned char *u = (const unsigned char *)s.ptr + at;
	size_t j = 0;

	while (j < n) {
		uint64_t x;

		if (n - j >= 8) {
			memcpy(&x, u + j, 8);
			if (!(x & high)) {
				x |= ((x + 0x3F3F3F3F3F3F3F3Fu) &
				      ~(x + 0x2525252525252525u) & high) >>
				     2;
				memcpy(out + j, &x, 8);
				j += 8;
				continue;
			}
		}
		for (size_t end = n - j < 8 ? n : j + 8; j < end; j++) {
			unsigned char c = u[j];
			out[j] =
			    (char)(c < 0x80
			               ? (c >= 'A' && c <= 'Z' ? c + 32 : c)
			               : fold_at(s.ptr, s.len, at + j));
		}
	}
}

/* Byte substring search: needle (nn >= 1 bytes) in hay. */
bool vsearch_find(const char *hay, size_t hn, const char *needle, size_t nn)
{
	const char *p = hay, *end;

	if (nn > hn)
		return false;
	end = hay + (hn - nn) + 1;
	while ((p = memchr(p, needle[0], (size_t)(end - p)))) {
		if (!memcmp(p + 1, needle + 1, nn - 1))
			return true;
		p++;
	}
	return false;
}

/* f's first byte is ASCII, so only an ASCII byte of s folds to it: the
 * byte itself or its upper case.  Only where s holds one are the next
 * bytes folded and compared. */
bool vsearch_hits(struct strview s, const char *f, size_t len)
{
	const unsigned char *u = (const unsigned char *)s.ptr;
	unsigned char lo = (unsigned char)f[0], up;

	if (lo >= 0x80)
		return vsearch_hits_slow(s, f, len);
	up = lo >= 'a' && lo <= 'z' ? (unsigned char)(lo - 32) : lo;
	for (size_t i = 0; len <= s.len && i <= s.len - len; i++) {
		size_t k = 1;

		if (u[i] != lo && u[i] != up)
			continue;
		while (k < len &&
		       fold_at(s.ptr, s.len, i + k) == (unsigned char)f[k])
			k++;
		if (k == len)
			return true;
	}
	return false;
}

/* needle in s, both folded a byte at a time. */
bool vsearch_hits_slow(struct strview s, const char *needle, size_t len)
{
	for (size_t i = 0; len <= s.len && i <= s.len - len; i++) {
		size_t k = 0;

		while (k < len &&
		       fold_at(s.ptr, s.len, i + k) == fold_at(needle, len, k))
			k++;
		if (k == len)
			return true;
	}
	return false;
}

bool view_row_matches(const struct model *m, const struct window *w, size_t row,
                      const char *needle, size_t len)
{
	const struct fold_row *r = &w->rows[row];
	const uint32_t *frames;
	size_t depth = 0;

	if (!len)
		return true;
	frames = model_stack(m, r->stack, &depth);
	for (size_t i = 0; i < depth; i++)
		if (vsearch_hits_slow(model_frame(m, frames[i]), needle, len))
			return true;
	for (uint32_t i = 0; i < r->count; i++)
		if (vsearch_hits_slow(
		        model_name(m, w->entries[r->first + i].name), needle,
		        len))
			return true;
	return false;
}
