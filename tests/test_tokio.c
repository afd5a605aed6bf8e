/* The tokio adapter's state without a network: Updates built here with
 * protobuf-c, applied, and the windows compared with figures worked out by
 * hand from tokio-console's formulas. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "adapters/tokio/instrument.pb-c.h"
#include "adapters/tokio_int.h"
#include "tests/tokio_sim_build.h"
#include "tests/util.h"

#define S ((int64_t)1000000000)

struct got {
	char name[64], frames[2][128];
	size_t depth;
	struct metrics m;
	struct extras x;
};

struct sink_ctx {
	struct got g[16];
	size_t n;
};

static enum status keep(void *ctx, const struct sample *s)
{
	struct sink_ctx *c = ctx;
	struct got *g = &c->g[c->n++];

	ck_assert_uint_le(c->n, 16);
	memset(g, 0, sizeof(*g));
	snprintf(g->name, sizeof(g->name), "%.*s", (int)s->task.len,
	         s->task.ptr ? s->task.ptr : "");
	g->depth = s->depth;
	for (size_t i = 0; i < s->depth && i < 2; i++)
		snprintf(g->frames[i], sizeof(g->frames[i]), "%.*s",
		         (int)s->frames[i].len, s->frames[i].ptr);
	g->m = s->m;
	g->x = s->x;
	return STATUS_OK;
}

static const struct got *emit(struct tokio_state *st, struct sink_ctx *c,
                              const char *name)
{
	struct sample_sink sink = { .sample = keep, .ctx = c };

	c->n = 0;
	ck_assert_int_eq(tokio_state_emit(st, &sink), STATUS_OK);
	/* cppcheck-suppress unsignedLessThanZero ; keep() counts c->n */
	for (size_t i = 0; i < c->n; i++)
		if (strcmp(c->g[i].name, name) == 0)
			return &c->g[i];
	return NULL;
}

static void apply(struct tokio_state *st, int64_t now, const struct tb_task *t,
                  size_t nt, const struct tb_stats *s, size_t ns,
                  uint64_t dropped)
{
	char err[256] = "";
	size_t len;
	uint8_t *b = tb_update(now, t, nt, s, ns, dropped, &len);

	ck_assert_ptr_nonnull(b);
	ck_assert_msg(tokio_state_apply(st, b, len, err, sizeof(err)) ==
	                  STATUS_OK,
	              "%s", err);
	free(b);
}

static const struct tb_task task_a = {
	.span = 7,
	.kind = "task",
	.name = "",
	.task_id = 3,
	.file = "/home/u/.cargo/registry/src/index.crates.io-6f17d22bba15001f/"
	        "hyper-1.0.0/src/server.rs",
	.line = 10,
	.col = 5,
};

static struct tb_stats stats_a1(void)
{
	struct tb_stats s = tb_stats_none(7, 90 * S);

	s.polls = 2;
	s.busy = 1 * S;
	s.sched = S / 2;
	s.started = 95 * S;
	s.ended = 96 * S;
	s.last_wake = 94 * S;
	s.wakes = 2;
	s.self_wakes = 1;
	s.clones = 3;
	s.drops = 1;
	return s;
}

/* Two Updates 10 s apart: a task polled, woken and caught mid-poll, and a
 * blocking task spawned and dropped inside the window. */
