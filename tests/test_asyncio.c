/* The asyncio adapter's reader against a fake agent (a thread serving canned
 * frames over a Unix socket in a temp dir): endpoint rules, every malformed
 * reply, timeouts, and the window arithmetic with exact numbers. */
#include <check.h>
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "adapters/asyncio.h"
#include "adapters/asyncio_endpoint.h"
#include "adapters/wire.h"
#include "adapters/worker.h"
#include "model/buf.h"
#include "model/alloc.h"
#include "tests/util.h"

/* ---- endpoint rules ------------------------------------------------------ */

static int listen_at(const char *path)
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

/* A socket file nobody listens on (what a killed agent leaves). */
static void stale_at(const char *path)
{
	close(listen_at(path));
}

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
	lfd = listen_at(path);
	snprintf(path, sizeof(path), "%s/%ld.sock", dir, (long)gone);
	stale_at(path);
	snprintf(path, sizeof(path), "%s/%ld.sock", dir, (long)child);
	stale_at(path);
	snprintf(path, sizeof(path), "%s/abc.sock", dir);
	stale_at(path);
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
	int lfd, fd = -1;

	tu_mkdtemp(dir, sizeof(dir));
	snprintf(path, sizeof(path), "%s/a.sock", dir);
	lfd = listen_at(path);
	/* a pid endpoint checks the peer's pid: ours is right... */
	memset(&ep, 0, sizeof(ep));
	snprintf(ep.path[0], sizeof(ep.path[0]), "%s/missing.sock", dir);
	snprintf(ep.path[1], sizeof(ep.path[1]), "%s", path);
	ep.npaths = 2;
	ep.pid = (long)getpid();
	ck_assert_int_eq(asyncio_endpoint_connect(&ep, 2000000000u, -1, &fd,
	                                          err, sizeof(err)),
	                 STATUS_OK);
	ck_assert_int_ge(fd, 0);
	close(fd);
	/* ...another is refused */
	ep.pid = (long)getpid() + 1;
	ck_assert_int_eq(asyncio_endpoint_connect(&ep, 2000000000u, -1, &fd,
	                                          err, sizeof(err)),
	                 STATUS_IO);
	ck_assert_int_eq(fd, -1);
	snprintf(want, sizeof(want), "%s is served by pid %ld, not pid %ld",
	         path, (long)getpid(), (long)getpid() + 1);
	ck_assert_str_eq(err, want);
	close(lfd);
	/* a stale socket is refused, a missing one is missing */
	ep.pid = 0;
	ck_assert_int_eq(asyncio_endpoint_connect(&ep, 2000000000u, -1, &fd,
	                                          err, sizeof(err)),
	                 STATUS_UNREACHABLE);
	snprintf(want, sizeof(want), "%s/missing.sock: %s; %s: %s", dir,
	         strerror(ENOENT), path, strerror(ECONNREFUSED));
	ck_assert_str_eq(err, want);
	unlink(path);
	tu_rmtree(dir);
}
END_TEST

/* ---- a fake agent: canned frames over a Unix socket ------------------------
 */

#define SEC  ((uint64_t)1000000000u)
#define MSEC ((uint64_t)1000000u)

static void fr_begin(struct buf *b, uint16_t type, uint32_t seq, size_t *at)
{
	*at = b->len;
	(void)buf_add(b, "ATOP", 4);
	(void)wire_put_u16(b, 1);
	(void)wire_put_u16(b, type);
	(void)wire_put_u32(b, 0);
	(void)wire_put_u32(b, seq);
}

static void fr_end(struct buf *b, size_t at)
{
	uint32_t len = (uint32_t)(b->len - at - 16);

	ck_assert_int_eq(buf_status(b), STATUS_OK);
	b->data[at + 8] = (char)(len & 0xff);
	b->data[at + 9] = (char)(len >> 8 & 0xff);
	b->data[at + 10] = (char)(len >> 16 & 0xff);
	b->data[at + 11] = (char)(len >> 24);
}

static void put_hello_ok(struct buf *b, uint32_t seq, uint32_t pid)
{
	size_t at;

	fr_begin(b, ASYNCIO_HELLO_OK, seq, &at);
	(void)wire_put_u32(b, pid);
	(void)wire_put_u32(b, 0);
	(void)wire_put_u64(b, 0); /* proc_start_ticks unknown */
	(void)wire_put_u64(b, 5 * MSEC);
	(void)wire_put_u64(b, 10 * MSEC);
	(void)wire_put_u64(b, 1700000000 * SEC);
	(void)wire_put_u32(b, 4096);
	(void)wire_put_u32(b, 1u << 20);
	(void)wire_put_u32(b, 100);
	(void)wire_put_u32(b, (uint32_t)getuid());
	(void)wire_put_u16(b, 14);
	(void)wire_put_u16(b, 6);
	(void)wire_put_u16(b, 3);
	(void)wire_put_u16(b, 0);
	(void)buf_adds(b, "CPython 3.11.2app.py0.1");
	fr_end(b, at);
}

struct fstr {
	uint32_t id;
	const char *text;
};

static void put_strings(struct buf *b, uint32_t seq, const struct fstr *s,
                        size_t n)
{
	size_t at, i;

	fr_begin(b, ASYNCIO_STRINGS, seq, &at);
	(void)wire_put_u32(b, (uint32_t)n);
	for (i = 0; i < n; i++) {
		(void)wire_put_u32(b, s[i].id);
		(void)wire_put_u32(b, (uint32_t)strlen(s[i].text));
		(void)buf_adds(b, s[i].text);
	}
	fr_end(b, at);
}

struct fstack {
	uint32_t id, parent, n;
	uint32_t frames[4];
};

static void put_stacks(struct buf *b, uint32_t seq, const struct fstack *s,
                       size_t n)
{
	size_t at, i, j;

	fr_begin(b, ASYNCIO_STACKS, seq, &at);
	(void)wire_put_u32(b, (uint32_t)n);
	for (i = 0; i < n; i++) {
		(void)wire_put_u32(b, s[i].id);
		(void)wire_put_u32(b, s[i].parent);
		(void)wire_put_u32(b, s[i].n);
		for (j = 0; j < s[i].n; j++)
			(void)wire_put_u32(b, s[i].frames[j % 4]);
	}
	fr_end(b, at);
}

