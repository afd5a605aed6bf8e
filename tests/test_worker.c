/* The worker thread and its pipe, driven by the scripted fake adapter:
 * order, exact samples, shared boundaries, clamping, empty windows,
 * errors, hangs, stop, end-now, max_windows, progress and clean-up. */
#include <check.h>
#include <stdio.h>
#include <string.h>

#include "adapters/adapter.h"
#include "adapters/worker.h"
#include "model/window.h"
#include "tests/adapter_util.h"
#include "tests/fake_adapter.h"
#include "tests/util.h"

#define MS ((uint64_t)1000000u)
#define S  ((uint64_t)1000000000u)

struct got {
	char line[16][160];
	size_t n;
};

static enum status got_sample(void *ctx, const struct sample *s)
{
	struct got *g = ctx;
	char *d;
	size_t i, used = 0;

	ck_assert_uint_lt(g->n, 16);
	d = g->line[g->n++];
	for (i = 0; i < s->depth; i++)
		used += (size_t)snprintf(d + used, 160 - used, "%s%.*s",
		                         i ? ";" : "", (int)s->frames[i].len,
		                         s->frames[i].ptr);
	snprintf(d + used, 160 - used, "|%.*s|%llu|%llu|%llu", (int)s->task.len,
	         s->task.ptr ? s->task.ptr : "",
	         (unsigned long long)s->m.v[METRIC_IDLE],
	         (unsigned long long)s->m.v[METRIC_BUSY],
	         (unsigned long long)s->tasks);
	return STATUS_OK;
}

static void feed(const struct worker_msg *m, struct got *g)
{
	struct sample_sink sink;

	memset(g, 0, sizeof(*g));
	sink.sample = got_sample;
	sink.meta = NULL;
	sink.ctx = g;
	ck_assert_int_eq(worker_msg_feed(m, &sink), STATUS_OK);
	ck_assert_uint_eq(g->n, m->nsamples);
}

/* The next message other than a WORKER_STATE "connected" (the fake's), waiting
 * up to 10 s; a RETRYING state after a failure is returned. */
static struct worker_msg *next_msg(struct worker *w)
{
	for (;;) {
		struct worker_msg *m = au_next_msg(w);

		if (m->kind != WORKER_STATE || m->state == SOURCE_RETRYING)
			return m;
		ck_assert_str_eq(source_state_str(m->state), "connected");
		worker_msg_free(m);
	}
}

/* A worker over the scripted fake adapter, and the messages read from it. */
struct rig {
	struct fake_ctl ctl;
	struct fake_script script;
	struct adapter_ops ops;
	struct adapter *a;
	struct worker *w;
	struct worker_msg *got[8]; /* read by expect, freed by rig_end */
	size_t ngot;
};

/* Starts a worker with o over the fake running steps (repeat: the last
 * one forever).  Returns the first failure, with nothing left to end. */
static enum status rig_open(struct rig *r, const struct fake_step *steps,
                            size_t n, bool repeat, const struct worker_opts *o)
{
	struct adapter_error err;
	enum status st;

	memset(r, 0, sizeof(*r));
	fake_ctl_init(&r->ctl);
	r->script.steps = steps;
	r->script.n = n;
	r->script.repeat = repeat;
	r->script.ctl = &r->ctl;
	fake_ops(&r->ops, &r->script, 0);
	st = adapter_open(&r->ops, NULL, 0, NULL, &err, &r->a);
	if (st == STATUS_OK) {
		st = worker_start(r->a, o, &r->w);
		if (st != STATUS_OK)
			adapter_close(r->a);
	}
	if (st != STATUS_OK)
		fake_ctl_fini(&r->ctl);
	return st;
}

static void rig_start(struct rig *r, const struct fake_step *steps, size_t n,
                      bool repeat, const struct worker_opts *o)
{
	ck_assert_int_eq(rig_open(r, steps, n, repeat, o), STATUS_OK);
	ck_assert_int_ge(worker_fd(r->w), 0);
}

