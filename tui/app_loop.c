/* app_run: the viewer's single poll() loop over the tty, the signal
 * self-pipe, the worker and the saver; or the headless --dump-screen run. */
#include "tui/app.h"

#include <errno.h>
#include <inttypes.h>
#include <locale.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "adapters/worker.h"
#include "encode/utf8.h"
#include "tui/builder.h"
#include "tui/draw.h"
#include "tui/errcap.h"
#include "tui/events.h"
#include "tui/exit.h"
#include "tui/record.h"
#include "tui/safe.h"
#include "tui/saver.h"
#include "tui/screen_dump.h"
#include "tui/session.h"
#include "tui/signals.h"
#include "tui/term.h"

/* How long a quitting viewer waits for its source to stop. */
#define STOP_GRACE_MS 2000
/* A failed source is retried after 0.25 s, then 0.5, 1, 2, 4, 8, 8… s
 * (docs/viewer.md): quick to find a restarted program, gentle on a gone
 * one. */
#define RETRY_BASE_NS ((uint64_t)250000000u)
#define RETRY_MAX_NS  ((uint64_t)8000000000u)

struct run {
	const struct opts *o;
	struct app app;
	struct session ss;
	char endpoint[1024];  /* the header's, borrowed by app */
	char child_line[512]; /* the status line once the program ended */
	struct saver *saver;
	struct builder *builder;
	struct term t;
	struct screen s;
	int sigfd;
	int code;
	bool quit, dirty, repaint, dump;
	bool source_failed; /* --dump-screen: ended by a source's failure */
	struct errcap ec;   /* stderr while the screen is up */
	uint64_t next_tick;
};

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int usage_error(const struct opts *o, const char *text)
{
	safe_sayf(o->prog, "%s\n(see '%s --help')", text, o->prog);
	return EXIT_USAGE;
}

static void react(struct run *r, unsigned flags)
{
	if (flags & APP_REDRAW)
		r->dirty = true;
	if (flags & APP_REPAINT)
		r->repaint = true;
	if (flags & APP_QUIT)
		r->quit = true;
	if (flags & APP_SUSPEND) {
		session_pause_child(&r->ss, true);
		term_suspend(&r->t);
		session_pause_child(&r->ss, false);
		r->dirty = r->repaint = true;
	}
}

/* The status line of an ended program: how it ended and the last line of
 * its output, from msg (session_child_ended's paragraph). */
static void child_status(struct run *r, const char *msg)
{
	const char *nl = strchr(msg, '\n'), *last = NULL;
	const char *end = msg + strlen(msg);

	/* the tail follows its heading line; its last line is at the end */
	if (nl && strchr(nl + 1, '\n')) {
		last = end;
		while (last > msg && last[-1] != '\n')
			last--;
	}
	snprintf(r->child_line, sizeof(r->child_line), "%.*s%s%.200s",
	         (int)(nl ? nl - msg : end - msg), msg, last ? ": " : "",
	         last ? last : "");
}

/* The launched program ended by itself: the viewer says so (the body
 * without a window, the status line with one), stops the source rather
 * than retrying it, and keeps its windows browsable and saveable. */
static void check_child(struct run *r)
{
	char msg[sizeof(r->app.error)];

	if (session_child_ended(&r->ss, msg, sizeof(msg))) {
		snprintf(r->app.error, sizeof(r->app.error), "%s", msg);
		r->app.error_bad = false;
		child_status(r, msg);
		session_stop(&r->ss);
		r->dirty = true;
	}
	if (r->child_line[0]) {
		snprintf(r->app.status, sizeof(r->app.status), "%s",
		         r->child_line);
		r->app.status_error = false;
	}
}

