/* The tokio adapter against the console-api simulator (tests/tokio_sim.h)
 * on a free loopback port: windows compared with each scenario's ground
 * truth, a stream that ends or turns to junk mid-window, a stall, an older
 * subscriber, the errors, the receive limit, stopping, and the launch
 * hook.  Synchronised on the worker's messages, never on sleeps. */
#include <arpa/inet.h>
#include <check.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "adapters/tokio.h"
#include "adapters/worker.h"
#include "tests/adapter_util.h"
#include "tests/tokio_sim.h"
#include "tests/util.h"

#define SEC  ((uint64_t)1000000000u)
#define MSEC ((uint64_t)1000000u)

struct live {
	struct sim_scenario sc;
	struct sim *sim;
	struct adapter *a;
	struct worker *w;
	char ep[64];
};

static void sim_up(struct live *l, const char *text)
{
	char err[256];
	int port = 0;

	memset(l, 0, sizeof(*l));
	ck_assert_msg(sim_parse(text, &l->sc, err, sizeof(err)), "%s", err);
	l->sim = sim_start(&l->sc, "127.0.0.1:0", &port, err, sizeof(err));
	ck_assert_msg(l->sim != NULL, "%s", err);
	snprintf(l->ep, sizeof(l->ep), "127.0.0.1:%d", port);
}

static void live_start(struct live *l, const char *text, uint64_t window,
                       uint64_t max)
{
	const char *eps[] = { l->ep };
	struct adapter_error err;
	struct worker_opts wo = {
		.window_ns = window,
		.refresh_ns = SEC,
		.max_windows = max,
	};

	sim_up(l, text);
	ck_assert_msg(adapter_open(&tokio_ops, eps, 1, NULL, &err, &l->a) ==
	                  STATUS_OK,
	              "%s", err.detail);
	ck_assert_int_eq(worker_start(l->a, &wo, &l->w), STATUS_OK);
}

static void live_end(struct live *l)
{
	worker_free(l->w);
	adapter_close(l->a);
	sim_stop(l->sim);
}

/* The next WINDOW or ERROR message (others skipped), within 60 s. */
static struct worker_msg *next_msg(struct worker *w)
{
	for (;;) {
		struct worker_msg *m = au_wait_msg(w, 60);

		if (m->kind == WORKER_WINDOW || m->kind == WORKER_ERROR ||
		    m->kind == WORKER_DONE)
			return m;
		worker_msg_free(m);
	}
}

static struct worker_msg *next_window(struct worker *w)
{
	struct worker_msg *m = next_msg(w);

	ck_assert_msg(m->kind == WORKER_WINDOW, "window %llu: %s: %s",
	              (unsigned long long)m->index, status_name(m->err.st),
	              m->err.detail);
	return m;
}

/* Figures of the samples named name, summed. */
struct sum {
	const char *name;
	struct metrics m;
	size_t n;
	char stack[256];
};

static enum status add_named(void *ctx, const struct sample *s)
{
	struct sum *x = ctx;
	size_t used = 0, i;

	if (!sv_eq(s->task, sv_c(x->name)))
		return STATUS_OK;
	metrics_add(&x->m, &s->m);
	x->n++;
	x->stack[0] = '\0';
	for (i = 0; i < s->depth; i++)
		used += (size_t)snprintf(
		    x->stack + used, sizeof(x->stack) - used, "%s%.*s",
		    i ? ";" : "", (int)s->frames[i].len, s->frames[i].ptr);
	return STATUS_OK;
}

static size_t count_samples(const struct worker_msg *m)
{
	return m->nsamples;
}

/* Every family's samples against the truth over the window's bounds:
 * counts exact, times within 1 % (or 1 µs). */
