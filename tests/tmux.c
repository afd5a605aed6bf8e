/* Helpers of the end-to-end viewer tests: the event FIFO, commands, tmux,
 * pseudo-terminals. */
#include "tests/tmux.h"

#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "tests/util.h"

uint64_t tmux_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

bool tmux_on_path(const char *name)
{
	const char *path = getenv("PATH");
	char full[4096];

	while (path && *path) {
		const char *end = strchr(path, ':');
		int len = end ? (int)(end - path) : (int)strlen(path);

		snprintf(full, sizeof(full), "%.*s/%s", len, path, name);
		if (len && access(full, X_OK) == 0)
			return true;
		path = end ? end + 1 : NULL;
	}
	return false;
}

int tmux_run(const char *const *argv, struct buf *out)
{
	int p[2];
	pid_t pid;
	int status;
	char b[4096];
	ssize_t n;

	ck_assert_int_eq(pipe(p), 0);
	fflush(NULL);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		int fd = open("/dev/null", O_RDWR);
		if (fd >= 0) {
			dup2(fd, 0);
			dup2(fd, 1);
			if (!strcmp(argv[0], "tmux"))
				dup2(fd, 2); /* "no server running" */
		}
		/* without out, no pipe: a daemon (the tmux server) would
		 * hold it open */
		if (out)
			dup2(p[1], 1);
		close(p[0]);
		close(p[1]);
		execvp(argv[0], (char *const *)(uintptr_t)argv);
		_exit(127);
	}
	close(p[1]);
	while ((n = read(p[0], b, sizeof(b))) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			break;
		if (out)
			buf_add(out, b, (size_t)n);
	}
	close(p[0]);
	while (waitpid(pid, &status, 0) < 0)
		ck_assert_int_eq(errno, EINTR);
	if (out)
		buf_cstr(out);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

const char *tmux_tail(struct buf *b, size_t max)
{
	const char *s = buf_cstr(b);
	const char *p;

	if (!s || b->len <= max)
		return s ? s : "";
	p = s + b->len - max;
	while (*p && p[-1] != '\n')
		p++;
	return p;
}

/* ---- the test event channel ------------------------------------------- */

void tmux_events_open(struct tmux_events *e, const char *dir)
{
	memset(e, 0, sizeof(*e));
	buf_init(&e->seen);
	buf_init(&e->out);
	e->drain = -1;
	snprintf(e->fifo, sizeof(e->fifo), "%s/events", dir);
	e->fd = tu_fifo_open(e->fifo);
}

void tmux_events_close(struct tmux_events *e)
{
	close(e->fd);
	unlink(e->fifo);
	buf_fini(&e->seen);
	buf_fini(&e->out);
}

void tmux_events_pump(struct tmux_events *e, int timeout_ms)
{
	struct pollfd p[2] = { { e->fd, POLLIN, 0 }, { e->drain, POLLIN, 0 } };
	char b[4096];
	ssize_t n;

	if (poll(p, 2, timeout_ms) <= 0)
		return;
	if (p[0].revents)
		while ((n = read(e->fd, b, sizeof(b))) > 0)
			buf_add(&e->seen, b, (size_t)n);
	if (p[1].revents & POLLIN) {
		n = read(e->drain, b, sizeof(b));
		if (n > 0)
			buf_add(&e->out, b, (size_t)n);
	}
	if (!(p[0].revents & POLLIN) && (p[0].revents & POLLHUP) &&
	    !(p[1].revents & POLLIN)) /* every writer gone: don't spin */
		poll(NULL, 0, timeout_ms < 20 ? timeout_ms : 20);
}

/* Does the event line p (len bytes) match want? */
static bool matches(const char *p, size_t len, const char *want)
{
	size_t wl = strlen(want);
	bool prefix = wl && want[wl - 1] == '*';

	if (prefix)
		wl--;
	return (prefix ? len >= wl : len == wl) && !memcmp(p, want, wl);
}

