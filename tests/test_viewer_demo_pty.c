/* The real binary's live viewer on the bundled demo shop on a
 * pseudo-terminal under a small job-control shell: SIGTSTP from outside
 * and Ctrl-Z stop it (and the program it launched) with the terminal
 * restored, and SIGCONT redraws all of it and answers keys.  In tmux:
 * test_viewer_demo_tmux.c. */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include "model/base.h"
#include "model/buf.h"
#include "model/metric.h"
#include "tests/demo_util.h"
#include "tests/tmux.h"
#include "tests/util.h"

#define CHILD_LIMIT 90 /* seconds: the job shell's own bound */

static volatile sig_atomic_t shell_timed_out;

static void on_alarm(int sig)
{
	(void)sig;
	shell_timed_out = 1;
}

/* One event line from the job shell into the FIFO (one write). */
static void shell_say(int fd, const char *fmt, ...) PRINTF(2, 3);
static void shell_say(int fd, const char *fmt, ...)
{
	char line[64];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (n > 0 && write(fd, line, (size_t)n) < 0)
		_exit(124);
}

/* In a forked child: what an interactive shell does for a foreground job.
 * It leads a session on the pty, runs the viewer as a job in a process
 * group of its own that owns the terminal (so that SIGTSTP stops it: a
 * session leader's group is orphaned and would ignore it), and reports
 * "job PID", "job stopped SIG", "job continued" and "job exited N" on the
 * event FIFO.  Exits with the viewer's status. */
static void job_shell(const struct demo *d, const struct tmux_pty *pty)
{
	struct sigaction sa;
	int tty, ev, st;
	pid_t job;

	setsid();
	tty = open(pty->name, O_RDWR);
	if (tty < 0 || ioctl(tty, TIOCSCTTY, 0) < 0)
		_exit(125);
	close(pty->master);
	close(d->ev.fd);
	ev = open(d->ev.fifo, O_WRONLY | O_CLOEXEC);
	if (ev < 0)
		_exit(125);
	job = fork();
	if (job < 0)
		_exit(125);
	if (job == 0) {
		char errp[700];
		const char *argv[] = {
			d->bin,          "-w",    "1",      "--exit-after",
			DEMO_EXIT_AFTER, "-d",    d->saves, "--",
			"python3",       d->shop, NULL
		};
		struct sigaction ign, old;
		int fd;

		setpgid(0, 0);
		memset(&ign, 0, sizeof(ign));
		ign.sa_handler = SIG_IGN;
		sigaction(SIGTTOU, &ign, &old);
		if (tcsetpgrp(tty, getpid()) < 0)
			_exit(126);
		sigaction(SIGTTOU, &old, NULL);
		snprintf(errp, sizeof(errp), "%s/stderr", d->dir);
		fd = open("/dev/null", O_RDWR);
		if (fd < 0 || dup2(fd, 0) < 0 || dup2(fd, 1) < 0)
			_exit(126);
		fd = open(errp, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		if (fd < 0 || dup2(fd, 2) < 0)
			_exit(126);
		close(tty);
		setenv("ASYNCTOP_TEST_EVENTS", d->ev.fifo, 1);
		setenv("ASYNCTOP_AGENT_PATH", d->agent, 1);
		setenv("TERM", "xterm-256color", 1);
		setenv("LC_ALL", "C.UTF-8", 1);
		setenv("TMPDIR", d->tmp, 1);
		unsetenv("NO_COLOR");
		execv(d->bin, (char *const *)(uintptr_t)argv);
		_exit(127);
	}
	setpgid(job, job);
	shell_say(ev, "job %ld\n", (long)job);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGALRM, &sa, NULL); /* no SA_RESTART: waitpid returns */
	alarm(CHILD_LIMIT);
	for (;;) {
		if (waitpid(job, &st, WUNTRACED | WCONTINUED) < 0) {
			if (errno != EINTR)
				_exit(125);
			if (shell_timed_out) { /* the test is gone */
				kill(job, SIGTERM);
				kill(job, SIGCONT);
			}
			continue;
		}
		if (WIFSTOPPED(st)) {
			shell_say(ev, "job stopped %d\n", WSTOPSIG(st));
		} else if (WIFCONTINUED(st)) {
			shell_say(ev, "job continued\n");
		} else if (WIFEXITED(st)) {
			shell_say(ev, "job exited %d\n", WEXITSTATUS(st));
			_exit(WEXITSTATUS(st));
		} else if (WIFSIGNALED(st)) {
			shell_say(ev, "job exited %d\n", 128 + WTERMSIG(st));
			_exit(128 + WTERMSIG(st));
		}
	}
}

