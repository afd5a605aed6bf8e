/* Strict UTF-8 decoding, sanitising, display widths and truncation, with
 * no locale involved. */
#include "encode/utf8.h"

size_t utf8_decode(struct strview s, uint32_t *cp)
{
	const unsigned char *p = (const unsigned char *)s.ptr;
	unsigned char lo = 0x80, hi = 0xBF;
	size_t need, i;
	uint32_t c;

	*cp = UTF8_INVALID;
	if (s.len == 0)
		return 0;
	if (p[0] < 0x80) {
		*cp = p[0];
		return 1;
	}
	if (p[0] < 0xC2 || p[0] > 0xF4)
		return 1; /* continuation, overlong lead or past U+10FFFF */
	if (p[0] < 0xE0) {
		need = 1;
		c = p[0] & 0x1Fu;
	} else if (p[0] < 0xF0) {
		need = 2;
		c = p[0] & 0x0Fu;
		if (p[0] == 0xE0)
			lo = 0xA0; /* overlong */
		else if (p[0] == 0xED)
			hi = 0x9F; /* surrogates */
	} else {
		need = 3;
		c = p[0] & 0x07u;
		if (p[0] == 0xF0)
			lo = 0x90; /* overlong */
		else if (p[0] == 0xF4)
			hi = 0x8F; /* past U+10FFFF */
	}
	for (i = 1; i <= need; i++) {
		if (i >= s.len || p[i] < lo || p[i] > hi)
			return i; /* the maximal subpart ends here */
		c = (c << 6) | (p[i] & 0x3Fu);
		lo = 0x80;
		hi = 0xBF;
	}
	*cp = c;
	return need + 1;
}

bool utf8_valid(struct strview s)
{
	uint32_t cp;

	while (s.len) {
		size_t n = utf8_decode(s, &cp);
		if (cp == UTF8_INVALID)
			return false;
		s.ptr += n;
		s.len -= n;
	}
	return true;
}

bool utf8_is_control(uint32_t cp)
{
	return cp < 0x20 || (cp >= 0x7F && cp <= 0x9F) || cp == 0x2028 ||
	       cp == 0x2029 || (cp >= 0x202A && cp <= 0x202E) ||
	       (cp >= 0x2066 && cp <= 0x2069);
}

struct range {
	uint32_t lo, hi;
};

static const struct range zero_width[] = {
	{ 0x0300, 0x036F },   { 0x0483, 0x0489 },   { 0x0591, 0x05BD },
	{ 0x05BF, 0x05BF },   { 0x05C1, 0x05C2 },   { 0x05C4, 0x05C5 },
	{ 0x05C7, 0x05C7 },   { 0x0610, 0x061A },   { 0x061C, 0x061C },
	{ 0x064B, 0x065F },   { 0x0670, 0x0670 },   { 0x06D6, 0x06DC },
	{ 0x06DF, 0x06E4 },   { 0x06E7, 0x06E8 },   { 0x06EA, 0x06ED },
	{ 0x0711, 0x0711 },   { 0x0730, 0x074A },   { 0x07A6, 0x07B0 },
	{ 0x07EB, 0x07F3 },   { 0x0900, 0x0902 },   { 0x093A, 0x093A },
	{ 0x093C, 0x093C },   { 0x0941, 0x0948 },   { 0x094D, 0x094D },
	{ 0x0951, 0x0957 },   { 0x0962, 0x0963 },   { 0x0981, 0x0981 },
	{ 0x09BC, 0x09BC },   { 0x09C1, 0x09C4 },   { 0x09CD, 0x09CD },
	{ 0x09E2, 0x09E3 },   { 0x0E31, 0x0E31 },   { 0x0E34, 0x0E3A },
	{ 0x0E47, 0x0E4E },   { 0x0EB1, 0x0EB1 },   { 0x0EB4, 0x0EBC },
	{ 0x0EC8, 0x0ECD },   { 0x1160, 0x11FF },   { 0x1AB0, 0x1AFF },
	{ 0x1DC0, 0x1DFF },   { 0x200B, 0x200F },   { 0x202A, 0x202E },
	{ 0x2060, 0x2064 },   { 0x2066, 0x206F },   { 0x20D0, 0x20F0 },
	{ 0x302A, 0x302D },   { 0x3099, 0x309A },   { 0xD7B0, 0xD7FF },
	{ 0xFE00, 0xFE0F },   { 0xFE20, 0xFE2F },   { 0xFEFF, 0xFEFF },
	{ 0xE0000, 0xE007F }, { 0xE0100, 0xE01EF },
};

