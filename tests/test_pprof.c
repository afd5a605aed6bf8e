/* The pprof writer: its fields checked by unpacking with protobuf-c, its
 * determinism and sanitising, the round trip through the reader, and every
 * allocation failing in turn.  The reader: test_pprof_decode.c. */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "encode/pprof.h"
#include "encode/profile.pb-c.h"
#include "model/buf.h"
#include "model/model.h"
#include "tests/pprof_util.h"
#include "tests/util.h"

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

/* ---- encoder: fields ----------------------------------------------------*/

START_TEST(encode_fields)
{
	static const char *const types[][2] = {
		{ "polls", "count" },      { "wakes", "count" },
		{ "busy", "nanoseconds" }, { "scheduled", "nanoseconds" },
		{ "idle", "nanoseconds" },
	};
	const struct window *w;
	struct model *m =
	    pt_make_model(pt_small, ARRAY_SIZE(pt_small), NULL, &w);
	Perftools__Profiles__Profile *p;
	struct buf b;

	pt_encode_ok(m, w, NULL, &b);
	p = pt_unpack(&b);
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
	struct model *m =
	    pt_make_model(pt_small, ARRAY_SIZE(pt_small), NULL, &w);
	struct buf b, want;
	char path[4096];

	pt_encode_ok(m, w, NULL, &b);
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
	static const struct pt_sample noise[] = {
		{ { "zzz", "handle", "serve" }, 3, "worker-9", { 1 }, 1 },
		{ { "yyy" }, 1, "worker-1", { 1 }, 1 },
	};
	const struct window *w1, *w2;
	struct model *m1 =
	    pt_make_model(pt_small, ARRAY_SIZE(pt_small), NULL, &w1);
	struct window_meta meta;
	struct model *m2;
	struct buf a, b;

	/* A second model whose ids differ: other frames and names first. */
	ck_assert_int_eq(model_new(NULL, &m2), STATUS_OK);
	ck_assert_int_eq(model_begin(m2), STATUS_OK);
	for (size_t i = 0; i < ARRAY_SIZE(noise); i++)
		pt_add_in(m2, &noise[i]);
	pt_set_meta(&meta, NULL, 0);
	ck_assert_int_eq(model_commit(m2, &meta, NULL), STATUS_OK);
	ck_assert_int_eq(model_begin(m2), STATUS_OK);
	for (size_t i = 0; i < ARRAY_SIZE(perm); i++)
		pt_add_in(m2, &pt_small[perm[i]]);
	pt_set_meta(&meta, pt_small_comments, ARRAY_SIZE(pt_small_comments));
	ck_assert_int_eq(model_commit(m2, &meta, &w2), STATUS_OK);

	pt_encode_ok(m1, w1, NULL, &a);
	pt_encode_ok(m2, w2, NULL, &b);
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
	pt_set_meta(&meta, comments, ARRAY_SIZE(comments));
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
	struct pt_rec r;
	struct buf b;

	pt_encode_ok(m, w, NULL, &b);
	p = pt_unpack(&b);
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

	pt_decode_expect(b.data, b.len, NULL, STATUS_OK, NULL, &r);
	ck_assert_uint_eq(r.log.len, sizeof(hostile_log) - 1);
	ck_assert_mem_eq(r.log.data, hostile_log, r.log.len);
	buf_fini(&r.log);
	buf_fini(&b);
	model_free(m);
}
END_TEST

