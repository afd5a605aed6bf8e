/* The writer chain, the file sink and save_file: content, modes, never an
 * overwrite, unique names, and injected I/O faults leaving no file behind. */
#include <check.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "encode/gzip.h"
#include "encode/out.h"
#include "encode/save.h"
#include "model/alloc.h"
#include "model/buf.h"
#include "tests/util.h"

static const struct save_opts RAW = { -1, false, false };
static const struct save_opts GZ = { 6, false, false };

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The sorted names in dir joined by ' ' ("" when empty). */
static void list_dir(const char *dir, char *dst, size_t size)
{
	char names[32][256];
	const char *sorted[32] = { NULL };
	struct dirent *e;
	DIR *d = opendir(dir);
	size_t n = 0, used = 0;

	ck_assert_ptr_nonnull(d);
	while ((e = readdir(d)) != NULL) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		ck_assert_uint_lt(n, 32);
		snprintf(names[n], sizeof(names[n]), "%s", e->d_name);
		sorted[n] = names[n];
		n++;
	}
	closedir(d);
	qsort(sorted, n, sizeof(sorted[0]), cmp_str);
	dst[0] = '\0';
	for (size_t i = 0; i < n; i++)
		used += (size_t)snprintf(dst + used, size - used, "%s%s",
		                         i ? " " : "", sorted[i]);
}

static void join(char *dst, size_t size, const char *dir, const char *name)
{
	int n = snprintf(dst, size, "%s/%s", dir, name);

	ck_assert(n > 0 && (size_t)n < size);
}

static void check_content(const char *path, const void *data, size_t len)
{
	struct buf b;

	buf_init(&b);
	ck_assert_int_eq(tu_read_file(path, &b), STATUS_OK);
	ck_assert_uint_eq(b.len, len);
	if (len)
		ck_assert_mem_eq(b.data, data, len);
	buf_fini(&b);
}

static void check_gz_content(const char *path, const void *data, size_t len)
{
	struct buf z, b;

	buf_init(&z);
	buf_init(&b);
	ck_assert_int_eq(tu_read_file(path, &z), STATUS_OK);
	ck_assert(gzip_is(z.data, z.len));
	ck_assert_int_eq(gzip_decompress(z.data, z.len, 0, &b, NULL, 0),
	                 STATUS_OK);
	ck_assert_uint_eq(b.len, len);
	if (len)
		ck_assert_mem_eq(b.data, data, len);
	buf_fini(&z);
	buf_fini(&b);
}

static unsigned char *random_bytes(size_t n)
{
	unsigned char *p = mem_alloc(n);
	uint64_t x = 0x2545f4914f6cdd1du;

	ck_assert_ptr_nonnull(p);
	for (size_t i = 0; i < n; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		p[i] = (unsigned char)(x >> 32);
	}
	return p;
}

static void no_faults(void)
{
	out_file_set_faults(NULL);
}

/* ---- the chain core and the memory sink ---- */

START_TEST(mem_sink_and_sticky_errors)
{
	struct buf b;
	struct out *o;

	buf_init(&b);
	ck_assert_int_eq(out_mem_new(&b, &o), STATUS_OK);
	ck_assert_int_eq(out_write(o, "abc", 3), STATUS_OK);
	ck_assert_int_eq(out_write(o, "", 0), STATUS_OK);
	ck_assert_int_eq(out_write(o, "def", 3), STATUS_OK);
	ck_assert_str_eq(buf_cstr(&b), "abcdef");
	b.limit = 8;
	ck_assert_int_eq(out_write(o, "ghi", 3), STATUS_LIMIT);
	ck_assert_int_eq(out_write(o, "g", 1), STATUS_LIMIT); /* sticky */
	ck_assert_int_eq(out_finish(o), STATUS_LIMIT);
	ck_assert_int_eq(out_status(o), STATUS_LIMIT);
	ck_assert_str_eq(out_error(o), "memory buffer: a limit was reached");
	out_free(o);
	ck_assert_uint_eq(b.len, 6);

	buf_reset(&b);
	b.limit = 0;
	ck_assert_int_eq(out_mem_new(&b, &o), STATUS_OK);
	ck_assert_int_eq(out_finish(o), STATUS_OK);
	ck_assert_int_eq(out_finish(o), STATUS_OK);
	ck_assert_int_eq(out_write(o, "x", 1), STATUS_INVAL);
	ck_assert_str_eq(out_error(o), "memory buffer: write after finish");
	out_free(o);
	out_free(NULL);
	buf_fini(&b);
}
END_TEST