struct ftask {
	uint64_t id, parent;
	uint32_t stack, name, thread, loop;
	uint8_t state;
	uint16_t flags;
	uint64_t created, ended, t_mark, polls, wakes, self_wakes, busy, sched,
	    idle;
};

static void put_task(struct buf *b, const struct ftask *t)
{
	(void)wire_put_u64(b, t->id);
	(void)wire_put_u64(b, t->parent);
	(void)wire_put_u32(b, t->stack);
	(void)wire_put_u32(b, t->name);
	(void)wire_put_u32(b, t->thread);
	(void)wire_put_u32(b, t->loop ? t->loop : 1);
	(void)wire_put_u8(b, t->state);
	(void)wire_put_u8(b, 0);
	(void)wire_put_u16(b, t->flags);
	(void)wire_put_u32(b, 0);
	(void)wire_put_u64(b, t->created);
	(void)wire_put_u64(b, t->ended);
	(void)wire_put_u64(b, t->t_mark);
	(void)wire_put_u64(b, t->polls);
	(void)wire_put_u64(b, t->wakes);
	(void)wire_put_u64(b, t->self_wakes);
	(void)wire_put_u64(b, t->busy);
	(void)wire_put_u64(b, t->sched);
	(void)wire_put_u64(b, t->idle);
}

static void put_tasks(struct buf *b, uint32_t seq, const struct ftask *t,
                      size_t n)
{
	size_t at, i;

	fr_begin(b, ASYNCIO_TASKS, seq, &at);
	(void)wire_put_u32(b, (uint32_t)n);
	(void)wire_put_u32(b, 112);
	for (i = 0; i < n; i++)
		put_task(b, &t[i]);
	fr_end(b, at);
}

struct fagg {
	uint32_t stack, thread;
	uint64_t tasks, polls, wakes, busy, sched, idle;
};

static void put_aggs(struct buf *b, uint32_t seq, const struct fagg *g,
                     size_t n)
{
	size_t at, i;

	fr_begin(b, ASYNCIO_AGGS, seq, &at);
	(void)wire_put_u32(b, (uint32_t)n);
	(void)wire_put_u32(b, 64);
	for (i = 0; i < n; i++) {
		(void)wire_put_u32(b, g[i].stack);
		(void)wire_put_u32(b, g[i].thread);
		(void)wire_put_u64(b, g[i].tasks);
		(void)wire_put_u64(b, g[i].polls);
		(void)wire_put_u64(b, g[i].wakes);
		(void)wire_put_u64(b, 0);
		(void)wire_put_u64(b, g[i].busy);
		(void)wire_put_u64(b, g[i].sched);
		(void)wire_put_u64(b, g[i].idle);
	}
	fr_end(b, at);
}

enum { END_FINAL_F = 1, END_FIRST_F = 2 };

static void put_end(struct buf *b, uint32_t seq, uint64_t boundary,
                    uint64_t records, uint32_t threads, uint32_t flags)
{
	size_t at;

	fr_begin(b, ASYNCIO_END, seq, &at);
	(void)wire_put_u64(b, boundary);
	(void)wire_put_u64(b, 1700000000 * SEC + boundary);
	(void)wire_put_u64(b, seq);
	(void)wire_put_u64(b, 0);
	(void)wire_put_u64(b, 0);
	(void)wire_put_u32(b, threads ? threads : 1);
	(void)wire_put_u32(b, flags);
	(void)wire_put_u64(b, 0);
	(void)wire_put_u64(b, records);
	fr_end(b, at);
}

enum agent_mode {
	AGENT_REPLY, /* read a request, send the bytes */
	AGENT_CUT,   /* read a request, send `cut` bytes, close */
	AGENT_HANG,  /* read a request, never answer */
	AGENT_PUSH,  /* send the bytes without a request */
	AGENT_CLOSE, /* read a request, close */
};

struct agent_step {
	enum agent_mode mode;
	struct buf out;
	size_t cut;
};

struct agent {
	char dir[64], path[ASYNCIO_PATH_MAX];
	int lfd, quit[2];
	pthread_t th;
	struct agent_step step[8];
	size_t nsteps;
	uint16_t req[16];
	size_t nreq;
	bool unlink_at_end;
};

/* Waits for fd or the quit pipe; false on quit. */
static bool agent_wait(struct agent *g, int fd)
{
	struct pollfd p[2] = { { fd, POLLIN, 0 }, { g->quit[0], POLLIN, 0 } };

	while (poll(p, 2, -1) < 0)
		;
	return !(p[1].revents & POLLIN);
}

static bool agent_read(struct agent *g, int fd, void *dst, size_t n)
{
	unsigned char *d = dst;

	while (n) {
		ssize_t r;

		if (!agent_wait(g, fd))
			return false;
		r = read(fd, d, n);
		if (r <= 0)
			return false;
		d += r;
		n -= (size_t)r;
	}
	return true;
}

static bool agent_request(struct agent *g, int fd)
{
	unsigned char h[16], body[64];
	uint32_t len;

	if (!agent_read(g, fd, h, 16))
		return false;
	len = wire_le32(h + 8);
	if (memcmp(h, "ATOP", 4) || len > sizeof(body) ||
	    (len && !agent_read(g, fd, body, len)))
		return false;
	if (g->nreq < 16)
		g->req[g->nreq++] = wire_le16(h + 6);
	return true;
}

static void agent_send(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t r = send(fd, p, n, MSG_NOSIGNAL);

		if (r <= 0)
			return;
		p += r;
		n -= (size_t)r;
	}
}

static void *agent_run(void *arg)
{
	struct agent *g = arg;
	int fd;
	size_t i;
	char c;

	if (!agent_wait(g, g->lfd))
		return NULL;
	fd = accept(g->lfd, NULL, NULL);
	if (fd < 0)
		return NULL;
	for (i = 0; i < g->nsteps; i++) {
		struct agent_step *s = &g->step[i];

		if (s->mode != AGENT_PUSH && !agent_request(g, fd))
			break;
		if (s->mode == AGENT_HANG) {
			agent_wait(g, g->quit[0]);
			break;
		}
		if (s->mode == AGENT_CLOSE)
			break;
		if (i + 1 == g->nsteps && g->unlink_at_end)
			unlink(g->path); /* as an exiting agent, first */
		agent_send(fd, s->out.data,
		           s->mode == AGENT_CUT ? s->cut : s->out.len);
		if (s->mode == AGENT_CUT)
			break;
	}
	if (i == g->nsteps) /* serve nothing more: wait for the reader */
		while (agent_wait(g, fd) && read(fd, &c, 1) > 0)
			;
	close(fd);
	return NULL;
}

