/* pprof: the encoder's fields checked by unpacking with protobuf-c, its
 * determinism and sanitising, the round trip through the reader, and the
 * reader against every kind of bad input. */
#define ZLIB_CONST
#include <check.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "encode/pprof.h"
#include "encode/profile.pb-c.h"
#include "model/alloc.h"
#include "model/buf.h"
#include "model/model.h"
#include "tests/util.h"

/* ---- building windows ------------------------------------------------ */

/* One input sample: frames root first; values in metric order (idle, busy,
 * scheduled, polls, wakes). */
struct in_sample {
	const char *frames[6];
	size_t depth;
	const char *task;
	uint64_t v[METRIC_COUNT];
	uint64_t tasks;
};

static const struct in_sample small[] = {
	{ { "main", "serve", "handle" },
	  3,
	  "worker-2",
	  { 500, 20, 5, 3, 2 },
	  2 },
	{ { "main", "serve" }, 2, "worker-1", { 70, 1, 1, 4, 1 }, 1 },
	{ { "main", "serve", "handle" },
	  3,
	  "worker-1",
	  { 100, 0, 0, 1, 0 },
	  1 },
	{ { "main", "idle" }, 2, "idle", { 9, 9, 9, 9, 9 }, 5 },
	{ { "boot" }, 1, "", { 1, 0, 0, 0, 0 }, 0 },
};

static const char *const small_comments[] = { "asynctop test", "second" };

static void set_meta(struct window_meta *meta, const char *const *comments,
                     size_t n)
{
	memset(meta, 0, sizeof(*meta));
	meta->time_nanos = INT64_C(1700000000123456789);
	meta->duration_nanos = INT64_C(5000000000);
	meta->comments = comments;
	meta->ncomments = n;
}

static void add_in(struct model *m, const struct in_sample *in)
{
	struct strview fr[6];
	struct sample s;

	for (size_t k = 0; k < in->depth; k++)
		fr[k] = sv_c(in->frames[k]);
	memset(&s, 0, sizeof(s));
	s.frames = fr;
	s.depth = in->depth;
	s.task = sv_c(in->task);
	memcpy(s.m.v, in->v, sizeof(s.m.v));
	s.tasks = in->tasks;
	ck_assert_int_eq(model_add(m, &s), STATUS_OK);
}

/* A model holding one window of the n samples, added in order perm (NULL:
 * as given). */
static struct model *make_model(const struct in_sample *in, size_t n,
                                const size_t *perm, const struct window **w)
{
	struct window_meta meta;
	struct model *m;

	ck_assert_int_eq(model_new(NULL, &m), STATUS_OK);
	ck_assert_int_eq(model_begin(m), STATUS_OK);
	for (size_t i = 0; i < n; i++)
		add_in(m, &in[perm ? perm[i] : i]);
	set_meta(&meta, small_comments, ARRAY_SIZE(small_comments));
	ck_assert_int_eq(model_commit(m, &meta, w), STATUS_OK);
	return m;
}

static void encode_ok(const struct model *m, const struct window *w,
                      const struct pprof_opts *o, struct buf *b)
{
	buf_init(b);
	ck_assert_int_eq(pprof_encode(m, w, o, b), STATUS_OK);
	ck_assert_uint_gt(b->len, 0);
}

static Perftools__Profiles__Profile *unpack(const struct buf *b)
{
	Perftools__Profiles__Profile *p = perftools__profiles__profile__unpack(
	    NULL, b->len, (const uint8_t *)b->data);

	ck_assert_ptr_nonnull(p);
	return p;
}

static bool pstr_is(const Perftools__Profiles__Profile *p, int64_t i,
                    const char *s)
{
	size_t n = strlen(s);

	ck_assert(i >= 0 && (uint64_t)i < p->n_string_table);
	return p->string_table[i].len == n &&
	       (n == 0 || !memcmp(p->string_table[i].data, s, n));
}

static struct strview pstr(const Perftools__Profiles__Profile *p, int64_t i)
{
	ck_assert(i >= 0 && (uint64_t)i < p->n_string_table);
	return sv_n((const char *)p->string_table[i].data,
	            p->string_table[i].len);
}

/* ---- a recording sink ---------------------------------------------------*/

struct rec {
	struct buf log;
	int n, nmeta;
	int stop_at;
	enum status stop_st;
};

static enum status rec_sample(void *ctx, const struct sample *s)
{
	struct rec *r = ctx;

	r->n++;
	if (r->stop_at && r->n == r->stop_at)
		return r->stop_st;
	for (size_t i = 0; i < s->depth; i++) {
		if (i)
			buf_addc(&r->log, ';');
		buf_addv(&r->log, s->frames[i]);
	}
	buf_adds(&r->log, " | ");
	buf_addv(&r->log, s->task);
	buf_printf(&r->log, " | %" PRIu64 " |", s->tasks);
	for (int k = 0; k < METRIC_COUNT; k++)
		buf_printf(&r->log, " %" PRIu64, s->m.v[k]);
	return buf_addc(&r->log, '\n');
}

static enum status rec_meta(void *ctx, const struct window_meta *meta)
{
	struct rec *r = ctx;

	r->nmeta++;
	ck_assert_ptr_null(meta->source);
	buf_printf(&r->log, "meta %" PRId64 " %" PRId64, meta->time_nanos,
	           meta->duration_nanos);
	for (size_t i = 0; i < meta->ncomments; i++)
		buf_printf(&r->log, " [%s]", meta->comments[i]);
	return buf_addc(&r->log, '\n');
}

static struct sample_sink rec_sink(struct rec *r)
{
	struct sample_sink k;

	memset(r, 0, sizeof(*r));
	buf_init(&r->log);
	k.sample = rec_sample;
	k.meta = rec_meta;
	k.ctx = r;
	return k;
}

/* Decodes data; asserts the status and, on failure, that the sink saw
 * nothing and err says something.  Returns the log (caller frees). */
static void decode_expect(const void *data, size_t len,
                          const struct load_limits *lim, enum status want,
                          const char *errpart, struct rec *r)
{
	struct sample_sink k = rec_sink(r);
	char err[256];
	enum status st;

	st = pprof_decode(data, len, lim, &k, err, sizeof(err));
	ck_assert_msg(st == want, "got %s (%s), want %s", status_name(st), err,
	              status_name(want));
	if (st != STATUS_OK) {
		ck_assert_int_eq(r->n, 0);
		ck_assert_int_eq(r->nmeta, 0);
		ck_assert_msg(err[0] != '\0', "no reason given");
		ck_assert(strchr(err, '\n') == NULL);
	}
	if (errpart)
		ck_assert_msg(strstr(err, errpart), "err '%s' lacks '%s'", err,
		              errpart);
}

static const char small_log[] =
    "boot | <unnamed> | 1 | 1 0 0 0 0\n"
    "main;idle | idle | 5 | 9 9 9 9 9\n"
    "main;serve | worker-1 | 1 | 70 1 1 4 1\n"
    "main;serve;handle | worker-1 | 1 | 100 0 0 1 0\n"
    "main;serve;handle | worker-2 | 2 | 500 20 5 3 2\n"
    "meta 1700000000123456789 5000000000 [asynctop test] [second]\n";