static void check_truth(const struct live *l, const struct worker_msg *m)
{
	uint64_t a = (uint64_t)(m->meta.time_nanos - SIM_EPOCH);
	uint64_t b = a + (uint64_t)m->meta.duration_nanos;
	size_t f, i;
	int k;

	for (f = 0; f < l->sc.nfam; f++) {
		const struct sim_family *fam = &l->sc.fam[f];
		struct sum x = { .name = fam->name };
		struct sample_sink sink = { .sample = add_named, .ctx = &x };
		struct metrics want = { { 0 } };

		for (i = 0; i < fam->count; i++) {
			struct metrics t;

			sim_truth(fam, i, a, b, &t);
			metrics_add(&want, &t);
		}
		ck_assert_int_eq(worker_msg_feed(m, &sink), STATUS_OK);
		for (k = 0; k < METRIC_COUNT; k++) {
			double d = (double)x.m.v[k] - (double)want.v[k];
			double tol = metric_is_duration(k)
			                 ? 0.01 * (double)want.v[k] + 1000
			                 : 0;

			ck_assert_msg(
			    d <= tol && -d <= tol,
			    "window %llu [%llu, %llu] %s %s: %llu, expected %llu",
			    (unsigned long long)m->index, (unsigned long long)a,
			    (unsigned long long)b, fam->name, metric_name(k),
			    (unsigned long long)x.m.v[k],
			    (unsigned long long)want.v[k]);
		}
	}
}

static const char basic[] =
    "interval 50ms\n"
    "family accept 1 busy=5ms idle=80ms sched=15ms loc=src/server.rs:42:9 named\n"
    "family worker 4 busy=30ms idle=20ms sched=10ms stagger=7ms named "
    "loc=/root/.cargo/registry/src/index.crates.io-6f17d22bba15001f/hyper-1.4.1/src/h1.rs:120:5\n"
    "family flush 3 busy=120ms idle=0ms sched=0ms kind=blocking polls=1 "
    "spawn=260ms stagger=170ms named\n"
    "family reap 2 busy=10ms idle=40ms sched=5ms polls=4 spawn=100ms "
    "stagger=330ms named\n";

START_TEST(tokio_live_windows_match_truth)
{
	struct live l = { .sim = NULL };
	struct sum x = { .name = "worker" };
	struct sample_sink sink = { .sample = add_named, .ctx = &x };
	int i;

	live_start(&l, basic, SEC / 2, 4);
	for (i = 0; i < 4; i++) {
		struct worker_msg *m = next_window(l.w);

		ck_assert(!m->meta.partial);
		ck_assert_uint_eq(m->meta.ncomments, 0);
		ck_assert_int_gt(m->meta.duration_nanos, 0);
		check_truth(&l, m);
		if (i == 0) {
			ck_assert_int_eq(worker_msg_feed(m, &sink), STATUS_OK);
			ck_assert_uint_eq(x.n, 4);
			ck_assert_str_eq(
			    x.stack,
			    "task;<cargo>/hyper-1.4.1/src/h1.rs:120:5");
		}
		fprintf(
		    stderr,
		    "tokio live: window %d [%lld ms, +%lld ms], %zu samples: matches the truth\n",
		    i + 1,
		    (long long)(m->meta.time_nanos - SIM_EPOCH) / 1000000,
		    (long long)m->meta.duration_nanos / 1000000,
		    count_samples(m));
		worker_msg_free(m);
	}
	live_end(&l);
}
END_TEST

/* Span ids given again once their task completed: each is its own task. */
START_TEST(tokio_live_span_reuse)
{
	struct live l = { .sim = NULL };
	int i;

	live_start(&l,
	           "interval 50ms\nreuse\n"
	           "family short 6 busy=20ms idle=30ms sched=10ms polls=2 "
	           "stagger=90ms named\n",
	           SEC / 2, 2);
	for (i = 0; i < 2; i++) {
		struct worker_msg *m = next_window(l.w);

		check_truth(&l, m);
		worker_msg_free(m);
	}
	live_end(&l);
}
END_TEST

/* An older subscriber sends no scheduled_time: counts and busy are still
 * exact, and scheduled never exceeds the truth. */