/* Stops and frees the worker, the adapter and the messages read. */
static void rig_end(struct rig *r)
{
	for (size_t i = 0; i < r->ngot; i++)
		worker_msg_free(r->got[i]);
	worker_free(r->w);
	adapter_close(r->a);
	fake_ctl_fini(&r->ctl);
}

/* The next message (see next_msg), of kind and for window index; the rig
 * keeps it until rig_end. */
static struct worker_msg *expect(struct rig *r, enum worker_msg_kind kind,
                                 uint64_t index)
{
	struct worker_msg *m = next_msg(r->w);

	ck_assert_uint_lt(r->ngot, ARRAY_SIZE(r->got));
	r->got[r->ngot++] = m;
	ck_assert_int_eq(m->kind, kind);
	ck_assert_uint_eq(m->index, index);
	return m;
}

/* The next message is WORKER_DONE after window index, with no error, and
 * nothing follows it. */
static void expect_done(struct rig *r, uint64_t index)
{
	struct worker_msg *none = NULL;

	ck_assert_int_eq(expect(r, WORKER_DONE, index)->err.st, STATUS_OK);
	ck_assert_int_eq(worker_read(r->w, &none), STATUS_AGAIN);
	ck_assert_ptr_null(none);
}

/* After a failed window index: the worker's RETRYING, due within max_ns
 * (without a back-off, the failed window is held to its end). */
static void expect_retry(struct rig *r, uint64_t index, uint64_t max_ns)
{
	struct worker_msg *m = expect(r, WORKER_STATE, index);

	ck_assert_int_eq(m->state, SOURCE_RETRYING);
	ck_assert_uint_le(m->retry_in_ns, max_ns);
}

/* A window cut by a stop. */
static void assert_stopped(const struct worker_msg *m)
{
	ck_assert(m->meta.partial);
	ck_assert_str_eq(m->meta.reason, "stopped");
}

static const struct fake_sample sa[] = {
	{ { "main", "serve" }, 2, "conn", 100, 7, 0 },
	{ { "main" }, 1, "tick", 5, 0, 3 },
};
static const struct fake_sample sb[] = {
	{ { "main", "serve", "read" }, 3, "", 9, 1, 1 },
};

START_TEST(windows_in_order_with_shared_boundaries)
{
	const struct fake_step steps[] = {
		{ .kind = FAKE_SAMPLES, .samples = sa, .n = 2 },
		{ .kind = FAKE_SAMPLES, .samples = sb, .n = 1 },
		{ .kind = FAKE_SAMPLES, .samples = sa, .n = 1 },
	};
	struct worker_opts o = { .window_ns = 2 * MS, .max_windows = 3 };
	struct worker_msg *m[3];
	struct got g;
	struct rig r;
	int i;

	rig_start(&r, steps, 3, false, &o);
	for (i = 0; i < 3; i++) {
		m[i] = expect(&r, WORKER_WINDOW, (uint64_t)i + 1);
		ck_assert(!m[i]->meta.partial);
		ck_assert(!m[i]->meta.clamped);
		ck_assert_uint_eq(m[i]->meta.requested_nanos, 2 * MS);
		/* An early return is held to the window's end. */
		ck_assert_int_ge(m[i]->meta.duration_nanos, (int64_t)(2 * MS));
		ck_assert_str_eq(m[i]->meta.source, "fake");
		ck_assert_uint_eq(m[i]->meta.dropped, 0);
	}
	feed(m[0], &g);
	ck_assert_uint_eq(g.n, 2);
	ck_assert_str_eq(g.line[0], "main;serve|conn|100|7|0");
	ck_assert_str_eq(g.line[1], "main|tick|5|0|3");
	feed(m[1], &g);
	ck_assert_uint_eq(g.n, 1);
	ck_assert_str_eq(g.line[0], "main;serve;read||9|1|1");
	feed(m[2], &g);
	ck_assert_uint_eq(g.n, 1);
	ck_assert_str_eq(g.line[0], "main;serve|conn|100|7|0");
	for (i = 0; i < 2; i++)
		ck_assert_int_eq(m[i]->meta.time_nanos +
		                     m[i]->meta.duration_nanos,
		                 m[i + 1]->meta.time_nanos);
	ck_assert_int_gt(m[0]->meta.time_nanos,
	                 (int64_t)1600000000 * (int64_t)S);
	expect_done(&r, 3);
	ck_assert(r.ctl.sigmask_ok);
	ck_assert_uint_eq(r.ctl.calls, 3);
	rig_end(&r);
}
END_TEST