/* ---- encoder: fields ----------------------------------------------------*/

START_TEST(encode_fields)
{
	static const char *const types[][2] = {
		{ "polls", "count" },      { "wakes", "count" },
		{ "busy", "nanoseconds" }, { "scheduled", "nanoseconds" },
		{ "idle", "nanoseconds" },
	};
	const struct window *w;
	struct model *m = make_model(small, ARRAY_SIZE(small), NULL, &w);
	Perftools__Profiles__Profile *p;
	struct buf b;

	encode_ok(m, w, NULL, &b);
	p = unpack(&b);
	/* strings: "" first, each once */
	ck_assert_uint_gt(p->n_string_table, 1);
	ck_assert_uint_eq(p->string_table[0].len, 0);
	for (size_t i = 0; i < p->n_string_table; i++)
		for (size_t j = i + 1; j < p->n_string_table; j++)
			ck_assert(
			    !sv_eq(pstr(p, (int64_t)i), pstr(p, (int64_t)j)));
	/* the fixed head of the string table, in walk order */
	ck_assert(pstr_is(p, 1, "polls") && pstr_is(p, 2, "count") &&
	          pstr_is(p, 3, "wakes") && pstr_is(p, 4, "busy") &&
	          pstr_is(p, 5, "nanoseconds") && pstr_is(p, 6, "scheduled") &&
	          pstr_is(p, 7, "idle") && pstr_is(p, 8, "task") &&
	          pstr_is(p, 9, "tasks") && pstr_is(p, 10, "asynctop") &&
	          pstr_is(p, 11, "asynctop test") && pstr_is(p, 12, "second"));
	/* sample types, default, period */
	ck_assert_uint_eq(p->n_sample_type, 5);
	for (size_t t = 0; t < 5; t++) {
		ck_assert(pstr_is(p, p->sample_type[t]->type, types[t][0]));
		ck_assert(pstr_is(p, p->sample_type[t]->unit, types[t][1]));
		ck_assert_str_eq(metric_name(pprof_type_metric(t)),
		                 types[t][0]);
	}
	ck_assert(pstr_is(p, p->default_sample_type, "idle"));
	ck_assert_ptr_nonnull(p->period_type);
	ck_assert(pstr_is(p, p->period_type->type, "polls"));
	ck_assert(pstr_is(p, p->period_type->unit, "count"));
	ck_assert_int_eq(p->period, 1);
	ck_assert_int_eq(p->time_nanos, INT64_C(1700000000123456789));
	ck_assert_int_eq(p->duration_nanos, INT64_C(5000000000));
	ck_assert_uint_eq(p->n_comment, 2);
	ck_assert(pstr_is(p, p->comment[0], "asynctop test"));
	ck_assert(pstr_is(p, p->comment[1], "second"));
	/* one mapping */
	ck_assert_uint_eq(p->n_mapping, 1);
	ck_assert_uint_eq(p->mapping[0]->id, 1);
	ck_assert(pstr_is(p, p->mapping[0]->filename, "asynctop"));
	ck_assert(p->mapping[0]->has_functions);
	/* functions and locations: dense, k -> k, in order of first use */
	ck_assert_uint_eq(p->n_function, 5);
	ck_assert_uint_eq(p->n_location, 5);
	for (size_t i = 0; i < p->n_function; i++) {
		ck_assert_uint_eq(p->function[i]->id, i + 1);
		ck_assert_int_eq(p->function[i]->name,
		                 p->function[i]->system_name);
		ck_assert_uint_eq(p->location[i]->id, i + 1);
		ck_assert_uint_eq(p->location[i]->mapping_id, 1);
		ck_assert_uint_eq(p->location[i]->n_line, 1);
		ck_assert_uint_eq(p->location[i]->line[0]->function_id, i + 1);
	}
	ck_assert(pstr_is(p, p->function[0]->name, "boot"));
	ck_assert(pstr_is(p, p->function[1]->name, "main"));
	ck_assert(pstr_is(p, p->function[2]->name, "idle"));
	ck_assert(pstr_is(p, p->function[3]->name, "serve"));
	ck_assert(pstr_is(p, p->function[4]->name, "handle"));
	/* "idle" the frame and the task share the type's string */
	ck_assert_int_eq(p->function[2]->name, 7);
	/* samples sorted by stack text then task; leaf first; labels */
	ck_assert_uint_eq(p->n_sample, 5);
	{
		static const uint64_t locs[5][3] = {
			{ 1 }, { 3, 2 }, { 4, 2 }, { 5, 4, 2 }, { 5, 4, 2 },
		};
		static const size_t depth[5] = { 1, 2, 2, 3, 3 };
		static const char *const task[5] = {
			"<unnamed>", "idle", "worker-1", "worker-1", "worker-2",
		};
		static const int64_t tasks[5] = { 1, 5, 1, 1, 2 };
		static const int64_t vals[5][5] = {
			{ 0, 0, 0, 0, 1 },    { 9, 9, 9, 9, 9 },
			{ 4, 1, 1, 1, 70 },   { 1, 0, 0, 0, 100 },
			{ 3, 2, 20, 5, 500 },
		};
		for (size_t i = 0; i < 5; i++) {
			const Perftools__Profiles__Sample *s = p->sample[i];
			ck_assert_uint_eq(s->n_location_id, depth[i]);
			for (size_t k = 0; k < depth[i]; k++)
				ck_assert_uint_eq(s->location_id[k],
				                  locs[i][k]);
			ck_assert_uint_eq(s->n_value, 5);
			for (size_t k = 0; k < 5; k++)
				ck_assert_int_eq(s->value[k], vals[i][k]);
			ck_assert_uint_eq(s->n_label, 2);
			ck_assert(pstr_is(p, s->label[0]->key, "task"));
			ck_assert(pstr_is(p, s->label[0]->str, task[i]));
			ck_assert_int_eq(s->label[0]->num, 0);
			ck_assert(pstr_is(p, s->label[1]->key, "tasks"));
			ck_assert_int_eq(s->label[1]->str, 0);
			ck_assert_int_eq(s->label[1]->num, tasks[i]);
			ck_assert(pstr_is(p, s->label[1]->num_unit, "tasks"));
		}
	}
	perftools__profiles__profile__free_unpacked(p, NULL);
	buf_fini(&b);
	model_free(m);
}
END_TEST

/* The committed fixture pins the exact bytes (ASYNCTOP_REGEN_FIXTURES=1
 * rewrites it after an intended change). */
