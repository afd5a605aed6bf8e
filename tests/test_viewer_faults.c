/* Faults met by the real viewer in a terminal (tmux), each ending with the
 * viewer still running or gone cleanly, the terminal as it found it (out
 * of the alternate screen, canonical and echoing, mouse reporting off, as
 * tmux itself sees the pane), what happened said in words, and every window
 * kept before the fault still there and saveable: the asyncio program the
 * viewer launched killed (SIGKILL) or stopped (SIGSTOP, then SIGCONT)
 * mid-window, and an agent's frame over the reader's limit; the
 * console-api simulator killed, stalled or sending garbage, and a message
 * over the receive limit; the disk full while saving; SIGWINCH and
 * SIGTSTP/SIGCONT sent to the viewer; INT, TERM, HUP and SEGV ending it.
 * The same faults without a terminal are in test_tokio_faults.c and
 * test_launch_life.c, on a pseudo-terminal in test_viewer_e2e.c. */
#define _GNU_SOURCE /* unshare(CLONE_NEWNS): a disk of our own to fill */
#include <check.h>
#include <errno.h>
#include <sched.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "encode/pprof.h"
#include "adapters/asyncio.h"
#include "model/buf.h"
#include "tests/fake_agent.h"
#include "tests/launch_util.h"
#include "tests/tmux.h"
#include "tests/tokio_sim.h"
#include "tests/util.h"
#include "tests/viewer_run.h"

#define WAIT_MS (LIMIT_S * 1000)

/* ---- the asyncio program launched by the viewer ------------------------- */

/* The viewer launching tests/data/launch/ends.py (which runs until the
 * file r->never exists, then exits 0), half-second windows; the
 * program's pid into *pid. */
static bool start_launched(struct frun *r, const char *name, long *pid)
{
	char app[4200], args[4400], line[128];

	lu_data(app, sizeof(app), "ends.py");
	snprintf(args, sizeof(args), "-w 0.5 -- python3 '%s' exit 0", app);
	if (!frun_start(r, name, "", args))
		return false;
	ck_assert(tmux_events_wait(&r->ev, "launched *", WAIT_MS, line,
	                           sizeof(line)));
	*pid = strtol(line + 9, NULL, 10);
	ck_assert_int_gt(*pid, 1);
	return true;
}

/* SIGKILL to the program mid-window: the viewer says it was killed, stops
 * retrying, keeps every window it committed before, saves one, and quits
 * cleanly.  The window being read at the kill is lost: the program sends
 * nothing more (docs/design.md §8). */
START_TEST(faults_agent_killed_mid_window)
{
	struct frun r;
	long pid;

	if (!start_launched(&r, "faults_agent_killed_mid_window", &pid))
		return;
	TMUX_WAIT(&r.ev, "window 2 committed", WAIT_MS);
	frun_assert_viewer(&r);
	ck_assert_int_eq(kill((pid_t)pid, SIGKILL), 0);
	TMUX_WAIT(&r.ev, "child was killed by SIGKILL", WAIT_MS);
	TMUX_WAIT(&r.ev, "state done", WAIT_MS);
	ck_assert_msg(tmux_screen_until(&r.t, &r.ev, &r.screen, frun_shows,
	                                "was killed by SIGKILL", WAIT_MS),
	              "%s", buf_cstr(&r.screen));
	ck_assert_uint_ge(frun_committed(&r), 2);
	frun_assert_all_kept(&r);
	frun_assert_viewer(&r);
	frun_assert_saves(&r);
	frun_quit(&r);
	ck_assert_msg(
	    !tmux_events_between(&r.ev, 0, r.ev.seen.len, "state retrying"),
	    "a killed program was retried: %s", buf_cstr(&r.ev.seen));
	frun_end(&r);
}
END_TEST

/* SIGSTOP to the program mid-window: the agent cannot answer, the viewer
 * says so and retries; after SIGCONT windows come again; every window is
 * kept, through the program's own end. */