START_TEST(clamped_to_sixty_seconds)
{
	const struct fake_step steps[] = {
		{ .kind = FAKE_SAMPLES,
		  .samples = sa,
		  .n = 1,
		  .own_meta = true,
		  .time_nanos = 1234,
		  .duration_nanos = 90 * (int64_t)S },
	};
	struct worker_opts o = { .window_ns = 90 * S, .max_windows = 1 };
	struct worker_msg *m;
	struct rig r;

	rig_start(&r, steps, 1, false, &o);
	m = expect(&r, WORKER_WINDOW, 1);
	ck_assert(m->meta.clamped);
	ck_assert_uint_eq(m->meta.requested_nanos, 90 * S);
	/* The adapter's own measurement stands. */
	ck_assert_int_eq(m->meta.time_nanos, 1234);
	ck_assert_int_eq(m->meta.duration_nanos, 90 * (int64_t)S);
	ck_assert_str_eq(m->meta.source, "fake own");
	ck_assert_uint_eq(r.ctl.lengths[0], WINDOW_MAX_NANOS);
	expect_done(&r, 1);
	rig_end(&r);
}
END_TEST

START_TEST(empty_windows_are_sent_and_counted)
{
	const struct fake_step steps[] = {
		{ .kind = FAKE_SAMPLES, .own_meta = true, .duration_nanos = 1 },
		{ .kind = FAKE_SAMPLES,
		  .samples = sa,
		  .n = 1,
		  .own_meta = true },
		{ .kind = FAKE_SAMPLES },
	};
	struct worker_opts o = { .window_ns = 1 * MS, .max_windows = 3 };
	struct worker_msg *m;
	struct got g;
	struct rig r;

	rig_start(&r, steps, 3, true, &o);
	m = expect(&r, WORKER_WINDOW, 1);
	ck_assert_uint_eq(m->nsamples, 0);
	feed(m, &g);
	ck_assert_uint_eq(expect(&r, WORKER_WINDOW, 2)->nsamples, 1);
	ck_assert_uint_eq(expect(&r, WORKER_WINDOW, 3)->nsamples, 0);
	expect_done(&r, 3);
	rig_end(&r);
}
END_TEST

START_TEST(error_mid_window_then_next_window)
{
	const struct fake_step steps[] = {
		{ .kind = FAKE_ERROR,
		  .samples = sa,
		  .n = 1,
		  .err = STATUS_UNREACHABLE,
		  .detail = "connection refused",
		  .remediation = "start the agent" },
		{ .kind = FAKE_ERROR, .err = STATUS_MALFORMED },
		{ .kind = FAKE_SAMPLES, .samples = sb, .n = 1 },
	};
	struct worker_opts o = { .window_ns = 2 * MS, .max_windows = 3 };
	struct worker_msg *m;
	struct got g;
	struct rig r;

	rig_start(&r, steps, 3, false, &o);
	m = expect(&r, WORKER_ERROR, 1);
	ck_assert_int_eq(m->err.st, STATUS_UNREACHABLE);
	ck_assert_str_eq(m->err.detail, "connection refused");
	ck_assert_str_eq(m->err.remediation, "start the agent");
	ck_assert_uint_eq(m->nsamples, 0);
	expect_retry(&r, 1, 2 * MS);
	m = expect(&r, WORKER_ERROR, 2);
	ck_assert_int_eq(m->err.st, STATUS_MALFORMED);
	ck_assert_str_eq(m->err.detail, "malformed input");
	ck_assert_str_eq(m->err.remediation, "");
	expect_retry(&r, 2, 2 * MS);
	feed(expect(&r, WORKER_WINDOW, 3), &g);
	ck_assert_str_eq(g.line[0], "main;serve;read||9|1|1");
	expect_done(&r, 3);
	rig_end(&r);
}
END_TEST