START_TEST(tokio_window_formulas)
{
	struct tokio_state st;
	struct sink_ctx c;
	struct tb_stats a = stats_a1(), b;
	struct tb_task tb = { .span = 8, .kind = "blocking", .name = "worker" };
	const struct got *g;

	tokio_state_init(&st);
	apply(&st, 100 * S, &task_a, 1, &a, 1, 0);
	/* at the first Update: 10 s of life, 1 s busy, 0.5 s scheduled */
	g = emit(&st, &c, "task 3");
	ck_assert_ptr_nonnull(g);
	ck_assert_uint_eq(g->m.v[METRIC_BUSY], 1 * S);
	ck_assert_uint_eq(g->m.v[METRIC_SCHED], S / 2);
	ck_assert_uint_eq(g->m.v[METRIC_IDLE], 8 * S + S / 2);
	tokio_state_roll(&st);

	a.polls = 5;
	a.busy = 3 * S;
	a.sched = 1 * S;
	a.last_wake = 108 * S + S / 2;
	a.started = 109 * S; /* after the last end: a poll in progress */
	a.ended = 108 * S;
	a.wakes = 4;
	a.self_wakes = 3;
	a.clones = 5;
	a.drops = 2;
	b = tb_stats_none(8, 105 * S);
	b.dropped = 107 * S;
	b.polls = 1;
	b.busy = 2 * S;
	b.started = 105 * S;
	b.ended = 107 * S;
	apply(&st, 110 * S, &tb, 1, (struct tb_stats[]){ a, b }, 2, 3);
	ck_assert_uint_eq(st.dropped, 3);

	g = emit(&st, &c, "task 3");
	ck_assert_uint_eq(c.n, 2);
	ck_assert_ptr_nonnull(g);
	/* at 110: busy 3 + 1 in progress = 4, sched 1, life 20: idle 15;
	 * minus the baseline (1, 0.5, 8.5) */
	ck_assert_uint_eq(g->m.v[METRIC_BUSY], 3 * S);
	ck_assert_uint_eq(g->m.v[METRIC_SCHED], S / 2);
	ck_assert_uint_eq(g->m.v[METRIC_IDLE], 6 * S + S / 2);
	ck_assert_uint_eq(g->m.v[METRIC_BUSY] + g->m.v[METRIC_SCHED] +
	                      g->m.v[METRIC_IDLE],
	                  10 * S);
	ck_assert_uint_eq(g->m.v[METRIC_POLLS], 3);
	ck_assert_uint_eq(g->m.v[METRIC_WAKES], 2);
	ck_assert_uint_eq(g->x.v[EXTRA_SELF_WAKES], 2);
	ck_assert_uint_eq(g->x.v[EXTRA_WAKERS], 3);
	ck_assert_uint_eq(g->x.v[EXTRA_POLL_NOW], 1 * S);
	ck_assert(g->x.known & (1u << EXTRA_POLL_NOW));
	ck_assert_uint_eq(g->depth, 2);
	ck_assert_str_eq(g->frames[0], "task");
	ck_assert_str_eq(g->frames[1],
	                 "<cargo>/hyper-1.0.0/src/server.rs:10:5");

	g = emit(&st, &c, "worker");
	ck_assert_ptr_nonnull(g);
	/* lived 105..107, all of it busy */
	ck_assert_uint_eq(g->m.v[METRIC_BUSY], 2 * S);
	ck_assert_uint_eq(g->m.v[METRIC_IDLE], 0);
	ck_assert_uint_eq(g->m.v[METRIC_POLLS], 1);
	ck_assert_str_eq(g->frames[0], "blocking");
	ck_assert_str_eq(g->frames[1], "[spawn site unknown]");

	/* the dropped task is forgotten once its window is over */
	tokio_state_roll(&st);
	ck_assert_uint_eq(st.ntasks, 1);
	ck_assert_uint_eq(st.dropped, 0);
	tokio_state_fini(&st);
}
END_TEST

/* tokio-console's lost-waker lint as the no-waker figure: only the task
 * polled before, idle now (neither running nor woken since its last poll),
 * not done and holding no waker; a blocking task, one never polled, one
 * running, one woken, one holding a waker and one dropped are not. */
START_TEST(tokio_lost_waker)
{
	static const char *const names[] = { "lost",   "held",  "blocking",
		                             "woken",  "never", "running",
		                             "dropped" };
	static const int lost[] = { 1, 0, 0, 0, 0, 0, 0 };
	struct tb_task t[7];
	struct tb_stats st[7];
	struct tokio_state ts;
	struct sink_ctx c;

	for (size_t i = 0; i < 7; i++) {
		t[i] = (struct tb_task){ .span = 20 + i,
			                 .kind = i == 2 ? "blocking" : "task",
			                 .name = names[i] };
		st[i] = stats_a1();
		st[i].span = 20 + i;
		st[i].drops = st[i].clones; /* no waker held */
	}
	st[1].drops = 1;
	st[3].last_wake = 97 * S; /* after its last poll started */
	st[4] = tb_stats_none(24, 90 * S);
	st[5].started = 97 * S; /* after the last poll ended */
	st[6].dropped = 98 * S;
	tokio_state_init(&ts);
	apply(&ts, 100 * S, t, 7, st, 7, 0);
	for (size_t i = 0; i < 7; i++) {
		const struct got *g = emit(&ts, &c, names[i]);

		ck_assert_msg(g != NULL, "%s", names[i]);
		ck_assert(g->x.known & (1u << EXTRA_NO_WAKER));
		ck_assert_msg(g->x.v[EXTRA_NO_WAKER] == (uint64_t)lost[i],
		              "%s: no_waker %llu", names[i],
		              (unsigned long long)g->x.v[EXTRA_NO_WAKER]);
	}
	tokio_state_fini(&ts);
}
END_TEST

