/* The custom adapter through the public API (asynctop.h) and the worker:
 * an embedder's registry and what it refuses, a producer's samples folded
 * into the model, and embedders built for ABI 1 and ABI 2.  What a
 * producer reports of its failures is test_custom_errors.c's. */
#include <check.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "adapters/adapter.h"
#include "adapters/asynctop.h"
#include "adapters/builtin.h"
#include "adapters/custom.h"
#include "adapters/worker.h"
#include "model/extras.h"
#include "model/model.h"
#include "tests/adapter_util.h"

#define MS ((uint64_t)1000000u)

START_TEST(custom_registry_checks)
{
	struct asynctop_adapter a[2] = {
		{ ASYNCTOP_ABI_VERSION, "inhouse", "our executor", NULL,
		  au_produce_nothing, NULL },
		{ ASYNCTOP_ABI_VERSION, "other", NULL, "sock",
		  au_produce_nothing, NULL },
	};
	struct custom_registry *cr;
	const struct adapter_registry *r;
	char err[256], d[128];

	ck_assert_int_eq(custom_registry_new(builtin_registry(), a, 2, &cr, err,
	                                     sizeof(err)),
	                 STATUS_OK);
	r = custom_registry_get(cr);
	ck_assert_uint_eq(r->n, builtin_registry()->n + 2);
	ck_assert_str_eq(adapter_find(r, "inhouse")->summary, "our executor");
	ck_assert_ptr_eq(adapter_find(r, "other")->user, &a[1]);
	ck_assert_str_eq(adapter_find(r, "other")->default_endpoint, "sock");
	ck_assert_ptr_nonnull(adapter_find(r, "replay"));
	adapter_list_names(r, d, sizeof(d));
	ck_assert_str_eq(
	    d,
	    "asyncio, replay, tokio (alias kernal-api-async), inhouse, other");
	custom_registry_free(cr);
	custom_registry_free(NULL);

	a[1].abi = 99;
	ck_assert_int_eq(custom_registry_new(builtin_registry(), a, 2, &cr, err,
	                                     sizeof(err)),
	                 STATUS_INVAL);
	ck_assert_ptr_null(cr);
	ck_assert_str_eq(
	    err,
	    "embedded adapter 2 (other) was built for asynctop ABI 99, but this library accepts ABI 1 to 2: rebuild it against this asynctop.h");
	a[1].abi = ASYNCTOP_ABI_VERSION;
	a[1].name = "replay";
	ck_assert_int_eq(custom_registry_new(builtin_registry(), a, 2, &cr, err,
	                                     sizeof(err)),
	                 STATUS_INVAL);
	ck_assert_str_eq(err, "embedded adapter \"replay\" takes a name that "
	                      "is already offered");
	a[1].name = "inhouse";
	ck_assert_int_eq(custom_registry_new(NULL, a, 2, &cr, err, sizeof(err)),
	                 STATUS_INVAL);
	a[1].name = "two words";
	ck_assert_int_eq(custom_registry_new(NULL, a, 2, &cr, err, sizeof(err)),
	                 STATUS_INVAL);
	ck_assert(strstr(err, "embedded adapter 2 has no usable name") == err);
	a[1].name = "ok";
	a[1].produce = NULL;
	ck_assert_int_eq(custom_registry_new(NULL, a, 2, &cr, err, sizeof(err)),
	                 STATUS_INVAL);
	ck_assert_str_eq(err, "embedded adapter \"ok\" has no producer");
	ck_assert_int_eq(custom_registry_new(NULL, a, 0, &cr, err, sizeof(err)),
	                 STATUS_OK);
	ck_assert_uint_eq(custom_registry_get(cr)->n, 0);
	custom_registry_free(cr);
}
END_TEST

struct seen {
	uint64_t length;
	char endpoint[64];
	int waited;
};

static enum asynctop_result produce_samples(void *user,
                                            struct asynctop_window *w)
{
	struct seen *seen = user;
	struct asynctop_str fr[2] = { { "main", 4 }, { "worker_loopXX", 11 } };
	struct asynctop_sample s;

