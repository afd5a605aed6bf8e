/* The adapter framework: registry, names, the operator's error wording,
 * opening, the owned sample batch, and the custom adapter through the
 * public API (asynctop.h) and the worker. */
#include <check.h>
#include <poll.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "adapters/adapter.h"
#include "adapters/asynctop.h"
#include "adapters/batch.h"
#include "adapters/builtin.h"
#include "adapters/custom.h"
#include "adapters/worker.h"
#include "model/alloc.h"
#include "model/extras.h"
#include "model/model.h"
#include "tests/util.h"

#define MS ((uint64_t)1000000u)

static const char *const tokio_aliases[] = { "kernal-api-async", NULL };
static const struct adapter_ops op_asyncio = { .name = "asyncio",
	                                       .summary = "Python asyncio",
	                                       .default_endpoint = NULL };
static const struct adapter_ops op_replay = { .name = "replay",
	                                      .summary = "saved profiles",
	                                      .flags = ADAPTER_MULTI_ENDPOINT };
static const struct adapter_ops op_tokio = {
	.name = "tokio",
	.aliases = tokio_aliases,
	.summary = "tokio console",
	.default_endpoint = "http://127.0.0.1:6669",
	.private_size = 40,
};
static const struct adapter_ops *const three[] = { &op_asyncio, &op_replay,
	                                           &op_tokio };
static const struct adapter_registry reg3 = { .ops = three, .n = 3 };

START_TEST(state_names)
{
	ck_assert_str_eq(source_state_str(SOURCE_CONNECTING), "connecting");
	ck_assert_str_eq(source_state_str(SOURCE_RETRYING), "retrying");
	ck_assert_str_eq(source_state_str(SOURCE_REPLAY), "replay");
	ck_assert_str_eq(source_state_str((enum source_state)99), "unknown");
}
END_TEST

START_TEST(find_by_name_and_alias)
{
	ck_assert_ptr_eq(adapter_find(&reg3, "tokio"), &op_tokio);
	ck_assert_ptr_eq(adapter_find(&reg3, "kernal-api-async"), &op_tokio);
	ck_assert_ptr_eq(adapter_find(&reg3, "asyncio"), &op_asyncio);
	ck_assert_ptr_null(adapter_find(&reg3, "Tokio"));
	ck_assert_ptr_null(adapter_find(&reg3, "custom"));
	ck_assert_ptr_null(adapter_find(&reg3, ""));
	ck_assert_ptr_null(adapter_find(&reg3, NULL));
	ck_assert_ptr_null(adapter_find(NULL, "tokio"));
}
END_TEST

START_TEST(list_names)
{
	char d[128], small[12];

	adapter_list_names(&reg3, d, sizeof(d));
	ck_assert_str_eq(d, "asyncio, replay, tokio (alias kernal-api-async)");
	adapter_list_names(&reg3, small, sizeof(small));
	ck_assert_str_eq(small, "asyncio, re");
	{
		static const char *const two[] = { "x", "y", NULL };
		struct adapter_ops o = op_asyncio;
		const struct adapter_ops *one[1] = { &o };
		struct adapter_registry r = { .ops = one, .n = 1 };

		o.aliases = two;
		adapter_list_names(&r, d, sizeof(d));
		ck_assert_str_eq(d, "asyncio (aliases x, y)");
		ck_assert_ptr_eq(adapter_find(&r, "y"), &o);
		r.n = 0;
		adapter_list_names(&r, d, sizeof(d));
		ck_assert_str_eq(d, "");
		adapter_format_unknown(&r, "z", d, sizeof(d));
		ck_assert_str_eq(d, "no async profiling adapter named \"z\"; "
		                    "available: none");
	}
}
END_TEST

START_TEST(builtin_offers_replay_and_tokio)
{
	const struct adapter_registry *b = builtin_registry();
	char d[128];

	ck_assert_ptr_nonnull(adapter_find(b, "replay"));
	ck_assert_ptr_null(adapter_find(b, "custom"));
	adapter_list_names(b, d, sizeof(d));
	ck_assert_str_eq(d, "asyncio, replay, tokio (alias kernal-api-async)");
	ck_assert(adapter_find(b, "replay")->flags & ADAPTER_FINITE);
}
END_TEST

