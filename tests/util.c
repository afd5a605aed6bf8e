/* Shared test helpers. */
#include "tests/util.h"

#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "model/alloc.h"

void tu_mkdtemp(char *dir, size_t size)
{
	const char *tmp = getenv("TMPDIR");
	int n;

	if (!tmp || !*tmp)
		tmp = "/tmp";
	n = snprintf(dir, size, "%s/asynctop-test-XXXXXX", tmp);
	ck_assert_int_gt(n, 0);
	ck_assert_uint_lt((size_t)n, size);
	ck_assert_msg(mkdtemp(dir) != NULL, "mkdtemp: %s", strerror(errno));
}

void tu_rmtree(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char path[4096];

	if (!d)
		return;
	while ((e = readdir(d)) != NULL) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		unlink(path);
	}
	closedir(d);
	rmdir(dir);
}

enum status tu_read_file(const char *path, struct buf *b)
{
	char chunk[65536];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return STATUS_IO;
	while ((n = read(fd, chunk, sizeof(chunk))) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			close(fd);
			return STATUS_IO;
		}
		if (buf_add(b, chunk, (size_t)n) != STATUS_OK) {
			close(fd);
			return buf_status(b);
		}
	}
	close(fd);
	return STATUS_OK;
}

enum status tu_write_file(const char *path, const void *data, size_t len)
{
	const char *p = data;
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

	if (fd < 0)
		return STATUS_IO;
	while (len) {
		ssize_t n = write(fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			close(fd);
			return STATUS_IO;
		}
		p += n;
		len -= (size_t)n;
	}
	return close(fd) == 0 ? STATUS_OK : STATUS_IO;
}

void tu_data_path(char *dst, size_t size, const char *name)
{
	const char *dir = getenv("ASYNCTOP_TESTDATA");

	snprintf(dst, size, "%s/%s", dir && *dir ? dir : "tests/data", name);
}

unsigned long tu_torture(tu_torture_fn fn, void *ctx)
{
	unsigned long total, i, nomem = 0;
	enum status st;

	mem_count_reset();
	st = fn(ctx);
	total = mem_count();
	ck_assert_msg(st == STATUS_OK, "clean run failed: %s", status_str(st));
	for (i = 1; i <= total; i++) {
		mem_count_reset();
		mem_fail_at(i);
		st = fn(ctx);
		mem_fail_at(0);
		ck_assert_msg(st == STATUS_OK || st == STATUS_NOMEM,
		              "allocation %lu of %lu failed: got %s", i, total,
		              status_name(st));
		if (st == STATUS_NOMEM)
			nomem++;
	}
	ck_assert_msg(total == 0 || nomem > 0,
	              "no run reported the injected failure");
	mem_count_reset();
	return total;
}

void tu_skip(const char *test, const char *why)
{
	fprintf(stderr, "SKIP %s: %s\n", test, why);
}
