/* Finding an asyncio agent's socket (pid, path, or the only live agent) and
 * connecting to it.  The one file that defines _GNU_SOURCE, for SO_PEERCRED
 * and struct ucred (docs/design.md §13). */
#define _GNU_SOURCE
#include "adapters/asyncio_endpoint.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "model/alloc.h"
#include "model/fileio.h"

static bool all_digits(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (*s < '0' || *s > '9')
			return false;
	return true;
}

/* The real and effective uids of pid from /proc/PID/status; false when
 * there is no such process. */
static bool proc_uids(long pid, long *ruid, long *euid)
{
	char path[64], text[4096], *p, *end;

	snprintf(path, sizeof(path), "/proc/%ld/status", pid);
	if (file_read_head(path, text, sizeof(text)) < 0)
		return false;
	p = strstr(text, "\nUid:");
	if (!p)
		return false;
	errno = 0;
	*ruid = strtol(p + 5, &end, 10);
	*euid = strtol(end, NULL, 10);
	return errno == 0;
}

static bool proc_owned_by(long pid, long uid)
{
	long r, e;

	return proc_uids(pid, &r, &e) && (r == uid || e == uid);
}

/* The value of name in pid's environment, into dst; false if absent. */
static bool proc_env(long pid, const char *name, char *dst, size_t size)
{
	char path[64];
	size_t nl = strlen(name), got, i;
	ssize_t n;
	/* a bounded read of the environment */
	char *env = mem_alloc((size_t)1 << 20);
	bool found = false;

	if (!env)
		return false;
	snprintf(path, sizeof(path), "/proc/%ld/environ", pid);
	n = file_read_head(path, env, (size_t)1 << 20);
	if (n < 0) {
		mem_free(env);
		return false;
	}
	got = (size_t)n;
	for (i = 0; i < got; i += strlen(env + i) + 1) {
		if (!strncmp(env + i, name, nl) && env[i + nl] == '=') {
			/* the first definition counts, as for getenv; a
			 * value that does not fit is no value */
			found = (size_t)snprintf(dst, size, "%s",
			                         env + i + nl + 1) < size;
			break;
		}
	}
	mem_free(env);
	return found;
}

static bool add_path(struct asyncio_endpoint *ep, const char *dir, long pid)
{
	int n;

	if (ep->npaths >= ASYNCIO_CANDIDATES)
		return false;
	n = snprintf(ep->path[ep->npaths], ASYNCIO_PATH_MAX, "%s/%ld.sock", dir,
	             pid);
	if (n < 0 || n >= ASYNCIO_PATH_MAX)
		return false;
	ep->npaths++;
	return true;
}

enum status asyncio_endpoint_parse(const char *spec,
                                   struct asyncio_endpoint *ep, char *err,
                                   size_t errsz)
{
	char dir[ASYNCIO_PATH_MAX + 32], xdg[ASYNCIO_PATH_MAX];
	long pid, ruid, euid;

	memset(ep, 0, sizeof(*ep));
	ep->uid = -1;
	if (!spec || !*spec) {
		snprintf(err, errsz, "an empty endpoint");
		return STATUS_INVAL;
	}
	if (!all_digits(spec)) {
		if (strlen(spec) >= ASYNCIO_PATH_MAX) {
			snprintf(err, errsz,
			         "the socket path is longer than %d bytes",
			         ASYNCIO_PATH_MAX - 1);
			return STATUS_INVAL;
		}
		snprintf(ep->path[0], ASYNCIO_PATH_MAX, "%s", spec);
		ep->npaths = 1;
		snprintf(ep->text, sizeof(ep->text), "%s", spec);
		return STATUS_OK;
	}
	errno = 0;
	pid = strtol(spec, NULL, 10);
	if (errno || pid <= 0 || pid > 0x7fffffffL) {
		snprintf(err, errsz, "%s is not a process id", spec);
		return STATUS_INVAL;
	}
	ep->pid = pid;
	snprintf(ep->text, sizeof(ep->text), "pid %ld", pid);
	if (!proc_uids(pid, &ruid, &euid)) {
		snprintf(err, errsz, "no process with pid %ld is running", pid);
		return STATUS_UNREACHABLE;
	}
	ep->uid = euid;
	/* the agent's rules (docs/asyncio-protocol.md §1), in its own
	 * environment: ASYNCTOP_SOCKET, then $ASYNCTOP_SOCKET_DIR (set for a
	 * launched program), then $XDG_RUNTIME_DIR/asynctop (or
	 * /run/user/UID/asynctop), then /tmp/asynctop-UID */
	if (proc_env(pid, "ASYNCTOP_SOCKET", xdg, sizeof(xdg)) && xdg[0] == '/')
		memcpy(ep->path[ep->npaths++], xdg, sizeof(xdg));
	if (proc_env(pid, "ASYNCTOP_SOCKET_DIR", xdg, sizeof(xdg)) &&
	    xdg[0] == '/')
		(void)add_path(ep, xdg, pid);
	if (proc_env(pid, "XDG_RUNTIME_DIR", xdg, sizeof(xdg)) && xdg[0] == '/')
		snprintf(dir, sizeof(dir), "%s/asynctop", xdg);
	else
		snprintf(dir, sizeof(dir), "/run/user/%ld/asynctop", euid);
	(void)add_path(ep, dir, pid);
	snprintf(dir, sizeof(dir), "/tmp/asynctop-%ld", euid);
	(void)add_path(ep, dir, pid);
	if (ruid != euid) {
		snprintf(dir, sizeof(dir), "/tmp/asynctop-%ld", ruid);
		(void)add_path(ep, dir, pid);
	}
	if (!ep->npaths) {
		snprintf(err, errsz, "the socket path of pid %ld is too long",
		         pid);
		return STATUS_INVAL;
	}
	return STATUS_OK;
}