	seen->length = asynctop_window_length_ns(w);
	snprintf(seen->endpoint, sizeof(seen->endpoint), "%s",
	         asynctop_window_endpoint(w));
	memset(&s, 0, sizeof(s));
	s.frames = fr;
	s.depth = 2;
	s.task.ptr = "job";
	s.task.len = 3;
	s.idle_ns = 500;
	s.busy_ns = 20;
	s.scheduled_ns = 3;
	s.polls = 4;
	s.wakes = 5;
	ck_assert_int_eq(asynctop_window_add(w, &s), 0);
	s.depth = 1;
	s.tasks = 6;
	s.task.len = 0;
	ck_assert_int_eq(asynctop_window_add(w, &s), 0);
	s.frames = NULL; /* refused, counted as dropped */
	ck_assert_int_eq(asynctop_window_add(w, &s), -1);
	ck_assert_int_eq(asynctop_window_add(w, NULL), -1);
	ck_assert_int_eq(asynctop_window_stopping(w), 0);
	seen->waited = asynctop_window_wait(w);
	return ASYNCTOP_OK;
}

struct folded {
	struct model *m;
	char text[4][96];
	size_t n;
};

static enum status fold_sample(void *ctx, const struct sample *s)
{
	struct folded *f = ctx;
	char *d = f->text[f->n++];

	snprintf(d, 96, "%zu:%.*s:%.*s:%llu:%llu:%llu:%llu:%llu:%llu", s->depth,
	         (int)s->frames[s->depth - 1].len, s->frames[s->depth - 1].ptr,
	         (int)s->task.len, s->task.len ? s->task.ptr : "",
	         (unsigned long long)s->m.v[METRIC_IDLE],
	         (unsigned long long)s->m.v[METRIC_BUSY],
	         (unsigned long long)s->m.v[METRIC_SCHED],
	         (unsigned long long)s->m.v[METRIC_POLLS],
	         (unsigned long long)s->m.v[METRIC_WAKES],
	         (unsigned long long)s->tasks);
	return model_add(f->m, s);
}

START_TEST(custom_producer_adds_samples)
{
	struct seen seen;
	struct asynctop_adapter a = {
		ASYNCTOP_ABI_VERSION, "inhouse", NULL, NULL,
		produce_samples,      &seen
	};
	struct custom_registry *cr;
	struct worker_msg *m;
	struct worker *w;
	struct adapter *ad;
	struct folded f;
	struct sample_sink sink = { fold_sample, NULL, &f };
	const struct window *win;
	char err[128];

	memset(&seen, 0, sizeof(seen));
	memset(&f, 0, sizeof(f));
	ck_assert_int_eq(custom_registry_new(builtin_registry(), &a, 1, &cr,
	                                     err, sizeof(err)),
	                 STATUS_OK);
	m = au_one_window(custom_registry_get(cr), "inhouse", "unix:/run/x", &w,
	                  &ad);
	ck_assert_int_eq(m->kind, WORKER_WINDOW);
	ck_assert_uint_eq(m->nsamples, 2);
	ck_assert_uint_eq(m->meta.dropped, 2);
	ck_assert_str_eq(m->meta.source, "inhouse unix:/run/x");
	ck_assert_uint_eq(seen.length, 2 * MS);
	ck_assert_str_eq(seen.endpoint, "unix:/run/x");
	ck_assert_int_eq(seen.waited, 0);
	ck_assert_int_eq(model_new(NULL, &f.m), STATUS_OK);
	ck_assert_int_eq(model_begin(f.m), STATUS_OK);
	ck_assert_int_eq(worker_msg_feed(m, &sink), STATUS_OK);
	ck_assert_str_eq(f.text[0], "2:worker_loop:job:500:20:3:4:5:1");
	ck_assert_str_eq(f.text[1], "1:main::500:20:3:4:5:6");
	ck_assert_int_eq(model_commit(f.m, &m->meta, &win), STATUS_OK);
	ck_assert_uint_eq(win->tasks, 7);
	model_free(f.m);
	worker_msg_free(m);
	au_finish(w, ad);
	custom_registry_free(cr);
}
END_TEST

/* An embedder built for ABI 1: its samples end at tasks.  What follows
 * them in memory here is garbage that must not be read. */
static enum asynctop_result produce_abi1(void *user, struct asynctop_window *w)
{
	struct asynctop_str fr[1] = { { "v1", 2 } };
	struct asynctop_sample *s = user;

	memset(s, 0xff, sizeof(*s));
	memset(s, 0, offsetof(struct asynctop_sample, parked));
	s->frames = fr;
	s->depth = 1;
	s->idle_ns = 7;
	ck_assert_int_eq(asynctop_window_add(w, s), 0);
	return ASYNCTOP_OK;
}

