/* gzip (RFC 1952) in memory: the magic test and a bounded decompressor.
 * The compressor is a writer in the output chain (encode/out.h). */
#ifndef ASYNCTOP_ENCODE_GZIP_H
#define ASYNCTOP_ENCODE_GZIP_H

#include <stdbool.h>
#include <stddef.h>

#include "model/base.h"
#include "model/buf.h"
#include "model/status.h"

/* True when data starts with the gzip magic bytes 1f 8b. */
bool gzip_is(const void *data, size_t len);

/* Decompresses every gzip member of data (pprof accepts multi-member files)
 * and appends the result to out: libdeflate, a member at a time, and zlib
 * again for the reason when libdeflate refuses the input.  STATUS_TOO_LARGE
 * once the output would pass limit bytes (0: no limit); STATUS_MALFORMED for a
 * corrupt or truncated stream or trailing bytes that are not a gzip member,
 * with the reason in err; STATUS_NOMEM.  On failure out's appended bytes are
 * unspecified: the caller discards them. */
enum status gzip_decompress(const void *data, size_t len, size_t limit,
                            struct buf *out, char *err,
                            size_t errsz) MUST_CHECK;

#endif