/* A filter that upper-cases, or fails on 'X' with its own message, or
 * fails without explaining on 'Y'. */
static enum status upper_write(struct out *o, const void *p, size_t n)
{
	char tmp[64];
	const char *s = p;

	ck_assert_uint_le(n, sizeof(tmp));
	for (size_t i = 0; i < n; i++) {
		if (s[i] == 'X')
			return out_fail(o, STATUS_MALFORMED, "upper: X at %zu",
			                i);
		if (s[i] == 'Y')
			return STATUS_INVAL;
		tmp[i] = (char)(s[i] >= 'a' && s[i] <= 'z' ? s[i] - 32 : s[i]);
	}
	return out_write(out_next(o), tmp, n);
}

static int upper_freed;

static void upper_free(struct out *o)
{
	ck_assert_ptr_eq(out_ctx(o), &upper_freed);
	upper_freed++;
}

static const struct out_ops upper_ops = {
	.name = "upper",
	.write = upper_write,
	.free = upper_free,
};

START_TEST(chain_errors_name_the_cause)
{
	struct buf b;
	struct out *mem, *up;

	buf_init(&b);
	upper_freed = 0;
	ck_assert_int_eq(out_mem_new(&b, &mem), STATUS_OK);
	ck_assert_int_eq(out_new(&upper_ops, &upper_freed, mem, &up),
	                 STATUS_OK);
	ck_assert_ptr_eq(out_next(up), mem);
	ck_assert_ptr_eq(out_kind(up), &upper_ops);
	ck_assert_ptr_null(out_file_path(up));
	ck_assert_int_eq(out_write(up, "hi there", 8), STATUS_OK);
	ck_assert_int_eq(out_finish(up), STATUS_OK);
	ck_assert_str_eq(buf_cstr(&b), "HI THERE");
	out_free(up);
	ck_assert_int_eq(upper_freed, 1);

	/* its own failure, explained */
	ck_assert_int_eq(out_mem_new(&b, &mem), STATUS_OK);
	ck_assert_int_eq(out_new(&upper_ops, &upper_freed, mem, &up),
	                 STATUS_OK);
	ck_assert_int_eq(out_write(up, "aXb", 3), STATUS_MALFORMED);
	ck_assert_str_eq(out_error(up), "upper: X at 1");
	ck_assert_int_eq(out_status(out_next(up)), STATUS_OK);
	out_free(up);

	/* its own failure, unexplained: named after the writer */
	ck_assert_int_eq(out_mem_new(&b, &mem), STATUS_OK);
	ck_assert_int_eq(out_new(&upper_ops, &upper_freed, mem, &up),
	                 STATUS_OK);
	ck_assert_int_eq(out_write(up, "Y", 1), STATUS_INVAL);
	ck_assert_str_eq(out_error(up), "upper: invalid argument");
	out_free(up);

	/* a failure below: the lower writer's text wins */
	buf_reset(&b);
	b.limit = 2;
	ck_assert_int_eq(out_mem_new(&b, &mem), STATUS_OK);
	ck_assert_int_eq(out_new(&upper_ops, &upper_freed, mem, &up),
	                 STATUS_OK);
	ck_assert_int_eq(out_write(up, "abc", 3), STATUS_LIMIT);
	ck_assert_int_eq(out_write(up, "a", 1), STATUS_LIMIT);
	ck_assert_str_eq(out_error(up), "memory buffer: a limit was reached");
	out_free(up);
	ck_assert_int_eq(upper_freed, 4);
	buf_fini(&b);
}
END_TEST

/* ---- the file sink ---- */