START_TEST(unknown_adapter_wording)
{
	char d[256];

	adapter_format_unknown(&reg3, "tokyo", d, sizeof(d));
	ck_assert_str_eq(d, "no async profiling adapter named \"tokyo\"; "
	                    "available: asyncio, replay, tokio (alias "
	                    "kernal-api-async)");
	adapter_format_unknown(&reg3, "a\"b\\c\n\x1b", d, sizeof(d));
	ck_assert_str_eq(d, "no async profiling adapter named "
	                    "\"a\\\"b\\\\c\\n\\u{1b}\"; available: asyncio, "
	                    "replay, tokio (alias kernal-api-async)");
}
END_TEST

START_TEST(error_wording)
{
	struct adapter_error e;
	char d[600], tiny[10];

	memset(&e, 0, sizeof(e));
	e.st = STATUS_UNREACHABLE;
	snprintf(e.detail, sizeof(e.detail), "connection refused");
	snprintf(e.remediation, sizeof(e.remediation),
	         "is console_subscriber::init() called?");
	adapter_format_error(&e, "tokio", "http://127.0.0.1:6669", 5, d,
	                     sizeof(d));
	ck_assert_str_eq(d, "the tokio source is not reachable at "
	                    "http://127.0.0.1:6669: connection refused\n"
	                    "is console_subscriber::init() called?");
	e.remediation[0] = '\0';
	adapter_format_error(&e, "tokio", NULL, 5, d, sizeof(d));
	ck_assert_str_eq(d, "the tokio source is not reachable at its default "
	                    "endpoint: connection refused");

	e.st = STATUS_EMPTY_WINDOW;
	adapter_format_error(&e, "asyncio", "4242", 0.5, d, sizeof(d));
	ck_assert_str_eq(d, "the asyncio source produced no task data over "
	                    "0.5s. Either nothing ran, or the application is "
	                    "not instrumented \xe2\x80\x94 an empty profile "
	                    "and an idle program look identical, so this is "
	                    "reported rather than drawn.");
	adapter_format_error(&e, "asyncio", "4242", 60, d, sizeof(d));
	ck_assert(strstr(d, "no task data over 60s. Either") != NULL);

	e.st = STATUS_TIMEOUT;
	snprintf(e.detail, sizeof(e.detail), "no reply in 2s");
	snprintf(e.remediation, sizeof(e.remediation), "is it stopped?");
	adapter_format_error(&e, "asyncio", "4242", 1, d, sizeof(d));
	ck_assert_str_eq(d, "the asyncio source at 4242 timed out: no reply "
	                    "in 2s\nis it stopped?");
	e.st = STATUS_MALFORMED;
	e.remediation[0] = '\0';
	snprintf(e.detail, sizeof(e.detail), "frame length 9999999");
	adapter_format_error(&e, "asyncio", "4242", 1, d, sizeof(d));
	ck_assert_str_eq(d, "the asyncio source at 4242 sent malformed data: "
	                    "frame length 9999999");
	e.st = STATUS_FOREIGN;
	e.detail[0] = '\0';
	adapter_format_error(&e, "replay", "x.pb", 1, d, sizeof(d));
	ck_assert_str_eq(d, "the replay source at x.pb failed: not an "
	                    "asynctop profile");
	snprintf(e.detail, sizeof(e.detail), "x.pb: cannot open: gone");
	adapter_format_error(&e, "replay", "x.pb", 1, d, sizeof(d));
	ck_assert_str_eq(d, "the replay source at x.pb failed: x.pb: cannot "
	                    "open: gone");
	adapter_format_error(&e, "replay", "x.p", 1, d, sizeof(d));
	ck_assert_str_eq(d, "the replay source at x.p failed: x.pb: cannot "
	                    "open: gone");
	adapter_format_error(&e, "replay", "x.pb", 1, tiny, sizeof(tiny));
	ck_assert_str_eq(tiny, "the repla");
}
END_TEST

static int opened, closed;

static enum status open_fails(struct adapter *a, struct adapter_error *err)
{
	(void)a;
	opened++;
	snprintf(err->detail, sizeof(err->detail), "bad endpoint syntax");
	return STATUS_INVAL;
}

static enum status open_ok(struct adapter *a, struct adapter_error *err)
{
	const unsigned char *p = a->priv;
	size_t i;

