/* The replay loader: a saved profile file read whole, without blocking on
 * a FIFO, then decoded by pprof_decode (encode/pprof.h). */
#include "encode/pprof.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "model/buf.h"
#include "model/window.h"

/* Room added when a file turns out longer than it was at fstat */
enum { READ_MORE = 65536 };

static enum status sys_fail(char *err, size_t errsz, const char *what, int e)
{
	char msg[128];

	if (strerror_r(e, msg, sizeof(msg)) != 0)
		snprintf(msg, sizeof(msg), "error %d", e);
	return status_errf(err, errsz, STATUS_IO, "%s: %s", what, msg);
}

enum status pprof_load(const char *path, const struct load_limits *lim,
                       const struct sample_sink *sink, char *err, size_t errsz)
{
	struct load_limits def = { LOAD_MAX_BYTES_DEFAULT,
		                   LOAD_MAX_SAMPLES_DEFAULT };
	struct stat sb;
	struct buf b;
	enum status st;
	ssize_t n;
	int fd;

	if (err && errsz)
		err[0] = '\0';
	if (!path || !sink)
		return status_errf(err, errsz, STATUS_INVAL,
		                   "invalid argument");
	if (!lim)
		lim = &def;
	/* O_NONBLOCK: a FIFO must not hold the open until a writer comes; only
	 * a regular file is read, and it ignores the flag. */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0)
		return sys_fail(err, errsz, "cannot open", errno);
	if (fstat(fd, &sb) != 0) {
		st = sys_fail(err, errsz, "cannot stat", errno);
		close(fd);
		return st;
	}
	if (S_ISDIR(sb.st_mode)) {
		close(fd);
		return status_errf(err, errsz, STATUS_IO, "is a directory");
	}
	if (!S_ISREG(sb.st_mode)) {
		close(fd);
		return status_errf(err, errsz, STATUS_IO, "not a regular file");
	}
	if (lim->max_bytes && (uintmax_t)sb.st_size > lim->max_bytes) {
		close(fd);
		return status_errf(err, errsz, STATUS_TOO_LARGE,
		                   "file of %jd bytes, over the limit of %zu",
		                   (intmax_t)sb.st_size, lim->max_bytes);
	}
	buf_init(&b);
	b.limit = lim->max_bytes;
	/* Read straight into a buffer of the file's size; when it is full, a
	 * one-byte read tells the end from a file that grew meanwhile, which
	 * then gets more room, up to the limit. */
	if (buf_reserve(&b, (size_t)sb.st_size) != STATUS_OK)
		goto grow_failed;
	for (;;) {
		size_t room = b.cap - b.len - 1;
		char probe;

		n = read(fd, room ? b.data + b.len : &probe, room ? room : 1);
		if (n == 0)
			break;
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			st = sys_fail(err, errsz, "cannot read", errno);
			goto out;
		}
		if (!room) {
			if (buf_add(&b, &probe, 1) != STATUS_OK)
				goto grow_failed;
			continue;
		}
		b.len += (size_t)n;
		b.data[b.len] = '\0';
	}
	if (b.len == 0) {
		st = status_errf(err, errsz, STATUS_MALFORMED, "empty file");
		goto out;
	}
	st = pprof_decode(b.data, b.len, lim, sink, err, errsz);
	goto out;
grow_failed:
	st = buf_status(&b);
	if (st == STATUS_LIMIT)
		st = status_errf(err, errsz, STATUS_TOO_LARGE,
		                 "file over the limit of %zu bytes",
		                 lim->max_bytes);
	else
		st = status_errf(err, errsz, st, "out of memory");
out:
	close(fd);
	buf_fini(&b);
	return st;
}
