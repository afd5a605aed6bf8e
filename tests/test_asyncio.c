/* The asyncio adapter's reader against a fake agent (tests/fake_agent.h):
 * the window arithmetic with exact numbers, progress, a lost connection,
 * timeouts, deep stacks, and every allocation failing in turn. */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "adapters/asyncio.h"
#include "adapters/asyncio_int.h"
#include "adapters/worker.h"
#include "model/alloc.h"
#include "model/buf.h"
#include "tests/adapter_util.h"
#include "tests/fake_agent.h"
#include "tests/util.h"

/* Exact figures: a task ending in the window counts until its end, one
 * created in it from its creation, an untouched one is extrapolated from
 * its state, aggregates by difference; then thread roots, then the final
 * push of an exiting application, then the socket is gone. */
START_TEST(asyncio_window_arithmetic)
{
	struct agent g;
	static struct agent_run r;
	struct buf *b;
	struct ftask a1 = agent_task_a0, c1 = { 0 }, d1 = { 0 },
	             b1 = agent_task_b0;
	struct ftask b3 = agent_task_b0;
	struct fagg agg = { 2, 5, 3, 6, 3, MSs(30), MSs(20), MSs(10), 1 };
	struct ftask two[4];

	agent_init(&g);
	put_hello_ok(agent_step(&g, AGENT_REPLY), 1, 4242);
	agent_first_reply(agent_step(&g, AGENT_REPLY));
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

	agent_drive(g.path, MSEC, 10 * SEC, 4, 2 * SEC, &r);
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
	static struct agent_run r;
	struct buf *b;
	struct ftask a1 = agent_task_a0;
	size_t i, windows = 0, progress = 0;

	agent_init(&g);
	put_hello_ok(agent_step(&g, AGENT_REPLY), 1, 4242);
	agent_first_reply(agent_step(&g, AGENT_REPLY));
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

	agent_drive(g.path, 60 * SEC, 10 * MSEC, 1, 2 * SEC, &r);
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
	static struct agent_run r;

	agent_init(&g);
	put_hello_ok(agent_step(&g, AGENT_REPLY), 1, 4242);
	agent_first_reply(agent_step(&g, AGENT_REPLY));
	put_end(agent_step(&g, AGENT_REPLY), 3, MSs(1500), 0, 1, 0);
	(void)agent_step(&g, AGENT_CLOSE);
	agent_start(&g);
	agent_drive(g.path, 60 * SEC, 10 * MSEC, 1, 2 * SEC, &r);
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
	static struct agent_run r;

	agent_init(&g);
	put_hello_ok(agent_step(&g, AGENT_REPLY), 1, 4242);
	(void)agent_step(&g, AGENT_HANG);
	agent_start(&g);
	agent_drive(g.path, MSEC, 10 * SEC, 1, 300 * MSEC, &r);
	ck_assert_uint_eq(r.n, 1);
	ck_assert_int_eq(r.m[0].kind, WORKER_ERROR);
	ck_assert_int_eq(r.m[0].st, STATUS_TIMEOUT);
	ck_assert_str_eq(r.m[0].detail, "the agent did not answer within 0.3s");
	ck_assert_ptr_nonnull(strstr(r.m[0].remedy, "GIL"));
	/* whether asynctop retries is the front end's to say: record stops */
	ck_assert_ptr_null(strstr(r.m[0].remedy, "retrying"));
	agent_fini(&g);
}
END_TEST

/* A reply that keeps coming, a frame at a time, is waited for past the
 * reply timeout: the timeout counts from the last frame received (an agent
 * short of CPU answering a slice of a large backlog). */
START_TEST(asyncio_slow_reply_is_waited_for)
{
	struct agent g;
	static struct agent_run r;
	struct buf *b;
	size_t i, windows = 0;

	agent_init(&g);
	put_hello_ok(agent_step(&g, AGENT_REPLY), 1, 4242);
	b = agent_step(&g, AGENT_SLOW);
	agent_first_reply(b); /* four frames, 150 ms apart: 600 ms */
	g.step[1].cut = 150;
	put_end(agent_step(&g, AGENT_REPLY), 3, MSs(1500), 0, 1, 0);
	agent_start(&g);
	agent_drive(g.path, 100 * MSEC, 10 * SEC, 1, 300 * MSEC, &r);
	for (i = 0; i < r.n; i++) {
		ck_assert_msg(r.m[i].kind != WORKER_ERROR, "%s", r.m[i].detail);
		windows += r.m[i].kind == WORKER_WINDOW;
	}
	ck_assert_uint_eq(windows, 1);
	agent_fini(&g);
}
END_TEST

/* An agent that trickles frames forever is still bounded: a reply waits at
 * most REPLY_CAP timeouts in all. */