/* An idle task sends nothing yet counts the whole window as idle. */
START_TEST(tokio_idle_task_counts_without_updates)
{
	struct tokio_state st;
	struct sink_ctx c;
	struct tb_stats a = stats_a1();
	const struct got *g;

	tokio_state_init(&st);
	apply(&st, 100 * S, &task_a, 1, &a, 1, 0);
	tokio_state_roll(&st);
	apply(&st, 105 * S, NULL, 0, NULL, 0, 0); /* a heartbeat */
	g = emit(&st, &c, "task 3");
	ck_assert_ptr_nonnull(g);
	ck_assert_uint_eq(g->m.v[METRIC_IDLE], 5 * S);
	ck_assert_uint_eq(g->m.v[METRIC_BUSY], 0);
	ck_assert_uint_eq(g->m.v[METRIC_POLLS], 0);
	tokio_state_fini(&st);
}
END_TEST

/* A span id announced again is a new task; the old one ends there. */
START_TEST(tokio_span_reuse)
{
	struct tokio_state st;
	struct sink_ctx c;
	struct tb_stats a = stats_a1(), a2 = tb_stats_none(7, 112 * S);
	struct tb_task t2 = { .span = 7, .kind = "task", .name = "again" };
	const struct got *g;

	a.ended = 97 * S; /* idle since 97 */
	tokio_state_init(&st);
	apply(&st, 100 * S, &task_a, 1, &a, 1, 0);
	tokio_state_roll(&st);
	apply(&st, 120 * S, &t2, 1, &a2, 1, 0);
	g = emit(&st, &c, "task 3");
	ck_assert_uint_eq(c.n, 2);
	ck_assert_ptr_nonnull(g);
	ck_assert_uint_eq(g->m.v[METRIC_IDLE], 20 * S);
	g = emit(&st, &c, "again");
	ck_assert_ptr_nonnull(g);
	ck_assert_uint_eq(g->m.v[METRIC_IDLE], 8 * S);
	tokio_state_roll(&st);
	ck_assert_uint_eq(st.ntasks, 1);
	tokio_state_fini(&st);
}
END_TEST

/* Stats before their task are parked until it arrives; an older
 * subscriber's missing scheduled_time reads as 0 but a pending wake still
 * counts. */
START_TEST(tokio_stats_before_task_and_old_subscriber)
{
	struct tokio_state st;
	struct sink_ctx c;
	struct tb_stats s = tb_stats_none(9, 100 * S);
	struct tb_task t = { .span = 9,
		             .name = "late",
		             .spawn_location = "src/main.rs:4:9" };
	const struct got *g;

	s.no_sched = true;
	s.last_wake = 103 * S;
	s.wakes = 1;
	tokio_state_init(&st);
	apply(&st, 100 * S, NULL, 0, NULL, 0, 0);
	tokio_state_roll(&st);
	apply(&st, 102 * S, NULL, 0, &s, 1, 0);
	ck_assert_uint_eq(st.npending, 1);
	g = emit(&st, &c, "late");
	ck_assert_ptr_null(g);
	apply(&st, 104 * S, &t, 1, NULL, 0, 0);
	ck_assert_uint_eq(st.npending, 0);
	g = emit(&st, &c, "late");
	ck_assert_ptr_nonnull(g);
	ck_assert_uint_eq(g->m.v[METRIC_SCHED], 1 * S);
	ck_assert_uint_eq(g->m.v[METRIC_IDLE], 3 * S);
	ck_assert_uint_eq(g->depth, 1);
	ck_assert_str_eq(g->frames[0], "src/main.rs:4:9");
	tokio_state_fini(&st);
}
END_TEST

