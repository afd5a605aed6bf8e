/* Private to the asyncio adapter: where an agent's socket is (a pid, a path,
 * or the only live agent of this user), and connecting to it with a timeout
 * and a peer check (docs/design.md §8). */
#ifndef ASYNCTOP_ADAPTERS_ASYNCIO_ENDPOINT_H
#define ASYNCTOP_ADAPTERS_ASYNCIO_ENDPOINT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/base.h"
#include "model/status.h"

#define ASYNCIO_PATH_MAX   108 /* sun_path, NUL included */
#define ASYNCIO_CANDIDATES 5

/* A resolved endpoint: the socket paths to try in order, and the pid the
 * peer must have (0 for an explicit path). */
struct asyncio_endpoint {
	char path[ASYNCIO_CANDIDATES][ASYNCIO_PATH_MAX];
	size_t npaths;
	long pid;      /* 0: given as a path */
	long uid;      /* the target's effective uid; -1 when unknown */
	char text[64]; /* how to name it: "pid 4242" or the path (cut) */
};

/* One live agent of this user, as listed for a choice. */
struct asyncio_agent {
	long pid;
	uint64_t age_ns; /* since the process started; 0 when unknown */
	char path[ASYNCIO_PATH_MAX];
	char cmd[96]; /* its command line, spaces for NULs, cut */
};

/* Parses -e: a string of digits is a pid, resolved through /proc (its
 * effective uid; then, from its environment, ASYNCTOP_SOCKET, then
 * $ASYNCTOP_SOCKET_DIR (a launched program's), then $XDG_RUNTIME_DIR/asynctop
 * or /run/user/UID/asynctop, then /tmp/asynctop-UID); anything else is a socket
 * path.  STATUS_INVAL for an empty, overlong or zero spec; STATUS_UNREACHABLE
 * when the pid names no process (err gets a one-line reason).  Reads /proc;
 * does not block otherwise.
 */
enum status asyncio_endpoint_parse(const char *spec,
                                   struct asyncio_endpoint *ep, char *err,
                                   size_t errsz) MUST_CHECK;

/* The directories this user's agents may use, in order, deduplicated:
 * $XDG_RUNTIME_DIR/asynctop, /run/user/UID/asynctop, /tmp/asynctop-UID.
 * Writes up to max NUL-terminated paths into dirs; returns how many. */
size_t asyncio_endpoint_dirs(char (*dirs)[ASYNCIO_PATH_MAX], size_t max);

/* Lists the live agents in dirs (n of them): sockets named PID.sock whose
 * process exists, has uid as its real or effective uid, and accepts a
 * connection (stale sockets of dead or reused pids are skipped), each pid once,
 * sorted by pid.  The socket of a pid that no longer exists is removed when
 * it and its directory are ours and no one else may write the directory (an
 * agent killed by a signal leaves it).  *out is an array of *count entries
 * (free with mem_free; NULL when none). STATUS_NOMEM.  Reads /proc and the
 * directories; connects without blocking; unlinks. */
enum status asyncio_endpoint_list(const char (*dirs)[ASYNCIO_PATH_MAX],
                                  size_t n, long uid,
                                  struct asyncio_agent **out,
                                  size_t *count) MUST_CHECK;

/* The only live agent of uid in dirs (as asyncio_endpoint_list finds
 * them) whose command line is cmd (as struct asyncio_agent holds it), into
 * *out: how a program that restarted is found again.  out->pid is 0 when
 * there is no such agent, or more than one.  STATUS_NOMEM. */
enum status asyncio_endpoint_find(const char (*dirs)[ASYNCIO_PATH_MAX],
                                  size_t n, long uid, const char *cmd,
                                  struct asyncio_agent *out) MUST_CHECK;

/* Formats agents as a table, "PID  AGE  COMMAND" then one line each,
 * into dst (always NUL-terminated; lines past the room are summed up as
 * "... and N more"). */
void asyncio_endpoint_format_list(const struct asyncio_agent *a, size_t n,
                                  char *dst, size_t size);

/* Connects to the first candidate path that exists, waiting at most
 * timeout_ns (a full backlog is retried) or until stop_fd (may be -1)
 * is readable; then checks the peer's pid with SO_PEERCRED when ep->pid
 * is set.  *fd is a blocking-free (O_NONBLOCK, close-on-exec) socket.
 * STATUS_UNREACHABLE when no socket exists or the connection is refused
 * (err says which paths were tried and why), STATUS_TIMEOUT,
 * STATUS_STOPPED, STATUS_IO for other failures (a wrong peer pid).
 * On STATUS_UNREACHABLE *remedy (may be NULL) is what fits the most telling
 * candidate's failure (asyncio_endpoint_remedy).  Blocks up to timeout_ns. */
enum status asyncio_endpoint_connect(const struct asyncio_endpoint *ep,
                                     uint64_t timeout_ns, int stop_fd, int *fd,
                                     char *err, size_t errsz,
                                     const char **remedy) MUST_CHECK;

/* What to do when connect(2) to an agent's socket failed with e: for
 * EACCES or EPERM (another user's agent), for ECONNREFUSED (a socket left
 * by a process that ended without closing it, as under kill -9); NULL
 * otherwise (no socket: the application may not have opted in). */
const char *asyncio_endpoint_remedy(int e);

/* The process start time of pid in clock ticks after boot (/proc/PID/stat
 * field 22), for detecting pid reuse; STATUS_IO when it cannot be read. */
enum status asyncio_endpoint_start_ticks(long pid, uint64_t *out) MUST_CHECK;

#endif
