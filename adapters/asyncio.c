/* The asyncio adapter: one persistent connection to the agent, a mirror of
 * its per-connection tables, and per-task differences between two shared
 * boundaries (docs/asyncio-protocol.md §6).  This file: the ops (open,
 * collect, close, states, failures); asyncio_conn.c, asyncio_tables.c and
 * asyncio_window.c hold the rest (asyncio_int.h). */
/* Readings of the protocol where it leaves room (docs/adapters.md, asyncio):
 * - §6's baseline rule (a record whose t_mark precedes the window's start is
 *   exact there) is applied to tasks first received too, not only known
 *   ones: such a task existed before the window, so counting it from zero
 *   would charge time outside the window;
 * - frames with seq 0 (a final push) are accepted in the middle of a READ's
 *   reply, and END.task_records is checked against the records of its own
 *   seq;
 * - HELLO_OK.pid is not compared with the pid asked for (PID namespaces
 *   differ); SO_PEERCRED and proc_start_ticks decide;
 * - HELLO asks for versions 4..4: an older agent is refused with the
 *   versions named (it sends no parked-at stacks, drops frames of deep
 *   stacks without counting them, or never retires a task's name). */
#include "adapters/asyncio.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "adapters/asyncio_int.h"
#include "adapters/asyncio_launch.h"
#include "model/alloc.h"

/* ---- connecting ---------------------------------------------------------- */

/* Reports a state change (each once). */
static void state(struct aio *p, struct collect *c, enum source_state st)
{
	if (p->state_sent && p->last_state == st)
		return;
	p->state_sent = true;
	p->last_state = st;
	collect_state(c, st, 0);
}

static enum status hello(struct adapter *a, struct collect *c,
                         struct failure *f)
{
	struct aio *p = a->priv;
	struct wire *w = &p->w;
	unsigned char body[8] = {
		ASYNCIO_PROTO_VERSION, 0, ASYNCIO_PROTO_VERSION, 0, 0, 0, 0, 0
	}; /* the one version, flags 0 */
	uint64_t timeout = a->cfg.reply_timeout_ns;
	uint64_t deadline = u64_add_sat(collect_now(), timeout), ticks, now;
	uint64_t start, agent_start;
	uint32_t pid, flags, ring, maxp, hz, euid;
	uint16_t type, lp, lc, la, zero;
	uint32_t seq;
	const unsigned char *text;
	enum status st;

	collect_hold(c, deadline);
	p->seq = 1;
	p->max_payload = ASYNCIO_MAX_PAYLOAD;
	st = aio_send_frame(p, ASYNCIO_HELLO, body, sizeof(body), deadline, f);
	if (st == STATUS_OK)
		st = aio_read_frame(p, deadline, timeout, &type, &seq, f);
	if (st != STATUS_OK)
		return st;
	if (type == ASYNCIO_ERROR)
		return aio_agent_error(p, f);
	if (type != ASYNCIO_HELLO_OK || seq != p->seq)
		return aio_failf(f, STATUS_MALFORMED, NULL, NULL,
		                 "a %s frame (request %u) answered HELLO",
		                 aio_frame_name(type), seq);
	(void)wire_u32(w, "pid", &pid);
	(void)wire_u32(w, "agent flags", &flags);
	(void)wire_u64(w, "proc_start_ticks", &start);
	(void)wire_u64(w, "agent_start_ns", &agent_start);
	(void)wire_u64(w, "now_ns", &now);
	(void)wire_u64(w, "now_real_ns", &now);
	(void)wire_u32(w, "ring capacity", &ring);
	(void)wire_u32(w, "max reply payload", &maxp);
	(void)wire_u32(w, "clock ticks per second", &hz);
	(void)wire_u32(w, "the agent's uid", &euid);
	(void)wire_u16(w, "len_python", &lp);
	(void)wire_u16(w, "len_cmdline", &lc);
	(void)wire_u16(w, "len_agent", &la);
	(void)wire_u16(w, "a zero field", &zero);
	if (wire_status(w) == STATUS_OK && (lp > 256 || lc > 1024 || la > 64))
		(void)wire_fail(
		    w, 56, "string lengths %u, %u, %u exceed 256, 1024, 64", lp,
		    lc, la);
	if (wire_status(w) == STATUS_OK && maxp < 4096)
		(void)wire_fail(w, 44, "a reply limit of %u bytes", maxp);
	(void)wire_bytes(w, "the interpreter string", lp, &text);
	(void)wire_bytes(w, "the command line", lc, &text);
	(void)wire_bytes(w, "the agent version", la, &text);
	(void)wire_end(w, "the agent version");
	if (wire_status(w) != STATUS_OK)
		return aio_malformed(f, w, "HELLO_OK");
	p->max_payload =
	    maxp < ASYNCIO_MAX_PAYLOAD ? maxp : ASYNCIO_MAX_PAYLOAD;
	p->agent_pid = pid;
	if (p->ep.pid && start &&
	    asyncio_endpoint_start_ticks(p->ep.pid, &ticks) == STATUS_OK &&
	    ticks != start)
		return aio_failf(
		    f, STATUS_UNREACHABLE,
		    "the agent's process has exited; run without -e "
		    "to list the live agents",
		    NULL,
		    "pid %ld was reused: the agent's process started "
		    "at tick %llu, pid %ld at tick %llu",
		    p->ep.pid, (unsigned long long)start, p->ep.pid,
		    (unsigned long long)ticks);
	if (p->ep.pid)
		snprintf(p->source, sizeof(p->source), "asyncio pid %ld",
		         p->ep.pid);
	else
		snprintf(p->source, sizeof(p->source),
		         "asyncio pid %u (%.100s)", pid, p->ep.path[0]);
	return STATUS_OK;
}

