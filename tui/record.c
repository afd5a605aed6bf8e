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
#include "encode/pprof.h"
#include "model/alloc.h"
#include "model/buf.h"
#include "model/model.h"
#include "tui/comments.h"
#include "tui/events.h"
#include "tui/launch.h"
#include "tui/output.h"

/* How long a source may take to stop before record gives up on it. */
#define STOP_GRACE_MS 5000

/* The write end of the self-pipe, for the handler only. */
static volatile sig_atomic_t sig_fd = -1;

static void on_signal(int signo)
{
	int saved = errno;
	unsigned char b = (unsigned char)signo;

	if (sig_fd >= 0 && write(sig_fd, &b, 1) < 0) {
		/* full pipe: a signal is already pending */
	}
	errno = saved;
}

static const int handled_signals[] = { SIGINT, SIGTERM, SIGHUP };

struct rec {
	const struct opts *o;
	const struct adapter_ops *ops;
	struct adapter *a;
	struct worker *w;
	struct model *m;
	const char *output; /* o->output, or "-" for text by default */
	int pipe[2];
	int events;
	struct sigaction old[ARRAY_SIZE(handled_signals)];
	struct sigaction old_pipe;
	bool installed;
	bool numbered;
	bool replay;      /* windows carried through as loaded */
	bool had_data;    /* a window with data was committed */
	bool error;       /* exit 1 */
	bool unreachable; /* exit 3, when before any data */
	bool stopping;
	bool abandon;      /* the source would not stop: leave it */
	int signo;         /* first signal received */
	uint64_t saved;    /* windows saved */
	uint64_t received; /* windows taken in (data or empty) */
	uint64_t stop_at;  /* monotonic ms deadline once stopping */
	uint64_t count;    /* windows to take; 0: until the end */
	struct buf enc;
	struct launch child;  /* -- COMMAND */
	const char *ep[1];    /* the endpoint of the launched agent */
	char source[256];     /* "ADAPTER ENDPOINT" */
	const char *endpoint; /* after the adapter's name in source */
};

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

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
	fprintf(stderr, "%s: %s\n", r->o->prog, text);
	fflush(stderr);
}

static void fail(struct rec *r, const char *text)
{
	say(r, text);
	event(r, "error %s", text);
}

/* ---- signals ------------------------------------------------------------ */

static enum status install(struct rec *r)
{
	struct sigaction sa;

	if (pipe(r->pipe) < 0)
		return STATUS_IO;
	for (int i = 0; i < 2; i++) {
		fcntl(r->pipe[i], F_SETFD, FD_CLOEXEC);
		fcntl(r->pipe[i], F_SETFL,
		      fcntl(r->pipe[i], F_GETFL) | O_NONBLOCK);
	}
	sig_fd = r->pipe[1];
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < ARRAY_SIZE(handled_signals); i++)
		sigaction(handled_signals[i], &sa, &r->old[i]);
	sa.sa_handler = SIG_IGN;
	sigaction(SIGPIPE, &sa, &r->old_pipe);
	r->installed = true;
	return STATUS_OK;
}

static void uninstall(struct rec *r)
{
	if (!r->installed)
		return;
	for (size_t i = 0; i < ARRAY_SIZE(handled_signals); i++)
		sigaction(handled_signals[i], &r->old[i], NULL);
	sigaction(SIGPIPE, &r->old_pipe, NULL);
	sig_fd = -1;
	close(r->pipe[0]);
	close(r->pipe[1]);
	r->installed = false;
}

/* ---- windows ------------------------------------------------------------ */

static void stop(struct rec *r)
{
	if (r->stopping)
		return;
	r->stopping = true;
	r->stop_at = now_ms() + STOP_GRACE_MS;
	if (r->w) /* NULL while waiting for a launched program */
		worker_stop(r->w);
}

