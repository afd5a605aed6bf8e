/* The viewer's glyphs, each with a UTF-8 and an ASCII form, in one table;
 * the form is chosen once, from the terminal's codeset (UTF8_ASCII in the
 * flags the app keeps), so no glyph ever reaches a C-locale terminal as
 * '?'.  Pure: no curses. */
#ifndef ASYNCTOP_TUI_GLYPH_H
#define ASYNCTOP_TUI_GLYPH_H

#include <stddef.h>

/* X(ID, utf8, ascii).  The ASCII forms of the arrows are words because a
 * key's label must stay unambiguous beside '<', '>' and '^' bindings. */
/* clang-format off */
#define GLYPH_LIST(X) \
	X(SEP, " \xC2\xB7 ", " - ") \
	X(DOT, "\xC2\xB7", "-") \
	X(ELLIPSIS, "\xE2\x80\xA6", "...") \
	X(DASH, "\xE2\x80\x94", "-") \
	X(STACK_SEP, " \xE2\x86\x90 ", " < ") \
	X(ARROWS_LR, "\xE2\x86\x90\xE2\x86\x92", "<>") \
	X(ARROW_LEFT, "\xE2\x86\x90", "Left") \
	X(ARROW_RIGHT, "\xE2\x86\x92", "Right") \
	X(ARROW_UP, "\xE2\x86\x91", "Up") \
	X(ARROW_DOWN, "\xE2\x86\x93", "Down") \
	X(SORT_DOWN, "\xE2\x96\xBC", "v") \
	X(SORT_UP, "\xE2\x96\xB2", "^") \
	X(BAR_OPEN, "\xE2\x96\x95", "[") \
	X(BAR_CLOSE, "\xE2\x96\x8F", "]") \
	X(BLOCK, "\xE2\x96\x88", "#") \
	X(BLOCK_MIN, "\xE2\x96\x8F", ".") \
	X(FILL, "\xE2\x94\x80", "-") \
	X(TREE_OPEN, "\xE2\x96\xBE", "-") \
	X(TREE_CLOSED, "\xE2\x96\xB8", "+") \
	X(SPARK_1, "\xE2\x96\x81", "_") \
	X(SPARK_2, "\xE2\x96\x82", ".") \
	X(SPARK_3, "\xE2\x96\x83", "-") \
	X(SPARK_4, "\xE2\x96\x84", "~") \
	X(SPARK_5, "\xE2\x96\x85", "=") \
	X(SPARK_6, "\xE2\x96\x86", "+") \
	X(SPARK_7, "\xE2\x96\x87", "*") \
	X(SPARK_8, "\xE2\x96\x88", "#")
/* clang-format on */

enum glyph {
#define GLYPH_ENUM(id, utf8, ascii) GLYPH_##id,
	GLYPH_LIST(GLYPH_ENUM)
#undef GLYPH_ENUM
	    GLYPH_COUNT
};

/* The form of g for flags (enum utf8_flags: UTF8_ASCII picks ASCII);
 * "" out of range.  Static storage. */
const char *glyph(enum glyph g, unsigned flags);

/* s itself, or, when s is the UTF-8 form of a glyph and flags ask for
 * ASCII, that glyph's ASCII form (key labels of the keymap). */
const char *glyph_text(const char *s, unsigned flags);

/* Copies s into dst (size bytes, always terminated, cut at a character)
 * with, when flags ask for ASCII, every glyph's UTF-8 form replaced by its
 * ASCII form, the longest match first: for text composed elsewhere with
 * UTF-8 separators (the title, the status line, worded errors). */
void glyph_copy(char *dst, size_t size, const char *s, unsigned flags);

#endif
