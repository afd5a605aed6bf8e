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
#include "encode/pprof.h"
#include "encode/utf8.h"
#include "tui/draw.h"
#include "tui/errcap.h"
#include "tui/events.h"
#include "tui/launch.h"
#include "tui/record.h"
#include "tui/saver.h"
#include "tui/screen_dump.h"
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
	struct adapter *a;
	struct worker *w;
	struct saver *saver;
	struct term t;
	struct screen s;
	struct launch child; /* -- COMMAND */
	const char *ep[1];   /* its agent, as -e */
	int sigfd;
	int code;
	bool quit, dirty, repaint, worker_done, abandon, dump;
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
	fprintf(stderr, "%s: %s\n(see '%s --help')\n", o->prog, text, o->prog);
	return RECORD_EXIT_USAGE;
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
		term_suspend(&r->t);
		r->dirty = r->repaint = true;
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
				term_resize(&r->t);
				r->dirty = r->repaint = true;
				break;
			default:
				events_emit(r->app.o.events, "signal %d", b[i]);
				if (!r->quit)
					r->code = RECORD_EXIT_SIGNAL + b[i];
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
		              ? RECORD_EXIT_UNREACHABLE
		              : RECORD_EXIT_ERROR;
	}
	if (r->source_failed && msg->kind == WORKER_STATE &&
	    msg->state == SOURCE_RETRYING)
		r->quit = true;
}