START_TEST(tokio_live_old_subscriber)
{
	struct live l = { .sim = NULL };
	struct worker_msg *m;
	struct sum x = { .name = "w" };
	struct sample_sink sink = { .sample = add_named, .ctx = &x };
	struct metrics want = { { 0 } };
	uint64_t a, b;

	live_start(&l,
	           "interval 50ms\nold\n"
	           "family w 2 busy=20ms idle=30ms sched=10ms named\n",
	           SEC / 2, 1);
	m = next_window(l.w);
	a = (uint64_t)(m->meta.time_nanos - SIM_EPOCH);
	b = a + (uint64_t)m->meta.duration_nanos;
	for (size_t i = 0; i < 2; i++) {
		struct metrics t;

		sim_truth(&l.sc.fam[0], i, a, b, &t);
		metrics_add(&want, &t);
	}
	ck_assert_int_eq(worker_msg_feed(m, &sink), STATUS_OK);
	ck_assert_uint_eq(x.m.v[METRIC_POLLS], want.v[METRIC_POLLS]);
	ck_assert_uint_eq(x.m.v[METRIC_WAKES], want.v[METRIC_WAKES]);
	ck_assert_uint_eq(x.m.v[METRIC_BUSY], want.v[METRIC_BUSY]);
	ck_assert_uint_le(x.m.v[METRIC_SCHED], want.v[METRIC_SCHED]);
	worker_msg_free(m);
	live_end(&l);
}
END_TEST

/* Windows until one is cut short (at most 8), each against the truth; the
 * cut one must give why. */
static void until_partial(struct live *l, const char *why)
{
	int i;

	for (i = 0; i < 8; i++) {
		struct worker_msg *m = next_window(l->w);
		bool cut = m->meta.partial;

		check_truth(l, m);
		if (cut)
			ck_assert_msg(strstr(m->meta.reason, why), "%s",
			              m->meta.reason);
		worker_msg_free(m);
		if (cut)
			return;
	}
	ck_abort_msg("no window was cut short by \"%s\"", why);
}

/* The stream ends inside a window: it is kept, partial, and the adapter
 * reconnects for the next, which again matches the truth. */
START_TEST(tokio_live_stream_dropped_mid_window)
{
	struct live l = { .sim = NULL };
	struct worker_msg *m;

	live_start(&l,
	           "interval 50ms\nend 720ms\n"
	           "family w 3 busy=20ms idle=30ms sched=10ms named\n",
	           SEC / 2, 0);
	until_partial(&l, "stream ended");
	m = next_window(l.w);
	check_truth(&l, m);
	ck_assert_uint_ge(sim_calls(l.sim), 2);
	worker_msg_free(m);
	live_end(&l);
}
END_TEST

/* Bytes that are not an Update cut the window short with that reason. */
START_TEST(tokio_live_junk)
{
	struct live l = { .sim = NULL };
	struct worker_msg *m;

	live_start(&l,
	           "interval 50ms\njunk 300ms\n"
	           "family w 1 busy=20ms idle=30ms sched=10ms named\n",
	           SEC / 2, 0);
	until_partial(&l, "not a console-api Update");
	m = next_window(l.w); /* reconnected */
	check_truth(&l, m);
	worker_msg_free(m);
	live_end(&l);
}
END_TEST

/* No Update for longer than a reply may take: a timeout naming the stall,
 * then windows again once Updates resume. */
START_TEST(tokio_live_stall)
{
	struct live l = { .sim = NULL };
	struct worker_msg *m;

	live_start(&l,
	           "interval 50ms\nstall 400ms 4s\n"
	           "family w 1 busy=20ms idle=30ms sched=10ms named\n",
	           SEC / 4, 0);
	m = next_window(l.w);
	worker_msg_free(m);
	for (;;) {
		m = next_msg(l.w);
		if (m->kind == WORKER_ERROR)
			break;
		check_truth(&l, m);
		worker_msg_free(m);
	}
	ck_assert_int_eq(m->err.st, STATUS_TIMEOUT);
	ck_assert_ptr_nonnull(strstr(m->err.detail, "no Update for"));
	worker_msg_free(m);
	m = next_window(l.w);
	check_truth(&l, m);
	worker_msg_free(m);
	live_end(&l);
}
END_TEST