START_TEST(encode_matches_fixture)
{
	const struct window *w;
	struct model *m = make_model(small, ARRAY_SIZE(small), NULL, &w);
	struct buf b, want;
	char path[4096];

	encode_ok(m, w, NULL, &b);
	tu_data_path(path, sizeof(path), "pprof_small.pb");
	if (getenv("ASYNCTOP_REGEN_FIXTURES"))
		ck_assert_int_eq(tu_write_file(path, b.data, b.len), STATUS_OK);
	buf_init(&want);
	ck_assert_int_eq(tu_read_file(path, &want), STATUS_OK);
	ck_assert_uint_eq(b.len, want.len);
	ck_assert_mem_eq(b.data, want.data, b.len);
	buf_fini(&want);
	buf_fini(&b);
	model_free(m);
}
END_TEST

START_TEST(encode_deterministic)
{
	static const size_t perm[] = { 4, 2, 0, 3, 1 };
	static const struct in_sample noise[] = {
		{ { "zzz", "handle", "serve" }, 3, "worker-9", { 1 }, 1 },
		{ { "yyy" }, 1, "worker-1", { 1 }, 1 },
	};
	const struct window *w1, *w2;
	struct model *m1 = make_model(small, ARRAY_SIZE(small), NULL, &w1);
	struct window_meta meta;
	struct model *m2;
	struct buf a, b;

	/* A second model whose ids differ: other frames and names first. */
	ck_assert_int_eq(model_new(NULL, &m2), STATUS_OK);
	ck_assert_int_eq(model_begin(m2), STATUS_OK);
	for (size_t i = 0; i < ARRAY_SIZE(noise); i++)
		add_in(m2, &noise[i]);
	set_meta(&meta, NULL, 0);
	ck_assert_int_eq(model_commit(m2, &meta, NULL), STATUS_OK);
	ck_assert_int_eq(model_begin(m2), STATUS_OK);
	for (size_t i = 0; i < ARRAY_SIZE(perm); i++)
		add_in(m2, &small[perm[i]]);
	set_meta(&meta, small_comments, ARRAY_SIZE(small_comments));
	ck_assert_int_eq(model_commit(m2, &meta, &w2), STATUS_OK);

	encode_ok(m1, w1, NULL, &a);
	encode_ok(m2, w2, NULL, &b);
	ck_assert_uint_eq(a.len, b.len);
	ck_assert_mem_eq(a.data, b.data, a.len);
	/* Encoding appends; a second encode of the same window appends the
	 * same bytes again. */
	ck_assert_int_eq(pprof_encode(m2, w2, NULL, &b), STATUS_OK);
	ck_assert_uint_eq(b.len, 2 * a.len);
	ck_assert_mem_eq(b.data + a.len, a.data, a.len);
	buf_fini(&a);
	buf_fini(&b);
	model_free(m1);
	model_free(m2);
}
END_TEST

/* Hostile names: invalid UTF-8 (merged once sanitised), control
 * characters (kept), an embedded NUL (kept), empty frames and names. */
static struct model *hostile_model(const struct window **w)
{
	static const struct {
		const char *f[3];
		size_t len[3];
		size_t depth;
		const char *task;
		size_t tlen;
		uint64_t idle, tasks;
	} h[] = {
		{ { "main", "a\xff", "leaf" },
		  { 4, 2, 4 },
		  3,
		  "t\xc0",
		  2,
		  10,
		  1 },
		{ { "main", "a\xfe", "leaf" },
		  { 4, 2, 4 },
		  3,
		  "t\xc1",
		  2,
		  5,
		  2 },
		{ { "main", "a\xef\xbf\xbd", "leaf" },
		  { 4, 4, 4 },
		  3,
		  "t\xef\xbf\xbd",
		  4,
		  1,
		  3 },
		{ { "main", "", "x\ty\n\x1b[31m" },
		  { 4, 0, 9 },
		  3,
		  "",
		  0,
		  7,
		  1 },
		{ { "ma\0in", "\xe2\x82" }, { 5, 2 }, 2, "nul\0task", 8, 3, 1 },
		{ { "" }, { 0 }, 0, "\xf0\x9f\x98\x80 ok", 7, UINT64_MAX, 1 },
		{ { "" }, { 0 }, 0, "\xf0\x9f\x98\x80 ok", 7, 4, UINT64_MAX },
	};
	struct window_meta meta;
	static const char *const comments[] = { "bad \xff comment", "" };
	struct model *m;

	ck_assert_int_eq(model_new(NULL, &m), STATUS_OK);
	ck_assert_int_eq(model_begin(m), STATUS_OK);
	for (size_t i = 0; i < ARRAY_SIZE(h); i++) {
		struct strview fr[3];
		struct sample s;
		memset(&s, 0, sizeof(s));
		for (size_t k = 0; k < h[i].depth; k++)
			fr[k] = sv_n(h[i].f[k], h[i].len[k]);
		s.frames = fr;
		s.depth = h[i].depth;
		s.task = sv_n(h[i].task, h[i].tlen);
		s.m.v[METRIC_IDLE] = h[i].idle;
		s.m.v[METRIC_WAKES] = 1;
		s.tasks = h[i].tasks;
		ck_assert_int_eq(model_add(m, &s), STATUS_OK);
	}
	set_meta(&meta, comments, ARRAY_SIZE(comments));
	ck_assert_int_eq(model_commit(m, &meta, w), STATUS_OK);
	return m;
}

static const char hostile_log[] =
    "[no spawn stack] | \xf0\x9f\x98\x80 ok | 9223372036854775807 | "
    "9223372036854775807 0 0 0 2\n"
    "ma\0in;\xef\xbf\xbd | nul\0task | 1 | 3 0 0 0 1\n"
    "main;[unknown];x\ty\n\x1b[31m | <unnamed> | 1 | 7 0 0 0 1\n"
    "main;a\xef\xbf\xbd;leaf | t\xef\xbf\xbd | 6 | 16 0 0 0 3\n"
    "meta 1700000000123456789 5000000000 [bad \xef\xbf\xbd comment] []\n";

START_TEST(encode_sanitises_and_merges)
{
	const struct window *w;
	struct model *m = hostile_model(&w);
	Perftools__Profiles__Profile *p;
	struct rec r;
	struct buf b;

	encode_ok(m, w, NULL, &b);
	p = unpack(&b);
	for (size_t i = 0; i < p->n_string_table; i++)
		for (size_t j = i + 1; j < p->n_string_table; j++)
			ck_assert(
			    !sv_eq(pstr(p, (int64_t)i), pstr(p, (int64_t)j)));
	/* Three hostile spellings of one stack and task became one sample;
	 * the UINT64_MAX ones are clamped. */
	ck_assert_uint_eq(p->n_sample, 4);
	ck_assert_int_eq(p->sample[0]->value[4], INT64_MAX);
	ck_assert_int_eq(p->sample[0]->label[1]->num, INT64_MAX);
	ck_assert_int_eq(p->sample[3]->value[4], 16);
	ck_assert_int_eq(p->sample[3]->value[1], 3);
	ck_assert_int_eq(p->sample[3]->label[1]->num, 6);
	perftools__profiles__profile__free_unpacked(p, NULL);

	decode_expect(b.data, b.len, NULL, STATUS_OK, NULL, &r);
	ck_assert_uint_eq(r.log.len, sizeof(hostile_log) - 1);
	ck_assert_mem_eq(r.log.data, hostile_log, r.log.len);
	buf_fini(&r.log);
	buf_fini(&b);
	model_free(m);
}
END_TEST

