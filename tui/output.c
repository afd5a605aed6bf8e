/* Record's output: numbered file names, the early path check, encoding in
 * the chosen format and saving to a file or standard output. */
#include "tui/output.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "encode/collapsed.h"
#include "encode/out.h"
#include "encode/pprof.h"
#include "encode/save.h"
#include "encode/text.h"

/* The text report is fitted to this width on a terminal (docs/design.md §5). */
#define TEXT_TTY_COLUMNS 80

enum status output_path(char *dst, size_t size, const char *path, bool numbered,
                        uint64_t k)
{
	const char *base = strrchr(path, '/');
	const char *ext;
	int n;

	if (!numbered) {
		n = snprintf(dst, size, "%s", path);
		return n < 0 || (size_t)n >= size ? STATUS_INVAL : STATUS_OK;
	}
	base = base ? base + 1 : path;
	ext = *base ? strchr(base + 1, '.') : NULL;
	if (!ext)
		ext = path + strlen(path);
	n = snprintf(dst, size, "%.*s-%04" PRIu64 "%s", (int)(ext - path), path,
	             k, ext);
	return n < 0 || (size_t)n >= size ? STATUS_INVAL : STATUS_OK;
}

static enum status write_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t k = write(fd, p, n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return STATUS_IO;
		p += k;
		n -= (size_t)k;
	}
	return STATUS_OK;
}

/* --force would not help: a device, a FIFO or a directory is never
 * replaced. */
static enum status not_regular(const char *path, char *msg, size_t size)
{
	snprintf(
	    msg, size,
	    "%s is not a regular file: windows are saved to files only (for a device or a pipe, use -o - and redirect standard output)",
	    path);
	return STATUS_IO;
}

enum status output_check(const char *output, bool numbered, bool force,
                         char *msg, size_t size)
{
	char path[4096 + 16];
	struct stat sb;
	const char *slash;

	if (!strcmp(output, "-"))
		return STATUS_OK;
	/* numbered, a device named by -o (/dev/null) would become files
	 * beside it (/dev/null-0001): the name is checked as given too */
	if (numbered && lstat(output, &sb) == 0 && !S_ISREG(sb.st_mode))
		return not_regular(output, msg, size);
	if (output_path(path, sizeof(path), output, numbered, 1) != STATUS_OK) {
		snprintf(msg, size, "the output file name is too long");
		return STATUS_INVAL;
	}
	slash = strrchr(path, '/');
	if (slash) {
		char dir[4096 + 16];
		int bad;

		snprintf(dir, sizeof(dir), "%.*s",
		         (int)(slash == path ? 1 : slash - path), path);
		bad = stat(dir, &sb) < 0 ? errno : 0;

		if (bad || !S_ISDIR(sb.st_mode)) {
			snprintf(msg, size,
			         "cannot save to %s: the directory %s %s", path,
			         dir,
			         bad == ENOENT ? "does not exist"
			         : bad         ? strerror(bad)
			                       : "is not a directory");
			return STATUS_IO;
		}
	}
	if (lstat(path, &sb) == 0 && !S_ISREG(sb.st_mode))
		return not_regular(path, msg, size);
	if (!force && lstat(path, &sb) == 0) {
		snprintf(msg, size,
		         "%s already exists; use --force to replace it, or "
		         "choose another -o",
		         path);
		return STATUS_EXISTS;
	}
	return output_probe(path, msg, size);
}

enum status output_probe(const char *path, char *msg, size_t size)
{
	char err[1024];
	struct out *o = NULL;
	enum status st;

	/* the file sink's own first step, undone: its temporary file is
	 * created in path's directory and removed (a read-only file system,
	 * an immutable directory, EACCES), nothing is published */
	err[0] = '\0';
	st = out_file_new(path, OUT_FILE_FORCE, &o, err, sizeof(err));
	out_free(o);
	if (st != STATUS_OK && err[0])
		snprintf(msg, size, "%s", err);
	else if (st != STATUS_OK)
		snprintf(msg, size, "%s: %s", path, status_str(st));
	return st;
}

enum status output_encode(const struct model *m, const struct window *win,
                          const struct opts *o, bool tty, struct buf *enc)
{
	struct text_opts to;

	buf_reset(enc);
	switch (o->format) {
	case CLI_FORMAT_PPROF:
		return pprof_encode(m, win, NULL, enc);
	case CLI_FORMAT_COLLAPSED:
		return collapsed_encode(m, win, o->metric, enc);
	case CLI_FORMAT_TEXT:
		text_opts_default(&to);
		to.first = o->metric;
		to.width = tty ? TEXT_TTY_COLUMNS : 0;
		return text_encode(m, win, &to, enc);
	}
	return STATUS_INVAL;
}

/* Window k to standard output: pprof gzipped, reports a blank line apart. */
static enum status save_stdout(const struct opts *o, uint64_t k, bool first,
                               const struct buf *enc, char *msg, size_t msize)
{
	const char *data = enc->data;
	size_t len = enc->len;
	struct buf gz;
	struct out *mem = NULL, *gzo = NULL;
	int saved_errno;
	enum status st;

	buf_init(&gz);
	if (o->format == CLI_FORMAT_PPROF) {
		st = out_mem_new(&gz, &mem);
		if (st == STATUS_OK) {
			st = out_gzip_new(OUT_GZIP_PPROF, mem, &gzo);
			if (st != STATUS_OK)
				out_free(mem);
		}
		if (st == STATUS_OK)
			st = out_write(gzo, data, len);
		if (st == STATUS_OK)
			st = out_finish(gzo);
		out_free(gzo);
		data = gz.data;
		len = gz.len;
	} else {
		st = STATUS_OK;
	}
	/* text reports one after the other: a blank line between */
	if (st == STATUS_OK && !first)
		st = write_all(STDOUT_FILENO, "\n", 1);
	if (st == STATUS_OK)
		st = write_all(STDOUT_FILENO, data, len);
	saved_errno = errno;
	buf_fini(&gz);
	if (st == STATUS_IO && saved_errno == EPIPE)
		st = STATUS_EOF; /* the reader has all it wanted */
	if (st != STATUS_OK)
		snprintf(
		    msg, msize,
		    "cannot write window %" PRIu64 " to standard output: %s", k,
		    st == STATUS_IO ? strerror(saved_errno) : status_str(st));
	return st;
}

enum status output_save(const char *output, const struct opts *o, bool numbered,
                        uint64_t k, bool first, const struct buf *enc,
                        char *written, size_t wsize, char *msg, size_t msize)
{
	char path[4096 + 16], err[1024];
	struct save_opts so = save_opts_default();
	enum status st;

	if (!strcmp(output, "-")) {
		st = save_stdout(o, k, first, enc, msg, msize);
		if (st == STATUS_OK)
			snprintf(written, wsize, "-");
		return st;
	}
	if (output_path(path, sizeof(path), output, numbered, k) != STATUS_OK) {
		snprintf(msg, msize, "the output file name is too long");
		return STATUS_INVAL;
	}
	so.gzip_level = o->format == CLI_FORMAT_PPROF ? OUT_GZIP_PPROF : -1;
	so.force = o->force;
	err[0] = '\0';
	st = save_file(path, enc->data, enc->len, &so, written, wsize, err,
	               sizeof(err));
	if (st == STATUS_EXISTS)
		snprintf(msg, msize,
		         "cannot save window %" PRIu64
		         ": %s already exists; use --force to "
		         "replace it, or choose another -o",
		         k, path);
	else if (st != STATUS_OK)
		snprintf(msg, msize, "cannot save window %" PRIu64 ": %s", k,
		         err[0] ? err : status_str(st));
	return st;
}
