/* Messages on stderr, made safe for a terminal: they carry text from
 * outside (an agent's error, a file's name, a producer's explanation, a
 * launched program's output, a command line), and a raw escape sequence in
 * it would reach the user's terminal.  Every message of the front end goes
 * through here, as every line of the screen goes through utf8_sanitize. */
#ifndef ASYNCTOP_TUI_SAFE_H
#define ASYNCTOP_TUI_SAFE_H

#include <stdbool.h>
#include <stddef.h>

#include "model/base.h"

/* True when the environment's locale (LC_ALL, LC_CTYPE, LANG) has the
 * UTF-8 charset; false for "C", POSIX, another charset or a locale that
 * does not exist.  Leaves the process's locale alone. */
bool safe_utf8(void);

/* Copies text into dst (size > 0; always NUL-terminated, cut at a
 * character's boundary when short), each line sanitised for display, the
 * line breaks kept: in a UTF-8 locale (safe_utf8) a control character or an
 * invalid byte becomes U+FFFD (utf8_sanitize, flags 0); in any other, which
 * could not show U+FFFD and might read a UTF-8 byte as a C1 control, every
 * byte that is not printable ASCII becomes '?' (UTF8_ASCII).  Never emits a
 * raw control byte but '\n'. */
void safe_text(char *dst, size_t size, const char *text);

/* Writes "head: text\n" on stderr, both made safe by safe_text, in one
 * write, and flushes it.  head may be NULL (then text alone). */
void safe_say(const char *head, const char *text);

/* safe_say with a printf-style text. */
void safe_sayf(const char *head, const char *fmt, ...) PRINTF(2, 3);

#endif
