/* The replay adapter through the worker, with profiles made by the model
 * and the pprof encoder: round trip, time order, directories, and every
 * kind of bad file (foreign, truncated, corrupt, oversized, missing). */
#include <check.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "adapters/adapter.h"
#include "adapters/builtin.h"
#include "adapters/replay.h"
#include "adapters/worker.h"
#include "encode/pprof.h"
#include "encode/save.h"
#include "model/buf.h"
#include "model/model.h"
#include "tests/adapter_util.h"
#include "tests/util.h"

#define T0 INT64_C(1700000000000000000)
#define S  INT64_C(1000000000)

struct in {
	const char *frames[3];
	size_t depth;
	const char *task;
	uint64_t idle, polls, tasks;
};

static const struct in set_a[] = {
	{ { "main", "serve", "read" }, 3, "conn", 900, 3, 2 },
	{ { "main", "tick" }, 2, "ticker", 40, 9, 1 },
};
static const struct in set_b[] = {
	{ { "boot" }, 1, "init", 7, 1, 1 },
};
static const struct in set_big[] = {
	{ { "a" }, 1, "x", 1, 1, 1 },
	{ { "b" }, 1, "x", 1, 1, 1 },
	{ { "c" }, 1, "x", 1, 1, 1 },
};
static const char *const comments[] = { "asynctop 0.1.0", "window 3" };

/* Encodes one window of the samples into out (uncompressed pprof). */
static void encode(const struct in *in, size_t n, int64_t time,
                   int64_t duration, struct buf *out)
{
	struct window_meta meta;
	const struct window *w;
	struct model *m;
	size_t i, k;

	ck_assert_int_eq(model_new(NULL, &m), STATUS_OK);
	ck_assert_int_eq(model_begin(m), STATUS_OK);
	for (i = 0; i < n; i++) {
		struct strview fr[3];
		struct sample s;

		memset(&s, 0, sizeof(s));
		for (k = 0; k < in[i].depth; k++)
			fr[k] = sv_c(in[i].frames[k]);
		s.frames = fr;
		s.depth = in[i].depth;
		s.task = sv_c(in[i].task);
		s.m.v[METRIC_IDLE] = in[i].idle;
		s.m.v[METRIC_POLLS] = in[i].polls;
		s.tasks = in[i].tasks;
		ck_assert_int_eq(model_add(m, &s), STATUS_OK);
	}
	memset(&meta, 0, sizeof(meta));
	meta.time_nanos = time;
	meta.duration_nanos = duration;
	meta.comments = comments;
	meta.ncomments = 2;
	ck_assert_int_eq(model_commit(m, &meta, &w), STATUS_OK);
	buf_init(out);
	ck_assert_int_eq(pprof_encode(m, w, NULL, out), STATUS_OK);
	model_free(m);
}

static void write_bytes(const char *dir, const char *name, const void *data,
                        size_t len, bool gz, char *path, size_t size)
{
	struct save_opts o = save_opts_default();
	char err[256];

	snprintf(path, size, "%s/%s", dir, name);
	o.gzip_level = gz ? 6 : -1;
	o.force = true;
	ck_assert_msg(save_file(path, data, len, &o, NULL, 0, err,
	                        sizeof(err)) == STATUS_OK,
	              "%s", err);
}

/* Writes a profile of the samples as dir/name (gzip when name ends .gz). */
static void write_profile(const char *dir, const char *name,
                          const struct in *in, size_t n, int64_t time,
                          int64_t duration, char *path, size_t size)
{
	size_t l = strlen(name);
	struct buf b;

	encode(in, n, time, duration, &b);
	write_bytes(dir, name, b.data, b.len,
	            l > 3 && !strcmp(name + l - 3, ".gz"), path, size);
	buf_fini(&b);
}

struct run {
	struct adapter *a;
	struct worker *w;
};