/* Saves the encoded window k; false after a reported failure. */
static bool save(struct rec *r, uint64_t k)
{
	char written[4096 + 32], msg[8448];

	if (output_save(r->output, r->o, r->numbered, k, r->saved == 0, &r->enc,
	                written, sizeof(written), msg,
	                sizeof(msg)) != STATUS_OK) {
		fail(r, msg);
		return false;
	}
	r->saved++;
	event(r, "saved %s", written);
	return true;
}

/* adapter_format_error with %g in the C locale, whatever an embedder set. */
static void report(struct rec *r, const struct adapter_error *e, double seconds)
{
	locale_t c = newlocale(LC_ALL_MASK, "C", (locale_t)0);
	locale_t old = c ? uselocale(c) : (locale_t)0;
	char msg[2048];

	adapter_format_error(e, r->ops->name, r->endpoint, seconds, msg,
	                     sizeof(msg));
	if (c) {
		uselocale(old);
		freelocale(c);
	}
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
		comments_add(&msg->meta, r->replay, r->source, NULL, &meta, &c);
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
	if (!save(r, msg->index)) {
		r->error = true;
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
		/* After a stop, only windows completed before it count. */
		if (r->stopping && msg->meta.partial)
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

static void take_signals(struct rec *r)
{
	unsigned char b[16];
	ssize_t n;
	char msg[256];

	while ((n = read(r->pipe[0], b, sizeof(b))) > 0) {
		for (ssize_t i = 0; i < n; i++) {
			if (!r->signo) {
				r->signo = b[i];
				event(r, "signal %d", r->signo);
				stop(r);
			} else if (!r->abandon) {
				snprintf(msg, sizeof(msg),
				         "interrupted again: not waiting "
				         "for the %s source to stop",
				         r->ops->name);
				say(r, msg);
				r->abandon = true;
			}
		}
	}
}

static void loop(struct rec *r)
{
	struct pollfd p[2];
	bool running = true;

	while (running && !r->abandon) {
		int timeout = -1, k;

		if (r->stopping) {
			uint64_t now = now_ms();
			if (now >= r->stop_at) {
				char msg[256];
				snprintf(msg, sizeof(msg),
				         "the %s source did not stop within "
				         "%d s; giving up on it",
				         r->ops->name, STOP_GRACE_MS / 1000);
				say(r, msg);
				r->error = true;
				r->abandon = true;
				break;
			}
			timeout = (int)(r->stop_at - now);
		}
		p[0].fd = r->pipe[0];
		p[0].events = POLLIN;
		p[1].fd = worker_fd(r->w);
		p[1].events = POLLIN;
		k = poll(p, 2, timeout);
		if (k < 0 && errno != EINTR) {
			fail(r, "poll failed");
			r->error = true;
			break;
		}
		if (k <= 0)
			continue;
		if (p[0].revents)
			take_signals(r);
		if (!p[1].revents)
			continue;
		for (;;) {
			struct worker_msg *msg = NULL;
			enum status st = worker_read(r->w, &msg);

			if (st == STATUS_AGAIN)
				break;
			if (st != STATUS_OK) {
				fail(r, "lost the worker's pipe");
				r->error = true;
				running = false;
				break;
			}
			running = take(r, msg);
			worker_msg_free(msg);
			if (!running)
				break;
		}
	}
}

/* ---- set-up ------------------------------------------------------------- */

static int usage_error(const struct opts *o, const char *text)
{
	fprintf(stderr, "%s record: %s\n(see '%s record --help')\n", o->prog,
	        text, o->prog);
	return RECORD_EXIT_USAGE;
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
	if (!o->count_set && (r->ops->flags & ADAPTER_FINITE)) {
		/* replay: every window the files hold; one file, one name */
		*count = 0;
		r->numbered = !(o->nendpoints == 1 && !is_dir(o->endpoints[0]));
	}
	r->output = o->output;
	if (!r->output) {
		if (o->format != CLI_FORMAT_TEXT)
			return usage_error(o, "-o FILE is required (-o - "
			                      "writes to standard output)");
		r->output = "-";
	}
	if (!strcmp(r->output, "-") && o->format != CLI_FORMAT_TEXT) {
		if (r->numbered)
			return usage_error(
			    o, "-o - writes one window only: use -n 1, "
			       "or a file name (numbered per window)");
		if (o->format == CLI_FORMAT_PPROF && isatty(STDOUT_FILENO))
			return usage_error(o, "refusing to write a gzip "
			                      "profile to a terminal");
	}
	return 0;
}

/* Fails early (exit 1) when the first file cannot be written. */
static int check_output(struct rec *r)
{
	char msg[8448];

	if (output_check(r->output, r->numbered, r->o->force, msg,
	                 sizeof(msg)) != STATUS_OK) {
		fail(r, msg);
		return RECORD_EXIT_ERROR;
	}
	return 0;
}

static int finish(struct rec *r)
{
	int code;

	if (r->signo)
		code = RECORD_EXIT_SIGNAL + r->signo;
	else if (r->error)
		code = RECORD_EXIT_ERROR;
	else if (r->unreachable)
		code = RECORD_EXIT_UNREACHABLE;
	else if (!r->had_data)
		code = RECORD_EXIT_NO_DATA;
	else
		code = RECORD_EXIT_OK;
	return code;
}

static void join_source(char *dst, size_t size, const struct adapter *a)
{
	snprintf(dst, size, "%s", a->ops->name);
	for (size_t i = 0; i < a->nendpoints; i++) {
		size_t used = strlen(dst);
		snprintf(dst + used, size - used, "%s%s", i ? ", " : " ",
		         a->endpoints[i]);
	}
}

/* -- COMMAND: start it and wait for its agent; 0 or an exit status. */
static int launch(struct rec *r)
{
	char err[4096];
	enum status st;

	if (install(r) != STATUS_OK) {
		say(r, "cannot set up signal handling");
		return RECORD_EXIT_ERROR;
	}
	st = launch_start(&r->child, r->o->command, LAUNCH_OUTPUT_STDERR, err,
	                  sizeof(err));
	if (st != STATUS_OK) {
		fail(r, st == STATUS_NOMEM ? status_str(st) : err);
		return st == STATUS_NOMEM ? RECORD_EXIT_ERROR
		                          : RECORD_EXIT_USAGE;
	}
	event(r, "launched %ld", (long)r->child.pid);
	st = launch_wait(&r->child, launch_timeout_ns(), r->pipe[0], err,
	                 sizeof(err));
	if (st == STATUS_STOPPED) {
		take_signals(r);
		return RECORD_EXIT_SIGNAL + (r->signo ? r->signo : SIGINT);
	}
	if (st != STATUS_OK) {
		fail(r, err);
		return RECORD_EXIT_UNREACHABLE;
	}
	event(r, "announced %ld", r->child.agent_pid);
	r->ep[0] = r->child.endpoint;
	return 0;
}

/* The other processes that announced an agent, and --keep's note. */
static void end_child(struct rec *r)
{
	/* --keep once attached; a program never attached is ended */
	bool keep = r->o->keep && r->child.agent_pid;
	long pids[8];
	size_t n;
	char msg[512];

	if (!r->child.pid)
		return;
	n = launch_others(&r->child, pids, ARRAY_SIZE(pids));
	if (n) {
		int used = snprintf(msg, sizeof(msg),
		                    "other processes of %s announced an agent "
		                    "too (attach with -e PID):",
		                    r->child.name);
		for (size_t i = 0; i < n && i < ARRAY_SIZE(pids); i++) {
			event(r, "listed %ld", pids[i]);
			if (used > 0 && (size_t)used < sizeof(msg))
				used += snprintf(msg + used,
				                 sizeof(msg) - (size_t)used,
				                 " %ld", pids[i]);
		}
		say(r, msg);
	}
	if (keep && !launch_exited(&r->child)) {
		snprintf(msg, sizeof(msg), "left %s running as pid %ld",
		         r->child.name, (long)r->child.pid);
		say(r, msg);
	}
	launch_end(&r->child, keep);
	if (!keep)
		event(r, "ended %ld", r->child.agent_pid);
}

static int run(struct rec *r, const struct adapter_registry *reg)
{
	const struct opts *o = r->o;
	struct adapter_config cfg;
	struct adapter_error aerr;
	struct worker_opts wo;
	char text[2048];
	int code;
	enum status st;

	const char *const *eps = o->endpoints;
	size_t neps = o->nendpoints;
	const char *adapter = o->adapter;

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
		if (reg->n == 0)
			return usage_error(o, "no adapter is available");
		snprintf(text, sizeof(text),
		         "no adapter given: pick one with -a (see '%s "
		         "adapters')",
		         o->prog);
		return usage_error(o, text);
	}
	r->ops = adapter_find(reg, adapter);
	if (!r->ops) {
		adapter_format_unknown(reg, adapter, text, sizeof(text));
		say(r, text);
		return RECORD_EXIT_USAGE;
	}
	if (o->ncommand && strcmp(r->ops->name, "asyncio")) {
		snprintf(text, sizeof(text),
		         "'-- COMMAND' starts Python programs for the asyncio "
		         "adapter, not for %s",
		         r->ops->name);
		return usage_error(o, text);
	}
	code = plan(r, &r->count);
	if (code)
		return code;
	code = check_output(r);
	if (code)
		return code;
	if (o->ncommand) {
		code = launch(r);
		if (code)
			return code;
		eps = r->ep;
		neps = 1;
	}
	adapter_config_default(&cfg);
	cfg.loader = pprof_load;
	cfg.load_limits = o->limits;
	memset(&aerr, 0, sizeof(aerr));
	st = adapter_open(r->ops, eps, neps, &cfg, &aerr, &r->a);
	if (st != STATUS_OK) {
		if (st == STATUS_INVAL && aerr.remediation[0]) {
			/* e.g. asyncio with no -e: the agents to choose from */
			fprintf(stderr, "%s record: %s\n%s\n", o->prog,
			        aerr.detail, aerr.remediation);
			return RECORD_EXIT_USAGE;
		}
		if (st == STATUS_INVAL)
			return usage_error(o, aerr.detail[0] ? aerr.detail
			                                     : status_str(st));
		r->endpoint = neps ? eps[0] : "";
		report(r, &aerr, 0.0);
		return st == STATUS_UNREACHABLE ? RECORD_EXIT_UNREACHABLE
		                                : RECORD_EXIT_ERROR;
	}
	join_source(r->source, sizeof(r->source), r->a);
	r->endpoint = r->source + strlen(r->ops->name);
	r->endpoint += *r->endpoint == ' ';
	r->replay = (r->ops->flags & ADAPTER_FINITE) != 0;

	st = model_new(NULL, &r->m);
	if (st == STATUS_OK && !r->installed && install(r) != STATUS_OK)
		st = STATUS_IO;
	memset(&wo, 0, sizeof(wo));
	wo.window_ns = o->window_ns;
	wo.refresh_ns = o->window_ns;
	wo.max_windows = r->count;
	if (st == STATUS_OK)
		st = worker_start(r->a, &wo, &r->w);
	if (st != STATUS_OK) {
		snprintf(text, sizeof(text), "cannot start recording: %s",
		         status_str(st));
		say(r, text);
		return RECORD_EXIT_ERROR;
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
	r.pipe[0] = r.pipe[1] = -1;
	buf_init(&r.enc);
	r.events = events;
	if (o->notice[0])
		say(&r, o->notice);
	code = run(&r, reg);
	if (!r.abandon) {
		worker_free(r.w);
		adapter_close(r.a);
	}
	end_child(&r);
	uninstall(&r);
	model_free(r.m);
	buf_fini(&r.enc);
	*abandoned = r.abandon;
	return code;
}
