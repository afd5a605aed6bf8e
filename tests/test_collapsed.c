/* encode/collapsed: golden output per metric, the sanitising and guard
 * rules, merging, ordering, the strict reader, round trips, torture. */
#include <check.h>
#include <stdio.h>
#include <string.h>

#include "encode/collapsed.h"
#include "model/alloc.h"
#include "model/buf.h"
#include "model/model.h"
#include "tests/model_util.h"
#include "tests/util.h"

/* A sample of the fixture: frames root first, NULL-terminated. */
struct fx_sample {
	const char *frames[4];
	const char *task;
	uint64_t v[METRIC_COUNT];
};

static const struct fx_sample fixture[] = {
	{ { "app:main:88", "pool:worker:42" }, "w1", { 1000, 10, 5, 3, 3 } },
	{ { "app:main:88", "pool:worker:42" }, "w2", { 500, 0, 0, 1, 1 } },
	{ { "app:main:90", "app:poll_backend:31" },
	  "poller",
	  { 5000, 200, 100, 17, 17 } },
	{ { "app:main:91", "app:spin:12" },
	  "spin",
	  { 2000, 2960, 41, 50100, 50100 } },
	{ { "app:main:92", "parse<[u8; 32]>" }, "p", { 700 } },
	{ { "app:main:93", "worker 3" }, "x", { 300 } },
	{ { "app:main:94", "tick 1.5" }, "x", { 300 } },
	{ { "app:main:95", "line\nbreak\tx" }, "x", { 250 } },
	{ { "app:main:96", "bad\xff\xfe" }, "x", { 240 } },
	{ { "app:main:97", "a;b" }, "x", { 100 } },
	{ { "app:main:97", "a:b" }, "y", { 50 } },
	{ { "app:main:98", "busy_only" }, "x", { 0, 77 } },
	{ { "app:main:99", "" }, "x", { 60 } },
	{ { "x", "k\nv" }, "x", { 30 } },
	{ { "x", "k v" }, "x", { 20 } },
	{ { NULL }, "nostack", { 10 } },
	{ { "esc\x1b[31m" }, "x", { 5 } },
	{ { "v 1.2.3" }, "x", { 4 } },
	{ { "root ", "12" }, "x", { 3 } },
	{ { "\xE4\xB8\xAD\xE6\x96\x87:1" }, "x", { 2 } },
};

static const char *const golden[METRIC_COUNT] = {
	[METRIC_IDLE] = "app:main:90;app:poll_backend:31 5000\n"
	                "app:main:91;app:spin:12 2000\n"
	                "app:main:88;pool:worker:42 1500\n"
	                "app:main:92;parse<[u8: 32]> 700\n"
	                "app:main:93;worker_3 300\n"
	                "app:main:94;tick_1.5 300\n"
	                "app:main:95;line break x 250\n"
	                "app:main:96;bad\xEF\xBF\xBD\xEF\xBF\xBD 240\n"
	                "app:main:97;a:b 150\n"
	                "app:main:99;[unknown] 60\n"
	                "x;k v 50\n"
	                "[no spawn stack] 10\n"
	                "esc [31m 5\n"
	                "v_1.2.3 4\n"
	                "root ;12 3\n"
	                "\xE4\xB8\xAD\xE6\x96\x87:1 2\n",
	[METRIC_BUSY] = "app:main:91;app:spin:12 2960\n"
	                "app:main:90;app:poll_backend:31 200\n"
	                "app:main:98;busy_only 77\n"
	                "app:main:88;pool:worker:42 10\n",
	[METRIC_SCHED] = "app:main:90;app:poll_backend:31 100\n"
	                 "app:main:91;app:spin:12 41\n"
	                 "app:main:88;pool:worker:42 5\n",
	[METRIC_POLLS] = "app:main:91;app:spin:12 50100\n"
	                 "app:main:90;app:poll_backend:31 17\n"
	                 "app:main:88;pool:worker:42 4\n",
	[METRIC_WAKES] = "app:main:91;app:spin:12 50100\n"
	                 "app:main:90;app:poll_backend:31 17\n"
	                 "app:main:88;pool:worker:42 4\n",
};

