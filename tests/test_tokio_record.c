/* `asynctop record -a tokio` as a process against the simulator in this
 * process: a saved profile that `go tool pprof` reads with idle as the
 * default, the alias, and the three errors every source has (unreachable,
 * unknown adapter, no data), worded for tokio; and `-a tokio -- COMMAND`
 * starting the simulator as a program on a port asynctop chose. */
#include <arpa/inet.h>
#include <check.h>
#include <stdlib.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "tests/record_util.h"
#include "tests/tokio_sim.h"

struct up {
	struct sim *sim;
	char ep[64];
};

static void up(struct up *u, const char *text)
{
	struct sim_scenario sc;
	char err[256];
	int port = 0;

	ck_assert_msg(sim_parse(text, &sc, err, sizeof(err)), "%s", err);
	u->sim = sim_start(&sc, "127.0.0.1:0", &port, err, sizeof(err));
	ck_assert_msg(u->sim != NULL, "%s", err);
	snprintf(u->ep, sizeof(u->ep), "127.0.0.1:%d", port);
}

static const char lively[] =
    "interval 50ms\n"
    "family accept 2 busy=2ms idle=40ms sched=8ms loc=src/main.rs:10:5 "
    "named\n"
    "family crunch 1 busy=45ms idle=5ms sched=0ms kind=blocking "
    "loc=src/work.rs:3:9 named\n";

static bool go_on_path(void)
{
	return access("/usr/bin/go", X_OK) == 0 ||
	       access("/usr/local/go/bin/go", X_OK) == 0;
}

START_TEST(tokio_record_pprof)
{
	struct rt_run r;
	struct up u;
	char path[700];

	if (!rt_bin()) {
		tu_skip("tokio_record_pprof", "ASYNCTOP_BIN is not set");
		return;
	}
	up(&u, lively);
	rt_init(&r);
	{
		const char *argv[] = {
			"asynctop", "record",    "-a", "kernal-api-async",
			"-e",       u.ep,        "-w", "0.5",
			"-o",       "out.pb.gz", NULL
		};
		rt_run_bin(&r, argv);
	}
	ck_assert_msg(r.p.code == 0, "rc %d: %s", r.p.code, buf_cstr(&r.p.err));
	ck_assert(rt_exists(&r, "out.pb.gz"));
	rt_path(path, sizeof(path), &r, "out.pb.gz");
	if (go_on_path()) {
		struct tu_run g;
		const char *argv[] = { "go",    "tool",
			               "pprof", "-symbolize=none",
			               "-raw",  path,
			               NULL };

		tu_run_init(&g);
		tu_run(&g, NULL, argv);
		ck_assert_msg(g.code == 0, "go tool pprof: %s",
		              buf_cstr(&g.err));
		ck_assert_ptr_nonnull(
		    strstr(buf_cstr(&g.out), "idle/nanoseconds[dflt]"));
		ck_assert_ptr_nonnull(
		    strstr(buf_cstr(&g.out), "src/main.rs:10:5"));
		ck_assert_ptr_nonnull(strstr(buf_cstr(&g.out), "blocking"));
		tu_run_fini(&g);
	} else {
		tu_skip("tokio_record_pprof", "go is not installed");
	}
	rt_fini(&r);
	sim_stop(u.sim);
}
END_TEST

static void record_expect(const char *const *argv, int code, const char *want,
                          const char *want2)
{
	struct rt_run r;

	rt_init(&r);
	rt_run_bin(&r, argv);
	ck_assert_msg(r.p.code == code, "rc %d, expected %d: %s", r.p.code,
	              code, buf_cstr(&r.p.err));
	ck_assert_msg(strstr(buf_cstr(&r.p.err), want), "%s",
	              buf_cstr(&r.p.err));
	if (want2)
		ck_assert_msg(strstr(buf_cstr(&r.p.err), want2), "%s",
		              buf_cstr(&r.p.err));
	rt_fini(&r);
}

START_TEST(tokio_record_errors)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	socklen_t len = sizeof(sa);
	char ep[64], want[128];
	struct up u;
	int fd;

	if (!rt_bin()) {
		tu_skip("tokio_record_errors", "ASYNCTOP_BIN is not set");
		return;
	}
	/* unreachable: a port nobody listens on */
	fd = socket(AF_INET, SOCK_STREAM, 0);
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ck_assert_int_eq(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	ck_assert_int_eq(getsockname(fd, (struct sockaddr *)&sa, &len), 0);
	close(fd);
	snprintf(ep, sizeof(ep), "127.0.0.1:%d", ntohs(sa.sin_port));
	snprintf(want, sizeof(want),
	         "the tokio source is not reachable at %s: ", ep);
	{
		const char *argv[] = { "asynctop", "record",  "-a", "tokio",
			               "-e",       ep,        "-w", "0.2",
			               "-o",       "x.pb.gz", NULL };
		record_expect(argv, 3, want, "console_subscriber::init()");
	}
	/* unknown adapter */
	{
		const char *argv[] = { "asynctop", "record", "-a", "tokyo",
			               NULL };
		record_expect(argv, 2,
		              "no async profiling adapter named \"tokyo\"",
		              "tokio (alias kernal-api-async)");
	}
	/* no data: a subscriber with no tasks */
	up(&u, "interval 50ms\n");
	{
		const char *argv[] = { "asynctop", "record",  "-a", "tokio",
			               "-e",       u.ep,      "-w", "0.3",
			               "-o",       "x.pb.gz", NULL };
		record_expect(argv, 4, "the tokio source produced no task data",
		              NULL);
	}
	sim_stop(u.sim);
}
END_TEST

