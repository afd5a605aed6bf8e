/* The asyncio adapter's reader against hostile agents (tests/fake_agent.h):
 * every malformed reply gives its exact error, and a good reply cut at
 * every offset a lost connection or a malformed frame, never a crash. */
#include <check.h>
#include <stdio.h>
#include <string.h>

#include "adapters/asyncio.h"
#include "adapters/wire.h"
#include "model/buf.h"
#include "tests/fake_agent.h"
#include "tests/util.h"

struct bad {
	const char *name;
	void (*build)(struct agent *g);
	enum status st;
	const char *detail;
};

/* The hello answered; returns the reply to the first read (request 2),
 * empty, for the caller to fill. */
static struct buf *first_read(struct agent *g)
{
	agent_hello_ok(g);
	return agent_step(g, AGENT_REPLY);
}

/* The first reply with task t instead of task A. */
static void reply_with(struct agent *g, const struct ftask *t)
{
	struct buf *b = first_read(g);

	put_strings(b, 2, agent_strs, 6);
	put_stacks(b, 2, agent_stacks, 2);
	put_tasks(b, 2, t, 1);
	put_end(b, 2, SEC, 1, 1, 0);
}

static void bad_magic(struct agent *g)
{
	(void)buf_adds(agent_step(g, AGENT_REPLY), "HTTP/1.1 400 Bad\r\n\r\n");
}

static void bad_version(struct agent *g)
{
	struct buf *b = agent_step(g, AGENT_REPLY);

	put_hello_ok(b, 1, 1);
	b->data[4] = 2; /* an agent of the previous protocol */
}

static void oversized(struct agent *g)
{
	struct buf *b = first_read(g);
	size_t at;

	fr_begin(b, ASYNCIO_TASKS, 2, &at);
	fr_end(b, at);
	b->data[at + 10] = 0x20; /* 2 MiB */
}

static void unknown_type(struct agent *g)
{
	struct buf *b = first_read(g);
	size_t at;

	fr_begin(b, 0x42, 2, &at);
	fr_end(b, at);
}

static void count_past_end(struct agent *g)
{
	struct buf *b = first_read(g);
	size_t at;

	fr_begin(b, ASYNCIO_STRINGS, 2, &at);
	(void)wire_put_u32(b, 1000);
	(void)wire_put_u32(b, 1);
	(void)wire_put_u32(b, 3);
	(void)buf_adds(b, "abc");
	fr_end(b, at);
}

static void string_undefined(struct agent *g)
{
	struct ftask t = agent_task_a0;

	t.name = 99;
	reply_with(g, &t);
}

static void stack_cycle(struct agent *g)
{
	static const struct fstack cyc = { 2, 2, 1, { 1 }, 0 };
	struct buf *b = first_read(g);

	put_strings(b, 2, agent_strs, 6);
	put_stacks(b, 2, &cyc, 1);
}

static void stack_too_deep(struct agent *g)
{
	static const struct fstack deep = { 1, 0, 129, { 1, 2, 3, 4 }, 0 };
	struct buf *b = first_read(g);

	put_strings(b, 2, agent_strs, 6);
	put_stacks(b, 2, &deep, 1);
}

static void stack_parent_missing(struct agent *g)
{
	static const struct fstack orphan = { 7, 3, 1, { 1 }, 0 };
	struct buf *b = first_read(g);

	put_strings(b, 2, agent_strs, 6);
	put_stacks(b, 2, &orphan, 1);
}

static void string_too_long(struct agent *g)
{
	struct buf *b = first_read(g);
	size_t at;

	fr_begin(b, ASYNCIO_STRINGS, 2, &at);
	(void)wire_put_u32(b, 1);
	(void)wire_put_u32(b, 1);
	(void)wire_put_u32(b, 5000);
	fr_end(b, at);
}

static void string_twice(struct agent *g)
{
	put_strings(first_read(g), 2, agent_strs, 2);
	put_strings(&g->step[g->nsteps - 1].out, 2, agent_strs + 1, 1);
}

static void end_miscount(struct agent *g)
{
	put_end(first_read(g), 2, SEC, 5, 1, 0);
}

static void end_short(struct agent *g)
{
	struct buf *b = first_read(g);
	size_t at;

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
	put_end(first_read(g), 9, SEC, 0, 1, 0);
}

static void record_size(struct agent *g)
{
	struct buf *b = first_read(g);
	size_t at;

	fr_begin(b, ASYNCIO_TASKS, 2, &at);
	(void)wire_put_u32(b, 0);
	(void)wire_put_u32(b, 100);
	fr_end(b, at);
}

static void done_without_end(struct agent *g)
{
	struct buf *b = first_read(g);
	struct ftask t = agent_task_a0;

	put_strings(b, 2, agent_strs, 6);
	put_stacks(b, 2, agent_stacks, 2);
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
	(void)buf_adds(b, "this agent speaks 2");
	fr_end(b, at);
}

static void endless_slices(struct agent *g)
{
	agent_hello_ok(g);
	(void)agent_step(g, AGENT_MORE);
}

