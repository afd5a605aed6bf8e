/* The file sink: a temporary file beside the target, fsynced, then published
 * by link (never overwrites) or rename (force); test-only fault injection. */
#include "encode/out.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "model/alloc.h"

enum {
	FILE_PATH_MAX = 4096, /* PATH_MAX on Linux, with the NUL */
	TMP_BASE_MAX = 200,   /* of the file name kept in the temporary name */
	UNIQUE_MAX = 9999,
	CREATE_TRIES = 100,
};

struct file_sink {
	int fd;       /* -1 once closed */
	bool has_tmp; /* the temporary file still exists */
	unsigned flags;
	bool faulty;
	struct out_faults faults;
	unsigned long writes;
	size_t dirlen; /* bytes of path up to and including its last '/' */
	char *path;    /* as asked */
	char *tmp;
	char *final; /* room for path plus "-9999"; set when published */
	bool published;
};

static pthread_mutex_t fault_lock = PTHREAD_MUTEX_INITIALIZER;
static struct out_faults fault_cfg;
static atomic_bool fault_on;
static atomic_ulong tmp_seq;

void out_file_set_faults(const struct out_faults *f)
{
	pthread_mutex_lock(&fault_lock);
	if (f)
		fault_cfg = *f;
	else
		memset(&fault_cfg, 0, sizeof(fault_cfg));
	atomic_store(&fault_on, f != NULL);
	pthread_mutex_unlock(&fault_lock);
}

static void errtext(int e, char *dst, size_t size)
{
	if (strerror_r(e, dst, size) != 0)
		snprintf(dst, size, "error %d", e);
}

static enum status fail_errno(struct out *o, enum status st, const char *path,
                              int e)
{
	char why[256];

	errtext(e, why, sizeof(why));
	return out_fail(o, st, "%s: %s", path, why);
}

static uint64_t mix64(uint64_t x)
{
	x += 0x9e3779b97f4a7c15u;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9u;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebu;
	return x ^ (x >> 31);
}

