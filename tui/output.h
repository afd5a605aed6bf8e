/* The output side of `asynctop record`: the file name of each window, the
 * early check of the output path, and encoding and saving one window. */
#ifndef ASYNCTOP_TUI_OUTPUT_H
#define ASYNCTOP_TUI_OUTPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/base.h"
#include "model/buf.h"
#include "model/model.h"
#include "model/status.h"
#include "tui/cli.h"

/* The file name of window number k for output path (borrowed): when
 * numbered, "-%04u" goes before the extension, which starts at the first
 * '.' of the base name that is not its first character ("out.pb.gz" ->
 * "out-0001.pb.gz", "dir.d/out" -> "dir.d/out-0001"); otherwise path
 * itself.  STATUS_INVAL when dst (size bytes) is too small.  Does not
 * block. */
enum status output_path(char *dst, size_t size, const char *path, bool numbered,
                        uint64_t k) MUST_CHECK;

/* Checks that the first file of output (borrowed; "-" is standard output,
 * always fine) can be written: its directory exists, unless force the file
 * does not, and output_probe passes.  On failure writes a one-paragraph
 * message into msg (size bytes) and returns STATUS_INVAL (name too long),
 * STATUS_IO (directory) or STATUS_EXISTS.  Blocks on the file system. */
enum status output_check(const char *output, bool numbered, bool force,
                         char *msg, size_t size) MUST_CHECK;

/* Whether a file can be saved as path: the file sink creates its temporary
 * file in path's directory and removes it again (through the sink, so its
 * test-only fault injection applies).  STATUS_OK, or the sink's status with
 * its message ("PATH: cannot create a file in DIR: REASON") in msg.  Blocks on
 * the file system. */
enum status output_probe(const char *path, char *msg, size_t size) MUST_CHECK;

/* Encodes window win of m (both borrowed) into enc (reset first) in the
 * format and metric of o (borrowed); a text report is fitted to a terminal
 * when tty.  Returns the encoder's status (STATUS_EMPTY_WINDOW when the
 * window has no data, STATUS_INVAL for an unknown format).  Does not
 * block. */
enum status output_encode(const struct model *m, const struct window *win,
                          const struct opts *o, bool tty,
                          struct buf *enc) MUST_CHECK;

/* Saves enc (borrowed) as window k of output ("-": standard output, gzip
 * for pprof, a blank line first when !first; otherwise the numbered file,
 * written atomically, gzip for pprof, replacing only with o->force).  On
 * success writes the name saved ("-" or the path) into written (wsize
 * bytes); on failure a one-paragraph message into msg (msize bytes) and
 * returns the failing status; STATUS_EOF when standard output's reader has
 * gone (EPIPE, as under `| head`), which is no error to report.  Blocks on
 * the writes. */
enum status output_save(const char *output, const struct opts *o, bool numbered,
                        uint64_t k, bool first, const struct buf *enc,
                        char *written, size_t wsize, char *msg,
                        size_t msize) MUST_CHECK;

#endif
