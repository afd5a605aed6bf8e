/* What a custom adapter's producer reports, through the worker: its
 * explained or terse failures worded for the operator, a window with
 * nothing in it reported as no data, and a stop it is asked for. */
#include <check.h>
#include <stdio.h>
#include <string.h>

#include "adapters/adapter.h"
#include "adapters/asynctop.h"
#include "adapters/custom.h"
#include "adapters/worker.h"
#include "model/model.h"
#include "tests/adapter_util.h"

#define MS ((uint64_t)1000000u)

static enum asynctop_result produce_explained(void *user,
                                              struct asynctop_window *w)
{
	(void)user;
	asynctop_window_explain(w, "connect: connection refused",
	                        "start the service with ASYNCTOP=1");
	return ASYNCTOP_UNREACHABLE;
}

static enum asynctop_result produce_unreachable(void *user,
                                                struct asynctop_window *w)
{
	(void)user;
	(void)w;
	return ASYNCTOP_UNREACHABLE;
}

static enum asynctop_result produce_other(void *user, struct asynctop_window *w)
{
	const int *r = user;

	asynctop_window_explain(w, NULL, NULL);
	return (enum asynctop_result) * r;
}

START_TEST(custom_producer_errors)
{
	struct asynctop_adapter a[3] = {
		{ ASYNCTOP_ABI_VERSION, "explained", NULL, NULL,
		  produce_explained, NULL },
		{ ASYNCTOP_ABI_VERSION, "terse", NULL, "127.0.0.1:9",
		  produce_unreachable, NULL },
		{ ASYNCTOP_ABI_VERSION, "other", NULL, NULL, produce_other,
		  NULL },
	};
	static const struct {
		int result;
		enum status st;
		const char *detail;
	} others[] = {
		{ ASYNCTOP_TIMEOUT, STATUS_TIMEOUT,
		  "the source stopped answering" },
		{ ASYNCTOP_MALFORMED, STATUS_MALFORMED,
		  "the producer received something it could not use" },
		{ ASYNCTOP_FAILED, STATUS_IO, "the producer failed" },
		{ 77, STATUS_IO, "the producer returned an unknown result" },
	};
	struct custom_registry *cr;
	struct worker_msg *m;
	struct worker *w;
	struct adapter *ad;
	char err[128], text[1200];
	size_t i;
	int r;

	a[2].user = &r;
	ck_assert_int_eq(custom_registry_new(NULL, a, 3, &cr, err, sizeof(err)),
	                 STATUS_OK);
	m = au_one_window(custom_registry_get(cr), "explained", "svc", &w, &ad);
	ck_assert_int_eq(m->kind, WORKER_ERROR);
	ck_assert_int_eq(m->err.st, STATUS_UNREACHABLE);
	adapter_format_error(&m->err, "explained", "svc", 0, text,
	                     sizeof(text));
	ck_assert_str_eq(text, "the explained source is not reachable at svc: "
	                       "connect: connection refused\nstart the "
	                       "service with ASYNCTOP=1");
	worker_msg_free(m);
	au_finish(w, ad);

	m = au_one_window(custom_registry_get(cr), "terse", NULL, &w, &ad);
	ck_assert_int_eq(m->err.st, STATUS_UNREACHABLE);
	ck_assert_str_eq(m->err.detail, "the producer could not reach it");
	ck_assert_str_eq(m->err.remediation,
	                 "check that the application is running, that it "
	                 "serves asynctop's producer, and that -e names the "
	                 "right endpoint");
	worker_msg_free(m);
	au_finish(w, ad);

	for (i = 0; i < sizeof(others) / sizeof(others[0]); i++) {
		r = others[i].result;
		m = au_one_window(custom_registry_get(cr), "other", NULL, &w,
		                  &ad);
		ck_assert_int_eq(m->kind, WORKER_ERROR);
		ck_assert_int_eq(m->err.st, others[i].st);
		ck_assert_str_eq(m->err.detail, others[i].detail);
		ck_assert_str_eq(m->err.remediation, "");
		worker_msg_free(m);
		au_finish(w, ad);
	}
	custom_registry_free(cr);
}
END_TEST