	(void)err;
	for (i = 0; i < a->ops->private_size; i++)
		ck_assert_uint_eq(p[i], 0);
	opened++;
	return STATUS_OK;
}

static void close_count(struct adapter *a)
{
	(void)a;
	closed++;
}

START_TEST(open_rules)
{
	const char *eps[] = { "a.pb", "b.pb" };
	struct adapter_ops o = op_tokio;
	struct adapter_config cfg;
	struct adapter_error err;
	struct adapter *a;

	ck_assert_int_eq(adapter_open(&op_tokio, eps, 2, NULL, &err, &a),
	                 STATUS_INVAL);
	ck_assert_ptr_null(a);
	ck_assert_str_eq(err.detail,
	                 "the tokio adapter takes one endpoint (-e), not 2");
	ck_assert_int_eq(adapter_open(&op_asyncio, NULL, 0, NULL, &err, &a),
	                 STATUS_INVAL);
	ck_assert_str_eq(
	    err.detail,
	    "the asyncio adapter needs an endpoint: give it with -e");

	ck_assert_int_eq(adapter_open(&op_replay, eps, 2, NULL, &err, &a),
	                 STATUS_OK);
	ck_assert_uint_eq(a->nendpoints, 2);
	ck_assert_str_eq(a->endpoints[1], "b.pb");
	ck_assert_ptr_ne(a->endpoints[0], eps[0]);
	ck_assert_uint_eq(a->cfg.connect_timeout_ns, 2000000000u);
	ck_assert_uint_eq(a->cfg.load_limits.max_samples,
	                  LOAD_MAX_SAMPLES_DEFAULT);
	adapter_close(a);

	o.open = open_ok;
	o.close = close_count;
	opened = closed = 0;
	memset(&cfg, 0, sizeof(cfg));
	cfg.reply_timeout_ns = 7;
	ck_assert_int_eq(adapter_open(&o, NULL, 0, &cfg, NULL, &a), STATUS_OK);
	ck_assert_str_eq(a->endpoints[0], "http://127.0.0.1:6669");
	ck_assert_uint_eq(a->cfg.reply_timeout_ns, 7);
	ck_assert_uint_eq(a->cfg.connect_timeout_ns, 2000000000u);
	ck_assert_uint_eq(a->cfg.load_limits.max_bytes, LOAD_MAX_BYTES_DEFAULT);
	adapter_close(a);
	adapter_close(NULL);
	ck_assert_int_eq(opened, 1);
	ck_assert_int_eq(closed, 1);

	o.open = open_fails;
	ck_assert_int_eq(adapter_open(&o, NULL, 0, NULL, &err, &a),
	                 STATUS_INVAL);
	ck_assert_int_eq(err.st, STATUS_INVAL);
	ck_assert_str_eq(err.detail, "bad endpoint syntax");
	ck_assert_int_eq(closed, 1);
}
END_TEST

static enum status open_close_once(void *ctx)
{
	const char *eps[] = { "a.pb", "b.pb", "c.pb" };
	struct adapter *a;
	enum status st;

	(void)ctx;
	st = adapter_open(&op_replay, eps, 3, NULL, NULL, &a);
	if (st == STATUS_OK)
		adapter_close(a);
	return st;
}

START_TEST(open_torture)
{
	ck_assert_uint_gt(tu_torture(open_close_once, NULL), 3);
}
END_TEST

/* ---- batch -------------------------------------------------------------- */

struct lines {
	char s[8][96];
	size_t n;
};

static enum status line_sample(void *ctx, const struct sample *s)
{
	struct lines *l = ctx;
	size_t i, used = 0;
	char *d = l->s[l->n++];

	for (i = 0; i < s->depth; i++)
		used += (size_t)snprintf(d + used, 96 - used, "%s%.*s",
		                         i ? ";" : "", (int)s->frames[i].len,
		                         s->frames[i].ptr);
	used +=
	    (size_t)snprintf(d + used, 96 - used, "|%.*s|%llu|%llu|",
	                     (int)s->task.len, s->task.len ? s->task.ptr : "",
	                     (unsigned long long)s->m.v[METRIC_WAKES],
	                     (unsigned long long)s->tasks);
	for (i = 0; i < s->parked_depth; i++)
		used += (size_t)snprintf(d + used, 96 - used, "%s%.*s",
		                         i ? ";" : "", (int)s->parked[i].len,
		                         s->parked[i].ptr);
	snprintf(d + used, 96 - used, "|%u|%llu|%zu|%zu", (unsigned)s->x.known,
	         (unsigned long long)s->x.v[EXTRA_SELF_WAKES], s->dropped,
	         s->parked_dropped);
	return l->n == 3 ? STATUS_LIMIT : STATUS_OK;
}

