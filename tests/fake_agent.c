/* The fake asyncio agent (see fake_agent.h). */
#include "tests/fake_agent.h"

#include <check.h>
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "adapters/asyncio.h"
#include "adapters/wire.h"
#include "tests/adapter_util.h"
#include "tests/util.h"

void agent_stale_at(const char *path)
{
	close(tu_listen_unix(path));
}

void fr_begin(struct buf *b, uint16_t type, uint32_t seq, size_t *at)
{
	*at = b->len;
	(void)buf_add(b, "ATOP", 4);
	(void)wire_put_u16(b, ASYNCIO_PROTO_VERSION);
	(void)wire_put_u16(b, type);
	(void)wire_put_u32(b, 0);
	(void)wire_put_u32(b, seq);
}

void fr_end(struct buf *b, size_t at)
{
	uint32_t len = (uint32_t)(b->len - at - 16);

	ck_assert_int_eq(buf_status(b), STATUS_OK);
	b->data[at + 8] = (char)(len & 0xff);
	b->data[at + 9] = (char)(len >> 8 & 0xff);
	b->data[at + 10] = (char)(len >> 16 & 0xff);
	b->data[at + 11] = (char)(len >> 24);
}

void put_hello_ok(struct buf *b, uint32_t seq, uint32_t pid)
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

void put_strings(struct buf *b, uint32_t seq, const struct fstr *s, size_t n)
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

void put_stacks(struct buf *b, uint32_t seq, const struct fstack *s, size_t n)
{
	size_t at, i, j;

	fr_begin(b, ASYNCIO_STACKS, seq, &at);
	(void)wire_put_u32(b, (uint32_t)n);
	for (i = 0; i < n; i++) {
		(void)wire_put_u32(b, s[i].id);
		(void)wire_put_u32(b, s[i].parent);
		(void)wire_put_u32(b, s[i].n);
		(void)wire_put_u32(b, s[i].dropped);
		for (j = 0; j < s[i].n; j++)
			(void)wire_put_u32(b, s[i].frames[j % 4]);
	}
	fr_end(b, at);
}

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
	(void)wire_put_u32(b, t->parked);
	(void)wire_put_u64(b, t->created);
	(void)wire_put_u64(b, t->ended);
	(void)wire_put_u64(b, t->t_mark);
	(void)wire_put_u64(b, t->polls);
	(void)wire_put_u64(b, t->wakes);
	(void)wire_put_u64(b, t->self_wakes);
	(void)wire_put_u64(b, t->busy);
	(void)wire_put_u64(b, t->sched);
	(void)wire_put_u64(b, t->idle);
	(void)wire_put_u64(b, t->max_step);
	(void)wire_put_u64(b, 0);
}

void put_tasks(struct buf *b, uint32_t seq, const struct ftask *t, size_t n)
{
	size_t at, i;

	fr_begin(b, ASYNCIO_TASKS, seq, &at);
	(void)wire_put_u32(b, (uint32_t)n);
	(void)wire_put_u32(b, 128);
	for (i = 0; i < n; i++)
		put_task(b, &t[i]);
	fr_end(b, at);
}

void put_retire(struct buf *b, uint32_t seq, const uint32_t *ids, size_t n)
{
	size_t at, i;

	fr_begin(b, ASYNCIO_RETIRE, seq, &at);
	(void)wire_put_u32(b, (uint32_t)n);
	for (i = 0; i < n; i++)
		(void)wire_put_u32(b, ids[i]);
	fr_end(b, at);
}

void put_aggs(struct buf *b, uint32_t seq, const struct fagg *g, size_t n)
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
		(void)wire_put_u64(b, g[i].self_wakes);
		(void)wire_put_u64(b, g[i].busy);
		(void)wire_put_u64(b, g[i].sched);
		(void)wire_put_u64(b, g[i].idle);
	}
	fr_end(b, at);
}

void put_end(struct buf *b, uint32_t seq, uint64_t boundary, uint64_t records,
             uint32_t threads, uint32_t flags)
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

static bool agent_request(struct agent *g, int fd, uint32_t *seq)
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
	*seq = wire_le32(h + 12);
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

/* Answers every request with an END saying more is to come. */
static void agent_more(struct agent *g, int fd)
{
	uint32_t seq;
	struct buf b;

	buf_init(&b);
	while (agent_request(g, fd, &seq)) {
		buf_reset(&b);
		put_end(&b, seq, SEC, 0, 1, END_MORE_F);
		agent_send(fd, (const char *)b.data, b.len);
	}
	buf_fini(&b);
}

/* Sends the frames of p one at a time, ms milliseconds before each, as an
 * agent short of CPU answers a large read. */