START_TEST(hang_ended_by_stop)
{
	const struct fake_step steps[] = {
		{ .kind = FAKE_HANG },
	};
	struct worker_opts o = { .window_ns = 60 * S };
	struct worker_msg *m;
	struct rig r;

	rig_start(&r, steps, 1, true, &o);
	fake_wait_blocked(&r.ctl, 1);
	worker_stop(r.w);
	m = expect(&r, WORKER_WINDOW, 1);
	assert_stopped(m);
	ck_assert_int_lt(m->meta.duration_nanos, 60 * (int64_t)S);
	expect_done(&r, 1);
	rig_end(&r);
}
END_TEST

START_TEST(stop_mid_window_gives_partial_then_done)
{
	const struct fake_step steps[] = {
		{ .kind = FAKE_HANG, .samples = sa, .n = 2, .progress = true },
	};
	struct worker_opts o = { .window_ns = 60 * S };
	struct worker_msg *m;
	struct got g;
	struct rig r;

	rig_start(&r, steps, 1, true, &o);
	fake_wait_blocked(&r.ctl, 1);
	/* Two progress calls before the first read: one view, the latest. */
	m = expect(&r, WORKER_PROGRESS, 1);
	ck_assert(m->meta.partial);
	feed(m, &g);
	ck_assert_uint_eq(g.n, 2);
	ck_assert_str_eq(g.line[1], "main|tick|5|0|3");
	worker_stop(r.w);
	worker_stop(r.w);
	m = expect(&r, WORKER_WINDOW, 1);
	assert_stopped(m);
	feed(m, &g);
	ck_assert_uint_eq(g.n, 2);
	ck_assert_str_eq(g.line[0], "main;serve|conn|100|7|0");
	expect_done(&r, 1);
	rig_end(&r);
}
END_TEST

START_TEST(end_now_cuts_a_window)
{
	const struct fake_step steps[] = {
		{ .kind = FAKE_HANG, .samples = sa, .n = 1 },
		{ .kind = FAKE_HANG, .samples = sb, .n = 1 },
	};
	struct worker_opts o = { .window_ns = 60 * S };
	struct worker_msg *m1, *m2;
	struct got g;
	struct rig r;

	rig_start(&r, steps, 2, false, &o);
	fake_wait_blocked(&r.ctl, 1);
	worker_end_window(r.w);
	m1 = expect(&r, WORKER_WINDOW, 1);
	ck_assert(!m1->meta.partial);
	feed(m1, &g);
	ck_assert_str_eq(g.line[0], "main;serve|conn|100|7|0");
	fake_wait_blocked(&r.ctl, 2);
	worker_stop(r.w);
	m2 = expect(&r, WORKER_WINDOW, 2);
	ck_assert(m2->meta.partial);
	feed(m2, &g);
	ck_assert_str_eq(g.line[0], "main;serve;read||9|1|1");
	ck_assert_int_eq(m1->meta.time_nanos + m1->meta.duration_nanos,
	                 m2->meta.time_nanos);
	expect_done(&r, 2);
	rig_end(&r);
}
END_TEST