static const struct range wide[] = {
	{ 0x1100, 0x115F },   { 0x231A, 0x231B },   { 0x2329, 0x232A },
	{ 0x23E9, 0x23EC },   { 0x23F0, 0x23F0 },   { 0x23F3, 0x23F3 },
	{ 0x25FD, 0x25FE },   { 0x2614, 0x2615 },   { 0x2648, 0x2653 },
	{ 0x267F, 0x267F },   { 0x2693, 0x2693 },   { 0x26A1, 0x26A1 },
	{ 0x26AA, 0x26AB },   { 0x26BD, 0x26BE },   { 0x26C4, 0x26C5 },
	{ 0x26CE, 0x26CE },   { 0x26D4, 0x26D4 },   { 0x26EA, 0x26EA },
	{ 0x26F2, 0x26F3 },   { 0x26F5, 0x26F5 },   { 0x26FA, 0x26FA },
	{ 0x26FD, 0x26FD },   { 0x2705, 0x2705 },   { 0x270A, 0x270B },
	{ 0x2728, 0x2728 },   { 0x274C, 0x274C },   { 0x274E, 0x274E },
	{ 0x2753, 0x2755 },   { 0x2757, 0x2757 },   { 0x2795, 0x2797 },
	{ 0x27B0, 0x27B0 },   { 0x27BF, 0x27BF },   { 0x2B1B, 0x2B1C },
	{ 0x2B50, 0x2B50 },   { 0x2B55, 0x2B55 },   { 0x2E80, 0x303E },
	{ 0x3041, 0x33FF },   { 0x3400, 0x4DBF },   { 0x4E00, 0x9FFF },
	{ 0xA000, 0xA4CF },   { 0xA960, 0xA97F },   { 0xAC00, 0xD7A3 },
	{ 0xF900, 0xFAFF },   { 0xFE10, 0xFE19 },   { 0xFE30, 0xFE6F },
	{ 0xFF00, 0xFF60 },   { 0xFFE0, 0xFFE6 },   { 0x16FE0, 0x16FE4 },
	{ 0x17000, 0x18CFF }, { 0x1B000, 0x1B2FF }, { 0x1F004, 0x1F004 },
	{ 0x1F0CF, 0x1F0CF }, { 0x1F18E, 0x1F18E }, { 0x1F191, 0x1F19A },
	{ 0x1F200, 0x1F202 }, { 0x1F210, 0x1F23B }, { 0x1F240, 0x1F248 },
	{ 0x1F250, 0x1F251 }, { 0x1F260, 0x1F265 }, { 0x1F300, 0x1F64F },
	{ 0x1F680, 0x1F6FF }, { 0x1F7E0, 0x1F7EB }, { 0x1F900, 0x1F9FF },
	{ 0x1FA70, 0x1FAFF }, { 0x20000, 0x2FFFD }, { 0x30000, 0x3FFFD },
};

static bool in_table(uint32_t cp, const struct range *t, size_t n)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (cp < t[mid].lo)
			hi = mid;
		else if (cp > t[mid].hi)
			lo = mid + 1;
		else
			return true;
	}
	return false;
}

unsigned utf8_cp_width(uint32_t cp)
{
	if (cp < 0x300)
		return 1; /* ASCII, Latin-1, controls (replaced) */
	if (cp > 0x10FFFF || utf8_is_control(cp))
		return 1;
	if (in_table(cp, zero_width, ARRAY_SIZE(zero_width)))
		return 0;
	if (in_table(cp, wide, ARRAY_SIZE(wide)))
		return 2;
	return 1;
}

/* One character of input and what it becomes on output. */
enum unit_out { OUT_RAW, OUT_FFFD, OUT_CHAR, OUT_NONE };

struct unit {
	size_t len; /* input bytes */
	enum unit_out out;
	char c;         /* for OUT_CHAR */
	unsigned width; /* display columns of the output */
};