static void agent_init(struct agent *g)
{
	size_t i;

	memset(g, 0, sizeof(*g));
	tu_mkdtemp(g->dir, sizeof(g->dir));
	snprintf(g->path, sizeof(g->path), "%s/agent.sock", g->dir);
	g->lfd = listen_at(g->path);
	ck_assert_int_eq(pipe(g->quit), 0);
	for (i = 0; i < 8; i++)
		buf_init(&g->step[i].out);
}

static struct buf *agent_step(struct agent *g, enum agent_mode mode)
{
	ck_assert_uint_lt(g->nsteps, 8);
	g->step[g->nsteps].mode = mode;
	return &g->step[g->nsteps++].out;
}

static void agent_start(struct agent *g)
{
	ck_assert_int_eq(pthread_create(&g->th, NULL, agent_run, g), 0);
}

static void agent_fini(struct agent *g)
{
	size_t i;

	ck_assert_int_eq(write(g->quit[1], "q", 1), 1);
	pthread_join(g->th, NULL);
	close(g->quit[0]);
	close(g->quit[1]);
	close(g->lfd);
	for (i = 0; i < 8; i++)
		buf_fini(&g->step[i].out);
	unlink(g->path);
	tu_rmtree(g->dir);
}

/* ---- driving the adapter through the worker ------------------------------ */

struct got {
	enum worker_msg_kind kind;
	enum status st;
	char detail[512], remedy[512], reason[700];
	int64_t time, duration;
	bool partial;
	char line[12][6000];
	size_t n;
};

struct run {
	struct got m[12];
	size_t n;
	char states[256]; /* the connection states reported, in order */
};

static enum status take_sample(void *ctx, const struct sample *s)
{
	struct got *g = ctx;
	char *d;
	size_t i, used = 0;

	ck_assert_uint_lt(g->n, 12);
	d = g->line[g->n++];
	for (i = 0; i < s->depth; i++)
		used += (size_t)snprintf(d + used, 6000 - used, "%s%.*s",
		                         i ? ";" : "", (int)s->frames[i].len,
		                         s->frames[i].ptr);
	snprintf(d + used, 6000 - used, "|%.*s|%llu|%llu|%llu|%llu|%llu|%llu",
	         (int)s->task.len, s->task.len ? s->task.ptr : "",
	         (unsigned long long)s->m.v[METRIC_IDLE],
	         (unsigned long long)s->m.v[METRIC_BUSY],
	         (unsigned long long)s->m.v[METRIC_SCHED],
	         (unsigned long long)s->m.v[METRIC_POLLS],
	         (unsigned long long)s->m.v[METRIC_WAKES],
	         (unsigned long long)s->tasks);
	return STATUS_OK;
}

static int cmp_line(const void *a, const void *b)
{
	return strcmp(a, b);
}

static void keep(struct run *r, const struct worker_msg *m)
{
	struct got *g;

	if (m->kind == WORKER_STATE) {
		size_t l = strlen(r->states);

		snprintf(r->states + l, sizeof(r->states) - l, "%s%s",
		         l ? "," : "", source_state_str(m->state));
		return;
	}
	ck_assert_uint_lt(r->n, 12);
	g = &r->m[r->n++];
	memset(g, 0, sizeof(*g));
	g->kind = m->kind;
	g->st = m->err.st;
	snprintf(g->detail, sizeof(g->detail), "%s", m->err.detail);
	snprintf(g->remedy, sizeof(g->remedy), "%s", m->err.remediation);
	if (m->kind == WORKER_WINDOW || m->kind == WORKER_PROGRESS) {
		struct sample_sink sink = { take_sample, NULL, g };

		g->time = m->meta.time_nanos;
		g->duration = m->meta.duration_nanos;
		g->partial = m->meta.partial;
		snprintf(g->reason, sizeof(g->reason), "%s",
		         m->meta.reason ? m->meta.reason : "");
		ck_assert_int_eq(worker_msg_feed(m, &sink), STATUS_OK);
		qsort(g->line, g->n, sizeof(g->line[0]), cmp_line);
	}
}

/* Runs the asyncio adapter on endpoint for max windows of window ns. */
static void drive(const char *endpoint, uint64_t window, uint64_t refresh,
                  uint64_t max, uint64_t reply_timeout, struct run *r)
{
	struct adapter_config cfg;
	struct adapter_error err;
	struct worker_opts wo;
	struct adapter *a = NULL;
	struct worker *w = NULL;
	bool done = false;

	memset(r, 0, sizeof(*r));
	adapter_config_default(&cfg);
	cfg.reply_timeout_ns = reply_timeout;
	ck_assert_int_eq(
	    adapter_open(&asyncio_ops, &endpoint, 1, &cfg, &err, &a),
	    STATUS_OK);
	memset(&wo, 0, sizeof(wo));
	wo.window_ns = window;
	wo.refresh_ns = refresh;
	wo.max_windows = max;
	ck_assert_int_eq(worker_start(a, &wo, &w), STATUS_OK);
	while (!done) {
		struct worker_msg *m = NULL;
		struct pollfd p = { worker_fd(w), POLLIN, 0 };

		if (worker_read(w, &m) != STATUS_OK) {
			ck_assert_msg(poll(&p, 1, 30000) > 0,
			              "no message from the worker within 30 s");
			continue;
		}
		done = m->kind == WORKER_DONE;
		if (!done)
			keep(r, m);
		worker_msg_free(m);
	}
	worker_free(w);
	adapter_close(a);
}

/* The strings and stacks of the window scenario. */
static const struct fstr strs[] = {
	{ 1, "main:<module>:1" }, { 2, "app:serve:10" }, { 3, "app:handle:20" },
	{ 4, "worker" },          { 5, "MainThread" },   { 6, "loop-2" },
};
static const struct fstack stks[] = {
	{ 1, 0, 1, { 1 } },
	{ 2, 1, 2, { 2, 3 } },
};

#define MSs(x) ((uint64_t)(x)*MSEC)

