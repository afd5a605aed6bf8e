/* The live viewer end to end on real terminals, synchronised on the test
 * event channel (never sleep-and-hope): on a pseudo-terminal with a
 * producer that hangs (keys still answer; quit; SIGTERM, SIGINT, SIGHUP
 * and a crash restore the terminal), and in tmux over replay files and the
 * embedding example (weighting reorders rows, history, saving). */
#include <check.h>
#include <fcntl.h>
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
#include <unistd.h>

#include "adapters/asynctop.h"
#include "encode/pprof.h"
#include "encode/save.h"
#include "model/buf.h"
#include "model/model.h"
#include "tests/tmux.h"
#include "tests/util.h"

#define WAIT_MS     TMUX_WAIT_MS
#define KEY_MS      TMUX_KEY_MS
#define SEC         ((int64_t)1000000000)
#define T0          ((int64_t)1700000000 * SEC)
#define CHILD_LIMIT 60

/* ---- a pseudo-terminal and a producer that hangs ------------------------- */

static int hang_mode;   /* in the child: 1 = the second window hangs */
static int stderr_mode; /* in the child: each window logs to stderr */

#define LOG_LINE "E0000 producer: connection pool warming up"

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
	if (stderr_mode) {
		/* as a library would: straight to fd 2, on the worker */
		ssize_t n = write(2, LOG_LINE "\n", strlen(LOG_LINE) + 1);
		(void)n;
	}
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
	struct tmux_pty pty;
	pid_t pid;
	struct tmux_events ev;
};

static void pty_start(struct pty_run *r, int mode)
{
	char errp[640];

	tu_mkdtemp(r->dir, sizeof(r->dir));
	tmux_events_open(&r->ev, r->dir);
	tmux_pty_open(&r->pty, 80, 24);
	r->ev.drain = r->pty.master;
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
		tty = open(r->pty.name, O_RDWR);
		if (tty < 0 || ioctl(tty, TIOCSCTTY, 0) < 0)
			_exit(125);
		fd = open("/dev/null", O_RDWR);
		if (fd < 0 || dup2(fd, 0) < 0 || dup2(fd, 1) < 0)
			_exit(126);
		/* stderr: a file, or (mode 4) the terminal itself */
		fd = mode & 4 ? tty
		              : open(errp, O_WRONLY | O_CREAT | O_TRUNC, 0600);
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
		stderr_mode = (mode & 4) != 0;
		alarm(CHILD_LIMIT);
		_exit(asynctop_main(5, argv, &hang, 1));
	}
}

/* Waits for the child to end, draining the terminal meanwhile. */
static int pty_wait(struct pty_run *r)
{
	uint64_t until = tmux_now_ms() + WAIT_MS;
	int status;
	pid_t got;

	while ((got = waitpid(r->pid, &status, WNOHANG)) == 0) {
		ck_assert_msg(tmux_now_ms() < until, "the viewer did not exit");
		tmux_events_pump(&r->ev, 50);
	}
	ck_assert_int_eq(got, r->pid);
	tmux_events_pump(&r->ev, 0);
	return status;
}

/* The terminal is back in its first state: canonical, echoing, and the
 * alternate screen left after the last drawing. */
static void assert_restored(struct pty_run *r)
{
	tmux_assert_restored(&r->pty, buf_cstr(&r->ev.out));
}

static void pty_end(struct pty_run *r)
{
	tmux_pty_close(&r->pty);
	tmux_events_close(&r->ev);
	tu_rmtree(r->dir);
}