static void start(struct run *r, const char *const *eps, size_t n,
                  const struct load_limits *lim, uint64_t window_ns,
                  uint64_t max)
{
	struct worker_opts o = { .window_ns = window_ns, .max_windows = max };
	struct adapter_config cfg;
	struct adapter_error err;

	adapter_config_default(&cfg);
	cfg.loader = pprof_load;
	if (lim)
		cfg.load_limits = *lim;
	ck_assert_int_eq(
	    adapter_open(adapter_find(builtin_registry(), "replay"), eps, n,
	                 &cfg, &err, &r->a),
	    STATUS_OK);
	ck_assert_int_eq(worker_start(r->a, &o, &r->w), STATUS_OK);
}

static struct worker_msg *next_msg(struct run *r)
{
	for (;;) {
		struct worker_msg *m = au_next_msg(r->w);

		if (m->kind != WORKER_STATE)
			return m;
		ck_assert_int_eq(m->state, SOURCE_REPLAY);
		ck_assert_uint_eq(m->index, 1);
		worker_msg_free(m);
	}
}

static void finish(struct run *r)
{
	struct worker_msg *m = next_msg(r);

	ck_assert_int_eq(m->kind, WORKER_DONE);
	worker_msg_free(m);
	worker_free(r->w);
	adapter_close(r->a);
}

/* Re-encodes a WINDOW message as pprof (what `record` would save). */
static void reencode(const struct worker_msg *msg, struct buf *out)
{
	const struct window *w;
	struct model *m;
	struct sample_sink sink;

	ck_assert_int_eq(model_new(NULL, &m), STATUS_OK);
	ck_assert_int_eq(model_begin(m), STATUS_OK);
	sink = model_sink(m);
	ck_assert_int_eq(worker_msg_feed(msg, &sink), STATUS_OK);
	ck_assert_int_eq(model_commit(m, &msg->meta, &w), STATUS_OK);
	buf_init(out);
	ck_assert_int_eq(pprof_encode(m, w, NULL, out), STATUS_OK);
	model_free(m);
}

static struct worker_msg *expect_window(struct run *r, int64_t time,
                                        size_t nsamples)
{
	struct worker_msg *m = next_msg(r);

	ck_assert_int_eq(m->kind, WORKER_WINDOW);
	ck_assert_int_eq(m->meta.time_nanos, time);
	ck_assert_uint_eq(m->nsamples, nsamples);
	return m;
}

/* path: the file the detail must start with, or NULL when the file is the
 * only endpoint (the error names it already, so the detail does not). */
static void expect_error(struct run *r, enum status st, const char *path,
                         const char *reason_part)
{
	struct worker_msg *m = next_msg(r);
	size_t l = path ? strlen(path) : 0;

	ck_assert_int_eq(m->kind, WORKER_ERROR);
	ck_assert_msg(m->err.st == st, "got %s for %s: %s",
	              status_name(m->err.st), path ? path : "the endpoint",
	              m->err.detail);
	if (path)
		ck_assert_msg(!strncmp(m->err.detail, path, l) &&
		                  !strncmp(m->err.detail + l, ": ", 2),
		              "%s", m->err.detail);
	else
		ck_assert_msg(m->err.detail[0] != '/', "%s", m->err.detail);
	ck_assert_msg(strstr(m->err.detail, reason_part) != NULL, "%s",
	              m->err.detail);
	worker_msg_free(m);
}

START_TEST(single_file_round_trip)
{
	char dir[4096], path[4200], src[4300];
	const char *ep[1];
	struct worker_msg *m;
	struct buf orig, again;
	struct run r;
	size_t i;

	tu_mkdtemp(dir, sizeof(dir));
	write_profile(dir, "saved.pb.gz", set_a, 2, T0, 5 * S, path,
	              sizeof(path));
	ep[0] = path;
	start(&r, ep, 1, NULL, 5000000000u, 0);
	m = expect_window(&r, T0, 2);
	ck_assert_int_eq(m->meta.duration_nanos, 5 * S);
	ck_assert(!m->meta.partial);
	ck_assert(!m->meta.clamped);
	ck_assert_uint_eq(m->meta.requested_nanos, 0);
	ck_assert_uint_eq(m->meta.ncomments, 2);
	for (i = 0; i < 2; i++)
		ck_assert_str_eq(m->meta.comments[i], comments[i]);
	snprintf(src, sizeof(src), "replay %s", path);
	ck_assert_str_eq(m->meta.source, src);
	encode(set_a, 2, T0, 5 * S, &orig);
	reencode(m, &again);
	ck_assert_uint_eq(again.len, orig.len);
	ck_assert(memcmp(again.data, orig.data, orig.len) == 0);
	buf_fini(&orig);
	buf_fini(&again);
	worker_msg_free(m);
	finish(&r);
	tu_rmtree(dir);
}
END_TEST

