/* The source session behind record and the viewer: choosing the adapter,
 * launching a program through the adapter's launch hook, opening, the
 * worker, stopping and closing. */
#include "tui/session.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "encode/pprof.h"
#include "tui/events.h"
#include "tui/exit.h"
#include "tui/output.h"
#include "tui/safe.h"
#include "tui/signals.h"

/* How often a launch is checked for readiness (docs/launch.md). */
#define READY_POLL_MS 20
/* The farthest a misspelt adapter name may be from a suggestion. */
#define SUGGEST_MAX_DISTANCE 2

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

/* "PROG: text" (or "PROG record: text") on stderr. */
static void say(const struct session *s, const char *text)
{
	safe_sayf(NULL, "%s%s%s: %s", s->so.prog, s->so.cmd ? " " : "",
	          s->so.cmd ? s->so.cmd : "", text);
}

static void fail(const struct session *s, const char *text)
{
	say(s, text);
	events_emit(s->so.events, "error %s", text);
}

static int usage_error(const struct session *s, const char *text)
{
	const char *sp = s->so.cmd ? " " : "",
	           *cmd = s->so.cmd ? s->so.cmd : "";

	safe_sayf(NULL, "%s%s%s: %s\n(see '%s%s%s --help')", s->so.prog, sp,
	          cmd, text, s->so.prog, sp, cmd);
	return EXIT_USAGE;
}

/* ---- choosing the adapter ------------------------------------------------ */

/* Levenshtein distance of a and b, both short names; past 63 bytes the
 * names are too far apart to matter. */
static size_t distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), row[64];

	if (la >= ARRAY_SIZE(row) || lb >= ARRAY_SIZE(row))
		return SIZE_MAX;
	for (size_t j = 0; j <= lb; j++)
		row[j] = j;
	for (size_t i = 1; i <= la; i++) {
		size_t diag = row[0];

		row[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t up = row[j];
			size_t best = diag + (a[i - 1] != b[j - 1]);

			best = size_min(best, up + 1);
			best = size_min(best, row[j - 1] + 1);
			row[j] = best;
			diag = up;
		}
	}
	return row[lb];
}

/* The registered name or alias nearest to name, when near enough. */
static const char *nearest(const struct adapter_registry *reg, const char *name)
{
	const char *best = NULL;
	size_t bd = SUGGEST_MAX_DISTANCE + 1;

	for (size_t i = 0; i < reg->n; i++) {
		const struct adapter_ops *ops = reg->ops[i];
		size_t d = distance(name, ops->name);

		if (d < bd) {
			bd = d;
			best = ops->name;
		}
		for (const char *const *al = ops->aliases; al && *al; al++) {
			d = distance(name, *al);
			if (d < bd) {
				bd = d;
				best = *al;
			}
		}
	}
	return best;
}

static int unknown_adapter(const struct session *s,
                           const struct adapter_registry *reg, const char *name)
{
	char text[1024];
	const char *near = nearest(reg, name);
	size_t used;

	adapter_format_unknown(reg, name, text, sizeof(text));
	used = strlen(text);
	if (near)
		snprintf(text + used, sizeof(text) - used,
		         "; did you mean \"%s\"?", near);
	/* one wording, the same for record and the viewer (docs/design.md §12)
	 */
	safe_say(s->so.prog, text);
	return EXIT_USAGE;
}

/* The registry's hints, PROG replaced by "prog[ cmd]", each line indented,
 * lines separated by newlines, into dst (always NUL-terminated, cut if
 * short). */
static void hints_text(const struct session *s,
                       const struct adapter_registry *reg, char *dst,
                       size_t size)
{
	const char *sp = s->so.cmd ? " " : "",
	           *cmd = s->so.cmd ? s->so.cmd : "";
	size_t used = 0;

	dst[0] = '\0';
	for (const char *const *h = reg->hints; h && *h && used < size; h++) {
		const char *at = strstr(*h, "PROG");
		int n;

		if (at)
			n = snprintf(dst + used, size - used,
			             "  %.*s%s%s%s%s\n", (int)(at - *h), *h,
			             s->so.prog, sp, cmd, at + 4);
		else
			n = snprintf(dst + used, size - used, "  %s\n", *h);
		if (n < 0)
			break;
		used += (size_t)n;
	}
	used = strlen(dst);
	if (used && dst[used - 1] == '\n')
		dst[used - 1] = '\0';
}