START_TEST(encode_empty_and_zero)
{
	static const struct in_sample zero[] = {
		{ { "main" }, 1, "t", { 0 }, 3 },
	};
	struct window_meta meta;
	const struct window *w;
	struct model *m;
	struct buf b;

	ck_assert_int_eq(model_new(NULL, &m), STATUS_OK);
	ck_assert_int_eq(model_begin(m), STATUS_OK);
	add_in(m, &zero[0]); /* all-zero: dropped */
	set_meta(&meta, NULL, 0);
	ck_assert_int_eq(model_commit(m, &meta, &w), STATUS_EMPTY_WINDOW);
	ck_assert_ptr_nonnull(w);
	buf_init(&b);
	ck_assert_int_eq(pprof_encode(m, w, NULL, &b), STATUS_EMPTY_WINDOW);
	ck_assert_uint_eq(b.len, 0);
	ck_assert_int_eq(buf_status(&b), STATUS_OK);
	ck_assert_int_eq(pprof_encode(m, NULL, NULL, &b), STATUS_INVAL);
	buf_fini(&b);
	model_free(m);
}
END_TEST

START_TEST(encode_omit_task)
{
	const struct window *w;
	struct model *m = make_model(small, ARRAY_SIZE(small), NULL, &w);
	struct pprof_opts o = { .omit_task = true };
	Perftools__Profiles__Profile *p;
	struct buf b;
	struct rec r;

	encode_ok(m, w, &o, &b);
	p = unpack(&b);
	for (size_t i = 0; i < p->n_string_table; i++)
		ck_assert(!pstr_is(p, (int64_t)i, "task"));
	ck_assert_uint_eq(p->n_sample, 4);
	for (size_t i = 0; i < p->n_sample; i++) {
		ck_assert_uint_eq(p->sample[i]->n_label, 1);
		ck_assert(pstr_is(p, p->sample[i]->label[0]->key, "tasks"));
	}
	perftools__profiles__profile__free_unpacked(p, NULL);
	decode_expect(b.data, b.len, NULL, STATUS_OK, NULL, &r);
	ck_assert_str_eq(buf_cstr(&r.log),
	                 "boot |  | 1 | 1 0 0 0 0\n"
	                 "main;idle |  | 5 | 9 9 9 9 9\n"
	                 "main;serve |  | 1 | 70 1 1 4 1\n"
	                 "main;serve;handle |  | 3 | 600 20 5 4 2\n"
	                 "meta 1700000000123456789 5000000000 [asynctop "
	                 "test] [second]\n");
	buf_fini(&r.log);
	buf_fini(&b);
	model_free(m);
}
END_TEST

/* ---- round trip -----------------------------------------------------------*/

/* A sink that feeds a fresh model and commits with the decoded meta. */
struct replay {
	struct model *m;
	const struct window *w;
	enum status commit;
};

static enum status replay_sample(void *ctx, const struct sample *s)
{
	struct replay *r = ctx;

	return model_add(r->m, s);
}

static enum status replay_meta(void *ctx, const struct window_meta *meta)
{
	struct replay *r = ctx;

	r->commit = model_commit(r->m, meta, &r->w);
	return r->commit == STATUS_EMPTY_WINDOW ? STATUS_OK : r->commit;
}

static void round_trip(const struct buf *first)
{
	struct replay r;
	struct sample_sink k = { replay_sample, replay_meta, &r };
	char err[256];
	struct buf second;

	memset(&r, 0, sizeof(r));
	ck_assert_int_eq(model_new(NULL, &r.m), STATUS_OK);
	ck_assert_int_eq(model_begin(r.m), STATUS_OK);
	ck_assert_int_eq(
	    pprof_decode(first->data, first->len, NULL, &k, err, sizeof(err)),
	    STATUS_OK);
	ck_assert_int_eq(r.commit, STATUS_OK);
	encode_ok(r.m, r.w, NULL, &second);
	ck_assert_uint_eq(second.len, first->len);
	ck_assert_mem_eq(second.data, first->data, first->len);
	buf_fini(&second);
	model_free(r.m);
}

START_TEST(round_trip_identical)
{
	const struct window *w;
	struct model *m = make_model(small, ARRAY_SIZE(small), NULL, &w);
	struct buf b;

	encode_ok(m, w, NULL, &b);
	round_trip(&b);
	buf_fini(&b);
	model_free(m);
	m = hostile_model(&w);
	encode_ok(m, w, NULL, &b);
	round_trip(&b);
	buf_fini(&b);
	model_free(m);
}
END_TEST

/* Samples are packed in batches; the parts must concatenate to exactly what
 * protobuf-c writes for the whole message. */
START_TEST(encode_batches_are_canonical)
{
	struct window_meta meta;
	const struct window *w;
	Perftools__Profiles__Profile *p;
	struct model *m;
	struct buf b, again;
	char f[3][32], task[32];
	struct strview fr[3];

	ck_assert_int_eq(model_new(NULL, &m), STATUS_OK);
	ck_assert_int_eq(model_begin(m), STATUS_OK);
	for (unsigned i = 0; i < 10000; i++) {
		struct sample s;
		memset(&s, 0, sizeof(s));
		snprintf(f[0], sizeof(f[0]), "root%u", i % 3);
		snprintf(f[1], sizeof(f[1]), "mid%u", i % 97);
		snprintf(f[2], sizeof(f[2]), "leaf%u", i % 2500);
		snprintf(task, sizeof(task), "task-%u", i / 2500);
		for (int k = 0; k < 3; k++)
			fr[k] = sv_c(f[k]);
		s.frames = fr;
		s.depth = 3;
		s.task = sv_c(task);
		s.m.v[METRIC_IDLE] = 1000u + i;
		s.m.v[METRIC_POLLS] = i % 7;
		s.tasks = i % 100; /* some beyond the shared labels */
		ck_assert_int_eq(model_add(m, &s), STATUS_OK);
	}
	set_meta(&meta, small_comments, 1);
	ck_assert_int_eq(model_commit(m, &meta, &w), STATUS_OK);
	encode_ok(m, w, NULL, &b);
	p = unpack(&b);
	ck_assert_uint_eq(p->n_sample, 10000);
	buf_init(&again);
	ck_assert_int_eq(
	    buf_reserve(&again,
	                perftools__profiles__profile__get_packed_size(p)),
	    STATUS_OK);
	again.len =
	    perftools__profiles__profile__pack(p, (uint8_t *)again.data);
	ck_assert_uint_eq(again.len, b.len);
	ck_assert_mem_eq(again.data, b.data, b.len);
	perftools__profiles__profile__free_unpacked(p, NULL);
	round_trip(&b);
	buf_fini(&again);
	buf_fini(&b);
	model_free(m);
}
END_TEST

