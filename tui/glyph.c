/* The glyph table: one UTF-8 and one ASCII form per glyph. */
#include "tui/glyph.h"

#include <string.h>

#include "encode/utf8.h"
#include "model/base.h"

static const char *const utf8_forms[] = {
#define GLYPH_UTF8(id, utf8, ascii) [GLYPH_##id] = utf8,
	GLYPH_LIST(GLYPH_UTF8)
#undef GLYPH_UTF8
};

static const char *const ascii_forms[] = {
#define GLYPH_ASCII(id, utf8, ascii) [GLYPH_##id] = ascii,
	GLYPH_LIST(GLYPH_ASCII)
#undef GLYPH_ASCII
};

const char *glyph(enum glyph g, unsigned flags)
{
	if ((size_t)g >= ARRAY_SIZE(utf8_forms))
		return "";
	return flags & UTF8_ASCII ? ascii_forms[g] : utf8_forms[g];
}

const char *glyph_text(const char *s, unsigned flags)
{
	if (!(flags & UTF8_ASCII))
		return s;
	for (size_t i = 0; i < ARRAY_SIZE(utf8_forms); i++)
		if (!strcmp(s, utf8_forms[i]))
			return ascii_forms[i];
	return s;
}

void glyph_copy(char *dst, size_t size, const char *s, unsigned flags)
{
	size_t o = 0;

	if (!size)
		return;
	while (*s) {
		const char *rep = NULL;
		size_t len = 1, best = 0, rl;

		for (size_t g = 0;
		     (flags & UTF8_ASCII) && (unsigned char)*s >= 0x80 &&
		     g < ARRAY_SIZE(utf8_forms);
		     g++) {
			size_t n = strlen(utf8_forms[g]);
			if (n > best && !strncmp(s, utf8_forms[g], n)) {
				best = n;
				rep = ascii_forms[g];
			}
		}
		if (rep) {
			len = best;
		} else {
			/* a whole UTF-8 sequence, so a cut never splits one */
			while (((unsigned char)s[len] & 0xC0) == 0x80)
				len++;
		}
		rl = rep ? strlen(rep) : len;
		if (o + rl >= size)
			break;
		memcpy(dst + o, rep ? rep : s, rl);
		o += rl;
		s += len;
	}
	dst[o] = '\0';
}