static const struct window *build(struct model **m, const struct fx_sample *f,
                                  size_t n)
{
	struct window_meta meta;
	const struct window *w = NULL;

	memset(&meta, 0, sizeof(meta));
	meta.duration_nanos = 5000000000;
	ck_assert_int_eq(model_new(NULL, m), STATUS_OK);
	ck_assert_int_eq(model_begin(*m), STATUS_OK);
	for (size_t i = 0; i < n; i++)
		tm_add_frames(*m, f[i].frames, ARRAY_SIZE(f[i].frames),
		              f[i].task, f[i].v, 1);
	ck_assert_int_eq(model_commit(*m, &meta, &w), STATUS_OK);
	ck_assert_ptr_nonnull(w);
	return w;
}

static void encode_str(const struct model *m, const struct window *w,
                       enum metric metric, struct buf *out)
{
	buf_init(out);
	ck_assert_int_eq(collapsed_encode(m, w, metric, out), STATUS_OK);
}

START_TEST(golden_every_metric)
{
	struct model *m;
	const struct window *w = build(&m, fixture, ARRAY_SIZE(fixture));

	for (int i = 0; i < METRIC_COUNT; i++) {
		struct buf out;

		encode_str(m, w, (enum metric)i, &out);
		ck_assert_msg(strcmp(buf_cstr(&out), golden[i]) == 0, "%s:\n%s",
		              metric_name((enum metric)i), buf_cstr(&out));
		buf_fini(&out);
	}
	model_free(m);
}
END_TEST

START_TEST(appends_to_out)
{
	struct model *m;
	const struct fx_sample f[] = { { { "a", "b" }, "t", { 7 } } };
	const struct window *w = build(&m, f, 1);
	struct buf out;

	buf_init(&out);
	buf_adds(&out, "# head\n");
	ck_assert_int_eq(collapsed_encode(m, w, METRIC_IDLE, &out), STATUS_OK);
	ck_assert_str_eq(buf_cstr(&out), "# head\na;b 7\n");
	buf_fini(&out);
	model_free(m);
}
END_TEST

/* Untouched frames: no merge pass, and still byte-wise order on ties
 * (the model's own order puts the prefix "ab" before "ab!"). */
START_TEST(clean_stacks_order)
{
	const struct fx_sample f[] = {
		{ { "ab", "c" }, "t", { 5 } },
		{ { "ab!", "d" }, "t", { 5 } },
		{ { "b" }, "t", { 6 } },
	};
	struct model *m;
	const struct window *w = build(&m, f, ARRAY_SIZE(f));
	struct buf out;

	encode_str(m, w, METRIC_IDLE, &out);
	ck_assert_str_eq(buf_cstr(&out), "b 6\nab!;d 5\nab;c 5\n");
	buf_fini(&out);
	model_free(m);
}
END_TEST

START_TEST(guard_rule)
{
	/* sanitise first, then guard: a tab before digits is a space too */
	const struct fx_sample f[] = {
		{ { "a", "worker\t7" }, "t", { 9 } },
		{ { "b", "n 12 34" }, "t", { 8 } },
		{ { "c", " 5" }, "t", { 7 } },
		{ { "d", "x ." }, "t", { 6 } },
		{ { "e", "x 5a" }, "t", { 5 } },
		{ { "f", "x5" }, "t", { 4 } },
		{ { "g", "x 1;2" }, "t", { 3 } },
	};
	struct model *m;
	const struct window *w = build(&m, f, ARRAY_SIZE(f));
	struct buf out;

	encode_str(m, w, METRIC_IDLE, &out);
	ck_assert_str_eq(buf_cstr(&out), "a;worker_7 9\n"
	                                 "b;n 12_34 8\n"
	                                 "c;_5 7\n"
	                                 "d;x_. 6\n"
	                                 "e;x 5a 5\n"
	                                 "f;x5 4\n"
	                                 "g;x 1:2 3\n");
	buf_fini(&out);
	model_free(m);
}
END_TEST