START_TEST(custom_producer_with_nothing_is_no_data)
{
	struct asynctop_adapter a = { ASYNCTOP_ABI_VERSION, "quiet", NULL, NULL,
		                      au_produce_nothing,   NULL };
	struct custom_registry *cr;
	struct worker_msg *m;
	struct worker *w;
	struct adapter *ad;
	struct model *model;
	struct adapter_error e;
	char err[128], text[400], want[400];
	double secs;

	ck_assert_int_eq(
	    custom_registry_new(NULL, &a, 1, &cr, err, sizeof(err)), STATUS_OK);
	m = au_one_window(custom_registry_get(cr), "quiet", NULL, &w, &ad);
	ck_assert_int_eq(m->kind, WORKER_WINDOW);
	ck_assert_uint_eq(m->nsamples, 0);
	ck_assert_int_ge(m->meta.duration_nanos, (int64_t)(2 * MS));
	ck_assert_int_eq(model_new(NULL, &model), STATUS_OK);
	ck_assert_int_eq(model_begin(model), STATUS_OK);
	ck_assert_int_eq(model_commit(model, &m->meta, NULL),
	                 STATUS_EMPTY_WINDOW);
	memset(&e, 0, sizeof(e));
	e.st = STATUS_EMPTY_WINDOW;
	secs = (double)m->meta.duration_nanos / 1e9;
	adapter_format_error(&e, "quiet", NULL, secs, text, sizeof(text));
	snprintf(want, sizeof(want),
	         "the quiet source produced no task data over %gs. Either "
	         "nothing ran",
	         secs);
	ck_assert(strncmp(text, want, strlen(want)) == 0);
	model_free(model);
	worker_msg_free(m);
	au_finish(w, ad);
	custom_registry_free(cr);
}
END_TEST

static enum asynctop_result produce_until_stopped(void *user,
                                                  struct asynctop_window *w)
{
	int *stopped = user;

	*stopped = asynctop_window_wait(w);
	*stopped += asynctop_window_stopping(w);
	return ASYNCTOP_OK;
}

START_TEST(custom_producer_sees_a_stop)
{
	int stopped = 0;
	struct asynctop_adapter a = {
		ASYNCTOP_ABI_VERSION,  "waits", NULL, NULL,
		produce_until_stopped, &stopped
	};
	struct worker_opts o = { .window_ns = 60 * (uint64_t)1000000000u };
	struct custom_registry *cr;
	struct worker_msg *m;
	struct worker *w;
	struct adapter *ad;
	char err[128];

	ck_assert_int_eq(
	    custom_registry_new(NULL, &a, 1, &cr, err, sizeof(err)), STATUS_OK);
	ck_assert_int_eq(
	    adapter_open(adapter_find(custom_registry_get(cr), "waits"), NULL,
	                 0, NULL, NULL, &ad),
	    STATUS_OK);
	ck_assert_int_eq(worker_start(ad, &o, &w), STATUS_OK);
	worker_stop(w);
	m = au_next_msg(w);
	/* Stopped before or during the first window: DONE, or a partial
	 * window then DONE. */
	if (m->kind == WORKER_WINDOW) {
		ck_assert(m->meta.partial);
		ck_assert_int_eq(stopped, 2);
		worker_msg_free(m);
		m = au_next_msg(w);
	}
	ck_assert_int_eq(m->kind, WORKER_DONE);
	worker_msg_free(m);
	worker_free(w);
	adapter_close(ad);
	custom_registry_free(cr);
}
END_TEST

Suite *suite_custom_errors(void);
Suite *suite_custom_errors(void)
{
	Suite *s = suite_create("custom_errors");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, custom_producer_errors);
	tcase_add_test(tc, custom_producer_with_nothing_is_no_data);
	tcase_add_test(tc, custom_producer_sees_a_stop);
	suite_add_tcase(s, tc);
	return s;
}
