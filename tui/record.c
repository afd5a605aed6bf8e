/* The record loop: one worker per source, one poll() over its pipe and the
 * signal self-pipe; each finished window is folded, encoded and saved
 * atomically, and the exit status follows docs/design.md §5. */
#include "tui/record.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <locale.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "adapters/worker.h"
#include "model/alloc.h"
#include "model/buf.h"
#include "model/model.h"
#include "tui/app.h"
#include "tui/comments.h"
#include "tui/events.h"
#include "tui/exit.h"
#include "tui/output.h"
#include "tui/safe.h"
#include "tui/session.h"
#include "tui/signals.h"

/* How long a source may take to stop before record gives up on it. */
#define STOP_GRACE_MS 5000

struct rec {
	const struct opts *o;
	struct session ss;
	struct model *m;
	const char *output; /* o->output, or "-" for text by default */
	int sigfd;
	int events;
	bool numbered;
	bool auto_name;   /* no -o with a command: named as the viewer saves */
	bool child_ended; /* the launched program ended by itself */
	bool output_closed; /* standard output's reader went away */
	bool replay;        /* windows carried through as loaded */
	bool had_data;      /* a window with data was committed */
	bool error;         /* exit 1 */
	bool unreachable;   /* exit 3, when before any data */
	int signo;          /* first stopping signal received */
	uint64_t saved;     /* windows saved */
	uint64_t received;  /* windows taken in (data or empty) */
	uint64_t count;     /* windows to take; 0: until the end */
	struct buf enc;
};

static void event(struct rec *r, const char *fmt, ...) PRINTF(2, 3);

static void event(struct rec *r, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	events_vemit(r->events, fmt, ap);
	va_end(ap);
}
/* One paragraph on stderr, prefixed with the program name. */
static void say(struct rec *r, const char *text)
{
	safe_say(r->o->prog, text);
}

static void fail(struct rec *r, const char *text)
{
	say(r, text);
	event(r, "error %s", text);
}

/* ---- windows ------------------------------------------------------------ */

static void stop(struct rec *r)
{
	session_stop(&r->ss);
}

/* Saves the encoded window k; false after a reported failure. */
static bool save(struct rec *r, uint64_t k, const struct window *win)
{
	char written[4096 + 32], msg[8448], name[4096];
	const char *output = r->output;
	bool numbered = r->numbered;
	enum status st;

	if (r->auto_name) {
		int metric = r->o->format == CLI_FORMAT_COLLAPSED
		                 ? (int)r->o->metric
		                 : -1;

		if (app_save_path(name, sizeof(name), ".", r->ss.ops->name, win,
		                  metric) != STATUS_OK) {
			fail(r, "cannot name the file to save");
			return false;
		}
		output = name;
		numbered = false;
	}
	st = output_save(output, r->o, numbered, k, r->saved == 0, &r->enc,
	                 written, sizeof(written), msg, sizeof(msg));
	if (st == STATUS_EOF) {
		/* `| head` has read enough: end quietly */
		event(r, "output closed");
		r->output_closed = true;
		return false;
	}
	if (st != STATUS_OK) {
		fail(r, msg);
		return false;
	}
	r->saved++;
	event(r, "saved %s", written);
	return true;
}

static void report(struct rec *r, const struct adapter_error *e, double seconds)
{
	char msg[2048];

	session_format_error(&r->ss, e, seconds, msg, sizeof(msg));
	fail(r, msg);
}

static void no_data(struct rec *r, const struct window_meta *meta)
{
	struct adapter_error e;

	memset(&e, 0, sizeof(e));
	e.st = STATUS_EMPTY_WINDOW;
	report(r, &e,
	       meta->duration_nanos > 0 ? (double)meta->duration_nanos / 1e9
	                                : 0.0);
}

