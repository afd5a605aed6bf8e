/* save_file: data -> [gzip filter] -> file sink, in slices. */
#include "encode/save.h"

#include <stdio.h>
#include <string.h>

#include "encode/out.h"

enum { SAVE_SLICE = 1 << 20 };

static enum status say(char *err, size_t errsz, enum status st,
                       const char *text)
{
	if (err && errsz)
		snprintf(err, errsz, "%s", text);
	return st;
}

enum status save_file(const char *path, const void *data, size_t len,
                      const struct save_opts *o, char *written,
                      size_t writtensz, char *err, size_t errsz)
{
	struct save_opts opts = o ? *o : save_opts_default();
	unsigned flags = (opts.force ? OUT_FILE_FORCE : 0) |
	                 (opts.unique ? OUT_FILE_UNIQUE : 0);
	const char *p = data;
	struct out *file, *top;
	enum status st;

	if (err && errsz)
		err[0] = '\0';
	if (written && writtensz)
		written[0] = '\0';
	if (opts.gzip_level < -1 || opts.gzip_level > 9)
		return say(err, errsz, STATUS_INVAL, "gzip level not in 0-9");
	if (written && writtensz < strlen(path) + 1 + (opts.unique ? 5 : 0))
		return say(err, errsz, STATUS_INVAL,
		           "buffer for the written path too small");
	st = out_file_new(path, flags, &file, err, errsz);
	if (st != STATUS_OK)
		return st;
	top = file;
	if (opts.gzip_level >= 0) {
		st = out_gzip_new(opts.gzip_level, file, &top);
		if (st != STATUS_OK) {
			out_free(file);
			return say(err, errsz, st, status_str(st));
		}
	}
	while (st == STATUS_OK && len) {
		size_t n = size_min(len, SAVE_SLICE);

		st = out_write(top, p, n);
		p += n;
		len -= n;
	}
	if (st == STATUS_OK)
		st = out_finish(top);
	if (st != STATUS_OK)
		say(err, errsz, st, out_error(top));
	else if (written)
		snprintf(written, writtensz, "%s", out_file_path(file));
	out_free(top);
	return st;
}
