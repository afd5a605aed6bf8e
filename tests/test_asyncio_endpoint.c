/* The asyncio adapter's endpoint rules: parsing a path or a pid, the
 * directories searched, listing live agents, connecting, and discovery
 * when no -e is given. */
#include <check.h>
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "adapters/asyncio.h"
#include "adapters/asyncio_endpoint.h"
#include "adapters/worker.h"
#include "model/alloc.h"
#include "tests/fake_agent.h"
#include "tests/util.h"

/* A child that waits until its pipe closes: a live pid that is no agent. */
static pid_t idle_child(int *wfd)
{
	int p[2];
	pid_t pid;

	ck_assert_int_eq(pipe(p), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		char c;

		close(p[1]);
		while (read(p[0], &c, 1) < 0 && errno == EINTR)
			;
		_exit(0);
	}
	close(p[0]);
	*wfd = p[1];
	return pid;
}

static pid_t dead_pid(void)
{
	pid_t pid = fork();

	ck_assert_int_ge(pid, 0);
	if (pid == 0)
		_exit(0);
	ck_assert_int_eq(waitpid(pid, NULL, 0), pid);
	return pid;
}

START_TEST(endpoint_parse_path)
{
	struct asyncio_endpoint ep;
	char err[256], longp[300];

	ck_assert_int_eq(
	    asyncio_endpoint_parse("./4242", &ep, err, sizeof(err)), STATUS_OK);
	ck_assert_uint_eq(ep.npaths, 1);
	ck_assert_str_eq(ep.path[0], "./4242");
	ck_assert_int_eq(ep.pid, 0);
	ck_assert_str_eq(ep.text, "./4242");
	ck_assert_int_eq(asyncio_endpoint_parse("", &ep, err, sizeof(err)),
	                 STATUS_INVAL);
	ck_assert_int_eq(asyncio_endpoint_parse("0", &ep, err, sizeof(err)),
	                 STATUS_INVAL);
	ck_assert_str_eq(err, "0 is not a process id");
	memset(longp, 'x', sizeof(longp) - 1);
	longp[sizeof(longp) - 1] = '\0';
	ck_assert_int_eq(asyncio_endpoint_parse(longp, &ep, err, sizeof(err)),
	                 STATUS_INVAL);
	ck_assert_str_eq(err, "the socket path is longer than 107 bytes");
}
END_TEST

START_TEST(endpoint_parse_pid)
{
	struct asyncio_endpoint ep;
	char err[256], spec[32], want[128];
	pid_t gone = dead_pid();

	snprintf(spec, sizeof(spec), "%ld", (long)getpid());
	ck_assert_int_eq(asyncio_endpoint_parse(spec, &ep, err, sizeof(err)),
	                 STATUS_OK);
	ck_assert_int_eq(ep.pid, (long)getpid());
	ck_assert_int_eq(ep.uid, (long)getuid());
	ck_assert_uint_eq(ep.npaths, 2);
	snprintf(want, sizeof(want), "/tmp/asynctop-%ld/%ld.sock",
	         (long)getuid(), (long)getpid());
	ck_assert_str_eq(ep.path[1], want);
	snprintf(want, sizeof(want), "/%ld.sock", (long)getpid());
	ck_assert_ptr_nonnull(strstr(ep.path[0], "/asynctop/"));
	ck_assert_str_eq(ep.path[0] + strlen(ep.path[0]) - strlen(want), want);
	snprintf(want, sizeof(want), "pid %ld", (long)getpid());
	ck_assert_str_eq(ep.text, want);

	snprintf(spec, sizeof(spec), "%ld", (long)gone);
	ck_assert_int_eq(asyncio_endpoint_parse(spec, &ep, err, sizeof(err)),
	                 STATUS_UNREACHABLE);
	snprintf(want, sizeof(want), "no process with pid %ld is running",
	         (long)gone);
	ck_assert_str_eq(err, want);
}
END_TEST

/* The per-user directories: ours first, then /run/user, then /tmp. */
START_TEST(endpoint_dirs)
{
	char dirs[4][ASYNCIO_PATH_MAX], want[64];
	size_t n = asyncio_endpoint_dirs(dirs, 4);

	ck_assert_uint_ge(n, 2);
	snprintf(want, sizeof(want), "/tmp/asynctop-%ld", (long)getuid());
	ck_assert_str_eq(dirs[n - 1], want);
	snprintf(want, sizeof(want), "/run/user/%ld/asynctop", (long)getuid());
	ck_assert_str_eq(dirs[n - 2], want);
	ck_assert_uint_eq(asyncio_endpoint_dirs(dirs, 1), 1);
}
END_TEST