START_TEST(stop_fd_wakes_a_polling_adapter)
{
	const struct fake_step steps[] = {
		{ .kind = FAKE_POLL, .samples = sa, .n = 1 },
		{ .kind = FAKE_POLL, .samples = sb, .n = 1 },
	};
	struct worker_opts o = { .window_ns = 60 * S };
	struct rig r;

	rig_start(&r, steps, 2, false, &o);
	fake_wait_blocked(&r.ctl, 1);
	worker_end_window(r.w);
	ck_assert(!expect(&r, WORKER_WINDOW, 1)->meta.partial);
	/* The end-now of window 1 does not leak into window 2. */
	fake_wait_blocked(&r.ctl, 2);
	worker_stop(r.w);
	ck_assert(expect(&r, WORKER_WINDOW, 2)->meta.partial);
	expect_done(&r, 2);
	ck_assert_uint_eq(r.ctl.calls, 2);
	rig_end(&r);
}
END_TEST

START_TEST(max_windows_and_eof)
{
	const struct fake_step steps[] = {
		{ .kind = FAKE_SAMPLES,
		  .samples = sa,
		  .n = 1,
		  .own_meta = true },
		{ .kind = FAKE_EOF },
	};
	struct worker_opts o = { .window_ns = 60 * S, .max_windows = 2 };
	struct rig r;

	/* repeat: the first step forever, cut by max_windows. */
	rig_start(&r, steps, 1, true, &o);
	expect(&r, WORKER_WINDOW, 1);
	expect(&r, WORKER_WINDOW, 2);
	expect_done(&r, 2);
	rig_end(&r);

	/* A finite source: its EOF ends the worker before max_windows. */
	o.max_windows = 5;
	rig_start(&r, steps, 2, false, &o);
	expect(&r, WORKER_WINDOW, 1);
	expect_done(&r, 2);
	rig_end(&r);
}
END_TEST

START_TEST(stuck_adapter_times_out_then_goes_on)
{
	const struct fake_step steps[] = {
		{ .kind = FAKE_STUCK, .samples = sa, .n = 1 },
		{ .kind = FAKE_SAMPLES,
		  .samples = sb,
		  .n = 1,
		  .own_meta = true },
	};
	struct worker_opts o = { .window_ns = 5 * MS,
		                 .grace_ns = 20 * MS,
		                 .max_windows = 2 };
	struct worker_msg *m;
	struct rig r;

	rig_start(&r, steps, 2, false, &o);
	m = expect(&r, WORKER_ERROR, 1);
	ck_assert_int_eq(m->err.st, STATUS_TIMEOUT);
	ck_assert_str_eq(m->err.detail, "the fake adapter did not return "
	                                "within 0.02s of the window's end");
	fake_release(&r.ctl);
	/* The late result of window 1 is dropped, the retry is due at once
	 * (its window is long over); window 2 comes. */
	expect_retry(&r, 1, 0);
	ck_assert_uint_eq(expect(&r, WORKER_WINDOW, 2)->nsamples, 1);
	expect_done(&r, 2);
	rig_end(&r);
}
END_TEST

START_TEST(stuck_adapter_after_a_stop)
{
	const struct fake_step steps[] = {
		{ .kind = FAKE_STUCK, .samples = sa, .n = 1 },
	};
	struct worker_opts o = { .window_ns = 60 * S, .grace_ns = 20 * MS };
	struct worker_msg *m;
	struct rig r;

	rig_start(&r, steps, 1, true, &o);
	fake_wait_blocked(&r.ctl, 1);
	worker_stop(r.w);
	m = expect(&r, WORKER_ERROR, 1);
	ck_assert_int_eq(m->err.st, STATUS_TIMEOUT);
	ck_assert_str_eq(m->err.detail, "the fake adapter did not return "
	                                "within 0.02s of the stop request");
	/* worker_free would wait for it: release it, and only DONE is left. */
	fake_release(&r.ctl);
	expect_done(&r, 1);
	rig_end(&r);
}
END_TEST