/* The last of the sequences a or b in s: 'a', 'b', or 0 for neither. */
static char last_of(const char *s, const char *a, const char *b)
{
	const char *la = NULL, *lb = NULL;

	for (const char *p = strstr(s, a); p; p = strstr(p + 1, a))
		la = p;
	for (const char *p = strstr(s, b); p; p = strstr(p + 1, b))
		lb = p;
	if (!la && !lb)
		return 0;
	return la && (!lb || la > lb) ? 'a' : 'b';
}

#define SMCUP "\033[?1049h" /* enter the alternate screen */
#define RMCUP "\033[?1049l" /* leave it */
#define CIVIS "\033[?25l"   /* hide the cursor */
#define CNORM "\033[?25h"   /* show it */

/* Waits until the terminal's output since mark switched last to the
 * alternate screen with the cursor hidden (drawing true), or to the
 * normal screen with the cursor shown (false), and holds text (NULL: any).
 * Written data reaches the master a moment later, hence the wait. */
static bool term_shows(struct tmux_events *e, size_t mark, bool drawing,
                       const char *text)
{
	uint64_t until = tmux_now_ms() + TMUX_WAIT_MS;
	char want = drawing ? 'a' : 'b';

	for (;;) {
		const char *out = buf_cstr(&e->out) + mark;

		if (last_of(out, SMCUP, RMCUP) == want &&
		    last_of(out, CIVIS, CNORM) == want &&
		    (!text || strstr(out, text)))
			return true;
		if (tmux_now_ms() >= until)
			return false;
		tmux_events_pump(e, 50);
	}
}

/* Waits until the launched program is stopped (or running again). */
static void expect_child(struct demo *d, long child, bool stopped)
{
	uint64_t until = tmux_now_ms() + TMUX_WAIT_MS;

	while ((tu_proc_state(child) == 'T') != stopped) {
		ck_assert_msg(tmux_now_ms() < until,
		              "the program (pid %ld) is %s", child,
		              stopped ? "still running" : "still stopped");
		tmux_events_pump(&d->ev, 20);
	}
}

/* The viewer stopped, with the terminal as the shell needs it. */
static void expect_stopped(struct demo *d, const struct tmux_pty *pty,
                           size_t mark)
{
	char want[32];

	snprintf(want, sizeof(want), "job stopped %d", SIGTSTP);
	TMUX_WAIT(&d->ev, want, TMUX_WAIT_MS);
	/* canonical and echoing, and since the mark the alternate screen
	 * left and the cursor shown */
	tmux_assert_restored(pty, buf_cstr(&d->ev.out));
	ck_assert_msg(term_shows(&d->ev, mark, false, NULL),
	              "the terminal was not restored before the stop");
}

/* SIGCONT: the viewer takes the terminal back, redraws all of it, and
 * answers keys. */