/* Sanitising can change the order (U+FFFD is EF BF BD, below F0): the
 * output follows the sanitised text. */
START_TEST(encode_resorts_after_sanitising)
{
	static const struct in_sample in[] = {
		{ { "a\xff" }, 1, "t\xf0\x9f\x98\x80", { 1 }, 1 },
		{ { "a\xff" }, 1, "t\xff", { 2 }, 1 },
		{ { "a\xf0\x9f\x98\x80" }, 1, "t", { 3 }, 1 },
	};
	const struct window *w;
	struct model *m = make_model(in, ARRAY_SIZE(in), NULL, &w);
	struct buf b;
	struct rec r;

	encode_ok(m, w, NULL, &b);
	decode_expect(b.data, b.len, NULL, STATUS_OK, NULL, &r);
	ck_assert_str_eq(buf_cstr(&r.log),
	                 "a\xef\xbf\xbd | t\xef\xbf\xbd | 1 | 2 0 0 0 0\n"
	                 "a\xef\xbf\xbd | t\xf0\x9f\x98\x80 | 1 | 1 0 0 0 0\n"
	                 "a\xf0\x9f\x98\x80 | t | 1 | 3 0 0 0 0\n"
	                 "meta 1700000000123456789 5000000000 [asynctop "
	                 "test] [second]\n");
	buf_fini(&r.log);
	round_trip(&b);
	buf_fini(&b);
	model_free(m);
}
END_TEST

/* ---- hand-built profiles ----------------------------------------------- */

enum { NSTR = 24 };

/* A small profile made with the protobuf-c structs, to break on purpose.
 * Strings: see pb_good.  Two samples, two functions, two locations. */
struct pb {
	Perftools__Profiles__Profile p;
	ProtobufCBinaryData str[NSTR];
	char text[NSTR][16];
	Perftools__Profiles__ValueType vt[6], *vtp[6], period;
	Perftools__Profiles__Sample smp[2], *smpp[2];
	uint64_t locid[2][3];
	int64_t val[2][6];
	Perftools__Profiles__Label lab[2][3], *labp[2][3];
	Perftools__Profiles__Mapping map, *mapp;
	Perftools__Profiles__Location loc[2], *locp[2];
	Perftools__Profiles__Line line[2][2], *linep[2][2];
	Perftools__Profiles__Function fn[2], *fnp[2];
	int64_t comment[1];
};

enum {
	S_EMPTY,
	S_POLLS,
	S_COUNT,
	S_WAKES,
	S_BUSY,
	S_NANOS,
	S_SCHED,
	S_IDLE,
	S_TASK,
	S_TASKS,
	S_FILE,
	S_MAIN,
	S_SERVE,
	S_W1,
	S_HELLO,
	S_CPU,
	S_N
};

/* Fills b with a valid asynctop profile whose sample types are in the
 * seed's order (idle, busy, scheduled, polls, wakes) when seed, else ours. */
static void pb_good(struct pb *b, bool seed)
{
	static const char *const s[S_N] = {
		"",      "polls",       "count",     "wakes",
		"busy",  "nanoseconds", "scheduled", "idle",
		"task",  "tasks",       "asynctop",  "main",
		"serve", "w1",          "hello",     "cpu",
	};
	static const int ours[5][2] = {
		{ S_POLLS, S_COUNT }, { S_WAKES, S_COUNT }, { S_BUSY, S_NANOS },
		{ S_SCHED, S_NANOS }, { S_IDLE, S_NANOS },
	};
	static const int seeds[5] = { 3, 4, 1, 2, 0 }; /* ours[i] at seeds[i] */
	/* values in our order: polls wakes busy scheduled idle */
	static const int64_t v[2][5] = { { 3, 2, 20, 5, 500 },
		                         { 1, 0, 0, 0, 7 } };

	memset(b, 0, sizeof(*b));
	perftools__profiles__profile__init(&b->p);
	for (int i = 0; i < S_N; i++) {
		size_t n = strlen(s[i]);
		memcpy(b->text[i], s[i], n);
		b->str[i].data = (uint8_t *)b->text[i];
		b->str[i].len = n;
	}
	b->p.string_table = b->str;
	b->p.n_string_table = S_N;
	for (int t = 0; t < 5; t++) {
		int at = seed ? seeds[t] : t;
		perftools__profiles__value_type__init(&b->vt[at]);
		b->vt[at].type = ours[t][0];
		b->vt[at].unit = ours[t][1];
		b->vtp[at] = &b->vt[at];
		for (int i = 0; i < 2; i++)
			b->val[i][at] = v[i][t];
	}
	b->p.sample_type = b->vtp;
	b->p.n_sample_type = 5;
	perftools__profiles__value_type__init(&b->period);
	b->period.type = S_POLLS;
	b->period.unit = S_COUNT;
	b->p.period_type = &b->period;
	b->p.period = 1;
	b->p.default_sample_type = S_IDLE;
	b->p.time_nanos = 1000;
	b->p.duration_nanos = 5;
	b->comment[0] = S_HELLO;
	b->p.comment = b->comment;
	b->p.n_comment = 1;
	perftools__profiles__mapping__init(&b->map);
	b->map.id = 1;
	b->map.filename = S_FILE;
	b->map.has_functions = 1;
	b->mapp = &b->map;
	b->p.mapping = &b->mapp;
	b->p.n_mapping = 1;
	for (int i = 0; i < 2; i++) {
		perftools__profiles__function__init(&b->fn[i]);
		b->fn[i].id = (uint64_t)i + 1;
		b->fn[i].name = i ? S_SERVE : S_MAIN;
		b->fnp[i] = &b->fn[i];
		perftools__profiles__line__init(&b->line[i][0]);
		perftools__profiles__line__init(&b->line[i][1]);
		b->line[i][0].function_id = (uint64_t)i + 1;
		b->linep[i][0] = &b->line[i][0];
		b->linep[i][1] = &b->line[i][1];
		perftools__profiles__location__init(&b->loc[i]);
		b->loc[i].id = (uint64_t)i + 1;
		b->loc[i].mapping_id = 1;
		b->loc[i].line = b->linep[i];
		b->loc[i].n_line = 1;
		b->locp[i] = &b->loc[i];

		perftools__profiles__sample__init(&b->smp[i]);
		b->smpp[i] = &b->smp[i];
		b->smp[i].value = b->val[i];
		b->smp[i].n_value = 5;
		for (int k = 0; k < 3; k++) {
			perftools__profiles__label__init(&b->lab[i][k]);
			b->labp[i][k] = &b->lab[i][k];
		}
		b->smp[i].label = b->labp[i];
	}
	b->p.function = b->fnp;
	b->p.n_function = 2;
	b->p.location = b->locp;
	b->p.n_location = 2;
	/* sample 1: main -> serve (leaf first), task w1, tasks 3 */
	b->locid[0][0] = 2;
	b->locid[0][1] = 1;
	b->smp[0].location_id = b->locid[0];
	b->smp[0].n_location_id = 2;
	b->lab[0][0].key = S_TASK;
	b->lab[0][0].str = S_W1;
	b->lab[0][1].key = S_TASKS;
	b->lab[0][1].num = 3;
	b->lab[0][1].num_unit = S_TASKS;
	b->smp[0].n_label = 2;
	/* sample 2: main, no labels at all */
	b->locid[1][0] = 1;
	b->smp[1].location_id = b->locid[1];
	b->smp[1].n_location_id = 1;
	b->p.sample = b->smpp;
	b->p.n_sample = 2;
}

