/* libFuzzer target: the asyncio adapter's reader of agent replies, the
 * tables it decodes STRINGS, STACKS, TASKS, AGGS and END into, and the
 * window arithmetic over them, on any bytes.  The input is a list of
 * chunks, each a kind byte, a little-endian u16 length and that many
 * bytes: kinds 0-4 are the payloads of the five reply frames, 5 ends a
 * window at the last boundary, 6 is an ERROR frame's payload, and 7 is a
 * READ's seq (one byte) then a byte stream (headers and all) read from a
 * pipe as the replies to it and to the READs after it.  A frame the reader
 * refuses drops the connection, as the adapter does.  Every sample handed over
 * must be well formed, and every failure worded.
 *
 * The worker is not linked: this file stands in for the collect_*
 * functions the window arithmetic calls. */
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "adapters/asyncio_int.h"
#include "model/alloc.h"
#include "tests/fuzz/fuzz.h"

struct collect {
	uint64_t samples, dropped;
};

uint64_t collect_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void collect_clear(struct collect *c)
{
	c->samples = c->dropped = 0;
}

void collect_dropped(struct collect *c, uint64_t n)
{
	c->dropped += n;
}

/* A fuzz run is never asked to stop, and has no watchdog to hold off. */
bool collect_stopping(const struct collect *c)
{
	(void)c;
	return false;
}

void collect_hold(struct collect *c, uint64_t until_ns)
{
	(void)c;
	(void)until_ns;
}

/* What the samples' bytes add up to: reading every byte the sample points
 * at lets ASan see a view past its string. */
static volatile unsigned touched;

static unsigned touch(struct strview s)
{
	unsigned sum = 0;

	for (size_t i = 0; i < s.len; i++)
		sum += (unsigned char)s.ptr[i];
	return sum;
}

enum status collect_add(struct collect *c, const struct sample *s)
{
	FUZZ_ASSERT(s->depth <= MAX_FRAMES + 2);
	FUZZ_ASSERT(s->depth == 0 || s->frames != NULL);
	for (size_t i = 0; i < s->depth; i++) {
		FUZZ_ASSERT(s->frames[i].len <= MAX_STRING + 32);
		touched += touch(s->frames[i]);
	}
	FUZZ_ASSERT(s->task.len <= MAX_STRING);
	touched += touch(s->task);
	c->samples++;
	return STATUS_OK;
}

/* An END taken: the boundary starts the first window, or moves the
 * window's figures on, as the adapter's collect does. */
static void at_end(struct aio *p, struct collect *c, const struct end *e)
{
	p->loop_threads = e->loop_threads;
	if (!p->have_start) {
		aio_roll(p, e->boundary);
		p->real_start = e->real;
		p->have_start = true;
	} else {
		aio_emit(p, c, e->boundary);
	}
	p->t_last = e->boundary;
}

static void failed(struct aio *p, enum status st, const struct failure *f,
                   unsigned kind)
{
	FUZZ_ASSERT(st == STATUS_MALFORMED || st == STATUS_NOMEM ||
	            st == STATUS_UNREACHABLE || st == STATUS_IO ||
	            st == STATUS_TIMEOUT);
	FUZZ_ASSERT(f->detail[0] != '\0');
	if (getenv("FUZZ_VERBOSE")) /* which chunk a seed stops at */
		fprintf(stderr, "chunk kind %u: %s\n", kind, f->detail);
	aio_reset(p);
}

/* Replies read from a pipe holding bytes (len < 64 KiB, a pipe's buffer),
 * until the reader refuses one or the bytes end. */
static void stream(struct aio *p, struct collect *c, const uint8_t *bytes,
                   size_t len)
{
	uint32_t want;
	struct failure f;
	struct end e;
	int fds[2];

	if (len < 1 || pipe(fds) != 0)
		return;
	want = bytes[0];
	bytes++;
	len--;
	if (len && write(fds[1], bytes, len) != (ssize_t)len) {
		close(fds[0]);
		close(fds[1]);
		return;
	}
	close(fds[1]);
	aio_reset(p); /* a new connection, on the pipe */
	p->fd = fds[0];
	p->max_payload = ASYNCIO_MAX_PAYLOAD;
	for (;;) {
		enum status st;

		memset(&f, 0, sizeof(f));
		memset(&e, 0, sizeof(e));
		st = aio_read_reply(p, want, collect_now() + 1000000000u,
		                    1000000000u, &e, &f);
		if (st != STATUS_OK) {
			failed(p, st, &f, 7); /* closes the pipe */
			return;
		}
		at_end(p, c, &e);
		want++; /* the next READ */
	}
}

static void take(struct aio *p, struct collect *c, unsigned kind)
{
	struct failure f;
	struct end e;
	uint64_t records = 0;
	enum status st;

	memset(&f, 0, sizeof(f));
	memset(&e, 0, sizeof(e));
	switch (kind) {
	case 0:
		st = aio_take_strings(p, &f);
		break;
	case 1:
		st = aio_take_stacks(p, &f);
		break;
	case 2:
		st = aio_take_tasks(p, &records, &f);
		break;
	case 3:
		st = aio_take_aggs(p, &f);
		break;
	case 4:
		st = aio_take_end(p, &e, &f);
		if (st == STATUS_OK) {
			at_end(p, c, &e);
			return;
		}
		break;
	case 6:
		st = aio_agent_error(p, &f);
		FUZZ_ASSERT(st != STATUS_OK);
		break;
	default:
		if (getenv("FUZZ_VERBOSE"))
			fprintf(stderr, "window: %llu samples, %llu dropped\n",
			        (unsigned long long)c->samples,
			        (unsigned long long)c->dropped);
		if (p->have_start) { /* the window ends at the last boundary */
			aio_emit(p, c, p->t_last);
			aio_roll(p, p->t_last);
		}
		return;
	}
	if (st != STATUS_OK)
		failed(p, st, &f, kind);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct collect c = { 0, 0 };
	struct aio p;
	size_t at = 0;

	memset(&p, 0, sizeof(p));
	p.fd = -1;
	while (size - at >= 3) {
		unsigned kind = data[at] % 8;
		size_t len = (size_t)data[at + 1] | (size_t)data[at + 2] << 8;

		at += 3;
		if (len > size - at)
			len = size - at;
		wire_init(&p.w, data + at, len);
		if (kind == 7)
			stream(&p, &c, data + at, len);
		else
			take(&p, &c, kind);
		at += len;
	}
	if (p.have_start)
		aio_emit(&p, &c, p.t_last);
	aio_fini(&p);
	return 0;
}