/* The registry's hints, one per line after a header. */
static int nothing_to_attach(const struct session *s,
                             const struct adapter_registry *reg)
{
	const char *sp = s->so.cmd ? " " : "",
	           *cmd = s->so.cmd ? s->so.cmd : "";
	char hints[2048];

	if (!reg->hints || !reg->hints[0]) {
		char text[512];

		snprintf(
		    text, sizeof(text),
		    "no adapter given: pick one with -a (see '%s adapters')",
		    s->so.prog);
		return usage_error(s, text);
	}
	hints_text(s, reg, hints, sizeof(hints));
	safe_sayf(
	    NULL,
	    "%s%s%s: no adapter given, and none to attach to by default; what works:\n%s",
	    s->so.prog, sp, cmd, hints);
	safe_sayf(NULL, "(see '%s adapters' and '%s%s%s --help')", s->so.prog,
	          s->so.prog, sp, cmd);
	return EXIT_USAGE;
}

/* The adapters of reg that can start programs, "a, b", into dst. */
static void launchers(const struct adapter_registry *reg, char *dst,
                      size_t size)
{
	size_t used = 0;

	dst[0] = '\0';
	for (size_t i = 0; i < reg->n; i++) {
		int n;

		if (!reg->ops[i]->launch_prepare)
			continue;
		n = snprintf(dst + used, size - used, "%s%s", used ? ", " : "",
		             reg->ops[i]->name);
		if (n < 0 || (size_t)n >= size - used)
			break;
		used += (size_t)n;
	}
	if (!used)
		snprintf(dst, size, "none here");
}

int session_resolve(struct session *s, const struct opts *o,
                    const struct adapter_registry *reg,
                    const struct session_opts *so)
{
	memset(s, 0, sizeof(*s));
	s->so = *so;
	s->o = o;
	if (o->ncommand && o->nendpoints)
		return usage_error(
		    s,
		    "-e and '-- COMMAND' exclude each other: asynctop attaches to the program it starts");
	if (o->adapter) {
		s->ops = adapter_find(reg, o->adapter);
		if (!s->ops)
			return unknown_adapter(s, reg, o->adapter);
	} else if (o->ncommand) {
		s->ops = reg->launch_default;
		if (!s->ops)
			return usage_error(
			    s,
			    "'-- COMMAND' needs -a ADAPTER: no adapter starts programs by default here");
	} else {
		s->ops = reg->attach_default;
		if (!s->ops)
			return nothing_to_attach(s, reg);
		/* attached by default: if it does not answer, say what else
		 * works too, since the operator did not choose this source */
		if (reg->hints && reg->hints[0]) {
			char hints[sizeof(s->also) - 64];

			hints_text(s, reg, hints, sizeof(hints));
			snprintf(
			    s->also, sizeof(s->also),
			    "(%s was tried because no source was given; what else works:)\n%s",
			    s->ops->name, hints);
		}
	}
	if (o->ncommand && !s->ops->launch_prepare) {
		char text[1024], list[512];

		launchers(reg, list, sizeof(list));
		snprintf(
		    text, sizeof(text),
		    "'-- COMMAND' is not for %s: that adapter cannot start programs (these can: %s)",
		    s->ops->name, list);
		return usage_error(s, text);
	}
	return 0;
}

int session_probe_saves(const char *prog, const char *dir, char *notice,
                        size_t size)
{
	bool here = !strcmp(dir, ".");
	char probe[4200], msg[8448];

	notice[0] = '\0';
	/* a name the sink makes its temporary file from, in dir */
	snprintf(probe, sizeof(probe), "%s/asynctop-probe", dir);
	if (output_probe(probe, msg, sizeof(msg)) == STATUS_OK)
		return 0;
	if (here) {
		snprintf(notice, size,
		         "cannot save windows in the working directory: %s",
		         msg);
		return 0;
	}
	safe_sayf(prog, "cannot save windows in %s: %s", dir, msg);
	return EXIT_ERROR;
}