START_TEST(files_in_time_order)
{
	char dir[4096], pa[4200], pb[4200], pc[4200], junk[4200];
	const char *ep[3];
	struct worker_msg *m;
	struct run r;

	tu_mkdtemp(dir, sizeof(dir));
	/* Name order a, b, c; time order c, a, b. */
	write_profile(dir, "a.pb.gz", set_a, 2, T0 + 5 * S, 5 * S, pa,
	              sizeof(pa));
	write_profile(dir, "b.pb", set_b, 1, T0 + 10 * S, 5 * S, pb,
	              sizeof(pb));
	write_profile(dir, "c.pb.gz", set_b, 1, T0, 5 * S, pc, sizeof(pc));
	write_bytes(dir, "notes.txt", "hello", 5, false, junk, sizeof(junk));

	/* A directory: its *.pb.gz and *.pb, by start time. */
	ep[0] = dir;
	start(&r, ep, 1, NULL, 5000000000u, 0);
	worker_msg_free(expect_window(&r, T0, 1));
	worker_msg_free(expect_window(&r, T0 + 5 * S, 2));
	worker_msg_free(expect_window(&r, T0 + 10 * S, 1));
	finish(&r);

	/* Files named one by one, out of order: the same order. */
	ep[0] = pb;
	ep[1] = pa;
	ep[2] = pc;
	start(&r, ep, 3, NULL, 5000000000u, 0);
	m = expect_window(&r, T0, 1);
	ck_assert(strstr(m->meta.source, "/c.pb.gz") != NULL);
	worker_msg_free(m);
	worker_msg_free(expect_window(&r, T0 + 5 * S, 2));
	worker_msg_free(expect_window(&r, T0 + 10 * S, 1));
	finish(&r);

	/* -n counts windows. */
	ep[0] = dir;
	start(&r, ep, 1, NULL, 5000000000u, 2);
	worker_msg_free(expect_window(&r, T0, 1));
	worker_msg_free(expect_window(&r, T0 + 5 * S, 2));
	finish(&r);
	tu_rmtree(dir);
}
END_TEST

START_TEST(long_duration_kept)
{
	char dir[4096], path[4200];
	const char *ep[1];
	struct worker_msg *m;
	struct run r;

	tu_mkdtemp(dir, sizeof(dir));
	write_profile(dir, "long.pb", set_b, 1, T0, 90 * S, path, sizeof(path));
	ep[0] = path;
	start(&r, ep, 1, NULL, 90000000000u, 0);
	m = expect_window(&r, T0, 1);
	ck_assert_int_eq(m->meta.duration_nanos, 90 * S);
	ck_assert(!m->meta.clamped);
	worker_msg_free(m);
	finish(&r);
	tu_rmtree(dir);
}
END_TEST

/* A valid pprof whose one sample type is cpu/nanoseconds. */
static const unsigned char foreign_pb[] = {
	0x0a, 0x04, 0x08, 0x01, 0x10, 0x02, 0x32, 0x00, 0x32,
	0x03, 'c',  'p',  'u',  0x32, 0x0b, 'n',  'a',  'n',
	'o',  's',  'e',  'c',  'o',  'n',  'd',  's',
};