/* The console-api simulator as a program, beside the asynctop binary. */
static bool sim_bin(char *dst, size_t size)
{
	const char *bin = rt_bin();
	const char *slash = bin ? strrchr(bin, '/') : NULL;

	if (!slash)
		return false;
	snprintf(dst, size, "%.*s/tests/tokio-sim", (int)(slash - bin), bin);
	return access(dst, X_OK) == 0;
}

/* `-a tokio -- COMMAND`: asynctop picks the port, the program listens
 * there (TOKIO_CONSOLE_BIND), and its windows are recorded; when the
 * program ends, record says how and exits 0 with what it had. */
START_TEST(tokio_record_launch)
{
	char sim[600], scn[600];
	const char *data = getenv("ASYNCTOP_TESTDATA");
	struct rt_run r;

	if (!sim_bin(sim, sizeof(sim)) || !data) {
		tu_skip(
		    "tokio_record_launch",
		    "ASYNCTOP_BIN, its tests/tokio-sim or ASYNCTOP_TESTDATA is missing");
		return;
	}
	snprintf(scn, sizeof(scn), "%s/tokio/basic.scn", data);
	rt_init(&r);
	{
		const char *argv[] = { "asynctop", "record",  "-a", "tokio",
			               "-w",       "0.3",     "-n", "2",
			               "-o",       "t.pb.gz", "--", sim,
			               scn,        NULL };
		rt_run_bin(&r, argv);
	}
	ck_assert_msg(r.p.code == 0, "rc %d: %s", r.p.code, buf_cstr(&r.p.err));
	ck_assert(rt_exists(&r, "t-0001.pb.gz"));
	ck_assert(rt_exists(&r, "t-0002.pb.gz"));
	/* the simulator says where it listens: the port asynctop chose */
	ck_assert_ptr_nonnull(
	    strstr(buf_cstr(&r.p.err), "listening on 127.0.0.1:"));
	rt_fini(&r);
}
END_TEST

/* A program that never serves the console-api: the launch times out with
 * what was awaited and what to check, never "unreachable"; one that exits
 * first is reported as exited. */
START_TEST(tokio_record_launch_never_listens)
{
	static const char *const quick[] = { "ASYNCTOP_ANNOUNCE_TIMEOUT=0.5",
		                             NULL };
	struct tu_proc p = { .env_set = quick, .timeout_ms = 60000 };
	const char *argv[] = { NULL, "record", "-a", "tokio", "-o", "-",
		               "-f", "text",   "--", "sleep", "30", NULL };
	const char *gone[] = { NULL, "record", "-a",   "tokio", "-o",
		               "-",  "-f",     "text", "--",    "sh",
		               "-c", "exit 7", NULL };
	struct tu_run r;

	if (!rt_bin()) {
		tu_skip("tokio_record_launch_never_listens",
		        "ASYNCTOP_BIN is not set");
		return;
	}
	argv[0] = gone[0] = rt_bin();
	tu_run_init(&r);
	tu_run(&r, &p, argv);
	ck_assert_msg(r.code == 3, "rc %d: %s", r.code, buf_cstr(&r.err));
	ck_assert_msg(
	    strstr(
	        buf_cstr(&r.err),
	        "asynctop waited until its console-subscriber listened on 127.0.0.1:"),
	    "%s", buf_cstr(&r.err));
	ck_assert_ptr_nonnull(
	    strstr(buf_cstr(&r.err), "console_subscriber::init()"));
	ck_assert_ptr_null(strstr(buf_cstr(&r.err), "not reachable"));
	tu_run(&r, &p, gone);
	ck_assert_msg(r.code == 3, "rc %d: %s", r.code, buf_cstr(&r.err));
	ck_assert_msg(
	    strstr(
	        buf_cstr(&r.err),
	        "exited with status 7 before its console-subscriber listened on"),
	    "%s", buf_cstr(&r.err));
	tu_run_fini(&r);
}
END_TEST

Suite *suite_tokio_record(void);
Suite *suite_tokio_record(void)
{
	Suite *s = suite_create("tokio_record");
	TCase *tc = tcase_create("bin");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, tokio_record_pprof);
	tcase_add_test(tc, tokio_record_errors);
	tcase_add_test(tc, tokio_record_launch);
	tcase_add_test(tc, tokio_record_launch_never_listens);
	suite_add_tcase(s, tc);
	return s;
}