/* An embedder built for ABI 2: a parked-at stack and two known figures. */
static enum asynctop_result produce_abi2(void *user, struct asynctop_window *w)
{
	struct asynctop_str fr[1] = { { "v2", 2 } };
	struct asynctop_str pk[2] = { { "handler", 7 },
		                      { "Lock.acquire", 12 } };
	struct asynctop_sample s = {
		.frames = fr,
		.depth = 1,
		.idle_ns = 9,
		.parked = pk,
		.parked_depth = 2,
		.known = ASYNCTOP_KNOWN_SELF_WAKES | ASYNCTOP_KNOWN_MAX_POLL,
		.self_wakes = 0,
		.max_poll_ns = 1234,
		.wakers = 99, /* not known: ignored */
	};

	(void)user;
	ck_assert_int_eq(asynctop_window_add(w, &s), 0);
	s.parked = NULL; /* a parked depth without frames: refused */
	ck_assert_int_eq(asynctop_window_add(w, &s), -1);
	return ASYNCTOP_OK;
}

/* One window of the adapter a, folded into a new model *m. */
static const struct window *custom_window(struct asynctop_adapter *a,
                                          struct model **m)
{
	struct custom_registry *cr;
	struct worker_msg *msg;
	struct worker *w;
	struct adapter *ad;
	struct sample_sink sink;
	const struct window *win;
	char err[160];

	ck_assert_int_eq(custom_registry_new(builtin_registry(), a, 1, &cr, err,
	                                     sizeof(err)),
	                 STATUS_OK);
	msg = au_one_window(custom_registry_get(cr), a->name, NULL, &w, &ad);
	ck_assert_int_eq(msg->kind, WORKER_WINDOW);
	ck_assert_int_eq(model_new(NULL, m), STATUS_OK);
	ck_assert_int_eq(model_begin(*m), STATUS_OK);
	sink = model_sink(*m);
	ck_assert_int_eq(worker_msg_feed(msg, &sink), STATUS_OK);
	ck_assert_int_eq(model_commit(*m, &msg->meta, &win), STATUS_OK);
	worker_msg_free(msg);
	au_finish(w, ad);
	custom_registry_free(cr);
	return win;
}

START_TEST(custom_abi1_and_abi2)
{
	struct asynctop_sample *v1 = malloc(sizeof(*v1));
	struct asynctop_adapter a1 = {
		.abi = 1, .name = "old", .produce = produce_abi1, .user = v1
	};
	struct asynctop_adapter a2 = { .abi = ASYNCTOP_ABI_VERSION,
		                       .name = "new",
		                       .produce = produce_abi2 };
	const struct window *w;
	const uint32_t *f;
	struct model *m;
	size_t depth;
	uint64_t v;

	ck_assert_ptr_nonnull(v1);
	ck_assert_int_eq(ASYNCTOP_ABI_VERSION, 2);
	w = custom_window(&a1, &m);
	ck_assert_uint_eq(w->nentries, 1);
	ck_assert_uint_eq(w->entries[0].m.v[METRIC_IDLE], 7);
	ck_assert_uint_eq(w->entries[0].parked, model_not_parked(m));
	ck_assert_uint_eq(window_extras(w, &w->entries[0])->known, 0);
	model_free(m);
	free(v1);

	w = custom_window(&a2, &m);
	ck_assert_uint_eq(w->nentries, 1);
	ck_assert_uint_eq(w->stats.samples, 1);
	f = model_stack(m, w->entries[0].parked, &depth);
	ck_assert_uint_eq(depth, 2);
	ck_assert(sv_eq(model_frame(m, f[1]), sv_c("Lock.acquire")));
	ck_assert(
	    extras_get(window_extras(w, &w->entries[0]), EXTRA_SELF_WAKES, &v));
	ck_assert_uint_eq(v, 0); /* known zero, not unknown */
	ck_assert(
	    extras_get(window_extras(w, &w->entries[0]), EXTRA_MAX_POLL, &v));
	ck_assert_uint_eq(v, 1234);
	ck_assert(
	    !extras_get(window_extras(w, &w->entries[0]), EXTRA_WAKERS, &v));
	model_free(m);
}
END_TEST

Suite *suite_custom(void);
Suite *suite_custom(void)
{
	Suite *s = suite_create("custom");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, custom_registry_checks);
	tcase_add_test(tc, custom_producer_adds_samples);
	tcase_add_test(tc, custom_abi1_and_abi2);
	suite_add_tcase(s, tc);
	return s;
}
