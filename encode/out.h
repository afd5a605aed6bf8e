/* The output writer chain: encoder -> [gzip filter] -> memory or file sink.
 * Each writer is ops + private ctx + next; errors are sticky and carry text.
 * docs/saving.md draws the chain and states the file-publishing rules. */
#ifndef ASYNCTOP_ENCODE_OUT_H
#define ASYNCTOP_ENCODE_OUT_H

#include <stdbool.h>
#include <stddef.h>

#include "model/base.h"
#include "model/buf.h"
#include "model/status.h"

struct out;

/* A writer's behaviour; tables are const with designated initializers. */
struct out_ops {
	const char *name; /* "gzip", "file", ...: prefixes generic errors */
	/* Consumes n > 0 bytes (writing to out_next(o) if it filters). */
	enum status (*write)(struct out *o, const void *p, size_t n);
	/* Flushes what it holds into out_next(o); NULL: nothing to do.  The
	 * core then finishes the next writer. */
	enum status (*finish)(struct out *o);
	/* Releases the ctx (not next); NULL: nothing to free. */
	void (*free)(struct out *o);
};

/* Makes a writer with ops, ctx and next (NULL for a sink).  On success the
 * writer owns ctx (ops->free releases it) and next (out_free frees the whole
 * chain).  STATUS_NOMEM: nothing is taken, the caller still owns ctx and
 * next.  Does not block. */
enum status out_new(const struct out_ops *ops, void *ctx, struct out *next,
                    struct out **res) MUST_CHECK;
/* For writer implementations: the ctx and the next writer (borrowed). */
void *out_ctx(const struct out *o);
struct out *out_next(const struct out *o);
/* The ops table o was made with (tells one kind of writer from another). */
const struct out_ops *out_kind(const struct out *o);
/* For writer implementations: records st (not STATUS_OK) as o's sticky
 * error with a printf-style message (e.g. "PATH: strerror") unless an error
 * is already recorded; returns o's sticky status. */
enum status out_fail(struct out *o, enum status st, const char *fmt, ...)
    PRINTF(3, 4);

/* Writes n bytes of p (borrowed) into the chain.  Returns the sticky status:
 * after the first failure every call fails the same way; a write after
 * out_finish is STATUS_INVAL.  Blocks when a file sink is in the chain. */
enum status out_write(struct out *o, const void *p, size_t n) MUST_CHECK;

/* Flushes o and then every writer below it, in order; a file sink then
 * publishes its file.  Returns the first failure (sticky) or STATUS_OK;
 * calling it again returns the same.  Blocks on I/O with a file sink. */
enum status out_finish(struct out *o) MUST_CHECK;

/* Frees o and every writer below it.  An unfinished file sink removes its
 * temporary file, so no partial file is ever left.  NULL is a no-op. */
void out_free(struct out *o);

/* The first failure in the chain from o down, or STATUS_OK. */
enum status out_status(const struct out *o);

/* The text of the chain's error, the most specific one (the lowest writer
 * that explained it), e.g. "/tmp/x.pb.gz: No space left on device"; "" when
 * there is none.  Borrowed from o: valid until the next call on the chain. */
const char *out_error(const struct out *o);

/* Memory sink: appends to b (borrowed; it must outlive the writer).  A
 * failure of b (STATUS_NOMEM, STATUS_LIMIT) becomes the chain's error.
 * STATUS_NOMEM.  Does not block. */
enum status out_mem_new(struct buf *b, struct out **res) MUST_CHECK;

/* gzip levels: 1 fast, 6 the usual default (as Go's pprof); 0 to 9
 * accepted.  pprof files are saved at level 1: a third of level 6's time,
 * still smaller than Go's level-6 output (docs/saving.md). */
enum { OUT_GZIP_FAST = 1, OUT_GZIP_DEFAULT = 6, OUT_GZIP_PPROF = 1 };

/* gzip filter (RFC 1952, one member, header with mtime 0) in front of
 * next.  On success it owns next; on failure (STATUS_INVAL for a level
 * outside 0-9, STATUS_NOMEM) the caller still owns next.  It gathers what
 * is written and compresses it all in its finish (libdeflate), which
 * passes the member to next in 64 KiB pieces.
 * Implemented in encode/gzip.c. */
enum status out_gzip_new(int level, struct out *next,
                         struct out **res) MUST_CHECK;

enum out_file_flags {
	/* Replace an existing file (rename); without it an existing file is
	 * never touched and publishing fails with STATUS_EXISTS. */
	OUT_FILE_FORCE = 1 << 0,
	/* Never overwrite; when path exists use the first free "-2", "-3",
	 * ... name (up to -9999), the number before the extension.  The
	 * extension starts at the first '.' of the file name that is not its
	 * first character: x.pb.gz -> x-2.pb.gz, .rc -> .rc-2, a -> a-2.
	 * OUT_FILE_FORCE is then ignored. */
	OUT_FILE_UNIQUE = 1 << 1,
};

/* File sink: creates a temporary file ".NAME.XXXXXX" (mode 0666 less the
 * umask, close-on-exec) in path's directory at once; writes go straight to
 * it (write(2) per call, retrying EINTR and short writes); its finish
 * fsyncs, closes and publishes it as path (see enum out_file_flags): with
 * link(2), so an existing file is never replaced, or rename(2) with
 * OUT_FILE_FORCE.  Where the filesystem has no hard links it falls back to
 * rename after checking that path does not exist (a small race).  A
 * symbolic link at path counts as existing and is replaced, not followed,
 * by OUT_FILE_FORCE.  Any failure removes the temporary file (and so does
 * out_free before out_finish).  path is copied.
 * Fails here with STATUS_INVAL (empty file name, path too long), STATUS_IO
 * (the directory is missing or unwritable, path is a directory or, but in
 * OUT_FILE_UNIQUE mode, another non-regular file such as /dev/null),
 * STATUS_EXISTS (path exists and neither flag is set; checked again when
 * publishing) or STATUS_NOMEM, with the reason, path and strerror text in
 * err (may be NULL).  Blocks on the file system. */
enum status out_file_new(const char *path, unsigned flags, struct out **res,
                         char *err, size_t errsz) MUST_CHECK;

/* The path the file sink o published (differs from the one asked for in
 * OUT_FILE_UNIQUE mode), or NULL before a successful out_finish or when o
 * is not a file sink.  Borrowed from o. */
const char *out_file_path(const struct out *o);

/* Test-only fault injection for every file sink created after the call:
 * each nonzero errno makes that step fail with it.  write_nth counts the
 * sink's write(2) calls from 1 (a retry after EINTR counts too); max_write
 * (0: off) caps each write(2) to force short writes.  NULL turns it all off.
 * Process-wide; call it while no file sink is being created. */
struct out_faults {
	int create_errno; /* creating the temporary file */
	unsigned long write_nth;
	int write_errno; /* the write_nth-th write(2) */
	size_t max_write;
	int fsync_errno;   /* fsync(2) of the file */
	int close_errno;   /* close(2) of the file */
	int publish_errno; /* each link(2) or rename(2) attempt */
	int link_errno;    /* link(2) only: exercises the rename fallback */
};
void out_file_set_faults(const struct out_faults *f);

#endif
