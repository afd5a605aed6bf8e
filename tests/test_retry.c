/* Retrying a failed source: the capped back-off (adapter.c) and how the
 * worker applies it: failures reported at once, the delay announced as
 * RETRYING, attempts spaced by at least that delay, a window with data
 * resetting it, a stop ending a long wait.  And telling a slow source from
 * a hung one: a wait the adapter bounds itself (collect_hold) is not a
 * hang, overrunning that bound is. */
#include <check.h>
#include <limits.h>
#include <pthread.h>
#include <string.h>

#include "adapters/adapter.h"
#include "adapters/worker.h"
#include "tests/adapter_util.h"

#define MS  ((uint64_t)1000000u)
#define SEC ((uint64_t)1000000000u)

START_TEST(backoff_doubles_from_base_up_to_the_cap)
{
	static const uint64_t want[] = { 250,  500,  1000, 2000,
		                         4000, 8000, 8000, 8000 };

	for (unsigned n = 0; n < sizeof(want) / sizeof(want[0]); n++)
		ck_assert_uint_eq(backoff_ns(250 * MS, 8 * SEC, n),
		                  want[n] * MS);
	/* a cap that is not a power-of-two multiple is still reached */
	ck_assert_uint_eq(backoff_ns(3, 10, 0), 3);
	ck_assert_uint_eq(backoff_ns(3, 10, 1), 6);
	ck_assert_uint_eq(backoff_ns(3, 10, 2), 10);
	ck_assert_uint_eq(backoff_ns(3, 10, 3), 10);
}
END_TEST

START_TEST(backoff_edges)
{
	/* huge n: the cap, at once (no loop over n, no overflow) */
	ck_assert_uint_eq(backoff_ns(1, UINT64_MAX, UINT_MAX), UINT64_MAX);
	ck_assert_uint_eq(backoff_ns(250 * MS, 8 * SEC, UINT_MAX), 8 * SEC);
	/* doubling past 2^63 saturates at the cap */
	ck_assert_uint_eq(backoff_ns(UINT64_MAX / 2 + 2, UINT64_MAX, 1),
	                  UINT64_MAX);
	/* a cap below the base is the base: never shorter than asked */
	ck_assert_uint_eq(backoff_ns(5 * SEC, SEC, 0), 5 * SEC);
	ck_assert_uint_eq(backoff_ns(5 * SEC, SEC, 7), 5 * SEC);
	/* base equal to the cap: constant */
	ck_assert_uint_eq(backoff_ns(SEC, SEC, 3), SEC);
	/* base 0: no delay, whatever n */
	ck_assert_uint_eq(backoff_ns(0, SEC, 0), 0);
	ck_assert_uint_eq(backoff_ns(0, SEC, UINT_MAX), 0);
}
END_TEST

/* ---- a scripted source: 'F' fails unreachable, 'D' delivers a window,
 * 'S' is slow (holds 5 s, takes 300 ms past its window, delivers), 'H'
 * overruns its hold of 100 ms until stopped */

struct script {
	const char *steps; /* one letter per collect; past the end: 'F' */
	pthread_mutex_t mu;
	unsigned calls;
	uint64_t at[32]; /* collect_now() at each call */
};

static struct script *script;

static enum status scripted_collect(struct adapter *a, struct collect *c)
{
	struct script *s = script;
	unsigned k;
	char step;

	(void)a;
	pthread_mutex_lock(&s->mu);
	k = s->calls++;
	if (k < sizeof(s->at) / sizeof(s->at[0]))
		s->at[k] = collect_now();
	step = k < strlen(s->steps) ? s->steps[k] : 'F';
	pthread_mutex_unlock(&s->mu);
	if (step == 'S') {
		collect_hold(c, collect_now() + 5 * SEC);
		(void)collect_wait_until(c, collect_deadline(c) + 300 * MS);
		step = 'D';
	} else if (step == 'H') {
		collect_hold(c, collect_now() + 100 * MS);
		(void)collect_wait_until(c, collect_now() + 3600 * SEC);
		return collect_fail(c, STATUS_UNREACHABLE, "stopped", NULL);
	}
	if (step == 'D') {
		struct strview fr = { "app:main:1", 10 };
		struct sample smp;
		struct window_meta m;

		memset(&smp, 0, sizeof(smp));
		smp.frames = &fr;
		smp.depth = 1;
		smp.m.v[METRIC_IDLE] = 1;
		smp.tasks = 1;
		ck_assert_int_eq(collect_add(c, &smp), STATUS_OK);
		/* a window of its own: returned at once, not held */
		memset(&m, 0, sizeof(m));
		m.time_nanos = 1;
		m.duration_nanos = 1;
		collect_set_meta(c, &m);
		return STATUS_OK;
	}
	return collect_fail(c, STATUS_UNREACHABLE, "connection refused",
	                    "start it");
}