START_TEST(asyncio_trickling_reply_is_bounded)
{
	struct agent g;
	static struct agent_run r;
	struct buf *b;
	int k;

	agent_init(&g);
	put_hello_ok(agent_step(&g, AGENT_REPLY), 1, 4242);
	b = agent_step(&g, AGENT_SLOW);
	for (k = 0; k < 12; k++) /* 12 frames 200 ms apart: 2.4 s > 1.2 s */
		put_tasks(b, 2, NULL, 0);
	put_end(b, 2, MSs(1000), 0, 1, END_FIRST_F);
	g.step[1].cut = 200;
	agent_start(&g);
	agent_drive(g.path, 100 * MSEC, 10 * SEC, 1, 300 * MSEC, &r);
	ck_assert_uint_eq(r.n, 1);
	ck_assert_int_eq(r.m[0].kind, WORKER_ERROR);
	ck_assert_int_eq(r.m[0].st, STATUS_TIMEOUT);
	agent_fini(&g);
}
END_TEST

/* A stale socket: unreachable, with what a stale socket means. */
START_TEST(asyncio_unreachable)
{
	char dir[64], path[ASYNCIO_PATH_MAX], want[300];
	static struct agent_run r;

	tu_mkdtemp(dir, sizeof(dir));
	snprintf(path, sizeof(path), "%s/1.sock", dir);
	agent_stale_at(path);
	agent_drive(path, MSEC, 10 * SEC, 1, SEC, &r);
	ck_assert_uint_eq(r.n, 1);
	ck_assert_int_eq(r.m[0].st, STATUS_UNREACHABLE);
	snprintf(want, sizeof(want), "no agent answers: %s: %s", path,
	         strerror(ECONNREFUSED));
	ck_assert_str_eq(r.m[0].detail, want);
	/* a process killed with SIGKILL leaves its socket: it had opted in */
	ck_assert_str_eq(r.m[0].remedy,
	                 "the socket was left by a process that ended without "
	                 "closing it (killed with SIGKILL, or crashed): start "
	                 "the application again");
	unlink(path);
	tu_rmtree(dir);
}
END_TEST

/* A chain of stacks deeper than 128 frames is handed over whole, root
 * first (the model marks the cut); a task's frames follow its parents; a
 * task with stack 0 has none. */
