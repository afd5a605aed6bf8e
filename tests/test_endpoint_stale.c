/* Sockets left by asyncio agents killed by a signal, a forked child's whose
 * atexit handler never ran: discovery removes the socket of a pid that no
 * longer exists when it and its directory are ours, and leaves every other
 * one alone; a launched program's forks put theirs in the launch directory,
 * which goes with everything in it once asynctop ends. */
#include <check.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "adapters/asyncio_endpoint.h"
#include "model/alloc.h"
#include "tests/launch_util.h"
#include "tests/util.h"

/* A pid that was ours and is gone (reaped). */
static long dead_pid(void)
{
	pid_t pid = fork();
	int status;

	ck_assert_int_ge(pid, 0);
	if (pid == 0)
		_exit(0);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	return pid;
}

/* A socket file at dir/PID.sock that nobody listens on any more. */
static void left_socket(const char *dir, long pid, char *path, size_t size)
{
	struct sockaddr_un sa;
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	ck_assert_int_ge(fd, 0);
	snprintf(path, size, "%s/%ld.sock", dir, pid);
	memset(&sa, 0, sizeof(sa));
	sa.sun_family = AF_UNIX;
	ck_assert_uint_lt(strlen(path), sizeof(sa.sun_path));
	memcpy(sa.sun_path, path, strlen(path) + 1);
	ck_assert_int_eq(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	ck_assert_int_eq(listen(fd, 1), 0);
	close(fd);
}

static size_t listed(const char *dir)
{
	char dirs[1][ASYNCIO_PATH_MAX];
	struct asyncio_agent *a = NULL;
	size_t n = 0;

	snprintf(dirs[0], sizeof(dirs[0]), "%s", dir);
	ck_assert_int_eq(
	    asyncio_endpoint_list((const char(*)[ASYNCIO_PATH_MAX])dirs, 1,
	                          (long)getuid(), &a, &n),
	    STATUS_OK);
	mem_free(a);
	return n;
}

START_TEST(stale_socket_of_a_dead_pid_removed)
{
	char top[512], dir[600], open_dir[600], dead[700], live[700], file[700],
	    other[700];
	long gone = dead_pid();
	int fd;

	tu_mkdtemp(top, sizeof(top));
	snprintf(dir, sizeof(dir), "%s/a", top);
	snprintf(open_dir, sizeof(open_dir), "%s/b", top);
	ck_assert_int_eq(mkdir(dir, 0700), 0);
	ck_assert_int_eq(mkdir(open_dir, 0700), 0);
	ck_assert_int_eq(chmod(open_dir, 0777), 0);
	/* a dead pid's socket in our private directory: removed */
	left_socket(dir, gone, dead, sizeof(dead));
	/* a live pid's that refuses connections: it may be between bind and
	 * listen, so it stays */
	left_socket(dir, (long)getpid(), live, sizeof(live));
	/* a dead pid's socket where anyone may write: not ours to judge */
	left_socket(open_dir, gone, other, sizeof(other));
	ck_assert_uint_eq(listed(dir), 0);
	ck_assert_uint_eq(listed(open_dir), 0);
	ck_assert_int_ne(access(dead, F_OK), 0);
	ck_assert_int_eq(access(live, F_OK), 0);
	ck_assert_int_eq(access(other, F_OK), 0);
	/* a file that is not a socket under the dead pid's name: stays */
	snprintf(file, sizeof(file), "%s/%ld.sock", dir, gone);
	fd = open(file, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
	ck_assert_int_ge(fd, 0);
	close(fd);
	ck_assert_uint_eq(listed(dir), 0);
	ck_assert_int_eq(access(file, F_OK), 0);
	tu_rmtree(dir);
	tu_rmtree(open_dir);
	tu_rmtree(top);
}
END_TEST

/* A launched program's fork, killed by a signal with its group once the
 * program is ended: its socket was in the launch directory, which is
 * gone. */
START_TEST(stale_fork_socket_goes_with_the_launch_dir)
{
	char app[4200];
	const char *cmd[] = { "python3", app, NULL };
	struct lu_run r;
	long fork_pid;
	int status;

	lu_data(app, sizeof(app), "forks.py");
	if (!lu_record(&r, "stale_fork_socket_goes_with_the_launch_dir", cmd,
	               NULL))
		return;
	lu_assert_exit_ok(&r);
	fork_pid = lu_event_pid(&r, "listed");
	ck_assert_int_gt(fork_pid, 0);
	status = lu_reap(fork_pid);
	ck_assert(WIFSIGNALED(status));
	lu_assert_no_launch_dir(&r);
	lu_fini(&r);
}
END_TEST

Suite *suite_endpoint_stale(void);
Suite *suite_endpoint_stale(void)
{
	Suite *s = suite_create("endpoint_stale");
	TCase *tc = tcase_create("stale");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, stale_socket_of_a_dead_pid_removed);
	tcase_add_test(tc, stale_fork_socket_goes_with_the_launch_dir);
	suite_add_tcase(s, tc);
	return s;
}