static const struct ftask task_a0 = { .id = 1,
	                              .stack = 2,
	                              .name = 4,
	                              .thread = 5,
	                              .state = 3,
	                              .created = MSs(500),
	                              .t_mark = MSs(900),
	                              .polls = 5,
	                              .wakes = 4,
	                              .busy = MSs(100),
	                              .sched = MSs(50),
	                              .idle = MSs(250) };
static const struct ftask task_b0 = { .id = 2,
	                              .stack = 1,
	                              .thread = 5,
	                              .state = 2,
	                              .created = MSs(800),
	                              .t_mark = MSs(950),
	                              .polls = 2,
	                              .wakes = 1,
	                              .busy = MSs(100),
	                              .sched = MSs(50) };

/* The first READ's reply: the baseline at T0 = 1 s. */
static void first_reply(struct buf *b)
{
	struct ftask t[2] = { task_a0, task_b0 };

	put_strings(b, 2, strs, 6);
	put_stacks(b, 2, stks, 2);
	put_tasks(b, 2, t, 2);
	put_end(b, 2, MSs(1000), 2, 1, END_FIRST_F);
}

#define A_STACK "main:<module>:1;app:serve:10;app:handle:20"

/* Exact figures: a task ending in the window counts until its end, one
 * created in it from its creation, an untouched one is extrapolated from
 * its state, aggregates by difference; then thread roots, then the final
 * push of an exiting application, then the socket is gone. */
START_TEST(asyncio_window_arithmetic)
{
	struct agent g;
	static struct run r;
	struct buf *b;
	struct ftask a1 = task_a0, c1 = { 0 }, d1 = { 0 }, b1 = task_b0;
	struct ftask b3 = task_b0;
	struct fagg agg = { 2, 5, 3, 6, 3, MSs(30), MSs(20), MSs(10) };
	struct ftask two[4];

	agent_init(&g);
	put_hello_ok(agent_step(&g, AGENT_REPLY), 1, 4242);
	first_reply(agent_step(&g, AGENT_REPLY));
	/* T1 = 3 s */
	a1.state = 4;
	a1.ended = a1.t_mark = MSs(2500);
	a1.busy = MSs(300);
	a1.sched = MSs(200);
	a1.idle = MSs(1500);
	a1.polls = 9;
	a1.wakes = 8;
	c1.id = 3;
	c1.flags = 1; /* spawn site unknown */
	c1.name = 4;
	c1.thread = 6;
	c1.state = 1;
	c1.created = MSs(1500);
	c1.t_mark = MSs(2900);
	c1.busy = MSs(600);
	c1.sched = MSs(300);
	c1.idle = MSs(500);
	c1.polls = c1.wakes = 3;
	d1.id = 4;
	d1.stack = 2;
	d1.name = 4;
	d1.thread = 5;
	d1.state = 4;
	d1.created = MSs(1200);
	d1.ended = d1.t_mark = MSs(1700);
	d1.busy = d1.sched = MSs(100);
	d1.idle = MSs(300);
	d1.polls = 2;
	d1.wakes = 1;
	/* B went idle at 0.98 s, before T0, but is only sent now: its
	 * record, exact at T0, replaces the extrapolated baseline */
	b1.state = 3;
	b1.t_mark = MSs(980);
	b1.busy = MSs(130);
	two[0] = a1;
	two[1] = c1;
	two[2] = d1;
	two[3] = b1;
	b = agent_step(&g, AGENT_REPLY);
	put_tasks(b, 3, two, 4);
	put_aggs(b, 3, &agg, 1);
	put_end(b, 3, MSs(3000), 4, 1, 0);
	/* T2 = 4 s: nothing changed, a second loop thread */
	put_end(agent_step(&g, AGENT_REPLY), 4, MSs(4000), 0, 2, 0);
	/* T3 = 4.5 s: the application exits; B ended at 4.2 s */
	b3.state = 4;
	b3.ended = b3.t_mark = MSs(4200);
	b3.busy = MSs(130);
	b3.idle = MSs(3220);
	b = agent_step(&g, AGENT_REPLY);
	put_tasks(b, 0, &b3, 1);
	put_end(b, 0, MSs(4500), 1, 2, END_FINAL_F);
	g.unlink_at_end = true;
	agent_start(&g);

	drive(g.path, MSEC, 10 * SEC, 4, 2 * SEC, &r);
	ck_assert_uint_eq(r.n, 4);
	ck_assert_str_eq(r.states, "connecting,connected,lost,connecting,"
	                           "retrying");
	ck_assert_int_eq(r.m[0].kind, WORKER_WINDOW);
	ck_assert_int_eq(r.m[0].duration, (int64_t)(2 * SEC));
	ck_assert_int_eq(r.m[0].time, (int64_t)(1700000001 * SEC));
	ck_assert(!r.m[0].partial);
	ck_assert_uint_eq(r.m[0].n, 5);
	ck_assert_str_eq(r.m[0].line[0],
	                 "[spawn site unknown]|worker|500000000|600000000|"
	                 "400000000|3|3|1");
	ck_assert_str_eq(r.m[0].line[1], A_STACK "|<3 finished tasks>|10000000|"
	                                         "30000000|20000000|6|3|3");
	ck_assert_str_eq(r.m[0].line[2], A_STACK "|worker|1150000000|200000000|"
	                                         "150000000|4|4|1");
	ck_assert_str_eq(r.m[0].line[3], A_STACK "|worker|300000000|100000000|"
	                                         "100000000|2|1|1");
	ck_assert_str_eq(r.m[0].line[4],
	                 "main:<module>:1||2000000000|0|0|0|0|1");

	ck_assert_int_eq(r.m[1].kind, WORKER_WINDOW);
	ck_assert_int_eq(r.m[1].duration, (int64_t)SEC);
	ck_assert_int_eq(r.m[1].time, (int64_t)(1700000003 * SEC));
	ck_assert_uint_eq(r.m[1].n, 2);
	ck_assert_str_eq(r.m[1].line[0], "[thread MainThread];main:<module>:1|"
	                                 "|1000000000|0|0|0|0|1");
	ck_assert_str_eq(r.m[1].line[1],
	                 "[thread loop-2];[spawn site "
	                 "unknown]|worker|0|0|1000000000|0|0|1");

	ck_assert_int_eq(r.m[2].kind, WORKER_WINDOW);
	ck_assert_int_eq(r.m[2].duration, (int64_t)(500 * MSEC));
	ck_assert_int_eq(r.m[2].time, (int64_t)(1700000004 * SEC));
	ck_assert(r.m[2].partial);
	ck_assert_str_eq(r.m[2].reason, "application exited");
	ck_assert_uint_eq(r.m[2].n, 2);
	ck_assert_str_eq(r.m[2].line[0], "[thread MainThread];main:<module>:1|"
	                                 "|200000000|0|0|0|0|1");
	ck_assert_str_eq(r.m[2].line[1], "[thread loop-2];[spawn site "
	                                 "unknown]|worker|0|0|500000000|0|0|1");

	ck_assert_int_eq(r.m[3].kind, WORKER_ERROR);
	ck_assert_int_eq(r.m[3].st, STATUS_UNREACHABLE);
	ck_assert_ptr_nonnull(strstr(r.m[3].detail, strerror(ENOENT)));
	ck_assert_ptr_nonnull(
	    strstr(r.m[3].remedy, "python3 -m asynctop_agent"));
	agent_fini(&g);
	ck_assert_uint_eq(g.nreq, 5);
	ck_assert_uint_eq(g.req[0], ASYNCIO_HELLO);
	ck_assert_uint_eq(g.req[4], ASYNCIO_READ);
}
END_TEST