/* Live agents only: our own listening socket; not a dead pid's socket,
 * not a live pid's stale socket, not files with other names. */
START_TEST(endpoint_list_live)
{
	char dir[64], path[ASYNCIO_PATH_MAX], sub[2][ASYNCIO_PATH_MAX];
	struct asyncio_agent *a = NULL;
	size_t n = 0;
	int lfd, wfd;
	pid_t child = idle_child(&wfd), gone = dead_pid();

	tu_mkdtemp(dir, sizeof(dir));
	snprintf(sub[0], sizeof(sub[0]), "%s", dir);
	snprintf(path, sizeof(path), "%s/%ld.sock", dir, (long)getpid());
	lfd = tu_listen_unix(path);
	snprintf(path, sizeof(path), "%s/%ld.sock", dir, (long)gone);
	agent_stale_at(path);
	snprintf(path, sizeof(path), "%s/%ld.sock", dir, (long)child);
	agent_stale_at(path);
	snprintf(path, sizeof(path), "%s/abc.sock", dir);
	agent_stale_at(path);
	snprintf(path, sizeof(path), "%s/%ld.txt", dir, (long)getpid());
	ck_assert_int_eq(tu_write_file(path, "x", 1), STATUS_OK);
	snprintf(sub[1], sizeof(sub[1]), "%s/missing", dir);

	ck_assert_int_eq(
	    asyncio_endpoint_list((const char(*)[ASYNCIO_PATH_MAX])sub, 2,
	                          (long)getuid(), &a, &n),
	    STATUS_OK);
	ck_assert_uint_eq(n, 1);
	ck_assert_int_eq(a[0].pid, (long)getpid());
	snprintf(path, sizeof(path), "%s/%ld.sock", dir, (long)getpid());
	ck_assert_str_eq(a[0].path, path);
	ck_assert_ptr_nonnull(strstr(a[0].cmd, "check_asynctop"));
	mem_free(a);

	/* another uid's view of the same directory lists nothing */
	ck_assert_int_eq(
	    asyncio_endpoint_list((const char(*)[ASYNCIO_PATH_MAX])sub, 1,
	                          (long)getuid() + 1, &a, &n),
	    STATUS_OK);
	ck_assert_uint_eq(n, 0);
	ck_assert_ptr_null(a);

	close(lfd);
	close(wfd);
	ck_assert_int_eq(waitpid(child, NULL, 0), child);
	tu_rmtree(dir);
}
END_TEST

START_TEST(endpoint_format_list)
{
	struct asyncio_agent a[3];
	char out[512], small[80];

	memset(a, 0, sizeof(a));
	a[0].pid = 42;
	a[0].age_ns = 75ull * 1000000000u;
	snprintf(a[0].cmd, sizeof(a[0].cmd), "python3 app.py");
	a[1].pid = 4242;
	a[1].age_ns = 2ull * 86400 * 1000000000u + 3600ull * 1000000000u;
	snprintf(a[1].cmd, sizeof(a[1].cmd), "python3 -m svc --port 80");
	a[2].pid = 7;
	snprintf(a[2].cmd, sizeof(a[2].cmd), "x");
	asyncio_endpoint_format_list(a, 3, out, sizeof(out));
	ck_assert_str_eq(out, "     PID      AGE  COMMAND\n"
	                      "      42    1m15s  python3 app.py\n"
	                      "    4242    2d01h  python3 -m svc --port 80\n"
	                      "       7        ?  x");
	asyncio_endpoint_format_list(a, 3, small, sizeof(small));
	ck_assert_str_eq(small, "     PID      AGE  COMMAND\n"
	                        "      42    1m15s  python3 app.py\n"
	                        "... and 2 more");
}
END_TEST

