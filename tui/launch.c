/* Launching a program with the asyncio agent injected: the environment, the
 * private rendezvous directory, posix_spawn, waiting for the announcement,
 * and ending the program's process group. */
#include "tui/launch.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "model/alloc.h"

#ifndef ASYNCTOP_PREFIX
#define ASYNCTOP_PREFIX "/usr/local"
#endif

extern char **environ;

#define RENDEZVOUS_ENV "ASYNCTOP_RENDEZVOUS"
#define POLL_MS        20
#define TAIL_BYTES     2048

static uint64_t mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

static bool is_file(const char *path)
{
	struct stat sb;

	return stat(path, &sb) == 0 && S_ISREG(sb.st_mode);
}

/* dir holds the agent and the launcher's sitecustomize. */
static bool has_agent(const char *dir)
{
	char p[LAUNCH_PATH_MAX + 64];

	snprintf(p, sizeof(p), "%s/asynctop_agent/__init__.py", dir);
	if (!is_file(p))
		return false;
	snprintf(p, sizeof(p), "%s/launch/sitecustomize.py", dir);
	return is_file(p);
}

enum status launch_agent_dir(char *dst, size_t size, char *err, size_t errsz)
{
	const char *env = getenv("ASYNCTOP_AGENT_PATH");
	char exe[LAUNCH_PATH_MAX], cand[LAUNCH_PATH_MAX + 64];
	ssize_t n;

	if (env && *env) {
		if (has_agent(env) &&
		    (size_t)snprintf(dst, size, "%s", env) < size)
			return STATUS_OK;
		return status_errf(
		    err, errsz, STATUS_UNREACHABLE,
		    "ASYNCTOP_AGENT_PATH=%s holds no "
		    "asynctop_agent/ and launch/sitecustomize.py",
		    env);
	}
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n > 0) {
		exe[n] = '\0';
		/* build/asynctop, build/san/asynctop, build/bench/asynctop */
		for (int up = 1; up <= 3; up++) {
			char *slash = strrchr(exe, '/');

			if (!slash || slash == exe)
				break;
			*slash = '\0';
			snprintf(cand, sizeof(cand), "%s/adapters/asyncio",
			         exe);
			if (has_agent(cand) &&
			    (size_t)snprintf(dst, size, "%s", cand) < size)
				return STATUS_OK;
		}
	}
	snprintf(cand, sizeof(cand), "%s/share/asynctop/python",
	         ASYNCTOP_PREFIX);
	if (has_agent(cand) && (size_t)snprintf(dst, size, "%s", cand) < size)
		return STATUS_OK;
	return status_errf(err, errsz, STATUS_UNREACHABLE,
	                   "cannot find the asynctop Python agent (looked "
	                   "next to the binary and in %s); reinstall, or set "
	                   "ASYNCTOP_AGENT_PATH to the directory holding "
	                   "asynctop_agent/",
	                   cand);
}

uint64_t launch_timeout_ns(void)
{
	const char *s = getenv("ASYNCTOP_ANNOUNCE_TIMEOUT");
	char *end;
	double v;

	if (!s || !*s)
		return LAUNCH_TIMEOUT_NS;
	errno = 0;
	v = strtod(s, &end);
	if (errno || *end || !(v >= 0.1 && v <= 3600.0))
		return LAUNCH_TIMEOUT_NS;
	return (uint64_t)(v * 1e9);
}

static void name_command(struct launch *l, char *const *argv)
{
	size_t used = 0;

	l->name[0] = '\0';
	for (size_t i = 0; argv[i] && used + 1 < sizeof(l->name); i++) {
		int w = snprintf(l->name + used, sizeof(l->name) - used, "%s%s",
		                 i ? " " : "", argv[i]);
		if (w < 0)
			break;
		used = size_min(used + (size_t)w, sizeof(l->name) - 1);
	}
}