START_TEST(faults_agent_stalled_mid_window)
{
	char line[1024];
	struct frun r;
	size_t mark;
	long pid;
	int fd;

	if (!start_launched(&r, "faults_agent_stalled_mid_window", &pid))
		return;
	TMUX_WAIT(&r.ev, "window 2 committed", WAIT_MS);
	ck_assert_int_eq(kill((pid_t)pid, SIGSTOP), 0);
	ck_assert(tmux_events_wait(&r.ev, "error the asyncio source at *",
	                           WAIT_MS, line, sizeof(line)));
	ck_assert_msg(strstr(line, "timed out"), "%s", line);
	ck_assert_msg(tmux_screen_until(&r.t, &r.ev, &r.screen, frun_shows,
	                                "not answering", WAIT_MS),
	              "%s", buf_cstr(&r.screen));
	frun_assert_viewer(&r);
	mark = r.ev.pos;
	ck_assert_int_eq(kill((pid_t)pid, SIGCONT), 0);
	TMUX_WAIT(&r.ev, "window *", WAIT_MS);
	ck_assert(tmux_events_between(&r.ev, mark, r.ev.seen.len,
	                              "state connecting"));
	/* the program ends by itself: nothing more can come */
	fd = open(r.never, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
	ck_assert_int_ge(fd, 0);
	close(fd);
	TMUX_WAIT(&r.ev, "child exited with status 0", WAIT_MS);
	TMUX_WAIT(&r.ev, "state done", WAIT_MS);
	frun_assert_all_kept(&r);
	frun_assert_saves(&r);
	frun_quit(&r);
	frun_end(&r);
}
END_TEST

/* ---- a console-api source over the receive limit --------------------------
 */

/* Three named tasks from the start; 200 more with long locations at 1.2 s,
 * an Update far over a 4096-byte receive limit. */
static const char oversize_scn[] =
    "interval 50ms\n"
    "family w 3 busy=2ms idle=20ms sched=1ms named\n"
    "family big 200 busy=1ms idle=9ms sched=1ms spawn=1200ms loc=src/some/long/path/to/a/module.rs:1:1\n";

static const char steady_scn[] =
    "interval 50ms\nfamily w 3 busy=2ms idle=20ms sched=1ms named\n";

static struct sim *sim_on(const char *scn, char *ep, size_t size)
{
	struct sim_scenario sc;
	struct sim *sim;
	char err[256];
	int port = 0;

	ck_assert_msg(sim_parse(scn, &sc, err, sizeof(err)), "%s", err);
	sim = sim_start(&sc, "127.0.0.1:0", &port, err, sizeof(err));
	ck_assert_msg(sim != NULL, "%s", err);
	snprintf(ep, size, "127.0.0.1:%d", port);
	return sim;
}

/* An Update over the limit through the real viewer: the error names the
 * limit and how to raise it, the viewer keeps running, the windows before
 * it are kept and saved. */
START_TEST(faults_tokio_message_over_the_limit)
{
	char ep[64], args[128], line[1024];
	struct frun r;
	struct sim *sim;

	sim = sim_on(oversize_scn, ep, sizeof(ep));
	snprintf(args, sizeof(args), "-a tokio -e %s -w 0.3 --history 1000",
	         ep);
	if (!frun_start(&r, "faults_tokio_message_over_the_limit",
	                "ASYNCTOP_TOKIO_MAX_MESSAGE=4096", args)) {
		sim_stop(sim);
		return;
	}
	TMUX_WAIT(&r.ev, "window 1 committed", WAIT_MS);
	ck_assert(tmux_events_wait(&r.ev, "error the tokio source at *",
	                           WAIT_MS, line, sizeof(line)));
	ck_assert_msg(strstr(line, "limit of 4096 bytes") &&
	                  strstr(line, "ASYNCTOP_TOKIO_MAX_MESSAGE"),
	              "%s", line);
	ck_assert_msg(tmux_screen_until(&r.t, &r.ev, &r.screen, frun_shows,
	                                "limit of 4096 bytes", WAIT_MS),
	              "%s", buf_cstr(&r.screen));
	frun_survived(&r);
	sim_stop(sim);
}
END_TEST

/* The simulator gone, stalled, or sending bytes that are not an Update
 * mid-run, under the viewer in a terminal: the first two are errors in
 * words and the viewer goes on retrying; the third cuts a window short
 * and the viewer reconnects without an error.  Every window stays kept
 * and saves. */
START_TEST(faults_tokio_killed_stalled_garbage)
{
	static const struct {
		const char *name, *tail, *error;
	} cases[] = {
		{ "killed", "", "not reachable" },
		{ "stalled", "stall 700ms 600s\n", "timed out" },
		{ "garbage", "junk 700ms\n", NULL },
	};
	char ep[64], args[128], scn[256], line[1024];

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct frun r;
		struct sim *sim;

		snprintf(scn, sizeof(scn), "%s%s", steady_scn, cases[i].tail);
		sim = sim_on(scn, ep, sizeof(ep));
		snprintf(args, sizeof(args),
		         "-a tokio -e %s -w 0.3 --history 1000", ep);
		if (!frun_start(&r, "faults_tokio_killed_stalled_garbage", "",
		                args)) {
			sim_stop(sim);
			return;
		}
		TMUX_WAIT(&r.ev, "window 2 committed", WAIT_MS);
		if (i == 0) {
			sim_stop(sim);
			sim = NULL;
		}
		if (cases[i].error) {
			ck_assert_msg(
			    tmux_events_wait(&r.ev, "error the tokio source *",
			                     WAIT_MS, line, sizeof(line)),
			    "%s: no error: %s", cases[i].name,
			    tmux_tail(&r.ev.seen, 1500));
			ck_assert_msg(strstr(line, cases[i].error), "%s: %s",
			              cases[i].name, line);
			TMUX_WAIT(&r.ev, "state retrying", WAIT_MS);
		} else {
			/* cut short, reconnected, and on: no error */
			TMUX_WAIT(&r.ev, "state connecting", WAIT_MS);
			TMUX_WAIT(&r.ev, "window *", WAIT_MS);
			ck_assert_msg(!tmux_events_between(
			                  &r.ev, 0, r.ev.seen.len, "error *"),
			              "garbage: %s", buf_cstr(&r.ev.seen));
		}
		frun_survived(&r);
		if (sim)
			sim_stop(sim);
	}
}
END_TEST

