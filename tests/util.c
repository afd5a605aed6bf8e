/* Shared test helpers. */
#include "tests/util.h"

#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "model/alloc.h"

void tu_mkdtemp(char *dir, size_t size)
{
	const char *tmp = getenv("TMPDIR");
	int n;

	if (!tmp || !*tmp)
		tmp = "/tmp";
	n = snprintf(dir, size, "%s/asynctop-test-XXXXXX", tmp);
	ck_assert_int_gt(n, 0);
	ck_assert_uint_lt((size_t)n, size);
	ck_assert_msg(mkdtemp(dir) != NULL, "mkdtemp: %s", strerror(errno));
}

void tu_rmtree(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char path[4096];

	if (!d)
		return;
	while ((e = readdir(d)) != NULL) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		unlink(path);
	}
	closedir(d);
	rmdir(dir);
}

enum status tu_read_file(const char *path, struct buf *b)
{
	char chunk[65536];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return STATUS_IO;
	while ((n = read(fd, chunk, sizeof(chunk))) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			close(fd);
			return STATUS_IO;
		}
		if (buf_add(b, chunk, (size_t)n) != STATUS_OK) {
			close(fd);
			return buf_status(b);
		}
	}
	close(fd);
	return STATUS_OK;
}

enum status tu_write_file(const char *path, const void *data, size_t len)
{
	const char *p = data;
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

	if (fd < 0)
		return STATUS_IO;
	while (len) {
		ssize_t n = write(fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			close(fd);
			return STATUS_IO;
		}
		p += n;
		len -= (size_t)n;
	}
	return close(fd) == 0 ? STATUS_OK : STATUS_IO;
}

void tu_data_path(char *dst, size_t size, const char *name)
{
	const char *dir = getenv("ASYNCTOP_TESTDATA");

	snprintf(dst, size, "%s/%s", dir && *dir ? dir : "tests/data", name);
}

unsigned long tu_torture(tu_torture_fn fn, void *ctx)
{
	unsigned long total, i, nomem = 0;
	enum status st;

	mem_count_reset();
	st = fn(ctx);
	total = mem_count();
	ck_assert_msg(st == STATUS_OK, "clean run failed: %s", status_str(st));
	for (i = 1; i <= total; i++) {
		mem_count_reset();
		mem_fail_at(i);
		st = fn(ctx);
		mem_fail_at(0);
		ck_assert_msg(st == STATUS_OK || st == STATUS_NOMEM,
		              "allocation %lu of %lu failed: got %s", i, total,
		              status_name(st));
		if (st == STATUS_NOMEM)
			nomem++;
	}
	ck_assert_msg(total == 0 || nomem > 0,
	              "no run reported the injected failure");
	mem_count_reset();
	return total;
}

int tu_count_entries(const char *dir, const char *except)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	ck_assert_ptr_nonnull(d);
	while ((e = readdir(d)) != NULL)
		n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..") &&
		     (!except || strcmp(e->d_name, except));
	closedir(d);
	return n;
}

void tu_skip(const char *test, const char *why)
{
	fprintf(stderr, "SKIP %s: %s\n", test, why);
}

int tu_fifo_open(const char *path)
{
	int fd;

	ck_assert_int_eq(mkfifo(path, 0600), 0);
	fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	ck_assert_int_ge(fd, 0);
	return fd;
}

