/* The live viewer end to end on real terminals, synchronised on the test
 * event channel (never sleep-and-hope): on a pseudo-terminal with a
 * producer that hangs (keys still answer; quit; SIGTERM, SIGINT, SIGHUP
 * and a crash restore the terminal), and in tmux over replay files and the
 * embedding example (weighting reorders rows, history, saving). */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/select.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "adapters/asynctop.h"
#include "encode/pprof.h"
#include "encode/save.h"
#include "model/buf.h"
#include "model/model.h"
#include "tests/util.h"

#define WAIT_MS     10000 /* a generous bound for anything to happen */
#define KEY_MS      2000  /* a key is answered within this (decisions §9) */
#define SEC         ((int64_t)1000000000)
#define T0          ((int64_t)1700000000 * SEC)
#define CHILD_LIMIT 60

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

/* ---- the event channel -------------------------------------------------- */

struct events {
	int fd;          /* FIFO, read end */
	int drain;       /* another fd to keep drained (pty master), or -1 */
	struct buf seen; /* everything read */
	size_t pos;      /* after the last matched event */
	struct buf out;  /* what drain gave */
	char fifo[600];
};

static void events_open(struct events *e, const char *dir)
{
	memset(e, 0, sizeof(*e));
	buf_init(&e->seen);
	buf_init(&e->out);
	e->drain = -1;
	snprintf(e->fifo, sizeof(e->fifo), "%s/events", dir);
	ck_assert_int_eq(mkfifo(e->fifo, 0600), 0);
	e->fd = open(e->fifo, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	ck_assert_int_ge(e->fd, 0);
}

static void events_close(struct events *e)
{
	close(e->fd);
	unlink(e->fifo);
	buf_fini(&e->seen);
	buf_fini(&e->out);
}

static void pump(struct events *e, int timeout)
{
	struct pollfd p[2] = { { e->fd, POLLIN, 0 }, { e->drain, POLLIN, 0 } };
	char b[4096];
	ssize_t n;

	if (poll(p, 2, timeout) <= 0)
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
	    !(p[1].revents & POLLIN))
		poll(NULL, 0, timeout < 20 ? timeout : 20); /* writer gone */
}

/* Waits for an event line equal to want, or starting with want when it
 * ends in '*'; copies the line to line (may be NULL).  False on timeout. */
static bool wait_event(struct events *e, const char *want, int ms, char *line,
                       size_t size)
{
	uint64_t until = now_ms() + (uint64_t)ms;
	size_t wl = strlen(want);
	bool prefix = wl && want[wl - 1] == '*';

	if (prefix)
		wl--;
	for (;;) {
		while (e->pos < e->seen.len) {
			const char *p = e->seen.data + e->pos;
			const char *nl = memchr(p, '\n', e->seen.len - e->pos);
			size_t len;

			if (!nl)
				break;
			len = (size_t)(nl - p);
			e->pos += len + 1;
			if ((prefix ? len >= wl : len == wl) &&
			    !memcmp(p, want, wl)) {
				if (line)
					snprintf(line, size, "%.*s", (int)len,
					         p);
				return true;
			}
		}
		uint64_t now = now_ms();
		if (now >= until)
			return false;
		pump(e, (int)(until - now));
	}
}

#define WAIT(e, want, ms)                                                     \
	ck_assert_msg(wait_event((e), (want), (ms), NULL, 0),                 \
	              "no event '%s' within %d ms; events so far:\n%s", want, \
	              ms, buf_cstr(&(e)->seen))

/* ---- a pseudo-terminal and a producer that hangs ------------------------- */

static int hang_mode; /* in the child: 1 = the second window hangs */

static struct asynctop_str str(const char *s)
{
	struct asynctop_str v = { s, strlen(s) };
	return v;
}

static enum asynctop_result produce(void *user, struct asynctop_window *w)
{
	static unsigned calls;
	struct asynctop_str f[2];
	struct asynctop_sample s;

