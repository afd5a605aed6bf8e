/* Saving bytes to a file the safe way: optional gzip, a temporary file, then
 * an atomic publish that never overwrites unless asked (docs/saving.md). */
#ifndef ASYNCTOP_ENCODE_SAVE_H
#define ASYNCTOP_ENCODE_SAVE_H

#include <stdbool.h>
#include <stddef.h>

#include "encode/out.h"
#include "model/base.h"
#include "model/status.h"

struct save_opts {
	int gzip_level; /* -1: write data as it is; 0-9 (OUT_GZIP_PPROF default)
	                 */
	bool force;     /* replace an existing file */
	bool unique; /* never replace: add -2, -3, ... before the extension */
};

/* The defaults: gzip at pprof's level, no force, not unique. */
static inline struct save_opts save_opts_default(void)
{
	struct save_opts o = { OUT_GZIP_PPROF, false, false };
	return o;
}

/* Writes len bytes of data (borrowed) to path, gzip-compressed unless
 * o->gzip_level is -1 (o NULL: save_opts_default()), streaming through
 * encode/out.h without a second full copy; the file appears complete or not
 * at all (never a partial file, no temporary left behind on failure).
 * written (may be NULL when writtensz is 0) receives the path actually
 * written, which differs from path in unique mode; it must hold
 * strlen(path) + 1 bytes, + 5 in unique mode, else STATUS_INVAL before any
 * I/O.  Returns STATUS_OK, STATUS_EXISTS (path exists, neither force nor
 * unique), STATUS_IO (with path and strerror text), STATUS_INVAL (bad level,
 * no file name, buffer too small) or STATUS_NOMEM, with the message in err
 * (may be NULL).  Thread-safe: no shared state (but the test-only fault
 * hook).  Blocks on I/O (write, fsync) for as long as the disk needs: call
 * it from a saver thread where the caller must stay responsive. */
enum status save_file(const char *path, const void *data, size_t len,
                      const struct save_opts *o, char *written,
                      size_t writtensz, char *err, size_t errsz) MUST_CHECK;

#endif