static void take_worker(struct run *r)
{
	for (;;) {
		struct worker_msg *msg = NULL;
		enum status st = worker_read(r->w, &msg);

		if (st != STATUS_OK)
			return;
		app_set_now(&r->app, r->dump ? 0 : mono_ns());
		app_take(&r->app, msg);
		if (msg->kind == WORKER_DONE)
			r->worker_done = true;
		if (r->dump && !r->app.o.replay)
			dump_at_failure(r, msg);
		worker_msg_free(msg);
		r->dirty = true;
		if (r->o->exit_after && r->app.committed >= r->o->exit_after)
			r->quit = true;
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
		if (res.st == STATUS_OK) {
			snprintf(r->app.status, sizeof(r->app.status),
			         "saved %s", res.written);
			r->app.status_error = false;
			events_emit(r->app.o.events, "saved %s", res.written);
		} else {
			snprintf(r->app.status, sizeof(r->app.status),
			         "cannot save: %s",
			         res.err[0] ? res.err : status_str(res.st));
			r->app.status_error = true;
			events_emit(r->app.o.events, "error %s", r->app.status);
		}
		r->dirty = true;
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
			r->code = RECORD_EXIT_ERROR;
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
		struct pollfd p[5];
		nfds_t np = 0;
		int timeout, k;
		uint64_t now, due;

		if (!r->dump && r->dirty)
			draw(r);
		if (r->quit)
			break;
		if (r->dump && r->worker_done)
			break;
		now = mono_ns();
		due = u64_min(r->next_tick, app_next_change(&r->app));
		timeout =
		    now >= due ? 0 : (int)((due - now + 999999) / 1000000);
		p[np].fd = r->sigfd;
		p[np++].events = POLLIN;
		p[np].fd = r->worker_done ? -1 : worker_fd(r->w);
		p[np++].events = POLLIN;
		p[np].fd = saver_fd(r->saver);
		p[np++].events = POLLIN;
		p[np].fd = r->dump ? -1 : r->t.fd;
		p[np++].events = POLLIN;
		p[np].fd = errcap_fd(&r->ec);
		p[np++].events = POLLIN;
		k = poll(p, np, r->dump ? -1 : timeout);
		if (k < 0 && errno != EINTR) {
			r->code = RECORD_EXIT_ERROR;
			break;
		}
		if (p[0].revents)
			take_signals(r);
		if (p[1].revents)
			take_worker(r);
		if (p[2].revents)
			take_saver(r);
		if (p[3].revents & (POLLHUP | POLLERR | POLLNVAL)) {
			/* the terminal is gone: exit rather than spin */
			r->quit = true;
			r->code = RECORD_EXIT_ERROR;
			break;
		}
		if (p[3].revents & POLLIN)
			take_input(r);
		if (p[4].revents)
			take_stderr(r);
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

/* Stops the worker, waiting up to STOP_GRACE_MS for it (the terminal is
 * already restored); a source that will not stop is abandoned. */
static void stop_worker(struct run *r)
{
	uint64_t until = mono_ns() + (uint64_t)STOP_GRACE_MS * 1000000u;

	if (!r->w)
		return;
	worker_stop(r->w);
	while (!r->worker_done) {
		struct pollfd p = { worker_fd(r->w), POLLIN, 0 };
		uint64_t now = mono_ns();
		struct worker_msg *msg = NULL;

		if (now >= until) {
			fprintf(stderr,
			        "%s: the %s source did not stop within %d s; "
			        "leaving it\n",
			        r->o->prog, r->app.o.adapter,
			        STOP_GRACE_MS / 1000);
			r->abandon = true;
			return;
		}
		if (poll(&p, 1, (int)((until - now) / 1000000u) + 1) <= 0)
			continue;
		while (worker_read(r->w, &msg) == STATUS_OK) {
			if (msg->kind == WORKER_DONE)
				r->worker_done = true;
			worker_msg_free(msg);
		}
	}
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

/* -- COMMAND: start it (output to a log) and wait for its agent, with
 * the signal pipe installed so ^C ends the wait; 0 or an exit status. */
static int launch(struct run *r, int events)
{
	char err[4096];
	enum status st;

	r->sigfd = term_signals_install();
	if (r->sigfd < 0) {
		fprintf(stderr, "%s: cannot install signal handlers\n",
		        r->o->prog);
		return RECORD_EXIT_ERROR;
	}
	st = launch_start(&r->child, r->o->command, LAUNCH_OUTPUT_LOG, err,
	                  sizeof(err));
	if (st != STATUS_OK) {
		fprintf(stderr, "%s: %s\n", r->o->prog,
		        st == STATUS_NOMEM ? status_str(st) : err);
		return st == STATUS_NOMEM ? RECORD_EXIT_ERROR
		                          : RECORD_EXIT_USAGE;
	}
	events_emit(events, "launched %ld", (long)r->child.pid);
	st = launch_wait(&r->child, launch_timeout_ns(), r->sigfd, err,
	                 sizeof(err));
	if (st == STATUS_STOPPED) {
		unsigned char b = SIGINT;

		if (read(r->sigfd, &b, 1) < 0) {
			/* nothing: SIGINT is the likely one */
		}
		return RECORD_EXIT_SIGNAL + b;
	}
	if (st != STATUS_OK) {
		fprintf(stderr, "%s: %s\n", r->o->prog, err);
		events_emit(events, "error %s", err);
		return RECORD_EXIT_UNREACHABLE;
	}
	events_emit(events, "announced %ld", r->child.agent_pid);
	r->ep[0] = r->child.endpoint;
	return 0;
}

/* Ends the program (unless --keep) once the terminal is back. */
static void end_child(struct run *r, int events)
{
	/* --keep once attached; a program never attached is ended */
	bool keep = r->o->keep && r->child.agent_pid;
	long pids[8];
	size_t n;

	if (!r->child.pid)
		return;
	n = launch_others(&r->child, pids, ARRAY_SIZE(pids));
	if (n) {
		fprintf(stderr,
		        "%s: other processes of %s announced an agent too "
		        "(attach with -e PID):",
		        r->o->prog, r->child.name);
		for (size_t i = 0; i < n && i < ARRAY_SIZE(pids); i++) {
			events_emit(events, "listed %ld", pids[i]);
			fprintf(stderr, " %ld", pids[i]);
		}
		fputc('\n', stderr);
	}
	if (keep && !launch_exited(&r->child))
		fprintf(stderr, "%s: left %s running as pid %ld\n", r->o->prog,
		        r->child.name, (long)r->child.pid);
	if (r->child.log[0])
		fprintf(stderr, "%s: the output of %s is in %s\n", r->o->prog,
		        r->child.name, r->child.log);
	launch_end(&r->child, keep);
	if (!keep)
		events_emit(events, "ended %ld", r->child.agent_pid);
}

static int start(struct run *r, const struct adapter_registry *reg, int events,
                 char *endpoint, size_t epsz)
{
	const struct opts *o = r->o;
	const struct adapter_ops *ops;
	struct adapter_config cfg;
	struct adapter_error aerr;
	struct worker_opts wo;
	struct app_opts ao;
	struct stat sb;
	char text[2048];
	enum status st;

	const char *adapter = o->adapter;
	const char *const *eps = o->endpoints;
	size_t neps = o->nendpoints;

	if (o->ncommand) {
		/* asyncio is implied (docs/design.md §8) */
		if (!adapter)
			adapter = "asyncio";
		if (neps)
			return usage_error(o,
			                   "-e and '-- COMMAND' exclude each "
			                   "other: asynctop attaches to the "
			                   "program it starts");
	}
	if (!adapter) {
		snprintf(text, sizeof(text),
		         "no adapter given.  The tokio adapter (the default) "
		         "is not available yet, so say which source to "
		         "watch: -a ADAPTER [-e ENDPOINT] (see '%s "
		         "adapters'), e.g. '%s -a replay -e DIR' to browse "
		         "saved profiles",
		         o->prog, o->prog);
		return usage_error(o, text);
	}
	ops = adapter_find(reg, adapter);
	if (!ops) {
		adapter_format_unknown(reg, adapter, text, sizeof(text));
		fprintf(stderr, "%s: %s\n", o->prog, text);
		return RECORD_EXIT_USAGE;
	}
	if (o->ncommand && strcmp(ops->name, "asyncio")) {
		snprintf(text, sizeof(text),
		         "'-- COMMAND' starts Python programs for the asyncio "
		         "adapter, not for %s",
		         ops->name);
		return usage_error(o, text);
	}
	if (stat(o->save_dir, &sb) != 0 || !S_ISDIR(sb.st_mode)) {
		snprintf(text, sizeof(text),
		         "-d %s: not a directory (saves go there)",
		         o->save_dir);
		return usage_error(o, text);
	}
	if (o->ncommand) {
		int code = launch(r, events);

		if (code)
			return code;
		eps = r->ep;
		neps = 1;
	}
	adapter_config_default(&cfg);
	cfg.loader = pprof_load;
	cfg.load_limits = o->limits;
	memset(&aerr, 0, sizeof(aerr));
	st = adapter_open(ops, eps, neps, &cfg, &aerr, &r->a);
	if (st != STATUS_OK) {
		if (st == STATUS_INVAL && aerr.remediation[0]) {
			/* as in record: e.g. the agents to choose from */
			fprintf(stderr, "%s: %s\n%s\n", o->prog, aerr.detail,
			        aerr.remediation);
			return RECORD_EXIT_USAGE;
		}
		if (st == STATUS_INVAL)
			return usage_error(o, aerr.detail[0] ? aerr.detail
			                                     : status_str(st));
		adapter_format_error(&aerr, ops->name, neps ? eps[0] : "", 0.0,
		                     text, sizeof(text));
		fprintf(stderr, "%s: %s\n", o->prog, text);
		/* nothing to retry when nothing was found to attach to */
		return st == STATUS_UNREACHABLE ? RECORD_EXIT_UNREACHABLE
		                                : RECORD_EXIT_ERROR;
	}
	join_endpoints(endpoint, epsz, r->a);
	memset(&ao, 0, sizeof(ao));
	ao.prog = o->prog;
	ao.adapter = ops->name;
	ao.endpoint = endpoint;
	ao.window_ns = o->window_ns;
	ao.window_clamped = o->window_clamped;
	ao.refresh_ns = o->refresh_ns;
	ao.metric = o->metric;
	ao.save_dir = o->save_dir;
	ao.history = (size_t)o->history;
	ao.exit_after = o->exit_after;
	ao.replay = (ops->flags & ADAPTER_FINITE) != 0;
	ao.events = events;
	if (app_init(&r->app, &ao) != STATUS_OK) {
		fprintf(stderr, "%s: %s\n", o->prog, status_str(STATUS_NOMEM));
		return RECORD_EXIT_ERROR;
	}
	st = saver_new(&r->saver);
	if (st != STATUS_OK) {
		fprintf(stderr, "%s: cannot start the saver: %s\n", o->prog,
		        status_str(st));
		return RECORD_EXIT_ERROR;
	}
	r->app.saver = r->saver;
	if (r->child.log[0]) {
		/* the header names the program's log (docs/design.md §8) */
		size_t used = strlen(r->app.title);

		snprintf(r->app.title + used, sizeof(r->app.title) - used,
		         " \xC2\xB7 log %s", r->child.log);
	}
	if (r->sigfd < 0)
		r->sigfd = term_signals_install();
	if (r->sigfd < 0) {
		fprintf(stderr, "%s: cannot install signal handlers\n",
		        o->prog);
		return RECORD_EXIT_ERROR;
	}
	if (!r->dump) {
		char err[512];

		setlocale(LC_CTYPE, "");
		if (term_open(&r->t, err, sizeof(err)) != STATUS_OK) {
			fprintf(stderr,
			        "%s: %s\nThe live viewer needs a terminal; use "
			        "'%s record' to save windows, or "
			        "--dump-screen COLSxROWS.\n",
			        o->prog, err, o->prog);
			return RECORD_EXIT_ERROR;
		}
		r->app.flags = r->t.utf8 ? 0 : UTF8_ASCII;
		if (errcap_start(&r->ec, true) != STATUS_OK)
			snprintf(r->app.status, sizeof(r->app.status),
			         "stderr is not captured: messages written "
			         "to it may mar the screen");
	}
	memset(&wo, 0, sizeof(wo));
	wo.window_ns = o->window_ns;
	wo.refresh_ns = o->refresh_ns;
	wo.retry_base_ns = RETRY_BASE_NS;
	wo.retry_max_ns = RETRY_MAX_NS;
	st = worker_start(r->a, &wo, &r->w);
	if (st != STATUS_OK) {
		screen_off(r);
		fprintf(stderr, "%s: cannot start the source's worker: %s\n",
		        o->prog, status_str(st));
		return RECORD_EXIT_ERROR;
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
		fprintf(stderr, "%s: cannot write the screen dump\n",
		        r->o->prog);
		r->code = RECORD_EXIT_ERROR;
	}
	events_emit(r->app.o.events, "drawn");
	buf_fini(&out);
}

int app_run(const struct opts *o, const struct adapter_registry *reg,
            int events, bool *abandoned)
{
	struct run r;
	char endpoint[1024];
	int code;

	memset(&r, 0, sizeof(r));
	r.o = o;
	r.sigfd = -1;
	r.t.fd = -1;
	r.dump = o->dump_cols != 0;
	errcap_init(&r.ec);
	if (o->notice[0])
		fprintf(stderr, "%s: %s\n", o->prog, o->notice);
	code = start(&r, reg, events, endpoint, sizeof(endpoint));
	if (!code) {
		loop(&r);
		screen_off(&r);
		if (r.dump && (!r.code || r.source_failed))
			dump(&r);
		stop_worker(&r);
		code = r.code;
	}
	term_close(&r.t);
	if (!r.abandon) {
		worker_free(r.w);
		adapter_close(r.a);
	}
	errcap_stop(&r.ec);
	end_child(&r, events);
	saver_free(r.saver);
	if (r.app.m)
		app_fini(&r.app);
	screen_fini(&r.s);
	term_signals_restore();
	*abandoned = r.abandon;
	return code;
}