START_TEST(save_writes_content_and_mode)
{
	char dir[256], path[512], got[600], names[1024], err[512];
	const char *text = "profile bytes\n";
	unsigned char *big = random_bytes(3 << 20);
	mode_t old = umask(022);
	struct stat st;

	tu_mkdtemp(dir, sizeof(dir));
	join(path, sizeof(path), dir, "x.pb.gz");
	ck_assert_int_eq(save_file(path, text, strlen(text), &GZ, got,
	                           sizeof(got), err, sizeof(err)),
	                 STATUS_OK);
	ck_assert_str_eq(got, path);
	ck_assert_str_eq(err, "");
	check_gz_content(path, text, strlen(text));
	ck_assert_int_eq(stat(path, &st), 0);
	ck_assert_uint_eq(st.st_mode & 07777, 0644);
	list_dir(dir, names, sizeof(names));
	ck_assert_str_eq(names, "x.pb.gz");

	umask(027);
	join(path, sizeof(path), dir, "raw.bin");
	ck_assert_int_eq(
	    save_file(path, big, 3 << 20, &RAW, NULL, 0, err, sizeof(err)),
	    STATUS_OK);
	check_content(path, big, 3 << 20);
	ck_assert_int_eq(stat(path, &st), 0);
	ck_assert_uint_eq(st.st_mode & 07777, 0640);

	/* default options (NULL): gzip level 6; an empty input */
	join(path, sizeof(path), dir, "empty.pb.gz");
	ck_assert_int_eq(save_file(path, "", 0, NULL, NULL, 0, NULL, 0),
	                 STATUS_OK);
	check_gz_content(path, "", 0);
	list_dir(dir, names, sizeof(names));
	ck_assert_str_eq(names, "empty.pb.gz raw.bin x.pb.gz");
	umask(old);
	mem_free(big);
	tu_rmtree(dir);
}
END_TEST

START_TEST(save_never_overwrites)
{
	char dir[256], path[512], names[1024], err[512], want[1200];
	struct save_opts force = { 6, true, false };

	tu_mkdtemp(dir, sizeof(dir));
	join(path, sizeof(path), dir, "x.pb.gz");
	ck_assert_int_eq(tu_write_file(path, "old", 3), STATUS_OK);
	ck_assert_int_eq(
	    save_file(path, "new", 3, &GZ, NULL, 0, err, sizeof(err)),
	    STATUS_EXISTS);
	snprintf(want, sizeof(want), "%s: already exists, not overwritten",
	         path);
	ck_assert_str_eq(err, want);
	check_content(path, "old", 3);

	/* the target appears while the file is being written */
	join(path, sizeof(path), dir, "late.pb");
	struct out *o;
	ck_assert_int_eq(out_file_new(path, 0, &o, err, sizeof(err)),
	                 STATUS_OK);
	ck_assert_int_eq(out_write(o, "mine", 4), STATUS_OK);
	ck_assert_int_eq(tu_write_file(path, "theirs", 6), STATUS_OK);
	ck_assert_int_eq(out_finish(o), STATUS_EXISTS);
	snprintf(want, sizeof(want), "%s: already exists, not overwritten",
	         path);
	ck_assert_str_eq(out_error(o), want);
	ck_assert_ptr_null(out_file_path(o));
	out_free(o);
	check_content(path, "theirs", 6);
	list_dir(dir, names, sizeof(names));
	ck_assert_str_eq(names, "late.pb x.pb.gz");

	/* force replaces */
	join(path, sizeof(path), dir, "x.pb.gz");
	ck_assert_int_eq(
	    save_file(path, "new", 3, &force, NULL, 0, err, sizeof(err)),
	    STATUS_OK);
	check_gz_content(path, "new", 3);
	list_dir(dir, names, sizeof(names));
	ck_assert_str_eq(names, "late.pb x.pb.gz");
	tu_rmtree(dir);
}
END_TEST

