/* Standard error captured while curses owns the terminal (errcap.h). */
#include "tui/errcap.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

void errcap_init(struct errcap *c)
{
	memset(c, 0, sizeof(*c));
	c->rfd = c->saved = -1;
}

enum status errcap_start(struct errcap *c, bool only_tty)
{
	int p[2];

	errcap_init(c);
	if (only_tty && !isatty(2))
		return STATUS_OK;
	if (pipe(p) < 0)
		return STATUS_IO;
	c->saved = fcntl(2, F_DUPFD_CLOEXEC, 3);
	if (c->saved < 0 || fcntl(p[0], F_SETFD, FD_CLOEXEC) < 0 ||
	    fcntl(p[0], F_SETFL, O_NONBLOCK) < 0 || dup2(p[1], 2) < 0) {
		if (c->saved >= 0)
			close(c->saved);
		close(p[0]);
		close(p[1]);
		errcap_init(c);
		return STATUS_IO;
	}
	close(p[1]);
	c->rfd = p[0];
	return STATUS_OK;
}

int errcap_fd(const struct errcap *c)
{
	return c->rfd;
}

/* Keeps the newest ERRCAP_TAIL bytes (n is at most ERRCAP_TAIL). */
static void keep(struct errcap *c, const char *s, size_t n)
{
	if (c->len + n > ERRCAP_TAIL) {
		size_t cut = c->len + n - ERRCAP_TAIL;

		memmove(c->tail, c->tail + cut, c->len - cut);
		c->len -= cut;
		c->dropped += cut;
	}
	memcpy(c->tail + c->len, s, n);
	c->len += n;
}

/* Splits into lines; a line longer than the buffer is cut, not lost. */
static void lines(struct errcap *c, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (s[i] != '\n' && s[i] != '\r') {
			if (c->line_len < sizeof(c->line) - 1)
				c->line[c->line_len++] = s[i];
			continue;
		}
		if (c->line_len) {
			memcpy(c->last, c->line, c->line_len);
			c->last[c->line_len] = '\0';
			c->fresh = true;
		}
		c->line_len = 0;
	}
}

void errcap_drain(struct errcap *c)
{
	char b[ERRCAP_TAIL / 2];

	while (c->rfd >= 0) {
		ssize_t n = read(c->rfd, b, sizeof(b));

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return;
		keep(c, b, (size_t)n);
		lines(c, b, (size_t)n);
	}
}

const char *errcap_last(struct errcap *c)
{
	if (!c->fresh)
		return NULL;
	c->fresh = false;
	return c->last;
}

static void put(int fd, const char *s, size_t n)
{
	while (n) {
		ssize_t w = write(fd, s, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return;
		s += w;
		n -= (size_t)w;
	}
}

void errcap_stop(struct errcap *c)
{
	if (c->rfd < 0)
		return;
	/* fd 2 back first: whatever writes now goes straight out */
	(void)dup2(c->saved, 2);
	close(c->saved);
	errcap_drain(c);
	close(c->rfd);
	if (c->dropped) {
		char note[96];
		int n = snprintf(note, sizeof(note),
		                 "[%" PRIu64 " earlier bytes of stderr cut]\n",
		                 c->dropped);

		put(2, note, (size_t)n);
	}
	put(2, c->tail, c->len);
	if (c->len && c->tail[c->len - 1] != '\n')
		put(2, "\n", 1);
	errcap_init(c);
}
