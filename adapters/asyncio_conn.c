/* The asyncio adapter's connection: the socket with deadlines, frames on
 * the wire (send_frame, read_frame, read_reply), and the failures worded
 * for the operator. */
#include "adapters/asyncio_int.h"

#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "model/alloc.h"

/* ---- connection state ---------------------------------------------------- */

/* Forgets everything tied to the connection (tables, baselines). */
void aio_reset(struct aio *p)
{
	size_t i;

	if (p->fd >= 0)
		close(p->fd);
	p->fd = -1;
	for (i = 0; i < p->nstrs; i++)
		mem_free(p->strs[i].p);
	p->nstrs = p->nstks = p->nframes = p->ntasks = p->nsites = 0;
	p->nfree = p->nretiring = 0;
	aio_idmap_fini(&p->str_ids);
	aio_idmap_fini(&p->stk_ids);
	aio_idmap_fini(&p->task_ids);
	aio_idmap_fini(&p->site_ids);
	p->have_start = false;
	p->t_start = p->t_last = 0;
	p->loop_threads = 0;
}

void aio_fini(struct aio *p)
{
	aio_reset(p);
	mem_free(p->strs);
	mem_free(p->free_strs);
	mem_free(p->stks);
	mem_free(p->frame_pool);
	mem_free(p->tasks);
	mem_free(p->sites);
	mem_free(p->out);
	mem_free(p->pout);
	mem_free(p->rx);
	p->strs = NULL;
	p->free_strs = NULL;
	p->stks = NULL;
	p->frame_pool = NULL;
	p->tasks = NULL;
	p->sites = NULL;
	p->out = p->pout = NULL;
	p->rx = NULL;
	p->capstrs = p->capfree = p->capstks = p->capframes = 0;
	p->captasks = p->capsites = p->capout = p->cappout = p->caprx = 0;
}

const char aio_remedy_optin[] =
    "the application must opt in to the agent: run it as `python3 -m "
    "asynctop_agent app.py` or call `import asynctop_agent; "
    "asynctop_agent.start()` (adapters/asyncio on PYTHONPATH); the "
    "process may also have exited";

/* no promise to retry: whether asynctop retries is the front end's to say
 * (record stops) */
const char aio_remedy_slow[] =
    "the event loop's process may be stopped, or a long step or a C extension may hold the GIL";

const char aio_remedy_gone[] =
    "the application had opted in: its process may have ended (killed, perhaps with SIGKILL, or crashed), or stopped its agent";

/* ---- socket I/O ---------------------------------------------------------- */

/* Waits for fd to be ready for ev until the deadline (our clock). */
static enum status wait_ready(int fd, short ev, uint64_t deadline)
{
	for (;;) {
		uint64_t now = collect_now();
		struct pollfd pf = { fd, ev, 0 };
		int r;

		if (now >= deadline)
			return STATUS_TIMEOUT;
		r = poll(&pf, 1,
		         (int)u64_min((deadline - now + MS - 1) / MS, 1000));
		if (r < 0 && errno != EINTR)
			return STATUS_IO;
		if (r > 0)
			return STATUS_OK;
	}
}

/* Reads exactly n bytes; *got says how many arrived (for EOF texts).
 * STATUS_EOF on a close, STATUS_TIMEOUT, STATUS_IO. */
static enum status read_full(int fd, void *dst, size_t n, uint64_t deadline,
                             size_t *got)
{
	unsigned char *d = dst;

	*got = 0;
	while (*got < n) {
		ssize_t r = read(fd, d + *got, n - *got);
		enum status st;

		if (r > 0) {
			*got += (size_t)r;
			continue;
		}
		if (r == 0)
			return STATUS_EOF;
		if (errno == EINTR)
			continue;
		if (errno == ECONNRESET)
			return STATUS_EOF;
		if (errno != EAGAIN && errno != EWOULDBLOCK)
			return STATUS_IO;
		st = wait_ready(fd, POLLIN, deadline);
		if (st != STATUS_OK)
			return st;
	}
	return STATUS_OK;
}

