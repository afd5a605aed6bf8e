/* `asynctop record -- COMMAND` end to end: the real binary starts small
 * Python programs (tests/data/launch/) and attaches to the one that
 * announces; failures exit 2 or 3; the program is ended or --kept. */
#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "model/buf.h"
#include "tests/launch_util.h"
#include "tests/util.h"

START_TEST(launch_script)
{
	char app[4200], want[128];
	const char *cmd[] = { "python3", app, NULL };
	struct lu_run r;
	long pid;

	lu_data(app, sizeof(app), "app.py");
	if (!lu_record(&r, "launch_script", cmd, NULL))
		return;
	lu_assert_exit_ok(&r);
	pid = lu_announced_pid(&r);
	snprintf(want, sizeof(want), "source: asyncio pid %ld", pid);
	ck_assert_ptr_nonnull(strstr(r.p.out.data, want));
	/* app.py's tasks, spawned in its main() */
	ck_assert_ptr_nonnull(strstr(r.p.out.data, "app:main"));
	ck_assert_ptr_nonnull(strstr(r.p.out.data, "tasks 5"));
	/* its output goes to our stderr, never into the report */
	snprintf(want, sizeof(want), "app %ld started", pid);
	ck_assert_ptr_nonnull(strstr(r.p.err.data, want));
	ck_assert_ptr_null(strstr(r.p.out.data, "started"));
	ck_assert_int_eq(lu_event_pid(&r, "ended"), pid);
	lu_assert_gone(pid);
	lu_assert_no_launch_dir(&r);
	lu_fini(&r);
}
END_TEST

START_TEST(launch_module)
{
	char dir[4200], pp[4300];
	const char *cmd[] = { "python3", "-m", "pkg", NULL };
	const char *extra[] = { pp, NULL };
	struct lu_run r;
	long pid;

	/* the program's own PYTHONPATH is kept, after the agent's */
	tu_data_path(dir, sizeof(dir), "launch");
	snprintf(pp, sizeof(pp), "PYTHONPATH=%s", dir);
	if (!lu_record(&r, "launch_module", cmd, extra))
		return;
	lu_assert_exit_ok(&r);
	pid = lu_announced_pid(&r);
	ck_assert_ptr_nonnull(strstr(r.p.out.data, "pkg.__main__:main"));
	lu_assert_gone(pid);
	lu_fini(&r);
}
END_TEST

START_TEST(launch_console_script)
{
	char sh[4200];
	const char *cmd[] = { sh, NULL };
	struct lu_run r;
	long pid;

	lu_data(sh, sizeof(sh), "wrapper.sh");
	if (!lu_record(&r, "launch_console_script", cmd, NULL))
		return;
	lu_assert_exit_ok(&r);
	/* the helper interpreter never announced: one announcement, from
	 * the entry point's process (the shell exec'd it: same pid) */
	ck_assert_uint_eq(lu_count_events(&r, "announced "), 1);
	pid = lu_announced_pid(&r);
	ck_assert_ptr_nonnull(strstr(r.p.out.data, "entry:main"));
	ck_assert_ptr_null(strstr(r.p.err.data, "announced an agent too"));
	lu_assert_gone(pid);
	lu_fini(&r);
}
END_TEST

START_TEST(launch_fork_listed)
{
	char app[4200], want[160];
	const char *cmd[] = { "python3", app, NULL };
	struct lu_run r;
	long pid, fork_pid;
	int status;

	lu_data(app, sizeof(app), "forks.py");
	if (!lu_record(&r, "launch_fork_listed", cmd, NULL))
		return;
	lu_assert_exit_ok(&r);
	pid = lu_announced_pid(&r);
	fork_pid = lu_event_pid(&r, "listed");
	ck_assert_int_gt(fork_pid, 0);
	ck_assert_int_ne(fork_pid, pid);
	snprintf(want, sizeof(want),
	         "announced an agent too (attach with -e "
	         "PID): %ld",
	         fork_pid);
	ck_assert_msg(strstr(r.p.err.data, want) != NULL, "%s", r.p.err.data);
	ck_assert_ptr_nonnull(strstr(r.p.out.data, "forks:main"));
	/* the fork was ended with its parent's process group */
	lu_assert_gone(pid);
	status = lu_reap(fork_pid);
	ck_assert(WIFSIGNALED(status));
	lu_fini(&r);
}
END_TEST

