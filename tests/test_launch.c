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
#include "tests/util.h"

#define LIMIT_S 60

struct run {
	char dir[512];   /* the child's working directory, TMPDIR and
	                  * XDG_RUNTIME_DIR */
	struct tu_run p; /* the child: its exit code, stdout and stderr */
	struct buf events;
};

static const char *bin(void)
{
	const char *b = getenv("ASYNCTOP_BIN");
	return b && *b && access(b, X_OK) == 0 ? b : NULL;
}

static bool have_python(void)
{
	const char *path = getenv("PATH");
	char p[4200];

	while (path && *path) {
		size_t n = strcspn(path, ":");

		snprintf(p, sizeof(p), "%.*s/python3", (int)n, path);
		if (n && access(p, X_OK) == 0)
			return true;
		path += n + (path[n] == ':');
	}
	return false;
}

/* False (with a printed reason) when the test cannot run here. */
static bool can_run(const char *test)
{
	if (!bin()) {
		tu_skip(test, "ASYNCTOP_BIN is not set to the built binary");
		return false;
	}
	if (!have_python()) {
		tu_skip(test, "no python3 on PATH");
		return false;
	}
	return true;
}

static void run_init(struct run *r)
{
	memset(r, 0, sizeof(*r));
	tu_mkdtemp(r->dir, sizeof(r->dir));
	tu_run_init(&r->p);
	buf_init(&r->events);
	/* orphans (a --kept program, a fork) become ours to reap */
	prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
}

static void run_fini(struct run *r)
{
	char sub[640];

	tu_run_fini(&r->p);
	buf_fini(&r->events);
	snprintf(sub, sizeof(sub), "%s/asynctop", r->dir);
	tu_rmtree(sub);
	tu_rmtree(r->dir);
}

static void in_dir(char *dst, size_t size, const struct run *r,
                   const char *name)
{
	int n = snprintf(dst, size, "%s/%s", r->dir, name);
	ck_assert(n > 0 && (size_t)n < size);
}

static void data(char *dst, size_t size, const char *name)
{
	char p[4096];

	tu_data_path(p, sizeof(p), "launch");
	snprintf(dst, size, "%s/%s", p, name);
}

/* Makes b->data a string even when b is empty. */
static void text(struct buf *b)
{
	buf_add(b, "", 1);
	ck_assert_int_eq(b->err, STATUS_OK);
	b->len--;
}

/* Starts asynctop with argv (argv[0] replaced) in r->dir, with TMPDIR and
 * XDG_RUNTIME_DIR there, extra "NAME=VALUE" settings (NULL-terminated, may
 * be NULL), events to events (a file or FIFO name in r->dir); r->p.pid is
 * the child. */
static void start_bin(struct run *r, const char *const *argv,
                      const char *const *extra, const char *events)
{
	static const char *const unset[] = { "ASYNCTOP_AGENT_PATH",
		                             "ASYNCTOP_ANNOUNCE_TIMEOUT",
		                             NULL };
	char tmpdir[600], xdg[620], ev[700];
	const char *args[32], *set[16] = { tmpdir, xdg, ev };
	struct tu_proc p = { .dir = r->dir,
		             .env_unset = unset,
		             .env_set = set,
		             .timeout_ms = LIMIT_S * 1000 };
	size_t n = 0, k = 3;

	while (argv[n])
		n++;
	ck_assert_uint_lt(n, 32);
	memcpy(args, argv, (n + 1) * sizeof(*argv));
	args[0] = bin();
	snprintf(tmpdir, sizeof(tmpdir), "TMPDIR=%s", r->dir);
	snprintf(xdg, sizeof(xdg), "XDG_RUNTIME_DIR=%s", r->dir);
	snprintf(ev, sizeof(ev), "ASYNCTOP_TEST_EVENTS=%s", events);
	for (size_t i = 0; extra && extra[i]; i++) {
		ck_assert_uint_lt(k, 15);
		set[k++] = extra[i];
	}
	set[k] = NULL;
	tu_run_start(&r->p, &p, args);
}

/* Waits for asynctop and collects its exit status, output and events. */
static void collect(struct run *r)
{
	char p[640];

	tu_run_wait(&r->p);
	buf_reset(&r->events);
	in_dir(p, sizeof(p), r, ".events");
	(void)tu_read_file(p, &r->events);
	unlink(p);
	text(&r->events);
}