static void take_signals(struct run *r)
{
	unsigned char b[32];
	ssize_t n;

	while ((n = read(r->sigfd, b, sizeof(b))) > 0) {
		for (ssize_t i = 0; i < n; i++) {
			switch (b[i]) {
			case SIGWINCH:
				term_resize(&r->t);
				r->dirty = r->repaint = true;
				break;
			case SIGTSTP:
				react(r, APP_SUSPEND);
				break;
			case SIGCONT:
				term_resume(&r->t);
				r->dirty = r->repaint = true;
				events_emit(r->app.o.events, "continued");
				break;
			case SIGCHLD:
				check_child(r);
				break;
			default:
				if (!signals_is_stop(b[i]))
					break;
				events_emit(r->app.o.events, "signal %d", b[i]);
				if (!r->quit)
					r->code = EXIT_SIGNAL + b[i];
				r->quit = true;
				break;
			}
		}
	}
}

/* Restores the terminal, then stderr, which gets what it was sent. */
static void screen_off(struct run *r)
{
	term_close(&r->t);
	errcap_stop(&r->ec);
}

/* --dump-screen ends at a live source's first failure, with the screen
 * that shows it (once the worker said when it retries), so a source that
 * never delivers cannot hold it: the watchdog turns a hang into a failure.
 * Status 3 for an unreachable or silent source before any window, as in
 * record; 1 otherwise. */
static void dump_at_failure(struct run *r, const struct worker_msg *msg)
{
	if (msg->kind == WORKER_ERROR && !r->source_failed) {
		r->source_failed = true;
		r->code = (msg->err.st == STATUS_UNREACHABLE ||
		           msg->err.st == STATUS_TIMEOUT) &&
		                  !r->app.committed
		              ? EXIT_UNREACHABLE
		              : EXIT_ERROR;
	}
	if (r->source_failed && msg->kind == WORKER_STATE &&
	    msg->state == SOURCE_RETRYING)
		r->quit = true;
}

/* Takes one message the session let through, and frees it. */
static void take_msg(struct run *r, struct worker_msg *msg)
{
	app_set_now(&r->app, r->dump ? 0 : mono_ns());
	if (msg->kind == WORKER_WINDOW && app_intake(&r->app, msg)) {
		/* taken over: it shows once app_step has folded it in */
		check_child(r);
		return;
	}
	app_take(&r->app, msg);
	if (msg->kind == WORKER_DONE)
		r->ss.worker_done = true;
	if (r->dump && !r->app.o.replay)
		dump_at_failure(r, msg);
	worker_msg_free(msg);
	check_child(r);
	r->dirty = true;
	if (r->o->exit_after && r->app.committed >= r->o->exit_after)
		r->quit = true;
}

/* The window being taken in goes one step further. */
static void take_step(struct run *r)
{
	app_set_now(&r->app, r->dump ? 0 : mono_ns());
	react(r, app_step(&r->app));
	if (r->o->exit_after && r->app.committed >= r->o->exit_after)
		r->quit = true;
}

/* The worker's messages, until one is held (a launched program's error
 * that may be its end). */
static void take_worker(struct run *r)
{
	struct worker_msg *msg = session_release(&r->ss);

	if (msg)
		take_msg(r, msg);
	/* one window at a time: the next waits until this one is in */
	while (!r->ss.held && !app_busy(&r->app) &&
	       worker_read(r->ss.w, &msg) == STATUS_OK) {
		switch (session_screen(&r->ss, msg)) {
		case SESSION_TAKE:
			take_msg(r, msg);
			break;
		case SESSION_DROP:
			worker_msg_free(msg);
			check_child(r);
			break;
		case SESSION_HOLD:
			check_child(r);
			break;
		}
	}
}

/* Something wrote to stderr while the screen is up: its last line goes to
 * the status line (all of it to the real stderr at the end). */
static void take_stderr(struct run *r)
{
	const char *line;

	errcap_drain(&r->ec);
	line = errcap_last(&r->ec);
	if (!line)
		return;
	snprintf(r->app.status, sizeof(r->app.status), "stderr: %s", line);
	r->app.status_error = true;
	r->dirty = true;
}

static void take_saver(struct run *r)
{
	struct saver_result res;

	while (saver_take(r->saver, &res) == STATUS_OK) {
		app_saved(&r->app, &res);
		r->dirty = true;
	}
}

