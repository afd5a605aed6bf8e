/* libFuzzer target: the collapsed-stack reader on any bytes (the first
 * picks the metric), then the writer on what it accepted: the output is
 * display-safe lines that read back and encode to the same bytes. */
#include <string.h>

#include "encode/collapsed.h"
#include "model/buf.h"
#include "model/model.h"
#include "tests/fuzz/fuzz.h"

struct into {
	struct model *m;
	struct sample_sink add;
	const struct window *w;
	enum status commit;
};

static enum status add(void *ctx, const struct sample *s)
{
	struct into *t = ctx;

	return t->add.sample(t->add.ctx, s);
}

static enum status commit(void *ctx, const struct window_meta *meta)
{
	struct into *t = ctx;

	t->commit = model_commit(t->m, meta, &t->w);
	return STATUS_OK;
}

/* Decodes data into a fresh model (one window) and encodes that window
 * into out.  Returns the decoder's status, or the encoder's. */
static enum status load(const void *data, size_t len, enum metric metric,
                        struct into *t, struct buf *out)
{
	struct sample_sink sink = { add, commit, t };
	enum status st;

	memset(t, 0, sizeof(*t));
	t->commit = STATUS_INVAL;
	if (model_new(NULL, &t->m) != STATUS_OK)
		return STATUS_NOMEM;
	t->add = model_sink(t->m);
	FUZZ_ASSERT(model_begin(t->m) == STATUS_OK);
	st = collapsed_decode(data, len, metric, &sink, NULL, 0);
	if (st != STATUS_OK)
		return st;
	if (t->commit != STATUS_OK)
		return t->commit;
	return collapsed_encode(t->m, t->w, metric, out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	enum metric metric;
	struct into a, b;
	struct buf ea, eb;
	enum status st;

	if (size < 1)
		return 0;
	metric = (enum metric)(data[0] % METRIC_COUNT);
	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	buf_init(&ea);
	buf_init(&eb);
	st = load(data + 1, size - 1, metric, &a, &ea);
	FUZZ_ASSERT(st == STATUS_OK || st == STATUS_MALFORMED ||
	            st == STATUS_TOO_LARGE || st == STATUS_EMPTY_WINDOW ||
	            st == STATUS_NOMEM);
	if (st == STATUS_OK && ea.len) {
		FUZZ_ASSERT(fuzz_display_safe(sv_n(ea.data, ea.len), true));
		FUZZ_ASSERT(ea.data[ea.len - 1] == '\n');
		st = load(ea.data, ea.len, metric, &b, &eb);
		FUZZ_ASSERT(st == STATUS_OK);
		FUZZ_ASSERT(ea.len == eb.len &&
		            !memcmp(ea.data, eb.data, ea.len));
		model_free(b.m);
	}
	model_free(a.m);
	buf_fini(&ea);
	buf_fini(&eb);
	return 0;
}