/* Runs asynctop to its end (start_bin, events to a file, collect). */
static void run_bin(struct run *r, const char *const *argv,
                    const char *const *extra)
{
	start_bin(r, argv, extra, ".events");
	collect(r);
}

/* The number after "WORD " in the events, or 0. */
static long event_pid(const struct run *r, const char *word)
{
	char key[64];
	const char *p;

	snprintf(key, sizeof(key), "%s ", word);
	for (p = r->events.data; p && (p = strstr(p, key)) != NULL; p++)
		if (p == r->events.data || p[-1] == '\n')
			return strtol(p + strlen(key), NULL, 10);
	return 0;
}

static size_t count_events(const struct run *r, const char *word)
{
	size_t n = 0, l = strlen(word);
	const char *p;

	for (p = r->events.data; p && (p = strstr(p, word)) != NULL; p += l)
		if (p == r->events.data || p[-1] == '\n')
			n++;
	return n;
}

/* The program's launch directory is gone (no asynctop-launch-* left). */
static void assert_no_launch_dir(const struct run *r)
{
	DIR *d = opendir(r->dir);
	struct dirent *e;

	ck_assert_ptr_nonnull(d);
	while ((e = readdir(d)) != NULL)
		ck_assert_msg(strncmp(e->d_name, "asynctop-launch-", 16) != 0,
		              "launch directory left: %s", e->d_name);
	closedir(d);
}

/* kill(pid, 0) fails: the process is gone and reaped. */
static void assert_gone(long pid)
{
	ck_assert_int_gt(pid, 0);
	ck_assert_msg(kill((pid_t)pid, 0) < 0 && errno == ESRCH,
	              "pid %ld is still there", pid);
}

/* Reaps an orphan of ours (we are a subreaper) and returns its status. */
static int reap(long pid)
{
	int status;

	while (waitpid((pid_t)pid, &status, 0) < 0)
		ck_assert_int_eq(errno, EINTR);
	return status;
}

/* Windows of 1 s: the first window's budget (connect, first snapshot,
 * window, 1 s grace) must hold on a loaded 2-core machine. */
static const char *const rec_text[] = { "asynctop", "record", "-w", "1",
	                                "-n",       "1",      "-f", "text",
	                                "-o",       "-",      "--", NULL };

/* rec_text followed by cmd (NULL-terminated) into argv. */
static void with_command(const char **argv, size_t size, const char *const *cmd)
{
	size_t n = 0;

	for (size_t i = 0; rec_text[i]; i++)
		argv[n++] = rec_text[i];
	for (size_t i = 0; cmd[i]; i++)
		argv[n++] = cmd[i];
	ck_assert_uint_lt(n, size);
	argv[n] = NULL;
}

START_TEST(launch_script)
{
	char app[4200], want[128];
	const char *cmd[] = { "python3", app, NULL }, *argv[32];
	struct run r;
	long pid;

	if (!can_run("launch_script"))
		return;
	data(app, sizeof(app), "app.py");
	with_command(argv, 32, cmd);
	run_init(&r);
	run_bin(&r, argv, NULL);
	ck_assert_msg(r.p.code == 0, "exit %d: %s", r.p.code, r.p.err.data);
	pid = event_pid(&r, "announced");
	ck_assert_int_eq(pid, event_pid(&r, "launched"));
	snprintf(want, sizeof(want), "source: asyncio pid %ld", pid);
	ck_assert_ptr_nonnull(strstr(r.p.out.data, want));
	/* app.py's tasks, spawned in its main() */
	ck_assert_ptr_nonnull(strstr(r.p.out.data, "app:main"));
	ck_assert_ptr_nonnull(strstr(r.p.out.data, "tasks 5"));
	/* its output goes to our stderr, never into the report */
	snprintf(want, sizeof(want), "app %ld started", pid);
	ck_assert_ptr_nonnull(strstr(r.p.err.data, want));
	ck_assert_ptr_null(strstr(r.p.out.data, "started"));
	ck_assert_int_eq(event_pid(&r, "ended"), pid);
	assert_gone(pid);
	assert_no_launch_dir(&r);
	run_fini(&r);
}
END_TEST