static void agent_send_slowly(int fd, const char *p, size_t n, size_t ms)
{
	struct timespec ts = { .tv_sec = (time_t)(ms / 1000),
		               .tv_nsec = (long)(ms % 1000) * 1000000L };

	while (n >= 16) {
		size_t len =
		    16 + (size_t)wire_le32((const unsigned char *)p + 8);

		if (len > n)
			len = n;
		nanosleep(&ts, NULL);
		agent_send(fd, p, len);
		p += len;
		n -= len;
	}
}

static void *agent_serve(void *arg)
{
	struct agent *g = arg;
	int fd;
	size_t i;
	uint32_t seq;
	char c;

	if (!agent_wait(g, g->lfd))
		return NULL;
	fd = accept(g->lfd, NULL, NULL);
	if (fd < 0)
		return NULL;
	for (i = 0; i < g->nsteps; i++) {
		struct agent_step *s = &g->step[i];

		if (s->mode == AGENT_MORE) {
			agent_more(g, fd);
			break;
		}
		if (s->mode != AGENT_PUSH && !agent_request(g, fd, &seq))
			break;
		if (s->mode == AGENT_HANG) {
			agent_wait(g, g->quit[0]);
			break;
		}
		if (s->mode == AGENT_CLOSE)
			break;
		if (i + 1 == g->nsteps && g->unlink_at_end)
			unlink(g->path); /* as an exiting agent, first */
		if (s->mode == AGENT_SLOW)
			agent_send_slowly(fd, (const char *)s->out.data,
			                  s->out.len, s->cut);
		else
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

void agent_init(struct agent *g)
{
	size_t i;

	memset(g, 0, sizeof(*g));
	tu_mkdtemp(g->dir, sizeof(g->dir));
	snprintf(g->path, sizeof(g->path), "%s/agent.sock", g->dir);
	g->lfd = tu_listen_unix(g->path);
	ck_assert_int_eq(pipe(g->quit), 0);
	for (i = 0; i < 8; i++)
		buf_init(&g->step[i].out);
}

struct buf *agent_step(struct agent *g, enum agent_mode mode)
{
	ck_assert_uint_lt(g->nsteps, 8);
	g->step[g->nsteps].mode = mode;
	return &g->step[g->nsteps++].out;
}

void agent_start(struct agent *g)
{
	ck_assert_int_eq(pthread_create(&g->th, NULL, agent_serve, g), 0);
}

void agent_fini(struct agent *g)
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

static enum status take_sample(void *ctx, const struct sample *s)
{
	struct agent_msg *g = ctx;
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

static void keep(struct agent_run *r, const struct worker_msg *m)
{
	struct agent_msg *g;

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

void agent_drive(const char *endpoint, uint64_t window, uint64_t refresh,
                 uint64_t max, uint64_t reply_timeout, struct agent_run *r)
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
		struct worker_msg *m = au_wait_msg(w, 30);

		done = m->kind == WORKER_DONE;
		if (!done)
			keep(r, m);
		worker_msg_free(m);
	}
	worker_free(w);
	adapter_close(a);
}

const struct fstr agent_strs[6] = {
	{ 1, "main:<module>:1" }, { 2, "app:serve:10" }, { 3, "app:handle:20" },
	{ 4, "worker" },          { 5, "MainThread" },   { 6, "loop-2" },
};
const struct fstack agent_stacks[2] = {
	{ 1, 0, 1, { 1 }, 0 },
	{ 2, 1, 2, { 2, 3 }, 0 },
};

const struct ftask agent_task_a0 = { .id = 1,
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
const struct ftask agent_task_b0 = { .id = 2,
	                             .stack = 1,
	                             .thread = 5,
	                             .state = 2,
	                             .created = MSs(800),
	                             .t_mark = MSs(950),
	                             .polls = 2,
	                             .wakes = 1,
	                             .busy = MSs(100),
	                             .sched = MSs(50) };

void agent_first_reply(struct buf *b)
{
	struct ftask t[2] = { agent_task_a0, agent_task_b0 };

	put_strings(b, 2, agent_strs, 6);
	put_stacks(b, 2, agent_stacks, 2);
	put_tasks(b, 2, t, 2);
	put_end(b, 2, MSs(1000), 2, 1, END_FIRST_F);
}

void agent_hello_ok(struct agent *g)
{
	put_hello_ok(agent_step(g, AGENT_REPLY), 1, 4242);
}

void agent_drive_to_error(void (*build)(struct agent *g), struct agent_run *r)
{
	struct agent g;

	agent_init(&g);
	build(&g);
	agent_start(&g);
	agent_drive(g.path, MSEC, 10 * SEC, 1, 2 * SEC, r);
	agent_fini(&g);
	ck_assert_uint_eq(r->n, 1);
	ck_assert_int_eq(r->m[0].kind, WORKER_ERROR);
}