START_TEST(e2e_keys_answer_while_source_hangs)
{
	struct pty_run r;
	uint64_t t;
	int status;

	pty_start(&r, 1);
	TMUX_WAIT(&r.ev, "window 1 committed", WAIT_MS);
	TMUX_WAIT(&r.ev, "drawn", WAIT_MS);
	/* the second window hangs: the watchdog reports it */
	TMUX_WAIT(&r.ev, "error the hangs source at sim://hang timed out*",
	          WAIT_MS);
	t = tmux_now_ms();
	ck_assert_int_eq(write(r.pty.master, "b", 1), 1);
	TMUX_WAIT(&r.ev, "action weight-busy", KEY_MS);
	TMUX_WAIT(&r.ev, "drawn", KEY_MS);
	ck_assert_uint_lt(tmux_now_ms() - t, KEY_MS);
	ck_assert_int_eq(write(r.pty.master, "[", 1), 1);
	TMUX_WAIT(&r.ev, "action history-back", KEY_MS);
	ck_assert_int_eq(write(r.pty.master, "q", 1), 1);
	TMUX_WAIT(&r.ev, "action quit", KEY_MS);
	/* the hung source is left behind after its 2 s grace */
	TMUX_WAIT(&r.ev, "exit 0", WAIT_MS);
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
	TMUX_WAIT(&r.ev, "window 1 committed", WAIT_MS);
	TMUX_WAIT(&r.ev, "drawn", WAIT_MS);
	ck_assert_int_eq(kill(r.pid, sig), 0);
	snprintf(want, sizeof(want), "exit %d", 128 + sig);
	TMUX_WAIT(&r.ev, want, WAIT_MS);
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

/* A producer writing to stderr while the screen is up (stderr being the
 * terminal): its line shows in the status line, never raw on the screen,
 * and reaches the terminal after it is restored. */
START_TEST(e2e_stderr_captured_under_the_screen)
{
	struct pty_run r;
	const char *out, *leave, *at;
	int status;

	pty_start(&r, 4);
	TMUX_WAIT(&r.ev, "window 1 committed", WAIT_MS);
	TMUX_WAIT(&r.ev, "drawn", WAIT_MS);
	ck_assert_int_eq(write(r.pty.master, "q", 1), 1);
	TMUX_WAIT(&r.ev, "exit 0", WAIT_MS);
	status = pty_wait(&r);
	ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	assert_restored(&r);
	out = buf_cstr(&r.ev.out);
	ck_assert_ptr_nonnull(strstr(out, "stderr: " LOG_LINE));
	/* on the screen, only inside the status line */
	leave = strstr(out, "\033[?1049l");
	for (at = out; (at = strstr(at, LOG_LINE)) && at < leave; at++)
		ck_assert_msg(at - out >= 8 && !strncmp(at - 8, "stderr: ", 8),
		              "the line was written raw under the screen");
	/* and after the screen, as written */
	ck_assert_ptr_nonnull(strstr(leave, LOG_LINE));
	pty_end(&r);
}
END_TEST

START_TEST(e2e_ctrl_c_quits)
{
	struct pty_run r;
	int status;

	pty_start(&r, 0);
	TMUX_WAIT(&r.ev, "drawn", WAIT_MS);
	ck_assert_int_eq(write(r.pty.master, "\003", 1), 1);
	TMUX_WAIT(&r.ev, "action quit", KEY_MS);
	TMUX_WAIT(&r.ev, "exit 0", WAIT_MS);
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
	TMUX_WAIT(&r.ev, "window 1 committed", WAIT_MS);
	TMUX_WAIT(&r.ev, "drawn", WAIT_MS);
	ck_assert(has_sgr(buf_cstr(&r.ev.out), is_colour));
	ck_assert_int_eq(write(r.pty.master, "q", 1), 1);
	TMUX_WAIT(&r.ev, "exit 0", WAIT_MS);
	(void)pty_wait(&r);
	pty_end(&r);

	/* NO_COLOR: bold and reverse only; a resize redraws, too small
	 * says so, and back */
	pty_start(&r, 2);
	TMUX_WAIT(&r.ev, "window 1 committed", WAIT_MS);
	TMUX_WAIT(&r.ev, "drawn", WAIT_MS);
	mark = r.ev.out.len;
	ck_assert_int_eq(ioctl(r.pty.master, TIOCSWINSZ, &small), 0);
	TMUX_WAIT(&r.ev, "drawn", WAIT_MS);
	while (!strstr(buf_cstr(&r.ev.out) + mark, "terminal too small"))
		ck_assert_msg(
		    tmux_events_wait(&r.ev, "drawn", WAIT_MS, NULL, 0),
		    "no too-small notice after a resize");
	ck_assert_int_eq(ioctl(r.pty.master, TIOCSWINSZ, &back), 0);
	TMUX_WAIT(&r.ev, "drawn", WAIT_MS);
	ck_assert_int_eq(write(r.pty.master, "q", 1), 1);
	TMUX_WAIT(&r.ev, "exit 0", WAIT_MS);
	(void)pty_wait(&r);
	ck_assert(!has_sgr(buf_cstr(&r.ev.out), is_colour));
	ck_assert(has_sgr(buf_cstr(&r.ev.out), is_reverse));
	assert_restored(&r);
	pty_end(&r);
}
END_TEST

/* Mouse reporting, turned on when the viewer started, is off again at the
 * end of what the terminal was sent. */
static void assert_mouse_off(const char *out)
{
	const char *on = NULL, *p;

	for (p = out; (p = strstr(p, "1000h")) != NULL; p++)
		on = p;
	ck_assert_msg(on != NULL, "mouse reporting was never turned on");
	ck_assert_msg(on && strstr(on, "1000l") != NULL,
	              "mouse reporting was left on");
}

static void crash_case(int sig)
{
	struct pty_run r;
	int status;

	pty_start(&r, 0);
	TMUX_WAIT(&r.ev, "window 1 committed", WAIT_MS);
	TMUX_WAIT(&r.ev, "drawn", WAIT_MS);
	ck_assert_int_eq(kill(r.pid, sig), 0);
	status = pty_wait(&r);
	/* killed by the signal re-raised; under ASan, its report's exit */
	ck_assert((WIFSIGNALED(status) && WTERMSIG(status) == sig) ||
	          (WIFEXITED(status) && WEXITSTATUS(status) != 0));
	assert_restored(&r);
	assert_mouse_off(buf_cstr(&r.ev.out));
	pty_end(&r);
}

START_TEST(e2e_crash_restores)
{
	crash_case(SIGSEGV);
	crash_case(SIGABRT);
	crash_case(SIGBUS);
}
END_TEST

/* Stopped from outside (SIGSTOP, not ^Z), the shell puts its own modes
 * back on the terminal; after SIGCONT the viewer is raw again: a key is
 * answered without Enter. */
START_TEST(e2e_sigstop_then_cont_raw_again)
{
	struct termios t;
	struct pty_run r;
	int status;

	pty_start(&r, 0);
	TMUX_WAIT(&r.ev, "window 1 committed", WAIT_MS);
	TMUX_WAIT(&r.ev, "drawn", WAIT_MS);
	ck_assert_int_eq(kill(r.pid, SIGSTOP), 0);
	ck_assert_int_eq(waitpid(r.pid, &status, WUNTRACED), r.pid);
	ck_assert(WIFSTOPPED(status));
	ck_assert_int_eq(tcgetattr(r.pty.slave, &t), 0);
	t.c_lflag |= ICANON | ECHO;
	ck_assert_int_eq(tcsetattr(r.pty.slave, TCSANOW, &t), 0);
	ck_assert_int_eq(kill(r.pid, SIGCONT), 0);
	TMUX_WAIT(&r.ev, "continued", WAIT_MS);
	ck_assert_int_eq(tcgetattr(r.pty.slave, &t), 0);
	ck_assert_msg(!(t.c_lflag & (ICANON | ECHO)),
	              "the terminal stayed cooked after SIGCONT");
	ck_assert_int_eq(write(r.pty.master, "q", 1), 1);
	TMUX_WAIT(&r.ev, "action quit", KEY_MS);
	status = pty_wait(&r);
	ck_assert(WIFEXITED(status));
	ck_assert_int_eq(WEXITSTATUS(status), 0);
	assert_restored(&r);
	pty_end(&r);
}
END_TEST

/* ---- tmux ---------------------------------------------------------------- */

/* The leaf of the first table row in a captured screen. */
static void first_leaf(const struct buf *screen, char *dst, size_t size)
{
	ck_assert_msg(tmux_first_leaf(screen, dst, size),
	              "no table row in:\n%s", screen->data);
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

/* One saved profile of a replay directory: its rows and its start. */
struct pfile {
	const struct prow *rows;
	size_t n;
	int64_t start;
};

/* The real viewer in tmux (100x30) replaying files written into
 * DIR/data, saving into DIR/saves. */
struct replay_run {
	char dir[512], data[640], saves[640];
	struct tmux_events ev;
	struct tmux t;
	struct buf screen;
};

/* Writes the n files into r->data and starts the viewer on them, with the
 * `env` words env (may be "") before its own settings.  False, the test
 * skipped as name, without the binary or tmux. */
static bool replay_run_start(struct replay_run *r, const char *name,
                             const struct pfile *files, size_t n,
                             const char *env)
{
	const char *bin = getenv("ASYNCTOP_BIN");
	char cmd[4096], path[1024];

	if (!bin || !*bin || access(bin, X_OK)) {
		tu_skip(name, "ASYNCTOP_BIN is not set");
		return false;
	}
	tu_mkdtemp(r->dir, sizeof(r->dir));
	snprintf(r->data, sizeof(r->data), "%s/data", r->dir);
	snprintf(r->saves, sizeof(r->saves), "%s/saves", r->dir);
	ck_assert_int_eq(mkdir(r->data, 0700), 0);
	ck_assert_int_eq(mkdir(r->saves, 0700), 0);
	for (size_t i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/%zu.pb.gz", r->data, i + 1);
		write_profile(path, files[i].rows, files[i].n, files[i].start);
	}
	tmux_events_open(&r->ev, r->dir);
	snprintf(
	    cmd, sizeof(cmd),
	    "exec env %s ASYNCTOP_TEST_EVENTS='%s' TERM=xterm-256color TZ=UTC '%s' -a replay -e '%s' -d '%s'",
	    env, r->ev.fifo, bin, r->data, r->saves);
	buf_init(&r->screen);
	if (!tmux_start(&r->t, 100, 30, cmd)) {
		tu_skip(name, "tmux is not installed");
		buf_fini(&r->screen);
		tmux_events_close(&r->ev);
		tu_rmtree(r->saves);
		tu_rmtree(r->data);
		tu_rmtree(r->dir);
		return false;
	}
	return true;
}

static void replay_run_end(struct replay_run *r)
{
	tmux_end(&r->t);
	buf_fini(&r->screen);
	tmux_events_close(&r->ev);
	tu_rmtree(r->saves);
	tu_rmtree(r->data);
	tu_rmtree(r->dir);
}

/* A screen_ok: the screen holds the text ctx. */
static bool shows(const struct buf *screen, const void *ctx)
{
	return screen->data && strstr(screen->data, ctx);
}

START_TEST(e2e_tmux_replay_weighting_history_save)
{
	static const struct prow w1[] = { { "idler", 900, 1, 1 },
		                          { "spinner", 10, 800, 500 },
		                          { "mid", 50, 50, 50 } };
	static const struct prow w2[] = { { "idler", 800, 2, 2 },
		                          { "spinner", 20, 700, 400 } };
	static const struct pfile files[] = { { w1, 3, T0 },
		                              { w2, 2, T0 + 5 * SEC },
		                              { w1, 3, T0 + 10 * SEC } };
	char leaf[128], line[1024], err[256];
	struct replay_run r;
	struct buf col;
	struct counted c;
	struct sample_sink sink = { count_sample, count_meta, &c };

	if (!replay_run_start(&r, "e2e_tmux_replay", files, ARRAY_SIZE(files),
	                      ""))
		return;
	TMUX_WAIT(&r.ev, "window 3 committed", WAIT_MS);
	TMUX_WAIT(&r.ev, "drawn", WAIT_MS);
	tmux_capture(&r.t, &r.screen);
	ck_assert_msg(strstr(r.screen.data, "REPLAY") &&
	                  strstr(r.screen.data, "window 3/3"),
	              "%s", r.screen.data);
	first_leaf(&r.screen, leaf, sizeof(leaf));
	ck_assert_str_eq(leaf, "idler");
	/* weight by busy: the rows reorder */
	tmux_keys(&r.t, "b");
	TMUX_WAIT(&r.ev, "action weight-busy", KEY_MS);
	TMUX_WAIT(&r.ev, "drawn", KEY_MS);
	tmux_capture(&r.t, &r.screen);
	first_leaf(&r.screen, leaf, sizeof(leaf));
	ck_assert_str_eq(leaf, "spinner");
	ck_assert_ptr_nonnull(strstr(r.screen.data, "BUSY\xE2\x96\xBC"));
	/* history: one window back */
	tmux_keys(&r.t, "[");
	TMUX_WAIT(&r.ev, "action history-back", KEY_MS);
	TMUX_WAIT(&r.ev, "drawn", KEY_MS);
	tmux_capture(&r.t, &r.screen);
	ck_assert_msg(strstr(r.screen.data, "window 2/3") &&
	                  strstr(r.screen.data, "HISTORY"),
	              "%s", r.screen.data);
	ck_assert_ptr_null(strstr(r.screen.data, " mid"));
	/* save it: a pprof file pprof_load accepts, of window 2 */
	tmux_keys(&r.t, "S");
	ck_assert(
	    tmux_events_wait(&r.ev, "saved *", WAIT_MS, line, sizeof(line)));
	ck_assert_ptr_nonnull(strstr(line, "/asynctop-replay-"
	                                   "20231114T221325Z-w2.pb.gz"));
	memset(&c, 0, sizeof(c));
	ck_assert_msg(pprof_load(line + 6, NULL, &sink, err, sizeof(err)) ==
	                  STATUS_OK,
	              "%s: %s", line + 6, err);
	ck_assert_uint_eq(c.samples, 2);
	ck_assert_int_eq(c.time, T0 + 5 * SEC);
	/* again: never an overwrite, a -2 name */
	tmux_keys(&r.t, "S");
	ck_assert(
	    tmux_events_wait(&r.ev, "saved *", WAIT_MS, line, sizeof(line)));
	ck_assert_ptr_nonnull(strstr(line, "-w2-2.pb.gz"));
	/* collapsed stacks of the busy weighting */
	tmux_keys(&r.t, "C");
	ck_assert(
	    tmux_events_wait(&r.ev, "saved *", WAIT_MS, line, sizeof(line)));
	ck_assert_ptr_nonnull(strstr(line, "-w2-busy.collapsedstack.txt"));
	buf_init(&col);
	ck_assert_int_eq(tu_read_file(line + 6, &col), STATUS_OK);
	ck_assert_str_eq(buf_cstr(&col), "app:main;spinner 700\n"
	                                 "app:main;idler 2\n");
	buf_fini(&col);
	/* the status line shows it once tmux has read the next frame */
	ck_assert_msg(
	    tmux_screen_until(&r.t, &r.ev, &r.screen, shows, "saved ", WAIT_MS),
	    "%s", r.screen.data);
	tmux_keys(&r.t, "q");
	TMUX_WAIT(&r.ev, "exit 0", WAIT_MS);
	replay_run_end(&r);
}
END_TEST

/* A screen is pure ASCII and has no '?' but the ones named in allowed
 * (each occurrence of each allowed string holds one). */
static void assert_ascii_screen(const struct buf *screen,
                                const char *const *allowed)
{
	size_t q = 0, want = 0;

	for (size_t i = 0; i < screen->len; i++) {
		ck_assert_msg((unsigned char)screen->data[i] < 0x80,
		              "non-ASCII in the C locale:\n%s", screen->data);
		q += screen->data[i] == '?';
	}
	for (; *allowed; allowed++)
		for (const char *p = screen->data; (p = strstr(p, *allowed));
		     p++)
			want++;
	ck_assert_msg(q == want, "%zu '?' where %zu were expected:\n%s", q,
	              want, screen->data);
}

/* LC_ALL=C on a real terminal: the viewer picks the ASCII glyphs once, so
 * the header's separators, the sort mark, the bars, the footer's arrows
 * and the help's key names are all ASCII, never '?'. */
START_TEST(e2e_tmux_c_locale_ascii_glyphs)
{
	static const struct prow w1[] = { { "idler", 900, 1, 1 },
		                          { "spinner", 10, 800, 500 } };
	static const char *const main_q[] = { "? Help", NULL };
	static const char *const help_q[] = { "?, F1", "? or Esc", "? Help",
		                              NULL };
	static const struct pfile files[] = { { w1, 2, T0 },
		                              { w1, 2, T0 + 5 * SEC } };
	struct replay_run r;

	if (!replay_run_start(&r, "e2e_tmux_c_locale", files, ARRAY_SIZE(files),
	                      "-u LANGUAGE LC_ALL=C LANG=C"))
		return;
	TMUX_WAIT(&r.ev, "window 2 committed", WAIT_MS);
	TMUX_WAIT(&r.ev, "drawn", WAIT_MS);
	tmux_capture(&r.t, &r.screen);
	ck_assert_msg(strstr(r.screen.data, " - REPLAY") &&
	                  strstr(r.screen.data, "IDLEv") &&
	                  strstr(r.screen.data, "STACK (leaf < root)") &&
	                  strstr(r.screen.data, "###") &&
	                  strstr(r.screen.data, "<> Cycle"),
	              "%s", r.screen.data);
	assert_ascii_screen(&r.screen, main_q);
	tmux_keys(&r.t, "?");
	TMUX_WAIT(&r.ev, "action help", WAIT_MS);
	TMUX_WAIT(&r.ev, "drawn", WAIT_MS);
	tmux_capture(&r.t, &r.screen);
	ck_assert_msg(strstr(r.screen.data, "Right, >") &&
	                  strstr(r.screen.data, "Up, k") &&
	                  strstr(r.screen.data, "(more: Down or PgDn"),
	              "%s", r.screen.data);
	assert_ascii_screen(&r.screen, help_q);
	tmux_keys(&r.t, "q");
	TMUX_WAIT(&r.ev, "exit 0", WAIT_MS);
	replay_run_end(&r);
}
END_TEST

/* Sends bytes, waits for the action and the drawing after it, captures. */
static void key_then_screen(struct tmux *t, struct tmux_events *ev,
                            const char *bytes, const char *action,
                            struct buf *screen)
{
	char want[64];

	tmux_bytes(t, bytes, strlen(bytes));
	snprintf(want, sizeof(want), "action %s", action);
	TMUX_WAIT(ev, want, WAIT_MS);
	TMUX_WAIT(ev, "drawn", WAIT_MS);
	tmux_capture(t, screen);
}

/* The views and the htop keys through a real terminal's key sequences:
 * F3 opens the filter, Enter the detail, = compare, t the tree, f the
 * flame, and F10 quits. */
START_TEST(e2e_tmux_views_and_htop_keys)
{
	static const struct prow w1[] = { { "idler", 900, 1, 1 },
		                          { "spinner", 10, 800, 500 } };
	static const struct pfile files[] = { { w1, 1, T0 },
		                              { w1, 2, T0 + 5 * SEC } };
	struct replay_run r;

	if (!replay_run_start(&r, "e2e_tmux_views", files, ARRAY_SIZE(files),
	                      ""))
		return;
	TMUX_WAIT(&r.ev, "window 2 committed", WAIT_MS);
	TMUX_WAIT(&r.ev, "drawn", WAIT_MS);
	key_then_screen(&r.t, &r.ev, "\x1bOR", "filter", &r.screen);
	ck_assert_msg(strstr(r.screen.data, "filter: _"), "%s", r.screen.data);
	tmux_bytes(&r.t, "\x1b", 1);
	TMUX_WAIT(&r.ev, "drawn", WAIT_MS);
	key_then_screen(&r.t, &r.ev, "\r", "detail", &r.screen);
	ck_assert_msg(strstr(r.screen.data, "DETAIL") &&
	                  strstr(r.screen.data, "Spawn stack, root first"),
	              "%s", r.screen.data);
	key_then_screen(&r.t, &r.ev, "=", "compare", &r.screen);
	ck_assert_msg(strstr(r.screen.data, "COMPARE") &&
	                  strstr(r.screen.data, "new   spinner"),
	              "%s", r.screen.data);
	key_then_screen(&r.t, &r.ev, "t", "tree", &r.screen);
	ck_assert_msg(strstr(r.screen.data, "TREE") &&
	                  strstr(r.screen.data, "app:main"),
	              "%s", r.screen.data);
	key_then_screen(&r.t, &r.ev, "f", "flame", &r.screen);
	ck_assert_msg(strstr(r.screen.data, "FLAME") &&
	                  strstr(r.screen.data, "all"),
	              "%s", r.screen.data);
	tmux_bytes(&r.t, "\x1b[21~", 5);
	TMUX_WAIT(&r.ev, "action quit", WAIT_MS);
	TMUX_WAIT(&r.ev, "exit 0", WAIT_MS);
	replay_run_end(&r);
}
END_TEST

START_TEST(e2e_tmux_embed_example_gets_the_viewer)
{
	const char *bin = getenv("ASYNCTOP_BIN");
	const char *src = getenv("ASYNCTOP_SRC");
	char build[512], work[512], script[700], cmd[4096], leaf[128];
	struct tmux_events ev;
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
		ck_assert_int_eq(tmux_run(argv, NULL), 0);
	}
	tmux_events_open(&ev, work);
	snprintf(cmd, sizeof(cmd),
	         "exec env ASYNCTOP_TEST_EVENTS='%s' TERM=xterm-256color "
	         "'%s/embed' -w 0.3 --exit-after 4 -d '%s'",
	         ev.fifo, work, work);
	if (!tmux_start(&t, 100, 30, cmd)) {
		tu_skip("e2e_tmux_embed", "tmux is not installed");
		tmux_events_close(&ev);
		tu_rmtree(work);
		return;
	}
	buf_init(&screen);
	TMUX_WAIT(&ev, "window 2 committed", WAIT_MS);
	tmux_keys(&t, "p");
	TMUX_WAIT(&ev, "action weight-polls", KEY_MS);
	TMUX_WAIT(&ev, "drawn", KEY_MS);
	tmux_capture(&t, &screen);
	ck_assert_msg(strstr(screen.data, "toyexec sim://local") &&
	                  strstr(screen.data, "connected") &&
	                  strstr(screen.data, "POLLS\xE2\x96\xBC"),
	              "%s", screen.data);
	first_leaf(&screen, leaf, sizeof(leaf));
	ck_assert_str_eq(leaf, "conn::handle");
	ck_assert_ptr_nonnull(strstr(screen.data, "metrics::flusher"));
	TMUX_WAIT(&ev, "exit 0", WAIT_MS);
	tmux_end(&t);
	buf_fini(&screen);
	tmux_events_close(&ev);
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
	tcase_add_test(tc, e2e_stderr_captured_under_the_screen);
	tcase_add_test(tc, e2e_crash_restores);
	tcase_add_test(tc, e2e_sigstop_then_cont_raw_again);
	tcase_add_test(tc, e2e_no_color_and_resize);
	tcase_add_test(tc, e2e_tmux_replay_weighting_history_save);
	tcase_add_test(tc, e2e_tmux_embed_example_gets_the_viewer);
	tcase_add_test(tc, e2e_tmux_c_locale_ascii_glyphs);
	tcase_add_test(tc, e2e_tmux_views_and_htop_keys);
	suite_add_tcase(s, tc);
	return s;
}