/* Fills the six trailing X of tmp with letters and digits. */
static void tmp_name(char *tmp)
{
	static const char set[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	                          "abcdefghijklmnopqrstuvwxyz0123456789";
	struct timespec ts;
	char *x = tmp + strlen(tmp) - 6;
	uint64_t v;

	clock_gettime(CLOCK_REALTIME, &ts);
	v = mix64((uint64_t)ts.tv_nsec ^ ((uint64_t)ts.tv_sec << 30) ^
	          ((uint64_t)getpid() << 40) ^
	          mix64(atomic_fetch_add(&tmp_seq, 1)));
	for (int i = 0; i < 6; i++) {
		x[i] = set[v % (sizeof(set) - 1)];
		v /= sizeof(set) - 1;
	}
}

/* "DIR/" ".NAME." "XXXXXX" with NAME cut to TMP_BASE_MAX bytes. */
static void tmp_template(const struct file_sink *f, char *dst, size_t size)
{
	const char *base = f->path + f->dirlen;
	int baselen = (int)size_min(strlen(base), TMP_BASE_MAX);

	snprintf(dst, size, "%.*s.%.*s.XXXXXX", (int)f->dirlen, f->path,
	         baselen, base);
}

static int create_tmp(struct file_sink *f)
{
	if (f->faulty && f->faults.create_errno)
		return f->faults.create_errno;
	for (int i = 0; i < CREATE_TRIES; i++) {
		tmp_name(f->tmp);
		f->fd =
		    open(f->tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
		if (f->fd >= 0) {
			f->has_tmp = true;
			return 0;
		}
		if (errno != EEXIST && errno != EINTR)
			return errno;
	}
	return EEXIST;
}

static ssize_t sink_write1(struct file_sink *f, const void *p, size_t n)
{
	f->writes++;
	if (f->faulty) {
		if (f->faults.write_errno && f->writes == f->faults.write_nth) {
			errno = f->faults.write_errno;
			return -1;
		}
		if (f->faults.max_write && n > f->faults.max_write)
			n = f->faults.max_write;
	}
	return write(f->fd, p, n);
}

/* Closes and removes the temporary file, keeping errno. */
static void discard(struct file_sink *f)
{
	int e = errno;

	if (f->fd >= 0)
		close(f->fd);
	f->fd = -1;
	if (f->has_tmp)
		unlink(f->tmp);
	f->has_tmp = false;
	errno = e;
}

static enum status file_write(struct out *o, const void *data, size_t n)
{
	struct file_sink *f = out_ctx(o);
	const char *p = data;

	while (n) {
		ssize_t w = sink_write1(f, p, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			int e = w < 0 ? errno : EIO;
			discard(f);
			return fail_errno(o, STATUS_IO, f->path, e);
		}
		p += w;
		n -= (size_t)w;
	}
	return STATUS_OK;
}

static int do_fsync(struct file_sink *f)
{
	int r;

	if (f->faulty && f->faults.fsync_errno)
		return f->faults.fsync_errno;
	while ((r = fsync(f->fd)) < 0 && errno == EINTR)
		;
	return r < 0 ? errno : 0;
}

static int do_close(struct file_sink *f)
{
	int r = close(f->fd);

	f->fd = -1;
	if (f->faulty && f->faults.close_errno)
		return f->faults.close_errno;
	/* Linux closes the descriptor even when close fails with EINTR. */
	return r < 0 && errno != EINTR ? errno : 0;
}

static int do_link(struct file_sink *f, const char *target)
{
	if (f->faulty && (f->faults.link_errno || f->faults.publish_errno))
		return f->faults.link_errno ? f->faults.link_errno
		                            : f->faults.publish_errno;
	return link(f->tmp, target) < 0 ? errno : 0;
}

static int do_rename(struct file_sink *f, const char *target)
{
	if (f->faulty && f->faults.publish_errno)
		return f->faults.publish_errno;
	if (rename(f->tmp, target) < 0)
		return errno;
	f->has_tmp = false;
	return 0;
}

/* Errors of link(2) that mean "no hard links here", not "cannot write". */
static bool no_hard_links(int e)
{
	return e == EPERM || e == ENOTSUP || e == EOPNOTSUPP || e == EXDEV ||
	       e == ENOSYS || e == EMLINK;
}

/* Publishes the temporary file as target; 0 or an errno (EEXIST when target
 * exists and may not be replaced). */
static int publish_as(struct file_sink *f, const char *target, bool force)
{
	struct stat st;
	int e;

	if (force)
		return do_rename(f, target);
	e = do_link(f, target);
	if (e == 0) {
		unlink(f->tmp);
		f->has_tmp = false;
		return 0;
	}
	if (!no_hard_links(e))
		return e;
	/* No hard links: check, then rename.  Another writer creating target
	 * between the two steps would be overwritten (docs/saving.md). */
	if (lstat(target, &st) == 0)
		return EEXIST;
	if (errno != ENOENT)
		return errno;
	return do_rename(f, target);
}

/* Writes into f->final the path for attempt n (1: path itself). */
static void unique_name(const struct file_sink *f, unsigned n)
{
	const char *base = f->path + f->dirlen;
	const char *dot = base[0] ? strchr(base + 1, '.') : NULL;
	size_t stem = dot ? (size_t)(dot - f->path) : strlen(f->path);
	size_t size = strlen(f->path) + 8;

	if (n == 1) {
		memcpy(f->final, f->path, strlen(f->path) + 1);
		return;
	}
	snprintf(f->final, size, "%.*s-%u%s", (int)stem, f->path, n,
	         dot ? dot : "");
}

static void sync_dir(const struct file_sink *f)
{
	char dir[FILE_PATH_MAX];
	int fd;

	if (f->dirlen == 0)
		snprintf(dir, sizeof(dir), ".");
	else
		snprintf(dir, sizeof(dir), "%.*s", (int)f->dirlen, f->path);
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0) {
		(void)fsync(fd); /* best effort: some file systems refuse */
		close(fd);
	}
}

static enum status file_finish(struct out *o)
{
	struct file_sink *f = out_ctx(o);
	bool unique = f->flags & OUT_FILE_UNIQUE;
	bool force = !unique && (f->flags & OUT_FILE_FORCE);
	unsigned n = 1;
	int e;

	if ((e = do_fsync(f)) != 0 || (e = do_close(f)) != 0) {
		discard(f);
		return fail_errno(o, STATUS_IO, f->path, e);
	}
	for (;;) {
		unique_name(f, n);
		e = publish_as(f, f->final, force);
		if (e != EEXIST || !unique || n == UNIQUE_MAX)
			break;
		n++;
	}
	if (e == EEXIST) {
		discard(f);
		if (unique)
			return out_fail(o, STATUS_EXISTS,
			                "%s: no free name up to -%d", f->path,
			                UNIQUE_MAX);
		return out_fail(o, STATUS_EXISTS,
		                "%s: already exists, not overwritten", f->path);
	}
	if (e != 0) {
		discard(f);
		return fail_errno(o, STATUS_IO, f->final, e);
	}
	f->published = true;
	sync_dir(f);
	return STATUS_OK;
}

static void sink_free(struct file_sink *f)
{
	if (!f)
		return;
	discard(f);
	mem_free(f->path);
	mem_free(f->tmp);
	mem_free(f->final);
	mem_free(f);
}

static void file_free(struct out *o)
{
	sink_free(out_ctx(o));
}

static const struct out_ops file_ops = {
	.name = "file",
	.write = file_write,
	.finish = file_finish,
	.free = file_free,
};

const char *out_file_path(const struct out *o)
{
	const struct file_sink *f;

	if (out_kind(o) != &file_ops)
		return NULL;
	f = out_ctx(o);
	return f->published ? f->final : NULL;
}

/* The checks that need no temporary file; 0 or a status with err set. */
static enum status precheck(const char *path, size_t len, size_t dirlen,
                            unsigned flags, char *err, size_t errsz)
{
	struct stat st;

	if (len == 0)
		return status_errf(err, errsz, STATUS_INVAL, "empty file name");
	if (len >= FILE_PATH_MAX)
		return status_errf(err, errsz, STATUS_INVAL,
		                   "%.64s...: path too long", path);
	if (dirlen == len)
		return status_errf(err, errsz, STATUS_INVAL, "%s: no file name",
		                   path);
	if (stat(path, &st) != 0)
		return STATUS_OK; /* creating or publishing will say why */
	if (S_ISDIR(st.st_mode)) {
		char why[256];

		errtext(EISDIR, why, sizeof(why));
		return status_errf(err, errsz, STATUS_IO, "%s: %s", path, why);
	}
	if (flags & OUT_FILE_UNIQUE)
		return STATUS_OK;
	if (!S_ISREG(st.st_mode)) /* never replace a device or a FIFO */
		return status_errf(err, errsz, STATUS_IO,
		                   "%s: not a regular file, not replaced",
		                   path);
	if (!(flags & OUT_FILE_FORCE))
		return status_errf(err, errsz, STATUS_EXISTS,
		                   "%s: already exists, not overwritten", path);
	return STATUS_OK;
}

enum status out_file_new(const char *path, unsigned flags, struct out **res,
                         char *err, size_t errsz)
{
	size_t len = strlen(path), dirlen = len;
	struct file_sink *f;
	enum status st;
	int e;

	*res = NULL;
	if (err && errsz)
		err[0] = '\0';
	while (dirlen > 0 && path[dirlen - 1] != '/')
		dirlen--;
	st = precheck(path, len, dirlen, flags, err, errsz);
	if (st != STATUS_OK)
		return st;
	f = mem_calloc(1, sizeof(*f));
	if (!f)
		return status_errf(err, errsz, STATUS_NOMEM, "%s",
		                   status_str(STATUS_NOMEM));
	f->fd = -1;
	f->flags = flags;
	f->dirlen = dirlen;
	f->path = mem_strndup(path, len);
	f->tmp = mem_alloc(dirlen + TMP_BASE_MAX + 9);
	f->final = mem_alloc(len + 8);
	if (!f->path || !f->tmp || !f->final ||
	    out_new(&file_ops, f, NULL, res) != STATUS_OK) {
		sink_free(f);
		return status_errf(err, errsz, STATUS_NOMEM, "%s",
		                   status_str(STATUS_NOMEM));
	}
	if (atomic_load(&fault_on)) {
		pthread_mutex_lock(&fault_lock);
		f->faults = fault_cfg;
		f->faulty = true;
		pthread_mutex_unlock(&fault_lock);
	}
	tmp_template(f, f->tmp, dirlen + TMP_BASE_MAX + 9);
	e = create_tmp(f);
	if (e != 0) {
		char why[256];

		errtext(e, why, sizeof(why));
		status_errf(err, errsz, STATUS_IO,
		            "%s: cannot create a file in %.*s: %s", path,
		            dirlen > 1 ? (int)dirlen - 1 : 1,
		            dirlen ? path : ".", why);
		out_free(*res);
		*res = NULL;
		return STATUS_IO;
	}
	return STATUS_OK;
}