static void take_window(struct rec *r, const struct worker_msg *msg)
{
	struct sample_sink sink = model_sink(r->m);
	const struct window *win = NULL;
	struct window_meta meta;
	struct comments c;
	char text[512];
	enum status st;

	r->received++;
	st = model_begin(r->m);
	if (st == STATUS_OK) {
		st = worker_msg_feed(msg, &sink);
		if (st == STATUS_LIMIT)
			st = STATUS_OK;
	}
	if (st == STATUS_OK) {
		comments_add(&msg->meta, r->replay, r->ss.source, NULL, &meta,
		             &c);
		st = model_commit(r->m, &meta, &win);
	}
	if (st != STATUS_OK && st != STATUS_EMPTY_WINDOW) {
		model_abort(r->m);
		snprintf(text, sizeof(text), "window %" PRIu64 " lost: %s",
		         msg->index, status_str(st));
		fail(r, text);
		r->error = true;
		return;
	}
	event(r, "window %" PRIu64 " committed", msg->index);
	if (st == STATUS_OK)
		st = output_encode(r->m, win, r->o,
		                   r->o->format == CLI_FORMAT_TEXT &&
		                       !strcmp(r->output, "-") &&
		                       isatty(STDOUT_FILENO),
		                   &r->enc);
	if (st == STATUS_EMPTY_WINDOW) {
		event(r, "window %" PRIu64 " empty", msg->index);
		no_data(r, &msg->meta);
		return;
	}
	r->had_data = true;
	if (st != STATUS_OK) {
		snprintf(text, sizeof(text),
		         "cannot encode window %" PRIu64 ": %s", msg->index,
		         status_str(st));
		fail(r, text);
		r->error = true;
		return;
	}
	if (!save(r, msg->index, win)) {
		r->error = !r->output_closed;
		stop(r);
	}
}

static void take_error(struct rec *r, const struct worker_msg *msg)
{
	enum status st = msg->err.st;

	if (st == STATUS_EMPTY_WINDOW) {
		r->received++;
		event(r, "window %" PRIu64 " empty", msg->index);
		no_data(r, &msg->meta);
		return;
	}
	report(r, &msg->err, 0.0);
	if ((st == STATUS_UNREACHABLE || st == STATUS_TIMEOUT) &&
	    !r->had_data) {
		r->unreachable = true;
		stop(r);
		return;
	}
	r->error = true;
	if (st == STATUS_UNREACHABLE)
		stop(r);
}

/* Handles one message; false once the worker is done. */
static bool take(struct rec *r, const struct worker_msg *msg)
{
	switch (msg->kind) {
	case WORKER_WINDOW:
		/* After a stop, only windows completed before it count; when
		 * the program ended, its last partial window too. */
		if (r->ss.stopping && msg->meta.partial && !r->child_ended)
			return true;
		if (r->count && r->received >= r->count)
			return true;
		take_window(r, msg);
		if (r->count && r->received >= r->count)
			stop(r);
		return true;
	case WORKER_PROGRESS:
		return true;
	case WORKER_STATE:
		if (msg->state == SOURCE_REPLAY)
			r->replay = true;
		event(r, "state %s", source_state_str(msg->state));
		return true;
	case WORKER_ERROR:
		take_error(r, msg);
		return true;
	case WORKER_DONE:
		/* e.g. messages lost to memory on the way */
		if (msg->err.st != STATUS_OK) {
			report(r, &msg->err, 0.0);
			r->error = true;
		}
		return false;
	}
	return true;
}

/* The launched program ended by itself: say how, and end the recording
 * with the window in progress. */
static void check_child(struct rec *r)
{
	char msg[4096];

	if (!session_child_ended(&r->ss, msg, sizeof(msg)))
		return;
	say(r, msg);
	r->child_ended = true;
	stop(r);
}

/* ^Z: the launched program's group stops with us and goes on with us. */
static void suspend(struct rec *r)
{
	session_pause_child(&r->ss, true);
	signals_stop_self();
	session_pause_child(&r->ss, false);
}