static void expect_error(const char *text, const char *ep, enum status st,
                         const char *detail, const char *remedy)
{
	struct live l = { .sim = NULL };
	struct worker_msg *m;

	if (text) {
		live_start(&l, text, SEC / 2, 1);
	} else {
		const char *eps[] = { ep };
		struct adapter_error err;
		struct worker_opts wo = { .window_ns = SEC / 2,
			                  .max_windows = 1 };

		memset(&l, 0, sizeof(l));
		ck_assert_int_eq(
		    adapter_open(&tokio_ops, eps, 1, NULL, &err, &l.a),
		    STATUS_OK);
		ck_assert_int_eq(worker_start(l.a, &wo, &l.w), STATUS_OK);
	}
	m = next_msg(l.w);
	ck_assert_int_eq(m->kind, WORKER_ERROR);
	ck_assert_msg(m->err.st == st, "%s: %s", status_name(m->err.st),
	              m->err.detail);
	ck_assert_msg(strstr(m->err.detail, detail), "%s", m->err.detail);
	ck_assert_msg(strstr(m->err.remediation, remedy), "%s",
	              m->err.remediation);
	worker_msg_free(m);
	if (text)
		live_end(&l);
	else {
		worker_free(l.w);
		adapter_close(l.a);
	}
}

/* A loopback port nobody listens on (bound, read, closed). */
static int dead_port(void)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	socklen_t len = sizeof(sa);
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ck_assert_int_eq(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	ck_assert_int_eq(getsockname(fd, (struct sockaddr *)&sa, &len), 0);
	close(fd);
	return ntohs(sa.sin_port);
}

START_TEST(tokio_live_errors)
{
	char ep[64];

	snprintf(ep, sizeof(ep), "http://127.0.0.1:%d", dead_port());
	expect_error(NULL, ep, STATUS_UNREACHABLE, "",
	             "console_subscriber::init()");
	expect_error("unimplemented\n", NULL, STATUS_UNREACHABLE,
	             "not a console-subscriber", "TOKIO_CONSOLE_BIND");
}
END_TEST

/* A first Update over the receive limit: an error naming both sizes. */
START_TEST(tokio_live_over_limit)
{
	setenv("ASYNCTOP_TOKIO_MAX_MESSAGE", "4096", 1);
	expect_error("family big 200 busy=1ms idle=9ms named "
	             "loc=src/some/long/path/to/a/module.rs:1:1\n",
	             NULL, STATUS_TOO_LARGE, "limit of 4096 bytes",
	             "ASYNCTOP_TOKIO_MAX_MESSAGE");
	unsetenv("ASYNCTOP_TOKIO_MAX_MESSAGE");
}
END_TEST

static uint64_t mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * SEC + (uint64_t)ts.tv_nsec;
}

/* A stop inside a long window returns promptly with a partial window. */
START_TEST(tokio_live_stop)
{
	struct live l = { .sim = NULL };
	struct worker_msg *m;
	uint64_t t0, took;

	live_start(&l, "family w 1 busy=20ms idle=30ms sched=10ms named\n",
	           30 * SEC, 0);
	for (;;) { /* connected: the first Update is in */
		m = au_wait_msg(l.w, 60);
		if (m->kind == WORKER_STATE && m->state == SOURCE_CONNECTED) {
			worker_msg_free(m);
			break;
		}
		worker_msg_free(m);
	}
	t0 = mono();
	worker_stop(l.w);
	m = next_msg(l.w);
	took = mono() - t0;
	ck_assert_int_eq(m->kind, WORKER_WINDOW);
	ck_assert(m->meta.partial);
	fprintf(stderr, "tokio live: a stop returned in %.1f ms\n",
	        (double)took / 1e6);
	ck_assert_uint_lt(took, 2 * SEC); /* generous: the target is 100 ms */
	worker_msg_free(m);
	live_end(&l);
}
END_TEST

/* 100,000 tasks: a first Update well over 8 MiB, every task in the
 * window. */