START_TEST(asyncio_deep_chain)
{
	static const struct fstack chain[] = {
		{ 1, 0, 100, { 1, 1, 1, 1 }, 0 },
		{ 2, 1, 100, { 2, 2, 2, 2 }, 0 },
		{ 3, 2, 100, { 3, 3, 3, 3 }, 0 },
	};
	struct agent g;
	static struct agent_run r;
	struct buf *b;
	struct ftask t[2] = { agent_task_b0, agent_task_b0 };
	const char *line, *p;
	size_t frames = 1;

	agent_init(&g);
	agent_hello_ok(&g);
	b = agent_step(&g, AGENT_REPLY);
	put_strings(b, 2, agent_strs, 6);
	put_stacks(b, 2, chain, 3);
	t[0].stack = 3;
	t[1].id = 5; /* no stack at all: the model's [no spawn stack] */
	t[1].stack = 0;
	put_tasks(b, 2, t, 2);
	put_end(b, 2, SEC, 2, 1, 0);
	put_end(agent_step(&g, AGENT_REPLY), 3, 2 * SEC, 0, 1, 0);
	agent_start(&g);
	agent_drive(g.path, MSEC, 10 * SEC, 1, 2 * SEC, &r);
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

/* Builds the agent of the allocation-failure runs: a baseline, a window
 * with new, finished and aggregated tasks, then the final push. */
static void torture_agent(struct agent *g)
{
	struct ftask t[2] = { agent_task_a0, agent_task_b0 };
	struct fagg agg = { 2, 5, 3, 6, 3, MSs(30), MSs(20), MSs(10), 1 };
	struct buf *b;

	agent_init(g);
	agent_hello_ok(g);
	agent_first_reply(agent_step(g, AGENT_REPLY));
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
		struct worker_msg *m = au_wait_msg(w, 30);

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

/* Points p's frame reader at the payload of the one frame in b. */
static void frame_in(struct aio *p, const struct buf *b)
{
	ck_assert_uint_ge(b->len, 16);
	wire_init(&p->w, b->data + 16, b->len - 16);
}

/* The reader p takes a STRINGS frame of the n strings s (put in b, reset
 * first), which it must accept; likewise STACKS and TASKS (whose count
 * is returned). */
static void take_strings(struct aio *p, struct buf *b, const struct fstr *s,
                         size_t n)
{
	struct failure f;

	buf_reset(b);
	put_strings(b, 2, s, n);
	frame_in(p, b);
	ck_assert_int_eq(aio_take_strings(p, &f), STATUS_OK);
}

static void take_stacks(struct aio *p, struct buf *b, const struct fstack *s,
                        size_t n)
{
	struct failure f;

	buf_reset(b);
	put_stacks(b, 2, s, n);
	frame_in(p, b);
	ck_assert_int_eq(aio_take_stacks(p, &f), STATUS_OK);
}

static uint64_t take_tasks(struct aio *p, struct buf *b, const struct ftask *t,
                           size_t n)
{
	struct failure f;
	uint64_t got = 0;

	buf_reset(b);
	put_tasks(b, 2, t, n);
	frame_in(p, b);
	ck_assert_int_eq(aio_take_tasks(p, &got, &f), STATUS_OK);
	return got;
}

/* A task's parked-at stack and the figures beside the five, straight from
 * decoded frames: a waiting task with no waker, then a running one whose
 * step is still going at the window's end. */
START_TEST(asyncio_parked_and_extras)
{
	static const struct fstr more[3] = {
		{ 7, "app:worker:30" },
		{ 8, "asyncio.locks:Lock.acquire:114" },
		{ 9, "[awaits Lock]" },
	};
	static const struct fstack parked = { 3, 0, 3, { 7, 8, 9 }, 0 };
	struct ftask t[2] = { agent_task_a0, agent_task_b0 };
	struct aio p;
	struct buf b;
	struct sample s;
	uint64_t n = 0;

	memset(&p, 0, sizeof(p));
	p.fd = -1;
	t[0].parked = 3;
	t[0].flags = 8; /* no waker */
	t[0].self_wakes = 2;
	t[0].max_step = MSs(40);
	t[1].max_step = MSs(20);
	buf_init(&b);
	take_strings(&p, &b, agent_strs, 6);
	take_strings(&p, &b, more, 3);
	take_stacks(&p, &b, agent_stacks, 2);
	take_stacks(&p, &b, &parked, 1);
	n = take_tasks(&p, &b, t, 2);
	ck_assert_uint_eq(n, 2);

	ck_assert_int_eq(aio_task_sample(&p, 0, MSs(1000), &s), STATUS_OK);
	ck_assert_uint_eq(s.depth, 3);
	ck_assert_uint_eq(s.parked_depth, 3);
	ck_assert(sv_eq(s.parked[0], sv_c("app:worker:30")));
	ck_assert(sv_eq(s.parked[1], sv_c("asyncio.locks:Lock.acquire:114")));
	ck_assert(sv_eq(s.parked[2], sv_c("[awaits Lock]")));
	ck_assert_uint_eq(s.x.known,
	                  1u << EXTRA_SELF_WAKES | 1u << EXTRA_MAX_POLL |
	                      1u << EXTRA_POLL_NOW | 1u << EXTRA_NO_WAKER);
	ck_assert_uint_eq(s.x.v[EXTRA_SELF_WAKES], 2);
	ck_assert_uint_eq(s.x.v[EXTRA_MAX_POLL], MSs(40));
	ck_assert_uint_eq(s.x.v[EXTRA_POLL_NOW], 0);
	ck_assert_uint_eq(s.x.v[EXTRA_NO_WAKER], 1);

	/* B runs since 0.95 s: at 1 s its step has run 50 ms, longer than
	 * any it finished */
	ck_assert_int_eq(aio_task_sample(&p, 1, MSs(1000), &s), STATUS_OK);
	ck_assert_uint_eq(s.parked_depth, 0);
	ck_assert_ptr_null(s.parked);
	ck_assert_uint_eq(s.x.v[EXTRA_POLL_NOW], MSs(50));
	ck_assert_uint_eq(s.x.v[EXTRA_MAX_POLL], MSs(50));
	ck_assert_uint_eq(s.x.v[EXTRA_NO_WAKER], 0);

	/* the next window starts from the baselines: no self-wakes, no
	 * finished step yet */
	aio_roll(&p, MSs(1000));
	ck_assert_int_eq(aio_task_sample(&p, 0, MSs(2000), &s), STATUS_OK);
	ck_assert_uint_eq(s.x.v[EXTRA_SELF_WAKES], 0);
	ck_assert_uint_eq(s.x.v[EXTRA_MAX_POLL], 0);
	ck_assert_uint_eq(s.parked_depth, 3);

	buf_fini(&b);
	aio_fini(&p);
}
END_TEST

/* Frames the agent left out are counted, not lost: a 10 000-frame spawn
 * stack (a parent's frame, then 128 of the task's own, 9 871 above them
 * cut) and a parked-at stack cut to its innermost 128 hand the true number
 * of frames left out to the model. */
START_TEST(asyncio_dropped_frames)
{
	static const struct fstack deep[] = {
		{ 3, 1, 128, { 2, 3, 2, 3 }, 9871 },
		{ 4, 0, 128, { 3, 2, 3, 2 }, 40 },
		{ 5, 3, 1, { 1 }, UINT32_MAX },
	};
	struct ftask t = agent_task_a0;
	struct aio p;
	struct buf b;
	struct sample s;

	memset(&p, 0, sizeof(p));
	p.fd = -1;
	t.stack = 3;
	t.parked = 4;
	buf_init(&b);
	take_strings(&p, &b, agent_strs, 6);
	take_stacks(&p, &b, agent_stacks, 2);
	take_stacks(&p, &b, deep, 3);
	(void)take_tasks(&p, &b, &t, 1);

	/* the own frames are kept, the cut and the parent's frame above it
	 * are counted: 128 + 9 872 = 10 000 */
	ck_assert_int_eq(aio_task_sample(&p, 0, MSs(1000), &s), STATUS_OK);
	ck_assert_uint_eq(s.depth, 128);
	ck_assert_uint_eq(s.dropped, 9872);
	ck_assert(sv_eq(s.frames[0], sv_c("app:serve:10")));
	ck_assert(sv_eq(s.frames[127], sv_c("app:handle:20")));
	ck_assert_uint_eq(s.parked_depth, 128);
	ck_assert_uint_eq(s.parked_dropped, 40);

	/* the largest count an agent can send is added, not wrapped */
	p.tasks[0].stack = 5;
	ck_assert_int_eq(aio_task_sample(&p, 0, MSs(1000), &s), STATUS_OK);
	ck_assert_uint_eq(s.depth, 1);
	ck_assert_uint_eq(s.dropped, (uint64_t)UINT32_MAX + 10000);

	/* a chain with no cut is whole: nothing dropped */
	p.tasks[0].stack = 2;
	p.tasks[0].parked = 0;
	ck_assert_int_eq(aio_task_sample(&p, 0, MSs(1000), &s), STATUS_OK);
	ck_assert_uint_eq(s.depth, 3);
	ck_assert_uint_eq(s.dropped, 0);
	ck_assert_uint_eq(s.parked_dropped, 0);

	buf_fini(&b);
	aio_fini(&p);
}
END_TEST

/* A first read answered in two slices (END MORE, then the rest): the
 * reader reads again at once, and the window starts at the last slice's
 * boundary with both slices' tasks. */
START_TEST(asyncio_first_read_in_slices)
{
	struct agent g;
	static struct agent_run r;
	struct buf *b;
	struct ftask a = agent_task_a0, bt = agent_task_b0;

	agent_init(&g);
	agent_hello_ok(&g);
	b = agent_step(&g, AGENT_REPLY);
	put_strings(b, 2, agent_strs, 6);
	put_stacks(b, 2, agent_stacks, 2);
	put_tasks(b, 2, &a, 1);
	put_end(b, 2, MSs(900), 1, 1, END_FIRST_F | END_MORE_F);
	b = agent_step(&g, AGENT_REPLY);
	put_tasks(b, 3, &bt, 1);
	put_end(b, 3, SEC, 1, 1, 0);
	put_end(agent_step(&g, AGENT_REPLY), 4, 2 * SEC, 0, 1, 0);
	agent_start(&g);
	agent_drive(g.path, MSEC, 10 * SEC, 1, 2 * SEC, &r);
	ck_assert_uint_eq(r.n, 1);
	ck_assert_int_eq(r.m[0].kind, WORKER_WINDOW);
	ck_assert_int_eq(r.m[0].duration, (int64_t)SEC);
	ck_assert_uint_eq(r.m[0].n, 2);
	ck_assert_str_eq(r.m[0].line[0],
	                 A_STACK "|worker|1000000000|0|0|0|0|1");
	ck_assert_str_eq(r.m[0].line[1],
	                 "main:<module>:1||0|1000000000|0|0|0|1");
	ck_assert_uint_eq(g.nreq, 4); /* HELLO, READ, READ again, READ */
	agent_fini(&g);
}
END_TEST

Suite *suite_asyncio(void);
Suite *suite_asyncio(void)
{
	Suite *s = suite_create("asyncio");
	TCase *t = tcase_create("reader");

	tcase_set_timeout(t, 120);
	tcase_add_test(t, asyncio_window_arithmetic);
	tcase_add_test(t, asyncio_progress_then_exit);
	tcase_add_test(t, asyncio_lost_keeps_partial);
	tcase_add_test(t, asyncio_timeout);
	tcase_add_test(t, asyncio_slow_reply_is_waited_for);
	tcase_add_test(t, asyncio_trickling_reply_is_bounded);
	tcase_add_test(t, asyncio_unreachable);
	tcase_add_test(t, asyncio_deep_chain);
	tcase_add_test(t, asyncio_allocation_failures);
	tcase_add_test(t, asyncio_parked_and_extras);
	tcase_add_test(t, asyncio_dropped_frames);
	tcase_add_test(t, asyncio_first_read_in_slices);
	suite_add_tcase(s, t);
	return s;
}
