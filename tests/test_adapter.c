/* The adapter framework: registry, names, the operator's error wording,
 * opening, and the launch plan's environment.  The owned sample batch is
 * test_batch.c's, the custom adapter test_custom*.c's. */
#include <check.h>
#include <stdio.h>
#include <string.h>

#include "adapters/adapter.h"
#include "adapters/builtin.h"
#include "model/alloc.h"
#include "tests/util.h"

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
	tcase_add_test(tc, launch_plan_env);
	suite_add_tcase(s, tc);
	return s;
}