static const char pb_good_log[] = "main;serve | w1 | 3 | 500 20 5 3 2\n"
                                  "main |  | 1 | 7 0 0 1 0\n"
                                  "meta 1000 5 [hello]\n";

static void pb_pack(const struct pb *b, struct buf *out)
{
	size_t n = perftools__profiles__profile__get_packed_size(&b->p);

	buf_init(out);
	ck_assert_int_eq(buf_reserve(out, n), STATUS_OK);
	out->len =
	    perftools__profiles__profile__pack(&b->p, (uint8_t *)out->data);
	ck_assert_uint_eq(out->len, n);
}

static void pb_expect(const struct pb *b, enum status want, const char *part)
{
	struct buf bytes;
	struct rec r;

	pb_pack(b, &bytes);
	decode_expect(bytes.data, bytes.len, NULL, want, part, &r);
	buf_fini(&r.log);
	buf_fini(&bytes);
}

START_TEST(decode_hand_built)
{
	struct pb b;
	struct buf bytes;
	struct rec r;

	for (int seed = 0; seed < 2; seed++) {
		pb_good(&b, seed);
		pb_pack(&b, &bytes);
		decode_expect(bytes.data, bytes.len, NULL, STATUS_OK, NULL, &r);
		ck_assert_str_eq(buf_cstr(&r.log), pb_good_log);
		buf_fini(&r.log);
		buf_fini(&bytes);
	}
	/* ids that are unique but not dense resolve too; a location with two
	 * lines (an inlined frame, leaf first) expands root first */
	pb_good(&b, false);
	b.fn[0].id = 70;
	b.fn[1].id = 9;
	b.line[0][0].function_id = 70;
	b.line[1][0].function_id = 9;
	b.line[1][1].function_id = 70;
	b.loc[1].n_line = 2;
	b.loc[0].id = 1000;
	b.loc[1].id = 5;
	b.locid[0][0] = 5;
	b.locid[0][1] = 1000;
	b.locid[1][0] = 1000;
	b.map.id = 33;
	b.loc[0].mapping_id = 77; /* unknown mapping: ignored, as pprof does */
	pb_pack(&b, &bytes);
	decode_expect(bytes.data, bytes.len, NULL, STATUS_OK, NULL, &r);
	ck_assert_str_eq(buf_cstr(&r.log),
	                 "main;main;serve | w1 | 3 | 500 20 5 3 2\n"
	                 "main |  | 1 | 7 0 0 1 0\n"
	                 "meta 1000 5 [hello]\n");
	buf_fini(&r.log);
	buf_fini(&bytes);
	/* an extra, unknown sample type is ignored */
	pb_good(&b, true);
	perftools__profiles__value_type__init(&b.vt[5]);
	b.vt[5].type = S_CPU;
	b.vt[5].unit = S_NANOS;
	b.vtp[5] = &b.vt[5];
	b.p.n_sample_type = 6;
	b.val[0][5] = 99;
	b.smp[0].n_value = b.smp[1].n_value = 6;
	pb_pack(&b, &bytes);
	decode_expect(bytes.data, bytes.len, NULL, STATUS_OK, NULL, &r);
	ck_assert_str_eq(buf_cstr(&r.log), pb_good_log);
	buf_fini(&r.log);
	buf_fini(&bytes);
}
END_TEST

START_TEST(decode_rejects_invariants)
{
	struct pb b;

#define CASE(mutation, want, part)         \
	do {                               \
		pb_good(&b, false);        \
		mutation;                  \
		pb_expect(&b, want, part); \
	} while (0)

	CASE(b.str[0].len = 1, STATUS_MALFORMED, "empty string");
	CASE(b.p.n_string_table = 0, STATUS_MALFORMED, "empty string");
	CASE(b.vt[2].unit = S_N, STATUS_MALFORMED, "sample type 3");
	CASE(b.vt[2].type = -1, STATUS_MALFORMED, "out of range");
	CASE(b.period.unit = 99, STATUS_MALFORMED, "period type");
	CASE(b.p.default_sample_type = S_N, STATUS_MALFORMED, "default");
	CASE(b.comment[0] = S_N + 5, STATUS_MALFORMED, "comment 1");
	CASE(b.map.filename = -3, STATUS_MALFORMED, "mapping 1");
	CASE(b.fn[1].name = S_N, STATUS_MALFORMED, "function 2");
	CASE(b.fn[1].system_name = -1, STATUS_MALFORMED, "function 2");
	CASE(b.lab[0][0].str = S_N, STATUS_MALFORMED, "sample 1");
	CASE(b.lab[0][1].num_unit = S_N, STATUS_MALFORMED, "sample 1");
	CASE(b.lab[0][0].key = 0, STATUS_MALFORMED, "empty key");
	CASE((b.lab[0][2].key = S_TASK, b.lab[0][2].str = S_MAIN,
	      b.smp[0].n_label = 3),
	     STATUS_MALFORMED, "two task labels");
	CASE((b.lab[0][2].key = S_TASKS, b.lab[0][2].num = 1,
	      b.smp[0].n_label = 3),
	     STATUS_MALFORMED, "two tasks labels");
	CASE(b.lab[0][1].num = -2, STATUS_MALFORMED, "negative tasks");
	CASE(b.map.id = 0, STATUS_MALFORMED, "mapping 1 has the reserved id 0");
	CASE(b.fn[1].id = 0, STATUS_MALFORMED, "function 2 has the reserved");
	CASE(b.loc[0].id = 0, STATUS_MALFORMED, "location 1 has the reserved");
	CASE(b.fn[1].id = 1, STATUS_MALFORMED, "two functions have the id 1");
	CASE((b.loc[0].id = 4, b.loc[1].id = 4), STATUS_MALFORMED,
	     "two locations have the id 4");
	CASE(b.locid[0][0] = 3, STATUS_MALFORMED, "location id 3");
	CASE(b.locid[1][0] = 0, STATUS_MALFORMED, "location id 0");
	CASE(b.line[1][0].function_id = 0, STATUS_MALFORMED, "function id 0");
	CASE(b.line[1][0].function_id = 8, STATUS_MALFORMED, "function id 8");
	CASE(b.loc[1].n_line = 0, STATUS_MALFORMED, "has no line");
	CASE(b.smp[1].n_value = 4, STATUS_MALFORMED, "4 values for 5 types");
	CASE(b.val[1][3] = -1, STATUS_MALFORMED, "negative value");
	/* not asynctop profiles */
	CASE(b.vt[1].type = S_CPU, STATUS_FOREIGN,
	     "not an asynctop profile: missing sample type wakes/count");
	CASE(b.vt[4].unit = S_COUNT, STATUS_FOREIGN, "sample type idle");
	CASE((perftools__profiles__value_type__init(&b.vt[5]),
	      b.vt[5].type = S_IDLE, b.vt[5].unit = S_NANOS,
	      b.vtp[5] = &b.vt[5], b.p.n_sample_type = 6,
	      b.smp[0].n_value = b.smp[1].n_value = 6),
	     STATUS_MALFORMED, "idle appears twice");
	CASE((b.vt[0].type = S_CPU, b.vt[0].unit = S_NANOS,
	      b.p.n_sample_type = 1, b.smp[0].n_value = b.smp[1].n_value = 1),
	     STATUS_FOREIGN, "missing sample type polls/count");
	CASE((b.p.n_sample_type = 0, b.p.n_sample = 0), STATUS_FOREIGN,
	     "missing sample type");
#undef CASE
}
END_TEST

