/* Small whole-file and file-tail reads into a caller's buffer. */
#include "model/fileio.h"

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

/* Reads fd to its end or until dst is full, NUL-terminates, closes fd. */
static ssize_t read_closing(int fd, char *dst, size_t size)
{
	size_t got = 0;

	while (got + 1 < size) {
		ssize_t r = read(fd, dst + got, size - 1 - got);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		got += (size_t)r;
	}
	close(fd);
	if (size)
		dst[got] = '\0';
	return (ssize_t)got;
}

ssize_t file_read_head(const char *path, char *dst, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -1;
	return read_closing(fd, dst, size);
}

ssize_t file_read_tail(const char *path, char *dst, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	off_t end, keep = size ? (off_t)(size - 1) : 0;

	if (fd < 0)
		return -1;
	end = lseek(fd, 0, SEEK_END);
	/* a pipe or /proc file has no end to seek to: read it from where it is
	 */
	if (end > keep)
		(void)lseek(fd, end - keep, SEEK_SET);
	else if (end > 0)
		(void)lseek(fd, 0, SEEK_SET);
	return read_closing(fd, dst, size);
}
