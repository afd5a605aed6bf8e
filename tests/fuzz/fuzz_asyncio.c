/* libFuzzer target: the asyncio adapter's reader of agent replies, the
 * tables it decodes STRINGS, STACKS, TASKS, AGGS and END into, and the
 * window arithmetic over them, on any bytes.  The input is a list of
 * frames, each a kind byte, a little-endian u16 length and that many
 * bytes of payload: kinds 0-4 are the five reply frames, 5 ends a window
 * at the last boundary.  A frame the reader refuses drops the connection,
 * as the adapter does.  Every sample handed over must be well formed.
 *
 * The worker is not linked: this file stands in for the collect_*
 * functions the window arithmetic calls. */
#include <string.h>
#include <time.h>

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

static void drop(struct aio *p)
{
	aio_reset(p);
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
		if (st != STATUS_OK)
			break;
		/* as the adapter's collect does with a reply's END */
		p->loop_threads = e.loop_threads;
		if (!p->have_start) {
			aio_roll(p, e.boundary);
			p->real_start = e.real;
			p->have_start = true;
		} else {
			aio_emit(p, c, e.boundary);
		}
		p->t_last = e.boundary;
		return;
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
	if (st != STATUS_OK) {
		FUZZ_ASSERT(st == STATUS_MALFORMED || st == STATUS_NOMEM);
		FUZZ_ASSERT(f.detail[0] != '\0');
		if (getenv("FUZZ_VERBOSE")) /* which frame a seed stops at */
			fprintf(stderr, "frame kind %u: %s\n", kind, f.detail);
		drop(p);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct collect c = { 0, 0 };
	struct aio p;
	size_t at = 0;

	memset(&p, 0, sizeof(p));
	p.fd = -1;
	while (size - at >= 3) {
		unsigned kind = data[at] % 6;
		size_t len = (size_t)data[at + 1] | (size_t)data[at + 2] << 8;

		at += 3;
		if (len > size - at)
			len = size - at;
		wire_init(&p.w, data + at, len);
		take(&p, &c, kind);
		at += len;
	}
	if (p.have_start)
		aio_emit(&p, &c, p.t_last);
	aio_reset(&p);
	mem_free(p.strs);
	mem_free(p.stks);
	mem_free(p.frame_pool);
	mem_free(p.tasks);
	mem_free(p.sites);
	mem_free(p.out);
	mem_free(p.rx);
	return 0;
}
