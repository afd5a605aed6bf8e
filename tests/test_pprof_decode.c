/* The pprof reader against every kind of input: hand-built profiles (good,
 * and each invariant broken), limits, gzip, truncated prefixes, random
 * bytes, a sink that stops, files, and every allocation failing in turn. */
#define ZLIB_CONST
#include <check.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <zlib.h>

#include "encode/pprof.h"
#include "encode/profile.pb-c.h"
#include "model/buf.h"
#include "model/model.h"
#include "tests/pprof_util.h"
#include "tests/util.h"

/* ---- hand-built profiles ----------------------------------------------- */

enum { NSTR = 24 };

/* A pt_small profile made with the protobuf-c structs, to break on purpose.
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
	S_PARKED_AT,
	S_SPAWNED_AT,
	S_MAX_POLL,
	S_N
};

/* Fills b with a valid asynctop profile whose sample types are in the
 * display order (idle, busy, scheduled, polls, wakes) when seed, else ours. */
static void pb_good(struct pb *b, bool seed)
{
	static const char *const s[S_N] = {
		"",          "polls",       "count",     "wakes",
		"busy",      "nanoseconds", "scheduled", "idle",
		"task",      "tasks",       "asynctop",  "main",
		"serve",     "w1",          "hello",     "cpu",
		"parked_at", "spawned_at",  "max_poll",
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
	struct pt_rec r;

	pb_pack(b, &bytes);
	pt_decode_expect(bytes.data, bytes.len, NULL, want, part, &r);
	buf_fini(&r.log);
	buf_fini(&bytes);
}

START_TEST(decode_hand_built)
{
	struct pb b;
	struct buf bytes;
	struct pt_rec r;

	for (int seed = 0; seed < 2; seed++) {
		pb_good(&b, seed);
		pb_pack(&b, &bytes);
		pt_decode_expect(bytes.data, bytes.len, NULL, STATUS_OK, NULL,
		                 &r);
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
	pt_decode_expect(bytes.data, bytes.len, NULL, STATUS_OK, NULL, &r);
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
	pt_decode_expect(bytes.data, bytes.len, NULL, STATUS_OK, NULL, &r);
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
	/* the other stack's leaf and the figures */
	CASE((b.lab[0][1].key = S_SPAWNED_AT, b.lab[0][1].str = S_MAIN,
	      b.lab[0][2].key = S_PARKED_AT, b.lab[0][2].str = S_MAIN,
	      b.smp[0].n_label = 3),
	     STATUS_MALFORMED,
	     "sample 1 has two parked_at or spawned_at labels");
	CASE((b.lab[0][2].key = S_MAX_POLL, b.lab[0][2].num = -1,
	      b.smp[0].n_label = 3),
	     STATUS_MALFORMED, "sample 1 has a negative max_poll label");
	CASE((b.lab[0][1].key = S_MAX_POLL, b.lab[0][2].key = S_MAX_POLL,
	      b.smp[0].n_label = 3),
	     STATUS_MALFORMED, "sample 1 has two max_poll labels");
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
	/* a time and a length a saved window always has */
	CASE(b.p.time_nanos = 0, STATUS_MALFORMED, "time_nanos is 0");
	CASE(b.p.time_nanos = -7, STATUS_MALFORMED,
	     "time_nanos is -7, not a time after 1970");
	CASE(b.p.duration_nanos = 0, STATUS_MALFORMED,
	     "duration_nanos is 0, not a length");
	CASE(b.p.duration_nanos = INT64_MIN, STATUS_MALFORMED,
	     "duration_nanos is -9223372036854775808");
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
	struct model *m =
	    pt_make_model(pt_small, ARRAY_SIZE(pt_small), NULL, &w);
	struct buf b;
	struct pt_rec r;

	pt_encode_ok(m, w, NULL, &b);
	pt_decode_expect(b.data, b.len, &lim, STATUS_TOO_LARGE,
	                 "5 samples, over the limit of 1", &r);
	buf_fini(&r.log);
	lim.max_samples = 5;
	pt_decode_expect(b.data, b.len, &lim, STATUS_OK, NULL, &r);
	buf_fini(&r.log);
	lim.max_bytes = b.len - 1;
	pt_decode_expect(b.data, b.len, &lim, STATUS_TOO_LARGE,
	                 "over the limit", &r);
	buf_fini(&r.log);
	lim.max_bytes = b.len;
	pt_decode_expect(b.data, b.len, &lim, STATUS_OK, NULL, &r);
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
	struct model *m =
	    pt_make_model(pt_small, ARRAY_SIZE(pt_small), NULL, &w);
	struct buf b, z;
	struct pt_rec r;

	pt_encode_ok(m, w, NULL, &b);
	gzip_buf(b.data, b.len, &z);
	ck_assert_uint_lt(z.len, b.len);
	pt_decode_expect(z.data, z.len, NULL, STATUS_OK, NULL, &r);
	ck_assert_str_eq(buf_cstr(&r.log), pt_small_log);
	buf_fini(&r.log);
	/* the limit applies to the decompressed size */
	lim.max_bytes = b.len - 1;
	pt_decode_expect(z.data, z.len, &lim, STATUS_TOO_LARGE, NULL, &r);
	buf_fini(&r.log);
	/* every truncation of the gzip stream fails */
	for (size_t n = 0; n < z.len; n++) {
		pt_decode_expect(z.data, n, NULL, STATUS_MALFORMED, NULL, &r);
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
	pt_decode_expect(b.data, b.len, NULL, STATUS_MALFORMED, "protobuf", &r);
	buf_fini(&r.log);
	/* the gzip magic followed by garbage */
	pt_decode_expect("\x1f\x8b\x08\x00garbage", 11, NULL, STATUS_MALFORMED,
	                 NULL, &r);
	buf_fini(&r.log);
	buf_fini(&b);
	model_free(m);
}
END_TEST

START_TEST(decode_truncated_prefixes)
{
	const struct window *w;
	struct model *m =
	    pt_make_model(pt_small, ARRAY_SIZE(pt_small), NULL, &w);
	Perftools__Profiles__Profile *p, tail;
	size_t tail_len, ok = 0;
	struct buf b;
	struct pt_rec r;

	pt_encode_ok(m, w, NULL, &b);
	/* The fields after the string table (time, duration, period,
	 * comments, default) may be cut cleanly: that prefix is still a
	 * valid profile.  Everything shorter must fail. */
	p = pt_unpack(&b);
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
		struct sample_sink k = pt_rec_sink(&r);
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
	struct pt_rec r;

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
		struct sample_sink k = pt_rec_sink(&r);
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
	struct pt_rec r;
	struct sample_sink k;
	char err[256];

	pb_good(&b, false);
	pb_pack(&b, &bytes);
	k = pt_rec_sink(&r);
	r.stop_at = 2;
	r.stop_st = STATUS_NOMEM;
	ck_assert_int_eq(
	    pprof_decode(bytes.data, bytes.len, NULL, &k, err, sizeof(err)),
	    STATUS_NOMEM);
	ck_assert_int_eq(r.nmeta, 0);
	buf_fini(&r.log);
	k = pt_rec_sink(&r);
	r.stop_at = 1;
	r.stop_st = STATUS_LIMIT; /* counted in [other]: go on */
	ck_assert_int_eq(
	    pprof_decode(bytes.data, bytes.len, NULL, &k, err, sizeof(err)),
	    STATUS_OK);
	ck_assert_int_eq(r.n, 2);
	ck_assert_int_eq(r.nmeta, 1);
	buf_fini(&r.log);
	/* a sink without meta gets the samples only */
	k = pt_rec_sink(&r);
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
	struct pt_rec r;

	tu_mkdtemp(dir, sizeof(dir));
	k = pt_rec_sink(&r);
	snprintf(path, sizeof(path), "%s/missing.pb.gz", dir);
	ck_assert_int_eq(pprof_load(path, NULL, &k, err, sizeof(err)),
	                 STATUS_IO);
	ck_assert_str_eq(err, "cannot open: No such file or directory");
	ck_assert_int_eq(pprof_load(dir, NULL, &k, err, sizeof(err)),
	                 STATUS_IO);
	ck_assert_str_eq(err, "is a directory");
	/* a FIFO with no writer is refused at once, never waited on; so is
	 * a device */
	snprintf(path, sizeof(path), "%s/fifo.pb.gz", dir);
	ck_assert_int_eq(mkfifo(path, 0600), 0);
	ck_assert_int_eq(pprof_load(path, NULL, &k, err, sizeof(err)),
	                 STATUS_IO);
	ck_assert_str_eq(err, "not a regular file");
	ck_assert_int_eq(pprof_load("/dev/null", NULL, &k, err, sizeof(err)),
	                 STATUS_IO);
	ck_assert_str_eq(err, "not a regular file");
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
	ck_assert_str_eq(buf_cstr(&r.log), pt_small_log);
	buf_fini(&r.log);
	tu_rmtree(dir);
}
END_TEST

/* The loader reads into a buffer of the file's size: a file of exactly the
 * limit loads (the read that finds its end has no room left), one byte
 * less of limit refuses it, and a file that claims size 0 but has bytes
 * (as /proc's do) is still read whole. */
START_TEST(load_sizes)
{
	struct load_limits lim = { 0, 10 };
	char path[4200], err[256];
	struct sample_sink k;
	struct stat sb;
	struct pt_rec r;

	k = pt_rec_sink(&r);
	tu_data_path(path, sizeof(path), "pprof_small.pb");
	ck_assert_int_eq(stat(path, &sb), 0);
	lim.max_bytes = (size_t)sb.st_size;
	ck_assert_int_eq(pprof_load(path, &lim, &k, err, sizeof(err)),
	                 STATUS_OK);
	ck_assert_str_eq(buf_cstr(&r.log), pt_small_log);
	lim.max_bytes = (size_t)sb.st_size - 1;
	ck_assert_int_eq(pprof_load(path, &lim, &k, err, sizeof(err)),
	                 STATUS_TOO_LARGE);
	ck_assert_msg(strstr(err, "over the limit"), "%s", err);
	ck_assert_int_eq(stat("/proc/self/status", &sb), 0);
	ck_assert_int_eq(sb.st_size, 0);
	ck_assert_int_eq(
	    pprof_load("/proc/self/status", NULL, &k, err, sizeof(err)),
	    STATUS_MALFORMED);
	ck_assert_msg(strstr(err, "not a protobuf"), "%s", err);
	lim.max_bytes = 3;
	ck_assert_int_eq(
	    pprof_load("/proc/self/status", &lim, &k, err, sizeof(err)),
	    STATUS_TOO_LARGE);
	ck_assert_str_eq(err, "file over the limit of 3 bytes");
	buf_fini(&r.log);
}
END_TEST

/* ---- allocation failures ------------------------------------------------*/

static enum status torture_decode(void *ctx)
{
	const struct buf *in = ctx;
	struct pt_rec r;
	struct sample_sink k = pt_rec_sink(&r);
	char err[256];
	enum status st =
	    pprof_decode(in->data, in->len, NULL, &k, err, sizeof(err));

	if (st == STATUS_OK)
		ck_assert_str_eq(buf_cstr(&r.log), pt_small_log);
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

Suite *suite_pprof_decode(void);
Suite *suite_pprof_decode(void)
{
	Suite *s = suite_create("pprof_decode");
	TCase *tc = tcase_create("decode");

	tcase_add_test(tc, decode_hand_built);
	tcase_add_test(tc, decode_rejects_invariants);
	tcase_add_test(tc, decode_limits);
	tcase_add_test(tc, decode_gzip);
	tcase_add_test(tc, decode_truncated_prefixes);
	tcase_add_test(tc, decode_random_bytes);
	tcase_add_test(tc, decode_sink_stops);
	tcase_add_test(tc, load_files);
	tcase_add_test(tc, load_sizes);
	suite_add_tcase(s, tc);
	tc = tcase_create("torture");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, torture_decoder);
	suite_add_tcase(s, tc);
	return s;
}