START_TEST(merge_after_sanitising_saturates)
{
	const struct fx_sample f[] = {
		{ { "r", "a;b" }, "t", { UINT64_MAX - 5 } },
		{ { "r", "a:b" }, "t", { 10 } },
		{ { "r", "a\x01"
		         "b" },
		  "t",
		  { 1 } },
		{ { "r", "a b" }, "t", { 2 } },
	};
	struct model *m;
	const struct window *w = build(&m, f, ARRAY_SIZE(f));
	struct buf out;

	encode_str(m, w, METRIC_IDLE, &out);
	ck_assert_str_eq(buf_cstr(&out), "r;a:b 18446744073709551615\n"
	                                 "r;a b 3\n");
	buf_fini(&out);
	model_free(m);
}
END_TEST

START_TEST(empty_and_bad_arguments)
{
	struct model *m;
	struct window_meta meta;
	const struct window *w = NULL;
	struct buf out;

	memset(&meta, 0, sizeof(meta));
	ck_assert_int_eq(model_new(NULL, &m), STATUS_OK);
	ck_assert_int_eq(model_begin(m), STATUS_OK);
	ck_assert_int_eq(model_commit(m, &meta, &w), STATUS_EMPTY_WINDOW);
	ck_assert_ptr_nonnull(w);
	buf_init(&out);
	ck_assert_int_eq(collapsed_encode(m, w, METRIC_IDLE, &out),
	                 STATUS_EMPTY_WINDOW);
	ck_assert_uint_eq(out.len, 0);
	ck_assert_int_eq(collapsed_encode(m, w, (enum metric)9, &out),
	                 STATUS_INVAL);
	ck_assert_int_eq(collapsed_encode(NULL, w, METRIC_IDLE, &out),
	                 STATUS_INVAL);
	buf_fini(&out);
	model_free(m);
}
END_TEST

START_TEST(all_zero_for_metric)
{
	const struct fx_sample f[] = { { { "a" }, "t", { 5 } } };
	struct model *m;
	const struct window *w = build(&m, f, 1);
	struct buf out;

	encode_str(m, w, METRIC_WAKES, &out);
	ck_assert_str_eq(buf_cstr(&out), "");
	buf_fini(&out);
	model_free(m);
}
END_TEST

/* ---- decoding -----------------------------------------------------------*/

struct rec {
	size_t samples, metas;
	struct buf log; /* "frame|frame=value/tasks;task" per sample */
	size_t fail_at; /* 1-based sample to fail with STATUS_IO; 0 never */
};

static enum status rec_sample(void *ctx, const struct sample *s)
{
	struct rec *r = ctx;

	r->samples++;
	if (r->fail_at && r->samples == r->fail_at)
		return STATUS_IO;
	for (size_t i = 0; i < s->depth; i++) {
		if (i)
			buf_addc(&r->log, '|');
		buf_addv(&r->log, s->frames[i]);
	}
	buf_addc(&r->log, '=');
	for (int i = 0; i < METRIC_COUNT; i++)
		buf_printf(&r->log, "%s%llu", i ? "," : "",
		           (unsigned long long)s->m.v[i]);
	buf_printf(&r->log, "/%llu;", (unsigned long long)s->tasks);
	buf_addv(&r->log, s->task);
	buf_addc(&r->log, '\n');
	return STATUS_OK;
}

static enum status rec_meta(void *ctx, const struct window_meta *meta)
{
	struct rec *r = ctx;

	ck_assert_int_eq(meta->duration_nanos, 0);
	ck_assert(!meta->partial);
	r->metas++;
	return STATUS_OK;
}