static void take_signals(struct rec *r)
{
	unsigned char b[16];
	ssize_t n;
	char msg[256];

	while ((n = read(r->sigfd, b, sizeof(b))) > 0) {
		for (ssize_t i = 0; i < n; i++) {
			if (b[i] == SIGTSTP) {
				suspend(r);
			} else if (b[i] == SIGCHLD) {
				check_child(r);
			} else if (!signals_is_stop(b[i])) {
				continue;
			} else if (!r->signo) {
				r->signo = b[i];
				event(r, "signal %d", r->signo);
				stop(r);
			} else if (!r->ss.abandoned) {
				snprintf(
				    msg, sizeof(msg),
				    "interrupted again: not waiting for the %s source to stop",
				    r->ss.ops->name);
				say(r, msg);
				r->ss.abandoned = true;
			}
		}
	}
}

/* Reads the worker's messages until none is waiting or one is held (a
 * launched program's error that may be its end); false once the worker is
 * done or lost. */
static bool take_worker(struct rec *r)
{
	struct worker_msg *msg = session_release(&r->ss);
	bool running = true;

	if (msg) {
		running = take(r, msg);
		worker_msg_free(msg);
		check_child(r);
	}
	while (running && !r->ss.held) {
		enum status st = worker_read(r->ss.w, &msg);

		if (st == STATUS_AGAIN)
			break;
		if (st != STATUS_OK) {
			fail(r, "lost the worker's pipe");
			r->error = true;
			return false;
		}
		switch (session_screen(&r->ss, msg)) {
		case SESSION_TAKE:
			running = take(r, msg);
			worker_msg_free(msg);
			break;
		case SESSION_DROP:
			worker_msg_free(msg);
			break;
		case SESSION_HOLD:
			break;
		}
		check_child(r);
	}
	return running;
}

static void loop(struct rec *r)
{
	struct pollfd p[2];
	bool running = true;

	while (running && !r->ss.abandoned) {
		int timeout = session_stop_left_ms(&r->ss), k;
		int held = session_held_ms(&r->ss);

		if (timeout == 0) {
			session_give_up(&r->ss);
			/* hung before any data: still unreachable (exit 3) */
			if (!r->unreachable)
				r->error = true;
			break;
		}
		if (held >= 0 && (timeout < 0 || held < timeout))
			timeout = held;
		p[0].fd = r->sigfd;
		p[0].events = POLLIN;
		p[1].fd = r->ss.held ? -1 : worker_fd(r->ss.w);
		p[1].events = POLLIN;
		k = poll(p, 2, timeout);
		if (k < 0 && errno != EINTR) {
			fail(r, "poll failed");
			r->error = true;
			break;
		}
		if (k > 0 && p[0].revents)
			take_signals(r);
		if ((k > 0 && p[1].revents) || r->ss.held)
			running = take_worker(r);
	}
}

/* ---- set-up ------------------------------------------------------------- */

static int usage_error(const struct opts *o, const char *text)
{
	safe_sayf(NULL, "%s record: %s\n(see '%s record --help')", o->prog,
	          text, o->prog);
	return EXIT_USAGE;
}

static bool is_dir(const char *path)
{
	struct stat sb;

	return stat(path, &sb) == 0 && S_ISDIR(sb.st_mode);
}

/* Decides the window count and numbering; 0 or a usage exit status. */
static int plan(struct rec *r, uint64_t *count)
{
	const struct opts *o = r->o;

	*count = o->count;
	r->numbered = o->count != 1;
	if (!o->count_set && (r->ss.ops->flags & ADAPTER_FINITE)) {
		/* replay: every window the files hold; one file, one name */
		*count = 0;
		r->numbered = !(o->nendpoints == 1 && !is_dir(o->endpoints[0]));
	}
	if (!o->count_set && o->ncommand) {
		/* a program's whole run, as a profiler of one would */
		*count = 0;
		r->numbered = true;
	}
	r->output = o->output;
	if (!r->output && o->ncommand && o->format != CLI_FORMAT_TEXT) {
		r->auto_name = true;
		r->output = "";
		return 0;
	}
	if (!r->output) {
		if (o->format != CLI_FORMAT_TEXT)
			return usage_error(
			    o,
			    "-o FILE is required (-o - writes to standard output)");
		r->output = "-";
	}
	if (!strcmp(r->output, "-") && o->format != CLI_FORMAT_TEXT) {
		if (r->numbered)
			return usage_error(
			    o,
			    "-o - writes one window only: use -n 1, or a file name (numbered per window)");
		if (o->format == CLI_FORMAT_PPROF && isatty(STDOUT_FILENO))
			return usage_error(
			    o,
			    "refusing to write a gzip profile to a terminal");
	}
	return 0;
}