START_TEST(free_with_undelivered_messages)
{
	const struct fake_step steps[] = {
		{ .kind = FAKE_SAMPLES,
		  .samples = sa,
		  .n = 2,
		  .own_meta = true,
		  .progress = true },
		{ .kind = FAKE_SAMPLES,
		  .samples = sa,
		  .n = 2,
		  .own_meta = true },
		{ .kind = FAKE_HANG, .samples = sb, .n = 1, .progress = true },
	};
	struct worker_opts o = { .window_ns = 60 * S };
	struct rig r;

	rig_start(&r, steps, 3, false, &o);
	fake_wait_blocked(&r.ctl, 1);
	/* Nothing read: worker_free stops, joins and frees the queue. */
	rig_end(&r);
}
END_TEST

START_TEST(free_right_after_start)
{
	const struct fake_step steps[] = {
		{ .kind = FAKE_HANG },
	};
	struct worker_opts o = { .window_ns = 60 * S };
	struct rig r;

	rig_start(&r, steps, 1, true, &o);
	rig_end(&r);
	worker_free(NULL);
}
END_TEST

/* One run of a worker over two windows, for the allocation-failure loop:
 * STATUS_NOMEM when anything was lost to memory on either thread. */
static enum status two_windows(void *ctx)
{
	static const struct fake_step steps[] = {
		{ .kind = FAKE_SAMPLES,
		  .samples = sa,
		  .n = 2,
		  .own_meta = true },
		{ .kind = FAKE_SAMPLES,
		  .samples = sb,
		  .n = 1,
		  .own_meta = true },
	};
	/* Short: a failed window is held to its end. */
	struct worker_opts o = { .window_ns = 1 * MS, .max_windows = 2 };
	enum status st, result = STATUS_OK;
	unsigned windows = 0;
	bool done = false;
	struct rig r;

	(void)ctx;
	st = rig_open(&r, steps, 2, false, &o);
	if (st != STATUS_OK)
		return st;
	while (!done) {
		struct worker_msg *m = next_msg(r.w);
		struct got g;

		switch (m->kind) {
		case WORKER_WINDOW:
			windows++;
			memset(&g, 0, sizeof(g));
			st = worker_msg_feed(
			    m, &(struct sample_sink){ got_sample, NULL, &g });
			if (st != STATUS_OK)
				result = st;
			break;
		case WORKER_ERROR:
			ck_assert_int_eq(m->err.st, STATUS_NOMEM);
			result = STATUS_NOMEM;
			break;
		case WORKER_DONE:
			if (m->err.st != STATUS_OK)
				result = m->err.st;
			done = true;
			break;
		default:
			break;
		}
		worker_msg_free(m);
	}
	rig_end(&r);
	if (result == STATUS_OK)
		ck_assert_uint_eq(windows, 2);
	return result;
}

START_TEST(allocation_failures)
{
	ck_assert_uint_gt(tu_torture(two_windows, NULL), 8);
}
END_TEST

Suite *suite_worker(void);
Suite *suite_worker(void)
{
	Suite *s = suite_create("worker");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, windows_in_order_with_shared_boundaries);
	tcase_add_test(tc, clamped_to_sixty_seconds);
	tcase_add_test(tc, empty_windows_are_sent_and_counted);
	tcase_add_test(tc, error_mid_window_then_next_window);
	tcase_add_test(tc, hang_ended_by_stop);
	tcase_add_test(tc, stop_mid_window_gives_partial_then_done);
	tcase_add_test(tc, end_now_cuts_a_window);
	tcase_add_test(tc, stop_fd_wakes_a_polling_adapter);
	tcase_add_test(tc, max_windows_and_eof);
	tcase_add_test(tc, stuck_adapter_times_out_then_goes_on);
	tcase_add_test(tc, stuck_adapter_after_a_stop);
	tcase_add_test(tc, free_with_undelivered_messages);
	tcase_add_test(tc, free_right_after_start);
	tcase_add_test(tc, allocation_failures);
	suite_add_tcase(s, tc);
	return s;
}