static enum status fill(struct batch *b)
{
	struct strview fr[3] = { { "root", 4 }, { "", 0 }, { "leaf", 4 } };
	struct strview pk[3] = { { "p0", 2 }, { "p1", 2 }, { "p2", 2 } };
	struct sample s;
	int i;

	memset(&s, 0, sizeof(s));
	for (i = 0; i < 4; i++) {
		enum status st;

		s.frames = fr;
		s.depth = (size_t)(i % 4);
		s.task = sv_c(i == 2 ? "" : "t");
		s.m.v[METRIC_WAKES] = (uint64_t)i * 10;
		s.tasks = (uint64_t)i;
		/* the parked-at stack and the figures travel too */
		s.parked = pk;
		s.parked_depth = (size_t)(3 - i);
		s.x.known = (uint32_t)i;
		s.x.v[EXTRA_SELF_WAKES] = 100 + (uint64_t)i;
		/* and what the producer left out of each stack */
		s.dropped = (size_t)i;
		s.parked_dropped = 7 * (size_t)i;
		st = batch_add(b, &s);
		if (st != STATUS_OK)
			return st;
	}
	return STATUS_OK;
}

static enum status batch_round(void *ctx)
{
	struct batch a, b;
	struct lines l;
	struct sample_sink sink = { line_sample, NULL, &l };
	enum status st;

	(void)ctx;
	batch_init(&a);
	batch_init(&b);
	memset(&l, 0, sizeof(l));
	st = fill(&a);
	if (st == STATUS_OK)
		st = batch_copy(&b, &a);
	if (st == STATUS_OK)
		st = batch_feed(&b, &sink);
	if (st == STATUS_OK) {
		ck_assert_uint_eq(l.n, 4);
		ck_assert_str_eq(l.s[0], "|t|0|0|p0;p1;p2|0|100|0|0");
		ck_assert_str_eq(l.s[1], "root|t|10|1|p0;p1|1|101|1|7");
		ck_assert_str_eq(l.s[2], "root;||20|2|p0|2|102|2|14");
		ck_assert_str_eq(l.s[3], "root;;leaf|t|30|3||3|103|3|21");
	} else {
		ck_assert_int_eq(st, STATUS_NOMEM);
	}
	batch_fini(&a);
	batch_fini(&b);
	return st;
}

START_TEST(batch_copies_and_feeds)
{
	struct batch a, b;
	struct sample s;
	struct strview fr = { "x", 1 };

	ck_assert_uint_gt(tu_torture(batch_round, NULL), 3);
	batch_init(&a);
	batch_init(&b);
	memset(&s, 0, sizeof(s));
	s.depth = 2; /* frames missing: refused, counted */
	ck_assert_int_eq(batch_add(&a, &s), STATUS_INVAL);
	s.frames = &fr;
	s.depth = 1;
	s.parked_depth = 1; /* parked frames missing: refused too */
	ck_assert_int_eq(batch_add(&a, &s), STATUS_INVAL);
	s.parked = &fr; /* past the frame cap, spawn and parked together */
	s.parked_depth = BATCH_MAX_FRAMES;
	ck_assert_int_eq(batch_add(&a, &s), STATUS_LIMIT);
	s.parked_depth = 0;
	ck_assert_int_eq(batch_add(&a, &s), STATUS_OK);
	ck_assert_uint_eq(a.dropped, 3);
	batch_move(&b, &a);
	ck_assert_uint_eq(a.n, 0);
	ck_assert_uint_eq(b.n, 1);
	ck_assert_uint_eq(b.dropped, 3);
	batch_clear(&b);
	ck_assert_uint_eq(b.n, 0);
	ck_assert_uint_eq(b.dropped, 0);
	batch_fini(&a);
	batch_fini(&b);
}
END_TEST

/* ---- custom adapter ----------------------------------------------------- */