/* Fails early (exit 1) when the first file cannot be written. */
static int check_output(struct rec *r)
{
	char msg[8448];

	if (r->auto_name) {
		char text[8600];

		/* named per window later, in the working directory */
		if (output_probe("./asynctop-probe", msg, sizeof(msg)) ==
		    STATUS_OK)
			return 0;
		snprintf(text, sizeof(text),
		         "cannot save windows in the working directory: %s",
		         msg);
		fail(r, text);
		return EXIT_ERROR;
	}
	if (output_check(r->output, r->numbered, r->o->force, msg,
	                 sizeof(msg)) != STATUS_OK) {
		fail(r, msg);
		return EXIT_ERROR;
	}
	return 0;
}

static int finish(struct rec *r)
{
	int code;

	if (r->signo)
		code = EXIT_SIGNAL + r->signo;
	else if (r->error)
		code = EXIT_ERROR;
	else if (r->unreachable && !r->child_ended)
		code = EXIT_UNREACHABLE;
	else if (!r->had_data)
		code = EXIT_NO_DATA;
	else
		code = EXIT_OK;
	return code;
}

static int run(struct rec *r, const struct adapter_registry *reg)
{
	const struct opts *o = r->o;
	struct session_opts so = {
		.prog = o->prog,
		.cmd = "record",
		.output = LAUNCH_OUTPUT_STDERR,
		.stop_grace_ms = STOP_GRACE_MS,
		.events = r->events,
		.sigfd = r->sigfd,
	};
	struct worker_opts wo;
	int code;
	enum status st;

	code = session_resolve(&r->ss, o, reg, &so);
	if (code)
		return code;
	code = plan(r, &r->count);
	if (code)
		return code;
	code = check_output(r);
	if (code)
		return code;
	code = session_open(&r->ss);
	if (code) {
		r->signo = r->ss.signo;
		return code;
	}
	r->replay = (r->ss.ops->flags & ADAPTER_FINITE) != 0;
	st = model_new(NULL, &r->m);
	memset(&wo, 0, sizeof(wo));
	wo.window_ns = o->window_ns;
	wo.refresh_ns = o->window_ns;
	wo.max_windows = r->count;
	if (st == STATUS_OK)
		st = session_start(&r->ss, &wo);
	if (st != STATUS_OK) {
		char text[256];

		snprintf(text, sizeof(text), "cannot start recording: %s",
		         status_str(st));
		say(r, text);
		return EXIT_ERROR;
	}
	loop(r);
	return finish(r);
}

int record_run(const struct opts *o, const struct adapter_registry *reg,
               int events, bool *abandoned)
{
	struct rec r;
	int code;

	memset(&r, 0, sizeof(r));
	r.o = o;
	buf_init(&r.enc);
	r.events = events;
	if (o->notice[0])
		say(&r, o->notice);
	r.sigfd = signals_install();
	if (r.sigfd < 0) {
		say(&r, "cannot set up signal handling");
		code = EXIT_ERROR;
	} else {
		code = run(&r, reg);
	}
	session_close(&r.ss);
	signals_restore();
	model_free(r.m);
	buf_fini(&r.enc);
	*abandoned = r.ss.abandoned;
	return code;
}
