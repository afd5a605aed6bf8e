/* The test event channel: opened from the environment, one write per
 * event line. */
#include "tui/events.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tui/safe.h"

void events_vemit(int fd, const char *fmt, va_list ap)
{
	char line[1024];
	int n;

	if (fd < 0)
		return;
	n = vsnprintf(line, sizeof(line) - 1, fmt, ap);
	if (n < 0)
		return;
	if ((size_t)n > sizeof(line) - 2)
		n = (int)sizeof(line) - 2;
	/* One line per event: newlines inside become spaces. */
	for (int i = 0; i < n; i++)
		if (line[i] == '\n')
			line[i] = ' ';
	line[n++] = '\n';
	for (ssize_t off = 0; off < n;) {
		ssize_t k = write(fd, line + off, (size_t)(n - off));
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return;
		off += k;
	}
}

void events_emit(int fd, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	events_vemit(fd, fmt, ap);
	va_end(ap);
}

int events_open_channel(const char *prog)
{
	const char *path = getenv("ASYNCTOP_TEST_EVENTS");
	int fd;

	if (!path || !*path)
		return -1;
	do
		fd =
		    open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
	while (fd < 0 && errno == EINTR);
	if (fd < 0)
		safe_sayf(prog, "ASYNCTOP_TEST_EVENTS=%s: %s (no test events)",
		          path, strerror(errno));
	return fd;
}