bool tu_read_until(int fd, struct buf *seen, tu_seen_fn done, const void *ctx,
                   int limit_s)
{
	for (;;) {
		struct pollfd p = { fd, POLLIN, 0 };
		const char *text = buf_cstr(seen);
		char chunk[512];
		ssize_t k;

		ck_assert_ptr_nonnull(text);
		if (done(text, ctx))
			return true;
		if (poll(&p, 1, limit_s * 1000) <= 0)
			return false;
		k = read(fd, chunk, sizeof(chunk));
		if (k < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (k <= 0)
			return false;
		buf_add(seen, chunk, (size_t)k);
	}
}

char tu_proc_state(long pid)
{
	char path[64];
	struct buf b;
	const char *text, *close;
	char st = 0;

	snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
	buf_init(&b);
	if (tu_read_file(path, &b) == STATUS_OK && (text = buf_cstr(&b))) {
		/* the name in parentheses may hold any byte: the last ')' */
		close = strrchr(text, ')');
		if (close && close[1] == ' ')
			st = close[2];
	}
	buf_fini(&b);
	return st;
}

/* ---- child processes ---------------------------------------------------- */

void tu_run_init(struct tu_run *r)
{
	memset(r, 0, sizeof(*r));
	buf_init(&r->out);
	buf_init(&r->err);
	r->out_fd = r->err_fd = -1;
}

static void close_captures(struct tu_run *r)
{
	if (r->out_fd >= 0)
		close(r->out_fd);
	if (r->err_fd >= 0)
		close(r->err_fd);
	r->out_fd = r->err_fd = -1;
}

static void kill_group(pid_t pid)
{
	kill(-pid, SIGKILL);
	kill(pid, SIGKILL); /* should it not have its own group yet */
}

void tu_run_fini(struct tu_run *r)
{
	if (r->pid > 0) {
		kill_group(r->pid);
		while (waitpid(r->pid, NULL, 0) < 0 && errno == EINTR)
			;
		r->pid = 0;
	}
	close_captures(r);
	buf_fini(&r->out);
	buf_fini(&r->err);
}

/* An unlinked temporary file for one of the child's streams. */
static int capture_fd(void)
{
	const char *tmp = getenv("TMPDIR");
	char path[4096];
	int fd, n;

	if (!tmp || !*tmp)
		tmp = "/tmp";
	n = snprintf(path, sizeof(path), "%s/asynctop-run-XXXXXX", tmp);
	ck_assert(n > 0 && (size_t)n < sizeof(path));
	fd = mkstemp(path);
	ck_assert_msg(fd >= 0, "mkstemp %s: %s", path, strerror(errno));
	unlink(path);
	ck_assert_int_eq(fcntl(fd, F_SETFD, FD_CLOEXEC), 0);
	return fd;
}

/* In the child: reports on its stderr why it cannot go on, and exits. */
static _Noreturn void child_fail(const char *what, const char *arg)
{
	dprintf(2, "tu_run: %s %s: %s\n", what, arg, strerror(errno));
	_exit(125);
}

static void child_setup(const struct tu_run *r, const struct tu_proc *p)
{
	char name[256];
	sigset_t none;
	int fd;

	setpgid(0, 0);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	fd = open("/dev/null", O_RDONLY);
	if (fd < 0 || dup2(fd, 0) < 0)
		child_fail("stdin", "/dev/null");
	if (dup2(r->out_fd, 1) < 0 || dup2(r->err_fd, 2) < 0)
		child_fail("capture", "stdout/stderr");
	if (p->dir && chdir(p->dir) < 0)
		child_fail("chdir", p->dir);
	for (size_t i = 0; p->env_unset && p->env_unset[i]; i++)
		if (unsetenv(p->env_unset[i]) < 0)
			child_fail("unsetenv", p->env_unset[i]);
	for (size_t i = 0; p->env_set && p->env_set[i]; i++) {
		const char *kv = p->env_set[i];
		size_t n = strcspn(kv, "=");

		errno = EINVAL;
		if (kv[n] == '=' && n > 0 && n < sizeof(name)) {
			memcpy(name, kv, n);
			name[n] = '\0';
			if (setenv(name, kv + n + 1, 1) == 0)
				continue;
		}
		child_fail("setenv", kv);
	}
	/* A backstop for a child whose test died before waiting for it. */
	alarm((unsigned)(r->timeout_ms / 1000) + 2);
}

void tu_run_start_fn(struct tu_run *r, const struct tu_proc *p,
                     const char *what, int (*fn)(void *ctx), void *ctx)
{
	static const struct tu_proc none;
	pid_t pid;

	ck_assert_msg(r->pid == 0, "tu_run: %s is still running", r->what);
	if (!p)
		p = &none;
	snprintf(r->what, sizeof(r->what), "%s", what);
	buf_reset(&r->out);
	buf_reset(&r->err);
	r->status = 0;
	r->code = -1;
	r->timeout_ms = p->timeout_ms > 0 ? p->timeout_ms : TU_RUN_TIMEOUT_MS;
	close_captures(r);
	r->out_fd = capture_fd();
	r->err_fd = capture_fd();
	ck_assert_int_eq(clock_gettime(CLOCK_MONOTONIC, &r->deadline), 0);
	r->deadline.tv_sec += r->timeout_ms / 1000;
	r->deadline.tv_nsec += (long)(r->timeout_ms % 1000) * 1000000L;
	if (r->deadline.tv_nsec >= 1000000000L) {
		r->deadline.tv_sec++;
		r->deadline.tv_nsec -= 1000000000L;
	}
	fflush(NULL);
	pid = fork();
	ck_assert_msg(pid >= 0, "fork: %s", strerror(errno));
	if (pid == 0) {
		int code;

		child_setup(r, p);
		code = fn(ctx);
		fflush(NULL);
		_exit(code);
	}
	/* also here, so the group exists whichever side runs first */
	setpgid(pid, pid);
	r->pid = pid;
}

enum { TU_ARGS_MAX = 64 };

static int exec_argv(void *ctx)
{
	const char *const *argv = *(const char *const *const *)ctx;
	char *args[TU_ARGS_MAX];
	size_t n;

	for (n = 0; argv[n]; n++)
		args[n] = (char *)(uintptr_t)argv[n]; /* execvp's type */
	args[n] = NULL;
	execvp(args[0], args);
	dprintf(2, "tu_run: cannot run %s: %s\n", args[0], strerror(errno));
	return 127;
}

void tu_run_start(struct tu_run *r, const struct tu_proc *p,
                  const char *const *argv)
{
	char what[sizeof(r->what)];
	size_t n, used = 0;

	ck_assert_ptr_nonnull(argv[0]);
	for (n = 0; argv[n]; n++) {
		int k = snprintf(what + used, sizeof(what) - used, "%s%s",
		                 n ? " " : "", argv[n]);
		if (k > 0 && used + (size_t)k < sizeof(what))
			used += (size_t)k;
		else
			used = sizeof(what) - 1;
	}
	ck_assert_uint_lt(n, TU_ARGS_MAX);
	tu_run_start_fn(r, p, what, exec_argv, &argv);
}

/* Kills the child's process group at the deadline unless told it ended. */
struct watchdog {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct timespec deadline;
	pid_t pid;
	bool ended, fired;
};

static void *watchdog_run(void *arg)
{
	struct watchdog *w = arg;

	pthread_mutex_lock(&w->mu);
	while (!w->ended && !w->fired)
		if (pthread_cond_timedwait(&w->cv, &w->mu, &w->deadline) ==
		        ETIMEDOUT &&
		    !w->ended) {
			kill_group(w->pid);
			w->fired = true;
		}
	pthread_mutex_unlock(&w->mu);
	return NULL;
}

/* The whole capture in fd into b, as a C string. */
static void read_capture(int fd, struct buf *b)
{
	char chunk[65536];
	off_t at = 0;

	for (;;) {
		ssize_t n = pread(fd, chunk, sizeof(chunk), at);

		if (n < 0 && errno == EINTR)
			continue;
		ck_assert_msg(n >= 0, "reading a capture: %s", strerror(errno));
		if (n == 0)
			break;
		buf_add(b, chunk, (size_t)n);
		at += n;
	}
	ck_assert_int_eq(buf_reserve(b, 1), STATUS_OK);
	b->data[b->len] = '\0';
}

void tu_run_wait(struct tu_run *r)
{
	struct watchdog w;
	pthread_condattr_t ca;
	pthread_t t;
	siginfo_t si;
	int e, waited;

	ck_assert_msg(r->pid > 0, "tu_run_wait: nothing was started");
	memset(&w, 0, sizeof(w));
	w.deadline = r->deadline;
	w.pid = r->pid;
	pthread_mutex_init(&w.mu, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&w.cv, &ca);
	pthread_condattr_destroy(&ca);
	ck_assert_int_eq(pthread_create(&t, NULL, watchdog_run, &w), 0);
	/* Left unreaped (WNOWAIT), so its pid and group cannot be reused
	 * before the watchdog is told. */
	while ((waited = waitid(P_PID, (id_t)r->pid, &si, WEXITED | WNOWAIT)) <
	           0 &&
	       errno == EINTR)
		;
	e = errno;
	pthread_mutex_lock(&w.mu);
	w.ended = true;
	pthread_cond_signal(&w.cv);
	pthread_mutex_unlock(&w.mu);
	pthread_join(t, NULL);
	pthread_cond_destroy(&w.cv);
	pthread_mutex_destroy(&w.mu);
	ck_assert_msg(waited == 0, "waitid %s: %s", r->what, strerror(e));
	while (waitpid(r->pid, &r->status, 0) < 0)
		ck_assert_msg(errno == EINTR, "waitpid: %s", strerror(errno));
	r->pid = 0;
	if (WIFEXITED(r->status))
		r->code = WEXITSTATUS(r->status);
	else if (WIFSIGNALED(r->status))
		r->code = 128 + WTERMSIG(r->status);
	read_capture(r->out_fd, &r->out);
	read_capture(r->err_fd, &r->err);
	close_captures(r);
	ck_assert_msg(!w.fired,
	              "%s: still running after %d ms, so its process group "
	              "was killed\n--- stdout:\n%.3000s\n--- stderr:\n%.3000s",
	              r->what, r->timeout_ms, r->out.data, r->err.data);
}

void tu_run(struct tu_run *r, const struct tu_proc *p, const char *const *argv)
{
	tu_run_start(r, p, argv);
	tu_run_wait(r);
}

int tu_listen_unix(const char *path)
{
	struct sockaddr_un sa;
	int fd = socket(AF_UNIX, SOCK_STREAM, 0);

	ck_assert_int_ge(fd, 0);
	memset(&sa, 0, sizeof(sa));
	sa.sun_family = AF_UNIX;
	ck_assert_uint_lt(strlen(path), sizeof(sa.sun_path));
	memcpy(sa.sun_path, path, strlen(path) + 1);
	ck_assert_msg(bind(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0,
	              "bind %s: %s", path, strerror(errno));
	ck_assert_int_eq(listen(fd, 8), 0);
	return fd;
}
