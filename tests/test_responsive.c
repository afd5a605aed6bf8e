/* Huge windows taken in by steps and saves encoded on the saver thread
 * (docs/design.md §15): a window folded in slices, built on the builder
 * thread and released in slices gives exactly the figures of one folded
 * at once (random windows); a save asked during an arrival writes the
 * window shown when it was asked, byte for byte, even when the arrival
 * evicts it; saves queue; quitting mid-save finishes and reports it. */
#include <check.h>
#include <fcntl.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "adapters/adapter.h"
#include "adapters/asynctop.h"
#include "adapters/batch.h"
#include "adapters/worker.h"
#include "encode/collapsed.h"
#include "encode/gzip.h"
#include "encode/pprof.h"
#include "model/buf.h"
#include "model/model.h"
#include "tests/adapter_util.h"
#include "tests/fake_adapter.h"
#include "tests/tmux.h"
#include "tests/util.h"
#include "tui/app.h"
#include "tui/builder.h"
#include "tui/saver.h"

#define SEC ((uint64_t)1000000000u)

/* ---- random windows ------------------------------------------------------ */

static uint64_t next_rand(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

/* Frame, task and stack pools: a window draws its samples from them, so
 * windows share stacks (kept order reused) and bring new ones. */
static const char *const frames[] = { "app:main",  "pool:run",  "db:query",
	                              "net:recv",  "lock:wait", "",
	                              "cache:get", "io:read" };
static const char *const tasks[] = { "worker", "reader", "", "Task-7",
	                             "writer" };

/* n random samples into s (frames point at the pools). */
static void random_samples(struct fake_sample *s, size_t n, uint64_t *x)
{
	for (size_t i = 0; i < n; i++) {
		memset(&s[i], 0, sizeof(s[i]));
		s[i].depth = next_rand(x) % 5; /* 0: no spawn stack */
		for (size_t d = 0; d < s[i].depth; d++)
			s[i].frames[d] =
			    frames[next_rand(x) %
			           (sizeof(frames) / sizeof(frames[0]))];
		s[i].task =
		    tasks[next_rand(x) % (sizeof(tasks) / sizeof(tasks[0]))];
		s[i].idle = next_rand(x) % 3 ? next_rand(x) % 1000000 : 0;
		s[i].busy = next_rand(x) % 2 ? next_rand(x) % 1000 : 0;
		s[i].tasks = 1 + next_rand(x) % 4;
	}
}

/* A worker over the fake adapter with steps, and its next window. */
struct rig {
	struct fake_ctl ctl;
	struct fake_script script;
	struct adapter_ops ops;
	struct adapter *a;
	struct worker *w;
};

static void rig_start(struct rig *r, const struct fake_step *steps, size_t n)
{
	struct adapter_error err;
	struct worker_opts o;

	memset(r, 0, sizeof(*r));
	memset(&o, 0, sizeof(o));
	o.window_ns = SEC / 100;
	o.refresh_ns = SEC;
	o.retry_base_ns = SEC / 100;
	o.retry_max_ns = SEC / 10;
	fake_ctl_init(&r->ctl);
	r->script.steps = steps;
	r->script.n = n;
	r->script.ctl = &r->ctl;
	fake_ops(&r->ops, &r->script, ADAPTER_FINITE);
	ck_assert_int_eq(adapter_open(&r->ops, NULL, 0, NULL, &err, &r->a),
	                 STATUS_OK);
	ck_assert_int_eq(worker_start(r->a, &o, &r->w), STATUS_OK);
}

static void rig_end(struct rig *r)
{
	worker_free(r->w);
	adapter_close(r->a);
	fake_ctl_fini(&r->ctl);
}

/* The worker's next WORKER_WINDOW message (others dropped); NULL once it
 * is done. */
static struct worker_msg *next_window(struct rig *r)
{
	for (;;) {
		struct worker_msg *m = au_next_msg(r->w);

		bool done = m->kind == WORKER_DONE;

		if (m->kind == WORKER_WINDOW)
			return m;
		worker_msg_free(m);
		if (done)
			return NULL;
	}
}

static void opts(struct app_opts *o, const char *dir, size_t history)
{
	memset(o, 0, sizeof(*o));
	o->prog = "asynctop";
	o->adapter = "fake";
	o->endpoint = "";
	o->window_ns = SEC;
	o->refresh_ns = SEC;
	o->metric = METRIC_IDLE;
	o->save_dir = dir;
	o->history = history;
	o->events = -1;
}

/* Steps a's intake until the window is in (waiting on the builder). */
static void step_all(struct app *a)
{
	for (int i = 0; app_busy(a); i++) {
		ck_assert_msg(i < 10000000, "the intake never ended");
		if (!app_step_ready(a)) {
			struct pollfd p[2] = {
				{ builder_fd(a->builder), POLLIN, 0 },
				{ a->saver ? saver_fd(a->saver) : -1, POLLIN,
				  0 },
			};
			ck_assert_int_ge(poll(p, 2, 10000), 0);
		}
		(void)app_step(a);
	}
}

static void same_window(const struct window *x, const struct window *y)
{
	ck_assert_uint_eq(x->seq, y->seq);
	ck_assert_int_eq(x->empty, y->empty);
	ck_assert_uint_eq(x->nrows, y->nrows);
	ck_assert_uint_eq(x->nentries, y->nentries);
	ck_assert_uint_eq(x->nextras, y->nextras);
	ck_assert_uint_eq(x->tasks, y->tasks);
	ck_assert_uint_eq(x->bytes, y->bytes);
	ck_assert(!memcmp(&x->stats, &y->stats, sizeof(x->stats)));
	ck_assert(!memcmp(&x->total, &y->total, sizeof(x->total)));
	ck_assert(!memcmp(x->rows, y->rows, x->nrows * sizeof(*x->rows)));
	ck_assert(
	    !memcmp(x->entries, y->entries, x->nentries * sizeof(*x->entries)));
	ck_assert_int_eq(x->meta.time_nanos, y->meta.time_nanos);
	ck_assert_int_eq(x->meta.duration_nanos, y->meta.duration_nanos);
	ck_assert_uint_eq(x->meta.ncomments, y->meta.ncomments);
	for (size_t i = 0; i < x->meta.ncomments; i++)
		ck_assert_str_eq(x->meta.comments[i], y->meta.comments[i]);
}

static void same_models(const struct model *x, const struct model *y)
{
	struct model_stats sx, sy;

	ck_assert_uint_eq(model_window_count(x), model_window_count(y));
	for (size_t i = 0; i < model_window_count(x); i++)
		same_window(model_window(x, i), model_window(y, i));
	model_stats(x, &sx);
	model_stats(y, &sy);
	ck_assert(!memcmp(&sx, &sy, sizeof(sx)));
}

/* The warnings of the newest window: sliced's were evaluated on the
 * builder before it was kept, whole's are evaluated here. */
static void same_warnings(struct app *sliced, struct app *whole)
{
	const struct window *w = model_latest(sliced->m);

	if (!w->empty)
		ck_assert(sliced->warn.ok && sliced->warn.w == w);
	ck_assert_int_eq(
	    warn_eval(&sliced->warn, sliced->m, w, &sliced->o.warn), STATUS_OK);
	ck_assert_int_eq(warn_eval(&whole->warn, whole->m,
	                           model_latest(whole->m), &whole->o.warn),
	                 STATUS_OK);
	ck_assert_uint_eq(sliced->warn.n, whole->warn.n);
	ck_assert(!memcmp(sliced->warn.rule_count, whole->warn.rule_count,
	                  sizeof(whole->warn.rule_count)));
	for (size_t i = 0; i < whole->warn.n; i++)
		ck_assert(!memcmp(&sliced->warn.v[i], &whole->warn.v[i],
		                  sizeof(whole->warn.v[i])));
}

/* Random windows through a worker: app `sliced` takes each in by slices
 * of one clock look (128 samples), the build on its builder; app `whole`
 * folds the same message at once.  Their models, windows, statistics and
 * table orders and warnings are the same after every window, across
 * evictions. */
START_TEST(sliced_fold_equals_whole)
{
	enum { WINDOWS = 6, MAXN = 3000 };
	uint64_t x = 0x9e3779b97f4a7c15ull * (uint64_t)(_i + 1);
	struct fake_sample *pool = calloc(WINDOWS * MAXN, sizeof(*pool));
	struct fake_step steps[WINDOWS];
	struct app sliced, whole;
	struct app_opts o;
	struct builder *b;
	struct rig r;

	ck_assert_ptr_nonnull(pool);
	for (size_t k = 0; k < WINDOWS; k++) {
		size_t n = k == 2 ? 0 : 1 + next_rand(&x) % MAXN;
		random_samples(pool + k * MAXN, n, &x);
		steps[k] = (struct fake_step){ .kind = FAKE_SAMPLES,
			                       .samples = pool + k * MAXN,
			                       .n = n };
	}
	opts(&o, ".", 3); /* evictions from the fourth window on */
	ck_assert_int_eq(app_init(&sliced, &o), STATUS_OK);
	ck_assert_int_eq(app_init(&whole, &o), STATUS_OK);
	ck_assert_int_eq(builder_new(&b), STATUS_OK);
	sliced.builder = b;
	sliced.slice_ns = 1;
	rig_start(&r, steps, WINDOWS);
	for (struct worker_msg *m; (m = next_window(&r));) {
		app_take(&whole, m);
		ck_assert(app_intake(&sliced, m));
		ck_assert(app_busy(&sliced));
		step_all(&sliced);
		same_models(sliced.m, whole.m);
		ck_assert_uint_eq(sliced.committed, whole.committed);
		ck_assert_uint_eq(sliced.v.order.n, whole.v.order.n);
		/* whole sorted only the rows about its page: then all */
		for (size_t i = whole.v.in_lo; i < whole.v.in_hi; i++)
			ck_assert_uint_eq(sliced.v.order.idx[i],
			                  whole.v.order.idx[i]);
		view_complete(&whole.v);
		for (size_t i = 0; i < whole.v.order.n; i++)
			ck_assert_uint_eq(sliced.v.order.idx[i],
			                  whole.v.order.idx[i]);
		same_warnings(&sliced, &whole);
	}
	ck_assert_uint_eq(whole.committed, WINDOWS);
	rig_end(&r);
	builder_free(b);
	app_fini(&sliced);
	app_fini(&whole);
	free(pool);
}
END_TEST

/* model_reclaim a few entries at a time leaves the model as model_commit's
 * eviction at once does, and a fold waits for nothing it left. */
START_TEST(reclaim_in_slices_equals_at_once)
{
	struct model_limits lim;
	struct model *x, *y;
	uint64_t seed = 42;
	struct batch bt;

	model_limits_default(&lim);
	lim.max_windows = 2;
	ck_assert_int_eq(model_new(&lim, &x), STATUS_OK);
	ck_assert_int_eq(model_new(&lim, &y), STATUS_OK);
	batch_init(&bt);
	for (int k = 0; k < 8; k++) {
		struct fake_sample fs[400];
		struct sample_sink sx = model_sink(x), sy = model_sink(y);
		struct model_build *mb;
		struct window_meta meta = { .time_nanos = k + 1,
			                    .duration_nanos = 5 };
		size_t n = 1 + next_rand(&seed) % 400, next = 0;
		enum status st;

		random_samples(fs, n, &seed);
		batch_clear(&bt);
		for (size_t i = 0; i < n; i++) {
			struct strview f[4];
			struct sample s;

			memset(&s, 0, sizeof(s));
			for (size_t d = 0; d < fs[i].depth; d++)
				f[d] = sv_c(fs[i].frames[d]);
			s.frames = f;
			s.depth = fs[i].depth;
			s.task = sv_c(fs[i].task);
			s.m.v[METRIC_IDLE] = fs[i].idle;
			s.m.v[METRIC_BUSY] = fs[i].busy;
			s.tasks = fs[i].tasks;
			ck_assert_int_eq(batch_add(&bt, &s), STATUS_OK);
		}
		ck_assert_int_eq(model_begin(x), STATUS_OK);
		ck_assert_int_eq(model_begin(y), STATUS_OK);
		ck_assert_int_eq(model_reserve(x, n), STATUS_OK);
		ck_assert_int_eq(batch_feed(&bt, &sy), STATUS_OK);
		ck_assert_int_eq(batch_feed_from(&bt, &next, &sx), STATUS_OK);
		ck_assert_uint_eq(next, n);
		st = model_commit(y, &meta, NULL);
		ck_assert(st == STATUS_OK || st == STATUS_EMPTY_WINDOW);
		ck_assert_int_eq(model_build_begin(x, &meta, &mb), STATUS_OK);
		/* closed to folds while it builds */
		ck_assert_int_eq(batch_feed(&bt, &sx), STATUS_INVAL);
		model_build_run(mb);
		ck_assert_ptr_nonnull(model_build_window(mb));
		ck_assert_int_eq(model_build_end(x, mb, NULL), st);
		while (model_reclaim(x, 3))
			;
		same_models(x, y);
	}
	batch_fini(&bt);
	model_free(x);
	model_free(y);
}
END_TEST

/* ---- saves while windows arrive ---------------------------------------- */

static const struct fake_sample first[] = {
	{ { "app:main", "db:query" }, 2, "reader", 900, 10, 3 },
	{ { "app:main", "net:recv" }, 2, "worker", 500, 70, 1 },
};

/* The file at path decompressed (gzip) or as it is into out. */
static void read_saved(const char *path, bool gz, struct buf *out)
{
	struct buf raw;

	buf_init(&raw);
	ck_assert_int_eq(tu_read_file(path, &raw), STATUS_OK);
	if (gz) {
		char err[256];

		ck_assert_msg(gzip_decompress(raw.data, raw.len,
		                              (size_t)1 << 30, out, err,
		                              sizeof(err)) == STATUS_OK,
		              "%s: %s", path, err);
	} else {
		ck_assert_int_eq(buf_add(out, raw.data, raw.len), STATUS_OK);
	}
	buf_fini(&raw);
}

/* The next result of the saver (waiting for it). */
static void saved(struct saver *s, struct saver_result *res)
{
	saver_wait(s);
	ck_assert_int_eq(saver_take(s, res), STATUS_OK);
	ck_assert_msg(res->st == STATUS_OK, "%s", res->err);
}

/* The first window shows; S, C and S again while the second arrives, with
 * history h: each file holds the first window's bytes, as the encoders
 * give them on this thread before the arrival (h = 1: the arrival evicts
 * the window being saved, which must wait for the encoder; run under
 * SAN=address,undefined). */
static void save_during_arrival(size_t h)
{
	static struct fake_sample second[1000];
	uint64_t seed = 7;
	const struct fake_step steps[] = {
		{ .kind = FAKE_SAMPLES, .samples = first, .n = 2 },
		{ .kind = FAKE_SAMPLES, .samples = second, .n = 1000 },
	};
	struct buf want_pb, want_col, got;
	struct saver_result res;
	struct worker_msg *m;
	struct app_opts o;
	struct app a;
	char dir[512];
	struct rig r;

	random_samples(second, 1000, &seed);
	tu_mkdtemp(dir, sizeof(dir));
	opts(&o, dir, h);
	ck_assert_int_eq(app_init(&a, &o), STATUS_OK);
	ck_assert_int_eq(builder_new(&a.builder), STATUS_OK);
	ck_assert_int_eq(saver_new(&a.saver), STATUS_OK);
	a.slice_ns = 1;
	rig_start(&r, steps, 2);
	m = next_window(&r);
	ck_assert(app_intake(&a, m));
	step_all(&a);
	ck_assert_uint_eq(model_latest(a.m)->seq, 1);
	buf_init(&want_pb);
	buf_init(&want_col);
	ck_assert_int_eq(pprof_encode(a.m, model_latest(a.m), NULL, &want_pb),
	                 STATUS_OK);
	ck_assert_int_eq(
	    collapsed_encode(a.m, model_latest(a.m), METRIC_IDLE, &want_col),
	    STATUS_OK);
	/* the second arrives (a slice folds 128 of its 1000 samples): S, C,
	 * S queue while it is folded in */
	m = next_window(&r);
	ck_assert(app_intake(&a, m));
	(void)app_step(&a);
	ck_assert_int_eq(a.phase, APP_INTAKE_FOLD);
	ck_assert_uint_eq(app_do(&a, ACTION_SAVE_PPROF), APP_REDRAW);
	ck_assert_msg(!a.status_error, "%s", a.status);
	(void)app_step(&a); /* a fold slice, unless the saver still reads */
	ck_assert_int_eq(a.phase, APP_INTAKE_FOLD);
	ck_assert_uint_eq(app_do(&a, ACTION_SAVE_COLLAPSED), APP_REDRAW);
	ck_assert_uint_eq(app_do(&a, ACTION_SAVE_PPROF), APP_REDRAW);
	ck_assert_msg(!a.status_error, "%s", a.status);
	step_all(&a);
	ck_assert_uint_eq(model_latest(a.m)->seq, 2);
	ck_assert_uint_eq(model_window_count(a.m), h < 2 ? 1 : 2);
	/* in the order asked, each the first window's bytes */
	for (int i = 0; i < 3; i++) {
		saved(a.saver, &res);
		ck_assert_msg(
		    strstr(res.written, i == 1 ? "-w1-idle.collapsed" : "-w1"),
		    "%s", res.written);
		buf_init(&got);
		read_saved(res.written, i != 1, &got);
		if (i == 1)
			ck_assert(got.len == want_col.len &&
			          !memcmp(got.data, want_col.data, got.len));
		else
			ck_assert(got.len == want_pb.len &&
			          !memcmp(got.data, want_pb.data, got.len));
		buf_fini(&got);
	}
	ck_assert_int_eq(saver_take(a.saver, &res), STATUS_AGAIN);
	rig_end(&r);
	saver_free(a.saver);
	builder_free(a.builder);
	app_fini(&a);
	buf_fini(&want_pb);
	buf_fini(&want_col);
	tu_rmtree(dir);
}

START_TEST(save_during_arrival_writes_the_shown_window)
{
	save_during_arrival(3);
}
END_TEST

START_TEST(eviction_while_saving_is_safe)
{
	save_during_arrival(1);
}
END_TEST

/* ---- quitting mid-save --------------------------------------------------- */

#define BIG 200000

/* One window of BIG distinct stacks, then small ones. */
static enum asynctop_result big_once(void *user, struct asynctop_window *w)
{
	static unsigned calls;
	char leaf[32];
	struct asynctop_str f[2];
	struct asynctop_sample s;
	size_t n = calls++ ? 1 : BIG;

	(void)user;
	memset(&s, 0, sizeof(s));
	f[0].ptr = "main";
	f[0].len = 4;
	s.frames = f;
	s.depth = 2;
	s.task.ptr = "w";
	s.task.len = 1;
	for (size_t i = 0; i < n; i++) {
		/* cppcheck-suppress unreadVariable ; read through s.frames */
		f[1].len = (size_t)snprintf(leaf, sizeof(leaf), "leaf_%zu", i);
		/* cppcheck-suppress unreadVariable ; read through s.frames */
		f[1].ptr = leaf;
		s.idle_ns = 1000 + i;
		s.tasks = 1;
		if (asynctop_window_add(w, &s))
			return ASYNCTOP_FAILED;
	}
	asynctop_window_wait(w);
	return ASYNCTOP_OK;
}

/* S then q at once on a window of BIG samples: the viewer quits with the
 * save still running, finishes it (a whole profile of BIG samples),
 * reports it on the event channel and on stderr, and exits 0. */
START_TEST(quit_mid_save_finishes_and_reports)
{
	struct tmux_events ev;
	struct tmux_pty pty;
	char dir[512], errp[640], line[4200];
	struct buf err, col;
	uint64_t until;
	int status;
	pid_t pid;

	tu_mkdtemp(dir, sizeof(dir));
	tmux_events_open(&ev, dir);
	tmux_pty_open(&pty, 80, 24);
	ev.drain = pty.master;
	snprintf(errp, sizeof(errp), "%s/stderr", dir);
	fflush(NULL);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		struct asynctop_adapter big = {
			.abi = ASYNCTOP_ABI_VERSION,
			.name = "big",
			.summary = "one big window",
			.default_endpoint = "sim://big",
			.produce = big_once,
		};
		/* a window of 5 s gives the producer 6 s for its BIG
		 * samples (window plus one second): 0.5 s was missed at a
		 * load of 8, and the window never came */
		char a0[] = "bigtop", a1[] = "-w", a2[] = "5", a3[] = "-d";
		char *argv[] = { a0, a1, a2, a3, dir, NULL };

		tmux_pty_child(&pty, errp);
		setenv("TERM", "xterm-256color", 1);
		setenv("ASYNCTOP_TEST_EVENTS", ev.fifo, 1);
		_exit(asynctop_main(5, argv, &big, 1));
	}
	TMUX_WAIT(&ev, "window 1 committed", TMUX_WAIT_MS);
	TMUX_WAIT(&ev, "drawn", TMUX_WAIT_MS);
	/* C: collapsed stacks, checked line by line below */
	ck_assert_int_eq(write(pty.master, "Cq", 2), 2);
	TMUX_WAIT(&ev, "action save-collapsed", TMUX_WAIT_MS);
	/* quit is taken before the save can be done: the same read */
	TMUX_WAIT(&ev, "action quit", TMUX_WAIT_MS);
	ck_assert(
	    tmux_events_wait(&ev, "saved *", TMUX_WAIT_MS, line, sizeof(line)));
	TMUX_WAIT(&ev, "exit 0", TMUX_WAIT_MS);
	until = tmux_now_ms() + TMUX_WAIT_MS;
	while (waitpid(pid, &status, WNOHANG) == 0) {
		ck_assert_msg(tmux_now_ms() < until, "the viewer did not exit");
		tmux_events_pump(&ev, 50);
	}
	ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	/* the whole window: one line per stack */
	buf_init(&col);
	ck_assert_int_eq(tu_read_file(line + 6, &col), STATUS_OK);
	{
		size_t lines = 0;
		for (size_t i = 0; i < col.len; i++)
			lines += col.data[i] == '\n';
		ck_assert_uint_eq(lines, BIG);
	}
	buf_fini(&col);
	buf_init(&err);
	ck_assert_int_eq(tu_read_file(errp, &err), STATUS_OK);
	ck_assert_msg(strstr(buf_cstr(&err), line), "%s", buf_cstr(&err));
	buf_fini(&err);
	tmux_pty_close(&pty);
	tmux_events_close(&ev);
	tu_rmtree(dir);
}
END_TEST

Suite *suite_responsive(void);
Suite *suite_responsive(void)
{
	Suite *s = suite_create("responsive");
	TCase *tc = tcase_create("intake");

	tcase_set_timeout(tc, 120);
	tcase_add_loop_test(tc, sliced_fold_equals_whole, 0, 8);
	tcase_add_test(tc, reclaim_in_slices_equals_at_once);
	tcase_add_test(tc, save_during_arrival_writes_the_shown_window);
	tcase_add_test(tc, eviction_while_saving_is_safe);
	tcase_add_test(tc, quit_mid_save_finishes_and_reports);
	suite_add_tcase(s, tc);
	return s;
}