START_TEST(bad_files)
{
	char dir[4096], good[4200], foreign[4200], trunc[4200], corrupt[4200],
	    big[4200], missing[4200];
	const char *ep[6];
	struct load_limits lim = { 0, 2 };
	struct worker_msg *m;
	struct buf b, z;
	struct run r;

	tu_mkdtemp(dir, sizeof(dir));
	write_profile(dir, "good.pb.gz", set_a, 2, T0, 5 * S, good,
	              sizeof(good));
	write_bytes(dir, "foreign.pb", foreign_pb, sizeof(foreign_pb), false,
	            foreign, sizeof(foreign));
	buf_init(&z);
	ck_assert_int_eq(tu_read_file(good, &z), STATUS_OK);
	write_bytes(dir, "trunc.pb.gz", z.data, z.len / 2, false, trunc,
	            sizeof(trunc));
	z.data[z.len / 2] ^= 0x55;
	z.data[z.len / 2 + 1] ^= 0xff;
	write_bytes(dir, "corrupt.pb.gz", z.data, z.len, false, corrupt,
	            sizeof(corrupt));
	buf_fini(&z);
	encode(set_big, 3, T0 + S, S, &b);
	write_bytes(dir, "big.pb", b.data, b.len, false, big, sizeof(big));
	buf_fini(&b);
	snprintf(missing, sizeof(missing), "%s/gone.pb.gz", dir);

	ep[0] = foreign;
	ep[1] = trunc;
	ep[2] = good;
	ep[3] = corrupt;
	ep[4] = big;
	ep[5] = missing;
	start(&r, ep, 6, &lim, 5000000000u, 0);
	/* The good ones first, in time order; then each bad one, by path. */
	worker_msg_free(expect_window(&r, T0, 2));
	expect_error(&r, STATUS_TOO_LARGE, big, "");
	expect_error(&r, STATUS_MALFORMED, corrupt, "");
	expect_error(&r, STATUS_FOREIGN, foreign, "");
	expect_error(&r, STATUS_IO, missing, "No such file or directory");
	expect_error(&r, STATUS_MALFORMED, trunc, "");
	finish(&r);

	/* One at a time, for the wording. */
	ep[0] = foreign;
	start(&r, ep, 1, NULL, 5000000000u, 0);
	m = next_msg(&r);
	ck_assert_int_eq(m->err.st, STATUS_FOREIGN);
	ck_assert_str_eq(m->err.remediation,
	                 "replay reads pprof profiles saved by asynctop "
	                 "(sample types idle, busy, scheduled, polls and "
	                 "wakes)");
	worker_msg_free(m);
	finish(&r);
	ep[0] = big;
	start(&r, ep, 1, &lim, 5000000000u, 0);
	m = next_msg(&r);
	ck_assert_int_eq(m->err.st, STATUS_TOO_LARGE);
	ck_assert(strstr(m->err.remediation, "--max-samples") != NULL);
	worker_msg_free(m);
	finish(&r);
	tu_rmtree(dir);
}
END_TEST

START_TEST(directory_with_one_bad_file)
{
	char dir[4096], p1[4200], p2[4200], bad[4200];
	const char *ep[1];
	struct run r;

	tu_mkdtemp(dir, sizeof(dir));
	write_profile(dir, "w1.pb.gz", set_a, 2, T0, 5 * S, p1, sizeof(p1));
	write_profile(dir, "w2.pb.gz", set_b, 1, T0 + 5 * S, 5 * S, p2,
	              sizeof(p2));
	write_bytes(dir, "w0.pb.gz", "\x1f\x8b garbage", 10, false, bad,
	            sizeof(bad));
	ep[0] = dir;
	start(&r, ep, 1, NULL, 5000000000u, 0);
	worker_msg_free(expect_window(&r, T0, 2));
	worker_msg_free(expect_window(&r, T0 + 5 * S, 1));
	expect_error(&r, STATUS_MALFORMED, bad, "");
	finish(&r);
	tu_rmtree(dir);
}
END_TEST

/* A FIFO named by -e is refused without waiting for a writer, and the
 * other files still load; one in a directory is not a profile file. */
