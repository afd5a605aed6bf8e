/* Helpers of the demo suites (see demo_util.h). */
#include "tests/demo_util.h"

#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "model/base.h"
#include "model/buf.h"
#include "tests/util.h"

/* Removes what a run left in d's directories. */
static void remove_dirs(const char *dir, const char *tmp, const char *saves)
{
	DIR *dp = opendir(tmp);
	struct dirent *e;
	char sub[1024];

	/* a viewer that did not end leaves its launch directory behind */
	while (dp && (e = readdir(dp)) != NULL) {
		if (strncmp(e->d_name, "asynctop-launch-", 16))
			continue;
		snprintf(sub, sizeof(sub), "%s/%s", tmp, e->d_name);
		tu_rmtree(sub);
	}
	if (dp)
		closedir(dp);
	tu_rmtree(tmp);
	tu_rmtree(saves);
	tu_rmtree(dir);
}

static void guardian_cleans(const struct demo *d, const struct tmux *t,
                            pid_t shell)
{
	if (t) {
		pid_t pid = fork();
		if (pid == 0) {
			int fd = open("/dev/null", O_RDWR);
			if (fd >= 0) {
				dup2(fd, 1);
				dup2(fd, 2);
			}
			execlp("tmux", "tmux", "-L", t->sock, "kill-server",
			       (char *)NULL);
			_exit(127);
		}
		if (pid > 0)
			waitpid(pid, NULL, 0);
		if (t->path[0])
			unlink(t->path);
	}
	/* the job shell's end hangs up the viewer, which ends the demo */
	if (shell > 0)
		kill(shell, SIGTERM);
	remove_dirs(d->dir, d->tmp, d->saves);
}

void guardian_start(struct guardian *g, const struct demo *d,
                    const struct tmux *t, pid_t shell)
{
	int p[2];

	ck_assert_int_eq(pipe(p), 0);
	ck_assert_int_eq(fcntl(p[1], F_SETFD, FD_CLOEXEC), 0);
	fflush(NULL);
	g->pid = fork();
	ck_assert_int_ge(g->pid, 0);
	if (g->pid == 0) {
		char c;
		ssize_t n;

		setpgid(0, 0); /* not killed with the test's group (below) */
		for (int fd = 3; fd < 1024; fd++)
			if (fd != p[0])
				close(fd); /* the pty master, the FIFO */
		do
			n = read(p[0], &c, 1);
		while (n < 0 && errno == EINTR);
		if (n != 1)
			guardian_cleans(d, t, shell);
		_exit(0);
	}
	/* as the child does: in its group before Check's killpg can come */
	setpgid(g->pid, g->pid);
	close(p[0]);
	g->fd = p[1];
}

void guardian_done(struct guardian *g)
{
	ck_assert_int_eq(write(g->fd, "k", 1), 1);
	close(g->fd);
	while (waitpid(g->pid, NULL, 0) < 0)
		ck_assert_int_eq(errno, EINTR);
}

/* The line of shop.py holding needle (1 first). */
static int line_of(const char *text, const char *needle)
{
	const char *at = strstr(text, needle);
	int n = 1;

	ck_assert_msg(at != NULL, "shop.py has no '%s'", needle);
	for (const char *p = text; p < at; p++)
		n += *p == '\n';
	return n;
}

/* A family's leaf frame is the line that spawns it, found by its text as
 * .ci/check-demo finds it, so that editing the demo breaks nothing. */
static void find_leaders(struct demo *d)
{
	static const struct {
		enum metric m;
		const char *func, *spawn;
	} fam[] = {
		{ METRIC_IDLE, "main", "create_task(db_worker(" },
		{ METRIC_BUSY, "storefront", "group.create_task(checkout(" },
		{ METRIC_SCHED, "main", "create_task(report_metrics(" },
		{ METRIC_POLLS, "main", "create_task(cache_poller(" },
		{ METRIC_WAKES, "main", "create_task(cache_poller(" },
	};
	struct buf text;

	buf_init(&text);
	ck_assert_int_eq(tu_read_file(d->shop, &text), STATUS_OK);
	for (size_t i = 0; i < ARRAY_SIZE(fam); i++)
		snprintf(d->leader[fam[i].m], sizeof(d->leader[0]),
		         "shop:%s:%d", fam[i].func,
		         line_of(buf_cstr(&text), fam[i].spawn));
	buf_fini(&text);
}

