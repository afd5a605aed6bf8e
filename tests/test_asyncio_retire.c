/* Task names that retire (docs/asyncio-protocol.md §4.7): the reader
 * forgets a retired name once the window that needed it has ended, takes
 * it again when the agent defines it again, and refuses every misuse of
 * the RETIRE frame with its exact error (tests/fake_agent.h). */
#include <check.h>
#include <stdio.h>
#include <string.h>

#include "adapters/asyncio.h"
#include "model/buf.h"
#include "tests/fake_agent.h"
#include "tests/util.h"

static const struct fstr spare = { 7, "spare-name" };

/* The first reply, then what build_more appends to it before its END. */
static struct buf *first_reply(struct agent *g)
{
	struct buf *b;
	struct ftask t[2] = { agent_task_a0, agent_task_b0 };

	agent_hello_ok(g);
	b = agent_step(g, AGENT_REPLY);
	put_strings(b, 2, agent_strs, 6);
	put_stacks(b, 2, agent_stacks, 2);
	put_tasks(b, 2, t, 2);
	return b;
}

static void retire_unknown(struct agent *g)
{
	static const uint32_t ids[] = { 99 };

	put_retire(first_reply(g), 2, ids, 1);
}

static void retire_live_name(struct agent *g)
{
	static const uint32_t ids[] = { 4 }; /* task A, idle, is "worker" */

	put_retire(first_reply(g), 2, ids, 1);
}

static void retire_frame(struct agent *g)
{
	static const uint32_t ids[] = { 2 }; /* a frame of stack 2 */

	put_retire(first_reply(g), 2, ids, 1);
}

static void retire_thread(struct agent *g)
{
	static const uint32_t ids[] = { 5 }; /* the tasks' thread */

	put_retire(first_reply(g), 2, ids, 1);
}

static void retire_twice(struct agent *g)
{
	static const uint32_t ids[] = { 7, 7 };
	struct buf *b = first_reply(g);

	put_strings(b, 2, &spare, 1);
	put_retire(b, 2, ids, 2);
}

static void used_again(struct agent *g)
{
	static const uint32_t ids[] = { 7 };
	struct buf *b = first_reply(g);
	struct ftask c = agent_task_a0;

	put_strings(b, 2, &spare, 1);
	put_retire(b, 2, ids, 1);
	c.id = 3;
	c.name = 7;
	put_tasks(b, 2, &c, 1);
}

static void redefined_otherwise(struct agent *g)
{
	static const uint32_t ids[] = { 7 };
	static const struct fstr other = { 7, "another-name" };
	struct buf *b = first_reply(g);

	put_strings(b, 2, &spare, 1);
	put_retire(b, 2, ids, 1);
	put_strings(b, 2, &other, 1);
}

struct bad {
	const char *name;
	void (*build)(struct agent *g);
	const char *detail;
};

static const struct bad bads[] = {
	{ "unknown", retire_unknown,
	  "RETIRE frame: string id 99 is retired but not defined at offset 4" },
	{ "live name", retire_live_name,
	  "RETIRE frame: string id 4 is retired while an unfinished task is "
	  "named so at offset 4" },
	{ "frame", retire_frame,
	  "RETIRE frame: string id 2 is retired while a stack names it at "
	  "offset 4" },
	{ "thread", retire_thread,
	  "RETIRE frame: string id 5 is retired while a task's thread has it "
	  "at offset 4" },
	{ "twice", retire_twice,
	  "RETIRE frame: string id 7 is retired twice at offset 8" },
	{ "used again", used_again,
	  "TASKS frame: task 3 names string 7, which is not defined at offset "
	  "28" },
	{ "redefined", redefined_otherwise,
	  "STRINGS frame: string id 7, retired, is defined again with another "
	  "text at offset 4" },
};

START_TEST(asyncio_retire_hostile)
{
	const struct bad *x = &bads[_i];
	static struct agent_run r;

	agent_drive_to_error(x->build, &r);
	ck_assert_msg(r.m[0].st == STATUS_MALFORMED, "%s: %s", x->name,
	              status_name(r.m[0].st));
	ck_assert_str_eq(r.m[0].detail, x->detail);
}
END_TEST

/* A (named "worker", string 4) ends in window 1 and its name retires with
 * it: the window still shows the name; then the name is forgotten, and a
 * new task of that name, its string defined again, shows it in window 2.
 * A task that names it without the definition is refused. */
static void retire_and_return(bool redefine, struct agent_run *r)
{
	struct agent g;
	struct buf *b;
	struct ftask a1 = agent_task_a0, c2 = agent_task_a0;
	static const uint32_t ids[] = { 4 };

	agent_init(&g);
	put_hello_ok(agent_step(&g, AGENT_REPLY), 1, 4242);
	agent_first_reply(agent_step(&g, AGENT_REPLY));
	a1.state = 4;
	a1.ended = a1.t_mark = MSs(1500);
	a1.idle = MSs(850);
	b = agent_step(&g, AGENT_REPLY);
	put_tasks(b, 3, &a1, 1);
	put_retire(b, 3, ids, 1);
	put_end(b, 3, MSs(2000), 1, 1, 0);
	c2.id = 3;
	c2.created = MSs(2100);
	c2.t_mark = MSs(2500);
	c2.busy = MSs(100);
	c2.sched = MSs(50);
	c2.idle = MSs(250);
	b = agent_step(&g, AGENT_REPLY);
	if (redefine)
		put_strings(b, 4, &agent_strs[3], 1);
	put_tasks(b, 4, &c2, 1);
	put_end(b, 4, MSs(3000), 1, 1, 0);
	agent_start(&g);
	agent_drive(g.path, MSEC, 10 * SEC, 2, 2 * SEC, r);
	agent_fini(&g);
}

START_TEST(asyncio_retired_name_returns)
{
	static struct agent_run r;
	size_t i, windows = 0;

	retire_and_return(true, &r);
	for (i = 0; i < r.n; i++) {
		if (r.m[i].kind != WORKER_WINDOW)
			continue;
		windows++;
		ck_assert_str_eq(r.m[i].line[0],
		                 windows == 1
		                     ? A_STACK "|worker|500000000|0|0|0|0|1"
		                     : A_STACK "|worker|750000000|100000000|"
		                               "50000000|5|4|1");
	}
	ck_assert_uint_eq(windows, 2);
}
END_TEST

START_TEST(asyncio_retired_name_used_again)
{
	static struct agent_run r;

	retire_and_return(false, &r);
	ck_assert_uint_eq(r.n, 2);
	ck_assert_int_eq(r.m[0].kind, WORKER_WINDOW);
	ck_assert_int_eq(r.m[1].kind, WORKER_ERROR);
	ck_assert_int_eq(r.m[1].st, STATUS_MALFORMED);
	ck_assert_str_eq(r.m[1].detail,
	                 "TASKS frame: task 3 names string 4, which is not "
	                 "defined at offset 28");
}
END_TEST

Suite *suite_asyncio_retire(void);
Suite *suite_asyncio_retire(void)
{
	Suite *s = suite_create("asyncio_retire");
	TCase *t = tcase_create("retire");

	tcase_set_timeout(t, 120);
	tcase_add_loop_test(t, asyncio_retire_hostile, 0,
	                    (int)ARRAY_SIZE(bads));
	tcase_add_test(t, asyncio_retired_name_returns);
	tcase_add_test(t, asyncio_retired_name_used_again);
	suite_add_tcase(s, t);
	return s;
}