	(void)user;
	if (calls++ && hang_mode)
		for (;;)
			select(0, NULL, NULL, NULL,
			       NULL); /* every signal is
			               * blocked: forever */
	memset(&s, 0, sizeof(s));
	f[0] = str("main");
	f[1] = str("waiter");
	s.frames = f;
	s.depth = 2;
	s.task = str("w");
	s.idle_ns = 900000000;
	s.busy_ns = 1000;
	s.polls = 2;
	s.tasks = 1;
	if (asynctop_window_add(w, &s))
		return ASYNCTOP_FAILED;
	/* cppcheck-suppress unreadVariable ; read through s.frames */
	f[1] = str("spinner");
	s.idle_ns = 1000;
	s.busy_ns = 800000000;
	s.polls = 5000;
	if (asynctop_window_add(w, &s))
		return ASYNCTOP_FAILED;
	asynctop_window_wait(w);
	return ASYNCTOP_OK;
}

struct pty_run {
	char dir[512];
	int master, slave;
	pid_t pid;
	struct events ev;
};

static void pty_start(struct pty_run *r, int mode)
{
	struct winsize ws = { 24, 80, 0, 0 };
	char *slave_name;
	char errp[640];

	tu_mkdtemp(r->dir, sizeof(r->dir));
	events_open(&r->ev, r->dir);
	r->master = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
	ck_assert_int_ge(r->master, 0);
	ck_assert_int_eq(grantpt(r->master), 0);
	ck_assert_int_eq(unlockpt(r->master), 0);
	slave_name = ptsname(r->master);
	ck_assert_ptr_nonnull(slave_name);
	ck_assert_int_eq(ioctl(r->master, TIOCSWINSZ, &ws), 0);
	r->slave = open(slave_name, O_RDWR | O_NOCTTY | O_CLOEXEC);
	ck_assert_int_ge(r->slave, 0);
	r->ev.drain = r->master;
	snprintf(errp, sizeof(errp), "%s/stderr", r->dir);
	fflush(NULL);
	r->pid = fork();
	ck_assert_int_ge(r->pid, 0);
	if (r->pid == 0) {
		struct asynctop_adapter hang = {
			.abi = ASYNCTOP_ABI_VERSION,
			.name = "hangs",
			.summary = "a producer that hangs",
			.default_endpoint = "sim://hang",
			.produce = produce,
		};
		char a0[] = "hangtop", a1[] = "-w", a2[] = "0.2", a3[] = "-d";
		char *argv[] = { a0, a1, a2, a3, r->dir, NULL };
		int fd, tty;

		setsid();
		tty = open(slave_name, O_RDWR);
		if (tty < 0 || ioctl(tty, TIOCSCTTY, 0) < 0)
			_exit(125);
		fd = open("/dev/null", O_RDWR);
		if (fd < 0 || dup2(fd, 0) < 0 || dup2(fd, 1) < 0)
			_exit(126);
		fd = open(errp, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		if (fd < 0 || dup2(fd, 2) < 0)
			_exit(127);
		close(tty);
		setenv("TERM", "xterm-256color", 1);
		setenv("ASYNCTOP_TEST_EVENTS", r->ev.fifo, 1);
		if (mode & 2)
			setenv("NO_COLOR", "1", 1);
		else
			unsetenv("NO_COLOR");
		hang_mode = mode & 1;
		alarm(CHILD_LIMIT);
		_exit(asynctop_main(5, argv, &hang, 1));
	}
}

/* Waits for the child to end, draining the terminal meanwhile. */
static int pty_wait(struct pty_run *r)
{
	uint64_t until = now_ms() + WAIT_MS;
	int status;
	pid_t got;

	while ((got = waitpid(r->pid, &status, WNOHANG)) == 0) {
		ck_assert_msg(now_ms() < until, "the viewer did not exit");
		pump(&r->ev, 50);
	}
	ck_assert_int_eq(got, r->pid);
	pump(&r->ev, 0);
	return status;
}

/* The terminal is back in its first state: canonical, echoing, and the
 * alternate screen left after the last drawing. */
static void assert_restored(struct pty_run *r)
{
	struct termios t;
	const char *out = buf_cstr(&r->ev.out);
	const char *leave;

	ck_assert_int_eq(tcgetattr(r->slave, &t), 0);
	ck_assert(t.c_lflag & ICANON);
	ck_assert(t.c_lflag & ECHO);
	ck_assert_ptr_nonnull(out);
	ck_assert_ptr_nonnull(strstr(out, "\033[?1049h"));
	leave = strstr(out, "\033[?1049l");
	ck_assert_msg(leave != NULL, "the alternate screen was not left");
}

static void pty_end(struct pty_run *r)
{
	close(r->master);
	close(r->slave);
	events_close(&r->ev);
	tu_rmtree(r->dir);
}

START_TEST(e2e_keys_answer_while_source_hangs)
{
	struct pty_run r;
	uint64_t t;
	int status;

	pty_start(&r, 1);
	WAIT(&r.ev, "window 1 committed", WAIT_MS);
	WAIT(&r.ev, "drawn", WAIT_MS);
	/* the second window hangs: the watchdog reports it */
	WAIT(&r.ev, "error the hangs source at sim://hang timed out*", WAIT_MS);
	t = now_ms();
	ck_assert_int_eq(write(r.master, "b", 1), 1);
	WAIT(&r.ev, "action weight-busy", KEY_MS);
	WAIT(&r.ev, "drawn", KEY_MS);
	ck_assert_uint_lt(now_ms() - t, KEY_MS);
	ck_assert_int_eq(write(r.master, "[", 1), 1);
	WAIT(&r.ev, "action history-back", KEY_MS);
	ck_assert_int_eq(write(r.master, "q", 1), 1);
	WAIT(&r.ev, "action quit", KEY_MS);
	/* the hung source is left behind after its 2 s grace */
	WAIT(&r.ev, "exit 0", WAIT_MS);
	status = pty_wait(&r);
	ck_assert(WIFEXITED(status));
	ck_assert_int_eq(WEXITSTATUS(status), 0);
	assert_restored(&r);
	pty_end(&r);
}
END_TEST

static void signal_case(int sig)
{
	struct pty_run r;
	char want[32];
	int status;

	pty_start(&r, 0);
	WAIT(&r.ev, "window 1 committed", WAIT_MS);
	WAIT(&r.ev, "drawn", WAIT_MS);
	ck_assert_int_eq(kill(r.pid, sig), 0);
	snprintf(want, sizeof(want), "exit %d", 128 + sig);
	WAIT(&r.ev, want, WAIT_MS);
	status = pty_wait(&r);
	ck_assert(WIFEXITED(status));
	ck_assert_int_eq(WEXITSTATUS(status), 128 + sig);
	assert_restored(&r);
	pty_end(&r);
}

START_TEST(e2e_sigterm_restores)
{
	signal_case(SIGTERM);
}
END_TEST

START_TEST(e2e_sigint_sighup_restore)
{
	signal_case(SIGINT);
	signal_case(SIGHUP);
}
END_TEST

START_TEST(e2e_ctrl_c_quits)
{
	struct pty_run r;
	int status;

	pty_start(&r, 0);
	WAIT(&r.ev, "drawn", WAIT_MS);
	ck_assert_int_eq(write(r.master, "\003", 1), 1);
	WAIT(&r.ev, "action quit", KEY_MS);
	WAIT(&r.ev, "exit 0", WAIT_MS);
	status = pty_wait(&r);
	ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	assert_restored(&r);
	pty_end(&r);
}
END_TEST

/* True when out holds an SGR sequence (ESC [ N;N... m) with a parameter
 * for which want(N) is true. */
static bool has_sgr(const char *out, bool (*want)(long v))
{
	for (const char *p = strstr(out, "\033["); p;
	     p = strstr(p + 1, "\033[")) {
		const char *q = p + 2;
		long vals[16];
		size_t n = 0;

		while (n < 16) {
			char *end;
			long v = strtol(q, &end, 10);
			if (end == q)
				v = 0;
			vals[n++] = v;
			q = end;
			if (*q != ';')
				break;
			q++;
		}
		if (*q != 'm')
			continue;
		for (size_t i = 0; i < n; i++)
			if (want(vals[i]))
				return true;
	}
	return false;
}

static bool is_colour(long v)
{
	return (v >= 30 && v <= 38) || (v >= 40 && v <= 48) ||
	       (v >= 90 && v <= 97) || (v >= 100 && v <= 107);
}

static bool is_reverse(long v)
{
	return v == 7;
}

START_TEST(e2e_no_color_and_resize)
{
	struct pty_run r;
	struct winsize small = { 6, 30, 0, 0 }, back = { 24, 80, 0, 0 };
	size_t mark;

	/* colours by default */
	pty_start(&r, 0);
	WAIT(&r.ev, "window 1 committed", WAIT_MS);
	WAIT(&r.ev, "drawn", WAIT_MS);
	ck_assert(has_sgr(buf_cstr(&r.ev.out), is_colour));
	ck_assert_int_eq(write(r.master, "q", 1), 1);
	WAIT(&r.ev, "exit 0", WAIT_MS);
	(void)pty_wait(&r);
	pty_end(&r);

	/* NO_COLOR: bold and reverse only; a resize redraws, too small
	 * says so, and back */
	pty_start(&r, 2);
	WAIT(&r.ev, "window 1 committed", WAIT_MS);
	WAIT(&r.ev, "drawn", WAIT_MS);
	mark = r.ev.out.len;
	ck_assert_int_eq(ioctl(r.master, TIOCSWINSZ, &small), 0);
	WAIT(&r.ev, "drawn", WAIT_MS);
	while (!strstr(buf_cstr(&r.ev.out) + mark, "terminal too small"))
		ck_assert_msg(wait_event(&r.ev, "drawn", WAIT_MS, NULL, 0),
		              "no too-small notice after a resize");
	ck_assert_int_eq(ioctl(r.master, TIOCSWINSZ, &back), 0);
	WAIT(&r.ev, "drawn", WAIT_MS);
	ck_assert_int_eq(write(r.master, "q", 1), 1);
	WAIT(&r.ev, "exit 0", WAIT_MS);
	(void)pty_wait(&r);
	ck_assert(!has_sgr(buf_cstr(&r.ev.out), is_colour));
	ck_assert(has_sgr(buf_cstr(&r.ev.out), is_reverse));
	assert_restored(&r);
	pty_end(&r);
}
END_TEST

START_TEST(e2e_crash_restores)
{
	struct pty_run r;
	int status;

	pty_start(&r, 0);
	WAIT(&r.ev, "window 1 committed", WAIT_MS);
	WAIT(&r.ev, "drawn", WAIT_MS);
	ck_assert_int_eq(kill(r.pid, SIGSEGV), 0);
	status = pty_wait(&r);
	/* killed by the signal re-raised; under ASan, its report's exit */
	ck_assert((WIFSIGNALED(status) && WTERMSIG(status) == SIGSEGV) ||
	          (WIFEXITED(status) && WEXITSTATUS(status) != 0));
	assert_restored(&r);
	pty_end(&r);
}
END_TEST

/* ---- tmux ---------------------------------------------------------------- */

/* Runs argv; its stdout into out (may be NULL).  The exit status. */
static int run(const char *const *argv, struct buf *out)
{
	int p[2];
	pid_t pid;
	int status;
	char b[4096];
	ssize_t n;

	/* without out, no pipe: a daemon (the tmux server) would hold it */
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

struct tmux {
	char sock[64];
};

static bool tmux_start(struct tmux *t, const char *cmd)
{
	const char *probe[] = { "tmux", "-V", NULL };
	const char *argv[] = { "tmux",        "-L", t->sock, "-f",  "/dev/null",
		               "new-session", "-d", "-x",    "100", "-y",
		               "30",          cmd,  NULL };

	snprintf(t->sock, sizeof(t->sock), "asynctop-e2e-%d", (int)getpid());
	if (run(probe, NULL) != 0)
		return false;
	ck_assert_int_eq(run(argv, NULL), 0);
	return true;
}

static void tmux_keys(struct tmux *t, const char *keys)
{
	const char *argv[] = { "tmux", "-L", t->sock, "send-keys",
		               "-l",   keys, NULL };
	ck_assert_int_eq(run(argv, NULL), 0);
}

static void tmux_capture(struct tmux *t, struct buf *out)
{
	const char *argv[] = {
		"tmux", "-L", t->sock, "capture-pane", "-p", NULL
	};
	buf_reset(out);
	ck_assert_int_eq(run(argv, out), 0);
}

static void tmux_end(struct tmux *t)
{
	const char *argv[] = { "tmux", "-L", t->sock, "kill-server", NULL };
	(void)run(argv, NULL);
}

/* The leaf of the first table row in a captured screen. */
static void first_leaf(const struct buf *screen, char *dst, size_t size)
{
	const char *p = screen->data;

	for (int i = 0; p && i < 4; i++) {
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	ck_assert_ptr_nonnull(p);
	p = strstr(p, "%  ");
	ck_assert_msg(p != NULL, "no table row in:\n%s", screen->data);
	p += 3;
	snprintf(dst, size, "%.*s", (int)strcspn(p, " \n"), p);
}

struct prow {
	const char *leaf;
	uint64_t idle, busy, polls;
};

static void write_profile(const char *path, const struct prow *rows, size_t n,
                          int64_t start)
{
	struct model *m;
	struct buf enc;
	struct window_meta meta;
	const struct window *w;
	char err[256];

	ck_assert_int_eq(model_new(NULL, &m), STATUS_OK);
	ck_assert_int_eq(model_begin(m), STATUS_OK);
	for (size_t i = 0; i < n; i++) {
		struct strview f[2] = { sv_c("app:main"), sv_c(rows[i].leaf) };
		struct sample s;

		memset(&s, 0, sizeof(s));
		s.frames = f;
		s.depth = 2;
		s.task = sv_c("t");
		s.m.v[METRIC_IDLE] = rows[i].idle;
		s.m.v[METRIC_BUSY] = rows[i].busy;
		s.m.v[METRIC_POLLS] = rows[i].polls;
		s.tasks = 1;
		ck_assert_int_eq(model_add(m, &s), STATUS_OK);
	}
	memset(&meta, 0, sizeof(meta));
	meta.time_nanos = start;
	meta.duration_nanos = 5 * SEC;
	ck_assert_int_eq(model_commit(m, &meta, &w), STATUS_OK);
	buf_init(&enc);
	ck_assert_int_eq(pprof_encode(m, w, NULL, &enc), STATUS_OK);
	ck_assert_int_eq(
	    save_file(path, enc.data, enc.len, NULL, NULL, 0, err, sizeof(err)),
	    STATUS_OK);
	buf_fini(&enc);
	model_free(m);
}

struct counted {
	size_t samples;
	int64_t time;
};

static enum status count_sample(void *ctx, const struct sample *s)
{
	(void)s;
	((struct counted *)ctx)->samples++;
	return STATUS_OK;
}

static enum status count_meta(void *ctx, const struct window_meta *m)
{
	((struct counted *)ctx)->time = m->time_nanos;
	return STATUS_OK;
}

START_TEST(e2e_tmux_replay_weighting_history_save)
{
	static const struct prow w1[] = { { "idler", 900, 1, 1 },
		                          { "spinner", 10, 800, 500 },
		                          { "mid", 50, 50, 50 } };
	static const struct prow w2[] = { { "idler", 800, 2, 2 },
		                          { "spinner", 20, 700, 400 } };
	const char *bin = getenv("ASYNCTOP_BIN");
	char dir[512], data[640], saves[640], cmd[4096], leaf[128], line[1024],
	    err[256];
	struct events ev;
	struct tmux t;
	struct buf screen, col;
	struct counted c;
	struct sample_sink sink = { count_sample, count_meta, &c };

	if (!bin || !*bin || access(bin, X_OK)) {
		tu_skip("e2e_tmux_replay", "ASYNCTOP_BIN is not set");
		return;
	}
	tu_mkdtemp(dir, sizeof(dir));
	snprintf(data, sizeof(data), "%s/data", dir);
	snprintf(saves, sizeof(saves), "%s/saves", dir);
	ck_assert_int_eq(mkdir(data, 0700), 0);
	ck_assert_int_eq(mkdir(saves, 0700), 0);
	snprintf(line, sizeof(line), "%s/one.pb.gz", data);
	write_profile(line, w1, 3, T0);
	snprintf(line, sizeof(line), "%s/two.pb.gz", data);
	write_profile(line, w2, 2, T0 + 5 * SEC);
	snprintf(line, sizeof(line), "%s/three.pb.gz", data);
	write_profile(line, w1, 3, T0 + 10 * SEC);
	events_open(&ev, dir);
	snprintf(cmd, sizeof(cmd),
	         "exec env ASYNCTOP_TEST_EVENTS='%s' TERM=xterm-256color "
	         "TZ=UTC '%s' -a replay -e '%s' -d '%s'",
	         ev.fifo, bin, data, saves);
	if (!tmux_start(&t, cmd)) {
		tu_skip("e2e_tmux_replay", "tmux is not installed");
		events_close(&ev);
		tu_rmtree(dir);
		return;
	}
	buf_init(&screen);
	WAIT(&ev, "window 3 committed", WAIT_MS);
	WAIT(&ev, "drawn", WAIT_MS);
	tmux_capture(&t, &screen);
	ck_assert_msg(strstr(screen.data, "REPLAY") &&
	                  strstr(screen.data, "window 3/3"),
	              "%s", screen.data);
	first_leaf(&screen, leaf, sizeof(leaf));
	ck_assert_str_eq(leaf, "idler");
	/* weight by busy: the rows reorder */
	tmux_keys(&t, "b");
	WAIT(&ev, "action weight-busy", KEY_MS);
	WAIT(&ev, "drawn", KEY_MS);
	tmux_capture(&t, &screen);
	first_leaf(&screen, leaf, sizeof(leaf));
	ck_assert_str_eq(leaf, "spinner");
	ck_assert_ptr_nonnull(strstr(screen.data, "BUSY\xE2\x96\xBC"));
	/* history: one window back */
	tmux_keys(&t, "[");
	WAIT(&ev, "action history-back", KEY_MS);
	WAIT(&ev, "drawn", KEY_MS);
	tmux_capture(&t, &screen);
	ck_assert_msg(strstr(screen.data, "window 2/3") &&
	                  strstr(screen.data, "HISTORY"),
	              "%s", screen.data);
	ck_assert_ptr_null(strstr(screen.data, " mid"));
	/* save it: a pprof file pprof_load accepts, of window 2 */
	tmux_keys(&t, "S");
	ck_assert(wait_event(&ev, "saved *", WAIT_MS, line, sizeof(line)));
	ck_assert_ptr_nonnull(strstr(line, "/asynctop-replay-"
	                                   "20231114T221325Z-w2.pb.gz"));
	memset(&c, 0, sizeof(c));
	ck_assert_msg(pprof_load(line + 6, NULL, &sink, err, sizeof(err)) ==
	                  STATUS_OK,
	              "%s: %s", line + 6, err);
	ck_assert_uint_eq(c.samples, 2);
	ck_assert_int_eq(c.time, T0 + 5 * SEC);
	/* again: never an overwrite, a -2 name */
	tmux_keys(&t, "S");
	ck_assert(wait_event(&ev, "saved *", WAIT_MS, line, sizeof(line)));
	ck_assert_ptr_nonnull(strstr(line, "-w2-2.pb.gz"));
	/* collapsed stacks of the busy weighting */
	tmux_keys(&t, "C");
	ck_assert(wait_event(&ev, "saved *", WAIT_MS, line, sizeof(line)));
	ck_assert_ptr_nonnull(strstr(line, "-w2-busy.collapsedstack.txt"));
	buf_init(&col);
	ck_assert_int_eq(tu_read_file(line + 6, &col), STATUS_OK);
	ck_assert_str_eq(buf_cstr(&col), "app:main;spinner 700\n"
	                                 "app:main;idler 2\n");
	buf_fini(&col);
	tmux_capture(&t, &screen);
	ck_assert_ptr_nonnull(strstr(screen.data, "saved "));
	tmux_keys(&t, "q");
	WAIT(&ev, "exit 0", WAIT_MS);
	tmux_end(&t);
	buf_fini(&screen);
	events_close(&ev);
	tu_rmtree(saves);
	tu_rmtree(data);
	tu_rmtree(dir);
}
END_TEST

START_TEST(e2e_tmux_embed_example_gets_the_viewer)
{
	const char *bin = getenv("ASYNCTOP_BIN");
	const char *src = getenv("ASYNCTOP_SRC");
	char build[512], work[512], script[700], cmd[4096], leaf[128];
	struct events ev;
	struct tmux t;
	struct buf screen;
	struct stat sb;
	const char *slash;

	if (!bin || !src || !*bin || !*src) {
		tu_skip("e2e_tmux_embed", "ASYNCTOP_BIN/ASYNCTOP_SRC not set");
		return;
	}
	slash = strrchr(bin, '/');
	snprintf(build, sizeof(build), "%.*s", (int)(slash - bin), bin);
	snprintf(script, sizeof(script), "%s/asynctop.pc", build);
	if (stat(script, &sb) != 0) {
		tu_skip("e2e_tmux_embed", "no asynctop.pc in the build");
		return;
	}
	tu_mkdtemp(work, sizeof(work));
	/* builds docs/examples/embed.c as an embedder would (embed.sh) */
	{
		char ssh[700];
		const char *argv[] = { "sh", ssh, build, src, work, NULL };
		snprintf(ssh, sizeof(ssh), "%s/tests/embed.sh", src);
		ck_assert_int_eq(run(argv, NULL), 0);
	}
	events_open(&ev, work);
	snprintf(cmd, sizeof(cmd),
	         "exec env ASYNCTOP_TEST_EVENTS='%s' TERM=xterm-256color "
	         "'%s/embed' -w 0.3 --exit-after 4 -d '%s'",
	         ev.fifo, work, work);
	if (!tmux_start(&t, cmd)) {
		tu_skip("e2e_tmux_embed", "tmux is not installed");
		events_close(&ev);
		tu_rmtree(work);
		return;
	}
	buf_init(&screen);
	WAIT(&ev, "window 2 committed", WAIT_MS);
	tmux_keys(&t, "p");
	WAIT(&ev, "action weight-polls", KEY_MS);
	WAIT(&ev, "drawn", KEY_MS);
	tmux_capture(&t, &screen);
	ck_assert_msg(strstr(screen.data, "toyexec sim://local") &&
	                  strstr(screen.data, "connected") &&
	                  strstr(screen.data, "POLLS\xE2\x96\xBC"),
	              "%s", screen.data);
	first_leaf(&screen, leaf, sizeof(leaf));
	ck_assert_str_eq(leaf, "conn::handle");
	ck_assert_ptr_nonnull(strstr(screen.data, "metrics::flusher"));
	WAIT(&ev, "exit 0", WAIT_MS);
	tmux_end(&t);
	buf_fini(&screen);
	events_close(&ev);
	tu_rmtree(work);
}
END_TEST

Suite *suite_viewer_e2e(void);
Suite *suite_viewer_e2e(void)
{
	Suite *s = suite_create("viewer_e2e");
	TCase *tc = tcase_create("viewer_e2e");

	tcase_set_timeout(tc, 90);
	tcase_add_test(tc, e2e_keys_answer_while_source_hangs);
	tcase_add_test(tc, e2e_sigterm_restores);
	tcase_add_test(tc, e2e_sigint_sighup_restore);
	tcase_add_test(tc, e2e_ctrl_c_quits);
	tcase_add_test(tc, e2e_crash_restores);
	tcase_add_test(tc, e2e_no_color_and_resize);
	tcase_add_test(tc, e2e_tmux_replay_weighting_history_save);
	tcase_add_test(tc, e2e_tmux_embed_example_gets_the_viewer);
	suite_add_tcase(s, tc);
	return s;
}