START_TEST(save_unique_names)
{
	static const struct {
		const char *name, *second, *third;
	} cases[] = {
		{ "x.pb.gz", "x-2.pb.gz", "x-3.pb.gz" },
		{ "asynctop-tokio-20240102T030405Z-w3-idle.collapsedstack.txt",
		  "asynctop-tokio-20240102T030405Z-w3-idle-2.collapsedstack."
		  "txt",
		  "asynctop-tokio-20240102T030405Z-w3-idle-3.collapsedstack."
		  "txt" },
		{ "plain", "plain-2", "plain-3" },
		{ ".hidden", ".hidden-2", ".hidden-3" },
		{ ".rc.d.conf", ".rc-2.d.conf", ".rc-3.d.conf" },
	};
	struct save_opts uniq = { 6, true, true }; /* force is ignored */
	char dir[256], path[512], got[600], want[1200], err[512];

	tu_mkdtemp(dir, sizeof(dir));
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		join(path, sizeof(path), dir, cases[i].name);
		ck_assert_int_eq(save_file(path, "1", 1, &uniq, got,
		                           sizeof(got), err, sizeof(err)),
		                 STATUS_OK);
		ck_assert_str_eq(got, path);
		ck_assert_int_eq(save_file(path, "2", 1, &uniq, got,
		                           sizeof(got), err, sizeof(err)),
		                 STATUS_OK);
		join(want, sizeof(want), dir, cases[i].second);
		ck_assert_str_eq(got, want);
		ck_assert_int_eq(save_file(path, "3", 1, &uniq, got,
		                           sizeof(got), err, sizeof(err)),
		                 STATUS_OK);
		join(want, sizeof(want), dir, cases[i].third);
		ck_assert_str_eq(got, want);
		check_gz_content(path, "1", 1);
		check_gz_content(got, "3", 1);
	}
	/* the caller's buffer must have room for "-9999" */
	ck_assert_int_eq(save_file(path, "4", 1, &uniq, got, strlen(path) + 5,
	                           err, sizeof(err)),
	                 STATUS_INVAL);
	ck_assert_str_eq(err, "buffer for the written path too small");
	tu_rmtree(dir);
}
END_TEST

struct racer {
	char path[512];
	char got[600];
	enum status st;
};

static void *race_save(void *arg)
{
	struct racer *r = arg;
	struct save_opts uniq = { 1, false, true };

	r->st = save_file(r->path, r->path, strlen(r->path), &uniq, r->got,
	                  sizeof(r->got), NULL, 0);
	return NULL;
}

START_TEST(save_unique_is_race_free)
{
	struct racer r[4];
	pthread_t t[4];
	char dir[256], names[1024];

	tu_mkdtemp(dir, sizeof(dir));
	for (int i = 0; i < 4; i++) {
		join(r[i].path, sizeof(r[i].path), dir, "same.pb.gz");
		ck_assert_int_eq(pthread_create(&t[i], NULL, race_save, &r[i]),
		                 0);
	}
	for (int i = 0; i < 4; i++) {
		ck_assert_int_eq(pthread_join(t[i], NULL), 0);
		ck_assert_int_eq(r[i].st, STATUS_OK);
		for (int j = 0; j < i; j++)
			ck_assert_str_ne(r[i].got, r[j].got);
	}
	list_dir(dir, names, sizeof(names));
	ck_assert_str_eq(names,
	                 "same-2.pb.gz same-3.pb.gz same-4.pb.gz same.pb.gz");
	tu_rmtree(dir);
}
END_TEST

