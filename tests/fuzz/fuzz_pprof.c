/* libFuzzer target: the pprof reader, replay's input, on any bytes (gzip
 * or raw).  It must answer with one of its documented statuses; a profile
 * it accepts must encode again, and that encoding must read back and encode
 * to the same bytes (replaying a saved window and saving it is stable). */
#include <string.h>

#include "encode/pprof.h"
#include "model/buf.h"
#include "model/model.h"
#include "tests/fuzz/fuzz.h"

/* Small bounds keep each run fast; the limits themselves are tested. */
static const struct load_limits limits = { 4u << 20, 20000 };

struct into {
	struct model *m;
	struct sample_sink add; /* model_sink(m) */
	const struct window *w;
	enum status commit;
	bool committed;
};

static enum status add(void *ctx, const struct sample *s)
{
	struct into *t = ctx;

	return t->add.sample(t->add.ctx, s);
}

static enum status commit(void *ctx, const struct window_meta *meta)
{
	struct into *t = ctx;

	t->committed = true;
	t->commit = model_commit(t->m, meta, &t->w);
	return STATUS_OK;
}

/* Decodes data into a fresh model t->m (one window) and encodes that
 * window into out.  Returns the decoder's status, or the encoder's. */
static enum status load(const void *data, size_t len, struct into *t,
                        struct buf *out)
{
	struct sample_sink sink = { add, commit, t };
	enum status st;

	memset(t, 0, sizeof(*t));
	if (model_new(NULL, &t->m) != STATUS_OK)
		return STATUS_NOMEM;
	t->add = model_sink(t->m);
	FUZZ_ASSERT(model_begin(t->m) == STATUS_OK);
	st = pprof_decode(data, len, &limits, &sink, NULL, 0);
	if (st != STATUS_OK)
		return st;
	FUZZ_ASSERT(t->committed);
	if (t->commit != STATUS_OK)
		return t->commit;
	return pprof_encode(t->m, t->w, NULL, out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct into a, b;
	struct buf ea, eb;
	enum status st;

	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	buf_init(&ea);
	buf_init(&eb);
	st = load(data, size, &a, &ea);
	FUZZ_ASSERT(st == STATUS_OK || st == STATUS_MALFORMED ||
	            st == STATUS_FOREIGN || st == STATUS_TOO_LARGE ||
	            st == STATUS_EMPTY_WINDOW || st == STATUS_NOMEM);
	if (st == STATUS_OK) {
		st = load(ea.data, ea.len, &b, &eb);
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