/* Saves still running when the viewer quits are finished, not dropped,
 * and each outcome goes to stderr, the screen being gone. */
static void finish_saves(struct run *r)
{
	struct saver_result res;

	saver_wait(r->saver);
	while (saver_take(r->saver, &res) == STATUS_OK) {
		app_saved(&r->app, &res);
		if (res.st == STATUS_OK)
			safe_sayf(r->o->prog, "saved %s", res.written);
		else
			safe_sayf(r->o->prog, "%s", r->app.status);
	}
}

static void take_input(struct run *r)
{
	for (;;) {
		int key = 0, wheel = 0;
		size_t x = 0, y = 0;
		enum term_input in = term_read(&r->t, &key, &x, &y, &wheel);

		if (in == TERM_NONE)
			return;
		if (in == TERM_MOUSE)
			react(r, app_mouse(&r->app, x, y, wheel));
		else if (key == KC_RESIZE)
			r->dirty = r->repaint = true;
		else
			react(r, app_key(&r->app, key));
		if (r->quit)
			return;
	}
}

static void draw(struct run *r)
{
	if (r->s.cols != r->t.cols || r->s.rows != r->t.rows) {
		screen_fini(&r->s);
		if (screen_init(&r->s, r->t.cols, r->t.rows) != STATUS_OK) {
			r->quit = true;
			r->code = EXIT_ERROR;
			return;
		}
		r->repaint = true;
	}
	app_set_now(&r->app, mono_ns());
	if (app_render(&r->app, &r->s) != STATUS_OK)
		return;
	draw_screen(&r->t, &r->s, r->repaint);
	r->dirty = r->repaint = false;
	events_emit(r->app.o.events, "drawn");
}

static void loop(struct run *r)
{
	uint64_t period = r->o->refresh_ns ? r->o->refresh_ns : 1000000000u;

	r->next_tick = mono_ns() + period;
	r->dirty = true;
	while (!r->quit) {
		struct pollfd p[6];
		nfds_t np = 0;
		int timeout, k, held;
		uint64_t now, due;

		if (!r->dump && r->dirty)
			draw(r);
		if (r->quit)
			break;
		if (r->dump && r->ss.worker_done)
			break;
		now = mono_ns();
		due = u64_min(r->next_tick, app_next_change(&r->app));
		timeout =
		    now >= due ? 0 : (int)((due - now + 999999) / 1000000);
		held = session_held_ms(&r->ss);
		if (held >= 0 && (r->dump || held < timeout))
			timeout = held;
		if (app_step_ready(&r->app))
			timeout = held = 0;
		/* work between keys: polled for input before each step */
		if (!r->dump && app_idle_pending(&r->app))
			timeout = 0;
		p[np].fd = r->sigfd;
		p[np++].events = POLLIN;
		p[np].fd = r->ss.worker_done || r->ss.held || app_busy(&r->app)
		               ? -1
		               : worker_fd(r->ss.w);
		p[np++].events = POLLIN;
		p[np].fd = saver_fd(r->saver);
		p[np++].events = POLLIN;
		p[np].fd = r->dump ? -1 : r->t.fd;
		p[np++].events = POLLIN;
		p[np].fd = errcap_fd(&r->ec);
		p[np++].events = POLLIN;
		p[np].fd = builder_fd(r->builder);
		p[np++].events = POLLIN;
		k = poll(p, np, r->dump && held < 0 ? -1 : timeout);
		if (k < 0 && errno != EINTR) {
			r->code = EXIT_ERROR;
			break;
		}
		if (p[0].revents)
			take_signals(r);
		if (p[1].revents || r->ss.held)
			take_worker(r);
		if (p[2].revents)
			take_saver(r);
		if (p[3].revents & (POLLHUP | POLLERR | POLLNVAL)) {
			/* the terminal is gone: exit rather than spin */
			r->quit = true;
			r->code = EXIT_ERROR;
			break;
		}
		if (p[3].revents & POLLIN)
			take_input(r);
		if (p[4].revents)
			take_stderr(r);
		if (app_busy(&r->app) && !r->quit)
			take_step(r);
		if (k == 0 && !r->dump && !r->quit &&
		    app_idle_pending(&r->app)) {
			app_idle(&r->app);
			if (!app_idle_pending(&r->app))
				events_emit(r->app.o.events, "idle done");
		}
		if (!app_busy(&r->app) && !r->ss.held && !r->ss.worker_done &&
		    !r->quit)
			take_worker(
			    r); /* what waited for the window taken in */
		now = mono_ns();
		if (now >= due)
			r->dirty = true;
		if (now >= r->next_tick) {
			r->dirty = true;
			while (r->next_tick <= now)
				r->next_tick += period;
		}
	}
	if (!r->dump && r->dirty && !r->code && r->s.rows)
		draw(r);
}