START_TEST(save_bad_targets)
{
	char dir[256], path[512], names[1024], err[512], want[1200];
	struct save_opts force = { 6, true, false };
	struct out *o;

	tu_mkdtemp(dir, sizeof(dir));
	join(path, sizeof(path), dir, "nope/x.pb.gz");
	ck_assert_int_eq(
	    save_file(path, "a", 1, &GZ, NULL, 0, err, sizeof(err)), STATUS_IO);
	snprintf(want, sizeof(want), "%s: cannot create a file in %s/nope: %s",
	         path, dir, strerror(ENOENT));
	ck_assert_str_eq(err, want);

	/* a path that is a directory, with and without force */
	ck_assert_int_eq(save_file(dir, "a", 1, &GZ, NULL, 0, err, sizeof(err)),
	                 STATUS_IO);
	snprintf(want, sizeof(want), "%s: %s", dir, strerror(EISDIR));
	ck_assert_str_eq(err, want);
	ck_assert_int_eq(
	    save_file(dir, "a", 1, &force, NULL, 0, err, sizeof(err)),
	    STATUS_IO);
	ck_assert_str_eq(err, want);

	/* a FIFO (or a device) is never replaced, even with force */
	join(path, sizeof(path), dir, "fifo");
	ck_assert_int_eq(mkfifo(path, 0600), 0);
	ck_assert_int_eq(
	    save_file(path, "a", 1, &force, NULL, 0, err, sizeof(err)),
	    STATUS_IO);
	snprintf(want, sizeof(want), "%s: not a regular file, not replaced",
	         path);
	ck_assert_str_eq(err, want);
	struct stat st;
	ck_assert_int_eq(lstat(path, &st), 0);
	ck_assert(S_ISFIFO(st.st_mode));
	ck_assert_int_eq(unlink(path), 0);

	/* a file used as a directory */
	join(path, sizeof(path), dir, "file");
	ck_assert_int_eq(tu_write_file(path, "f", 1), STATUS_OK);
	join(path, sizeof(path), dir, "file/x.pb.gz");
	ck_assert_int_eq(
	    save_file(path, "a", 1, &GZ, NULL, 0, err, sizeof(err)), STATUS_IO);
	ck_assert_ptr_nonnull(strstr(err, strerror(ENOTDIR)));
	ck_assert_ptr_nonnull(strstr(err, path));

	ck_assert_int_eq(save_file("", "a", 1, &GZ, NULL, 0, err, sizeof(err)),
	                 STATUS_INVAL);
	ck_assert_str_eq(err, "empty file name");
	snprintf(path, sizeof(path), "%s/", dir);
	ck_assert_int_eq(
	    save_file(path, "a", 1, &GZ, NULL, 0, err, sizeof(err)),
	    STATUS_INVAL);
	ck_assert_ptr_nonnull(strstr(err, ": no file name"));
	join(path, sizeof(path), dir, "ok");
	struct save_opts bad = { 10, false, false };
	ck_assert_int_eq(
	    save_file(path, "a", 1, &bad, NULL, 0, err, sizeof(err)),
	    STATUS_INVAL);

	/* an unfinished sink leaves nothing, not even its temporary file */
	join(path, sizeof(path), dir, "x.pb.gz");
	ck_assert_int_eq(out_file_new(path, 0, &o, err, sizeof(err)),
	                 STATUS_OK);
	ck_assert_int_eq(out_write(o, "partial", 7), STATUS_OK);
	list_dir(dir, names, sizeof(names));
	ck_assert_int_eq(strncmp(names, ".x.pb.gz.", 9), 0);
	ck_assert_uint_eq(strlen(names), strlen(".x.pb.gz.XXXXXX file"));
	ck_assert_str_eq(names + 15, " file");
	out_free(o);
	list_dir(dir, names, sizeof(names));
	ck_assert_str_eq(names, "file");
	tu_rmtree(dir);
}
END_TEST

/* ---- fault injection ---- */

enum step { AT_WRITE1, AT_WRITE3, AT_FSYNC, AT_CLOSE, AT_PUBLISH };

static void fault_at(enum step step, int e)
{
	struct out_faults f = { 0 };

	switch (step) {
	case AT_WRITE1:
	case AT_WRITE3:
		f.write_nth = step == AT_WRITE1 ? 1 : 3;
		f.write_errno = e;
		break;
	case AT_FSYNC:
		f.fsync_errno = e;
		break;
	case AT_CLOSE:
		f.close_errno = e;
		break;
	case AT_PUBLISH:
		f.publish_errno = e;
		break;
	}
	out_file_set_faults(&f);
}