static enum status decode_rec(const char *in, size_t len, enum metric metric,
                              struct rec *r, char *err, size_t errsz)
{
	struct sample_sink sink = { rec_sample, rec_meta, r };

	buf_init(&r->log);
	r->samples = r->metas = 0;
	return collapsed_decode(in, len, metric, &sink, err, errsz);
}

START_TEST(decode_good)
{
	static const char in[] = "a;b 10\n"
	                         "c 5\r\n"
	                         "\n"
	                         "\r\n"
	                         "a;;b 0\n"
	                         "with space;x y 18446744073709551615\n"
	                         "a;b 007";
	struct rec r = { 0 };
	char err[128] = "unchanged";

	ck_assert_int_eq(
	    decode_rec(in, sizeof(in) - 1, METRIC_POLLS, &r, err, sizeof(err)),
	    STATUS_OK);
	ck_assert_str_eq(err, "");
	ck_assert_uint_eq(r.samples, 5);
	ck_assert_uint_eq(r.metas, 1);
	ck_assert_str_eq(buf_cstr(&r.log),
	                 "a|b=0,0,0,10,0/1;\n"
	                 "c=0,0,0,5,0/1;\n"
	                 "a||b=0,0,0,0,0/1;\n"
	                 "with space|x y=0,0,0,18446744073709551615,0/1;\n"
	                 "a|b=0,0,0,7,0/1;\n");
	buf_fini(&r.log);

	ck_assert_int_eq(decode_rec("", 0, METRIC_IDLE, &r, NULL, 0),
	                 STATUS_OK);
	ck_assert_uint_eq(r.samples, 0);
	ck_assert_uint_eq(r.metas, 1);
	buf_fini(&r.log);
}
END_TEST

static void check_bad(const char *in, enum status want, const char *msg)
{
	struct rec r = { 0 };
	char err[128];

	ck_assert_int_eq(
	    decode_rec(in, strlen(in), METRIC_IDLE, &r, err, sizeof(err)),
	    want);
	ck_assert_str_eq(err, msg);
	ck_assert_uint_eq(r.samples, 0); /* validated before anything fed */
	ck_assert_uint_eq(r.metas, 0);
	buf_fini(&r.log);
}

START_TEST(decode_bad)
{
	check_bad("a 1\nb\n", STATUS_MALFORMED,
	          "line 2: no space before the count");
	check_bad("a 1\n\nb -3\n", STATUS_MALFORMED, "line 3: negative count");
	check_bad("x 1.5\n", STATUS_MALFORMED, "line 1: fractional count");
	check_bad("x 1\r\ny 2,0\r\n", STATUS_MALFORMED,
	          "line 2: fractional count");
	check_bad("x 18446744073709551616\n", STATUS_MALFORMED,
	          "line 1: count overflows 64 bits");
	check_bad("x 99999999999999999999999\n", STATUS_MALFORMED,
	          "line 1: count overflows 64 bits");
	check_bad("x \n", STATUS_MALFORMED, "line 1: missing count");
	check_bad("x 5 \n", STATUS_MALFORMED, "line 1: missing count");
	check_bad(" 5\n", STATUS_MALFORMED, "line 1: empty stack");
	check_bad("x 12a\n", STATUS_MALFORMED,
	          "line 1: count is not a decimal integer");
	check_bad("x +5\n", STATUS_MALFORMED,
	          "line 1: count is not a decimal integer");
	check_bad("x\t5\n", STATUS_MALFORMED,
	          "line 1: no space before the count");
	check_bad("x 5\rjunk\n", STATUS_MALFORMED,
	          "line 1: count is not a decimal integer");
}
END_TEST

