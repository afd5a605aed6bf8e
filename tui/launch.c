/* Launching a program: the private directory, posix_spawn in its own
 * process group with the plan's environment, its output, and ending its
 * process group.  Runtime-specific preparation is the adapter's. */
#include "tui/launch.h"

#include <dirent.h>
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
#include "model/fileio.h"

extern char **environ;

#define POLL_MS 20

/* Signal names for "was killed by SIGSEGV"; others are given by number. */
#define SIGNAL_NAME_LIST(X) \
	X(SIGHUP)           \
	X(SIGINT)           \
	X(SIGQUIT)          \
	X(SIGILL)           \
	X(SIGTRAP)          \
	X(SIGABRT)          \
	X(SIGBUS)           \
	X(SIGFPE)           \
	X(SIGKILL)          \
	X(SIGUSR1)          \
	X(SIGSEGV)          \
	X(SIGUSR2)          \
	X(SIGPIPE)          \
	X(SIGALRM)          \
	X(SIGTERM)          \
	X(SIGXCPU)          \
	X(SIGXFSZ)          \
	X(SIGSYS)

static const struct {
	int signo;
	const char *name;
} signal_names[] = {
#define SIGNAL_NAME_ROW(s) { s, #s },
	SIGNAL_NAME_LIST(SIGNAL_NAME_ROW)
#undef SIGNAL_NAME_ROW
};

static uint64_t mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

static const char *tmp_root(void)
{
	const char *tmp = getenv("TMPDIR");

	return tmp && tmp[0] == '/' ? tmp : "/tmp";
}

enum status launch_dir_make(char *dir, size_t size, char *err, size_t errsz)
{
	const char *tmp = tmp_root();
	int n = snprintf(dir, size, "%s/asynctop-launch-XXXXXX", tmp);

	if (n < 0 || (size_t)n >= size || !mkdtemp(dir)) {
		int e = n < 0 || (size_t)n >= size ? ENAMETOOLONG : errno;

		if (size)
			dir[0] = '\0';
		return status_errf(err, errsz, STATUS_INVAL,
		                   "cannot make a private directory in %s: %s",
		                   tmp, strerror(e));
	}
	return STATUS_OK;
}

/* Removes the entries of dir, descending depth levels more. */
static void remove_entries(const char *dir, int depth)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char p[LAUNCH_PATH_MAX + 256];

	if (!d)
		return;
	while ((e = readdir(d)) != NULL) {
		struct stat sb;

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		snprintf(p, sizeof(p), "%s/%s", dir, e->d_name);
		if (lstat(p, &sb) == 0 && S_ISDIR(sb.st_mode)) {
			if (depth > 0)
				remove_entries(p, depth - 1);
			rmdir(p);
		} else {
			unlink(p);
		}
	}
	closedir(d);
}