static enum status write_full(int fd, const void *src, size_t n,
                              uint64_t deadline)
{
	const unsigned char *s = src;

	while (n) {
		ssize_t r = send(fd, s, n, MSG_NOSIGNAL); /* no SIGPIPE */
		enum status st;

		if (r > 0) {
			s += r;
			n -= (size_t)r;
			continue;
		}
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0 && (errno == EPIPE || errno == ECONNRESET))
			return STATUS_EOF;
		if (r < 0 && errno != EAGAIN && errno != EWOULDBLOCK)
			return STATUS_IO;
		st = wait_ready(fd, POLLOUT, deadline);
		if (st != STATUS_OK)
			return st;
	}
	return STATUS_OK;
}

/* ---- failures ------------------------------------------------------------ */

enum status aio_failf(struct failure *f, enum status st, const char *remedy,
                      const char *reason, const char *fmt, ...)
{
	va_list ap;

	f->st = st;
	f->remedy = remedy;
	f->reason = reason;
	va_start(ap, fmt);
	vsnprintf(f->detail, sizeof(f->detail), fmt, ap);
	va_end(ap);
	return st;
}

enum status aio_malformed(struct failure *f, const struct wire *w,
                          const char *frame)
{
	return aio_failf(f, STATUS_MALFORMED, NULL, NULL, "%s frame: %s", frame,
	                 w->err);
}

const char *aio_frame_name(uint16_t type)
{
	switch (type) {
	case ASYNCIO_HELLO_OK:
		return "HELLO_OK";
	case ASYNCIO_STRINGS:
		return "STRINGS";
	case ASYNCIO_STACKS:
		return "STACKS";
	case ASYNCIO_TASKS:
		return "TASKS";
	case ASYNCIO_AGGS:
		return "AGGS";
	case ASYNCIO_END:
		return "END";
	case ASYNCIO_RETIRE:
		return "RETIRE";
	case ASYNCIO_ERROR:
		return "ERROR";
	default:
		return "unknown";
	}
}

/* ---- frames -------------------------------------------------------------- */

enum status aio_send_frame(struct aio *p, uint16_t type, const void *body,
                           size_t len, uint64_t deadline, struct failure *f)
{
	struct buf b;
	enum status st;

	buf_init(&b);
	(void)buf_add(&b, "ATOP", 4);
	(void)wire_put_u16(&b, ASYNCIO_PROTO_VERSION);
	(void)wire_put_u16(&b, type);
	(void)wire_put_u32(&b, (uint32_t)len);
	(void)wire_put_u32(&b, p->seq);
	if (len)
		(void)buf_add(&b, body, len);
	st = buf_status(&b);
	if (st == STATUS_OK)
		st = write_full(p->fd, b.data, b.len, deadline);
	buf_fini(&b);
	if (st == STATUS_NOMEM)
		return aio_failf(f, st, NULL, NULL, "%s", status_str(st));
	if (st == STATUS_TIMEOUT)
		return aio_failf(f, st, aio_remedy_slow,
		                 "the agent stopped answering",
		                 "the agent did not take a request within %gs",
		                 (double)(deadline - collect_now() + 0) / 1e9);
	if (st != STATUS_OK)
		return aio_failf(f, STATUS_UNREACHABLE, aio_remedy_gone,
		                 "agent connection lost",
		                 "the agent closed the connection (%s)",
		                 st == STATUS_EOF ? "broken pipe"
		                                  : strerror(errno));
	return STATUS_OK;
}

/* Reads one frame into p->rx and points p->w at its payload. */
enum status aio_read_frame(struct aio *p, uint64_t deadline,
                           uint64_t timeout_ns, uint16_t *type, uint32_t *seq,
                           struct failure *f)
{
	unsigned char h[ASYNCIO_HEADER_SIZE];
	size_t got = 0;
	uint32_t len;
	uint16_t version;
	enum status st = read_full(p->fd, h, sizeof(h), deadline, &got);