START_TEST(decode_line_cap)
{
	size_t n = COLLAPSED_LINE_MAX + 1;
	char *in = mem_alloc(n + 8);
	struct rec r = { 0 };
	char err[128];

	ck_assert_ptr_nonnull(in);
	/* exactly at the cap: accepted */
	memset(in, 'a', COLLAPSED_LINE_MAX - 2);
	memcpy(in + COLLAPSED_LINE_MAX - 2, " 1\n", 3);
	ck_assert_int_eq(decode_rec(in, COLLAPSED_LINE_MAX + 1, METRIC_IDLE, &r,
	                            err, sizeof(err)),
	                 STATUS_OK);
	ck_assert_uint_eq(r.samples, 1);
	buf_fini(&r.log);
	/* one byte more: refused with the line number */
	memcpy(in, "ok 1\n", 5);
	memset(in + 5, 'a', n - 2);
	memcpy(in + 5 + n - 2, " 1\n", 3);
	ck_assert_int_eq(
	    decode_rec(in, n + 6, METRIC_IDLE, &r, err, sizeof(err)),
	    STATUS_TOO_LARGE);
	ck_assert_str_eq(err, "line 2: line too long");
	ck_assert_uint_eq(r.samples, 0);
	buf_fini(&r.log);
	mem_free(in);
}
END_TEST

START_TEST(decode_sink_failure)
{
	struct rec r = { 0 };
	struct sample_sink sink = { rec_sample, rec_meta, &r };
	char err[128];

	buf_init(&r.log);
	r.fail_at = 2;
	ck_assert_int_eq(collapsed_decode("a 1\nb 2\nc 3\n", 12, METRIC_IDLE,
	                                  &sink, err, sizeof(err)),
	                 STATUS_IO);
	ck_assert_str_eq(err, "line 2: input/output error");
	ck_assert_uint_eq(r.samples, 2);
	ck_assert_uint_eq(r.metas, 0);
	ck_assert_int_eq(collapsed_decode("a 1\n", 4, (enum metric)7, &sink,
	                                  err, sizeof(err)),
	                 STATUS_INVAL);
	buf_fini(&r.log);
}
END_TEST

/* encode -> decode into a fresh model -> encode gives the same bytes, for
 * every metric (task names are lost, stacks and values are not). */
START_TEST(round_trip)
{
	struct model *m;
	const struct window *w = build(&m, fixture, ARRAY_SIZE(fixture));

	for (int i = 0; i < METRIC_COUNT; i++) {
		struct model *m2;
		struct sample_sink sink;
		struct window_meta meta;
		const struct window *w2 = NULL;
		struct buf a, b;
		char err[128];

		encode_str(m, w, (enum metric)i, &a);
		ck_assert_int_eq(model_new(NULL, &m2), STATUS_OK);
		ck_assert_int_eq(model_begin(m2), STATUS_OK);
		sink = model_sink(m2);
		ck_assert_int_eq(collapsed_decode(a.data, a.len, (enum metric)i,
		                                  &sink, err, sizeof(err)),
		                 STATUS_OK);
		memset(&meta, 0, sizeof(meta));
		ck_assert_int_eq(model_commit(m2, &meta, &w2), STATUS_OK);
		encode_str(m2, w2, (enum metric)i, &b);
		ck_assert_str_eq(buf_cstr(&b), buf_cstr(&a));
		buf_fini(&a);
		buf_fini(&b);
		model_free(m2);
	}
	model_free(m);
}
END_TEST

/* Found by tests/fuzz/fuzz_collapsed.c: a frame at the model's 4 KiB bound
 * with an invalid byte in it grew by U+FFFD's two extra bytes when written,
 * so reading the file back cut it again and the second file differed. */