/* Found without -e and its process gone: the program may have restarted
 * (a new pid, the same command line); if exactly one live agent runs that
 * command, it is the one to connect to from now on. */
static void rediscover(struct aio *p)
{
	char dirs[4][ASYNCIO_PATH_MAX];
	size_t nd = asyncio_endpoint_dirs(dirs, 4);
	struct asyncio_agent ag;

	if (!p->discovered || p->ep.pid <= 0 ||
	    kill((pid_t)p->ep.pid, 0) == 0 || errno != ESRCH)
		return;
	if (asyncio_endpoint_find((const char(*)[ASYNCIO_PATH_MAX])dirs, nd,
	                          (long)geteuid(), p->cmd, &ag) != STATUS_OK ||
	    ag.pid <= 0)
		return;
	/* the socket where the list found it: the new process's own
	 * environment need not say where it is */
	memset(&p->ep, 0, sizeof(p->ep));
	snprintf(p->ep.path[0], sizeof(p->ep.path[0]), "%s", ag.path);
	p->ep.npaths = 1;
	p->ep.pid = ag.pid;
	p->ep.uid = (long)geteuid();
	snprintf(p->ep.text, sizeof(p->ep.text), "pid %ld", ag.pid);
}

static enum status attach(struct adapter *a, struct collect *c,
                          struct failure *f)
{
	struct aio *p = a->priv;
	const char *remedy = NULL;
	enum status st;

	state(p, c, SOURCE_CONNECTING);
	rediscover(p);
	/* connecting and the first replies are bounded by our own timeouts,
	 * which may outlast a short window: the watchdog is told so */
	collect_hold(c, u64_add_sat(collect_now(), a->cfg.connect_timeout_ns));
	st = asyncio_endpoint_connect(&p->ep, a->cfg.connect_timeout_ns,
	                              collect_stop_fd(c), &p->fd, p->err,
	                              sizeof(p->err), &remedy);
	if (st == STATUS_STOPPED)
		return st;
	if (st == STATUS_UNREACHABLE)
		return aio_failf(f, st, remedy ? remedy : aio_remedy_optin,
		                 NULL, "no agent answers: %s", p->err);
	if (st == STATUS_TIMEOUT)
		return aio_failf(f, st, aio_remedy_slow, NULL, "%s", p->err);
	if (st != STATUS_OK)
		return aio_failf(
		    f, STATUS_UNREACHABLE,
		    "another process serves the agent's socket (pid "
		    "reuse, or a planted socket): check its directory",
		    NULL, "%s", p->err);
	return hello(a, c, f);
}

/* Sends one READ and reads its reply (or a final push). */
static enum status read_slice(struct adapter *a, struct collect *c,
                              struct end *e, struct failure *f)
{
	struct aio *p = a->priv;
	uint64_t timeout = a->cfg.reply_timeout_ns, deadline;
	enum status st;