/* Our environment without PYTHONPATH and the rendezvous, plus both. */
static enum status make_env(const char *agent, const char *rendezvous,
                            char ***out, char **pypath, char **rv)
{
	const char *old = getenv("PYTHONPATH");
	size_t n = 0, k = 0, len;
	char **env;

	*out = NULL;
	*pypath = *rv = NULL;
	while (environ && environ[n])
		n++;
	env = mem_calloc(n + 3, sizeof(*env));
	if (!env)
		return STATUS_NOMEM;
	len = strlen(agent) * 2 + (old ? strlen(old) : 0) + 64;
	*pypath = mem_alloc(len);
	len = strlen(rendezvous) + sizeof(RENDEZVOUS_ENV) + 2;
	*rv = mem_alloc(len);
	if (!*pypath || !*rv) {
		mem_free(env);
		mem_free(*pypath);
		mem_free(*rv);
		*pypath = *rv = NULL;
		return STATUS_NOMEM;
	}
	snprintf(*pypath, strlen(agent) * 2 + (old ? strlen(old) : 0) + 64,
	         "PYTHONPATH=%s/launch:%s%s%s", agent, agent,
	         old && *old ? ":" : "", old && *old ? old : "");
	snprintf(*rv, len, "%s=%s", RENDEZVOUS_ENV, rendezvous);
	for (size_t i = 0; i < n; i++) {
		if (!strncmp(environ[i], "PYTHONPATH=", 11) ||
		    !strncmp(environ[i], RENDEZVOUS_ENV "=",
		             sizeof(RENDEZVOUS_ENV)))
			continue;
		env[k++] = environ[i];
	}
	env[k++] = *pypath;
	env[k++] = *rv;
	env[k] = NULL;
	*out = env;
	return STATUS_OK;
}

static enum status make_dir(struct launch *l, char *err, size_t errsz)
{
	const char *tmp = getenv("TMPDIR");
	int n;

	if (!tmp || tmp[0] != '/')
		tmp = "/tmp";
	n = snprintf(l->dir, sizeof(l->dir), "%s/asynctop-launch-XXXXXX", tmp);
	if (n < 0 || (size_t)n >= sizeof(l->dir) || !mkdtemp(l->dir)) {
		int e =
		    n < 0 || (size_t)n >= sizeof(l->dir) ? ENAMETOOLONG : errno;
		l->dir[0] = '\0';
		return status_errf(err, errsz, STATUS_INVAL,
		                   "cannot make a private directory in %s: %s",
		                   tmp, strerror(e));
	}
	snprintf(l->rendezvous, sizeof(l->rendezvous), "%s/announce", l->dir);
	if (l->output == LAUNCH_OUTPUT_LOG)
		snprintf(l->log, sizeof(l->log), "%s/output.log", l->dir);
	return STATUS_OK;
}

static enum status spawn(struct launch *l, char *const *argv, char **env,
                         int logfd, char *err, size_t errsz)
{
	static const int reset[] = { SIGINT,  SIGTERM, SIGHUP,  SIGPIPE,
		                     SIGQUIT, SIGCHLD, SIGWINCH };
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t at;
	sigset_t none, def;
	int r;

	sigemptyset(&none);
	sigemptyset(&def);
	for (size_t i = 0; i < ARRAY_SIZE(reset); i++)
		sigaddset(&def, reset[i]);
	if (posix_spawn_file_actions_init(&fa))
		return STATUS_NOMEM;
	if (posix_spawnattr_init(&at)) {
		posix_spawn_file_actions_destroy(&fa);
		return STATUS_NOMEM;
	}
	r = posix_spawn_file_actions_addopen(&fa, STDIN_FILENO, "/dev/null",
	                                     O_RDONLY, 0);
	if (!r && logfd >= 0)
		r = posix_spawn_file_actions_adddup2(&fa, logfd, STDOUT_FILENO);
	if (!r && logfd >= 0)
		r = posix_spawn_file_actions_adddup2(&fa, logfd, STDERR_FILENO);
	if (!r && logfd < 0)
		r = posix_spawn_file_actions_adddup2(&fa, STDERR_FILENO,
		                                     STDOUT_FILENO);
	if (!r)
		r = posix_spawnattr_setflags(&at, POSIX_SPAWN_SETPGROUP |
		                                      POSIX_SPAWN_SETSIGMASK |
		                                      POSIX_SPAWN_SETSIGDEF);
	if (!r)
		r = posix_spawnattr_setpgroup(&at, 0);
	if (!r)
		r = posix_spawnattr_setsigmask(&at, &none);
	if (!r)
		r = posix_spawnattr_setsigdefault(&at, &def);
	if (!r)
		r = posix_spawnp(&l->pid, argv[0], &fa, &at, argv, env);
	posix_spawnattr_destroy(&at);
	posix_spawn_file_actions_destroy(&fa);
	if (r) {
		l->pid = 0;
		return status_errf(err, errsz, STATUS_INVAL,
		                   "cannot start %s: %s", argv[0], strerror(r));
	}
	return STATUS_OK;
}