void launch_dir_remove(const char *dir)
{
	if (!dir || !dir[0])
		return;
	remove_entries(dir, 1);
	rmdir(dir);
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

/* True when entry ("NAME=VALUE") sets a name plan->env also sets. */
static bool replaced(const struct launch_plan *plan, const char *entry)
{
	const char *eq = strchr(entry, '=');
	size_t n = eq ? (size_t)(eq - entry) : strlen(entry);

	for (size_t i = 0; i < plan->nenv; i++)
		if (!strncmp(plan->env[i], entry, n) && plan->env[i][n] == '=')
			return true;
	return false;
}

/* Our environment with plan->env on top; the strings are borrowed. */
static enum status make_env(const struct launch_plan *plan, char ***out)
{
	size_t n = 0, k = 0;
	char **env;

	while (environ && environ[n])
		n++;
	env = mem_calloc(n + plan->nenv + 1, sizeof(*env));
	if (!env)
		return STATUS_NOMEM;
	for (size_t i = 0; i < n; i++)
		if (!replaced(plan, environ[i]))
			env[k++] = environ[i];
	for (size_t i = 0; i < plan->nenv; i++)
		env[k++] = plan->env[i];
	env[k] = NULL;
	*out = env;
	return STATUS_OK;
}

static enum status spawn(struct launch *l, char *const *argv, char **env,
                         int logfd, char *err, size_t errsz)
{
	static const int reset[] = { SIGINT,   SIGTERM, SIGHUP,
		                     SIGPIPE,  SIGQUIT, SIGCHLD,
		                     SIGWINCH, SIGTSTP, SIGCONT };
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

/* A new log file under the temporary directory; its descriptor or -1. */
static int open_log(struct launch *l, char *err, size_t errsz)
{
	int n = snprintf(l->log, sizeof(l->log), "%s/asynctop-output-XXXXXX",
	                 tmp_root());
	int fd = n > 0 && (size_t)n < sizeof(l->log) ? mkstemp(l->log) : -1;

	if (fd < 0) {
		status_errf(err, errsz, STATUS_INVAL,
		            "cannot create a log file in %s: %s", tmp_root(),
		            strerror(errno));
		l->log[0] = '\0';
		return -1;
	}
	fcntl(fd, F_SETFD, FD_CLOEXEC);
	return fd;
}

enum status launch_start(struct launch *l, char *const *argv,
                         const struct launch_plan *plan, enum launch_output out,
                         char *err, size_t errsz)
{
	char **env = NULL;
	int logfd = -1;
	enum status st;

	memset(l, 0, sizeof(*l));
	l->output = out;
	if (!argv || !argv[0] || !argv[0][0])
		return status_errf(err, errsz, STATUS_INVAL,
		                   "no COMMAND to run after '--'");
	name_command(l, argv);
	if (out == LAUNCH_OUTPUT_LOG) {
		logfd = open_log(l, err, errsz);
		if (logfd < 0)
			return STATUS_INVAL;
	}
	st = make_env(plan, &env);
	if (st == STATUS_OK)
		st = spawn(l, argv, env, logfd, err, errsz);
	if (logfd >= 0)
		close(logfd);
	mem_free(env);
	if (st != STATUS_OK && l->log[0]) {
		unlink(l->log);
		l->log[0] = '\0';
	}
	return st;
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

void launch_describe_end(const struct launch *l, char *dst, size_t size)
{
	const char *name = NULL;
	int sig;

	if (WIFEXITED(l->wstatus)) {
		snprintf(dst, size, "exited with status %d",
		         WEXITSTATUS(l->wstatus));
		return;
	}
	if (!WIFSIGNALED(l->wstatus)) {
		snprintf(dst, size, "ended");
		return;
	}
	sig = WTERMSIG(l->wstatus);
	for (size_t i = 0; i < ARRAY_SIZE(signal_names); i++)
		if (signal_names[i].signo == sig)
			name = signal_names[i].name;
	if (name)
		snprintf(dst, size, "was killed by %s", name);
	else
		snprintf(dst, size, "was killed by signal %d", sig);
}

void launch_add_tail(const struct launch *l, char *err, size_t errsz)
{
	char tail[LAUNCH_TAIL_BYTES + 1];
	const char *start = tail;
	size_t used = strlen(err);
	ssize_t n;

	if (l->output != LAUNCH_OUTPUT_LOG || !l->log[0]) {
		snprintf(err + used, errsz - used,
		         "\n(its output, if any, is above)");
		return;
	}
	n = file_read_tail(l->log, tail, sizeof(tail));
	if (n <= 0) {
		snprintf(err + used, errsz - used, "\n(it printed nothing; %s)",
		         l->log);
		return;
	}
	if (n == LAUNCH_TAIL_BYTES) { /* cut: start at a whole line */
		const char *nl = strchr(tail, '\n');
		if (nl && nl[1])
			start = nl + 1;
	}
	while (n > 0 && tail[n - 1] == '\n')
		tail[--n] = '\0';
	snprintf(err + used, errsz - used, "\nthe end of its output (%s):\n%s",
	         l->log, start);
}

void launch_end(struct launch *l, bool keep)
{
	if (l->pid && !keep && !launch_exited(l)) {
		uint64_t deadline = mono_ms() + LAUNCH_TERM_GRACE_MS;

		kill(-l->pid, SIGTERM);
		/* a stopped group (^Z) gets the TERM only once running */
		kill(-l->pid, SIGCONT);
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
	l->pid = keep ? l->pid : 0;
}