START_TEST(launch_module)
{
	char dir[4200], pp[4300];
	const char *cmd[] = { "python3", "-m", "pkg", NULL }, *argv[32];
	const char *extra[] = { pp, NULL };
	struct run r;
	long pid;

	if (!can_run("launch_module"))
		return;
	/* the program's own PYTHONPATH is kept, after the agent's */
	tu_data_path(dir, sizeof(dir), "launch");
	snprintf(pp, sizeof(pp), "PYTHONPATH=%s", dir);
	with_command(argv, 32, cmd);
	run_init(&r);
	run_bin(&r, argv, extra);
	ck_assert_msg(r.p.code == 0, "exit %d: %s", r.p.code, r.p.err.data);
	pid = event_pid(&r, "announced");
	ck_assert_int_eq(pid, event_pid(&r, "launched"));
	ck_assert_ptr_nonnull(strstr(r.p.out.data, "pkg.__main__:main"));
	assert_gone(pid);
	run_fini(&r);
}
END_TEST

START_TEST(launch_console_script)
{
	char sh[4200];
	const char *cmd[] = { sh, NULL }, *argv[32];
	struct run r;
	long pid;

	if (!can_run("launch_console_script"))
		return;
	data(sh, sizeof(sh), "wrapper.sh");
	with_command(argv, 32, cmd);
	run_init(&r);
	run_bin(&r, argv, NULL);
	ck_assert_msg(r.p.code == 0, "exit %d: %s", r.p.code, r.p.err.data);
	/* the helper interpreter never announced: one announcement, from
	 * the entry point's process (the shell exec'd it: same pid) */
	ck_assert_uint_eq(count_events(&r, "announced "), 1);
	pid = event_pid(&r, "announced");
	ck_assert_int_eq(pid, event_pid(&r, "launched"));
	ck_assert_ptr_nonnull(strstr(r.p.out.data, "entry:main"));
	ck_assert_ptr_null(strstr(r.p.err.data, "announced an agent too"));
	assert_gone(pid);
	run_fini(&r);
}
END_TEST

START_TEST(launch_fork_listed)
{
	char app[4200], want[160];
	const char *cmd[] = { "python3", app, NULL }, *argv[32];
	struct run r;
	long pid, fork_pid;
	int status;

	if (!can_run("launch_fork_listed"))
		return;
	data(app, sizeof(app), "forks.py");
	with_command(argv, 32, cmd);
	run_init(&r);
	run_bin(&r, argv, NULL);
	ck_assert_msg(r.p.code == 0, "exit %d: %s", r.p.code, r.p.err.data);
	pid = event_pid(&r, "announced");
	ck_assert_int_eq(pid, event_pid(&r, "launched"));
	fork_pid = event_pid(&r, "listed");
	ck_assert_int_gt(fork_pid, 0);
	ck_assert_int_ne(fork_pid, pid);
	snprintf(want, sizeof(want),
	         "announced an agent too (attach with -e "
	         "PID): %ld",
	         fork_pid);
	ck_assert_msg(strstr(r.p.err.data, want) != NULL, "%s", r.p.err.data);
	ck_assert_ptr_nonnull(strstr(r.p.out.data, "forks:main"));
	/* the fork was ended with its parent's process group */
	assert_gone(pid);
	status = reap(fork_pid);
	ck_assert(WIFSIGNALED(status));
	run_fini(&r);
}
END_TEST

START_TEST(launch_no_such_command)
{
	const char *cmd[] = { "asynctop-no-such-command-here", NULL };
	const char *argv[32];
	struct run r;

	if (!can_run("launch_no_such_command"))
		return;
	with_command(argv, 32, cmd);
	run_init(&r);
	run_bin(&r, argv, NULL);
	ck_assert_int_eq(r.p.code, 2);
	ck_assert_msg(strstr(r.p.err.data, "cannot start "
	                                   "asynctop-no-such-command-here: No "
	                                   "such file or directory") != NULL,
	              "%s", r.p.err.data);
	ck_assert_uint_eq(r.p.out.len, 0);
	assert_no_launch_dir(&r);
	run_fini(&r);
}
END_TEST

START_TEST(launch_exits_before_announcing)
{
	char app[4200];
	const char *cmd[] = { "python3", app, NULL }, *argv[32];
	struct run r;

	if (!can_run("launch_exits_before_announcing"))
		return;
	data(app, sizeof(app), "early_exit.py");
	with_command(argv, 32, cmd);
	run_init(&r);
	run_bin(&r, argv, NULL);
	ck_assert_int_eq(r.p.code, 3);
	ck_assert_ptr_nonnull(
	    strstr(r.p.err.data, "configuration error: no such database"));
	ck_assert_msg(strstr(r.p.err.data,
	                     "early_exit.py exited with status "
	                     "7 before it started asyncio") != NULL,
	              "%s", r.p.err.data);
	ck_assert_uint_eq(r.p.out.len, 0);
	ck_assert_int_eq(event_pid(&r, "announced"), 0);
	assert_no_launch_dir(&r);
	run_fini(&r);
}
END_TEST

