/* What the libFuzzer targets of tests/fuzz/ share: the entry point's
 * prototype, a failed property that aborts (libFuzzer keeps the input),
 * and the checks of text meant for a terminal.  docs/testing.md. */
#ifndef ASYNCTOP_TESTS_FUZZ_FUZZ_H
#define ASYNCTOP_TESTS_FUZZ_FUZZ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "encode/utf8.h"
#include "model/strview.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Aborts with the property that failed when cond is false. */
#define FUZZ_ASSERT(cond) fuzz_assert((cond), #cond, __FILE__, __LINE__)

static inline void fuzz_assert(bool ok, const char *what, const char *file,
                               int line)
{
	if (ok)
		return;
	fprintf(stderr, "%s:%d: property failed: %s\n", file, line, what);
	abort();
}

/* True when s is valid UTF-8 holding no control character (utf8.h's
 * sense) other than the newlines in allowed ("\n" or ""). */
static inline bool fuzz_display_safe(struct strview s, bool newlines)
{
	size_t at = 0;

	while (at < s.len) {
		uint32_t cp;
		size_t n = utf8_decode(sv_n(s.ptr + at, s.len - at), &cp);

		if (cp == UTF8_INVALID)
			return false;
		if (utf8_is_control(cp) && !(newlines && cp == '\n'))
			return false;
		at += n;
	}
	return true;
}

#endif