/* Progress views carry partial figures; a final push that arrives while
 * the reader waits ends the window there. */
START_TEST(asyncio_progress_then_exit)
{
	struct agent g;
	static struct run r;
	struct buf *b;
	struct ftask a1 = task_a0;
	size_t i, windows = 0, progress = 0;

	agent_init(&g);
	put_hello_ok(agent_step(&g, AGENT_REPLY), 1, 4242);
	first_reply(agent_step(&g, AGENT_REPLY));
	put_end(agent_step(&g, AGENT_REPLY), 3, MSs(2000), 0, 1, 0);
	a1.state = 4;
	a1.ended = a1.t_mark = MSs(2500);
	a1.busy = MSs(300);
	a1.sched = MSs(200);
	a1.idle = MSs(1500);
	b = agent_step(&g, AGENT_PUSH);
	put_tasks(b, 0, &a1, 1);
	put_end(b, 0, MSs(3000), 1, 1, END_FINAL_F);
	agent_start(&g);

	drive(g.path, 60 * SEC, 10 * MSEC, 1, 2 * SEC, &r);
	for (i = 0; i < r.n; i++) {
		if (r.m[i].kind == WORKER_PROGRESS) {
			progress++;
			ck_assert(r.m[i].partial);
			ck_assert_uint_eq(r.m[i].n, 2);
			ck_assert_str_eq(r.m[i].line[0], A_STACK
			                 "|worker|1000000000|0|0|0|0|1");
			ck_assert_str_eq(
			    r.m[i].line[1],
			    "main:<module>:1||0|1000000000|0|0|0|1");
		}
		if (r.m[i].kind != WORKER_WINDOW)
			continue;
		windows++;
		ck_assert(r.m[i].partial);
		ck_assert_str_eq(r.m[i].reason, "application exited");
		ck_assert_int_eq(r.m[i].duration, (int64_t)(2 * SEC));
		ck_assert_uint_eq(r.m[i].n, 2);
		ck_assert_str_eq(r.m[i].line[0], A_STACK "|worker|1150000000|"
		                                         "200000000|150000000|"
		                                         "0|0|1");
		ck_assert_str_eq(r.m[i].line[1],
		                 "main:<module>:1||0|2000000000|0|0|0|1");
	}
	ck_assert_uint_eq(progress, 1);
	ck_assert_uint_eq(windows, 1);
	agent_fini(&g);
}
END_TEST

/* A connection lost mid-window keeps the window up to the last read. */
START_TEST(asyncio_lost_keeps_partial)
{
	struct agent g;
	static struct run r;

	agent_init(&g);
	put_hello_ok(agent_step(&g, AGENT_REPLY), 1, 4242);
	first_reply(agent_step(&g, AGENT_REPLY));
	put_end(agent_step(&g, AGENT_REPLY), 3, MSs(1500), 0, 1, 0);
	(void)agent_step(&g, AGENT_CLOSE);
	agent_start(&g);
	drive(g.path, 60 * SEC, 10 * MSEC, 1, 2 * SEC, &r);
	ck_assert_uint_ge(r.n, 1);
	ck_assert_int_eq(r.m[r.n - 1].kind, WORKER_WINDOW);
	ck_assert(r.m[r.n - 1].partial);
	ck_assert_str_eq(r.m[r.n - 1].reason,
	                 "agent connection lost: the agent closed the "
	                 "connection without a final snapshot (the process "
	                 "may have been killed)");
	ck_assert_int_eq(r.m[r.n - 1].duration, (int64_t)(500 * MSEC));
	ck_assert_uint_eq(r.m[r.n - 1].n, 2);
	ck_assert_str_eq(r.m[r.n - 1].line[1],
	                 "main:<module>:1||0|500000000|0|0|0|1");
	agent_fini(&g);
}
END_TEST

/* An agent that never answers is a timeout, reported as such. */
START_TEST(asyncio_timeout)
{
	struct agent g;
	static struct run r;

	agent_init(&g);
	put_hello_ok(agent_step(&g, AGENT_REPLY), 1, 4242);
	(void)agent_step(&g, AGENT_HANG);
	agent_start(&g);
	drive(g.path, MSEC, 10 * SEC, 1, 300 * MSEC, &r);
	ck_assert_uint_eq(r.n, 1);
	ck_assert_int_eq(r.m[0].kind, WORKER_ERROR);
	ck_assert_int_eq(r.m[0].st, STATUS_TIMEOUT);
	ck_assert_str_eq(r.m[0].detail, "the agent did not answer within 0.3s");
	ck_assert_ptr_nonnull(strstr(r.m[0].remedy, "GIL"));
	agent_fini(&g);
}
END_TEST