START_TEST(faults_leave_no_file)
{
	static const int errs[] = { ENOSPC, EROFS, EIO };
	static const char *const step_name[] = { "write 1", "write 3", "fsync",
		                                 "close", "publish" };
	/* raw: 1 MiB slices, 3 writes; gzip: 64 KiB writes, 4 or 5 */
	const size_t rawlen = 3 << 20, gzlen = 256 << 10;
	unsigned char *data = random_bytes(rawlen);
	char dir[256], path[512], names[1024], err[512], want[1200];

	tu_mkdtemp(dir, sizeof(dir));
	join(path, sizeof(path), dir, "x.pb.gz");
	for (int gz = 0; gz < 2; gz++) {
		for (int step = AT_WRITE1; step <= AT_PUBLISH; step++) {
			for (size_t i = 0; i < ARRAY_SIZE(errs); i++) {
				fault_at((enum step)step, errs[i]);
				ck_assert_int_eq(
				    save_file(path, data, gz ? gzlen : rawlen,
				              gz ? &GZ : &RAW, NULL, 0, err,
				              sizeof(err)),
				    STATUS_IO);
				snprintf(want, sizeof(want), "%s: %s", path,
				         strerror(errs[i]));
				ck_assert_msg(!strcmp(err, want),
				              "%s gz=%d: got \"%s\"",
				              step_name[step], gz, err);
				list_dir(dir, names, sizeof(names));
				ck_assert_msg(names[0] == '\0',
				              "%s gz=%d left \"%s\"",
				              step_name[step], gz, names);
			}
		}
	}
	/* a failed forced replace keeps the old file */
	ck_assert_int_eq(tu_write_file(path, "old", 3), STATUS_OK);
	struct save_opts force = { 6, true, false };
	for (int step = AT_WRITE1; step <= AT_PUBLISH; step++) {
		fault_at((enum step)step, ENOSPC);
		ck_assert_int_eq(save_file(path, data, gzlen, &force, NULL, 0,
		                           err, sizeof(err)),
		                 STATUS_IO);
		check_content(path, "old", 3);
		list_dir(dir, names, sizeof(names));
		ck_assert_str_eq(names, "x.pb.gz");
	}
	out_file_set_faults(NULL);
	mem_free(data);
	tu_rmtree(dir);
}
END_TEST

START_TEST(faults_retried_or_worked_around)
{
	char dir[256], path[512], names[1024], err[512], want[1200];
	unsigned char *data = random_bytes(100000);
	struct out_faults f = { 0 };

	tu_mkdtemp(dir, sizeof(dir));
	/* EINTR and short writes are retried */
	f.write_nth = 2;
	f.write_errno = EINTR;
	f.max_write = 777;
	out_file_set_faults(&f);
	join(path, sizeof(path), dir, "short.bin");
	ck_assert_int_eq(
	    save_file(path, data, 100000, &RAW, NULL, 0, err, sizeof(err)),
	    STATUS_OK);
	check_content(path, data, 100000);

	/* no hard links here: a checked rename instead */
	memset(&f, 0, sizeof(f));
	f.link_errno = EPERM;
	out_file_set_faults(&f);
	join(path, sizeof(path), dir, "nolink.pb.gz");
	ck_assert_int_eq(
	    save_file(path, data, 1000, &GZ, NULL, 0, err, sizeof(err)),
	    STATUS_OK);
	check_gz_content(path, data, 1000);
	ck_assert_int_eq(
	    save_file(path, "x", 1, &GZ, NULL, 0, err, sizeof(err)),
	    STATUS_EXISTS);
	struct out *o;
	ck_assert_int_eq(
	    out_file_new(path, OUT_FILE_UNIQUE, &o, err, sizeof(err)),
	    STATUS_OK);
	ck_assert_int_eq(out_finish(o), STATUS_OK);
	join(want, sizeof(want), dir, "nolink-2.pb.gz");
	ck_assert_str_eq(out_file_path(o), want);
	out_free(o);
	check_content(want, "", 0);
	check_gz_content(path, data, 1000);

	/* an unwritable directory, as root cannot see it with chmod */
	memset(&f, 0, sizeof(f));
	f.create_errno = EACCES;
	out_file_set_faults(&f);
	join(path, sizeof(path), dir, "denied.pb.gz");
	ck_assert_int_eq(
	    save_file(path, "x", 1, &GZ, NULL, 0, err, sizeof(err)), STATUS_IO);
	snprintf(want, sizeof(want), "%s: cannot create a file in %s: %s", path,
	         dir, strerror(EACCES));
	ck_assert_str_eq(err, want);
	out_file_set_faults(NULL);
	list_dir(dir, names, sizeof(names));
	ck_assert_str_eq(names, "nolink-2.pb.gz nolink.pb.gz short.bin");
	mem_free(data);
	tu_rmtree(dir);
}
END_TEST