static const struct adapter_ops scripted = {
	.name = "scripted",
	.summary = "a source failing on cue",
	.default_endpoint = "here",
	.collect = scripted_collect,
};

/* Expects a failed window: its error, then RETRYING with retry_in. */
static void expect_failure(struct worker *w, uint64_t index, uint64_t retry_in)
{
	struct worker_msg *m = au_next_msg(w);

	ck_assert_int_eq(m->kind, WORKER_ERROR);
	ck_assert_uint_eq(m->index, index);
	ck_assert_int_eq(m->err.st, STATUS_UNREACHABLE);
	ck_assert_str_eq(m->err.detail, "connection refused");
	worker_msg_free(m);
	m = au_next_msg(w);
	ck_assert_int_eq(m->kind, WORKER_STATE);
	ck_assert_int_eq(m->state, SOURCE_RETRYING);
	ck_assert_uint_eq(m->retry_in_ns, retry_in);
	worker_msg_free(m);
}

static void expect_window(struct worker *w, uint64_t index)
{
	struct worker_msg *m = au_next_msg(w);

	ck_assert_int_eq(m->kind, WORKER_WINDOW);
	ck_assert_uint_eq(m->index, index);
	ck_assert_uint_eq(m->nsamples, 1);
	worker_msg_free(m);
}

static void expect_done(struct worker *w)
{
	struct worker_msg *m = au_next_msg(w);

	ck_assert_int_eq(m->kind, WORKER_DONE);
	ck_assert_int_eq(m->err.st, STATUS_OK);
	worker_msg_free(m);
}

static struct adapter *open_scripted(struct script *s, const char *steps)
{
	struct adapter *a = NULL;

	memset(s, 0, sizeof(*s));
	s->steps = steps;
	pthread_mutex_init(&s->mu, NULL);
	script = s;
	ck_assert_int_eq(adapter_open(&scripted, NULL, 0, NULL, NULL, &a),
	                 STATUS_OK);
	return a;
}

static void close_scripted(struct script *s, struct adapter *a)
{
	adapter_close(a);
	pthread_mutex_destroy(&s->mu);
	script = NULL;
}

START_TEST(worker_backs_off_and_resets_after_data)
{
	/* delays 10, 20, 40, 40 ms; then data; then 10 ms again */
	struct worker_opts o = { .window_ns = 30 * SEC,
		                 .max_windows = 7,
		                 .retry_base_ns = 10 * MS,
		                 .retry_max_ns = 40 * MS };
	static const uint64_t delay[] = { 10, 20, 40, 40, 0, 10 };
	struct script s;
	struct adapter *a = open_scripted(&s, "FFFFDF");
	struct worker *w;

	ck_assert_int_eq(worker_start(a, &o, &w), STATUS_OK);
	expect_failure(w, 1, 10 * MS);
	expect_failure(w, 2, 20 * MS);
	expect_failure(w, 3, 40 * MS);
	expect_failure(w, 4, 40 * MS);
	expect_window(w, 5);
	expect_failure(w, 6, 10 * MS);
	expect_failure(w, 7, 20 * MS);
	expect_done(w);
	worker_free(w);
	/* each attempt came no sooner than the delay announced before it
	 * (a lower bound only: a loaded machine may make it later); the 30 s
	 * window never held a failed attempt */
	ck_assert_uint_eq(s.calls, 7);
	for (unsigned k = 0; k + 1 < 7; k++) {
		ck_assert_uint_ge(s.at[k + 1] - s.at[k], delay[k] * MS);
		ck_assert_uint_lt(s.at[k + 1] - s.at[k], 10 * SEC);
	}
	close_scripted(&s, a);
}
END_TEST

