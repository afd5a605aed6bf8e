/* Hostile frames from an asyncio agent met by the real viewer in a
 * terminal (tmux), mid-run, after windows were committed: bytes that are
 * not a frame, a frame of another protocol version, a frame cut short
 * before the agent closes, and a valid frame naming a string the agent
 * never defined.  In each case the status line says what happened in
 * words, the viewer goes on (it retries), every window it had is kept and
 * one saves, and q gives the terminal back whole.  The same replies
 * against the adapter alone are in test_asyncio_hostile.c. */
#include <check.h>
#include <stdio.h>
#include <string.h>

#include "adapters/asyncio.h"
#include "model/buf.h"
#include "tests/fake_agent.h"
#include "tests/tmux.h"
#include "tests/util.h"
#include "tests/viewer_run.h"

/* The READ answered by the fault: the fourth (HELLO is 1, the baseline 2,
 * two windows 3 and 4). */
#define FAULT_SEQ 5

static void not_a_frame(struct agent *g)
{
	(void)buf_adds(agent_step(g, AGENT_REPLY), "HTTP/1.1 400 Bad\r\n\r\n");
}

static void bad_version(struct agent *g)
{
	struct buf *b = agent_step(g, AGENT_REPLY);
	size_t at = b->len;

	put_end(b, FAULT_SEQ, MSs(4000), 0, 1, 0);
	b->data[at + 4] = 2; /* an agent of an older protocol */
}

static void cut_then_closed(struct agent *g)
{
	struct ftask t[2] = { agent_task_a0, agent_task_b0 };
	struct buf *b = agent_step(g, AGENT_CUT);

	put_tasks(b, FAULT_SEQ, t, 2);
	g->step[g->nsteps - 1].cut = 16 + 10; /* the header and 10 bytes */
}

static void unknown_string(struct agent *g)
{
	struct ftask t = agent_task_a0;
	struct buf *b = agent_step(g, AGENT_REPLY);

	t.name = 99;
	put_tasks(b, FAULT_SEQ, &t, 1);
	put_end(b, FAULT_SEQ, MSs(4000), 1, 1, 0);
}

static const struct {
	const char *name;
	void (*build)(struct agent *g);
	const char *said; /* on the status line */
} cases[] = {
	{ "not a frame", not_a_frame,
	  "does not start with the magic \"ATOP\"" },
	{ "bad version", bad_version,
	  "agent speaks protocol version 2, this reader speaks 4" },
	{ "cut short", cut_then_closed,
	  "closed the connection in the middle of a TASKS frame" },
	{ "unknown string", unknown_string,
	  "task 1 names string 99, which is not defined" },
};

/* The fake agent: the HELLO, the baseline at 1 s, two windows to 2 s and
 * 3 s (the tasks' figures carried on), then the case's fault. */
static void agent_with_fault(struct agent *g, int k)
{
	agent_init(g);
	agent_hello_ok(g);
	agent_first_reply(agent_step(g, AGENT_REPLY));
	put_end(agent_step(g, AGENT_REPLY), 3, MSs(2000), 0, 1, 0);
	put_end(agent_step(g, AGENT_REPLY), 4, MSs(3000), 0, 1, 0);
	cases[k].build(g);
	agent_start(g);
}

/* The words on screen, or a later error on the event channel that has
 * taken their place (then replaced is set). */
struct said {
	const char *text;
	const struct tmux_events *ev;
	size_t from;
	bool *replaced;
};

static bool shows_said(const struct buf *screen, const void *ctx)
{
	const struct said *s = ctx;

	if (frun_shows(screen, s->text))
		return true;
	*s->replaced = tmux_events_between(s->ev, s->from, s->ev->seen.len,
	                                   "error the asyncio source *");
	return *s->replaced;
}

START_TEST(garbage_asyncio_mid_run)
{
	char args[256], line[1024];
	struct said said;
	bool replaced = false;
	struct agent g;
	struct frun r;
	size_t mark;

	agent_with_fault(&g, _i);
	snprintf(args, sizeof(args), "-a asyncio -e '%s' -w 0.3 --history 1000",
	         g.path);
	if (!frun_start_wide(&r, 300, "garbage_asyncio_mid_run", "", args)) {
		agent_fini(&g);
		return;
	}
	TMUX_WAIT(&r.ev, "window 2 committed", FRUN_WAIT_MS);
	mark = r.ev.pos;
	ck_assert_msg(tmux_events_wait(&r.ev, "error the asyncio source *",
	                               FRUN_WAIT_MS, line, sizeof(line)),
	              "%s: no error: %s", cases[_i].name,
	              tmux_tail(&r.ev.seen, 1500));
	ck_assert_msg(strstr(line, cases[_i].said), "%s: %s", cases[_i].name,
	              line);
	/* the same words on the status line, which the retry's own error (its
	 * reply timeout, 2 s later) replaces: a machine too loaded to capture
	 * the pane within those 2 s sees that second error on the channel */
	said = (struct said){ .text = cases[_i].said,
		              .ev = &r.ev,
		              .from = r.ev.pos,
		              .replaced = &replaced };
	ck_assert_msg(tmux_screen_until(&r.t, &r.ev, &r.screen, shows_said,
	                                &said, FRUN_WAIT_MS),
	              "%s:\n%s", cases[_i].name, buf_cstr(&r.screen));
	if (replaced)
		printf("garbage_asyncio_mid_run %s: the retry's error came "
		       "before a capture showed the first\n",
		       cases[_i].name);
	TMUX_WAIT(&r.ev, "state retrying", FRUN_WAIT_MS);
	ck_assert_msg(!tmux_events_between(&r.ev, mark, r.ev.seen.len,
	                                   "window 3 committed"),
	              "%s: a window from the fault: %s", cases[_i].name,
	              tmux_tail(&r.ev.seen, 1500));
	frun_assert_viewer(&r);
	ck_assert_uint_eq(frun_committed(&r), 2);
	frun_assert_all_kept(&r);
	frun_assert_saves(&r);
	frun_quit(&r);
	frun_end(&r);
	agent_fini(&g);
}
END_TEST

Suite *suite_viewer_garbage(void);
Suite *suite_viewer_garbage(void)
{
	Suite *s = suite_create("viewer_garbage");
	TCase *tc = tcase_create("tmux");

	/* real processes and tmux on a loaded machine: bounds, not waits */
	tcase_set_timeout(tc, 120);
	tcase_add_loop_test(tc, garbage_asyncio_mid_run, 0,
	                    (int)ARRAY_SIZE(cases));
	suite_add_tcase(s, tc);
	return s;
}