START_TEST(fifo_refused)
{
	char dir[4096], good[4200], fifo[4200], inner[4200];
	const char *ep[3];
	struct run r;

	tu_mkdtemp(dir, sizeof(dir));
	write_profile(dir, "good.pb.gz", set_a, 2, T0, 5 * S, good,
	              sizeof(good));
	snprintf(fifo, sizeof(fifo), "%s/fifo.pb.gz", dir);
	ck_assert_int_eq(mkfifo(fifo, 0600), 0);
	ep[0] = fifo;
	ep[1] = good;
	start(&r, ep, 2, NULL, 5000000000u, 0);
	worker_msg_free(expect_window(&r, T0, 2));
	expect_error(&r, STATUS_IO, fifo, "not a regular file or directory");
	finish(&r);

	snprintf(inner, sizeof(inner), "%s/sub", dir);
	ck_assert_int_eq(mkdir(inner, 0700), 0);
	snprintf(inner, sizeof(inner), "%s/sub/w.pb.gz", dir);
	ck_assert_int_eq(mkfifo(inner, 0600), 0);
	snprintf(inner, sizeof(inner), "%s/sub", dir);
	ep[0] = inner;
	start(&r, ep, 1, NULL, 5000000000u, 0);
	expect_error(&r, STATUS_IO, NULL,
	             "no *.pb.gz or *.pb files in this directory");
	finish(&r);
	tu_rmtree(dir);
}
END_TEST

START_TEST(empty_directory_and_no_loader)
{
	char dir[4096];
	const char *ep[1];
	struct adapter_error err;
	struct adapter *a;
	struct run r;

	tu_mkdtemp(dir, sizeof(dir));
	ep[0] = dir;
	start(&r, ep, 1, NULL, 5000000000u, 0);
	expect_error(&r, STATUS_IO, NULL,
	             "no *.pb.gz or *.pb files in this directory");
	finish(&r);
	tu_rmtree(dir);

	ck_assert_int_eq(adapter_open(&replay_ops, ep, 1, NULL, &err, &a),
	                 STATUS_INVAL);
	ck_assert_str_eq(err.detail,
	                 "the replay adapter was opened without a loader");
	ck_assert_int_eq(adapter_open(&replay_ops, NULL, 0, NULL, &err, &a),
	                 STATUS_INVAL);
}
END_TEST

/* Replays ctx's directory once; STATUS_NOMEM when anything was lost. */
static enum status replay_dir(void *ctx)
{
	const char *ep[1] = { ctx };
	struct worker_opts o = { .window_ns = 5000000000u };
	struct adapter_config cfg;
	struct adapter *a;
	struct worker *w;
	struct run r;
	enum status st, result = STATUS_OK;
	unsigned windows = 0;
	bool done = false;

	adapter_config_default(&cfg);
	cfg.loader = pprof_load;
	st = adapter_open(&replay_ops, ep, 1, &cfg, NULL, &a);
	if (st != STATUS_OK)
		return st;
	st = worker_start(a, &o, &w);
	if (st != STATUS_OK) {
		adapter_close(a);
		return st;
	}
	r.a = a;
	r.w = w;
	while (!done) {
		struct worker_msg *m = next_msg(&r);

		if (m->kind == WORKER_WINDOW) {
			windows++;
		} else if (m->kind == WORKER_ERROR) {
			ck_assert_msg(m->err.st == STATUS_NOMEM, "%s",
			              m->err.detail);
			result = STATUS_NOMEM;
		} else if (m->kind == WORKER_DONE) {
			if (m->err.st != STATUS_OK)
				result = m->err.st;
			done = true;
		}
		worker_msg_free(m);
	}
	worker_free(w);
	adapter_close(a);
	if (result == STATUS_OK)
		ck_assert_uint_eq(windows, 2);
	return result;
}

START_TEST(allocation_failures)
{
	char dir[4096], path[4200];

	tu_mkdtemp(dir, sizeof(dir));
	write_profile(dir, "1.pb", set_a, 2, T0 + S, S, path, sizeof(path));
	write_profile(dir, "2.pb.gz", set_b, 1, T0, S, path, sizeof(path));
	ck_assert_uint_gt(tu_torture(replay_dir, dir), 10);
	tu_rmtree(dir);
}
END_TEST

Suite *suite_replay(void);
Suite *suite_replay(void)
{
	Suite *s = suite_create("replay");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, single_file_round_trip);
	tcase_add_test(tc, files_in_time_order);
	tcase_add_test(tc, long_duration_kept);
	tcase_add_test(tc, bad_files);
	tcase_add_test(tc, directory_with_one_bad_file);
	tcase_add_test(tc, fifo_refused);
	tcase_add_test(tc, empty_directory_and_no_loader);
	tcase_add_test(tc, allocation_failures);
	suite_add_tcase(s, tc);
	return s;
}