static void parked_undefined(struct agent *g)
{
	struct ftask t = agent_task_a0;

	t.parked = 99;
	reply_with(g, &t);
}

static void parked_with_parent(struct agent *g)
{
	struct ftask t = agent_task_a0;

	t.parked = 2; /* a spawn-stack link, not a whole parked-at stack */
	reply_with(g, &t);
}

static void parked_while_running(struct agent *g)
{
	struct ftask t = agent_task_b0;

	t.parked = 1;
	reply_with(g, &t);
}

static void no_waker_unparked(struct agent *g)
{
	struct ftask t = agent_task_a0;

	t.flags = 8;
	reply_with(g, &t);
}

static void step_over_busy(struct agent *g)
{
	struct ftask t = agent_task_a0;

	t.max_step = t.busy + 1;
	reply_with(g, &t);
}

static void closes_mid_frame(struct agent *g)
{
	struct buf *b;
	struct ftask t[2] = { agent_task_a0, agent_task_b0 };
	size_t before;

	agent_hello_ok(g);
	b = agent_step(g, AGENT_CUT);
	put_strings(b, 2, agent_strs, 6);
	put_stacks(b, 2, agent_stacks, 2);
	before = b->len;
	put_tasks(b, 2, t, 2);
	g->step[g->nsteps - 1].cut = before + 16 + 10;
}

static const struct bad bads[] = {
	{ "magic", bad_magic, STATUS_MALFORMED,
	  "the reply does not start with the magic \"ATOP\" (got 48 54 54 50): "
	  "not an asynctop agent" },
	{ "version", bad_version, STATUS_MALFORMED,
	  "agent speaks protocol version 2, this reader speaks 4" },
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
	  "TASKS frame: task records of 100 bytes, not 128 at offset 4" },
	{ "done", done_without_end, STATUS_MALFORMED,
	  "TASKS frame: task 1 is done but its end time is 0 at offset 56" },
	{ "hello lengths", hello_lengths, STATUS_MALFORMED,
	  "HELLO_OK frame: string lengths 300, 6, 3 exceed 256, 1024, 64 at "
	  "offset 56" },
	{ "slices", endless_slices, STATUS_MALFORMED,
	  "the agent answered one read in more than 1024 slices: it falls too "
	  "far behind the application, or this is not an asynctop agent" },
	{ "hello version", hello_error_version, STATUS_MALFORMED,
	  "the agent does not speak version 4: this agent speaks 2" },
	{ "parked undefined", parked_undefined, STATUS_MALFORMED,
	  "TASKS frame: task 1 is parked at stack 99, which is not defined at offset 44" },
	{ "parked parent", parked_with_parent, STATUS_MALFORMED,
	  "TASKS frame: task 1 is parked at stack 2, which has a parent (a parked-at stack stands alone) at offset 44" },
	{ "parked running", parked_while_running, STATUS_MALFORMED,
	  "TASKS frame: task 2 is running but has a parked-at stack at offset 44" },
	{ "no waker", no_waker_unparked, STATUS_MALFORMED,
	  "TASKS frame: task 1 has no waker but no parked-at stack at offset 42" },
	{ "longest step", step_over_busy, STATUS_MALFORMED,
	  "TASKS frame: task 1 has a longest step (100000001 ns) longer than all its busy time (100000000 ns) at offset 120" },
	{ "mid-frame", closes_mid_frame, STATUS_MALFORMED,
	  "the agent closed the connection in the middle of a TASKS frame (10 "
	  "of 264 bytes)" },
};

START_TEST(asyncio_hostile)
{
	const struct bad *x = &bads[_i];
	static struct agent_run r;

	agent_drive_to_error(x->build, &r);
	ck_assert_msg(r.m[0].st == x->st, "%s: %s, not %s", x->name,
	              status_name(r.m[0].st), status_name(x->st));
	ck_assert_str_eq(r.m[0].detail, x->detail);
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
	agent_first_reply(&good);
	ck_assert_uint_lt(good.len, sizeof(boundary));
	memset(boundary, 0, sizeof(boundary));
	while (at < good.len) { /* mark where frames start */
		boundary[at] = true;
		at += 16 + wire_le32((const unsigned char *)good.data + at + 8);
	}
	for (cut = 0; cut < good.len; cut++) {
		struct agent g;
		static struct agent_run r;
		struct buf *b;

		agent_init(&g);
		agent_hello_ok(&g);
		b = agent_step(&g, AGENT_CUT);
		(void)buf_add(b, good.data, good.len);
		g.step[1].cut = cut;
		agent_start(&g);
		agent_drive(g.path, MSEC, 10 * SEC, 1, 2 * SEC, &r);
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

Suite *suite_asyncio_hostile(void);
Suite *suite_asyncio_hostile(void)
{
	Suite *s = suite_create("asyncio_hostile");
	TCase *t = tcase_create("hostile");

	tcase_set_timeout(t, 120);
	tcase_add_loop_test(t, asyncio_hostile, 0, (int)ARRAY_SIZE(bads));
	tcase_add_test(t, asyncio_truncated_every_offset);
	suite_add_tcase(s, t);
	return s;
}
