/* The viewer run in tmux against a source of the test's choosing, and the
 * checks made of it: what the pane's terminal is in while it runs and once
 * it ends, what the screen shows, the windows kept and one saved. */
#include <check.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <termios.h>
#include <unistd.h>

#include "encode/pprof.h"
#include "model/buf.h"
#include "tests/launch_util.h"
#include "tests/tmux.h"
#include "tests/util.h"
#include "tests/viewer_run.h"

/* Starts the viewer with args after the settings env (may be ""); false,
 * the test skipped as name, where it cannot run. */
bool frun_start(struct frun *r, const char *name, const char *env,
                const char *args)
{
	return frun_start_wide(r, 120, name, env, args);
}

bool frun_start_wide(struct frun *r, int cols, const char *name,
                     const char *env, const char *args)
{
	char cmd[16384], pidf[700], jobctl[4200];
	uint64_t until;
	struct buf b;

	if (!lu_can_run(name))
		return false;
	memset(r, 0, sizeof(*r));
	tu_mkdtemp(r->dir, sizeof(r->dir));
	snprintf(r->saves, sizeof(r->saves), "%s/saves", r->dir);
	snprintf(r->never, sizeof(r->never), "%s/ends.now", r->dir);
	snprintf(pidf, sizeof(pidf), "%s/viewer.pid", r->dir);
	ck_assert_int_eq(mkdir(r->saves, 0700), 0);
	tmux_events_open(&r->ev, r->dir);
	buf_init(&r->screen);
	tu_data_path(jobctl, sizeof(jobctl), "jobctl.py");
	snprintf(
	    cmd, sizeof(cmd),
	    "cd '%s' && exec env JOBCTL_PID='%s' python3 '%s' env -u ASYNCTOP_ANNOUNCE_TIMEOUT %s ENDS_WHEN='%s' ASYNCTOP_TEST_EVENTS='%s' TMPDIR='%s' XDG_RUNTIME_DIR='%s' TERM=xterm-256color LC_ALL=C.UTF-8 '%s' -d '%s' %s",
	    r->dir, pidf, jobctl, env, r->never, r->ev.fifo, r->dir, r->dir,
	    lu_bin(), r->saves, args);
	if (!tmux_start(&r->t, cols, 30, cmd)) {
		tu_skip(name, "tmux is not installed");
		buf_fini(&r->screen);
		tmux_events_close(&r->ev);
		tu_rmtree(r->dir);
		return false;
	}
	buf_init(&b);
	until = tmux_now_ms() + FRUN_WAIT_MS;
	while (tu_read_file(pidf, &b) != STATUS_OK) {
		ck_assert_msg(tmux_now_ms() < until,
		              "the viewer did not start");
		tmux_events_pump(&r->ev, 20);
	}
	lu_text(&b);
	r->pid = strtol(b.data, NULL, 10);
	buf_fini(&b);
	ck_assert_int_gt(r->pid, 1);
	return true;
}

void frun_end(struct frun *r)
{
	char sub[700];

	tmux_end(&r->t);
	buf_fini(&r->screen);
	tmux_events_close(&r->ev);
	snprintf(sub, sizeof(sub), "%s/asynctop", r->dir);
	tu_rmtree(sub);
	tu_rmtree(r->dir);
}

/* What tmux knows of the pane's terminal. */
struct pane {
	int mouse; /* any mouse reporting on */
	int alt;   /* in the alternate screen */
	bool canonical, echoing;
};

static void pane_state(struct frun *r, struct pane *p)
{
	const char *argv[] = {
		"tmux",    "-L",
		r->t.sock, "display-message",
		"-p",      "#{mouse_any_flag} #{alternate_on} #{pane_tty}",
		NULL
	};
	char tty[256] = "";
	struct termios tio;
	struct buf out;
	int fd;

	buf_init(&out);
	ck_assert_int_eq(tmux_run(argv, &out), 0);
	ck_assert_msg(
	    sscanf(buf_cstr(&out), "%d %d %255s", &p->mouse, &p->alt, tty) == 3,
	    "tmux said: %s", buf_cstr(&out));
	buf_fini(&out);
	fd = open(tty, O_RDWR | O_NOCTTY | O_CLOEXEC);
	ck_assert_msg(fd >= 0, "cannot open the pane's terminal %s", tty);
	ck_assert_int_eq(tcgetattr(fd, &tio), 0);
	close(fd);
	p->canonical = (tio.c_lflag & ICANON) != 0;
	p->echoing = (tio.c_lflag & ECHO) != 0;
}

/* The viewer's own terminal while it runs: raw, alternate screen, mouse
 * reporting on. */