static void join_endpoints(char *dst, size_t size, const struct adapter *a)
{
	dst[0] = '\0';
	if (a->nendpoints > 1) {
		snprintf(dst, size, "%zu files", a->nendpoints);
		return;
	}
	if (a->nendpoints == 1)
		snprintf(dst, size, "%s", a->endpoints[0]);
}

static int start(struct run *r, const struct adapter_registry *reg, int events)
{
	const struct opts *o = r->o;
	struct session_opts so = {
		.prog = o->prog,
		.cmd = NULL,
		.output = LAUNCH_OUTPUT_LOG,
		.stop_grace_ms = STOP_GRACE_MS,
		.events = events,
		.sigfd = r->sigfd,
	};
	const struct adapter_ops *ops;
	struct worker_opts wo;
	struct app_opts ao;
	struct stat sb;
	char notice[512];
	int code, bad;
	enum status st;

	code = session_resolve(&r->ss, o, reg, &so);
	if (code)
		return code;
	ops = r->ss.ops;
	bad = stat(o->save_dir, &sb) != 0 ? errno : 0;
	if (bad || !S_ISDIR(sb.st_mode)) {
		char text[2048];

		snprintf(text, sizeof(text), "-d %s: %s (saves go there)",
		         o->save_dir,
		         bad == ENOENT ? "no such directory"
		         : bad         ? strerror(bad)
		                       : "not a directory");
		return usage_error(o, text);
	}
	code =
	    session_probe_saves(o->prog, o->save_dir, notice, sizeof(notice));
	if (code)
		return code;
	if (!r->dump) {
		char why[256];

		if (term_check(why, sizeof(why)) != STATUS_OK) {
			safe_sayf(
			    o->prog,
			    "%s; use '%s record' to save windows, or --dump-screen COLSxROWS to print the screen as text",
			    why, o->prog);
			return EXIT_USAGE;
		}
	}
	code = session_open(&r->ss);
	if (code)
		return code;
	join_endpoints(r->endpoint, sizeof(r->endpoint), r->ss.a);
	memset(&ao, 0, sizeof(ao));
	ao.prog = o->prog;
	ao.adapter = ops->name;
	ao.endpoint = r->endpoint;
	ao.also = r->ss.also;
	ao.window_ns = o->window_ns;
	ao.window_clamped = o->window_clamped;
	ao.refresh_ns = o->refresh_ns;
	ao.metric = o->metric;
	ao.save_dir = o->save_dir;
	ao.history = (size_t)o->history;
	ao.warn = (struct warn_cfg){ .poll_ns = o->warn_poll_ms * 1000000,
		                     .idle_windows = o->warn_idle };
	ao.exit_after = o->exit_after;
	ao.replay = (ops->flags & ADAPTER_FINITE) != 0;
	ao.events = events;
	if (app_init(&r->app, &ao) != STATUS_OK) {
		safe_say(o->prog, status_str(STATUS_NOMEM));
		return EXIT_ERROR;
	}
	st = saver_new(&r->saver);
	if (st != STATUS_OK) {
		safe_sayf(o->prog, "cannot start the saver: %s",
		          status_str(st));
		return EXIT_ERROR;
	}
	r->app.saver = r->saver;
	st = builder_new(&r->builder);
	if (st != STATUS_OK) {
		safe_sayf(o->prog, "cannot start the builder: %s",
		          status_str(st));
		return EXIT_ERROR;
	}
	r->app.builder = r->builder;
	if (notice[0])
		app_set_status(&r->app, true, "%s", notice);
	if (r->ss.child.log[0]) {
		/* the header names the program's log (docs/launch.md) */
		size_t used = strlen(r->app.title);

		snprintf(r->app.title + used, sizeof(r->app.title) - used,
		         " \xC2\xB7 log %s", r->ss.child.log);
	}
	if (!r->dump) {
		char err[512];

		setlocale(LC_CTYPE, "");
		if (term_open(&r->t, err, sizeof(err)) != STATUS_OK) {
			safe_sayf(
			    o->prog,
			    "%s\nThe live viewer needs a terminal; use '%s record' to save windows, or --dump-screen COLSxROWS.",
			    err, o->prog);
			return EXIT_ERROR;
		}
		r->app.flags = r->t.utf8 ? 0 : UTF8_ASCII;
		if (errcap_start(&r->ec, true) != STATUS_OK)
			snprintf(
			    r->app.status, sizeof(r->app.status),
			    "stderr is not captured: messages written to it may mar the screen");
	}
	memset(&wo, 0, sizeof(wo));
	wo.window_ns = o->window_ns;
	wo.refresh_ns = o->refresh_ns;
	wo.retry_base_ns = RETRY_BASE_NS;
	wo.retry_max_ns = RETRY_MAX_NS;
	st = session_start(&r->ss, &wo);
	if (st != STATUS_OK) {
		screen_off(r);
		safe_sayf(o->prog, "cannot start the source's worker: %s",
		          status_str(st));
		return EXIT_ERROR;
	}
	app_set_now(&r->app, r->dump ? 0 : mono_ns());
	r->app.since_ns = r->app.now_ns;
	return 0;
}