static enum asynctop_result produce_nothing(void *user,
                                            struct asynctop_window *w)
{
	(void)user;
	(void)w;
	return ASYNCTOP_OK;
}

START_TEST(custom_registry_checks)
{
	struct asynctop_adapter a[2] = {
		{ ASYNCTOP_ABI_VERSION, "inhouse", "our executor", NULL,
		  produce_nothing, NULL },
		{ ASYNCTOP_ABI_VERSION, "other", NULL, "sock", produce_nothing,
		  NULL },
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

static struct worker_msg *next_msg(struct worker *w)
{
	for (;;) {
		struct worker_msg *m = NULL;
		struct pollfd p = { worker_fd(w), POLLIN, 0 };

		if (worker_read(w, &m) == STATUS_OK)
			return m;
		ck_assert_msg(poll(&p, 1, 10000) > 0,
		              "no message from the worker within 10 s");
	}
}

/* Runs adapter name of registry r for one window of 2 ms at endpoint ep. */
static struct worker_msg *one_window(const struct adapter_registry *r,
                                     const char *name, const char *ep,
                                     struct worker **wp, struct adapter **ap)
{
	struct worker_opts o = { .window_ns = 2 * MS, .max_windows = 1 };
	struct adapter_error err;

	ck_assert_int_eq(adapter_open(adapter_find(r, name), ep ? &ep : NULL,
	                              ep ? 1 : 0, NULL, &err, ap),
	                 STATUS_OK);
	ck_assert_int_eq(worker_start(*ap, &o, wp), STATUS_OK);
	return next_msg(*wp);
}

static void finish(struct worker *w, struct adapter *a)
{
	struct worker_msg *m = next_msg(w);

	if (m->kind == WORKER_STATE) {
		/* after a failed window: when the retry is due (held to the
		 * window's end: base 0, so at most its 2 ms) */
		ck_assert_int_eq(m->state, SOURCE_RETRYING);
		ck_assert_uint_le(m->retry_in_ns, 2 * MS);
		worker_msg_free(m);
		m = next_msg(w);
	}
	ck_assert_int_eq(m->kind, WORKER_DONE);
	worker_msg_free(m);
	worker_free(w);
	adapter_close(a);
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
	m = one_window(custom_registry_get(cr), "inhouse", "unix:/run/x", &w,
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
	finish(w, ad);
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
	msg = one_window(custom_registry_get(cr), a->name, NULL, &w, &ad);
	ck_assert_int_eq(msg->kind, WORKER_WINDOW);
	ck_assert_int_eq(model_new(NULL, m), STATUS_OK);
	ck_assert_int_eq(model_begin(*m), STATUS_OK);
	sink = model_sink(*m);
	ck_assert_int_eq(worker_msg_feed(msg, &sink), STATUS_OK);
	ck_assert_int_eq(model_commit(*m, &msg->meta, &win), STATUS_OK);
	worker_msg_free(msg);
	finish(w, ad);
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
	m = one_window(custom_registry_get(cr), "explained", "svc", &w, &ad);
	ck_assert_int_eq(m->kind, WORKER_ERROR);
	ck_assert_int_eq(m->err.st, STATUS_UNREACHABLE);
	adapter_format_error(&m->err, "explained", "svc", 0, text,
	                     sizeof(text));
	ck_assert_str_eq(text, "the explained source is not reachable at svc: "
	                       "connect: connection refused\nstart the "
	                       "service with ASYNCTOP=1");
	worker_msg_free(m);
	finish(w, ad);

	m = one_window(custom_registry_get(cr), "terse", NULL, &w, &ad);
	ck_assert_int_eq(m->err.st, STATUS_UNREACHABLE);
	ck_assert_str_eq(m->err.detail, "the producer could not reach it");
	ck_assert_str_eq(m->err.remediation,
	                 "check that the application is running, that it "
	                 "serves asynctop's producer, and that -e names the "
	                 "right endpoint");
	worker_msg_free(m);
	finish(w, ad);

	for (i = 0; i < sizeof(others) / sizeof(others[0]); i++) {
		r = others[i].result;
		m = one_window(custom_registry_get(cr), "other", NULL, &w, &ad);
		ck_assert_int_eq(m->kind, WORKER_ERROR);
		ck_assert_int_eq(m->err.st, others[i].st);
		ck_assert_str_eq(m->err.detail, others[i].detail);
		ck_assert_str_eq(m->err.remediation, "");
		worker_msg_free(m);
		finish(w, ad);
	}
	custom_registry_free(cr);
}
END_TEST

START_TEST(custom_producer_with_nothing_is_no_data)
{
	struct asynctop_adapter a = { ASYNCTOP_ABI_VERSION, "quiet", NULL, NULL,
		                      produce_nothing,      NULL };
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
	m = one_window(custom_registry_get(cr), "quiet", NULL, &w, &ad);
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
	finish(w, ad);
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
	m = next_msg(w);
	/* Stopped before or during the first window: DONE, or a partial
	 * window then DONE. */
	if (m->kind == WORKER_WINDOW) {
		ck_assert(m->meta.partial);
		ck_assert_int_eq(stopped, 2);
		worker_msg_free(m);
		m = next_msg(w);
	}
	ck_assert_int_eq(m->kind, WORKER_DONE);
	worker_msg_free(m);
	worker_free(w);
	adapter_close(ad);
	custom_registry_free(cr);
}
END_TEST

/* The launch plan's environment: set, replace, read back, bounded. */
START_TEST(launch_plan_env)
{
	struct launch_plan p;
	char name[16];

	memset(&p, 0, sizeof(p));
	ck_assert_int_eq(launch_plan_setenv(&p, "A", "1"), STATUS_OK);
	ck_assert_int_eq(launch_plan_setenv(&p, "AB", "x=y"), STATUS_OK);
	ck_assert_int_eq(launch_plan_setenv(&p, "A", "2"), STATUS_OK);
	ck_assert_uint_eq(p.nenv, 2);
	ck_assert_str_eq(p.env[0], "A=2");
	ck_assert_str_eq(launch_plan_getenv(&p, "AB"), "x=y");
	ck_assert_ptr_null(launch_plan_getenv(&p, "ABC"));
	ck_assert_int_eq(launch_plan_setenv(&p, "", "v"), STATUS_INVAL);
	ck_assert_int_eq(launch_plan_setenv(&p, "B=C", "v"), STATUS_INVAL);
	for (int i = 0; p.nenv < LAUNCH_PLAN_ENV_MAX; i++) {
		snprintf(name, sizeof(name), "N%d", i);
		ck_assert_int_eq(launch_plan_setenv(&p, name, ""), STATUS_OK);
	}
	ck_assert_int_eq(launch_plan_setenv(&p, "MORE", "v"), STATUS_LIMIT);
	/* replacing still works when full */
	ck_assert_int_eq(launch_plan_setenv(&p, "A", "3"), STATUS_OK);
	ck_assert_str_eq(launch_plan_getenv(&p, "A"), "3");
	mem_fail_at(1);
	ck_assert_int_eq(launch_plan_setenv(&p, "A", "4"), STATUS_NOMEM);
	mem_fail_at(0);
	ck_assert_str_eq(launch_plan_getenv(&p, "A"), "3");
	launch_plan_fini(&p);
	ck_assert_uint_eq(p.nenv, 0);
	ck_assert_ptr_null(p.env[0]);
}
END_TEST

Suite *suite_adapter(void);
Suite *suite_adapter(void)
{
	Suite *s = suite_create("adapter");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, state_names);
	tcase_add_test(tc, find_by_name_and_alias);
	tcase_add_test(tc, list_names);
	tcase_add_test(tc, builtin_offers_replay_and_tokio);
	tcase_add_test(tc, unknown_adapter_wording);
	tcase_add_test(tc, error_wording);
	tcase_add_test(tc, open_rules);
	tcase_add_test(tc, open_torture);
	tcase_add_test(tc, batch_copies_and_feeds);
	tcase_add_test(tc, custom_registry_checks);
	tcase_add_test(tc, custom_producer_adds_samples);
	tcase_add_test(tc, custom_abi1_and_abi2);
	tcase_add_test(tc, custom_producer_errors);
	tcase_add_test(tc, custom_producer_with_nothing_is_no_data);
	tcase_add_test(tc, custom_producer_sees_a_stop);
	tcase_add_test(tc, launch_plan_env);
	suite_add_tcase(s, tc);
	return s;
}