	if (st == STATUS_EOF && got == 0)
		return aio_failf(
		    f, STATUS_UNREACHABLE, aio_remedy_gone,
		    "agent connection lost",
		    "the agent closed the connection without a final "
		    "snapshot (the process may have been killed)");
	if (st == STATUS_EOF)
		return aio_failf(
		    f, STATUS_MALFORMED, NULL, NULL,
		    "the agent closed the connection in the middle of "
		    "a frame header (%zu of %d bytes)",
		    got, ASYNCIO_HEADER_SIZE);
	if (st == STATUS_TIMEOUT)
		return aio_failf(
		    f, st, aio_remedy_slow, "the agent stopped answering",
		    "the agent did not answer within %gs%s",
		    (double)timeout_ns / 1e9,
		    got ? " (it stopped in the middle of a frame)" : "");
	if (st != STATUS_OK)
		return aio_failf(f, STATUS_IO, NULL, "agent connection lost",
		                 "reading from the agent: %s", strerror(errno));
	if (memcmp(h, "ATOP", 4))
		return aio_failf(
		    f, STATUS_MALFORMED, NULL, NULL,
		    "the reply does not start with the magic \"ATOP\" "
		    "(got %02x %02x %02x %02x): not an asynctop agent",
		    h[0], h[1], h[2], h[3]);
	version = wire_le16(h + 4);
	*type = wire_le16(h + 6);
	len = wire_le32(h + 8);
	*seq = wire_le32(h + 12);
	if (version != ASYNCIO_PROTO_VERSION)
		return aio_failf(
		    f, STATUS_MALFORMED,
		    "use the asynctop_agent shipped with this asynctop", NULL,
		    "agent speaks protocol version %u, this reader "
		    "speaks %d",
		    version, ASYNCIO_PROTO_VERSION);
	if (*type < ASYNCIO_HELLO_OK ||
	    (*type > ASYNCIO_RETIRE && *type != ASYNCIO_ERROR))
		return aio_failf(f, STATUS_MALFORMED, NULL, NULL,
		                 "unknown frame type 0x%04x", *type);
	if (len > p->max_payload)
		return aio_failf(
		    f, STATUS_MALFORMED, NULL, NULL,
		    "a %s frame of %u bytes exceeds the %u-byte limit",
		    aio_frame_name(*type), len, p->max_payload);
	if (mem_grow(&p->rx, &p->caprx, (size_t)len + 1, 1) != STATUS_OK)
		return aio_failf(f, STATUS_NOMEM, NULL, NULL, "%s",
		                 status_str(STATUS_NOMEM));
	st = read_full(p->fd, p->rx, len, deadline, &got);
	if (st == STATUS_EOF)
		return aio_failf(
		    f, STATUS_MALFORMED, NULL, NULL,
		    "the agent closed the connection in the middle of "
		    "a %s frame (%zu of %u bytes)",
		    aio_frame_name(*type), got, len);
	if (st == STATUS_TIMEOUT)
		return aio_failf(
		    f, st, aio_remedy_slow, "the agent stopped answering",
		    "the agent did not answer within %gs (it stopped "
		    "in the middle of a %s frame)",
		    (double)timeout_ns / 1e9, aio_frame_name(*type));
	if (st != STATUS_OK)
		return aio_failf(f, STATUS_IO, NULL, "agent connection lost",
		                 "reading from the agent: %s", strerror(errno));
	wire_init(&p->w, p->rx, len);
	return STATUS_OK;
}

/* An ERROR frame, worded. */
enum status aio_agent_error(struct aio *p, struct failure *f)
{
	struct wire *w = &p->w;
	const unsigned char *text;
	uint32_t code;
	size_t n;

