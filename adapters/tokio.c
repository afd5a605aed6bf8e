/* The tokio adapter's ops: endpoints, the window loop over the stream
 * (tokio_grpc.c) and the state (tokio_state.c), failures worded with what
 * to check, and the launch hook that picks the program's port. */
#include "adapters/tokio.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "adapters/tokio_int.h"
#include "model/alloc.h"

#define MS ((uint64_t)1000000u)
/* Slices of waiting, so a stop is seen within 100 ms. */
#define SLICE_NS (50 * MS)
/* What decoding may take per byte, generously (about 60 ns measured). */
#define DECODE_NS 500
#define BIND_ENV  "TOKIO_CONSOLE_BIND"
#define MAX_ENV   "ASYNCTOP_TOKIO_MAX_MESSAGE"

static const char remedy[] =
    "is console-subscriber running in the application? It needs console_subscriber::init() and a build with RUSTFLAGS=\"--cfg tokio_unstable\"; it listens on 127.0.0.1:6669 unless TOKIO_CONSOLE_BIND=HOST:PORT moves it (then give -e HOST:PORT)";

struct tk {
	struct tokio_state st;
	struct tokio_stream *stream;
	char target[LAUNCH_PLAN_PATH_MAX];
	char source[LAUNCH_PLAN_PATH_MAX + 16];
	size_t max_recv;
	uint64_t reply_ns; /* adapter_config's reply timeout */
	bool state_sent;
	enum source_state last_state;
	char reason[600];
};

/* ---- endpoints ----------------------------------------------------------- */

