/* The asyncio adapter's launch hook: finding the agent, the environment that
 * injects it into every Python process of the command, and the rendezvous
 * file where the first process to create an asyncio task announces itself
 * as "PID SOCKETPATH\n" (docs/launch.md). */
#include "adapters/asyncio_launch.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "adapters/asyncio_endpoint.h"
#include "model/fileio.h"

#ifndef ASYNCTOP_PREFIX
#define ASYNCTOP_PREFIX "/usr/local"
#endif

#define RENDEZVOUS_NAME "announce"

static bool is_file(const char *path)
{
	struct stat sb;

	return stat(path, &sb) == 0 && S_ISREG(sb.st_mode);
}

/* dir holds the agent and the launcher's sitecustomize. */
static bool has_agent(const char *dir)
{
	char p[LAUNCH_PLAN_PATH_MAX + 64];

	snprintf(p, sizeof(p), "%s/asynctop_agent/__init__.py", dir);
	if (!is_file(p))
		return false;
	snprintf(p, sizeof(p), "%s/launch/sitecustomize.py", dir);
	return is_file(p);
}

enum status asyncio_agent_dir(char *dst, size_t size, char *err, size_t errsz)
{
	const char *env = getenv("ASYNCTOP_AGENT_PATH");
	char exe[LAUNCH_PLAN_PATH_MAX], cand[LAUNCH_PLAN_PATH_MAX + 64];
	ssize_t n;

	if (env && *env) {
		if (has_agent(env) &&
		    (size_t)snprintf(dst, size, "%s", env) < size)
			return STATUS_OK;
		return status_errf(
		    err, errsz, STATUS_UNREACHABLE,
		    "ASYNCTOP_AGENT_PATH=%s holds no asynctop_agent/ and launch/sitecustomize.py",
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
	return status_errf(
	    err, errsz, STATUS_UNREACHABLE,
	    "cannot find the asynctop Python agent (looked next to the binary and in %s); reinstall, or set ASYNCTOP_AGENT_PATH to the directory holding asynctop_agent/",
	    cand);
}

static void rendezvous_path(const struct launch_plan *plan, char *dst,
                            size_t size)
{
	snprintf(dst, size, "%s/%s", plan->dir, RENDEZVOUS_NAME);
}

enum status asyncio_launch_prepare(const struct adapter_ops *ops,
                                   struct launch_plan *plan,
                                   struct adapter_error *err)
{
	char agent[LAUNCH_PLAN_PATH_MAX], rv[LAUNCH_PLAN_PATH_MAX + 16];
	char pypath[2 * LAUNCH_PLAN_PATH_MAX + 64];
	const char *old = getenv("PYTHONPATH");
	enum status st;
	int n;

	(void)ops;
	st = asyncio_agent_dir(agent, sizeof(agent), err->detail,
	                       sizeof(err->detail));
	if (st != STATUS_OK) {
		err->st = STATUS_INVAL;
		return STATUS_INVAL;
	}
	n = snprintf(pypath, sizeof(pypath), "%s/launch:%s%s%s", agent, agent,
	             old && *old ? ":" : "", old && *old ? old : "");
	if (n < 0 || (size_t)n >= sizeof(pypath)) {
		err->st = STATUS_INVAL;
		snprintf(err->detail, sizeof(err->detail),
		         "PYTHONPATH is too long to add the asynctop agent to");
		return STATUS_INVAL;
	}
	rendezvous_path(plan, rv, sizeof(rv));
	st = launch_plan_setenv(plan, "PYTHONPATH", pypath);
	if (st == STATUS_OK)
		st = launch_plan_setenv(plan, "ASYNCTOP_RENDEZVOUS", rv);
	/* the agents' sockets in the private directory, where nobody can plant
	 * a directory to deny them; a socket path must fit sun_path */
	if (st == STATUS_OK &&
	    strlen(plan->dir) + sizeof("/4194304.sock") <= ASYNCIO_PATH_MAX)
		st = launch_plan_setenv(plan, "ASYNCTOP_SOCKET_DIR", plan->dir);
	err->st = st;
	return st;
}

/* Parses the whole announcement lines "PID PATH\n", skipping the first
 * skip of them, up to max pids; returns how many lines had a valid pid. */
static size_t each_pid(const struct launch_plan *plan, long *pids, size_t max,
                       size_t skip)
{
	char text[8192], rv[LAUNCH_PLAN_PATH_MAX + 16];
	size_t n = 0;
	char *p, *nl;

	rendezvous_path(plan, rv, sizeof(rv));
	if (!plan->dir[0] || file_read_head(rv, text, sizeof(text)) <= 0)
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

enum status asyncio_launch_ready(const struct adapter_ops *ops,
                                 struct launch_plan *plan,
                                 struct adapter_error *err)
{
	long pid;

	(void)ops;
	if (each_pid(plan, &pid, 1, 0) > 0) {
		snprintf(plan->endpoint, sizeof(plan->endpoint), "%ld", pid);
		return STATUS_OK;
	}
	err->st = STATUS_AGAIN;
	snprintf(err->detail, sizeof(err->detail), "it started asyncio");
	snprintf(
	    err->remediation, sizeof(err->remediation),
	    "asynctop attaches when the program creates its first asyncio task: is it an asyncio program (Python 3.11 or later), run by an interpreter that honours PYTHONPATH (not -I or -E)?");
	return STATUS_AGAIN;
}

size_t asyncio_launch_others(const struct adapter_ops *ops,
                             const struct launch_plan *plan, long *pids,
                             size_t max)
{
	size_t n = each_pid(plan, pids, max, 1);

	(void)ops;
	return n ? n - 1 : 0;
}