size_t asyncio_endpoint_dirs(char (*dirs)[ASYNCIO_PATH_MAX], size_t max)
{
	const char *xdg = getenv("XDG_RUNTIME_DIR");
	char cand[3][ASYNCIO_PATH_MAX];
	size_t n = 0, i, j;
	long uid = (long)getuid();

	memset(cand, 0, sizeof(cand));
	if (xdg && xdg[0] == '/' &&
	    strlen(xdg) + sizeof("/asynctop") <= ASYNCIO_PATH_MAX)
		snprintf(cand[0], ASYNCIO_PATH_MAX, "%s/asynctop", xdg);
	snprintf(cand[1], ASYNCIO_PATH_MAX, "/run/user/%ld/asynctop", uid);
	snprintf(cand[2], ASYNCIO_PATH_MAX, "/tmp/asynctop-%ld", uid);
	for (i = 0; i < 3 && n < max; i++) {
		bool dup = !cand[i][0];

		for (j = 0; j < n && !dup; j++)
			dup = !strcmp(dirs[j], cand[i]);
		if (!dup)
			memcpy(dirs[n++], cand[i], ASYNCIO_PATH_MAX);
	}
	return n;
}

/* Seconds since boot from /proc/uptime, in ns; 0 when unknown. */
static uint64_t uptime_ns(void)
{
	char text[128];
	double up;

	if (file_read_head("/proc/uptime", text, sizeof(text)) <= 0)
		return 0;
	errno = 0;
	up = strtod(text, NULL);
	return errno || up <= 0 ? 0 : (uint64_t)(up * 1e9);
}

enum status asyncio_endpoint_start_ticks(long pid, uint64_t *out)
{
	char path[64], text[2048], *p;
	unsigned long long ticks;
	int field;

	*out = 0;
	snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
	if (file_read_head(path, text, sizeof(text)) <= 0)
		return STATUS_IO;
	p = strrchr(text, ')'); /* the command may hold spaces and ')' */
	if (!p)
		return STATUS_IO;
	/* field 3 (state) follows ") "; starttime is field 22 */
	for (field = 2; field < 22 && p; field++)
		p = strchr(p + 1, ' ');
	if (!p)
		return STATUS_IO;
	errno = 0;
	ticks = strtoull(p + 1, NULL, 10);
	if (errno)
		return STATUS_IO;
	*out = (uint64_t)ticks;
	return STATUS_OK;
}

static void proc_cmd(long pid, char *dst, size_t size)
{
	char path[64], text[512], *slash;
	ssize_t n, i;

	snprintf(path, sizeof(path), "/proc/%ld/cmdline", pid);
	n = file_read_head(path, text, sizeof(text));
	if (n <= 0) {
		snprintf(dst, size, "?");
		return;
	}
	while (n > 0 && text[n - 1] == '\0')
		n--;
	/* argv[0] without its directory: the arguments matter more */
	slash = strrchr(text, '/'); /* stops at argv[0]'s NUL */
	if (slash) {
		ssize_t skip = (ssize_t)(slash + 1 - text);

		memmove(text, text + skip, (size_t)(n - skip));
		n -= skip;
	}
	for (i = 0; i < n; i++)
		if (text[i] == '\0' || (unsigned char)text[i] < 0x20)
			text[i] = ' ';
	n = (ssize_t)size_min((size_t)n, size - 1);
	memcpy(dst, text, (size_t)n);
	dst[n] = '\0';
}

