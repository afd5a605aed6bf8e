/* libFuzzer target: the tokio adapter's handling of console-api Updates
 * (decode, apply, roll, emit), on any bytes.  The input is a list of
 * chunks, each a kind byte, a little-endian u16 length and that many
 * bytes: kind 0 is one Update's bytes as a WatchUpdates message carries
 * them, 1 rolls the window (after emitting it), 2 emits the window so far,
 * 3 starts a new stream (a reconnect).  Every sample handed over must be
 * well formed (its names are raw bytes: the viewer and the encoders make
 * them safe), every refusal worded and display-safe, and the tables must
 * stay inside their bounds. */
#include <string.h>

#include "adapters/tokio_int.h"
#include "tests/fuzz/fuzz.h"

/* What the samples' bytes add up to: reading every byte the sample points
 * at lets ASan see a view past its string. */
static volatile unsigned touched;

static void check_text(struct strview s)
{
	FUZZ_ASSERT(s.len == 0 || s.ptr != NULL);
	FUZZ_ASSERT(s.len <= TOKIO_MAX_TEXT);
	for (size_t i = 0; i < s.len; i++)
		touched += (unsigned char)s.ptr[i];
}

struct count {
	size_t n, max; /* samples so far; tasks in the table */
};

static enum status on_sample(void *ctx, const struct sample *s)
{
	struct count *c = ctx;

	FUZZ_ASSERT(s->depth <= 2);
	FUZZ_ASSERT(s->depth == 0 || s->frames != NULL);
	for (size_t i = 0; i < s->depth; i++)
		check_text(s->frames[i]);
	check_text(s->task);
	FUZZ_ASSERT(s->parked_depth == 0);
	FUZZ_ASSERT(++c->n <= c->max); /* one sample per task at most */
	return STATUS_OK;
}

static void emit(struct tokio_state *st)
{
	struct count c = { .n = 0, .max = st->ntasks };
	struct sample_sink sink = { .sample = on_sample, .ctx = &c };

	FUZZ_ASSERT(tokio_state_emit(st, &sink) == STATUS_OK);
}

static void apply(struct tokio_state *st, const uint8_t *p, size_t n)
{
	char err[200];
	enum status rc;

	err[0] = '\0';
	rc = tokio_state_apply(st, p, n, err, sizeof(err));
	FUZZ_ASSERT(rc == STATUS_OK || rc == STATUS_MALFORMED ||
	            rc == STATUS_LIMIT || rc == STATUS_NOMEM);
	if (rc != STATUS_OK) {
		FUZZ_ASSERT(err[0] != '\0');
		FUZZ_ASSERT(fuzz_display_safe(sv_c(err), false));
	}
	FUZZ_ASSERT(st->ntasks <= TOKIO_MAX_TASKS);
	FUZZ_ASSERT(st->npending <= TOKIO_MAX_PENDING);
	FUZZ_ASSERT(st->nmeta <= TOKIO_MAX_META);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct tokio_state st;
	size_t at = 0;

	tokio_state_init(&st);
	while (size - at >= 3) {
		unsigned kind = data[at] % 4;
		size_t len = (size_t)data[at + 1] | (size_t)data[at + 2] << 8;

		at += 3;
		if (len > size - at)
			len = size - at;
		switch (kind) {
		case 0:
			apply(&st, data + at, len);
			break;
		case 1:
			emit(&st);
			tokio_state_roll(&st);
			break;
		case 2:
			emit(&st);
			break;
		default:
			tokio_state_reset(&st);
			break;
		}
		at += len;
	}
	emit(&st);
	tokio_state_fini(&st);
	return 0;
}