bool tmux_events_wait(struct tmux_events *e, const char *want, int ms,
                      char *line, size_t size)
{
	uint64_t until = tmux_now_ms() + (uint64_t)ms;

	for (;;) {
		while (e->pos < e->seen.len) {
			const char *p = e->seen.data + e->pos;
			const char *nl = memchr(p, '\n', e->seen.len - e->pos);
			size_t len;

			if (!nl)
				break;
			len = (size_t)(nl - p);
			e->pos += len + 1;
			if (matches(p, len, want)) {
				if (line)
					snprintf(line, size, "%.*s", (int)len,
					         p);
				return true;
			}
		}
		uint64_t now = tmux_now_ms();
		if (now >= until)
			return false;
		tmux_events_pump(e, (int)(until - now));
	}
}

void tmux_events_expect(struct tmux_events *e, const char *want, int ms,
                        const char *file, int line)
{
	ck_assert_msg(tmux_events_wait(e, want, ms, NULL, 0),
	              "%s:%d: no event '%s' within %d ms; the last events:\n%s",
	              file, line, want, ms, tmux_tail(&e->seen, 1500));
}

bool tmux_events_between(const struct tmux_events *e, size_t from, size_t to,
                         const char *want)
{
	size_t at = from;

	if (to > e->seen.len)
		to = e->seen.len;
	while (at < to) {
		const char *p = e->seen.data + at;
		const char *nl = memchr(p, '\n', to - at);
		size_t len = nl ? (size_t)(nl - p) : to - at;

		if (matches(p, len, want))
			return true;
		at += len + 1;
	}
	return false;
}

/* ---- tmux --------------------------------------------------------------- */

bool tmux_start(struct tmux *t, int cols, int rows, const char *cmd)
{
	static unsigned serial;
	const char *probe[] = { "tmux", "-V", NULL };
	char x[16], y[16];
	const char *dir;
	const char *argv[] = { "tmux",      "-L",          t->sock, "-f",
		               "/dev/null", "new-session", "-d",    "-x",
		               x,           "-y",          y,       cmd,
		               NULL };

	snprintf(t->sock, sizeof(t->sock), "asynctop-test-%d-%u", (int)getpid(),
	         serial++);
	snprintf(x, sizeof(x), "%d", cols);
	snprintf(y, sizeof(y), "%d", rows);
	if (tmux_run(probe, NULL) != 0)
		return false;
	ck_assert_int_eq(tmux_run(argv, NULL), 0);
	/* where tmux puts it (TMUX_TMPDIR or /tmp, then tmux-UID) */
	dir = getenv("TMUX_TMPDIR");
	snprintf(t->path, sizeof(t->path), "%s/tmux-%ld/%s",
	         dir && *dir ? dir : "/tmp", (long)getuid(), t->sock);
	return true;
}

void tmux_keys(struct tmux *t, const char *keys)
{
	const char *argv[] = { "tmux", "-L", t->sock, "send-keys",
		               "-l",   keys, NULL };
	ck_assert_int_eq(tmux_run(argv, NULL), 0);
}

void tmux_bytes(struct tmux *t, const char *bytes, size_t n)
{
	char hex[64][4];
	const char *argv[64 + 6] = { "tmux", "-L", t->sock, "send-keys", "-H" };
	size_t k = 5;

	ck_assert_uint_le(n, 64);
	for (size_t i = 0; i < n; i++) {
		snprintf(hex[i], sizeof(hex[i]), "%02x",
		         (unsigned char)bytes[i]);
		argv[k++] = hex[i];
	}
	argv[k] = NULL;
	ck_assert_int_eq(tmux_run(argv, NULL), 0);
}

void tmux_capture(struct tmux *t, struct buf *out)
{
	const char *argv[] = {
		"tmux", "-L", t->sock, "capture-pane", "-p", NULL
	};
	buf_reset(out);
	ck_assert_int_eq(tmux_run(argv, out), 0);
}