	/* at or past the window's end, the read must fit in the grace */
	if (collect_stopping(c) || collect_now() >= collect_deadline(c))
		timeout = u64_min(timeout, STOP_READ_NS);
	deadline = u64_add_sat(collect_now(), timeout);
	collect_hold(c, deadline);
	p->seq = p->seq == UINT32_MAX ? 1 : p->seq + 1;
	st = aio_send_frame(p, ASYNCIO_READ, NULL, 0, deadline, f);
	if (st == STATUS_UNREACHABLE) {
		/* the agent may have pushed its final reply and closed just
		 * before the READ: that reply is still ours to read */
		struct failure g;

		if (aio_read_reply(p, p->seq, deadline, timeout, e, &g) ==
		        STATUS_OK &&
		    (e->flags & END_FINAL))
			st = STATUS_OK;
	} else if (st == STATUS_OK) {
		p->hold = c;
		st = aio_read_reply(p, p->seq, deadline, timeout, e, f);
		p->hold = NULL;
	}
	if (st == STATUS_OK)
		p->loop_threads = e->loop_threads;
	return st;
}

/* Reads the state as of one boundary: a READ, and READs again while the
 * agent answers in slices (a backlog too large for one reply within the
 * timeout, such as a first read of a million live tasks), each slice
 * within its own timeout and hold; the last slice's END is the boundary. */
static enum status do_read(struct adapter *a, struct collect *c, struct end *e,
                           struct failure *f)
{
	unsigned slices = 0;
	enum status st;

	do
		st = read_slice(a, c, e, f);
	while (st == STATUS_OK && (e->flags & END_MORE) &&
	       !(e->flags & END_FINAL) && ++slices < MAX_SLICES);
	if (st == STATUS_OK && (e->flags & END_MORE) && !(e->flags & END_FINAL))
		return aio_failf(
		    f, STATUS_MALFORMED, NULL, NULL,
		    "the agent answered one read in more than %d slices: it falls too far behind the application, or this is not an asynctop agent",
		    MAX_SLICES);
	return st;
}

enum wait_result {
	WAIT_TIME,
	WAIT_STOP,
	WAIT_DATA,
};

/* Sleeps until the deadline, a stop or end-now, or data from the agent. */
static enum wait_result idle_wait(struct aio *p, struct collect *c,
                                  uint64_t until)
{
	for (;;) {
		struct pollfd pf[2];
		uint64_t now = collect_now();
		int r;

		if (collect_stopping(c))
			return WAIT_STOP;
		if (now >= until)
			return WAIT_TIME;
		pf[0].fd = p->fd;
		pf[0].events = POLLIN;
		pf[0].revents = 0;
		pf[1].fd = collect_stop_fd(c);
		pf[1].events = POLLIN;
		pf[1].revents = 0;
		r = poll(pf, 2, (int)u64_min((until - now + MS - 1) / MS, 100));
		if (r > 0 && pf[0].revents)
			return WAIT_DATA;
	}
}

/* ---- collect ---------------------------------------------------------------
 */

/* Ends the window at e's boundary with every figure, and starts the next. */
static enum status finish(struct aio *p, struct collect *c, const struct end *e,
                          const char *reason)
{
	struct window_meta m;

	aio_emit(p, c, e->boundary);
	memset(&m, 0, sizeof(m));
	m.time_nanos = p->real_start;
	m.duration_nanos = (int64_t)(e->boundary - p->t_start);
	m.partial = reason != NULL;
	m.reason = reason;
	m.source = p->source;
	collect_set_meta(c, &m);
	p->real_start += m.duration_nanos;
	aio_roll(p, e->boundary);
	if (e->flags & END_FINAL) {
		aio_reset(p);
		state(p, c, SOURCE_LOST);
	}
	return STATUS_OK;
}

/* A failure before the window had a start: nothing to keep.  The worker
 * reports RETRYING with its back-off; the next attempt says CONNECTING
 * again. */
static enum status give_up(struct adapter *a, struct collect *c,
                           struct failure *f)
{
	struct aio *p = a->priv;

	aio_reset(p);
	collect_clear(c);
	p->state_sent = false;
	return collect_fail(c, f->st, f->detail, f->remedy);
}