static bool starts(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

enum status tokio_endpoint(const char *ep, char *target, size_t size, char *err,
                           size_t errsz)
{
	const char *rest = ep, *colon;
	size_t len = strlen(ep), i;
	char *end;
	unsigned long port;
	int k;

	for (i = 0; i < len; i++)
		if ((unsigned char)ep[i] < 0x20 || ep[i] == 0x7f)
			return status_errf(
			    err, errsz, STATUS_INVAL,
			    "the endpoint holds a control character");
	if (len == 0 || len >= size - 8)
		return status_errf(err, errsz, STATUS_INVAL,
		                   "an endpoint of %zu bytes", len);
	if (starts(ep, "https://"))
		return status_errf(
		    err, errsz, STATUS_INVAL,
		    "console-subscriber serves plaintext gRPC: use http://%s",
		    ep + 8);
	if (starts(ep, "unix:")) {
		if (!ep[5])
			return status_errf(err, errsz, STATUS_INVAL,
			                   "unix: without a socket path");
		snprintf(target, size, "%s", ep);
		return STATUS_OK;
	}
	if (starts(ep, "file://")) {
		rest = ep + 7;
		if (starts(rest, "localhost/"))
			rest += 9;
		if (*rest != '/' || !rest[1])
			return status_errf(
			    err, errsz, STATUS_INVAL,
			    "a file:// endpoint names a local socket: file://localhost/PATH");
		snprintf(target, size, "unix:%s", rest);
		return STATUS_OK;
	}
	if (starts(ep, "http://"))
		rest = ep + 7;
	len = strlen(rest);
	while (len && rest[len - 1] == '/')
		len--;
	for (colon = NULL, i = 0; i < len; i++)
		if (rest[i] == ':')
			colon = rest + i;
	if (!colon || colon == rest || (rest[0] == '[' && colon[-1] != ']'))
		return status_errf(
		    err, errsz, STATUS_INVAL,
		    "no port in \"%s\": write HOST:PORT (console-subscriber's default is 127.0.0.1:6669)",
		    ep);
	errno = 0;
	port = strtoul(colon + 1, &end, 10);
	if (errno || end != rest + len || end == colon + 1 || port == 0 ||
	    port > 65535)
		return status_errf(err, errsz, STATUS_INVAL,
		                   "\"%.*s\" is not a port (1 to 65535)",
		                   (int)(rest + len - colon - 1), colon + 1);
	k = snprintf(target, size, "%.*s", (int)len, rest);
	(void)k;
	return STATUS_OK;
}

/* ---- the window loop ----------------------------------------------------- */

static void state(struct tk *p, struct collect *c, enum source_state st)
{
	if (p->state_sent && p->last_state == st)
		return;
	p->state_sent = true;
	p->last_state = st;
	collect_state(c, st, 0);
}

static void disconnect(struct tk *p)
{
	tokio_stream_close(p->stream);
	p->stream = NULL;
	tokio_state_reset(&p->st);
}

static enum status add(void *ctx, const struct sample *s)
{
	return collect_add(ctx, s);
}

/* Replaces the window's samples with the figures up to the latest Update. */
static void emit(struct tk *p, struct collect *c)
{
	struct sample_sink sink = { .sample = add, .ctx = c };

	collect_clear(c);
	(void)tokio_state_emit(&p->st, &sink); /* add never stops it */
}

/* Ends the window at the latest Update (partial with reason, when set) and
 * makes that Update the next window's start. */
static const char *const no_initial[] = {
	"the subscriber's first update held no tasks: if the application was already running, console-subscriber dropped its initial state (over 4 MiB), and tasks idle since then are not shown",
};

static enum status finish(struct tk *p, struct collect *c, const char *reason)
{
	/* console-subscriber sends no initial state rather than one over
	 * 4 MiB: the window says so, as tasks that never change stay unseen */
	bool blind = p->st.first_tasks == 0 && p->st.ntasks > 0;
	struct window_meta m = {
		.time_nanos = p->st.start,
		.duration_nanos = p->st.now - p->st.start,
		.partial = reason != NULL,
		.reason = reason,
		.source = p->source,
		.dropped = p->st.dropped,
		.comments = blind ? no_initial : NULL,
		.ncomments = blind ? 1 : 0,
	};

	emit(p, c);
	collect_set_meta(c, &m);
	tokio_state_roll(&p->st);
	return STATUS_OK;
}

/* A failure with nothing of this window to keep. */
static enum status give_up(struct tk *p, struct collect *c, enum status st,
                           const char *detail, const char *remediation)
{
	disconnect(p);
	collect_clear(c);
	p->state_sent = false;
	return collect_fail(c, st, detail, remediation);
}

/* The stream failed or ended inside a window: keep what the window had,
 * flagged partial, when an Update came in it; else report the failure. */
static enum status cut_short(struct tk *p, struct collect *c,
                             const struct tokio_stream_error *e)
{
	const char *fix = e->st == STATUS_TOO_LARGE
	                      ? "raise the limit with " MAX_ENV "=BYTES"
	                      : remedy;

	if (p->st.have_start && p->st.now > p->st.start) {
		snprintf(p->reason, sizeof(p->reason), "the stream ended: %s",
		         e->detail);
		finish(p, c, p->reason);
		disconnect(p);
		state(p, c, SOURCE_LOST);
		return STATUS_OK;
	}
	state(p, c, SOURCE_LOST);
	return give_up(p, c, e->st, e->detail, fix);
}

/* Waits for the next Update until deadline (in slices, so a stop ends the
 * wait within 100 ms) and applies it.  STATUS_OK: one applied;
 * STATUS_AGAIN: the deadline passed; STATUS_STOPPED; else e says what
 * ended the stream, or STATUS_MALFORMED with e filled. */
static enum status next_update(struct tk *p, struct collect *c,
                               uint64_t deadline, struct tokio_stream_error *e)
{
	for (;;) {
		uint64_t now = collect_now();
		const uint8_t *b;
		size_t n;
		enum status st;

		if (collect_stopping(c))
			return STATUS_STOPPED;
		if (now >= deadline)
			return STATUS_AGAIN;
		st = tokio_stream_next(
		    p->stream, u64_min(deadline, now + SLICE_NS), &b, &n, e);
		if (st == STATUS_AGAIN)
			continue;
		if (st != STATUS_OK)
			return st;
		/* a first Update of 100,000 tasks takes a second or more to
		 * decode on a loaded machine: a bounded step, not a hang */
		collect_hold(c,
		             u64_add_sat(collect_now(),
		                         u64_add_sat(p->reply_ns,
		                                     (uint64_t)n * DECODE_NS)));
		st = tokio_state_apply(&p->st, b, n, e->detail,
		                       sizeof(e->detail));
		if (st == STATUS_LIMIT)
			return STATUS_OK; /* counted as dropped */
		e->st = st;
		return st;
	}
}

/* Connects and reads the first Update, the first window's start. */
static enum status attach(struct adapter *a, struct tk *p, struct collect *c)
{
	uint64_t wait =
	    u64_add_sat(a->cfg.connect_timeout_ns, a->cfg.reply_timeout_ns);
	uint64_t deadline = u64_add_sat(collect_now(), wait);
	struct tokio_stream_error e = { 0 };
	enum status st;

	state(p, c, SOURCE_CONNECTING);
	tokio_state_reset(&p->st);
	collect_hold(c, deadline);
	st = tokio_stream_open(p->target, p->max_recv,
	                       a->cfg.connect_timeout_ns, &p->stream, &e);
	if (st != STATUS_OK)
		return give_up(p, c, st, e.detail, NULL);
	st = next_update(p, c, deadline, &e);
	if (st == STATUS_STOPPED) {
		disconnect(p);
		return st;
	}
	if (st == STATUS_AGAIN) {
		char d[200];

		snprintf(d, sizeof(d),
		         "no Update arrived within %g s of connecting",
		         (double)wait / 1e9);
		return give_up(p, c, STATUS_UNREACHABLE, d, remedy);
	}
	if (st != STATUS_OK) {
		const char *fix = st == STATUS_TOO_LARGE
		                      ? "raise the limit with " MAX_ENV "=BYTES"
		                      : remedy;

		if (st == STATUS_EOF || st == STATUS_TIMEOUT)
			st = STATUS_UNREACHABLE;
		return give_up(p, c, st, e.detail, fix);
	}
	tokio_state_roll(&p->st);
	collect_restart(c);
	state(p, c, SOURCE_CONNECTED);
	return STATUS_OK;
}

static enum status tk_collect(struct adapter *a, struct collect *c)
{
	struct tk *p = a->priv;
	uint64_t refresh = collect_refresh(c), next_progress, deadline;
	struct tokio_stream_error e = { 0 };
	bool extended = false;
	enum status st;

	if (!p->stream) {
		st = attach(a, p, c);
		if (st != STATUS_OK)
			return st;
	}
	next_progress = u64_add_sat(collect_now(), refresh);
	deadline = collect_deadline(c);
	for (;;) {
		st = next_update(p, c, u64_min(deadline, next_progress), &e);
		if (st == STATUS_STOPPED)
			break;
		if (st == STATUS_AGAIN && collect_now() >= deadline) {
			if (p->st.now != p->st.start || extended)
				break;
			/* a window shorter than the publish interval waits for
			 * one Update past its end, as long as a reply may take
			 */
			extended = true;
			deadline =
			    u64_add_sat(deadline, a->cfg.reply_timeout_ns);
			collect_hold(c, deadline);
			continue;
		}
		if (st != STATUS_OK && st != STATUS_AGAIN)
			return cut_short(p, c, &e);
		if (collect_now() >= next_progress) {
			emit(p, c);
			st = collect_progress(c);
			(void)st; /* a view lost to memory is no error */
			next_progress = u64_add_sat(collect_now(), refresh);
		}
	}
	if (p->st.now == p->st.start) {
		char d[200];

		if (collect_stopping(c)) {
			collect_clear(c); /* nothing measured: no samples */
			return STATUS_OK;
		}
		snprintf(
		    d, sizeof(d),
		    "no Update for %g s: the subscriber's thread is stalled, or a console client paused it",
		    (double)(collect_now() - collect_start(c)) / 1e9);
		collect_clear(c);
		return collect_fail(c, STATUS_TIMEOUT, d, remedy);
	}
	return finish(p, c, NULL);
}

/* ---- open and close ------------------------------------------------------ */

static enum status tk_open(struct adapter *a, struct adapter_error *err)
{
	struct tk *p = a->priv;
	const char *ep = a->endpoints[0], *max = getenv(MAX_ENV);
	enum status st;

	tokio_state_init(&p->st);
	p->max_recv = TOKIO_DEFAULT_RECV;
	p->reply_ns = a->cfg.reply_timeout_ns;
	if (max && *max) {
		char *end;
		unsigned long long v;

		errno = 0;
		v = strtoull(max, &end, 10);
		if (errno || *end || v < 4096 || v > 0x7fffffffu) {
			err->st = STATUS_INVAL;
			snprintf(
			    err->detail, sizeof(err->detail),
			    "%s=%.64s is not a size in bytes from 4096 to 2147483647",
			    MAX_ENV, max);
			return STATUS_INVAL;
		}
		p->max_recv = (size_t)v;
	}
	st = tokio_endpoint(ep, p->target, sizeof(p->target), err->detail,
	                    sizeof(err->detail));
	if (st != STATUS_OK) {
		err->st = st;
		return st;
	}
	snprintf(p->source, sizeof(p->source), "tokio %s", ep);
	return STATUS_OK;
}

static void tk_close(struct adapter *a)
{
	struct tk *p = a->priv;

	tokio_stream_close(p->stream);
	p->stream = NULL;
	tokio_state_fini(&p->st);
}

/* ---- launching a program --------------------------------------------------
 */

static enum status tk_launch_prepare(const struct adapter_ops *ops,
                                     struct launch_plan *plan,
                                     struct adapter_error *err)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	socklen_t len = sizeof(sa);
	char where[32];
	enum status st;
	int fd;

	(void)ops;
	/* a port free now, which the program binds a moment later */
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0 ||
	    getsockname(fd, (struct sockaddr *)&sa, &len) != 0) {
		err->st = STATUS_IO;
		snprintf(err->detail, sizeof(err->detail),
		         "no free loopback port for the program: %s",
		         strerror(errno));
		if (fd >= 0)
			close(fd);
		return STATUS_IO;
	}
	close(fd);
	snprintf(where, sizeof(where), "127.0.0.1:%u",
	         (unsigned)ntohs(sa.sin_port));
	st = launch_plan_setenv(plan, BIND_ENV, where);
	if (st != STATUS_OK) {
		err->st = st;
		snprintf(err->detail, sizeof(err->detail), "%s",
		         status_str(st));
		return st;
	}
	snprintf(plan->endpoint, sizeof(plan->endpoint), "%s", where);
	return STATUS_OK;
}