void tmux_end(struct tmux *t)
{
	const char *argv[] = { "tmux", "-L", t->sock, "kill-server", NULL };
	(void)tmux_run(argv, NULL);
	if (t->path[0])
		unlink(t->path);
}

/* ---- captured screens of the viewer ------------------------------------ */

void tmux_screen_row(const struct buf *screen, size_t n, char *dst, size_t size)
{
	const char *p = screen->data ? screen->data : "";

	for (size_t i = 0; p && i < n; i++) {
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	if (!p) {
		snprintf(dst, size, "%s", "");
		return;
	}
	snprintf(dst, size, "%.*s", (int)strcspn(p, "\n"), p);
}

bool tmux_first_leaf(const struct buf *screen, char *dst, size_t size)
{
	const char *p = screen->data;

	/* the table starts below the header, progress, notice and title
	 * rows */
	for (int i = 0; p && i < 4; i++) {
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	if (p)
		p = strstr(p, "%  ");
	if (!p)
		return false;
	p += 3;
	/* the warnings' marker column, when the window has any: "! " or
	 * blank */
	if (p[0] == '!' && p[1] == ' ')
		p += 2;
	while (*p == ' ')
		p++;
	snprintf(dst, size, "%.*s", (int)strcspn(p, " \n"), p);
	return true;
}

/* ---- pseudo-terminals --------------------------------------------------- */

void tmux_pty_open(struct tmux_pty *p, unsigned short cols, unsigned short rows)
{
	struct winsize ws = { rows, cols, 0, 0 };
	const char *name;

	p->master = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
	ck_assert_int_ge(p->master, 0);
	ck_assert_int_eq(grantpt(p->master), 0);
	ck_assert_int_eq(unlockpt(p->master), 0);
	name = ptsname(p->master);
	ck_assert_ptr_nonnull(name);
	snprintf(p->name, sizeof(p->name), "%s", name);
	ck_assert_int_eq(ioctl(p->master, TIOCSWINSZ, &ws), 0);
	p->slave = open(p->name, O_RDWR | O_NOCTTY | O_CLOEXEC);
	ck_assert_int_ge(p->slave, 0);
}

void tmux_pty_child(const struct tmux_pty *p, const char *errpath)
{
	int fd, tty;

	setsid();
	tty = open(p->name, O_RDWR);
	if (tty < 0 || ioctl(tty, TIOCSCTTY, 0) < 0)
		_exit(125);
	fd = open("/dev/null", O_RDWR);
	if (fd < 0 || dup2(fd, 0) < 0 || dup2(fd, 1) < 0)
		_exit(126);
	fd = errpath ? open(errpath, O_WRONLY | O_CREAT | O_TRUNC, 0600) : tty;
	if (fd < 0 || dup2(fd, 2) < 0)
		_exit(127);
	close(tty);
}

void tmux_pty_close(struct tmux_pty *p)
{
	close(p->master);
	close(p->slave);
	p->master = p->slave = -1;
}

void tmux_assert_restored(const struct tmux_pty *p, const char *out)
{
	struct termios t;

	ck_assert_int_eq(tcgetattr(p->slave, &t), 0);
	ck_assert(t.c_lflag & ICANON);
	ck_assert(t.c_lflag & ECHO);
	ck_assert_ptr_nonnull(out);
	ck_assert_ptr_nonnull(strstr(out, "\033[?1049h"));
	ck_assert_msg(strstr(out, "\033[?1049l") != NULL,
	              "the alternate screen was not left");
}

bool tmux_screen_until(struct tmux *t, struct tmux_events *e,
                       struct buf *screen, screen_ok ok, const void *ctx,
                       int ms)
{
	uint64_t until = tmux_now_ms() + (uint64_t)ms;

	for (;;) {
		tmux_capture(t, screen);
		if (ok(screen, ctx))
			return true;
		if (tmux_now_ms() >= until)
			return false;
		tmux_events_pump(e, 25);
	}
}