/* A failure inside a window: keep what the last progress read saw, as a
 * partial window, when the failure allows; else report it. */
static enum status cut_short(struct adapter *a, struct collect *c,
                             struct failure *f)
{
	struct aio *p = a->priv;
	struct window_meta m;
	char reason[640];

	if (!f->reason || p->t_last <= p->t_start) {
		state(p, c, SOURCE_LOST);
		return give_up(a, c, f);
	}
	/* the samples of the last progress read are still in the window */
	memset(&m, 0, sizeof(m));
	snprintf(reason, sizeof(reason), "%s: %s", f->reason, f->detail);
	m.time_nanos = p->real_start;
	m.duration_nanos = (int64_t)(p->t_last - p->t_start);
	m.partial = true;
	m.reason = reason;
	m.source = p->source;
	collect_set_meta(c, &m);
	aio_reset(p);
	state(p, c, SOURCE_LOST);
	return STATUS_OK;
}

static enum status aio_collect(struct adapter *a, struct collect *c)
{
	struct aio *p = a->priv;
	uint64_t refresh = collect_refresh(c), next, next_progress, now;
	/* snapshots at least every second, so a window cut short by a lost
	 * agent keeps its figures up to then; progress at the refresh */
	uint64_t snap = u64_min(refresh, SNAPSHOT_NS);
	struct failure f;
	struct end e;
	enum status st;

	memset(&f, 0, sizeof(f));
	memset(&e, 0, sizeof(e));
	if (p->fd < 0) {
		aio_reset(p);
		st = attach(a, c, &f);
		if (st == STATUS_STOPPED) {
			aio_reset(p);
			return st;
		}
		if (st != STATUS_OK)
			return give_up(a, c, &f);
	}
	if (!p->have_start) {
		/* the first snapshot is the first window's start */
		st = do_read(a, c, &e, &f);
		if (st != STATUS_OK)
			return give_up(a, c, &f);
		aio_roll(p, e.boundary);
		p->real_start = e.real;
		p->have_start = true;
		collect_restart(c);
		state(p, c, SOURCE_CONNECTED);
		if (e.flags & END_FINAL) {
			aio_reset(p);
			aio_failf(
			    &f, STATUS_UNREACHABLE, aio_remedy_gone, NULL,
			    "the application exited as the reader attached");
			return give_up(a, c, &f);
		}
	}
	now = collect_now();
	next = u64_add_sat(now, snap);
	next_progress = u64_add_sat(now, refresh);
	for (;;) {
		enum wait_result wr =
		    idle_wait(p, c, u64_min(collect_deadline(c), next));

		if (wr == WAIT_DATA) {
			/* only a final push may arrive unasked */
			uint64_t t = a->cfg.reply_timeout_ns;
			uint64_t until = u64_add_sat(collect_now(), t);

			collect_hold(c, until);
			st = aio_read_reply(p, 0, until, t, &e, &f);
			if (st != STATUS_OK)
				return cut_short(a, c, &f);
			return finish(p, c, &e, "application exited");
		}
		if (wr == WAIT_STOP || collect_now() >= collect_deadline(c))
			break;
		st = do_read(a, c, &e, &f);
		if (st != STATUS_OK)
			return cut_short(a, c, &f);
		if (e.flags & END_FINAL)
			return finish(p, c, &e, "application exited");
		aio_emit(p, c, e.boundary);
		p->t_last = e.boundary;
		now = collect_now();
		if (now >= next_progress) {
			st = collect_progress(c);
			(void)st; /* a view lost to memory is no error */
			next_progress = u64_add_sat(now, refresh);
		}
		next = u64_add_sat(now, snap);
	}
	st = do_read(a, c, &e, &f);
	if (st != STATUS_OK)
		return cut_short(a, c, &f);
	return finish(p, c, &e,
	              (e.flags & END_FINAL) ? "application exited" : NULL);
}

/* ---- open and close
 * ---------------------------------------------------------- */

/* No -e: the only live agent of this user, by pid. */
static enum status discover(struct adapter *a, struct adapter_error *err)
{
	struct aio *p = a->priv;
	char dirs[4][ASYNCIO_PATH_MAX], pid[32];
	struct asyncio_agent *ag = NULL;
	size_t nd = asyncio_endpoint_dirs(dirs, 4), n = 0;
	enum status st;
	char *copy;

