/* Faults of a console-api source seen by the real viewer, without a
 * terminal (--dump-screen), against the simulator in this process: the
 * simulator gone mid-window, stalled mid-window, and sending bytes that are
 * not an Update.  In each the viewer says what happened, and every window
 * it took in before is still in its history.  The decoder's own faults
 * (oversize messages, every field) are in test_tokio_live.c and
 * tests/fuzz/fuzz_tokio.c. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/record_util.h"
#include "tests/tokio_sim.h"

struct fault {
	struct sim *sim;
	struct rt_run r;
	struct buf seen; /* events so far */
	int events;
	char ep[64], fifo[600];
};

/* The simulator on a free port, and the viewer on it keeping every
 * window, until exit_after windows or its first failure. */
static void fault_start(struct fault *f, const char *scenario,
                        const char *exit_after)
{
	struct sim_scenario sc;
	char err[256];
	int port = 0;

	ck_assert_msg(sim_parse(scenario, &sc, err, sizeof(err)), "%s", err);
	f->sim = sim_start(&sc, "127.0.0.1:0", &port, err, sizeof(err));
	ck_assert_msg(f->sim != NULL, "%s", err);
	snprintf(f->ep, sizeof(f->ep), "127.0.0.1:%d", port);
	rt_init(&f->r);
	buf_init(&f->seen);
	f->events = rt_events_fifo(&f->r, f->fifo, sizeof(f->fifo));
	{
		const char *argv[] = { "asynctop", "-a",
			               "tokio",    "-e",
			               f->ep,      "-w",
			               "0.3",      "--history",
			               "1000",     "--exit-after",
			               exit_after, "--dump-screen",
			               "120x12",   NULL };
		rt_start_bin(&f->r, argv, f->fifo);
	}
}

/* Waits for the viewer to end; returns the last window it committed. */
static unsigned long fault_end(struct fault *f)
{
	const char *at, *last = NULL;

	ck_assert_msg(rt_wait_event(f->events, &f->seen, "exit 0") ||
	                  strstr(buf_cstr(&f->seen), "exit ") != NULL,
	              "no exit event: %s", buf_cstr(&f->seen));
	tu_run_wait(&f->r.p);
	close(f->events);
	if (f->sim)
		sim_stop(f->sim);
	f->sim = NULL;
	/* event lines "window N committed" */
	for (at = buf_cstr(&f->seen); (at = strstr(at, "window ")) != NULL;
	     at++)
		if (at == f->seen.data || at[-1] == '\n')
			last = at;
	ck_assert_msg(last != NULL, "no window committed: %s",
	              buf_cstr(&f->seen));
	return strtoul(last + 7, NULL, 10);
}

static void fault_fini(struct fault *f)
{
	buf_fini(&f->seen);
	rt_fini(&f->r);
}

/* The viewer exited with code; else fails showing what it wrote. */
static void assert_exit(const struct fault *f, int code)
{
	ck_assert_msg(f->r.p.code == code, "rc %d: %s%s", f->r.p.code,
	              f->r.p.out.data, f->r.p.err.data);
}

/* The dump's top line shows window n of n kept: none was lost. */
static void assert_kept(const struct fault *f, unsigned long n)
{
	char want[64];

	snprintf(want, sizeof(want), "window %lu/%lu ", n, n);
	ck_assert_msg(strstr(f->r.p.out.data, want) != NULL,
	              "the screen lacks \"%s\":\n%s", want, f->r.p.out.data);
}

static const char steady[] =
    "interval 50ms\nfamily w 3 busy=2ms idle=20ms sched=1ms named\n";

/* The simulator goes away after the second window: the viewer reports the
 * source lost (exit 1 without a terminal, which ends at the first failure)
 * and keeps both windows. */
START_TEST(tokio_fault_killed_mid_window)
{
	struct fault f = { .sim = NULL };
	unsigned long n;

	SKIP_WITHOUT_BIN("tokio_fault_killed_mid_window");
	fault_start(&f, steady, "1000");
	ck_assert(rt_wait_event(f.events, &f.seen, "window 2 committed"));
	sim_stop(f.sim);
	f.sim = NULL;
	n = fault_end(&f);
	assert_exit(&f, 1);
	ck_assert_uint_ge(n, 2);
	assert_kept(&f, n);
	ck_assert_msg(strstr(buf_cstr(&f.seen), "\nerror ") != NULL,
	              "no error reported: %s", buf_cstr(&f.seen));
	ck_assert_ptr_nonnull(strstr(f.r.p.out.data, "retrying"));
	fault_fini(&f);
}
END_TEST

/* No Update from 700 ms on: a timeout that names the stall, every window
 * before it kept. */
START_TEST(tokio_fault_stalled_mid_window)
{
	struct fault f = { .sim = NULL };
	unsigned long n;
	char scn[200];

	SKIP_WITHOUT_BIN("tokio_fault_stalled_mid_window");
	snprintf(scn, sizeof(scn), "%sstall 700ms 600s\n", steady);
	fault_start(&f, scn, "1000");
	n = fault_end(&f);
	assert_exit(&f, 1);
	ck_assert_uint_ge(n, 1);
	assert_kept(&f, n);
	ck_assert_msg(strstr(buf_cstr(&f.seen), "timed out") != NULL,
	              "no timeout reported: %s", buf_cstr(&f.seen));
	fault_fini(&f);
}
END_TEST

/* Bytes that are not an Update mid-window: the window is cut short with
 * that reason, the viewer reconnects and goes on to the windows asked. */
START_TEST(tokio_fault_garbage_mid_window)
{
	struct fault f = { .sim = NULL };
	unsigned long n;
	char scn[200];

	SKIP_WITHOUT_BIN("tokio_fault_garbage_mid_window");
	snprintf(scn, sizeof(scn), "%sjunk 700ms\n", steady);
	fault_start(&f, scn, "6");
	n = fault_end(&f);
	assert_exit(&f, 0);
	ck_assert_uint_eq(n, 6);
	assert_kept(&f, 6);
	ck_assert_msg(strstr(buf_cstr(&f.seen), "\nerror ") == NULL,
	              "a cut window is no error: %s", buf_cstr(&f.seen));
	fault_fini(&f);
}
END_TEST

Suite *suite_tokio_faults(void);
Suite *suite_tokio_faults(void)
{
	Suite *s = suite_create("tokio_faults");
	TCase *tc = tcase_create("viewer");

	/* real processes and gRPC on a loaded machine: bounds, not waits */
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, tokio_fault_killed_mid_window);
	tcase_add_test(tc, tokio_fault_stalled_mid_window);
	tcase_add_test(tc, tokio_fault_garbage_mid_window);
	suite_add_tcase(s, tc);
	return s;
}