bool demo_init(struct demo *d, const char *test)
{
	const char *src = getenv("ASYNCTOP_SRC");

	memset(d, 0, sizeof(*d));
	d->bin = getenv("ASYNCTOP_BIN");
	if (!d->bin || !*d->bin || access(d->bin, X_OK) || !src || !*src) {
		tu_skip(test, "ASYNCTOP_BIN/ASYNCTOP_SRC not set (make "
		              "test-run sets them)");
		return false;
	}
	if (!tmux_on_path("python3")) {
		tu_skip(test, "no python3 on PATH");
		return false;
	}
	snprintf(d->shop, sizeof(d->shop), "%s/adapters/asyncio/demo/shop.py",
	         src);
	snprintf(d->agent, sizeof(d->agent), "%s/adapters/asyncio", src);
	find_leaders(d);
	tu_mkdtemp(d->dir, sizeof(d->dir));
	snprintf(d->saves, sizeof(d->saves), "%s/saves", d->dir);
	snprintf(d->tmp, sizeof(d->tmp), "%s/tmp", d->dir);
	ck_assert_int_eq(mkdir(d->saves, 0700), 0);
	ck_assert_int_eq(mkdir(d->tmp, 0700), 0);
	tmux_events_open(&d->ev, d->dir);
	return true;
}

void demo_fini(struct demo *d)
{
	tmux_events_close(&d->ev);
	remove_dirs(d->dir, d->tmp, d->saves);
}

/* Copies the event line at offset at of seen (NUL-terminated, cut to
 * size) into dst; returns the offset of the next line, or 0 when the line
 * is not whole yet. */
static size_t event_line(const struct tmux_events *e, size_t at, char *dst,
                         size_t size)
{
	const char *p = e->seen.data + at;
	const char *nl;

	if (at >= e->seen.len)
		return 0;
	nl = memchr(p, '\n', e->seen.len - at);
	if (!nl)
		return 0;
	snprintf(dst, size, "%.*s", (int)(nl - p), p);
	return at + (size_t)(nl - p) + 1;
}

unsigned long demo_last_window(const struct tmux_events *e, size_t to)
{
	unsigned long k = 0, v;
	char line[256], word[16];

	for (size_t at = 0, next; at < to; at = next) {
		next = event_line(e, at, line, sizeof(line));
		if (!next)
			break;
		if (sscanf(line, "window %lu %15s", &v, word) == 2 &&
		    !strcmp(word, "committed"))
			k = v;
	}
	return k;
}

void demo_wait_windows(struct tmux_events *e, unsigned long n)
{
	uint64_t until = tmux_now_ms() + DEMO_MS;

	while (demo_last_window(e, e->seen.len) < n) {
		ck_assert_msg(tmux_now_ms() < until,
		              "window %lu never came; events:\n%s", n,
		              tmux_tail(&e->seen, 1500));
		tmux_events_pump(e, 100);
	}
}

void demo_wait_first_window(struct demo *d)
{
	uint64_t until = tmux_now_ms() + DEMO_MS;
	char errp[700];
	struct buf err;

	snprintf(errp, sizeof(errp), "%s/stderr", d->dir);
	buf_init(&err);
	while (!tmux_events_between(&d->ev, 0, d->ev.seen.len,
	                            "window 1 committed")) {
		bool ended =
		    tmux_events_between(&d->ev, 0, d->ev.seen.len, "exit *");

		if (ended || tmux_now_ms() >= until) {
			(void)tu_read_file(errp, &err);
			ck_abort_msg(
			    "%s; the last events:\n%s\nits stderr:\n%s",
			    ended ? "the viewer ended before its first "
			            "window"
			          : "no first window",
			    tmux_tail(&d->ev.seen, 600), tmux_tail(&err, 1000));
		}
		tmux_events_pump(&d->ev, 100);
	}
	buf_fini(&err);
	TMUX_WAIT(&d->ev, "window 1 committed", TMUX_WAIT_MS);
}

long demo_event_pid(const struct tmux_events *e, const char *word)
{
	size_t wl = strlen(word);
	char line[256];
	long v;

	for (size_t at = 0; (at = event_line(e, at, line, sizeof(line)));)
		if (!strncmp(line, word, wl) && line[wl] == ' ' &&
		    sscanf(line + wl, " %ld", &v) == 1)
			return v;
	return 0;
}

void demo_drain(struct tmux_events *e)
{
	size_t seen, out;

	do {
		seen = e->seen.len;
		out = e->out.len;
		tmux_events_pump(e, 0);
	} while (e->seen.len != seen || e->out.len != out);
}