START_TEST(worker_without_backoff_retries_once_per_window)
{
	/* record's setting: a failed window is held to its end */
	struct worker_opts o = { .window_ns = 50 * MS, .max_windows = 2 };
	struct script s;
	struct adapter *a = open_scripted(&s, "FF");
	struct worker *w;
	uint64_t first_retry_in = 0;

	ck_assert_int_eq(worker_start(a, &o, &w), STATUS_OK);
	for (uint64_t i = 1; i <= 2; i++) {
		struct worker_msg *m = au_next_msg(w);

		ck_assert_int_eq(m->kind, WORKER_ERROR);
		ck_assert_uint_eq(m->index, i);
		worker_msg_free(m);
		m = au_next_msg(w);
		ck_assert_int_eq(m->kind, WORKER_STATE);
		ck_assert_int_eq(m->state, SOURCE_RETRYING);
		/* the rest of the window, whatever the load left of it */
		ck_assert_uint_le(m->retry_in_ns, 50 * MS);
		if (i == 1)
			first_retry_in = m->retry_in_ns;
		worker_msg_free(m);
	}
	expect_done(w);
	worker_free(w);
	ck_assert_uint_eq(s.calls, 2);
	/* not before window 1 ended: the first call may start late in it
	 * (under valgrind, well late), so its rest is the bound, not 50 ms */
	ck_assert_uint_ge(s.at[1] - s.at[0], first_retry_in);
	close_scripted(&s, a);
}
END_TEST

START_TEST(worker_stop_ends_a_long_backoff)
{
	/* an hour's delay: the failure is reported at once, and a stop ends
	 * the wait (next_msg would give up after 10 s otherwise) */
	struct worker_opts o = { .window_ns = SEC,
		                 .retry_base_ns = 3600 * SEC,
		                 .retry_max_ns = 3600 * SEC };
	struct script s;
	struct adapter *a = open_scripted(&s, "F");
	struct worker *w;

	ck_assert_int_eq(worker_start(a, &o, &w), STATUS_OK);
	expect_failure(w, 1, 3600 * SEC);
	worker_stop(w);
	expect_done(w);
	worker_free(w);
	ck_assert_uint_eq(s.calls, 1);
	close_scripted(&s, a);
}
END_TEST

START_TEST(worker_hold_tells_slow_from_hung)
{
	/* a 10 ms window and a 100 ms grace: 'S' returns 300 ms past its
	 * window, inside the 5 s it declared, so its window counts */
	struct worker_opts o = { .window_ns = 10 * MS,
		                 .grace_ns = 100 * MS,
		                 .max_windows = 1 };
	struct script s;
	struct adapter *a = open_scripted(&s, "S");
	struct worker *w;
	struct worker_msg *m;

	ck_assert_int_eq(worker_start(a, &o, &w), STATUS_OK);
	expect_window(w, 1);
	expect_done(w);
	worker_free(w);
	close_scripted(&s, a);

	/* 'H' outlives its own 100 ms: reported as hung, naming its timeout,
	 * then stopped */
	a = open_scripted(&s, "H");
	ck_assert_int_eq(worker_start(a, &o, &w), STATUS_OK);
	m = au_next_msg(w);
	ck_assert_int_eq(m->kind, WORKER_ERROR);
	ck_assert_int_eq(m->err.st, STATUS_TIMEOUT);
	ck_assert_str_eq(m->err.detail,
	                 "the scripted adapter did not return within 0.1s of "
	                 "the end of its own timeout");
	worker_msg_free(m);
	worker_stop(w);
	m = au_next_msg(w);
	ck_assert_int_eq(m->kind, WORKER_DONE);
	worker_msg_free(m);
	worker_free(w);
	close_scripted(&s, a);
}
END_TEST

Suite *suite_retry(void);
Suite *suite_retry(void)
{
	Suite *s = suite_create("retry");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, backoff_doubles_from_base_up_to_the_cap);
	tcase_add_test(tc, backoff_edges);
	tcase_add_test(tc, worker_backs_off_and_resets_after_data);
	tcase_add_test(tc, worker_without_backoff_retries_once_per_window);
	tcase_add_test(tc, worker_stop_ends_a_long_backoff);
	tcase_add_test(tc, worker_hold_tells_slow_from_hung);
	suite_add_tcase(s, tc);
	return s;
}