static void unit_next(struct strview s, unsigned flags, struct unit *u)
{
	uint32_t cp;
	bool ascii = flags & UTF8_ASCII;

	u->len = utf8_decode(s, &cp);
	u->width = 1;
	u->out = OUT_RAW;
	if (cp == UTF8_INVALID) {
		u->out = ascii ? OUT_CHAR : OUT_FFFD;
		u->c = '?';
	} else if (utf8_is_control(cp) && !(flags & UTF8_KEEP_CONTROL)) {
		u->out =
		    (flags & UTF8_CTRL_SPACE) || ascii ? OUT_CHAR : OUT_FFFD;
		u->c = flags & UTF8_CTRL_SPACE ? ' ' : '?';
	} else if (cp == ';' && (flags & UTF8_SEMI_COLON)) {
		u->out = OUT_CHAR;
		u->c = ':';
	} else if (cp >= 0x80) {
		u->width = utf8_cp_width(cp);
		if (ascii) {
			u->out = u->width ? OUT_CHAR : OUT_NONE;
			u->c = '?';
			u->width = u->width ? 1 : 0;
		}
	}
}

static void unit_emit(struct buf *out, struct strview s, const struct unit *u)
{
	switch (u->out) {
	case OUT_RAW:
		buf_add(out, s.ptr, u->len);
		break;
	case OUT_FFFD:
		buf_add(out, "\xEF\xBF\xBD", 3);
		break;
	case OUT_CHAR:
		buf_addc(out, u->c);
		break;
	case OUT_NONE:
		break;
	}
}

static inline struct strview sv_skip(struct strview s, size_t n)
{
	return sv_n(s.ptr + n, s.len - n);
}

enum status utf8_sanitize(struct buf *out, struct strview s, unsigned flags)
{
	struct unit u;
	size_t run = 0; /* bytes copied through unchanged, pending */

	while (run < s.len) {
		unsigned char c = (unsigned char)s.ptr[run];

		if (c >= 0x20 && c < 0x7F &&
		    (c != ';' || !(flags & UTF8_SEMI_COLON))) {
			run++; /* printable ASCII: the common case */
			continue;
		}
		unit_next(sv_skip(s, run), flags, &u);
		if (u.out == OUT_RAW) {
			run += u.len;
			continue;
		}
		buf_add(out, s.ptr, run);
		unit_emit(out, sv_skip(s, run), &u);
		s = sv_skip(s, run + u.len);
		run = 0;
	}
	return buf_add(out, s.ptr, run);
}

/* Display width of s as sanitised under flags. */
static size_t width_flags(struct strview s, unsigned flags)
{
	struct unit u;
	size_t w = 0;

	while (s.len) {
		unsigned char c = (unsigned char)s.ptr[0];

		if (c >= 0x20 && c < 0x7F) {
			w++;
			s = sv_skip(s, 1);
			continue;
		}
		unit_next(s, flags, &u);
		w += u.width;
		s = sv_skip(s, u.len);
	}
	return w;
}

size_t utf8_width(struct strview s)
{
	return width_flags(s, 0);
}

/* Emits the longest head of s that fits in budget columns (with the
 * zero-width characters that follow it); returns the bytes consumed and
 * adds the columns used to *w. */
static size_t emit_head(struct buf *out, struct strview s, size_t budget,
                        unsigned flags, size_t *w)
{
	struct unit u;
	size_t off = 0, used = 0;

	while (off < s.len) {
		unit_next(sv_skip(s, off), flags, &u);
		if (used + u.width > budget)
			break;
		unit_emit(out, sv_skip(s, off), &u);
		used += u.width;
		off += u.len;
	}
	*w += used;
	return off;
}

enum status utf8_fit_ex(struct buf *out, struct strview s, size_t columns,
                        enum fit_mode mode, unsigned flags, size_t *width)
{
	size_t total = width_flags(s, flags), w = 0, avail, off, rem;
	struct unit u;

	if (total <= columns) {
		utf8_sanitize(out, s, flags);
		w = total;
	} else if (columns > 0) {
		avail = columns - 1;
		off = emit_head(out, s,
		                mode == FIT_MIDDLE ? avail - avail / 2 : avail,
		                flags, &w);
		buf_adds(out, flags & UTF8_ASCII ? "~" : UTF8_ELLIPSIS);
		if (mode == FIT_MIDDLE) {
			/* The tail: the first character boundary after the
			 * head from which the rest fits in what is left. */
			rem = total - w;
			while (off < s.len) {
				unit_next(sv_skip(s, off), flags, &u);
				if (u.width > 0 && rem <= columns - 1 - w)
					break;
				rem -= u.width;
				off += u.len;
			}
			utf8_sanitize(out, sv_skip(s, off), flags);
			w += rem;
		}
		w += 1;
	}
	if (width)
		*width = w;
	return buf_status(out);
}

enum status utf8_fit(struct buf *out, struct strview s, size_t columns,
                     enum fit_mode mode)
{
	return utf8_fit_ex(out, s, columns, mode, 0, NULL);
}