START_TEST(launch_never_announces)
{
	char app[4200];
	const char *cmd[] = { "python3", app, NULL }, *argv[32];
	const char *extra[] = { "ASYNCTOP_ANNOUNCE_TIMEOUT=0.3", NULL };
	struct run r;
	long pid;

	if (!can_run("launch_never_announces"))
		return;
	data(app, sizeof(app), "no_asyncio.py");
	with_command(argv, 32, cmd);
	run_init(&r);
	run_bin(&r, argv, extra);
	ck_assert_int_eq(r.p.code, 3);
	ck_assert_msg(strstr(r.p.err.data, "did not start asyncio within "
	                                   "0.3s") != NULL,
	              "%s", r.p.err.data);
	pid = event_pid(&r, "launched");
	ck_assert_int_eq(event_pid(&r, "announced"), 0);
	/* ended, not left behind */
	assert_gone(pid);
	assert_no_launch_dir(&r);
	run_fini(&r);
}
END_TEST

START_TEST(launch_keep)
{
	char app[4200], want[4400], sock[700];
	const char *cmd[] = { "python3", app, NULL };
	const char *argv[] = { "asynctop", "record", "-w",   "1",      "-n",
		               "1",        "-f",     "text", "--keep", "--",
		               "python3",  app,      NULL };
	struct stat sb;
	struct run r;
	bool alive;
	long pid;
	int status;

	(void)cmd;
	if (!can_run("launch_keep"))
		return;
	data(app, sizeof(app), "app.py");
	run_init(&r);
	run_bin(&r, argv, NULL);
	pid = event_pid(&r, "announced");
	ck_assert_int_gt(pid, 0);
	/* still running, its agent still serving; ended here before the
	 * other checks, so a failure leaves nothing behind */
	snprintf(sock, sizeof(sock), "%s/asynctop/%ld.sock", r.dir, pid);
	alive = stat(sock, &sb) == 0 && S_ISSOCK(sb.st_mode);
	ck_assert_int_eq(kill((pid_t)pid, SIGKILL), 0);
	status = reap(pid);
	ck_assert(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
	ck_assert_msg(alive, "no socket %s", sock);
	ck_assert_msg(r.p.code == 0, "exit %d: %s", r.p.code, r.p.err.data);
	ck_assert_int_eq(event_pid(&r, "ended"), 0);
	snprintf(want, sizeof(want), "left python3 %s running as pid %ld", app,
	         pid);
	ck_assert_msg(strstr(r.p.err.data, want) != NULL, "%s", r.p.err.data);
	run_fini(&r);
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
	struct run r;

	if (!can_run("launch_usage"))
		return;
	run_init(&r);
	run_bin(&r, both, NULL);
	ck_assert_int_eq(r.p.code, 2);
	ck_assert_ptr_nonnull(strstr(r.p.err.data, "exclude each other"));
	run_bin(&r, other, NULL);
	ck_assert_int_eq(r.p.code, 2);
	ck_assert_ptr_nonnull(strstr(r.p.err.data, "not for replay"));
	run_bin(&r, keep, NULL);
	ck_assert_int_eq(r.p.code, 2);
	ck_assert_ptr_nonnull(strstr(r.p.err.data, "--keep applies"));
	/* nothing was started */
	ck_assert_int_eq(event_pid(&r, "launched"), 0);
	run_fini(&r);
}
END_TEST

/* record -a asyncio with no -e: a list and exit 2 when several agents live,
 * the only one otherwise (docs/design.md §8).  The agents are started with
 * --keep, so they run in this test's XDG_RUNTIME_DIR. */
START_TEST(launch_discover_without_endpoint)
{
	char app[4200], want[64];
	const char *keep[] = { "asynctop", "record", "-w",   "1",      "-n",
		               "1",        "-f",     "text", "--keep", "--",
		               "python3",  app,      NULL };
	const char *find[] = { "asynctop", "record", "-a", "asyncio", "-w", "1",
		               "-n",       "1",      "-f", "text",    NULL };
	struct buf listed;
	struct run r;
	long a, b;
	int code;

	if (!can_run("launch_discover_without_endpoint"))
		return;
	data(app, sizeof(app), "app.py");
	buf_init(&listed);
	run_init(&r);
	run_bin(&r, keep, NULL);
	ck_assert_msg(r.p.code == 0, "exit %d: %s", r.p.code, r.p.err.data);
	a = event_pid(&r, "announced");
	run_bin(&r, keep, NULL);
	b = event_pid(&r, "announced");
	if (r.p.code != 0 || b <= 0) {
		kill((pid_t)a, SIGKILL);
		if (b > 0)
			kill((pid_t)b, SIGKILL);
	}
	ck_assert_msg(r.p.code == 0, "exit %d: %s", r.p.code, r.p.err.data);
	ck_assert(a > 0 && b > 0 && a != b);

	run_bin(&r, find, NULL);
	code = r.p.code;
	buf_reset(&listed);
	buf_add(&listed, r.p.err.data, r.p.err.len);
	text(&listed);
	ck_assert_int_eq(kill((pid_t)a, SIGKILL), 0);
	(void)reap(a);
	run_bin(&r, find, NULL);
	/* end b before asserting anything, so a failure leaves nothing */
	ck_assert_int_eq(kill((pid_t)b, SIGKILL), 0);
	(void)reap(b);

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
		ck_assert_msg(r.p.code == 0, "exit %d: %s", r.p.code,
		              r.p.err.data);
		snprintf(want, sizeof(want), "source: asyncio pid %ld", b);
		ck_assert_msg(strstr(r.p.out.data, want) != NULL, "%s",
		              r.p.out.data);
	}
	buf_fini(&listed);
	run_fini(&r);
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
	struct run r;
	long pid;

	if (!can_run("launch_viewer_log"))
		return;
	data(app, sizeof(app), "app.py");
	run_init(&r);
	run_bin(&r, argv, NULL);
	ck_assert_msg(r.p.code == 0, "exit %d: %s", r.p.code, r.p.err.data);
	pid = event_pid(&r, "announced");
	ck_assert_int_eq(pid, event_pid(&r, "launched"));
	ck_assert_int_eq(event_pid(&r, "ended"), pid);
	assert_gone(pid);
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
	text(&b);
	snprintf(want, sizeof(want), "app %ld started", pid);
	ck_assert_msg(strstr(b.data, want) != NULL, "%s", b.data);
	buf_fini(&b);
	*strrchr(log, '/') = '\0';
	tu_rmtree(log);
	run_fini(&r);
}
END_TEST