/* No socket, or a stale one: unreachable, with the way to opt in. */
START_TEST(asyncio_unreachable)
{
	char dir[64], path[ASYNCIO_PATH_MAX], want[300];
	static struct run r;

	tu_mkdtemp(dir, sizeof(dir));
	snprintf(path, sizeof(path), "%s/1.sock", dir);
	stale_at(path);
	drive(path, MSEC, 10 * SEC, 1, SEC, &r);
	ck_assert_uint_eq(r.n, 1);
	ck_assert_int_eq(r.m[0].st, STATUS_UNREACHABLE);
	snprintf(want, sizeof(want), "no agent answers: %s: %s", path,
	         strerror(ECONNREFUSED));
	ck_assert_str_eq(r.m[0].detail, want);
	ck_assert_str_eq(r.m[0].remedy,
	                 "the application must opt in to the agent: run it as "
	                 "`python3 -m asynctop_agent app.py` or call `import "
	                 "asynctop_agent; asynctop_agent.start()` "
	                 "(adapters/asyncio on PYTHONPATH); the process may "
	                 "also have exited");
	unlink(path);
	tu_rmtree(dir);
}
END_TEST

/* ---- hostile replies -------------------------------------------------------
 */

struct bad {
	const char *name;
	void (*build)(struct agent *g);
	enum status st;
	const char *detail;
};

static void bad_magic(struct agent *g)
{
	(void)buf_adds(agent_step(g, AGENT_REPLY), "HTTP/1.1 400 Bad\r\n\r\n");
}

static void bad_version(struct agent *g)
{
	struct buf *b = agent_step(g, AGENT_REPLY);

	put_hello_ok(b, 1, 1);
	b->data[4] = 2;
}

static void hello_ok(struct agent *g)
{
	put_hello_ok(agent_step(g, AGENT_REPLY), 1, 4242);
}

static void oversized(struct agent *g)
{
	struct buf *b;
	size_t at;

	hello_ok(g);
	b = agent_step(g, AGENT_REPLY);
	fr_begin(b, ASYNCIO_TASKS, 2, &at);
	fr_end(b, at);
	b->data[at + 10] = 0x20; /* 2 MiB */
}

static void unknown_type(struct agent *g)
{
	struct buf *b;
	size_t at;

	hello_ok(g);
	b = agent_step(g, AGENT_REPLY);
	fr_begin(b, 0x42, 2, &at);
	fr_end(b, at);
}

static void count_past_end(struct agent *g)
{
	struct buf *b;
	size_t at;

	hello_ok(g);
	b = agent_step(g, AGENT_REPLY);
	fr_begin(b, ASYNCIO_STRINGS, 2, &at);
	(void)wire_put_u32(b, 1000);
	(void)wire_put_u32(b, 1);
	(void)wire_put_u32(b, 3);
	(void)buf_adds(b, "abc");
	fr_end(b, at);
}

static void string_undefined(struct agent *g)
{
	struct buf *b;
	struct ftask t = task_a0;

	hello_ok(g);
	b = agent_step(g, AGENT_REPLY);
	put_strings(b, 2, strs, 6);
	put_stacks(b, 2, stks, 2);
	t.name = 99;
	put_tasks(b, 2, &t, 1);
	put_end(b, 2, SEC, 1, 1, 0);
}

static void stack_cycle(struct agent *g)
{
	static const struct fstack cyc = { 2, 2, 1, { 1 } };
	struct buf *b;

	hello_ok(g);
	b = agent_step(g, AGENT_REPLY);
	put_strings(b, 2, strs, 6);
	put_stacks(b, 2, &cyc, 1);
}

static void stack_too_deep(struct agent *g)
{
	static const struct fstack deep = { 1, 0, 129, { 1, 2, 3, 4 } };
	struct buf *b;

	hello_ok(g);
	b = agent_step(g, AGENT_REPLY);
	put_strings(b, 2, strs, 6);
	put_stacks(b, 2, &deep, 1);
}

static void stack_parent_missing(struct agent *g)
{
	static const struct fstack orphan = { 7, 3, 1, { 1 } };
	struct buf *b;

	hello_ok(g);
	b = agent_step(g, AGENT_REPLY);
	put_strings(b, 2, strs, 6);
	put_stacks(b, 2, &orphan, 1);
}

static void string_too_long(struct agent *g)
{
	struct buf *b;
	size_t at;

	hello_ok(g);
	b = agent_step(g, AGENT_REPLY);
	fr_begin(b, ASYNCIO_STRINGS, 2, &at);
	(void)wire_put_u32(b, 1);
	(void)wire_put_u32(b, 1);
	(void)wire_put_u32(b, 5000);
	fr_end(b, at);
}

static void string_twice(struct agent *g)
{
	hello_ok(g);
	put_strings(agent_step(g, AGENT_REPLY), 2, strs, 2);
	put_strings(&g->step[g->nsteps - 1].out, 2, strs + 1, 1);
}

static void end_miscount(struct agent *g)
{
	hello_ok(g);
	put_end(agent_step(g, AGENT_REPLY), 2, SEC, 5, 1, 0);
}

static void end_short(struct agent *g)
{
	struct buf *b;
	size_t at;

	hello_ok(g);
	b = agent_step(g, AGENT_REPLY);
	fr_begin(b, ASYNCIO_END, 2, &at);
	(void)wire_put_u64(b, SEC);
	fr_end(b, at);
}

static void refused_uid(struct agent *g)
{
	struct buf *b = agent_step(g, AGENT_REPLY);
	size_t at;

	fr_begin(b, ASYNCIO_ERROR, 0, &at);
	(void)wire_put_u32(b, 1);
	(void)buf_adds(b, "uid 1001 is not 0");
	fr_end(b, at);
}

static void wrong_seq(struct agent *g)
{
	hello_ok(g);
	put_end(agent_step(g, AGENT_REPLY), 9, SEC, 0, 1, 0);
}

static void record_size(struct agent *g)
{
	struct buf *b;
	size_t at;

	hello_ok(g);
	b = agent_step(g, AGENT_REPLY);
	fr_begin(b, ASYNCIO_TASKS, 2, &at);
	(void)wire_put_u32(b, 0);
	(void)wire_put_u32(b, 100);
	fr_end(b, at);
}

static void done_without_end(struct agent *g)
{
	struct buf *b;
	struct ftask t = task_a0;

	hello_ok(g);
	b = agent_step(g, AGENT_REPLY);
	put_strings(b, 2, strs, 6);
	put_stacks(b, 2, stks, 2);
	t.state = 4;
	put_tasks(b, 2, &t, 1);
}

static void hello_lengths(struct agent *g)
{
	struct buf *b = agent_step(g, AGENT_REPLY);

	put_hello_ok(b, 1, 1);
	b->data[16 + 56] = 0x2c; /* len_python 300 */
	b->data[16 + 57] = 0x01;
}