/* ---- launching ----------------------------------------------------------- */

/* Reads the signal pipe during the launch wait: true on a stopping one;
 * ^Z stops the program and asynctop until continued. */
static bool interrupted(struct session *s)
{
	unsigned char b[16];
	ssize_t n;

	while ((n = read(s->so.sigfd, b, sizeof(b))) > 0) {
		for (ssize_t i = 0; i < n; i++) {
			if (b[i] == SIGTSTP) {
				session_pause_child(s, true);
				signals_stop_self();
				session_pause_child(s, false);
			} else if (!s->signo && signals_is_stop(b[i])) {
				s->signo = b[i];
				events_emit(s->so.events, "signal %d", b[i]);
			}
		}
	}
	return s->signo != 0;
}

/* Polls launch_ready until the program is ready; 0 or an exit status. */
static int wait_ready(struct session *s)
{
	uint64_t timeout = launch_timeout_ns();
	uint64_t deadline = now_ms() + timeout / 1000000u;
	char text[8192], how[128];

	for (;;) {
		struct adapter_error e;
		struct pollfd p = { s->so.sigfd, POLLIN, 0 };
		/* readiness counts even from a program that is gone: an agent
		 * may still serve its final snapshot */
		bool gone = launch_exited(&s->child);
		enum status st;

		memset(&e, 0, sizeof(e));
		st = s->ops->launch_ready(s->ops, &s->plan, &e);
		if (st == STATUS_OK) {
			events_emit(s->so.events, "announced %s",
			            s->plan.endpoint);
			s->ready = true;
			return 0;
		}
		if (st != STATUS_AGAIN) {
			session_format_error(s, &e, 0.0, text, sizeof(text));
			fail(s, text);
			return EXIT_UNREACHABLE;
		}
		if (gone) {
			launch_describe_end(&s->child, how, sizeof(how));
			snprintf(text, sizeof(text), "`%s` %s before %s%s%s",
			         s->child.name, how, e.detail,
			         e.remediation[0] ? "\n" : "", e.remediation);
			launch_add_tail(&s->child, text, sizeof(text));
			fail(s, text);
			return EXIT_UNREACHABLE;
		}
		if (now_ms() >= deadline) {
			snprintf(
			    text, sizeof(text),
			    "`%s` (pid %ld) was not ready within %gs: asynctop waited until %s%s%s",
			    s->child.name, (long)s->child.pid,
			    (double)timeout / 1e9, e.detail,
			    e.remediation[0] ? "\n" : "", e.remediation);
			launch_add_tail(&s->child, text, sizeof(text));
			fail(s, text);
			return EXIT_UNREACHABLE;
		}
		if (poll(&p, s->so.sigfd >= 0 ? 1 : 0, READY_POLL_MS) > 0 &&
		    interrupted(s))
			return EXIT_SIGNAL + s->signo;
	}
}

static int launch(struct session *s)
{
	struct adapter_error e;
	char err[1024];
	enum status st;

	st =
	    launch_dir_make(s->plan.dir, sizeof(s->plan.dir), err, sizeof(err));
	if (st != STATUS_OK) {
		fail(s, err);
		return EXIT_USAGE;
	}
	memset(&e, 0, sizeof(e));
	st = s->ops->launch_prepare(s->ops, &s->plan, &e);
	if (st != STATUS_OK) {
		fail(s, st == STATUS_NOMEM ? status_str(st) : e.detail);
		return st == STATUS_NOMEM ? EXIT_ERROR : EXIT_USAGE;
	}
	st = launch_start(&s->child, s->o->command, &s->plan, s->so.output, err,
	                  sizeof(err));
	if (st != STATUS_OK) {
		fail(s, st == STATUS_NOMEM ? status_str(st) : err);
		return st == STATUS_NOMEM ? EXIT_ERROR : EXIT_USAGE;
	}
	events_emit(s->so.events, "launched %ld", (long)s->child.pid);
	if (s->ops->launch_ready)
		return wait_ready(s);
	if (!s->plan.endpoint[0]) {
		snprintf(
		    err, sizeof(err),
		    "the %s adapter prepared the launch but named nothing to open",
		    s->ops->name);
		fail(s, err);
		return EXIT_ERROR;
	}
	s->ready = true;
	return 0;
}