START_TEST(decode_limits)
{
	struct load_limits lim = { 0, 1 };
	const struct window *w;
	struct model *m = make_model(small, ARRAY_SIZE(small), NULL, &w);
	struct buf b;
	struct rec r;

	encode_ok(m, w, NULL, &b);
	decode_expect(b.data, b.len, &lim, STATUS_TOO_LARGE,
	              "5 samples, over the limit of 1", &r);
	buf_fini(&r.log);
	lim.max_samples = 5;
	decode_expect(b.data, b.len, &lim, STATUS_OK, NULL, &r);
	buf_fini(&r.log);
	lim.max_bytes = b.len - 1;
	decode_expect(b.data, b.len, &lim, STATUS_TOO_LARGE, "over the limit",
	              &r);
	buf_fini(&r.log);
	lim.max_bytes = b.len;
	decode_expect(b.data, b.len, &lim, STATUS_OK, NULL, &r);
	buf_fini(&r.log);
	buf_fini(&b);
	model_free(m);
}
END_TEST

/* gzip with zlib directly (window bits 15 + 16), level 6. */
static void gzip_buf(const void *in, size_t len, struct buf *out)
{
	z_stream zs;
	int ret;

	memset(&zs, 0, sizeof(zs));
	ck_assert_int_eq(
	    deflateInit2(&zs, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY),
	    Z_OK);
	buf_init(out);
	ck_assert_int_eq(buf_reserve(out, deflateBound(&zs, (uLong)len)),
	                 STATUS_OK);
	zs.next_in = in;
	zs.avail_in = (uInt)len;
	zs.next_out = (Bytef *)out->data;
	zs.avail_out = (uInt)(out->cap - 1);
	ret = deflate(&zs, Z_FINISH);
	ck_assert_int_eq(ret, Z_STREAM_END);
	out->len = zs.total_out;
	deflateEnd(&zs);
}

START_TEST(decode_gzip)
{
	struct load_limits lim = { 0, 0 };
	const struct window *w;
	struct model *m = make_model(small, ARRAY_SIZE(small), NULL, &w);
	struct buf b, z;
	struct rec r;

	encode_ok(m, w, NULL, &b);
	gzip_buf(b.data, b.len, &z);
	ck_assert_uint_lt(z.len, b.len);
	decode_expect(z.data, z.len, NULL, STATUS_OK, NULL, &r);
	ck_assert_str_eq(buf_cstr(&r.log), small_log);
	buf_fini(&r.log);
	/* the limit applies to the decompressed size */
	lim.max_bytes = b.len - 1;
	decode_expect(z.data, z.len, &lim, STATUS_TOO_LARGE, NULL, &r);
	buf_fini(&r.log);
	/* every truncation of the gzip stream fails */
	for (size_t n = 0; n < z.len; n++) {
		decode_expect(z.data, n, NULL, STATUS_MALFORMED, NULL, &r);
		buf_fini(&r.log);
	}
	/* gzip of garbage: a valid gzip stream holding no Profile */
	buf_fini(&z);
	{
		static const char junk[] = "\xff\xff\xff\xff garbage";
		gzip_buf(junk, sizeof(junk) - 1, &z);
	}
	buf_fini(&b);
	b = z;
	decode_expect(b.data, b.len, NULL, STATUS_MALFORMED, "protobuf", &r);
	buf_fini(&r.log);
	/* the gzip magic followed by garbage */
	decode_expect("\x1f\x8b\x08\x00garbage", 11, NULL, STATUS_MALFORMED,
	              NULL, &r);
	buf_fini(&r.log);
	buf_fini(&b);
	model_free(m);
}
END_TEST

START_TEST(decode_truncated_prefixes)
{
	const struct window *w;
	struct model *m = make_model(small, ARRAY_SIZE(small), NULL, &w);
	Perftools__Profiles__Profile *p, tail;
	size_t tail_len, ok = 0;
	struct buf b;
	struct rec r;

	encode_ok(m, w, NULL, &b);
	/* The fields after the string table (time, duration, period,
	 * comments, default) may be cut cleanly: that prefix is still a
	 * valid profile.  Everything shorter must fail. */
	p = unpack(&b);
	perftools__profiles__profile__init(&tail);
	tail.time_nanos = p->time_nanos;
	tail.duration_nanos = p->duration_nanos;
	tail.period_type = p->period_type;
	tail.period = p->period;
	tail.comment = p->comment;
	tail.n_comment = p->n_comment;
	tail.default_sample_type = p->default_sample_type;
	tail_len = perftools__profiles__profile__get_packed_size(&tail);
	perftools__profiles__profile__free_unpacked(p, NULL);
	ck_assert_uint_gt(tail_len, 10);
	for (size_t n = 0; n < b.len; n++) {
		struct sample_sink k = rec_sink(&r);
		char err[256];
		enum status st =
		    pprof_decode(b.data, n, NULL, &k, err, sizeof(err));
		if (n < b.len - tail_len)
			ck_assert_msg(st == STATUS_MALFORMED ||
			                  st == STATUS_FOREIGN,
			              "prefix %zu: %s", n, status_name(st));
		else
			ck_assert(st == STATUS_OK || st == STATUS_MALFORMED);
		if (st == STATUS_OK)
			ok++;
		else
			ck_assert(r.n == 0 && r.nmeta == 0);
		buf_fini(&r.log);
	}
	ck_assert_uint_lt(ok, 8);
	buf_fini(&b);
	model_free(m);
}
END_TEST