/* Bytes that are not an Update, and an Update without now, are refused
 * with a reason and change nothing. */
START_TEST(tokio_rejects_non_updates)
{
	static const uint8_t junk[] = { 0xff, 0xff, 0xff, 0xff, 0x0f };
	struct tokio_state st;
	char err[256] = "";
	size_t len;
	uint8_t *b = tb_update(TB_NONE, &task_a, 1, NULL, 0, 0, &len);

	tokio_state_init(&st);
	ck_assert_int_eq(
	    tokio_state_apply(&st, junk, sizeof(junk), err, sizeof(err)),
	    STATUS_MALFORMED);
	ck_assert_ptr_nonnull(strstr(err, "not a console-api Update"));
	ck_assert_int_eq(tokio_state_apply(&st, b, len, err, sizeof(err)),
	                 STATUS_MALFORMED);
	ck_assert_ptr_nonnull(strstr(err, "without its `now`"));
	ck_assert_uint_eq(st.ntasks, 0);
	ck_assert(!st.have_now);
	free(b);
	tokio_state_fini(&st);
}
END_TEST

/* Out-of-range nanos are clamped and counted, never negative figures. */
START_TEST(tokio_hostile_times)
{
	struct tokio_state st;
	struct sink_ctx c;
	struct tb_stats s = tb_stats_none(7, 200 * S); /* after now */
	const struct got *g;

	s.busy = 50 * S;
	tokio_state_init(&st);
	apply(&st, 100 * S, &task_a, 1, &s, 1, 0);
	g = emit(&st, &c, "task 3");
	ck_assert_ptr_nonnull(g);
	ck_assert_uint_eq(g->m.v[METRIC_IDLE], 0);
	ck_assert_uint_eq(g->m.v[METRIC_BUSY], 50 * S);
	/* no created_at: new at that Update, not 56 years idle */
	s.created = TB_NONE;
	s.busy = 0;
	apply(&st, 110 * S, NULL, 0, &s, 1, 0);
	g = emit(&st, &c, "task 3");
	ck_assert_ptr_nonnull(g);
	ck_assert_uint_eq(g->m.v[METRIC_IDLE], 0);
	ck_assert_uint_gt(st.malformed, 0);
	tokio_state_fini(&st);
}
END_TEST

/* Field names given by index into their metadata's field_names; an index
 * out of range is skipped and counted. */
