/* Locale-independent UTF-8: a strict decoder, sanitising for display and for
 * collapsed stacks, display widths from a built-in table, and width-aware
 * truncation.  The viewer (tui/) calls these too, so results never depend
 * on the user's locale. */
#ifndef ASYNCTOP_ENCODE_UTF8_H
#define ASYNCTOP_ENCODE_UTF8_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/base.h"
#include "model/buf.h"
#include "model/status.h"
#include "model/strview.h"

/* What utf8_decode gives for bytes that are not a valid character. */
#define UTF8_INVALID ((uint32_t)0xFFFFFFFFu)

/* The ellipsis of utf8_fit: U+2026, one column; "~" in ASCII mode. */
#define UTF8_ELLIPSIS "\xE2\x80\xA6"

/* Decodes the character at the start of s.  Returns the bytes it takes
 * (1 to 4; 0 only when s is empty).  *cp gets the code point, or
 * UTF8_INVALID for a maximal invalid subpart (Unicode "substitution of
 * maximal subparts"): a stray or impossible byte, an overlong form, a
 * surrogate, a value past U+10FFFF, or a truncated sequence.  Never reads
 * past s.len. */
size_t utf8_decode(struct strview s, uint32_t *cp);

/* True when all of s is well-formed UTF-8 (no overlongs, no surrogates,
 * nothing past U+10FFFF, no truncated sequence). */
bool utf8_valid(struct strview s);

/* True for what this module never lets through as such: C0 (U+0000-001F),
 * DEL, C1 (U+0080-009F), the line and paragraph separators U+2028/2029 and
 * the bidi embedding, override and isolate controls (U+202A-202E,
 * U+2066-2069), which could reorder or break a terminal line. */
bool utf8_is_control(uint32_t cp);

/* Display width of a code point: 2 for East Asian Wide and Fullwidth
 * (CJK, Hangul syllables, kana, fullwidth forms, the emoji blocks), 0 for
 * combining marks, zero-width joiners and spaces, variation selectors and
 * tags, 1 otherwise.  A control character or UTF8_INVALID counts 1, the
 * width of the U+FFFD that replaces it.  A compact approximation of
 * Unicode 15 EastAsianWidth and Mn/Me/Cf, the same for every locale. */
unsigned utf8_cp_width(uint32_t cp);

/* Flags of the sanitising functions. */
enum utf8_flags {
	UTF8_CTRL_SPACE = 1u << 0, /* control characters become ' ' */
	UTF8_SEMI_COLON = 1u << 1, /* ';' becomes ':' (collapsed frames) */
	UTF8_ASCII = 1u << 2,      /* ASCII only: '?' for every non-ASCII,
	                            * invalid or control character, nothing
	                            * for zero-width ones; "~" as ellipsis */
	/* Control characters (NUL included) are copied like any other
	 * character, so only invalid subparts are replaced: for pprof
	 * strings, never for display. */
	UTF8_KEEP_CONTROL = 1u << 3,
};

/* Appends s to out, made safe: each invalid subpart becomes U+FFFD; a
 * control character (utf8_is_control) becomes U+FFFD, or ' ' with
 * UTF8_CTRL_SPACE; everything else is copied.  flags is a set of enum
 * utf8_flags.  Never emits a raw control byte or escape sequence, unless
 * UTF8_KEEP_CONTROL asks for them.  Returns out's sticky status
 * (STATUS_NOMEM, STATUS_LIMIT). */
enum status utf8_sanitize(struct buf *out, struct strview s, unsigned flags);

/* Display width of s once sanitised for display (flags 0). */
size_t utf8_width(struct strview s);

enum fit_mode {
	FIT_END,    /* keep the start: "app:poll_backend:31 ← app:ma…" */
	FIT_MIDDLE, /* keep both ends: "app:poll_b…_backend:31" */
};

/* Appends s to out sanitised for display (as utf8_sanitize with flags 0)
 * and, when it is wider than columns, truncated to at most columns
 * display columns with U+2026 "…" where text was cut.  Never splits a
 * character, never leaves half of a wide one; combining marks stay with
 * their base.  columns 0 appends nothing; 1 gives the whole of s if it fits
 * in one column, else "…".  FIT_MIDDLE keeps the head (half the room,
 * rounded up) and fills the rest from the tail.  The result may be
 * narrower than columns when a wide character does not fit: the caller
 * pads.  Returns out's sticky status. */
enum status utf8_fit(struct buf *out, struct strview s, size_t columns,
                     enum fit_mode mode);

/* utf8_fit with flags (enum utf8_flags; UTF8_ASCII for a terminal whose
 * codeset is not UTF-8) and *width (may be NULL) set to the columns the
 * appended text takes. */
enum status utf8_fit_ex(struct buf *out, struct strview s, size_t columns,
                        enum fit_mode mode, unsigned flags, size_t *width);

#endif