static void join_source(struct session *s)
{
	const struct adapter *a = s->a;

	snprintf(s->source, sizeof(s->source), "%s", a->ops->name);
	for (size_t i = 0; i < a->nendpoints; i++) {
		size_t used = strlen(s->source);
		snprintf(s->source + used, sizeof(s->source) - used, "%s%s",
		         i ? ", " : " ", a->endpoints[i]);
	}
	s->endpoint = s->source + strlen(a->ops->name);
	s->endpoint += *s->endpoint == ' ';
}

int session_open(struct session *s)
{
	const struct opts *o = s->o;
	const char *const *eps = o->endpoints;
	const char *ep[1];
	size_t neps = o->nendpoints;
	struct adapter_config cfg;
	struct adapter_error aerr;
	char text[2048];
	enum status st;

	if (o->ncommand) {
		int code = launch(s);

		if (code)
			return code;
		ep[0] = s->plan.endpoint;
		eps = ep;
		neps = 1;
	}
	adapter_config_default(&cfg);
	cfg.loader = pprof_load;
	cfg.load_limits = o->limits;
	memset(&aerr, 0, sizeof(aerr));
	st = adapter_open(s->ops, eps, neps, &cfg, &aerr, &s->a);
	if (st == STATUS_OK) {
		join_source(s);
		return 0;
	}
	if (st == STATUS_INVAL && aerr.remediation[0]) {
		/* e.g. no -e and several live sources: the list to choose from
		 */
		snprintf(text, sizeof(text), "%s\n%s", aerr.detail,
		         aerr.remediation);
		say(s, text);
		return EXIT_USAGE;
	}
	if (st == STATUS_INVAL)
		return usage_error(s, aerr.detail[0] ? aerr.detail
		                                     : status_str(st));
	s->endpoint = neps ? eps[0] : "";
	session_format_error(s, &aerr, 0.0, text, sizeof(text));
	fail(s, text);
	s->endpoint = NULL;
	/* nothing to retry when nothing was found to attach to */
	return st == STATUS_UNREACHABLE ? EXIT_UNREACHABLE : EXIT_ERROR;
}

enum status session_start(struct session *s, const struct worker_opts *wo)
{
	return worker_start(s->a, wo, &s->w);
}

/* ---- stopping and closing ------------------------------------------------ */

void session_stop(struct session *s)
{
	if (s->stopping)
		return;
	s->stopping = true;
	s->stop_at_ms = now_ms() + s->so.stop_grace_ms;
	if (s->w)
		worker_stop(s->w);
}

int session_stop_left_ms(const struct session *s)
{
	uint64_t now = now_ms();

	if (!s->stopping)
		return -1;
	return now >= s->stop_at_ms ? 0 : (int)(s->stop_at_ms - now);
}

void session_give_up(struct session *s)
{
	char text[256];

	snprintf(text, sizeof(text),
	         "the %s source did not stop within %g s; giving up on it",
	         s->ops->name, (double)s->so.stop_grace_ms / 1000.0);
	say(s, text);
	s->abandoned = true;
}

void session_drain(struct session *s)
{
	if (!s->w)
		return;
	session_stop(s);
	while (!s->worker_done) {
		struct pollfd p = { worker_fd(s->w), POLLIN, 0 };
		struct worker_msg *msg = NULL;
		int left = session_stop_left_ms(s);

		if (left == 0) {
			session_give_up(s);
			return;
		}
		if (poll(&p, 1, left) <= 0)
			continue;
		while (worker_read(s->w, &msg) == STATUS_OK) {
			if (msg->kind == WORKER_DONE)
				s->worker_done = true;
			worker_msg_free(msg);
		}
	}
}

bool session_child_ended(struct session *s, char *msg, size_t size)
{
	char how[128];

	if (!s->child.pid || s->child_told || !launch_exited(&s->child))
		return false;
	s->child_told = true;
	launch_describe_end(&s->child, how, sizeof(how));
	snprintf(msg, size, "`%s` %s", s->child.name, how);
	events_emit(s->so.events, "child %s", how);
	if (s->child.output == LAUNCH_OUTPUT_LOG)
		launch_add_tail(&s->child, msg, size);
	return true;
}