START_TEST(launch_no_such_command)
{
	const char *cmd[] = { "asynctop-no-such-command-here", NULL };
	struct lu_run r;

	if (!lu_record(&r, "launch_no_such_command", cmd, NULL))
		return;
	ck_assert_int_eq(r.p.code, 2);
	ck_assert_msg(strstr(r.p.err.data, "cannot start "
	                                   "asynctop-no-such-command-here: No "
	                                   "such file or directory") != NULL,
	              "%s", r.p.err.data);
	ck_assert_uint_eq(r.p.out.len, 0);
	lu_assert_no_launch_dir(&r);
	lu_fini(&r);
}
END_TEST

START_TEST(launch_exits_before_announcing)
{
	char app[4200];
	const char *cmd[] = { "python3", app, NULL };
	struct lu_run r;

	lu_data(app, sizeof(app), "early_exit.py");
	if (!lu_record(&r, "launch_exits_before_announcing", cmd, NULL))
		return;
	ck_assert_int_eq(r.p.code, 3);
	ck_assert_ptr_nonnull(
	    strstr(r.p.err.data, "configuration error: no such database"));
	ck_assert_msg(
	    strstr(
	        r.p.err.data,
	        "early_exit.py` exited with status 7 before it started asyncio") !=
	        NULL,
	    "%s", r.p.err.data);
	ck_assert_uint_eq(r.p.out.len, 0);
	ck_assert_int_eq(lu_event_pid(&r, "announced"), 0);
	lu_assert_no_launch_dir(&r);
	lu_fini(&r);
}
END_TEST

START_TEST(launch_never_announces)
{
	char app[4200];
	const char *cmd[] = { "python3", app, NULL };
	const char *extra[] = { "ASYNCTOP_ANNOUNCE_TIMEOUT=0.3", NULL };
	struct lu_run r;
	long pid;

	lu_data(app, sizeof(app), "no_asyncio.py");
	if (!lu_record(&r, "launch_never_announces", cmd, extra))
		return;
	ck_assert_int_eq(r.p.code, 3);
	ck_assert_msg(
	    strstr(
	        r.p.err.data,
	        "was not ready within 0.3s: asynctop waited until it started asyncio") !=
	        NULL,
	    "%s", r.p.err.data);
	pid = lu_event_pid(&r, "launched");
	ck_assert_int_eq(lu_event_pid(&r, "announced"), 0);
	/* ended, not left behind */
	lu_assert_gone(pid);
	lu_assert_no_launch_dir(&r);
	lu_fini(&r);
}
END_TEST