static int unix_socket(void)
{
	return socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
}

static bool fill_addr(struct sockaddr_un *sa, const char *path)
{
	memset(sa, 0, sizeof(*sa));
	sa->sun_family = AF_UNIX;
	if (strlen(path) >= sizeof(sa->sun_path))
		return false;
	memcpy(sa->sun_path, path, strlen(path) + 1);
	return true;
}

/* True unless connecting is refused or the socket is missing. */
static bool answers(const char *path)
{
	struct sockaddr_un sa;
	int fd = unix_socket(), r;

	if (fd < 0 || !fill_addr(&sa, path)) {
		if (fd >= 0)
			close(fd);
		return false;
	}
	r = connect(fd, (const struct sockaddr *)&sa, sizeof(sa));
	r = r == 0 || errno == EAGAIN || errno == EINPROGRESS;
	close(fd);
	return r;
}

static int cmp_agent(const void *a, const void *b)
{
	const struct asyncio_agent *x = a, *y = b;

	return (x->pid > y->pid) - (x->pid < y->pid);
}

/* Removes path, the socket of a process that no longer exists (killed by a
 * signal, its atexit handler never ran: a fork's, say), when both the
 * socket and its directory are ours and no one else may write there, as an
 * agent does at its start.  A live pid's socket stays, even when it refuses
 * connections: its agent may be between bind and listen. */
static void remove_dead(const char *dir, const char *path, long pid)
{
	struct stat d, f;

	if (kill((pid_t)pid, 0) == 0 || errno != ESRCH)
		return;
	if (lstat(dir, &d) || !S_ISDIR(d.st_mode) || d.st_uid != geteuid() ||
	    (d.st_mode & 022))
		return;
	if (lstat(path, &f) || !S_ISSOCK(f.st_mode) || f.st_uid != geteuid())
		return;
	unlink(path);
}

static enum status scan_dir(const char *dir, long uid, uint64_t up,
                            struct asyncio_agent **out, size_t *n, size_t *cap)
{
	long hz = sysconf(_SC_CLK_TCK);
	DIR *d = opendir(dir);
	struct dirent *e;
	enum status st = STATUS_OK;

	if (!d)
		return STATUS_OK;
	while (st == STATUS_OK && (e = readdir(d)) != NULL) {
		size_t l = strlen(e->d_name), i;
		char num[32], path[ASYNCIO_PATH_MAX];
		struct asyncio_agent *a;
		uint64_t start;
		long pid;
		bool dup = false;

		if (l <= 5 || l - 5 >= sizeof(num) ||
		    strcmp(e->d_name + l - 5, ".sock"))
			continue;
		memcpy(num, e->d_name, l - 5);
		num[l - 5] = '\0';
		if (!all_digits(num))
			continue;
		errno = 0;
		pid = strtol(num, NULL, 10);
		if (errno || pid <= 0)
			continue;
		for (i = 0; i < *n && !dup; i++)
			dup = (*out)[i].pid == pid;
		if (dup || snprintf(path, sizeof(path), "%s/%s", dir,
		                    e->d_name) >= (int)sizeof(path))
			continue;
		if (!proc_owned_by(pid, uid)) {
			remove_dead(dir, path, pid);
			continue;
		}
		if (!answers(path))
			continue;
		if (mem_grow(out, cap, *n + 1, sizeof(**out)) != STATUS_OK) {
			st = STATUS_NOMEM;
			break;
		}
		a = &(*out)[(*n)++];
		memset(a, 0, sizeof(*a));
		a->pid = pid;
		memcpy(a->path, path, sizeof(path));
		if (hz > 0 &&
		    asyncio_endpoint_start_ticks(pid, &start) == STATUS_OK &&
		    up > start * (1000000000u / (uint64_t)hz))
			a->age_ns = up - start * (1000000000u / (uint64_t)hz);
		proc_cmd(pid, a->cmd, sizeof(a->cmd));
	}
	closedir(d);
	return st;
}