START_TEST(decode_random_bytes)
{
	unsigned char data[512];
	uint64_t x = 0x9E3779B97F4A7C15u;
	struct rec r;

	for (int round = 0; round < 300; round++) {
		size_t n = 1 + (size_t)round * 7 % sizeof(data);
		for (size_t i = 0; i < n; i++) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			data[i] = (unsigned char)x;
		}
		if (round % 3 == 0 && n > 2) {
			data[0] = 0x1f;
			data[1] = 0x8b;
		}
		struct sample_sink k = rec_sink(&r);
		char err[256];
		enum status st =
		    pprof_decode(data, n, NULL, &k, err, sizeof(err));
		ck_assert_msg(st == STATUS_MALFORMED || st == STATUS_FOREIGN,
		              "round %d: %s", round, status_name(st));
		ck_assert(r.n == 0 && r.nmeta == 0 && err[0]);
		buf_fini(&r.log);
	}
}
END_TEST

START_TEST(decode_sink_stops)
{
	struct pb b;
	struct buf bytes;
	struct rec r;
	struct sample_sink k;
	char err[256];

	pb_good(&b, false);
	pb_pack(&b, &bytes);
	k = rec_sink(&r);
	r.stop_at = 2;
	r.stop_st = STATUS_NOMEM;
	ck_assert_int_eq(
	    pprof_decode(bytes.data, bytes.len, NULL, &k, err, sizeof(err)),
	    STATUS_NOMEM);
	ck_assert_int_eq(r.nmeta, 0);
	buf_fini(&r.log);
	k = rec_sink(&r);
	r.stop_at = 1;
	r.stop_st = STATUS_LIMIT; /* counted in [other]: go on */
	ck_assert_int_eq(
	    pprof_decode(bytes.data, bytes.len, NULL, &k, err, sizeof(err)),
	    STATUS_OK);
	ck_assert_int_eq(r.n, 2);
	ck_assert_int_eq(r.nmeta, 1);
	buf_fini(&r.log);
	/* a sink without meta gets the samples only */
	k = rec_sink(&r);
	k.meta = NULL;
	ck_assert_int_eq(pprof_decode(bytes.data, bytes.len, NULL, &k, NULL, 0),
	                 STATUS_OK);
	ck_assert_int_eq(r.n, 2);
	buf_fini(&r.log);
	buf_fini(&bytes);
}
END_TEST

START_TEST(load_files)
{
	struct load_limits lim = { 100, 10 };
	char dir[4096], path[4200], err[256];
	struct sample_sink k;
	struct rec r;

	tu_mkdtemp(dir, sizeof(dir));
	k = rec_sink(&r);
	snprintf(path, sizeof(path), "%s/missing.pb.gz", dir);
	ck_assert_int_eq(pprof_load(path, NULL, &k, err, sizeof(err)),
	                 STATUS_IO);
	ck_assert_str_eq(err, "cannot open: No such file or directory");
	ck_assert_int_eq(pprof_load(dir, NULL, &k, err, sizeof(err)),
	                 STATUS_IO);
	ck_assert_str_eq(err, "is a directory");
	snprintf(path, sizeof(path), "%s/empty.pb", dir);
	ck_assert_int_eq(tu_write_file(path, "", 0), STATUS_OK);
	ck_assert_int_eq(pprof_load(path, NULL, &k, err, sizeof(err)),
	                 STATUS_MALFORMED);
	ck_assert_str_eq(err, "empty file");
	tu_data_path(path, sizeof(path), "pprof_small.pb");
	ck_assert_int_eq(pprof_load(path, &lim, &k, err, sizeof(err)),
	                 STATUS_TOO_LARGE);
	ck_assert_msg(strstr(err, "over the limit of 100"), "%s", err);
	ck_assert_int_eq(r.n, 0);
	ck_assert_int_eq(pprof_load(path, NULL, &k, err, sizeof(err)),
	                 STATUS_OK);
	ck_assert_str_eq(buf_cstr(&r.log), small_log);
	buf_fini(&r.log);
	tu_rmtree(dir);
}
END_TEST

/* ---- allocation failures ------------------------------------------------*/

struct torture_enc {
	const struct model *m;
	const struct window *w;
	const struct pprof_opts *o;
};

static enum status torture_encode(void *ctx)
{
	struct torture_enc *t = ctx;
	struct buf b;
	enum status st;

	buf_init(&b);
	st = pprof_encode(t->m, t->w, t->o, &b);
	buf_fini(&b);
	return st;
}

START_TEST(torture_encoder)
{
	struct pprof_opts omit = { .omit_task = true };
	struct torture_enc t;
	struct model *m;

	m = make_model(small, ARRAY_SIZE(small), NULL, &t.w);
	t.m = m;
	t.o = NULL;
	ck_assert_uint_gt(tu_torture(torture_encode, &t), 10);
	t.o = &omit;
	(void)tu_torture(torture_encode, &t);
	model_free(m);
	m = hostile_model(&t.w);
	t.m = m;
	t.o = NULL;
	(void)tu_torture(torture_encode, &t);
	model_free(m);
}
END_TEST

static enum status torture_decode(void *ctx)
{
	const struct buf *in = ctx;
	struct rec r;
	struct sample_sink k = rec_sink(&r);
	char err[256];
	enum status st =
	    pprof_decode(in->data, in->len, NULL, &k, err, sizeof(err));

	if (st == STATUS_OK)
		ck_assert_str_eq(buf_cstr(&r.log), small_log);
	buf_fini(&r.log);
	return st;
}

START_TEST(torture_decoder)
{
	char path[4096];
	struct buf b, z;

	tu_data_path(path, sizeof(path), "pprof_small.pb");
	buf_init(&b);
	ck_assert_int_eq(tu_read_file(path, &b), STATUS_OK);
	ck_assert_uint_gt(tu_torture(torture_decode, &b), 10);
	gzip_buf(b.data, b.len, &z);
	(void)tu_torture(torture_decode, &z);
	buf_fini(&z);
	buf_fini(&b);
}
END_TEST

Suite *suite_pprof(void);
Suite *suite_pprof(void)
{
	Suite *s = suite_create("pprof");
	TCase *tc = tcase_create("encode");

	tcase_add_test(tc, encode_fields);
	tcase_add_test(tc, encode_matches_fixture);
	tcase_add_test(tc, encode_deterministic);
	tcase_add_test(tc, encode_sanitises_and_merges);
	tcase_add_test(tc, encode_empty_and_zero);
	tcase_add_test(tc, encode_omit_task);
	tcase_add_test(tc, round_trip_identical);
	tcase_add_test(tc, encode_batches_are_canonical);
	tcase_add_test(tc, encode_resorts_after_sanitising);
	suite_add_tcase(s, tc);
	tc = tcase_create("decode");
	tcase_add_test(tc, decode_hand_built);
	tcase_add_test(tc, decode_rejects_invariants);
	tcase_add_test(tc, decode_limits);
	tcase_add_test(tc, decode_gzip);
	tcase_add_test(tc, decode_truncated_prefixes);
	tcase_add_test(tc, decode_random_bytes);
	tcase_add_test(tc, decode_sink_stops);
	tcase_add_test(tc, load_files);
	suite_add_tcase(s, tc);
	tc = tcase_create("torture");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, torture_encoder);
	tcase_add_test(tc, torture_decoder);
	suite_add_tcase(s, tc);
	return s;
}