/* ---- an asyncio agent's frame over the reader's limit -------------------- */

/* A fake agent (a thread of this test) answers the viewer's first read
 * with a TASKS frame of 2 MiB, past the reader's 1 MiB limit: the viewer
 * names both sizes, keeps running and answering keys, and quits cleanly. */
START_TEST(faults_asyncio_frame_over_the_limit)
{
	char args[256], line[1024];
	struct agent g;
	struct buf *b;
	struct frun r;
	size_t at;

	agent_init(&g);
	agent_hello_ok(&g);
	b = agent_step(&g, AGENT_REPLY);
	fr_begin(b, ASYNCIO_TASKS, 2, &at);
	fr_end(b, at);
	b->data[at + 10] = 0x20; /* the length's third byte: 2 MiB */
	agent_start(&g);
	snprintf(args, sizeof(args), "-a asyncio -e '%s' -w 0.3", g.path);
	if (!frun_start(&r, "faults_asyncio_frame_over_the_limit", "", args)) {
		agent_fini(&g);
		return;
	}
	ck_assert(tmux_events_wait(&r.ev, "error the asyncio source *", WAIT_MS,
	                           line, sizeof(line)));
	ck_assert_msg(strstr(line, "a TASKS frame of 2097152 bytes exceeds "
	                           "the 1048576-byte limit"),
	              "%s", line);
	frun_assert_viewer(&r);
	tmux_keys(&r.t, "b");
	TMUX_WAIT(&r.ev, "action weight-busy", WAIT_MS);
	frun_quit(&r);
	frun_end(&r);
	agent_fini(&g);
}
END_TEST

