/* The test event channel (docs/design.md §10): one line per event, written to
 * $ASYNCTOP_TEST_EVENTS by record, the viewer and the entry point. */
#ifndef ASYNCTOP_TUI_EVENTS_H
#define ASYNCTOP_TUI_EVENTS_H

#include <stdarg.h>

#include "model/base.h"

/* Opens $ASYNCTOP_TEST_EVENTS for writing (a FIFO, which blocks until a
 * reader has it open, or a file, created and appended to).  Returns the fd,
 * or -1 when the variable is not set or the open failed (then a warning
 * prefixed with prog, borrowed, goes to stderr).  Blocks on a FIFO without
 * a reader. */
int events_open_channel(const char *prog);

/* Writes one event line (printf-style; a newline inside becomes a space)
 * to fd in one write; nothing when fd is -1.  Errors are ignored.  May
 * block while the reader of a FIFO is slow. */
void events_emit(int fd, const char *fmt, ...) PRINTF(2, 3);

/* events_emit with a va_list (used, not ended). */
void events_vemit(int fd, const char *fmt, va_list ap) PRINTF(2, 0);

#endif