START_TEST(tokio_live_100k_tasks)
{
	struct live l = { .sim = NULL };
	struct worker_msg *m;

	live_start(
	    &l,
	    "interval 500ms\n"
	    "family many 100000 busy=1ms idle=999ms sched=0ms named "
	    "loc=/home/dev/.cargo/registry/src/index.crates.io-6f17d22bba15001f/tokio-1.38.0/src/runtime/task/mod.rs:200:17\n",
	    SEC, 1);
	m = next_window(l.w);
	ck_assert_uint_gt(sim_largest(l.sim), (size_t)8 << 20);
	fprintf(stderr,
	        "tokio live: 100,000 tasks, a first Update of %.1f MB\n",
	        (double)sim_largest(l.sim) / 1e6);
	ck_assert_uint_eq(count_samples(m), 100000);
	check_truth(&l, m);
	worker_msg_free(m);
	live_end(&l);
}
END_TEST

/* A first Update without tasks, then tasks: the window says that idle
 * tasks may be missing (a subscriber drops an initial state over 4 MiB). */
START_TEST(tokio_live_no_initial_state)
{
	struct live l = { .sim = NULL };
	struct worker_msg *m;

	live_start(
	    &l,
	    "interval 50ms\n"
	    "family late 2 busy=5ms idle=20ms sched=5ms spawn=120ms named\n",
	    SEC / 2, 1);
	m = next_window(l.w);
	check_truth(&l, m);
	ck_assert_uint_eq(m->meta.ncomments, 1);
	ck_assert_ptr_nonnull(strstr(m->meta.comments[0], "initial state"));
	worker_msg_free(m);
	live_end(&l);
}
END_TEST

/* A subscriber on a Unix socket, named as tokio-console names it. */
START_TEST(tokio_live_unix_socket)
{
	struct sim_scenario sc;
	struct adapter_error err;
	struct worker_opts wo = { .window_ns = SEC / 2, .max_windows = 1 };
	struct adapter *a;
	struct worker *w;
	struct worker_msg *m;
	struct sim *s;
	char dir[512], bind[600], ep[600], e[256];
	const char *eps[] = { ep };
	int port;

	tu_mkdtemp(dir, sizeof(dir));
	snprintf(bind, sizeof(bind), "unix:%s/console.sock", dir);
	snprintf(ep, sizeof(ep), "file://localhost%s/console.sock", dir);
	ck_assert(
	    sim_parse("interval 50ms\nfamily u 1 busy=5ms idle=5ms named\n",
	              &sc, e, sizeof(e)));
	s = sim_start(&sc, bind, &port, e, sizeof(e));
	ck_assert_msg(s != NULL, "%s", e);
	ck_assert_int_eq(adapter_open(&tokio_ops, eps, 1, NULL, &err, &a),
	                 STATUS_OK);
	ck_assert_int_eq(worker_start(a, &wo, &w), STATUS_OK);
	m = next_window(w);
	ck_assert_uint_eq(count_samples(m), 1);
	worker_msg_free(m);
	worker_free(w);
	adapter_close(a);
	sim_stop(s);
	tu_rmtree(dir);
}
END_TEST

/* The launch hook: a free port in TOKIO_CONSOLE_BIND, not ready until a
 * subscriber listens there, then ready. */
START_TEST(tokio_launch_hook)
{
	struct launch_plan plan;
	struct adapter_error err;
	struct sim_scenario sc;
	struct sim *s;
	const char *bind;
	char e[256];
	int port = 0;

	memset(&plan, 0, sizeof(plan));
	memset(&err, 0, sizeof(err));
	ck_assert_int_eq(tokio_ops.launch_prepare(&tokio_ops, &plan, &err),
	                 STATUS_OK);
	bind = launch_plan_getenv(&plan, "TOKIO_CONSOLE_BIND");
	ck_assert_ptr_nonnull(bind);
	ck_assert_int_eq(strncmp(bind, "127.0.0.1:", 10), 0);
	ck_assert_str_eq(plan.endpoint, bind);
	ck_assert_int_eq(tokio_ops.launch_ready(&tokio_ops, &plan, &err),
	                 STATUS_AGAIN);
	ck_assert_ptr_nonnull(strstr(err.detail, bind));
	ck_assert_ptr_nonnull(strstr(err.remediation, "RUSTFLAGS"));
	ck_assert(
	    sim_parse("family w 1 busy=1ms idle=9ms\n", &sc, e, sizeof(e)));
	s = sim_start(&sc, bind, &port, e, sizeof(e));
	ck_assert_msg(s != NULL, "%s", e);
	ck_assert_int_eq(port, (int)strtol(strchr(bind, ':') + 1, NULL, 10));
	memset(&err, 0, sizeof(err));
	ck_assert_int_eq(tokio_ops.launch_ready(&tokio_ops, &plan, &err),
	                 STATUS_OK);
	ck_assert_str_eq(plan.endpoint, bind);
	sim_stop(s);
	launch_plan_fini(&plan);
}
END_TEST