START_TEST(tokio_name_idx)
{
	char k1[] = "kind", k2[] = "task.name";
	char *names[] = { k1, k2 };
	char v0[] = "local", v1[] = "by-index", v2[] = "out of range";
	Rs__Tokio__Console__Instrument__Update u;
	Rs__Tokio__Console__Tasks__TaskUpdate tu;
	Rs__Tokio__Console__Tasks__Task t, *tp = &t;
	Rs__Tokio__Console__Common__Id id;
	Rs__Tokio__Console__Common__MetaId mid;
	Rs__Tokio__Console__Common__Field f[3],
	    *fp[3] = { &f[0], &f[1], &f[2] };
	Rs__Tokio__Console__Common__Metadata md;
	Rs__Tokio__Console__Common__RegisterMetadata rm;
	Rs__Tokio__Console__Common__RegisterMetadata__NewMetadata nm,
	    *nmp = &nm;
	Google__Protobuf__Timestamp now;
	struct tb_stats s = tb_stats_none(5, 99 * S);
	struct tokio_state st;
	struct sink_ctx c;
	char err[128];
	uint8_t buf[1024];
	size_t len, i;
	const struct got *g;

	rs__tokio__console__common__meta_id__init(&mid);
	mid.id = 77;
	rs__tokio__console__common__metadata__init(&md);
	md.n_field_names = 2;
	md.field_names = names;
	rs__tokio__console__common__register_metadata__new_metadata__init(&nm);
	nm.id = &mid;
	nm.metadata = &md;
	rs__tokio__console__common__register_metadata__init(&rm);
	rm.n_metadata = 1;
	rm.metadata = &nmp;
	for (i = 0; i < 3; i++) {
		rs__tokio__console__common__field__init(&f[i]);
		f[i].name_case =
		    RS__TOKIO__CONSOLE__COMMON__FIELD__NAME_NAME_IDX;
		f[i].name_idx = i;
		f[i].value_case =
		    RS__TOKIO__CONSOLE__COMMON__FIELD__VALUE_DEBUG_VAL;
		f[i].debug_val = i == 0 ? v0 : i == 1 ? v1 : v2;
	}
	rs__tokio__console__common__id__init(&id);
	id.id = 5;
	rs__tokio__console__tasks__task__init(&t);
	t.id = &id;
	t.metadata = &mid;
	t.n_fields = 3;
	t.fields = fp;
	rs__tokio__console__tasks__task_update__init(&tu);
	tu.n_new_tasks = 1;
	tu.new_tasks = &tp;
	google__protobuf__timestamp__init(&now);
	now.seconds = 100;
	rs__tokio__console__instrument__update__init(&u);
	u.now = &now;
	u.task_update = &tu;
	u.new_metadata = &rm;
	len = rs__tokio__console__instrument__update__get_packed_size(&u);
	ck_assert_uint_le(len, sizeof(buf));
	rs__tokio__console__instrument__update__pack(&u, buf);

	tokio_state_init(&st);
	ck_assert_int_eq(tokio_state_apply(&st, buf, len, err, sizeof(err)),
	                 STATUS_OK);
	ck_assert_uint_eq(st.malformed, 1); /* index 2 of 2 names */
	apply(&st, 100 * S, NULL, 0, &s, 1, 0);
	g = emit(&st, &c, "by-index");
	ck_assert_ptr_nonnull(g);
	ck_assert_str_eq(g->frames[0], "local");
	tokio_state_fini(&st);
}
END_TEST

/* Stats parked for tasks that never come are bounded: the oldest go, and
 * are counted as dropped. */
START_TEST(tokio_parked_stats_bounded)
{
	struct tokio_state st;
	struct tb_stats *s = calloc(TOKIO_MAX_PENDING + 3, sizeof(*s));
	size_t i;

	ck_assert_ptr_nonnull(s);
	for (i = 0; i < TOKIO_MAX_PENDING + 3; i++)
		s[i] = tb_stats_none(1000 + i, 90 * S);
	tokio_state_init(&st);
	apply(&st, 100 * S, NULL, 0, s, TOKIO_MAX_PENDING + 3, 0);
	ck_assert_uint_eq(st.npending, TOKIO_MAX_PENDING);
	ck_assert_uint_eq(st.dropped, 3);
	tokio_state_fini(&st);
	free(s);
}
END_TEST

struct torture {
	uint8_t *b[2];
	size_t n[2];
};

static enum status count_sample(void *ctx, const struct sample *s)
{
	(void)s;
	(*(size_t *)ctx)++;
	return STATUS_OK;
}

/* Two Updates applied, a roll and an emit: either done, or out of memory
 * with everything freed. */
static enum status torture_run(void *ctx)
{
	struct torture *t = ctx;
	struct tokio_state st;
	size_t n = 0;
	struct sample_sink sink = { .sample = count_sample, .ctx = &n };
	char err[128];
	enum status r;

	tokio_state_init(&st);
	r = tokio_state_apply(&st, t->b[0], t->n[0], err, sizeof(err));
	if (r == STATUS_OK) {
		tokio_state_roll(&st);
		r = tokio_state_apply(&st, t->b[1], t->n[1], err, sizeof(err));
	}
	if (r == STATUS_OK)
		r = tokio_state_emit(&st, &sink);
	tokio_state_fini(&st);
	return r;
}

START_TEST(tokio_nomem_torture)
{
	struct tb_task t2 = { .span = 8, .kind = "local", .name = "two" };
	struct tb_stats a = stats_a1(), b = tb_stats_none(8, 101 * S),
	                late = tb_stats_none(99, 100 * S);
	struct torture t;

	t.b[0] = tb_update(100 * S, &task_a, 1, &a, 1, 0, &t.n[0]);
	t.b[1] = tb_update(102 * S, &t2, 1, (struct tb_stats[]){ b, late }, 2,
	                   1, &t.n[1]);
	ck_assert_ptr_nonnull(t.b[0]);
	ck_assert_ptr_nonnull(t.b[1]);
	ck_assert_uint_gt(tu_torture(torture_run, &t), 5);
	free(t.b[0]);
	free(t.b[1]);
}
END_TEST