START_TEST(launch_keep)
{
	char app[4200], want[4400], sock[700], pidtext[32];
	const char *cmd[] = { "python3", app, NULL };
	const char *argv[] = { "asynctop", "record", "-w",   "1",      "-n",
		               "1",        "-f",     "text", "--keep", "--",
		               "python3",  app,      NULL };
	const char *again[] = { "asynctop", "record", "-a", "asyncio", "-e",
		                pidtext,    "-w",     "1",  "-n",      "1",
		                "-f",       "text",   NULL };
	struct buf first;
	glob_t g;
	struct lu_run r;
	bool alive;
	long pid;
	int status, code;

	(void)cmd;
	if (!lu_can_run("launch_keep"))
		return;
	lu_data(app, sizeof(app), "app.py");
	buf_init(&first);
	lu_init(&r);
	lu_run_bin(&r, argv, NULL);
	code = r.p.code;
	buf_add(&first, r.p.err.data, r.p.err.len);
	lu_text(&first);
	pid = lu_event_pid(&r, "announced");
	ck_assert_int_gt(pid, 0);
	/* still running, its agent still serving from the private directory,
	 * which stays; attached again with -e PID; ended here before the
	 * other checks, so a failure leaves nothing behind */
	snprintf(sock, sizeof(sock), "%s/asynctop-launch-*/%ld.sock", r.dir,
	         pid);
	alive = glob(sock, 0, NULL, &g) == 0 && g.gl_pathc == 1;
	if (alive)
		globfree(&g);
	snprintf(pidtext, sizeof(pidtext), "%ld", pid);
	lu_run_bin(&r, again, NULL);
	ck_assert_int_eq(kill((pid_t)pid, SIGKILL), 0);
	status = lu_reap(pid);
	ck_assert(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
	ck_assert_msg(alive, "no socket %s", sock);
	ck_assert_msg(code == 0, "exit %d: %s", code, first.data);
	ck_assert_msg(r.p.code == 0, "again: exit %d: %s", r.p.code,
	              r.p.err.data);
	snprintf(want, sizeof(want), "source: asyncio pid %ld", pid);
	ck_assert_msg(strstr(r.p.out.data, want) != NULL, "%s", r.p.out.data);
	snprintf(want, sizeof(want), "left python3 %s running as pid %ld", app,
	         pid);
	ck_assert_msg(strstr(first.data, want) != NULL, "%s", first.data);
	buf_fini(&first);
	lu_fini(&r);
}
END_TEST

START_TEST(launch_usage)
{
	const char *both[] = { "asynctop", "record", "-f",   "text", "-e",
		               "1",        "--",     "true", NULL };
	const char *other[] = { "asynctop", "record", "-a",   "replay", "-f",
		                "text",     "--",     "true", NULL };
	const char *keep[] = { "asynctop", "record", "-f",
		               "text",     "--keep", NULL };
	struct lu_run r;

	if (!lu_can_run("launch_usage"))
		return;
	lu_init(&r);
	lu_run_bin(&r, both, NULL);
	ck_assert_int_eq(r.p.code, 2);
	ck_assert_ptr_nonnull(strstr(r.p.err.data, "exclude each other"));
	lu_run_bin(&r, other, NULL);
	ck_assert_int_eq(r.p.code, 2);
	ck_assert_ptr_nonnull(strstr(r.p.err.data, "not for replay"));
	lu_run_bin(&r, keep, NULL);
	ck_assert_int_eq(r.p.code, 2);
	ck_assert_ptr_nonnull(strstr(r.p.err.data, "--keep applies"));
	/* nothing was started */
	ck_assert_int_eq(lu_event_pid(&r, "launched"), 0);
	lu_fini(&r);
}
END_TEST

/* record -a asyncio with no -e: a list and exit 2 when several agents live,
 * the only one otherwise.  The agents are started with --keep, their
 * sockets in this test's XDG_RUNTIME_DIR (not in the launch directory,
 * where no discovery looks). */
START_TEST(launch_discover_without_endpoint)
{
	char app[4200], want[64];
	const char *keep[] = { "asynctop",
		               "record",
		               "-w",
		               "1",
		               "-n",
		               "1",
		               "-f",
		               "text",
		               "--keep",
		               "--",
		               "env",
		               "-u",
		               "ASYNCTOP_SOCKET_DIR",
		               "python3",
		               app,
		               NULL };
	const char *find[] = { "asynctop", "record", "-a", "asyncio", "-w", "1",
		               "-n",       "1",      "-f", "text",    NULL };
	struct buf listed;
	struct lu_run r;
	long a, b;
	int code;

	if (!lu_can_run("launch_discover_without_endpoint"))
		return;
	lu_data(app, sizeof(app), "app.py");
	buf_init(&listed);
	lu_init(&r);
	lu_run_bin(&r, keep, NULL);
	lu_assert_exit_ok(&r);
	a = lu_event_pid(&r, "announced");
	lu_run_bin(&r, keep, NULL);
	b = lu_event_pid(&r, "announced");
	if (r.p.code != 0 || b <= 0) {
		kill((pid_t)a, SIGKILL);
		if (b > 0)
			kill((pid_t)b, SIGKILL);
	}
	lu_assert_exit_ok(&r);
	ck_assert(a > 0 && b > 0 && a != b);

	lu_run_bin(&r, find, NULL);
	code = r.p.code;
	buf_reset(&listed);
	buf_add(&listed, r.p.err.data, r.p.err.len);
	lu_text(&listed);
	ck_assert_int_eq(kill((pid_t)a, SIGKILL), 0);
	(void)lu_reap(a);
	lu_run_bin(&r, find, NULL);
	/* end b before asserting anything, so a failure leaves nothing */
	ck_assert_int_eq(kill((pid_t)b, SIGKILL), 0);
	(void)lu_reap(b);

	ck_assert_int_eq(code, 2);
	ck_assert_ptr_nonnull(strstr(listed.data, "PID"));
	ck_assert_ptr_nonnull(strstr(listed.data, "COMMAND"));
	snprintf(want, sizeof(want), "%8ld  ", a);
	ck_assert_msg(strstr(listed.data, want) != NULL, "%s", listed.data);
	snprintf(want, sizeof(want), "%8ld  ", b);
	ck_assert_msg(strstr(listed.data, want) != NULL, "%s", listed.data);
	ck_assert_ptr_nonnull(strstr(listed.data, "app.py"));
	if (r.p.code == 2) {
		/* another agent of this user in /run/user or /tmp */
		tu_skip("launch_discover_without_endpoint (single)",
		        "other live agents of this user are listed");
	} else {
		lu_assert_exit_ok(&r);
		snprintf(want, sizeof(want), "source: asyncio pid %ld", b);
		ck_assert_msg(strstr(r.p.out.data, want) != NULL, "%s",
		              r.p.out.data);
	}
	buf_fini(&listed);
	lu_fini(&r);
}
END_TEST

/* The viewer: the program's output goes to a log the header names, its
 * stdin is /dev/null, and it is ended when the viewer quits. */
START_TEST(launch_viewer_log)
{
	char app[4200], want[128], log[1024];
	const char *argv[] = { "asynctop", "-w",
		               "1",        "--exit-after",
		               "1",        "--dump-screen",
		               "240x8",    "--",
		               "python3",  app,
		               NULL };
	const char *p, *end;
	struct buf b;
	struct lu_run r;
	long pid;

	if (!lu_can_run("launch_viewer_log"))
		return;
	lu_data(app, sizeof(app), "app.py");
	lu_init(&r);
	lu_run_bin(&r, argv, NULL);
	lu_assert_exit_ok(&r);
	pid = lu_announced_pid(&r);
	ck_assert_int_eq(lu_event_pid(&r, "ended"), pid);
	lu_assert_gone(pid);
	p = strstr(r.p.err.data, " is in ");
	ck_assert_ptr_nonnull(p);
	p += strlen(" is in ");
	end = strchr(p, '\n');
	ck_assert_ptr_nonnull(end);
	snprintf(log, sizeof(log), "%.*s", (int)(end - p), p);
	ck_assert_int_eq(strncmp(log, r.dir, strlen(r.dir)), 0);
	/* the header names it */
	snprintf(want, sizeof(want), "log %.100s", log);
	ck_assert_msg(strstr(r.p.out.data, want) != NULL, "%s", r.p.out.data);
	ck_assert_ptr_null(strstr(r.p.out.data, "started"));
	buf_init(&b);
	ck_assert_int_eq(tu_read_file(log, &b), STATUS_OK);
	lu_text(&b);
	snprintf(want, sizeof(want), "app %ld started", pid);
	ck_assert_msg(strstr(b.data, want) != NULL, "%s", b.data);
	buf_fini(&b);
	unlink(log);
	lu_fini(&r);
}
END_TEST

/* ^C while waiting for the announcement: exit 130, the program ended. */
START_TEST(launch_sigint_while_waiting)
{
	char app[4200], fifo[640];
	const char *cmd[] = { "python3", app, NULL }, *argv[32];
	struct buf seen;
	struct lu_run r;
	long child;
	int fd;

	if (!lu_can_run("launch_sigint_while_waiting"))
		return;
	lu_data(app, sizeof(app), "no_asyncio.py");
	lu_with_command(argv, 32, cmd);
	lu_init(&r);
	fd = lu_events_fifo(&r, fifo, sizeof(fifo));
	lu_start(&r, argv, NULL, ".fifo");
	buf_init(&seen);
	for (;;) {
		struct pollfd p = { fd, POLLIN, 0 };
		char chunk[256];
		const char *at;
		ssize_t k;

		lu_text(&seen);
		at = strstr(seen.data, "launched ");
		if (at && strchr(at, '\n')) {
			child = strtol(at + 9, NULL, 10);
			break;
		}
		ck_assert_int_gt(poll(&p, 1, LIMIT_S * 1000), 0);
		k = read(fd, chunk, sizeof(chunk));
		if (k < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		ck_assert_int_gt(k, 0);
		buf_add(&seen, chunk, (size_t)k);
	}
	ck_assert_int_eq(kill(r.p.pid, SIGINT), 0);
	lu_collect(&r);
	close(fd);
	ck_assert_int_eq(r.p.code, 130);
	lu_assert_gone(child);
	lu_assert_no_launch_dir(&r);
	buf_fini(&seen);
	unlink(fifo);
	lu_fini(&r);
}
END_TEST

/* 0 when a Debian-style system sitecustomize exists. */
static int system_sitecustomize(void)
{
	glob_t g;
	int r = glob("/usr/lib/python3.*/sitecustomize.py", 0, NULL, &g);

	if (r == 0)
		globfree(&g);
	return r;
}

/* The sitecustomize ours hides still runs (a user's here; Debian's for
 * /usr/bin/python3), and our directory leaves sys.path. */
static void check_chain(const char *python, bool user)
{
	char app[4200], site[640], pp[700], want[800];
	const char *cmd[] = { python, app, NULL }, *argv[32];
	const char *extra[] = { pp, NULL };
	static const char user_site[] =
	    "import sys\nsys.stderr.write('user sitecustomize ran\\n')\n";
	struct lu_run r;

	lu_data(app, sizeof(app), "chain.py");
	lu_with_command(argv, 32, cmd);
	lu_init(&r);
	lu_in_dir(site, sizeof(site), &r, "site");
	ck_assert_int_eq(mkdir(site, 0700), 0);
	snprintf(pp, sizeof(pp), "PYTHONPATH=%s", site);
	snprintf(want, sizeof(want), "%s/sitecustomize.py", site);
	if (user)
		ck_assert_int_eq(
		    tu_write_file(want, user_site, sizeof(user_site) - 1),
		    STATUS_OK);
	lu_run_bin(&r, argv, user ? extra : NULL);
	lu_assert_exit_ok(&r);
	ck_assert_ptr_nonnull(
	    strstr(r.p.err.data, "chain: agent enabled=True"));
	ck_assert_ptr_nonnull(
	    strstr(r.p.err.data, "chain: launch on path=False"));
	if (user) {
		ck_assert_ptr_nonnull(
		    strstr(r.p.err.data, "user sitecustomize ran"));
		snprintf(want, sizeof(want), "chain: sitecustomize=%s/%s", site,
		         "sitecustomize.py");
	} else {
		snprintf(want, sizeof(want), "chain: sitecustomize=/usr/lib/");
	}
	ck_assert_msg(strstr(r.p.err.data, want) != NULL, "%s", r.p.err.data);
	if (user) {
		snprintf(want, sizeof(want), "%s/sitecustomize.py", site);
		unlink(want);
		tu_rmtree(site);
	}
	lu_fini(&r);
}

START_TEST(launch_chains_sitecustomize)
{
	if (!lu_can_run("launch_chains_sitecustomize"))
		return;
	check_chain("python3", true);
	if (access("/usr/lib/python3/dist-packages", F_OK) != 0 ||
	    access("/usr/bin/python3", X_OK) != 0 ||
	    system_sitecustomize() != 0)
		tu_skip("launch_chains_sitecustomize (Debian)",
		        "no /usr/bin/python3 with a system sitecustomize");
	else
		check_chain("/usr/bin/python3", false);
}
END_TEST

Suite *suite_launch(void);
Suite *suite_launch(void)
{
	Suite *s = suite_create("launch");
	TCase *tc = tcase_create("record");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, launch_script);
	tcase_add_test(tc, launch_module);
	tcase_add_test(tc, launch_console_script);
	tcase_add_test(tc, launch_fork_listed);
	tcase_add_test(tc, launch_no_such_command);
	tcase_add_test(tc, launch_exits_before_announcing);
	tcase_add_test(tc, launch_never_announces);
	tcase_add_test(tc, launch_keep);
	tcase_add_test(tc, launch_usage);
	tcase_add_test(tc, launch_chains_sitecustomize);
	tcase_add_test(tc, launch_sigint_while_waiting);
	tcase_add_test(tc, launch_viewer_log);
	tcase_add_test(tc, launch_discover_without_endpoint);
	suite_add_tcase(s, tc);
	return s;
}