/* A non-blocking connect to 127.0.0.1:port, bounded by timeout_ms. */
static bool answers(unsigned port, int timeout_ms)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	struct pollfd pf;
	int fd, r, soerr = 0;
	socklen_t len = sizeof(soerr);
	bool ok = false;

	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	sa.sin_port = htons((uint16_t)port);
	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return false;
	r = connect(fd, (struct sockaddr *)&sa, sizeof(sa));
	if (r == 0) {
		ok = true;
	} else if (errno == EINPROGRESS) {
		pf.fd = fd;
		pf.events = POLLOUT;
		pf.revents = 0;
		if (poll(&pf, 1, timeout_ms) == 1 &&
		    getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &len) == 0 &&
		    soerr == 0)
			ok = true;
	}
	close(fd);
	return ok;
}

static enum status tk_launch_ready(const struct adapter_ops *ops,
                                   struct launch_plan *plan,
                                   struct adapter_error *err)
{
	const char *bind = launch_plan_getenv(plan, BIND_ENV);
	const char *colon = bind ? strrchr(bind, ':') : NULL;
	unsigned long port = colon ? strtoul(colon + 1, NULL, 10) : 0;

	(void)ops;
	if (!port || port > 65535) {
		err->st = STATUS_INVAL;
		snprintf(err->detail, sizeof(err->detail),
		         "the launch was not prepared: no %s", BIND_ENV);
		return STATUS_INVAL;
	}
	if (answers((unsigned)port, 40)) {
		snprintf(plan->endpoint, sizeof(plan->endpoint), "%s", bind);
		return STATUS_OK;
	}
	err->st = STATUS_AGAIN;
	snprintf(err->detail, sizeof(err->detail),
	         "its console-subscriber listened on %s (set in %s)", bind,
	         BIND_ENV);
	snprintf(err->remediation, sizeof(err->remediation), "%s", remedy);
	return STATUS_AGAIN;
}

static const char *const aliases[] = { "kernal-api-async", NULL };

const struct adapter_ops tokio_ops = {
	.name = "tokio",
	.aliases = aliases,
	.summary =
	    "Rust tokio through console-subscriber's console-api (-e HOST:PORT; default http://127.0.0.1:6669)",
	.default_endpoint = "http://127.0.0.1:6669",
	.flags = 0,
	.private_size = sizeof(struct tk),
	.open = tk_open,
	.collect = tk_collect,
	.close = tk_close,
	.launch_prepare = tk_launch_prepare,
	.launch_ready = tk_launch_ready,
	.user = NULL,
};