enum session_verdict session_screen(struct session *s, struct worker_msg *msg)
{
	bool failing =
	    msg->kind == WORKER_ERROR ||
	    (msg->kind == WORKER_STATE &&
	     (msg->state == SOURCE_RETRYING || msg->state == SOURCE_LOST));

	if (!s->child.pid || !failing)
		return SESSION_TAKE;
	if (launch_exited(&s->child))
		return SESSION_DROP;
	if (msg->kind != WORKER_ERROR)
		return SESSION_TAKE;
	msg->err.remediation[0] = '\0';
	s->held = msg;
	s->held_until_ms = now_ms() + SESSION_HOLD_MS;
	return SESSION_HOLD;
}

int session_held_ms(const struct session *s)
{
	uint64_t now = now_ms();

	if (!s->held)
		return -1;
	return now >= s->held_until_ms ? 0 : (int)(s->held_until_ms - now);
}

struct worker_msg *session_release(struct session *s)
{
	struct worker_msg *msg = s->held;

	if (!msg)
		return NULL;
	if (launch_exited(&s->child)) {
		s->held = NULL;
		worker_msg_free(msg);
		return NULL;
	}
	if (now_ms() < s->held_until_ms)
		return NULL;
	s->held = NULL;
	return msg;
}

void session_pause_child(struct session *s, bool stop)
{
	if (s->child.pid && !launch_exited(&s->child))
		kill(-s->child.pid, stop ? SIGSTOP : SIGCONT);
}

void session_format_error(const struct session *s,
                          const struct adapter_error *e, double seconds,
                          char *dst, size_t size)
{
	size_t used;

	adapter_format_error(e, s->ops ? s->ops->name : "", s->endpoint,
	                     seconds, dst, size);
	used = strlen(dst);
	if (e->st == STATUS_UNREACHABLE && s->also[0] && used + 1 < size)
		snprintf(dst + used, size - used, "\n%s", s->also);
}

/* The other processes the adapter saw, and --keep's note. */
static void end_child(struct session *s)
{
	/* --keep once attached; a program never attached is ended */
	bool keep = s->o && s->o->keep && s->ready;
	long pids[8];
	size_t n = 0;
	char text[LAUNCH_PATH_MAX + 512];

	if (!s->child.pid)
		return;
	if (s->ops->launch_others)
		n = s->ops->launch_others(s->ops, &s->plan, pids,
		                          ARRAY_SIZE(pids));
	if (n) {
		int used = snprintf(
		    text, sizeof(text),
		    "other processes of %s announced an agent too (attach with -e PID):",
		    s->child.name);

		for (size_t i = 0; i < n && i < ARRAY_SIZE(pids); i++) {
			events_emit(s->so.events, "listed %ld", pids[i]);
			if (used > 0 && (size_t)used < sizeof(text))
				used += snprintf(text + used,
				                 sizeof(text) - (size_t)used,
				                 " %ld", pids[i]);
		}
		say(s, text);
	}
	if (keep && !launch_exited(&s->child)) {
		snprintf(text, sizeof(text), "left %s running as pid %ld",
		         s->child.name, (long)s->child.pid);
		say(s, text);
	}
	if (s->child.log[0]) {
		snprintf(text, sizeof(text), "the output of %s is in %s",
		         s->child.name, s->child.log);
		say(s, text);
	}
	if (!keep) {
		long pid = (long)s->child.pid;

		launch_end(&s->child, false);
		events_emit(s->so.events, "ended %ld", pid);
	}
}

void session_close(struct session *s)
{
	worker_msg_free(s->held);
	s->held = NULL;
	/* the program ends before the adapter closes, so that the adapter can
	 * clean up after it (an agent's socket) */
	if (!s->abandoned)
		worker_free(s->w);
	s->w = NULL;
	end_child(s);
	if (!s->abandoned)
		adapter_close(s->a);
	s->a = NULL;
	/* a kept program still uses its directory (its agent's rendezvous) */
	if (!s->child.pid || s->child.exited)
		launch_dir_remove(s->plan.dir);
	launch_plan_fini(&s->plan);
}