enum status asyncio_endpoint_list(const char (*dirs)[ASYNCIO_PATH_MAX],
                                  size_t n, long uid,
                                  struct asyncio_agent **out, size_t *count)
{
	size_t cap = 0, i;
	uint64_t up = uptime_ns();
	enum status st = STATUS_OK;

	*out = NULL;
	*count = 0;
	for (i = 0; i < n && st == STATUS_OK; i++)
		st = scan_dir(dirs[i], uid, up, out, count, &cap);
	if (st != STATUS_OK) {
		mem_free(*out);
		*out = NULL;
		*count = 0;
		return st;
	}
	if (*count > 1)
		qsort(*out, *count, sizeof(**out), cmp_agent);
	return STATUS_OK;
}

enum status asyncio_endpoint_find(const char (*dirs)[ASYNCIO_PATH_MAX],
                                  size_t n, long uid, const char *cmd,
                                  struct asyncio_agent *out)
{
	struct asyncio_agent *a = NULL;
	size_t count = 0, same = 0;
	enum status st = asyncio_endpoint_list(dirs, n, uid, &a, &count);

	memset(out, 0, sizeof(*out));
	for (size_t i = 0; st == STATUS_OK && i < count; i++) {
		if (strcmp(a[i].cmd, cmd))
			continue;
		same++;
		*out = a[i];
	}
	if (same != 1)
		memset(out, 0, sizeof(*out));
	mem_free(a);
	return st;
}

static void format_age(uint64_t ns, char *dst, size_t size)
{
	uint64_t s = ns / 1000000000u;

	if (!ns)
		snprintf(dst, size, "?");
	else if (s < 60)
		snprintf(dst, size, "%llus", (unsigned long long)s);
	else if (s < 3600)
		snprintf(dst, size, "%llum%02llus", (unsigned long long)s / 60,
		         (unsigned long long)s % 60);
	else if (s < 86400)
		snprintf(dst, size, "%lluh%02llum",
		         (unsigned long long)s / 3600,
		         (unsigned long long)s / 60 % 60);
	else
		snprintf(dst, size, "%llud%02lluh",
		         (unsigned long long)s / 86400,
		         (unsigned long long)s / 3600 % 24);
}

void asyncio_endpoint_format_list(const struct asyncio_agent *a, size_t n,
                                  char *dst, size_t size)
{
	size_t used, i;
	char line[160], age[32];
	int w;

	if (!size)
		return;
	w = snprintf(dst, size, "%8s  %7s  %s", "PID", "AGE", "COMMAND");
	used = w < 0 ? 0 : size_min((size_t)w, size - 1);
	for (i = 0; i < n; i++) {
		char more[48];
		size_t l, ml;

		format_age(a[i].age_ns, age, sizeof(age));
		w = snprintf(line, sizeof(line), "\n%8ld  %7s  %.60s", a[i].pid,
		             age, a[i].cmd);
		l = w < 0 ? 0 : size_min((size_t)w, sizeof(line) - 1);
		ml = (size_t)snprintf(more, sizeof(more), "\n... and %zu more",
		                      n - i);
		/* keep room for the "and N more" line unless this is last */
		if (used + l + (i + 1 < n ? ml : 0) >= size) {
			if (used + ml < size)
				memcpy(dst + used, more, ml + 1);
			break;
		}
		memcpy(dst + used, line, l + 1);
		used += l;
	}
}

static enum status wait_fd(int fd, short ev, int stop_fd, uint64_t deadline)
{
	for (;;) {
		struct pollfd p[2];
		struct timespec ts;
		uint64_t now;
		int r, ms;

		clock_gettime(CLOCK_MONOTONIC, &ts);
		now = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
		if (now >= deadline)
			return STATUS_TIMEOUT;
		ms = (int)u64_min((deadline - now + 999999) / 1000000, 100);
		p[0].fd = fd;
		p[0].events = ev;
		p[0].revents = 0;
		p[1].fd = stop_fd;
		p[1].events = POLLIN;
		p[1].revents = 0;
		r = poll(p, stop_fd >= 0 ? 2 : 1, ms);
		if (r < 0 && errno != EINTR)
			return STATUS_IO;
		if (r > 0 && stop_fd >= 0 && (p[1].revents & POLLIN))
			return STATUS_STOPPED;
		if (r > 0 && p[0].revents)
			return STATUS_OK;
	}
}