static void hello_error_version(struct agent *g)
{
	struct buf *b = agent_step(g, AGENT_REPLY);
	size_t at;

	fr_begin(b, ASYNCIO_ERROR, 1, &at);
	(void)wire_put_u32(b, 4);
	(void)buf_adds(b, "this agent speaks 3");
	fr_end(b, at);
}

static void closes_mid_frame(struct agent *g)
{
	struct buf *b;
	struct ftask t[2] = { task_a0, task_b0 };
	size_t before;

	hello_ok(g);
	b = agent_step(g, AGENT_CUT);
	put_strings(b, 2, strs, 6);
	put_stacks(b, 2, stks, 2);
	before = b->len;
	put_tasks(b, 2, t, 2);
	g->step[g->nsteps - 1].cut = before + 16 + 10;
}

static const struct bad bads[] = {
	{ "magic", bad_magic, STATUS_MALFORMED,
	  "the reply does not start with the magic \"ATOP\" (got 48 54 54 50): "
	  "not an asynctop agent" },
	{ "version", bad_version, STATUS_MALFORMED,
	  "agent speaks protocol version 2, this reader speaks 1" },
	{ "oversized", oversized, STATUS_MALFORMED,
	  "a TASKS frame of 2097152 bytes exceeds the 1048576-byte limit" },
	{ "type", unknown_type, STATUS_MALFORMED, "unknown frame type 0x0042" },
	{ "count", count_past_end, STATUS_MALFORMED,
	  "STRINGS frame: the string count 1000 (at least 8 bytes each) "
	  "exceeds the 11 bytes left at offset 4" },
	{ "string id", string_undefined, STATUS_MALFORMED,
	  "TASKS frame: task 1 names string 99, which is not defined at "
	  "offset 28" },
	{ "cycle", stack_cycle, STATUS_MALFORMED,
	  "STACKS frame: stack 2 names parent 2, which is not below it (a "
	  "cycle) at offset 8" },
	{ "depth", stack_too_deep, STATUS_MALFORMED,
	  "STACKS frame: stack 1 has 129 frames (1 to 128 allowed) at offset "
	  "12" },
	{ "parent", stack_parent_missing, STATUS_MALFORMED,
	  "STACKS frame: stack 7 names parent 3, which is not defined at "
	  "offset 8" },
	{ "long string", string_too_long, STATUS_MALFORMED,
	  "STRINGS frame: string 1 is 5000 bytes long, over 4096 at offset 8" },
	{ "twice", string_twice, STATUS_MALFORMED,
	  "STRINGS frame: string id 2 defined twice at offset 4" },
	{ "miscount", end_miscount, STATUS_MALFORMED,
	  "END frame: it counts 5 task records, the reply carried 0" },
	{ "short end", end_short, STATUS_MALFORMED,
	  "END frame: an END of 8 bytes, not 64 at offset 0" },
	{ "refused", refused_uid, STATUS_UNREACHABLE,
	  "the agent refused this user: uid 1001 is not 0" },
	{ "seq", wrong_seq, STATUS_MALFORMED,
	  "the END frame answers request 9 while request 2 was pending" },
	{ "record size", record_size, STATUS_MALFORMED,
	  "TASKS frame: task records of 100 bytes, not 112 at offset 4" },
	{ "done", done_without_end, STATUS_MALFORMED,
	  "TASKS frame: task 1 is done but its end time is 0 at offset 56" },
	{ "hello lengths", hello_lengths, STATUS_MALFORMED,
	  "HELLO_OK frame: string lengths 300, 6, 3 exceed 256, 1024, 64 at "
	  "offset 56" },
	{ "hello version", hello_error_version, STATUS_MALFORMED,
	  "the agent does not speak version 1: this agent speaks 3" },
	{ "mid-frame", closes_mid_frame, STATUS_MALFORMED,
	  "the agent closed the connection in the middle of a TASKS frame (10 "
	  "of 232 bytes)" },
};

START_TEST(asyncio_hostile)
{
	const struct bad *x = &bads[_i];
	struct agent g;
	static struct run r;

	agent_init(&g);
	x->build(&g);
	agent_start(&g);
	drive(g.path, MSEC, 10 * SEC, 1, 2 * SEC, &r);
	ck_assert_uint_eq(r.n, 1);
	ck_assert_int_eq(r.m[0].kind, WORKER_ERROR);
	ck_assert_msg(r.m[0].st == x->st, "%s: %s, not %s", x->name,
	              status_name(r.m[0].st), status_name(x->st));
	ck_assert_str_eq(r.m[0].detail, x->detail);
	agent_fini(&g);
}
END_TEST

/* The first READ's good reply cut at every offset: an error at a frame
 * boundary is a lost connection, inside a frame a malformed one; never
 * a crash or a read past what arrived. */
START_TEST(asyncio_truncated_every_offset)
{
	struct buf good;
	bool boundary[2048];
	size_t cut, at = 0;

	buf_init(&good);
	first_reply(&good);
	ck_assert_uint_lt(good.len, sizeof(boundary));
	memset(boundary, 0, sizeof(boundary));
	while (at < good.len) { /* mark where frames start */
		boundary[at] = true;
		at += 16 + wire_le32((const unsigned char *)good.data + at + 8);
	}
	for (cut = 0; cut < good.len; cut++) {
		struct agent g;
		static struct run r;
		struct buf *b;

		agent_init(&g);
		hello_ok(&g);
		b = agent_step(&g, AGENT_CUT);
		(void)buf_add(b, good.data, good.len);
		g.step[1].cut = cut;
		agent_start(&g);
		drive(g.path, MSEC, 10 * SEC, 1, 2 * SEC, &r);
		ck_assert_uint_eq(r.n, 1);
		ck_assert_int_eq(r.m[0].kind, WORKER_ERROR);
		if (boundary[cut]) {
			ck_assert_int_eq(r.m[0].st, STATUS_UNREACHABLE);
			ck_assert_ptr_nonnull(
			    strstr(r.m[0].detail, "without a final snapshot"));
		} else {
			ck_assert_msg(r.m[0].st == STATUS_MALFORMED,
			              "cut %zu: %s", cut, r.m[0].detail);
			ck_assert_ptr_nonnull(
			    strstr(r.m[0].detail, "in the middle of a"));
		}
		agent_fini(&g);
	}
	buf_fini(&good);
}
END_TEST