/* The demo's scenario: each weighting has a different family in the lead,
 * the one the scenario says. */
START_TEST(tokio_live_demo_leaders)
{
	static const char *const lead[METRIC_COUNT] = {
		[METRIC_IDLE] = "session", [METRIC_BUSY] = "compress",
		[METRIC_SCHED] = "fanout", [METRIC_POLLS] = "ticker",
		[METRIC_WAKES] = "watch",
	};
	const char *data = getenv("ASYNCTOP_TESTDATA");
	char path[4096], text[16384];
	struct sum x[SIM_MAX_FAMILIES];
	struct worker_msg *m;
	struct live l = { .sim = NULL };
	size_t f, n;
	FILE *in;
	int k;

	if (!data) {
		tu_skip("tokio_live_demo_leaders",
		        "ASYNCTOP_TESTDATA is not set");
		return;
	}
	snprintf(path, sizeof(path), "%s/tokio/demo.scn", data);
	in = fopen(path, "r");
	ck_assert_ptr_nonnull(in);
	n = fread(text, 1, sizeof(text) - 1, in);
	fclose(in);
	text[n] = '\0';
	live_start(&l, text, SEC, 2);
	worker_msg_free(next_window(l.w)); /* the first: spawns ramp up */
	m = next_window(l.w);
	for (f = 0; f < l.sc.nfam; f++) {
		struct sample_sink sink = { .sample = add_named, .ctx = &x[f] };

		memset(&x[f], 0, sizeof(x[f]));
		x[f].name = l.sc.fam[f].name;
		ck_assert_int_eq(worker_msg_feed(m, &sink), STATUS_OK);
	}
	for (k = 0; k < METRIC_COUNT; k++) {
		size_t best = 0;

		for (f = 1; f < l.sc.nfam; f++)
			if (x[f].m.v[k] > x[best].m.v[k])
				best = f;
		ck_assert_msg(strcmp(x[best].name, lead[k]) == 0,
		              "%s is led by %s, not %s", metric_name(k),
		              x[best].name, lead[k]);
	}
	worker_msg_free(m);
	live_end(&l);
}
END_TEST

Suite *suite_tokio_live(void);
Suite *suite_tokio_live(void)
{
	Suite *s = suite_create("tokio_live");
	TCase *tc = tcase_create("sim");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, tokio_live_windows_match_truth);
	tcase_add_test(tc, tokio_live_span_reuse);
	tcase_add_test(tc, tokio_live_old_subscriber);
	tcase_add_test(tc, tokio_live_stream_dropped_mid_window);
	tcase_add_test(tc, tokio_live_junk);
	tcase_add_test(tc, tokio_live_stall);
	tcase_add_test(tc, tokio_live_errors);
	tcase_add_test(tc, tokio_live_over_limit);
	tcase_add_test(tc, tokio_live_stop);
	tcase_add_test(tc, tokio_live_100k_tasks);
	tcase_add_test(tc, tokio_launch_hook);
	tcase_add_test(tc, tokio_live_unix_socket);
	tcase_add_test(tc, tokio_live_no_initial_state);
	tcase_add_test(tc, tokio_live_demo_leaders);
	suite_add_tcase(s, tc);
	return s;
}