/* ^C while waiting for the announcement: exit 130, the program ended. */
START_TEST(launch_sigint_while_waiting)
{
	char app[4200], fifo[640];
	const char *cmd[] = { "python3", app, NULL }, *argv[32];
	struct buf seen;
	struct run r;
	long child;
	int fd;

	if (!can_run("launch_sigint_while_waiting"))
		return;
	data(app, sizeof(app), "no_asyncio.py");
	with_command(argv, 32, cmd);
	run_init(&r);
	in_dir(fifo, sizeof(fifo), &r, ".fifo");
	ck_assert_int_eq(mkfifo(fifo, 0600), 0);
	fd = open(fifo, O_RDONLY | O_NONBLOCK);
	ck_assert_int_ge(fd, 0);
	start_bin(&r, argv, NULL, ".fifo");
	buf_init(&seen);
	for (;;) {
		struct pollfd p = { fd, POLLIN, 0 };
		char chunk[256];
		const char *at;
		ssize_t k;

		text(&seen);
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
	collect(&r);
	close(fd);
	ck_assert_int_eq(r.p.code, 130);
	assert_gone(child);
	assert_no_launch_dir(&r);
	buf_fini(&seen);
	unlink(fifo);
	run_fini(&r);
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
	struct run r;

	data(app, sizeof(app), "chain.py");
	with_command(argv, 32, cmd);
	run_init(&r);
	in_dir(site, sizeof(site), &r, "site");
	ck_assert_int_eq(mkdir(site, 0700), 0);
	snprintf(pp, sizeof(pp), "PYTHONPATH=%s", site);
	snprintf(want, sizeof(want), "%s/sitecustomize.py", site);
	if (user)
		ck_assert_int_eq(
		    tu_write_file(want, user_site, sizeof(user_site) - 1),
		    STATUS_OK);
	run_bin(&r, argv, user ? extra : NULL);
	ck_assert_msg(r.p.code == 0, "exit %d: %s", r.p.code, r.p.err.data);
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
	run_fini(&r);
}

START_TEST(launch_chains_sitecustomize)
{
	if (!can_run("launch_chains_sitecustomize"))
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