START_TEST(round_trip_long_invalid_frame)
{
	static const char line[] = "a;b 5\n";
	static char in[4300];
	struct model *m, *m2;
	const struct window *w, *w2;
	struct window_meta meta;
	struct sample_sink sink;
	struct buf a, b;

	memset(in, 'x', sizeof(in));
	in[0] = 'r';
	in[1] = ';';
	in[4000] = '\xff';
	memcpy(in + sizeof(in) - 3, " 7\n", 3);
	memset(&meta, 0, sizeof(meta));
	ck_assert_int_eq(model_new(NULL, &m), STATUS_OK);
	ck_assert_int_eq(model_begin(m), STATUS_OK);
	sink = model_sink(m);
	ck_assert_int_eq(
	    collapsed_decode(in, sizeof(in), METRIC_IDLE, &sink, NULL, 0),
	    STATUS_OK);
	ck_assert_int_eq(collapsed_decode(line, sizeof(line) - 1, METRIC_IDLE,
	                                  &sink, NULL, 0),
	                 STATUS_OK);
	ck_assert_int_eq(model_commit(m, &meta, &w), STATUS_OK);
	encode_str(m, w, METRIC_IDLE, &a);
	ck_assert_int_eq(model_new(NULL, &m2), STATUS_OK);
	ck_assert_int_eq(model_begin(m2), STATUS_OK);
	sink = model_sink(m2);
	ck_assert_int_eq(
	    collapsed_decode(a.data, a.len, METRIC_IDLE, &sink, NULL, 0),
	    STATUS_OK);
	ck_assert_int_eq(model_commit(m2, &meta, &w2), STATUS_OK);
	encode_str(m2, w2, METRIC_IDLE, &b);
	ck_assert_uint_eq(b.len, a.len);
	ck_assert(!memcmp(b.data, a.data, a.len));
	buf_fini(&a);
	buf_fini(&b);
	model_free(m);
	model_free(m2);
}
END_TEST

/* ---- allocation failure -------------------------------------------------*/

struct enc_ctx {
	const struct model *m;
	const struct window *w;
};

static enum status torture_encode(void *ctx)
{
	struct enc_ctx *c = ctx;
	struct buf out;
	enum status st;

	buf_init(&out);
	st = collapsed_encode(c->m, c->w, METRIC_IDLE, &out);
	if (st == STATUS_OK)
		ck_assert_str_eq(buf_cstr(&out), golden[METRIC_IDLE]);
	buf_fini(&out);
	return st;
}

static enum status count_sample(void *ctx, const struct sample *s)
{
	(void)s;
	(*(size_t *)ctx)++;
	return STATUS_OK;
}

static enum status torture_decode(void *ctx)
{
	size_t n = 0;
	struct sample_sink sink = { count_sample, NULL, &n };
	const char *in = ctx;
	enum status st;

	st = collapsed_decode(in, strlen(in), METRIC_BUSY, &sink, NULL, 0);
	if (st == STATUS_OK)
		ck_assert_uint_eq(n, 3);
	return st;
}

static char dec_in[] = "a;b 1\nc;d;e 2\nf 3\n";

START_TEST(torture)
{
	struct model *m;
	struct enc_ctx c;

	c.w = build(&m, fixture, ARRAY_SIZE(fixture));
	c.m = m;
	ck_assert_uint_gt(tu_torture(torture_encode, &c), 0);
	ck_assert_uint_gt(tu_torture(torture_decode, dec_in), 0);
	model_free(m);
}
END_TEST

Suite *suite_collapsed(void);
Suite *suite_collapsed(void)
{
	Suite *s = suite_create("collapsed");
	TCase *tc = tcase_create("collapsed");

	tcase_add_test(tc, golden_every_metric);
	tcase_add_test(tc, appends_to_out);
	tcase_add_test(tc, clean_stacks_order);
	tcase_add_test(tc, guard_rule);
	tcase_add_test(tc, merge_after_sanitising_saturates);
	tcase_add_test(tc, empty_and_bad_arguments);
	tcase_add_test(tc, all_zero_for_metric);
	tcase_add_test(tc, decode_good);
	tcase_add_test(tc, decode_bad);
	tcase_add_test(tc, decode_line_cap);
	tcase_add_test(tc, decode_sink_failure);
	tcase_add_test(tc, round_trip);
	tcase_add_test(tc, round_trip_long_invalid_frame);
	tcase_add_test(tc, torture);
	suite_add_tcase(s, tc);
	return s;
}
