/* Messages on stderr, made safe for a terminal (see safe.h). */
#include "tui/safe.h"

#include <langinfo.h>
#include <locale.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "encode/utf8.h"
#include "model/buf.h"
#include "model/strview.h"

/* Longest message written in one piece: a paragraph and a program's tail. */
#define SAFE_MAX 16384

/* Without memory: every byte that is not printable ASCII becomes '?'. */
static void ascii_only(char *dst, size_t size, const char *text)
{
	size_t n = 0;

	for (; *text && n + 1 < size; text++) {
		unsigned char c = (unsigned char)*text;

		dst[n++] = c == '\n' || (c >= 0x20 && c < 0x7F) ? (char)c : '?';
	}
	dst[n] = '\0';
}

bool safe_utf8(void)
{
	/* the environment's locale, looked up apart: setlocale would change
	 * the process's (an embedder's) and may not have been called */
	locale_t loc = newlocale(LC_CTYPE_MASK, "", (locale_t)0);
	const char *cs;
	bool utf8;

	if (loc == (locale_t)0)
		return false; /* setlocale would fail too, leaving "C" */
	cs = nl_langinfo_l(CODESET, loc);
	utf8 = cs && (!strcmp(cs, "UTF-8") || !strcmp(cs, "utf8"));
	freelocale(loc);
	return utf8;
}

void safe_text(char *dst, size_t size, const char *text)
{
	unsigned flags = safe_utf8() ? 0 : UTF8_ASCII;
	struct buf b;
	size_t n;

	buf_init(&b);
	for (const char *p = text;;) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);

		utf8_sanitize(&b, sv_n(p, len), flags);
		if (!nl)
			break;
		buf_addc(&b, '\n');
		p = nl + 1;
	}
	if (buf_status(&b) != STATUS_OK) {
		buf_fini(&b);
		ascii_only(dst, size, text);
		return;
	}
	n = b.len < size ? b.len : size - 1;
	/* never half a character: back off over continuation bytes */
	if (n < b.len)
		while (n > 0 && ((unsigned char)b.data[n] & 0xC0) == 0x80)
			n--;
	if (n)
		memcpy(dst, b.data, n);
	dst[n] = '\0';
	buf_fini(&b);
}

void safe_say(const char *head, const char *text)
{
	char line[SAFE_MAX], safe[SAFE_MAX];
	size_t n;

	if (head)
		snprintf(line, sizeof(line), "%s: %s", head, text);
	else
		snprintf(line, sizeof(line), "%s", text);
	safe_text(safe, sizeof(safe) - 1, line);
	n = strlen(safe);
	safe[n++] = '\n';
	fwrite(safe, 1, n, stderr);
	fflush(stderr);
}

void safe_sayf(const char *head, const char *fmt, ...)
{
	char text[SAFE_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	safe_say(head, text);
}
