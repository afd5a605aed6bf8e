/* Collapsed ("folded") stacks, the flame-graph input (docs/formats.md): one
 * line per distinct stack, "root;...;leaf VALUE\n", for one metric. */
#ifndef ASYNCTOP_ENCODE_COLLAPSED_H
#define ASYNCTOP_ENCODE_COLLAPSED_H

#include <stddef.h>

#include "model/base.h"
#include "model/buf.h"
#include "model/metric.h"
#include "model/sample.h"
#include "model/status.h"

struct model;
struct window;

/* The longest line collapsed_decode accepts, newline excluded (the model's
 * own stacks are at most 128 frames of 4 KiB). */
#define COLLAPSED_LINE_MAX ((size_t)1 << 20)

/* Appends the rows of w (a window of m, both borrowed) to out, weighted by
 * metric: frames root first joined by ';', one space, the value in
 * decimal, '\n'.  Each frame is sanitised: ';' becomes ':', control
 * characters a space, invalid UTF-8 U+FFFD, an empty frame "[unknown]";
 * then a stack ending in a space and digits (or '.') gets that space
 * turned into '_', so readers do not take the digits for a count.  Stacks
 * that read the same after this are merged (values added, saturating).
 * Task names are not written.  Rows whose value is zero are skipped, so
 * the output can be empty (STATUS_OK).  Lines are sorted by value
 * descending, then stack ascending byte-wise.  Returns STATUS_EMPTY_WINDOW
 * for an empty window (nothing appended), STATUS_INVAL for a bad metric,
 * STATUS_NOMEM or out's sticky error (then out's appended bytes are
 * unspecified).  Deterministic; does not block. */
enum status collapsed_encode(const struct model *m, const struct window *w,
                             enum metric metric, struct buf *out) MUST_CHECK;

/* Parses collapsed stacks in data (borrowed): lines "STACK COUNT", split
 * at the last space; COUNT is a decimal uint64 (no sign, no fraction);
 * the stack's frames are split on ';' (an empty frame is passed empty).
 * CRLF line ends and a missing final newline are accepted; empty lines are
 * skipped.  Everything is validated first: on a bad line nothing reaches
 * the sink, the status is STATUS_MALFORMED (missing, negative, fractional,
 * non-numeric or overflowing count; empty stack) or STATUS_TOO_LARGE (a
 * line over COLLAPSED_LINE_MAX), and err gets "line N: what".  Then each
 * line becomes one sample: task name empty, tasks 1, metric set to COUNT,
 * the other values 0; then sink->meta (when set) gets a zeroed meta.  A
 * sink status other than STATUS_OK or STATUS_LIMIT stops the feed and is
 * returned (err names the line).  STATUS_NOMEM.  err may be NULL.  For
 * tests and tooling: replay reads pprof only.  Does not block. */
enum status collapsed_decode(const void *data, size_t len, enum metric metric,
                             const struct sample_sink *sink, char *err,
                             size_t errsz) MUST_CHECK;

#endif