static void dump(struct run *r)
{
	struct buf out;

	buf_init(&out);
	app_set_now(&r->app, r->app.since_ns);
	if (screen_dump(&r->app, (size_t)r->o->dump_cols,
	                (size_t)r->o->dump_rows, &out) != STATUS_OK ||
	    fwrite(out.data ? out.data : "", 1, out.len, stdout) != out.len ||
	    fflush(stdout) != 0) {
		safe_say(r->o->prog, "cannot write the screen dump");
		r->code = EXIT_ERROR;
	}
	events_emit(r->app.o.events, "drawn");
	buf_fini(&out);
}

int app_run(const struct opts *o, const struct adapter_registry *reg,
            int events, bool *abandoned)
{
	struct run r;
	int code;

	memset(&r, 0, sizeof(r));
	r.o = o;
	r.t.fd = -1;
	r.dump = o->dump_cols != 0;
	errcap_init(&r.ec);
	if (o->notice[0])
		safe_say(o->prog, o->notice);
	r.sigfd = signals_install();
	if (r.sigfd < 0) {
		safe_say(o->prog, "cannot install signal handlers");
		code = EXIT_ERROR;
	} else {
		code = start(&r, reg, events);
	}
	if (!code) {
		loop(&r);
		screen_off(&r);
		if (r.dump && (!r.code || r.source_failed))
			dump(&r);
		/* the saves read the model: they end before the intake
		 * changes it */
		finish_saves(&r);
		app_intake_stop(&r.app);
		session_drain(&r.ss);
		code = r.code;
	}
	term_close(&r.t);
	errcap_stop(&r.ec);
	session_close(&r.ss);
	saver_free(r.saver);
	builder_free(r.builder);
	if (r.app.m)
		app_fini(&r.app);
	screen_fini(&r.s);
	signals_restore();
	*abandoned = r.ss.abandoned;
	return code;
}