static void expect_resumed(struct demo *d, pid_t viewer,
                           const struct tmux_pty *pty, const char *key,
                           const char *act)
{
	size_t mark;
	char want[64];

	demo_drain(&d->ev);
	mark = d->ev.out.len;
	ck_assert_int_eq(kill(viewer, SIGCONT), 0);
	/* stopped, the viewer wrote nothing: its next drawing is after */
	TMUX_WAIT(&d->ev, "drawn", TMUX_WAIT_MS);
	ck_assert_msg(term_shows(&d->ev, mark, true, d->leader[METRIC_IDLE]),
	              "the screen was not drawn again after SIGCONT");
	ck_assert_int_eq(write(pty->master, key, strlen(key)),
	                 (ssize_t)strlen(key));
	snprintf(want, sizeof(want), "action %s", act);
	TMUX_WAIT(&d->ev, want, TMUX_WAIT_MS);
	TMUX_WAIT(&d->ev, "drawn", TMUX_WAIT_MS);
}

START_TEST(demo_pty_suspend_resume)
{
	struct demo d;
	struct guardian g;
	struct tmux_pty pty;
	char line[64];
	pid_t shell, viewer;
	long child;
	uint64_t until;
	int status;
	size_t mark;

	if (!demo_init(&d, "demo_pty_suspend"))
		return;
	tmux_pty_open(&pty, DEMO_COLS, DEMO_ROWS);
	d.ev.drain = pty.master;
	fflush(NULL);
	shell = fork();
	ck_assert_int_ge(shell, 0);
	if (shell == 0)
		job_shell(&d, &pty);
	guardian_start(&g, &d, NULL, shell);
	ck_assert(
	    tmux_events_wait(&d.ev, "job *", TMUX_WAIT_MS, line, sizeof(line)));
	viewer = (pid_t)strtol(line + 4, NULL, 10);
	ck_assert_int_gt(viewer, 0);
	demo_wait_first_window(&d);
	TMUX_WAIT(&d.ev, "drawn", TMUX_WAIT_MS);
	child = demo_event_pid(&d.ev, "launched");
	ck_assert_int_gt(child, 0);

	/* kill -TSTP, as from another terminal: the program (in a process
	 * group of its own) stops and goes on with the viewer */
	demo_drain(&d.ev);
	mark = d.ev.out.len;
	ck_assert_int_eq(kill(viewer, SIGTSTP), 0);
	expect_stopped(&d, &pty, mark);
	expect_child(&d, child, true);
	expect_resumed(&d, viewer, &pty, "p", "weight-polls");
	expect_child(&d, child, false);

	/* Ctrl-Z, a key in raw mode */
	demo_drain(&d.ev);
	mark = d.ev.out.len;
	ck_assert_int_eq(write(pty.master, "\032", 1), 1);
	TMUX_WAIT(&d.ev, "action suspend", TMUX_WAIT_MS);
	expect_stopped(&d, &pty, mark);
	expect_child(&d, child, true);
	expect_resumed(&d, viewer, &pty, "b", "weight-busy");
	expect_child(&d, child, false);

	ck_assert_int_eq(write(pty.master, "q", 1), 1);
	TMUX_WAIT(&d.ev, "exit 0", DEMO_MS);
	TMUX_WAIT(&d.ev, "job exited 0", DEMO_MS);
	until = tmux_now_ms() + TMUX_WAIT_MS;
	while (waitpid(shell, &status, WNOHANG) == 0) {
		ck_assert_msg(tmux_now_ms() < until, "the job shell stayed");
		tmux_events_pump(&d.ev, 50);
	}
	ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	ck_assert(term_shows(&d.ev, 0, false, NULL));
	tmux_assert_restored(&pty, buf_cstr(&d.ev.out));
	guardian_done(&g);
	tmux_pty_close(&pty);
	demo_fini(&d);
}
END_TEST

Suite *suite_viewer_demo_pty(void);
Suite *suite_viewer_demo_pty(void)
{
	Suite *s = suite_create("viewer_demo_pty");
	TCase *tc = tcase_create("viewer_demo");

	tcase_set_timeout(tc, 150);
	tcase_add_test(tc, demo_pty_suspend_resume);
	suite_add_tcase(s, tc);
	return s;
}