static uint64_t mono_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Connects fd to path; errno-style result in *e. */
static enum status connect_one(const char *path, uint64_t deadline, int stop_fd,
                               int *fd, int *e)
{
	struct sockaddr_un sa;

	*fd = -1;
	*e = 0;
	if (!fill_addr(&sa, path)) {
		*e = ENAMETOOLONG;
		return STATUS_UNREACHABLE;
	}
	for (;;) {
		int s = unix_socket();
		enum status st;

		if (s < 0) {
			*e = errno;
			return STATUS_IO;
		}
		if (connect(s, (const struct sockaddr *)&sa, sizeof(sa)) == 0) {
			*fd = s;
			return STATUS_OK;
		}
		*e = errno;
		if (*e == EINPROGRESS) { /* not for Unix sockets, but safe */
			int so = 0;
			socklen_t sl = sizeof(so);

			st = wait_fd(s, POLLOUT, stop_fd, deadline);
			if (st == STATUS_OK &&
			    getsockopt(s, SOL_SOCKET, SO_ERROR, &so, &sl) ==
			        0 &&
			    so == 0) {
				*fd = s;
				return STATUS_OK;
			}
			close(s);
			if (st != STATUS_OK)
				return st;
			*e = so;
			return STATUS_UNREACHABLE;
		}
		close(s);
		if (*e != EAGAIN && *e != EINTR)
			return STATUS_UNREACHABLE;
		/* a full backlog: try again shortly, until the deadline */
		if (mono_now() >= deadline)
			return STATUS_TIMEOUT;
		st = wait_fd(-1, 0, stop_fd,
		             u64_min(deadline, mono_now() + 10000000u));
		if (st == STATUS_STOPPED || st == STATUS_IO)
			return st;
	}
}

const char *asyncio_endpoint_remedy(int e)
{
	if (e == EACCES || e == EPERM)
		return "the agent's socket is not ours to connect to: an agent serves its own user only; run asynctop as the application's user (or as root)";
	if (e == ECONNREFUSED)
		return "the socket was left by a process that ended without closing it (killed with SIGKILL, or crashed): start the application again";
	return NULL;
}

/* How much a connect(2) failure tells: denied, then refused, then none. */
static int telling(int e)
{
	return e == EACCES || e == EPERM ? 2 : e == ECONNREFUSED ? 1 : 0;
}

enum status asyncio_endpoint_connect(const struct asyncio_endpoint *ep,
                                     uint64_t timeout_ns, int stop_fd, int *fd,
                                     char *err, size_t errsz,
                                     const char **remedy)
{
	uint64_t deadline = u64_add_sat(mono_now(), timeout_ns);
	size_t i, used = 0;
	enum status st = STATUS_UNREACHABLE;
	int best = 0;

	*fd = -1;
	err[0] = '\0';
	if (remedy)
		*remedy = NULL;
	for (i = 0; i < ep->npaths; i++) {
		int e = 0, w;

		st = connect_one(ep->path[i], deadline, stop_fd, fd, &e);
		if (st == STATUS_OK)
			break;
		if (st == STATUS_TIMEOUT) {
			snprintf(err, errsz,
			         "connecting to %s took longer than %gs",
			         ep->path[i], (double)timeout_ns / 1e9);
			return st;
		}
		if (st == STATUS_STOPPED)
			return st;
		if (telling(e) > telling(best))
			best = e;
		w = snprintf(err + used, errsz - used, "%s%s: %s",
		             used ? "; " : "", ep->path[i], strerror(e));
		used = w < 0 ? used : size_min(used + (size_t)w, errsz - 1);
		if (st != STATUS_UNREACHABLE)
			return st;
	}
	if (st != STATUS_OK) {
		if (remedy)
			*remedy = asyncio_endpoint_remedy(best);
		return st;
	}
	if (ep->pid) {
		struct ucred cr;
		socklen_t len = sizeof(cr);

		if (getsockopt(*fd, SOL_SOCKET, SO_PEERCRED, &cr, &len) < 0) {
			snprintf(err, errsz, "SO_PEERCRED: %s",
			         strerror(errno));
		} else if ((long)cr.pid != ep->pid) {
			snprintf(err, errsz,
			         "%s is served by pid %ld, not pid %ld",
			         ep->path[i], (long)cr.pid, ep->pid);
		} else {
			return STATUS_OK;
		}
		close(*fd);
		*fd = -1;
		return STATUS_IO;
	}
	return STATUS_OK;
}