/* In a child: with RLIMIT_FSIZE and SIGXFSZ ignored, write(2) gives EFBIG.
 * Exit codes: 0 right, 1 wrong status, 2 wrong message, 3 set-up. */
static int fsize_child(const char *path)
{
	struct sigaction sa;
	struct rlimit rl = { 4096, 4096 };
	unsigned char *data = random_bytes(65536);
	char err[512], want[1200];

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_IGN;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGXFSZ, &sa, NULL) != 0 ||
	    setrlimit(RLIMIT_FSIZE, &rl) != 0)
		return 3;
	if (save_file(path, data, 65536, &GZ, NULL, 0, err, sizeof(err)) !=
	    STATUS_IO)
		return 1;
	snprintf(want, sizeof(want), "%s: %s", path, strerror(EFBIG));
	mem_free(data);
	return strcmp(err, want) ? 2 : 0;
}

START_TEST(fsize_limit_in_child)
{
	char dir[256], path[512], names[1024];
	int wst;
	pid_t pid;

	tu_mkdtemp(dir, sizeof(dir));
	join(path, sizeof(path), dir, "big.pb.gz");
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0)
		_exit(fsize_child(path));
	ck_assert_int_eq(waitpid(pid, &wst, 0), pid);
	ck_assert(WIFEXITED(wst));
	ck_assert_int_eq(WEXITSTATUS(wst), 0);
	list_dir(dir, names, sizeof(names));
	ck_assert_str_eq(names, "");
	tu_rmtree(dir);
}
END_TEST

struct save_torture {
	char path[512];
	const char *text;
};

static enum status torture_save(void *ctx)
{
	struct save_torture *t = ctx;
	char got[600], err[512];
	enum status st;

	st = save_file(t->path, t->text, strlen(t->text), &GZ, got, sizeof(got),
	               err, sizeof(err));
	mem_fail_at(0); /* the checks below are not under test */
	if (st == STATUS_OK) {
		check_gz_content(t->path, t->text, strlen(t->text));
		ck_assert_int_eq(unlink(t->path), 0);
	} else {
		ck_assert_str_eq(err, "out of memory");
	}
	return st;
}

START_TEST(save_torture_leaves_nothing)
{
	struct save_torture t = { .text = "a small profile, saved again" };
	char dir[256], names[1024];

	tu_mkdtemp(dir, sizeof(dir));
	join(t.path, sizeof(t.path), dir, "t.pb.gz");
	ck_assert_uint_gt(tu_torture(torture_save, &t), 4);
	list_dir(dir, names, sizeof(names));
	ck_assert_str_eq(names, "");
	tu_rmtree(dir);
}
END_TEST

Suite *suite_out(void);
Suite *suite_out(void)
{
	Suite *s = suite_create("out");
	TCase *tc = tcase_create("out");

	tcase_set_timeout(tc, 60);
	tcase_add_checked_fixture(tc, no_faults, no_faults);
	tcase_add_test(tc, mem_sink_and_sticky_errors);
	tcase_add_test(tc, chain_errors_name_the_cause);
	tcase_add_test(tc, save_writes_content_and_mode);
	tcase_add_test(tc, save_never_overwrites);
	tcase_add_test(tc, save_unique_names);
	tcase_add_test(tc, save_unique_is_race_free);
	tcase_add_test(tc, save_bad_targets);
	tcase_add_test(tc, faults_leave_no_file);
	tcase_add_test(tc, faults_retried_or_worked_around);
	tcase_add_test(tc, fsize_limit_in_child);
	tcase_add_test(tc, save_torture_leaves_nothing);
	suite_add_tcase(s, tc);
	return s;
}