START_TEST(endpoint_connect_rules)
{
	char dir[64], path[ASYNCIO_PATH_MAX], err[512], want[600];
	struct asyncio_endpoint ep;
	const char *remedy = "unset";
	int lfd, fd = -1;

	tu_mkdtemp(dir, sizeof(dir));
	snprintf(path, sizeof(path), "%s/a.sock", dir);
	lfd = tu_listen_unix(path);
	/* a pid endpoint checks the peer's pid: ours is right... */
	memset(&ep, 0, sizeof(ep));
	snprintf(ep.path[0], sizeof(ep.path[0]), "%s/missing.sock", dir);
	snprintf(ep.path[1], sizeof(ep.path[1]), "%s", path);
	ep.npaths = 2;
	ep.pid = (long)getpid();
	ck_assert_int_eq(asyncio_endpoint_connect(&ep, 2000000000u, -1, &fd,
	                                          err, sizeof(err), NULL),
	                 STATUS_OK);
	ck_assert_int_ge(fd, 0);
	close(fd);
	/* ...another is refused */
	ep.pid = (long)getpid() + 1;
	ck_assert_int_eq(asyncio_endpoint_connect(&ep, 2000000000u, -1, &fd,
	                                          err, sizeof(err), NULL),
	                 STATUS_IO);
	ck_assert_int_eq(fd, -1);
	snprintf(want, sizeof(want), "%s is served by pid %ld, not pid %ld",
	         path, (long)getpid(), (long)getpid() + 1);
	ck_assert_str_eq(err, want);
	close(lfd);
	/* a stale socket is refused, a missing one is missing; the remedy
	 * is the stale one's (a process killed with SIGKILL), not "opt in" */
	ep.pid = 0;
	ck_assert_int_eq(asyncio_endpoint_connect(&ep, 2000000000u, -1, &fd,
	                                          err, sizeof(err), &remedy),
	                 STATUS_UNREACHABLE);
	snprintf(want, sizeof(want), "%s/missing.sock: %s; %s: %s", dir,
	         strerror(ENOENT), path, strerror(ECONNREFUSED));
	ck_assert_str_eq(err, want);
	ck_assert_ptr_nonnull(remedy);
	ck_assert_str_eq(remedy, asyncio_endpoint_remedy(ECONNREFUSED));
	ck_assert_ptr_nonnull(strstr(remedy, "ended without closing it"));
	/* only a missing socket leaves the remedy to the caller */
	ep.npaths = 1;
	ck_assert_int_eq(asyncio_endpoint_connect(&ep, 2000000000u, -1, &fd,
	                                          err, sizeof(err), &remedy),
	                 STATUS_UNREACHABLE);
	ck_assert_ptr_null(remedy);
	/* another user's agent: run as that user, not "opt in" */
	ck_assert_ptr_nonnull(strstr(asyncio_endpoint_remedy(EACCES),
	                             "run asynctop as the "
	                             "application's user"));
	ck_assert_str_eq(asyncio_endpoint_remedy(EPERM),
	                 asyncio_endpoint_remedy(EACCES));
	unlink(path);
	tu_rmtree(dir);
}
END_TEST

/* No -e: the only live agent of this user, named by pid; several: a usage
 * error listing them (other agents of this user may be running, so both
 * outcomes are checked for what they say about ours). */
START_TEST(asyncio_discovery)
{
	char dir[64], sub[80], path[ASYNCIO_PATH_MAX], pid[32];
	const char *old = getenv("XDG_RUNTIME_DIR");
	char saved[4096];
	struct adapter_error err;
	struct adapter *a = NULL;
	enum status st;
	int lfd;

	snprintf(saved, sizeof(saved), "%s", old ? old : "");
	tu_mkdtemp(dir, sizeof(dir));
	snprintf(sub, sizeof(sub), "%s/asynctop", dir);
	ck_assert_int_eq(mkdir(sub, 0700), 0);
	snprintf(path, sizeof(path), "%s/%ld.sock", sub, (long)getpid());
	lfd = tu_listen_unix(path);
	snprintf(pid, sizeof(pid), "%ld", (long)getpid());
	ck_assert_int_eq(setenv("XDG_RUNTIME_DIR", dir, 1), 0);
	st = adapter_open(&asyncio_ops, NULL, 0, NULL, &err, &a);
	if (old)
		setenv("XDG_RUNTIME_DIR", saved, 1);
	else
		unsetenv("XDG_RUNTIME_DIR");
	if (st == STATUS_OK) {
		ck_assert_str_eq(a->endpoints[0], pid);
		adapter_close(a);
	} else {
		ck_assert_int_eq(st, STATUS_INVAL);
		ck_assert_ptr_nonnull(strstr(err.detail, "choose one with -e"));
		ck_assert_ptr_nonnull(strstr(err.remediation, "PID"));
		ck_assert_ptr_nonnull(strstr(err.remediation, pid));
	}
	close(lfd);
	unlink(path);
	rmdir(sub);
	tu_rmtree(dir);
}
END_TEST