	(void)wire_u32(w, "the error code", &code);
	n = wire_left(w) > 256 ? 256 : wire_left(w);
	(void)wire_bytes(w, "the error text", n, &text);
	if (wire_status(w) != STATUS_OK)
		return aio_malformed(f, w, "ERROR");
	switch (code) {
	case 1:
		return aio_failf(
		    f, STATUS_UNREACHABLE,
		    "run asynctop as the application's user (or root)", NULL,
		    "the agent refused this user: %.*s", (int)n,
		    (const char *)text);
	case 2:
		return aio_failf(
		    f, STATUS_UNREACHABLE,
		    "close another asynctop attached to this process", NULL,
		    "the agent serves too many readers: %.*s", (int)n,
		    (const char *)text);
	case 4:
		return aio_failf(
		    f, STATUS_MALFORMED,
		    "use the asynctop_agent shipped with this asynctop", NULL,
		    "the agent does not speak version %d: %.*s",
		    ASYNCIO_PROTO_VERSION, (int)n, (const char *)text);
	case 5:
		return aio_failf(f, STATUS_IO,
		                 "the agent logged the internal error on the "
		                 "application's stderr",
		                 "agent disabled",
		                 "the agent disabled itself after an internal "
		                 "error: %.*s",
		                 (int)n, (const char *)text);
	default:
		return aio_failf(f, STATUS_IO, NULL, NULL,
		                 "the agent answered with error %u: %.*s", code,
		                 (int)n, (const char *)text);
	}
}

/* Reads frames until the END of request seq (or a FINAL push, seq 0).
 * want 0: only a pushed final reply is expected. */
enum status aio_read_reply(struct aio *p, uint32_t want, uint64_t deadline,
                           uint64_t timeout_ns, struct end *e,
                           struct failure *f)
{
	uint64_t records[2] = { 0, 0 }; /* [0] pushed, [1] requested */
	uint64_t cap = u64_add_sat(deadline, (REPLY_CAP - 1) * timeout_ns);

	for (;;) {
		uint16_t type;
		uint32_t seq;
		enum status st =
		    aio_read_frame(p, deadline, timeout_ns, &type, &seq, f);
		uint64_t *rec;

		if (st != STATUS_OK)
			return st;
		/* an agent short of CPU sends a large reply slowly, a frame
		 * at a time: it is answering, so the wait restarts (not once
		 * a stop was asked for: the stop's grace is short) */
		if (!p->hold || !collect_stopping(p->hold)) {
			deadline = u64_min(
			    u64_add_sat(collect_now(), timeout_ns), cap);
			if (p->hold)
				collect_hold(p->hold, deadline);
		}
		if (seq != 0 && seq != want)
			return aio_failf(
			    f, STATUS_MALFORMED, NULL, NULL,
			    "the %s frame answers request %u while "
			    "%s%.0u was pending",
			    aio_frame_name(type), seq,
			    want ? "request " : "none", want);
		rec = &records[seq != 0];
		switch (type) {
		case ASYNCIO_STRINGS:
			st = aio_take_strings(p, f);
			break;
		case ASYNCIO_STACKS:
			st = aio_take_stacks(p, f);
			break;
		case ASYNCIO_TASKS:
			st = aio_take_tasks(p, rec, f);
			break;
		case ASYNCIO_AGGS:
			st = aio_take_aggs(p, f);
			break;
		case ASYNCIO_RETIRE:
			st = aio_take_retire(p, f);
			break;
		case ASYNCIO_ERROR:
			return aio_agent_error(p, f);
		case ASYNCIO_END:
			st = aio_take_end(p, e, f);
			if (st != STATUS_OK)
				return st;
			if (!seq && !(e->flags & END_FINAL))
				return aio_failf(
				    f, STATUS_MALFORMED, NULL, NULL,
				    "END frame: an unrequested reply "
				    "without the FINAL flag");
			if (e->records != *rec)
				return aio_failf(
				    f, STATUS_MALFORMED, NULL, NULL,
				    "END frame: it counts %llu task "
				    "records, the reply carried %llu",
				    (unsigned long long)e->records,
				    (unsigned long long)*rec);
			return STATUS_OK;
		default:
			return aio_failf(f, STATUS_MALFORMED, NULL, NULL,
			                 "an unexpected %s frame in a reply",
			                 aio_frame_name(type));
		}
		if (st != STATUS_OK)
			return st;
	}
}