START_TEST(tokio_location_shortening)
{
	char b[256];
	size_t n;

	n = tokio_location(b, sizeof(b),
	                   sv_c("/root/.cargo/registry/src/github.com-1ecc/"
	                        "tokio-1.38.0/src/runtime/blocking/pool.rs"),
	                   true, 12, true, 3);
	ck_assert_str_eq(
	    b, "<cargo>/tokio-1.38.0/src/runtime/blocking/pool.rs:12:3");
	ck_assert_uint_eq(n, strlen(b));
	tokio_location(b, sizeof(b),
	               sv_c("/h/.cargo/git/checkouts/x-1/ab/src/lib.rs"), true,
	               7, false, 0);
	ck_assert_str_eq(b, "<cargo>/x-1/ab/src/lib.rs:7");
	tokio_location(b, sizeof(b), sv_c("src/main.rs"), false, 0, false, 0);
	ck_assert_str_eq(b, "src/main.rs");
	tokio_location(b, 8, sv_c("src/main.rs"), true, 1, true, 2);
	ck_assert_str_eq(b, "src/mai");
}
END_TEST

START_TEST(tokio_endpoints)
{
	static const struct {
		const char *in, *out;
	} good[] = {
		{ "127.0.0.1:6669", "127.0.0.1:6669" },
		{ "http://127.0.0.1:6669", "127.0.0.1:6669" },
		{ "http://localhost:7000/", "localhost:7000" },
		{ "[::1]:6669", "[::1]:6669" },
		{ "unix:/run/app/console.sock", "unix:/run/app/console.sock" },
		{ "file://localhost/run/app.sock", "unix:/run/app.sock" },
		{ "file:///run/app.sock", "unix:/run/app.sock" },
	};
	static const struct {
		const char *in, *why;
	} bad[] = {
		{ "https://127.0.0.1:6669", "plaintext" },
		{ "127.0.0.1", "no port" },
		{ "http://host:99999", "not a port" },
		{ "host:6669x", "not a port" },
		{ "host:", "not a port" },
		{ "unix:", "without a socket path" },
		{ "file://elsewhere/x", "file://localhost/PATH" },
		{ "a\x1b[31m:1", "control character" },
		{ "", "endpoint of 0 bytes" },
	};
	char t[256], err[256];
	size_t i;

	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		ck_assert_int_eq(
		    tokio_endpoint(good[i].in, t, sizeof(t), err, sizeof(err)),
		    STATUS_OK);
		ck_assert_str_eq(t, good[i].out);
	}
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ck_assert_int_eq(
		    tokio_endpoint(bad[i].in, t, sizeof(t), err, sizeof(err)),
		    STATUS_INVAL);
		ck_assert_msg(strstr(err, bad[i].why), "%s: %s", bad[i].in,
		              err);
	}
}
END_TEST

Suite *suite_tokio(void);
Suite *suite_tokio(void)
{
	Suite *s = suite_create("tokio");
	TCase *tc = tcase_create("state");

	tcase_add_test(tc, tokio_window_formulas);
	tcase_add_test(tc, tokio_lost_waker);
	tcase_add_test(tc, tokio_idle_task_counts_without_updates);
	tcase_add_test(tc, tokio_span_reuse);
	tcase_add_test(tc, tokio_stats_before_task_and_old_subscriber);
	tcase_add_test(tc, tokio_rejects_non_updates);
	tcase_add_test(tc, tokio_hostile_times);
	tcase_add_test(tc, tokio_location_shortening);
	tcase_add_test(tc, tokio_endpoints);
	tcase_add_test(tc, tokio_name_idx);
	tcase_add_test(tc, tokio_parked_stats_bounded);
	tcase_add_test(tc, tokio_nomem_torture);
	suite_add_tcase(s, tc);
	return s;
}
