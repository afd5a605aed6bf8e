/* A launched program's whole life, with the real binary: when the program
 * ends by itself (an exit status, a signal) asynctop says how, never that
 * the source is unreachable or must opt in; record keeps every window up
 * to the end (the last one partial) and exits 0; the viewer shows the end
 * and the last line of output; the launch directory and the agent's socket
 * are gone afterwards.  The program (tests/data/launch/ends.py) ends when
 * the test creates a file, once a window has been committed. */
#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "model/buf.h"
#include "tests/launch_util.h"
#include "tests/tmux.h"
#include "tests/util.h"

/* Runs asynctop with args, then `-- python3 ends.py how arg`; once window
 * 1 is committed, tells the program to end; collects asynctop's exit,
 * output and every event. */
static void run_to_end(struct lu_run *r, const char *const *args,
                       const char *how, const char *arg)
{
	char app[4200], when[640], whenv[700], fifo[640];
	const char *argv[32], *extra[] = { whenv, NULL };
	struct buf seen;
	size_t n = 0;
	int fd, made;

	lu_data(app, sizeof(app), "ends.py");
	lu_in_dir(when, sizeof(when), r, "ends.now");
	snprintf(whenv, sizeof(whenv), "ENDS_WHEN=%s", when);
	for (size_t i = 0; args[i]; i++)
		argv[n++] = args[i];
	argv[n++] = "--";
	argv[n++] = "python3";
	argv[n++] = app;
	argv[n++] = how;
	argv[n++] = arg;
	argv[n] = NULL;
	fd = lu_events_fifo(r, fifo, sizeof(fifo));
	lu_start(r, argv, extra, ".fifo");
	buf_init(&seen);
	ck_assert_msg(lu_wait_event(fd, &seen, "window 1 committed", NULL),
	              "no window was committed: %s", buf_cstr(&seen));
	made = open(when, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
	ck_assert_int_ge(made, 0);
	close(made);
	lu_collect(r);
	for (;;) { /* what asynctop said after the window */
		char chunk[512];
		ssize_t k = read(fd, chunk, sizeof(chunk));

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			break;
		buf_add(&seen, chunk, (size_t)k);
	}
	close(fd);
	unlink(fifo);
	buf_reset(&r->events);
	buf_add(&r->events, seen.data, seen.len);
	lu_text(&r->events);
	buf_fini(&seen);
}

/* No agent socket is left in the agents' directory (XDG_RUNTIME_DIR). */
static void assert_no_socket(const struct lu_run *r)
{
	char sub[640];
	DIR *d;
	struct dirent *e;

	lu_in_dir(sub, sizeof(sub), r, "asynctop");
	d = opendir(sub);
	while (d && (e = readdir(d)) != NULL)
		ck_assert_msg(!strstr(e->d_name, ".sock"),
		              "agent socket left: %s", e->d_name);
	if (d)
		closedir(d);
}

/* What asynctop must never say of a program it launched itself. */
static void assert_not_unreachable(const char *text)
{
	ck_assert_msg(!strstr(text, "not reachable"), "%s", text);
	ck_assert_msg(!strstr(text, "unreachable"), "%s", text);
	ck_assert_msg(!strstr(text, "opt in") && !strstr(text, "opt-in"), "%s",
	              text);
	ck_assert_msg(!strstr(text, "asynctop_agent.start"), "%s", text);
}

/* record without -n: every window until the program exits with status 1,
 * the last one partial; exit 0; how it ended on stderr. */
START_TEST(life_record_exit_status)
{
	const char *args[] = { "asynctop", "record", "-w", "0.5", "-f",
		               "text",     "-o",     "-",  NULL };
	char want[4400], app[4200];
	struct lu_run r;
	long child;

	if (!lu_can_run("life_record_exit_status"))
		return;
	lu_init(&r);
	run_to_end(&r, args, "exit", "1");
	lu_assert_exit_ok(&r);
	lu_data(app, sizeof(app), "ends.py");
	snprintf(want, sizeof(want), "`python3 %s exit 1` exited with status 1",
	         app);
	ck_assert_msg(strstr(r.p.err.data, want) != NULL, "%s", r.p.err.data);
	assert_not_unreachable(r.p.err.data);
	/* window 1 and at least the partial one it ended in */
	ck_assert_uint_ge(lu_count_events(&r, "saved "), 2);
	ck_assert_msg(strstr(r.p.out.data, "window 1 ") != NULL, "%s",
	              r.p.out.data);
	ck_assert_msg(strstr(r.p.out.data, "partial: ") != NULL, "%s",
	              r.p.out.data);
	ck_assert_msg(strstr(r.events.data, "child exited with status 1\n"),
	              "%s", r.events.data);
	child = lu_event_pid(&r, "launched");
	lu_assert_gone(child);
	lu_assert_no_launch_dir(&r);
	assert_no_socket(&r);
	lu_fini(&r);
}
END_TEST

/* record without -n and -o: files named as the viewer saves them; the
 * program killed by SIGSEGV; its directory and socket are gone. */
START_TEST(life_record_killed_named_files)
{
	const char *args[] = { "asynctop", "record", "-w", "0.5", NULL };
	struct lu_run r;
	DIR *d;
	struct dirent *e;
	size_t files = 0;

	if (!lu_can_run("life_record_killed_named_files"))
		return;
	lu_init(&r);
	run_to_end(&r, args, "signal", "SIGSEGV");
	lu_assert_exit_ok(&r);
	ck_assert_msg(strstr(r.p.err.data, "` was killed by SIGSEGV") != NULL,
	              "%s", r.p.err.data);
	assert_not_unreachable(r.p.err.data);
	d = opendir(r.dir);
	ck_assert_ptr_nonnull(d);
	while ((e = readdir(d)) != NULL) {
		size_t n = strlen(e->d_name);

		if (!strncmp(e->d_name, "asynctop-asyncio-", 17) && n > 6 &&
		    !strcmp(e->d_name + n - 6, ".pb.gz"))
			files++;
	}
	closedir(d);
	/* window 1 at least: a killed agent sends no final snapshot */
	ck_assert_uint_ge(files, 1);
	ck_assert_uint_eq(files, lu_count_events(&r, "saved "));
	lu_assert_gone(lu_event_pid(&r, "launched"));
	lu_assert_no_launch_dir(&r);
	assert_no_socket(&r);
	lu_fini(&r);
}
END_TEST

/* The viewer: the program's end and its last line of output on screen,
 * its windows kept, no retrying, exit 0. */
START_TEST(life_viewer_shows_the_end)
{
	const char *args[] = { "asynctop",      "-w",     "0.5",
		               "--dump-screen", "200x16", NULL };
	struct lu_run r;

	if (!lu_can_run("life_viewer_shows_the_end"))
		return;
	lu_init(&r);
	run_to_end(&r, args, "exit", "3");
	lu_assert_exit_ok(&r);
	ck_assert_msg(strstr(r.p.out.data, "exit 3` exited with status 3: "
	                                   "ends: last words before exit 3"),
	              "%s", r.p.out.data);
	ck_assert_msg(strstr(r.p.out.data, "window 1/") == NULL, "%s",
	              r.p.out.data);
	assert_not_unreachable(r.p.out.data);
	ck_assert_msg(!strstr(r.events.data, "state retrying"), "%s",
	              r.events.data);
	lu_assert_gone(lu_event_pid(&r, "launched"));
	lu_assert_no_launch_dir(&r);
	assert_no_socket(&r);
	lu_fini(&r);
}
END_TEST

/* In a terminal (tmux): once the program ended, the screen says how, the
 * source is no longer retried, and the kept windows can still be saved. */
START_TEST(life_viewer_tmux_saves_after_the_end)
{
	char app[4200], when[640], saves[640], cmd[8192], line[1024];
	struct tmux_events ev;
	struct tmux t;
	struct buf screen;
	struct lu_run r;
	int made;

	if (!lu_can_run("life_viewer_tmux_saves_after_the_end"))
		return;
	lu_init(&r);
	lu_data(app, sizeof(app), "ends.py");
	lu_in_dir(when, sizeof(when), &r, "ends.now");
	lu_in_dir(saves, sizeof(saves), &r, "saves");
	ck_assert_int_eq(mkdir(saves, 0700), 0);
	tmux_events_open(&ev, r.dir);
	snprintf(
	    cmd, sizeof(cmd),
	    "cd '%s' && exec env -u ASYNCTOP_ANNOUNCE_TIMEOUT ASYNCTOP_TEST_EVENTS='%s' ENDS_WHEN='%s' TMPDIR='%s' XDG_RUNTIME_DIR='%s' TERM=xterm-256color LC_ALL=C.UTF-8 '%s' -w 0.5 -d '%s' -- python3 '%s' exit 2",
	    r.dir, ev.fifo, when, r.dir, r.dir, lu_bin(), saves, app);
	if (!tmux_start(&t, 160, 24, cmd)) {
		tu_skip("life_viewer_tmux_saves_after_the_end",
		        "tmux is not installed");
		tmux_events_close(&ev);
		lu_fini(&r);
		return;
	}
	buf_init(&screen);
	TMUX_WAIT(&ev, "window 1 committed", LIMIT_S * 1000);
	made = open(when, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
	ck_assert_int_ge(made, 0);
	close(made);
	TMUX_WAIT(&ev, "child exited with status 2", LIMIT_S * 1000);
	TMUX_WAIT(&ev, "state done", LIMIT_S * 1000);
	TMUX_WAIT(&ev, "drawn", LIMIT_S * 1000);
	tmux_capture(&t, &screen);
	ck_assert_msg(
	    strstr(
	        screen.data,
	        "exit 2` exited with status 2: ends: last words before exit 2"),
	    "%s", screen.data);
	assert_not_unreachable(screen.data);
	tmux_keys(&t, "S");
	ck_assert(tmux_events_wait(&ev, "saved *", LIMIT_S * 1000, line,
	                           sizeof(line)));
	ck_assert_msg(strstr(line, "/asynctop-asyncio-") &&
	                  access(line + 6, R_OK) == 0,
	              "%s", line);
	tmux_keys(&t, "q");
	TMUX_WAIT(&ev, "exit 0", LIMIT_S * 1000);
	ck_assert_msg(
	    !tmux_events_between(&ev, 0, ev.seen.len, "state retrying"), "%s",
	    buf_cstr(&ev.seen));
	tmux_end(&t);
	tmux_events_close(&ev);
	buf_fini(&screen);
	lu_assert_no_launch_dir(&r);
	assert_no_socket(&r);
	lu_fini(&r);
}
END_TEST

/* Waits (bounded) until pid is stopped, or no longer stopped. */
static void expect_stopped(long pid, bool stopped)
{
	struct timespec t0, t;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	while ((tu_proc_state(pid) == 'T') != stopped) {
		clock_gettime(CLOCK_MONOTONIC, &t);
		ck_assert_msg(t.tv_sec - t0.tv_sec < LIMIT_S, "pid %ld is %s",
		              pid, stopped ? "still running" : "still stopped");
		poll(NULL, 0, 10);
	}
}

/* record: SIGTSTP stops the program (in a group of its own) with asynctop,
 * SIGCONT continues both; then the recording goes on to the program's
 * end. */
START_TEST(life_record_suspend_resume)
{
	char app[4200], when[640], whenv[700], fifo[640];
	const char *argv[] = { "asynctop", "record", "-w", "0.5", "-f",
		               "text",     "-o",     "-",  "--",  "python3",
		               app,        "exit",   "0",  NULL };
	const char *extra[] = { whenv, NULL };
	struct lu_run r;
	struct buf seen;
	long child = 0;
	int fd, made;

	if (!lu_can_run("life_record_suspend_resume"))
		return;
	lu_init(&r);
	lu_data(app, sizeof(app), "ends.py");
	lu_in_dir(when, sizeof(when), &r, "ends.now");
	snprintf(whenv, sizeof(whenv), "ENDS_WHEN=%s", when);
	fd = lu_events_fifo(&r, fifo, sizeof(fifo));
	lu_start(&r, argv, extra, ".fifo");
	buf_init(&seen);
	ck_assert(lu_wait_event(fd, &seen, "launched ", &child));
	ck_assert(lu_wait_event(fd, &seen, "window 1 committed", NULL));
	ck_assert_int_eq(kill(r.p.pid, SIGTSTP), 0);
	expect_stopped(r.p.pid, true);
	expect_stopped(child, true);
	ck_assert_int_eq(kill(r.p.pid, SIGCONT), 0);
	expect_stopped(r.p.pid, false);
	expect_stopped(child, false);
	made = open(when, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
	ck_assert_int_ge(made, 0);
	close(made);
	lu_collect(&r);
	close(fd);
	unlink(fifo);
	lu_assert_exit_ok(&r);
	ck_assert_msg(strstr(r.p.err.data, "exit 0` exited with status 0"),
	              "%s", r.p.err.data);
	lu_assert_gone(child);
	buf_fini(&seen);
	lu_fini(&r);
}
END_TEST

Suite *suite_launch_life(void);
Suite *suite_launch_life(void)
{
	Suite *s = suite_create("launch_life");
	TCase *tc = tcase_create("launch_life");

	tcase_set_timeout(tc, 3 * LIMIT_S);
	tcase_add_test(tc, life_record_exit_status);
	tcase_add_test(tc, life_record_killed_named_files);
	tcase_add_test(tc, life_viewer_shows_the_end);
	tcase_add_test(tc, life_record_suspend_resume);
	tcase_add_test(tc, life_viewer_tmux_saves_after_the_end);
	suite_add_tcase(s, tc);
	return s;
}