START_TEST(encode_empty_and_zero)
{
	static const struct pt_sample zero[] = {
		{ { "main" }, 1, "t", { 0 }, 3 },
	};
	struct window_meta meta;
	const struct window *w;
	struct model *m;
	struct buf b;

	ck_assert_int_eq(model_new(NULL, &m), STATUS_OK);
	ck_assert_int_eq(model_begin(m), STATUS_OK);
	pt_add_in(m, &zero[0]); /* all-zero: dropped */
	pt_set_meta(&meta, NULL, 0);
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
	struct model *m =
	    pt_make_model(pt_small, ARRAY_SIZE(pt_small), NULL, &w);
	struct pprof_opts o = { .omit_task = true };
	Perftools__Profiles__Profile *p;
	struct buf b;
	struct pt_rec r;

	pt_encode_ok(m, w, &o, &b);
	p = pt_unpack(&b);
	for (size_t i = 0; i < p->n_string_table; i++)
		ck_assert(!pstr_is(p, (int64_t)i, "task"));
	ck_assert_uint_eq(p->n_sample, 4);
	for (size_t i = 0; i < p->n_sample; i++) {
		ck_assert_uint_eq(p->sample[i]->n_label, 1);
		ck_assert(pstr_is(p, p->sample[i]->label[0]->key, "tasks"));
	}
	perftools__profiles__profile__free_unpacked(p, NULL);
	pt_decode_expect(b.data, b.len, NULL, STATUS_OK, NULL, &r);
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

/* Decodes first into a new model, groups its window by g, encodes that
 * and asserts the same bytes come out. */
static void round_trip_g(const struct buf *first, struct grouping g)
{
	struct replay r;
	const struct window *gw;
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
	/* the reader tells the grouping the file was saved in */
	ck_assert(r.w->meta.saved_by_parked == (g.key == GROUP_PARKED));
	ck_assert_int_eq(model_group(r.m, r.w, g, &gw), STATUS_OK);
	pt_encode_ok(r.m, gw, NULL, &second);
	ck_assert_uint_eq(second.len, first->len);
	ck_assert_mem_eq(second.data, first->data, first->len);
	buf_fini(&second);
	model_group_free(gw);
	model_free(r.m);
}

static void round_trip(const struct buf *first)
{
	round_trip_g(first, (struct grouping){ .key = GROUP_SPAWN });
}

START_TEST(round_trip_identical)
{
	const struct window *w;
	struct model *m =
	    pt_make_model(pt_small, ARRAY_SIZE(pt_small), NULL, &w);
	struct buf b;

	pt_encode_ok(m, w, NULL, &b);
	round_trip(&b);
	buf_fini(&b);
	model_free(m);
	m = hostile_model(&w);
	pt_encode_ok(m, w, NULL, &b);
	round_trip(&b);
	buf_fini(&b);
	model_free(m);
}
END_TEST

/* The other stack's leaf and the figures travel as labels (docs/formats.md)
 * and come back from replay: replay-then-save gives the same bytes under
 * every grouping. */
START_TEST(labels_round_trip)
{
	static const struct grouping gs[] = {
		{ .key = GROUP_SPAWN },
		{ .key = GROUP_PARKED },
		{ .key = GROUP_SPAWN, .by_name = true },
		{ .key = GROUP_PARKED, .by_name = true },
	};
	const struct window *w, *g;
	struct model *m = pt_parked_model(&w);
	Perftools__Profiles__Profile *p;
	struct buf b;

	for (size_t i = 0; i < ARRAY_SIZE(gs); i++) {
		ck_assert_int_eq(model_group(m, w, gs[i], &g), STATUS_OK);
		pt_encode_ok(m, g, NULL, &b);
		{
			/* split by name or not, the file is the same */
			struct grouping back = gs[i];
			back.by_name = false;
			round_trip_g(&b, back);
		}
		if (i == 0) {
			/* w1's two tasks: one sample (same leaf), figures
			 * folded: self_wakes known from one, max_poll the
			 * largest; w2 not parked: no leaf, no figure */
			p = pt_unpack(&b);
			ck_assert_uint_eq(p->n_sample, 3);
			ck_assert_uint_eq(p->sample[1]->n_label, 5);
			ck_assert_uint_eq(p->sample[2]->n_label, 2);
			perftools__profiles__profile__free_unpacked(p, NULL);
		}
		buf_fini(&b);
		model_group_free(g);
	}
	model_free(m);
}
END_TEST

/* Found by tests/fuzz/fuzz_encode.c: a name at the model's 4 KiB bound
 * with an invalid byte in it grew by U+FFFD's two extra bytes when saved,
 * so replaying the file cut it again and saving did not reproduce it. */
START_TEST(round_trip_long_invalid_name)
{
	static char frame[5000], task[5000];
	struct strview fr[1];
	const struct window *w;
	struct window_meta meta;
	struct sample s;
	struct model *m;
	struct buf b;

	memset(frame, 'x', sizeof(frame));
	frame[4000] = '\xff';
	memset(task, 't', sizeof(task));
	task[10] = '\xc3'; /* a truncated sequence */
	fr[0] = sv_n(frame, sizeof(frame));
	memset(&s, 0, sizeof(s));
	s.frames = fr;
	s.depth = 1;
	s.task = sv_n(task, sizeof(task));
	s.m.v[METRIC_IDLE] = 5;
	ck_assert_int_eq(model_new(NULL, &m), STATUS_OK);
	ck_assert_int_eq(model_begin(m), STATUS_OK);
	ck_assert_int_eq(model_add(m, &s), STATUS_OK);
	pt_set_meta(&meta, NULL, 0);
	ck_assert_int_eq(model_commit(m, &meta, &w), STATUS_OK);
	pt_encode_ok(m, w, NULL, &b);
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
	pt_set_meta(&meta, pt_small_comments, 1);
	ck_assert_int_eq(model_commit(m, &meta, &w), STATUS_OK);
	pt_encode_ok(m, w, NULL, &b);
	p = pt_unpack(&b);
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
	static const struct pt_sample in[] = {
		{ { "a\xff" }, 1, "t\xf0\x9f\x98\x80", { 1 }, 1 },
		{ { "a\xff" }, 1, "t\xff", { 2 }, 1 },
		{ { "a\xf0\x9f\x98\x80" }, 1, "t", { 3 }, 1 },
	};
	const struct window *w;
	struct model *m = pt_make_model(in, ARRAY_SIZE(in), NULL, &w);
	struct buf b;
	struct pt_rec r;

	pt_encode_ok(m, w, NULL, &b);
	pt_decode_expect(b.data, b.len, NULL, STATUS_OK, NULL, &r);
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

	m = pt_make_model(pt_small, ARRAY_SIZE(pt_small), NULL, &t.w);
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
	/* the labels of parked-at stacks and figures, both groupings */
	m = pt_parked_model(&t.w);
	t.m = m;
	ck_assert_uint_gt(tu_torture(torture_encode, &t), 10);
	{
		const struct window *kept = t.w;
		ck_assert_int_eq(
		    model_group(m, kept,
		                (struct grouping){ .key = GROUP_PARKED }, &t.w),
		    STATUS_OK);
		ck_assert_uint_gt(tu_torture(torture_encode, &t), 10);
		model_group_free(t.w);
	}
	model_free(m);
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
	tcase_add_test(tc, labels_round_trip);
	tcase_add_test(tc, round_trip_long_invalid_name);
	tcase_add_test(tc, encode_batches_are_canonical);
	tcase_add_test(tc, encode_resorts_after_sanitising);
	suite_add_tcase(s, tc);
	tc = tcase_create("torture");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, torture_encoder);
	suite_add_tcase(s, tc);
	return s;
}