enum status launch_start(struct launch *l, char *const *argv,
                         enum launch_output out, char *err, size_t errsz)
{
	char agent[LAUNCH_PATH_MAX];
	char **env = NULL, *pypath = NULL, *rv = NULL;
	int logfd = -1;
	enum status st;

	memset(l, 0, sizeof(*l));
	l->output = out;
	if (!argv || !argv[0] || !argv[0][0])
		return status_errf(err, errsz, STATUS_INVAL,
		                   "no COMMAND to run after '--'");
	name_command(l, argv);
	st = launch_agent_dir(agent, sizeof(agent), err, errsz);
	if (st != STATUS_OK)
		return STATUS_INVAL;
	st = make_dir(l, err, errsz);
	if (st != STATUS_OK)
		return st;
	if (out == LAUNCH_OUTPUT_LOG) {
		logfd = open(l->log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
		             0600);
		if (logfd < 0) {
			st = status_errf(err, errsz, STATUS_INVAL,
			                 "cannot create %s: %s", l->log,
			                 strerror(errno));
			l->log[0] = '\0';
			launch_end(l, false);
			return st;
		}
	}
	st = make_env(agent, l->rendezvous, &env, &pypath, &rv);
	if (st == STATUS_OK)
		st = spawn(l, argv, env, logfd, err, errsz);
	if (logfd >= 0)
		close(logfd);
	mem_free(env);
	mem_free(pypath);
	mem_free(rv);
	if (st != STATUS_OK) {
		if (l->log[0])
			unlink(l->log);
		l->log[0] = '\0';
		launch_end(l, false);
	}
	return st;
}

/* Reads up to size - 1 bytes of path from offset (negative: from the end),
 * NUL-terminated; the length, or -1. */
static ssize_t read_part(const char *path, off_t from_end, char *dst,
                         size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t got = 0;

	if (fd < 0)
		return -1;
	if (from_end > 0) {
		off_t end = lseek(fd, 0, SEEK_END);

		lseek(fd, end > from_end ? end - from_end : 0, SEEK_SET);
	}
	while (got + 1 < size) {
		ssize_t r = read(fd, dst + got, size - 1 - got);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		got += (size_t)r;
	}
	close(fd);
	dst[got] = '\0';
	return (ssize_t)got;
}

/* Parses the announcement lines "PID PATH\n"; calls back for each whole
 * line with a valid pid.  Returns how many there were. */
static size_t each_pid(const struct launch *l, long *pids, size_t max,
                       size_t skip)
{
	char text[8192];
	size_t n = 0;
	char *p, *nl;

	if (!l->rendezvous[0] ||
	    read_part(l->rendezvous, 0, text, sizeof(text)) <= 0)
		return 0;
	for (p = text; (nl = strchr(p, '\n')) != NULL; p = nl + 1) {
		char *end;
		long pid;

		*nl = '\0';
		errno = 0;
		pid = strtol(p, &end, 10);
		if (errno || pid <= 0 || *end != ' ')
			continue;
		if (n >= skip && n - skip < max)
			pids[n - skip] = pid;
		n++;
	}
	return n;
}

size_t launch_others(const struct launch *l, long *pids, size_t max)
{
	size_t n = each_pid(l, pids, max, 1);

	return n ? n - 1 : 0;
}

bool launch_exited(struct launch *l)
{
	pid_t r;

	if (!l->pid || l->exited)
		return l->exited;
	do
		r = waitpid(l->pid, &l->wstatus, WNOHANG);
	while (r < 0 && errno == EINTR);
	if (r == l->pid || (r < 0 && errno == ECHILD))
		l->exited = true;
	return l->exited;
}