/* ---- the disk full while saving ----------------------------------------- */

/* S onto a full disk, a 64 KiB tmpfs over the save directory in a mount
 * namespace of this test's own, which the tmux server and the viewer
 * inherit: the status line says why, no partial file is left, the viewer
 * goes on; once there is room, the same window saves. */
START_TEST(faults_disk_full_while_saving)
{
	char ep[64], args[128], filler[760], chunk[4096];
	struct frun r;
	struct sim *sim;
	int fd;

	if (unshare(CLONE_NEWNS) != 0 ||
	    mount("none", "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0) {
		tu_skip("faults_disk_full_while_saving",
		        "no mount namespace of its own here (not root?)");
		return;
	}
	sim = sim_on(steady_scn, ep, sizeof(ep));
	snprintf(args, sizeof(args), "-a tokio -e %s -w 0.3 --history 1000",
	         ep);
	if (!frun_start(&r, "faults_disk_full_while_saving", "", args)) {
		sim_stop(sim);
		return;
	}
	ck_assert_msg(
	    mount("tmpfs", r.saves, "tmpfs", 0, "size=64k,mode=700") == 0,
	    "mount: %s", strerror(errno));
	snprintf(filler, sizeof(filler), "%s/filler", r.saves);
	fd = open(filler, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
	ck_assert_int_ge(fd, 0);
	memset(chunk, 'x', sizeof(chunk));
	while (write(fd, chunk, sizeof(chunk)) > 0)
		;
	close(fd);
	TMUX_WAIT(&r.ev, "window 2 committed", WAIT_MS);
	tmux_keys(&r.t, "S");
	TMUX_WAIT(&r.ev, "action save-pprof", WAIT_MS);
	ck_assert_msg(tmux_screen_until(&r.t, &r.ev, &r.screen, frun_shows,
	                                "No space left on device", WAIT_MS),
	              "%s", buf_cstr(&r.screen));
	ck_assert_ptr_nonnull(strstr(r.screen.data, "cannot save: "));
	ck_assert_int_eq(tu_count_entries(r.saves, "filler"), 0);
	frun_assert_viewer(&r);
	ck_assert_int_eq(unlink(filler), 0);
	frun_assert_all_kept(&r);
	frun_assert_saves(&r);
	frun_quit(&r);
	umount2(r.saves, MNT_DETACH);
	frun_end(&r);
	sim_stop(sim);
}
END_TEST

/* ---- signals to the viewer ---------------------------------------------- */

/* A screen_ok: no line wider than ctx (an int) columns, and a header. */
static bool fits(const struct buf *screen, const void *ctx)
{
	int cols = *(const int *)ctx;
	const char *p = screen->data;

	if (!p || !strstr(p, "asynctop"))
		return false;
	while (*p) {
		size_t len = strcspn(p, "\n");

		size_t width = 0;

		/* columns: UTF-8 lead bytes (the screen has no wide
		 * character) */
		for (size_t i = 0; i < len; i++)
			width += ((unsigned char)p[i] & 0xC0) != 0x80;
		if (width > (size_t)cols)
			return false;
		p += len + (p[len] == '\n');
	}
	return true;
}

/* SIGWINCH (tmux resizing the window) redraws at the new size; SIGTSTP
 * gives the terminal back to the shell until SIGCONT, which takes it
 * again; the viewer then saves and quits as before. */
START_TEST(faults_viewer_winch_tstp_cont)
{
	char ep[64], args[128];
	struct frun r;
	struct sim *sim;
	int cols = 70;
	uint64_t until;

	sim = sim_on(steady_scn, ep, sizeof(ep));
	snprintf(args, sizeof(args), "-a tokio -e %s -w 0.3 --history 1000",
	         ep);
	if (!frun_start(&r, "faults_viewer_winch_tstp_cont", "", args)) {
		sim_stop(sim);
		return;
	}
	TMUX_WAIT(&r.ev, "window 1 committed", WAIT_MS);
	{
		const char *argv[] = { "tmux", "-L", r.t.sock, "resize-window",
			               "-x",   "70", "-y",     "20",
			               NULL };
		ck_assert_int_eq(tmux_run(argv, NULL), 0);
	}
	ck_assert_msg(
	    tmux_screen_until(&r.t, &r.ev, &r.screen, fits, &cols, WAIT_MS),
	    "not redrawn at 70 columns:\n%s", buf_cstr(&r.screen));
	{ /* and back, where the header's window count fits */
		const char *argv[] = { "tmux", "-L",  r.t.sock, "resize-window",
			               "-x",   "120", "-y",     "30",
			               NULL };
		ck_assert_int_eq(tmux_run(argv, NULL), 0);
	}
	ck_assert_int_eq(kill((pid_t)r.pid, SIGTSTP), 0);
	until = tmux_now_ms() + WAIT_MS;
	while (tu_proc_state(r.pid) != 'T') {
		ck_assert_msg(tmux_now_ms() < until, "SIGTSTP did not stop it");
		tmux_events_pump(&r.ev, 20);
	}
	frun_assert_shell(&r, "stopped");
	ck_assert_int_eq(kill((pid_t)r.pid, SIGCONT), 0);
	TMUX_WAIT(&r.ev, "continued", WAIT_MS);
	TMUX_WAIT(&r.ev, "drawn", WAIT_MS);
	frun_survived(&r);
	sim_stop(sim);
}
END_TEST

/* INT, TERM and HUP end the viewer with 128 + the signal, SEGV with a
 * crash; each gives the terminal back whole, mouse reporting off. */
START_TEST(faults_viewer_ended_by_signals)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGSEGV };
	char ep[64], args[128], want[32];
	struct sim *sim;

	sim = sim_on(steady_scn, ep, sizeof(ep));
	snprintf(args, sizeof(args), "-a tokio -e %s -w 0.3 --history 1000",
	         ep);
	for (size_t i = 0; i < ARRAY_SIZE(sigs); i++) {
		struct frun r;

		if (!frun_start(&r, "faults_viewer_ended_by_signals", "", args))
			break;
		TMUX_WAIT(&r.ev, "window 1 committed", WAIT_MS);
		frun_assert_viewer(&r);
		ck_assert_int_eq(kill((pid_t)r.pid, sigs[i]), 0);
		if (sigs[i] != SIGSEGV) {
			snprintf(want, sizeof(want), "exit %d", 128 + sigs[i]);
			TMUX_WAIT(&r.ev, want, WAIT_MS);
			frun_expect_exit(&r, 128 + sigs[i]);
		} else {
			frun_expect_exit(&r, -1);
		}
		frun_end(&r);
	}
	sim_stop(sim);
}
END_TEST

Suite *suite_viewer_faults(void);
Suite *suite_viewer_faults(void)
{
	Suite *s = suite_create("viewer_faults");
	TCase *tc = tcase_create("tmux");

	/* real processes, tmux and a launched interpreter on a loaded
	 * machine: bounds, not waits */
	tcase_set_timeout(tc, 240);
	tcase_add_test(tc, faults_agent_killed_mid_window);
	tcase_add_test(tc, faults_agent_stalled_mid_window);
	tcase_add_test(tc, faults_tokio_message_over_the_limit);
	tcase_add_test(tc, faults_tokio_killed_stalled_garbage);
	tcase_add_test(tc, faults_asyncio_frame_over_the_limit);
	tcase_add_test(tc, faults_disk_full_while_saving);
	tcase_add_test(tc, faults_viewer_winch_tstp_cont);
	tcase_add_test(tc, faults_viewer_ended_by_signals);
	suite_add_tcase(s, tc);
	return s;
}