/* A child listening at dir/PID.sock as an agent that never answers; it
 * exits, leaving its socket as a killed agent would, once *wfd closes. */
static pid_t listening_child(const char *dir, int *wfd)
{
	int go[2], ready[2];
	pid_t pid;
	char c = 0;

	ck_assert_int_eq(pipe(go), 0);
	ck_assert_int_eq(pipe(ready), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		char path[ASYNCIO_PATH_MAX];
		int lfd;

		close(go[1]);
		close(ready[0]);
		snprintf(path, sizeof(path), "%s/%ld.sock", dir,
		         (long)getpid());
		lfd = tu_listen_unix(path);
		if (lfd < 0 || write(ready[1], "r", 1) != 1)
			_exit(1);
		while (read(go[0], &c, 1) < 0 && errno == EINTR)
			;
		_exit(0);
	}
	close(go[0]);
	close(ready[1]);
	ck_assert_int_eq(read(ready[0], &c, 1), 1);
	close(ready[0]);
	*wfd = go[1];
	return pid;
}

/* Attached without -e, a program that restarts (a new pid, the same
 * command line) is found again at the next connect: the worker's attempt
 * reaches the new agent (which never answers: a timeout), not the dead
 * one's socket (refused: unreachable). */
START_TEST(asyncio_rediscovery)
{
	char dir[64], sub[80];
	const char *old = getenv("XDG_RUNTIME_DIR");
	char saved[4096];
	struct adapter_config cfg;
	struct adapter_error err;
	struct adapter *a = NULL;
	struct worker *w = NULL;
	struct worker_opts wo = { .window_ns = MSs(300), .max_windows = 1 };
	enum status st, seen = STATUS_OK;
	int wfd1, wfd2;
	pid_t first, second;

	snprintf(saved, sizeof(saved), "%s", old ? old : "");
	tu_mkdtemp(dir, sizeof(dir));
	snprintf(sub, sizeof(sub), "%s/asynctop", dir);
	ck_assert_int_eq(mkdir(sub, 0700), 0);
	ck_assert_int_eq(setenv("XDG_RUNTIME_DIR", dir, 1), 0);
	first = listening_child(sub, &wfd1);
	adapter_config_default(&cfg);
	cfg.reply_timeout_ns = MSs(300);
	st = adapter_open(&asyncio_ops, NULL, 0, &cfg, &err, &a);
	close(wfd1);
	ck_assert_int_eq(waitpid(first, NULL, 0), first);
	if (st != STATUS_OK) {
		ck_assert_int_eq(st, STATUS_INVAL);
		tu_skip("asyncio_rediscovery",
		        "other live agents of this user are listed");
	} else {
		bool done = false;

		second = listening_child(sub, &wfd2);
		ck_assert_int_eq(worker_start(a, &wo, &w), STATUS_OK);
		while (!done) {
			struct worker_msg *msg = NULL;
			struct pollfd p = { worker_fd(w), POLLIN, 0 };

			ck_assert_int_gt(poll(&p, 1, 30000), 0);
			while (worker_read(w, &msg) == STATUS_OK) {
				if (msg->kind == WORKER_ERROR &&
				    seen == STATUS_OK)
					seen = msg->err.st;
				done |= msg->kind == WORKER_DONE;
				worker_msg_free(msg);
			}
		}
		worker_free(w);
		adapter_close(a);
		close(wfd2);
		ck_assert_int_eq(waitpid(second, NULL, 0), second);
		ck_assert_msg(
		    seen == STATUS_TIMEOUT,
		    "the attempt ended with %s, not a timeout of the new agent",
		    status_str(seen));
	}
	if (old)
		setenv("XDG_RUNTIME_DIR", saved, 1);
	else
		unsetenv("XDG_RUNTIME_DIR");
	tu_rmtree(dir);
}
END_TEST

Suite *suite_asyncio_endpoint(void);
Suite *suite_asyncio_endpoint(void)
{
	Suite *s = suite_create("asyncio_endpoint");
	TCase *t = tcase_create("endpoint");

	tcase_add_test(t, endpoint_parse_path);
	tcase_add_test(t, endpoint_parse_pid);
	tcase_add_test(t, endpoint_dirs);
	tcase_add_test(t, endpoint_list_live);
	tcase_add_test(t, endpoint_format_list);
	tcase_add_test(t, endpoint_connect_rules);
	tcase_add_test(t, asyncio_discovery);
	tcase_add_test(t, asyncio_rediscovery);
	suite_add_tcase(s, t);
	return s;
}