static void describe_end(const struct launch *l, char *dst, size_t size)
{
	if (WIFEXITED(l->wstatus))
		snprintf(dst, size, "exited with status %d",
		         WEXITSTATUS(l->wstatus));
	else if (WIFSIGNALED(l->wstatus))
		snprintf(dst, size, "was killed by signal %d (%s)",
		         WTERMSIG(l->wstatus), strsignal(WTERMSIG(l->wstatus)));
	else
		snprintf(dst, size, "ended");
}

/* Appends the tail of the log (the last lines of TAIL_BYTES) to err. */
static void add_tail(const struct launch *l, char *err, size_t errsz)
{
	char tail[TAIL_BYTES + 1];
	const char *start = tail;
	size_t used = strlen(err);
	ssize_t n;

	if (l->output != LAUNCH_OUTPUT_LOG) {
		snprintf(err + used, errsz - used,
		         "\n(its output, if any, is above)");
		return;
	}
	n = read_part(l->log, TAIL_BYTES, tail, sizeof(tail));
	if (n <= 0) {
		snprintf(err + used, errsz - used, "\n(it printed nothing; %s)",
		         l->log);
		return;
	}
	if (n == TAIL_BYTES) { /* cut: start at a whole line */
		const char *nl = strchr(tail, '\n');
		if (nl && nl[1])
			start = nl + 1;
	}
	while (n > 0 && tail[n - 1] == '\n')
		tail[--n] = '\0';
	snprintf(err + used, errsz - used, "\nthe end of its output (%s):\n%s",
	         l->log, start);
}

enum status launch_wait(struct launch *l, uint64_t timeout_ns, int stop_fd,
                        char *err, size_t errsz)
{
	uint64_t deadline = mono_ms() + timeout_ns / 1000000u;
	char how[128];

	for (;;) {
		long pid;
		struct pollfd p = { stop_fd, POLLIN, 0 };
		bool gone = launch_exited(l);

		/* an announcement counts even from a program that is gone:
		 * the agent serves a final snapshot */
		if (each_pid(l, &pid, 1, 0) > 0) {
			l->agent_pid = pid;
			snprintf(l->endpoint, sizeof(l->endpoint), "%ld", pid);
			return STATUS_OK;
		}
		if (gone) {
			describe_end(l, how, sizeof(how));
			snprintf(err, errsz,
			         "%s %s before it started asyncio: asynctop "
			         "attaches when the program creates its first "
			         "asyncio task (a Python 3.11+ program run by "
			         "an interpreter that honours PYTHONPATH, not "
			         "-I or -E)",
			         l->name, how);
			add_tail(l, err, errsz);
			return STATUS_UNREACHABLE;
		}
		if (mono_ms() >= deadline) {
			snprintf(err, errsz,
			         "%s (pid %ld) did not start asyncio within "
			         "%gs: asynctop attaches when the program "
			         "creates its first asyncio task (is it an "
			         "asyncio program, run by python3 without -I "
			         "or -E?)",
			         l->name, (long)l->pid,
			         (double)timeout_ns / 1e9);
			add_tail(l, err, errsz);
			return STATUS_TIMEOUT;
		}
		if (poll(&p, stop_fd >= 0 ? 1 : 0, POLL_MS) > 0 &&
		    (p.revents & POLLIN))
			return STATUS_STOPPED;
	}
}

void launch_end(struct launch *l, bool keep)
{
	if (l->pid && !keep && !launch_exited(l)) {
		uint64_t deadline = mono_ms() + LAUNCH_TERM_GRACE_MS;

		kill(-l->pid, SIGTERM);
		while (!launch_exited(l) && mono_ms() < deadline)
			poll(NULL, 0, POLL_MS);
		/* the group too: a fork must not outlive the program */
		kill(-l->pid, SIGKILL);
		if (!l->exited) {
			while (waitpid(l->pid, &l->wstatus, 0) < 0 &&
			       errno == EINTR) {
			}
			l->exited = true;
		}
	}
	if (l->rendezvous[0])
		unlink(l->rendezvous);
	if (l->dir[0] && !l->log[0])
		rmdir(l->dir);
	l->rendezvous[0] = '\0';
	l->pid = keep ? l->pid : 0;
}