void frun_assert_viewer(struct frun *r)
{
	struct pane p;

	pane_state(r, &p);
	ck_assert_msg(p.mouse && p.alt && !p.canonical && !p.echoing,
	              "while running: mouse %d alternate %d canonical %d",
	              p.mouse, p.alt, (int)p.canonical);
}

/* The terminal as the shell had it: no alternate screen, no mouse
 * reporting, canonical and echoing. */
void frun_assert_shell(struct frun *r, const char *when)
{
	struct pane p;

	pane_state(r, &p);
	ck_assert_msg(!p.mouse, "%s: mouse reporting left on", when);
	ck_assert_msg(!p.alt, "%s: the alternate screen was not left", when);
	ck_assert_msg(p.canonical && p.echoing,
	              "%s: the terminal was left raw (canonical %d echo %d)",
	              when, (int)p.canonical, (int)p.echoing);
}

/* A screen_ok: the screen holds the text ctx. */
bool frun_shows(const struct buf *screen, const void *ctx)
{
	return screen->data && strstr(screen->data, ctx);
}

/* Waits for "viewer exit N" in the pane, N being code (code < 0: any
 * but 0), then checks the terminal. */
void frun_expect_exit(struct frun *r, int code)
{
	const char *at;
	long got;

	ck_assert_msg(tmux_screen_until(&r->t, &r->ev, &r->screen, frun_shows,
	                                "viewer exit ", FRUN_WAIT_MS),
	              "the viewer did not end:\n%s", buf_cstr(&r->screen));
	at = strstr(r->screen.data, "viewer exit ");
	got = strtol(at + 12, NULL, 10);
	ck_assert_msg(code >= 0 ? got == code : got != 0, "%s", at);
	frun_assert_shell(r, "after the end");
}

/* The number of "window N committed" events so far. */
size_t frun_committed(const struct frun *r)
{
	const char *p = r->ev.seen.data, *end = p + r->ev.seen.len;
	size_t n = 0;

	while (p && p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t len = nl ? (size_t)(nl - p) : (size_t)(end - p);

		if (len > 17 && !memcmp(p, "window ", 7) &&
		    !memcmp(p + len - 10, " committed", 10))
			n++;
		p = nl ? nl + 1 : NULL;
	}
	return n;
}

/* A screen_ok: the header shows the newest of all the windows committed
 * by the time of the capture, "window N/N" (ctx: the run, whose events
 * are read to the end first: a window's event comes before its drawing). */
static bool shows_all(const struct buf *screen, const void *ctx)
{
	struct frun *r = (struct frun *)(uintptr_t)ctx;
	char want[64];
	size_t n, was;

	do {
		was = r->ev.seen.len;
		tmux_events_pump(&r->ev, 0);
	} while (r->ev.seen.len != was);
	n = frun_committed(r);
	snprintf(want, sizeof(want), "window %zu/%zu ", n, n);
	return n && screen->data && strstr(screen->data, want);
}

/* Every window committed is in the history: the header counts them all. */
void frun_assert_all_kept(struct frun *r)
{
	ck_assert_msg(tmux_screen_until(&r->t, &r->ev, &r->screen, shows_all, r,
	                                FRUN_WAIT_MS),
	              "not every one of %zu windows is kept:\n%s",
	              frun_committed(r), buf_cstr(&r->screen));
}

struct counted {
	size_t samples;
};

static enum status count_sample(void *ctx, const struct sample *s)
{
	(void)s;
	((struct counted *)ctx)->samples++;
	return STATUS_OK;
}

static enum status count_meta(void *ctx, const struct window_meta *m)
{
	(void)ctx;
	(void)m;
	return STATUS_OK;
}

/* S saves the window shown: a profile that reads back with samples. */
void frun_assert_saves(struct frun *r)
{
	char line[1024], err[256];
	struct counted c = { 0 };
	struct sample_sink sink = { count_sample, count_meta, &c };

	tmux_keys(&r->t, "S");
	ck_assert_msg(tmux_events_wait(&r->ev, "saved *", FRUN_WAIT_MS, line,
	                               sizeof(line)),
	              "nothing saved: %s", tmux_tail(&r->ev.seen, 1500));
	ck_assert_msg(pprof_load(line + 6, NULL, &sink, err, sizeof(err)) ==
	                  STATUS_OK,
	              "%s: %s", line + 6, err);
	ck_assert_uint_gt(c.samples, 0);
}

/* Quits with q: exit 0, the terminal restored. */
void frun_quit(struct frun *r)
{
	tmux_keys(&r->t, "q");
	TMUX_WAIT(&r->ev, "exit 0", FRUN_WAIT_MS);
	frun_expect_exit(r, 0);
}

void frun_survived(struct frun *r)
{
	frun_assert_viewer(r);
	frun_assert_all_kept(r);
	frun_assert_saves(r);
	frun_quit(r);
	frun_end(r);
}