/* A chain of stacks deeper than 128 frames is handed over whole, root
 * first (the model marks the cut); a task's frames follow its parents; a
 * task with stack 0 has none. */
START_TEST(asyncio_deep_chain)
{
	static const struct fstack chain[] = {
		{ 1, 0, 100, { 1, 1, 1, 1 } },
		{ 2, 1, 100, { 2, 2, 2, 2 } },
		{ 3, 2, 100, { 3, 3, 3, 3 } },
	};
	struct agent g;
	static struct run r;
	struct buf *b;
	struct ftask t[2] = { task_b0, task_b0 };
	const char *line, *p;
	size_t frames = 1;

	agent_init(&g);
	hello_ok(&g);
	b = agent_step(&g, AGENT_REPLY);
	put_strings(b, 2, strs, 6);
	put_stacks(b, 2, chain, 3);
	t[0].stack = 3;
	t[1].id = 5; /* no stack at all: the model's [no spawn stack] */
	t[1].stack = 0;
	put_tasks(b, 2, t, 2);
	put_end(b, 2, SEC, 2, 1, 0);
	put_end(agent_step(&g, AGENT_REPLY), 3, 2 * SEC, 0, 1, 0);
	agent_start(&g);
	drive(g.path, MSEC, 10 * SEC, 1, 2 * SEC, &r);
	ck_assert_uint_eq(r.n, 1);
	ck_assert_uint_eq(r.m[0].n, 2);
	ck_assert_str_eq(r.m[0].line[1], "||0|1000000000|0|0|0|1");
	line = r.m[0].line[0];
	for (p = line; (p = strchr(p, ';')) != NULL; p++)
		frames++;
	ck_assert_uint_eq(frames, 300);
	ck_assert_ptr_eq(strstr(line, "main:<module>:1;"), line);
	ck_assert_ptr_nonnull(strstr(line, "main:<module>:1;app:serve:10;"));
	ck_assert_ptr_nonnull(strstr(line, "app:serve:10;app:handle:20;"));
	ck_assert_ptr_nonnull(strstr(line, "app:handle:20||0|1000000000|"));
	agent_fini(&g);
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
	lfd = listen_at(path);
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

/* Builds the agent of the allocation-failure runs: a baseline, a window
 * with new, finished and aggregated tasks, then the final push. */
static void torture_agent(struct agent *g)
{
	struct ftask t[2] = { task_a0, task_b0 };
	struct fagg agg = { 2, 5, 3, 6, 3, MSs(30), MSs(20), MSs(10) };
	struct buf *b;

	agent_init(g);
	hello_ok(g);
	first_reply(agent_step(g, AGENT_REPLY));
	t[0].state = 4;
	t[0].ended = t[0].t_mark = MSs(2500);
	t[0].idle = MSs(1650);
	t[1].id = 9;
	t[1].created = MSs(1200);
	t[1].t_mark = MSs(1300);
	b = agent_step(g, AGENT_REPLY);
	put_tasks(b, 3, t, 2);
	put_aggs(b, 3, &agg, 1);
	put_end(b, 3, MSs(3000), 2, 2, 0);
	b = agent_step(g, AGENT_REPLY);
	put_end(b, 0, MSs(3500), 0, 2, END_FINAL_F);
	g->unlink_at_end = true;
	agent_start(g);
}

/* One run that tolerates any allocation failure: every outcome but a
 * crash or a leak is fine. */
static void torture_run(const char *path)
{
	struct adapter_config cfg;
	struct worker_opts wo;
	struct adapter *a = NULL;
	struct worker *w = NULL;
	bool done = false;

	adapter_config_default(&cfg);
	cfg.reply_timeout_ns = 50 * MSEC;
	if (adapter_open(&asyncio_ops, &path, 1, &cfg, NULL, &a) != STATUS_OK)
		return;
	memset(&wo, 0, sizeof(wo));
	wo.window_ns = MSEC;
	wo.refresh_ns = 10 * SEC;
	wo.max_windows = 3;
	if (worker_start(a, &wo, &w) != STATUS_OK) {
		adapter_close(a);
		return;
	}
	while (!done) {
		struct worker_msg *m = NULL;
		struct pollfd p = { worker_fd(w), POLLIN, 0 };

		if (worker_read(w, &m) != STATUS_OK) {
			ck_assert(poll(&p, 1, 30000) > 0);
			continue;
		}
		done = m->kind == WORKER_DONE;
		worker_msg_free(m);
	}
	worker_free(w);
	adapter_close(a);
}

/* Every allocation of a whole session failing in turn. */
START_TEST(asyncio_allocation_failures)
{
	struct agent g;
	unsigned long total, i;

	torture_agent(&g);
	mem_count_reset();
	torture_run(g.path);
	total = mem_count();
	agent_fini(&g);
	ck_assert_uint_gt(total, 10);
	for (i = 1; i <= total; i++) {
		torture_agent(&g);
		mem_count_reset();
		mem_fail_at(i);
		torture_run(g.path);
		mem_fail_at(0);
		agent_fini(&g);
	}
	mem_count_reset();
}
END_TEST

Suite *suite_asyncio(void);
Suite *suite_asyncio(void)
{
	Suite *s = suite_create("asyncio");
	TCase *t = tcase_create("endpoint");

	tcase_add_test(t, endpoint_parse_path);
	tcase_add_test(t, endpoint_parse_pid);
	tcase_add_test(t, endpoint_dirs);
	tcase_add_test(t, endpoint_list_live);
	tcase_add_test(t, endpoint_format_list);
	tcase_add_test(t, endpoint_connect_rules);
	tcase_add_test(t, asyncio_discovery);
	suite_add_tcase(s, t);
	t = tcase_create("reader");
	tcase_set_timeout(t, 120);
	tcase_add_test(t, asyncio_window_arithmetic);
	tcase_add_test(t, asyncio_progress_then_exit);
	tcase_add_test(t, asyncio_lost_keeps_partial);
	tcase_add_test(t, asyncio_timeout);
	tcase_add_test(t, asyncio_unreachable);
	tcase_add_loop_test(t, asyncio_hostile, 0, (int)ARRAY_SIZE(bads));
	tcase_add_test(t, asyncio_truncated_every_offset);
	tcase_add_test(t, asyncio_deep_chain);
	tcase_add_test(t, asyncio_allocation_failures);
	suite_add_tcase(s, t);
	return s;
}
