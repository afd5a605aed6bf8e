/* The live viewer end to end on a pseudo-terminal, synchronised on the
 * test event channel (never sleep-and-hope), with a producer that hangs:
 * keys still answer, Ctrl-C and q quit, a producer's stderr stays under
 * the screen, NO_COLOR and a resize, and SIGTERM, SIGINT, SIGHUP, a crash
 * and SIGSTOP leave or get back the terminal as they should.  In tmux:
 * test_viewer_e2e_tmux.c. */
#include <check.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/select.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include "adapters/asynctop.h"
#include "model/buf.h"
#include "tests/tmux.h"
#include "tests/util.h"

#define WAIT_MS     TMUX_WAIT_MS
#define KEY_MS      TMUX_KEY_MS
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

/* How pty_start runs the viewer, or'ed. */
enum {
	PTY_PLAIN = 0,
	PTY_HANG = 1,       /* the producer's second window hangs */
	PTY_NO_COLOR = 2,   /* NO_COLOR=1 */
	PTY_STDERR_TTY = 4, /* stderr is the terminal, and each window logs */
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

		/* stderr: a file, or the terminal itself */
		tmux_pty_child(&r->pty, mode & PTY_STDERR_TTY ? NULL : errp);
		setenv("TERM", "xterm-256color", 1);
		setenv("ASYNCTOP_TEST_EVENTS", r->ev.fifo, 1);
		if (mode & PTY_NO_COLOR)
			setenv("NO_COLOR", "1", 1);
		else
			unsetenv("NO_COLOR");
		hang_mode = (mode & PTY_HANG) != 0;
		stderr_mode = (mode & PTY_STDERR_TTY) != 0;
		alarm(CHILD_LIMIT);
		_exit(asynctop_main(5, argv, &hang, 1));
	}
}

/* pty_start, then waits for the first window to be committed and drawn. */
static void pty_start_drawn(struct pty_run *r, int mode)
{
	pty_start(r, mode);
	TMUX_WAIT(&r->ev, "window 1 committed", WAIT_MS);
	TMUX_WAIT(&r->ev, "drawn", WAIT_MS);
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

/* Waits for the viewer: it exited with code, the terminal restored. */
static void expect_exit(struct pty_run *r, int code)
{
	int status = pty_wait(r);

	ck_assert(WIFEXITED(status));
	ck_assert_int_eq(WEXITSTATUS(status), code);
	assert_restored(r);
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

	pty_start_drawn(&r, PTY_HANG);
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
	expect_exit(&r, 0);
	pty_end(&r);
}
END_TEST

static void signal_case(int sig)
{
	struct pty_run r;
	char want[32];

	pty_start_drawn(&r, PTY_PLAIN);
	ck_assert_int_eq(kill(r.pid, sig), 0);
	snprintf(want, sizeof(want), "exit %d", 128 + sig);
	TMUX_WAIT(&r.ev, want, WAIT_MS);
	expect_exit(&r, 128 + sig);
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

	pty_start_drawn(&r, PTY_STDERR_TTY);
	ck_assert_int_eq(write(r.pty.master, "q", 1), 1);
	TMUX_WAIT(&r.ev, "exit 0", WAIT_MS);
	expect_exit(&r, 0);
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

	pty_start(&r, PTY_PLAIN);
	TMUX_WAIT(&r.ev, "drawn", WAIT_MS);
	ck_assert_int_eq(write(r.pty.master, "\003", 1), 1);
	TMUX_WAIT(&r.ev, "action quit", KEY_MS);
	TMUX_WAIT(&r.ev, "exit 0", WAIT_MS);
	expect_exit(&r, 0);
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
	pty_start_drawn(&r, PTY_PLAIN);
	ck_assert(has_sgr(buf_cstr(&r.ev.out), is_colour));
	ck_assert_int_eq(write(r.pty.master, "q", 1), 1);
	TMUX_WAIT(&r.ev, "exit 0", WAIT_MS);
	(void)pty_wait(&r);
	pty_end(&r);

	/* NO_COLOR: bold and reverse only; a resize redraws, too small
	 * says so, and back */
	pty_start_drawn(&r, PTY_NO_COLOR);
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

	pty_start_drawn(&r, PTY_PLAIN);
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

	pty_start_drawn(&r, PTY_PLAIN);
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
	expect_exit(&r, 0);
	pty_end(&r);
}
END_TEST

Suite *suite_viewer_e2e_pty(void);
Suite *suite_viewer_e2e_pty(void)
{
	Suite *s = suite_create("viewer_e2e_pty");
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
	suite_add_tcase(s, tc);
	return s;
}