	st = asyncio_endpoint_list((const char(*)[ASYNCIO_PATH_MAX])dirs, nd,
	                           (long)geteuid(), &ag, &n);
	if (st != STATUS_OK)
		return st;
	if (n == 0) {
		char where[4 * ASYNCIO_PATH_MAX + 16] = "";
		size_t i;

		for (i = 0; i < nd; i++) {
			size_t l = strlen(where);

			snprintf(where + l, sizeof(where) - l, "%s%s",
			         i ? ", " : "", dirs[i]);
		}
		err->st = STATUS_UNREACHABLE;
		snprintf(err->detail, sizeof(err->detail),
		         "no asyncio agent of this user is running (looked in "
		         "%.400s)",
		         where);
		snprintf(err->remediation, sizeof(err->remediation), "%s",
		         aio_remedy_optin);
		return STATUS_UNREACHABLE;
	}
	if (n > 1) {
		err->st = STATUS_INVAL;
		snprintf(err->detail, sizeof(err->detail),
		         "%zu asyncio agents of this user are running: choose "
		         "one with -e PID",
		         n);
		asyncio_endpoint_format_list(ag, n, err->remediation,
		                             sizeof(err->remediation));
		mem_free(ag);
		return STATUS_INVAL;
	}
	snprintf(pid, sizeof(pid), "%ld", ag[0].pid);
	p->discovered = true;
	snprintf(p->cmd, sizeof(p->cmd), "%s", ag[0].cmd);
	mem_free(ag);
	copy = mem_strndup(pid, strlen(pid));
	if (!copy)
		return STATUS_NOMEM;
	mem_free(a->endpoints[0]);
	a->endpoints[0] = copy;
	return STATUS_OK;
}

static enum status aio_open(struct adapter *a, struct adapter_error *err)
{
	struct aio *p = a->priv;
	enum status st;

	p->fd = -1;
	if (!a->endpoints[0][0]) {
		st = discover(a, err);
		if (st != STATUS_OK)
			return st;
	}
	st = asyncio_endpoint_parse(a->endpoints[0], &p->ep, err->detail,
	                            sizeof(err->detail));
	if (st == STATUS_UNREACHABLE)
		snprintf(err->remediation, sizeof(err->remediation), "%s",
		         "check the pid (the process may have exited)");
	if (st != STATUS_OK) {
		err->st = st;
		return st;
	}
	snprintf(p->source, sizeof(p->source), "asyncio %s", p->ep.text);
	return STATUS_OK;
}

/* An agent killed by a signal leaves its socket behind: once its process
 * is gone, the sockets it could have used (PID.sock) are removed. */
static void remove_dead_socket(const struct asyncio_endpoint *ep)
{
	char tail[32];

	if (ep->pid <= 0 || kill((pid_t)ep->pid, 0) == 0 || errno != ESRCH)
		return;
	snprintf(tail, sizeof(tail), "/%ld.sock", ep->pid);
	for (size_t i = 0; i < ep->npaths; i++) {
		size_t n = strlen(ep->path[i]), t = strlen(tail);
		struct stat sb;

		if (n > t && !strcmp(ep->path[i] + n - t, tail) &&
		    lstat(ep->path[i], &sb) == 0 && S_ISSOCK(sb.st_mode))
			unlink(ep->path[i]);
	}
}

static void aio_close(struct adapter *a)
{
	struct aio *p = a->priv;
	struct failure f;

	if (p->fd >= 0) /* best effort: tell the agent we are done */
		(void)aio_send_frame(p, ASYNCIO_BYE, NULL, 0,
		                     u64_add_sat(collect_now(), 10 * MS), &f);
	aio_fini(p);
	remove_dead_socket(&p->ep);
}

const struct adapter_ops asyncio_ops = {
	.name = "asyncio",
	.aliases = NULL,
	.summary = "Python asyncio through its opt-in agent (-e PID or "
	           "socket; none: the only live agent)",
	.default_endpoint = "",
	.flags = 0,
	.private_size = sizeof(struct aio),
	.open = aio_open,
	.collect = aio_collect,
	.close = aio_close,
	.launch_prepare = asyncio_launch_prepare,
	.launch_ready = asyncio_launch_ready,
	.launch_others = asyncio_launch_others,
	.user = NULL,
};
