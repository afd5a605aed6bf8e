/* Headless screens: the viewer rendered into text at a pinned size, with
 * no terminal at all (--dump-screen and the golden tests). */
#ifndef ASYNCTOP_TUI_SCREEN_DUMP_H
#define ASYNCTOP_TUI_SCREEN_DUMP_H

#include <stddef.h>

#include "model/base.h"
#include "model/buf.h"
#include "model/status.h"

struct app;

/* Renders a's screen at cols x rows and appends it to out as text: one
 * line per row, trailing spaces removed, sanitised UTF-8 (no control
 * character or escape sequence ever).  STATUS_NOMEM. */
enum status screen_dump(struct app *a, size_t cols, size_t rows,
                        struct buf *out) MUST_CHECK;

#endif
