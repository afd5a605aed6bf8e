/* libFuzzer target: the three writers fed hostile names.  The input is a
 * list of samples separated by NUL bytes; in each, two bytes seed the
 * figures, then the task name, then after a 0x1e byte the frames, root
 * first, separated by 0x1f bytes.  Names may hold anything: control
 * characters, escape sequences, invalid UTF-8, ';', newlines, 4 KiB and
 * more.  Properties: pprof reads back and encodes to the same bytes;
 * collapsed reads back; collapsed and text are display-safe. */
#include <string.h>

#include "encode/collapsed.h"
#include "encode/pprof.h"
#include "encode/text.h"
#include "model/buf.h"
#include "model/model.h"
#include "tests/fuzz/fuzz.h"

#define MAX_FRAMES 300 /* past the model's 128, to reach truncation */

static const char *find(const char *p, const char *end, char c)
{
	const char *q = memchr(p, c, (size_t)(end - p));

	return q ? q : end;
}

/* One sample from [p, end) into m; frames is scratch of MAX_FRAMES. */
static void add_one(struct model *m, const char *p, const char *end,
                    struct strview *frames)
{
	struct sample s;
	unsigned seed;
	const char *name_end;
	size_t k;

	if (end - p < 2)
		return;
	seed = (unsigned)(unsigned char)p[0] << 8 | (unsigned char)p[1];
	p += 2;
	name_end = find(p, end, 0x1e);
	memset(&s, 0, sizeof(s));
	s.task = sv_n(p, (size_t)(name_end - p));
	p = name_end < end ? name_end + 1 : end;
	while (p < end && s.depth < MAX_FRAMES) {
		const char *q = find(p, end, 0x1f);

		frames[s.depth++] = sv_n(p, (size_t)(q - p));
		p = q < end ? q + 1 : end;
	}
	s.frames = frames;
	for (k = 0; k < METRIC_COUNT; k++)
		s.m.v[k] = (seed & (1u << k)) ? (uint64_t)seed << (8 * k) : 0;
	if (seed & 0x8000)
		s.m.v[METRIC_IDLE] = UINT64_MAX; /* saturation, INT64 clamp */
	s.tasks = seed >> 12;
	(void)model_add(m, &s); /* STATUS_LIMIT is counted, not an error */
}

static void check_text(const struct model *m, const struct window *w,
                       const uint8_t *data, size_t size)
{
	struct text_opts o;
	struct buf t;
	enum status st;

	text_opts_default(&o);
	o.first = (enum metric)(data[0] % METRIC_COUNT);
	o.width = data[0] & 0x20 ? 20 + size % 100 : 0;
	o.ascii = (data[0] & 0x40) != 0;
	o.top = data[0] & 0x80 ? 0 : 10;
	buf_init(&t);
	st = text_encode(m, w, &o, &t);
	FUZZ_ASSERT(st == STATUS_OK || st == STATUS_EMPTY_WINDOW ||
	            st == STATUS_NOMEM);
	if (st == STATUS_OK)
		FUZZ_ASSERT(fuzz_display_safe(sv_n(t.data, t.len), true));
	buf_fini(&t);
}

static void check_collapsed(const struct model *m, const struct window *w,
                            enum metric metric)
{
	struct model *back;
	struct buf c;
	enum status st;

	buf_init(&c);
	st = collapsed_encode(m, w, metric, &c);
	FUZZ_ASSERT(st == STATUS_OK || st == STATUS_EMPTY_WINDOW ||
	            st == STATUS_NOMEM);
	if (st == STATUS_OK && c.len) {
		struct sample_sink sink;

		FUZZ_ASSERT(fuzz_display_safe(sv_n(c.data, c.len), true));
		if (model_new(NULL, &back) == STATUS_OK) {
			FUZZ_ASSERT(model_begin(back) == STATUS_OK);
			sink = model_sink(back);
			st = collapsed_decode(c.data, c.len, metric, &sink,
			                      NULL, 0);
			FUZZ_ASSERT(st == STATUS_OK || st == STATUS_NOMEM);
			model_free(back);
		}
	}
	buf_fini(&c);
}

struct into {
	struct model *m;
	struct sample_sink add;
	const struct window *w;
	enum status commit;
};

static enum status into_add(void *ctx, const struct sample *s)
{
	struct into *t = ctx;

	return t->add.sample(t->add.ctx, s);
}

static enum status into_commit(void *ctx, const struct window_meta *meta)
{
	struct into *t = ctx;

	t->commit = model_commit(t->m, meta, &t->w);
	return STATUS_OK;
}

static void check_pprof(const struct model *m, const struct window *w)
{
	struct into t;
	struct buf p, q;
	enum status st;

	buf_init(&p);
	buf_init(&q);
	st = pprof_encode(m, w, NULL, &p);
	FUZZ_ASSERT(st == STATUS_OK || st == STATUS_EMPTY_WINDOW ||
	            st == STATUS_NOMEM);
	memset(&t, 0, sizeof(t));
	if (st == STATUS_OK && model_new(NULL, &t.m) == STATUS_OK) {
		struct sample_sink sink = { into_add, into_commit, &t };

		t.add = model_sink(t.m);
		t.commit = STATUS_INVAL;
		FUZZ_ASSERT(model_begin(t.m) == STATUS_OK);
		st = pprof_decode(p.data, p.len, NULL, &sink, NULL, 0);
		FUZZ_ASSERT(st == STATUS_OK || st == STATUS_NOMEM);
		if (st == STATUS_OK && t.commit == STATUS_OK &&
		    pprof_encode(t.m, t.w, NULL, &q) == STATUS_OK)
			FUZZ_ASSERT(p.len == q.len &&
			            !memcmp(p.data, q.data, p.len));
	}
	model_free(t.m);
	buf_fini(&p);
	buf_fini(&q);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct strview frames[MAX_FRAMES];
	static char text[256];
	const char *comments[1];
	const char *p, *end = (const char *)data + size;
	size_t n;
	struct window_meta meta;
	const struct window *w;
	struct model *m;
	enum status st;

	if (size < 1 || model_new(NULL, &m) != STATUS_OK)
		return 0;
	FUZZ_ASSERT(model_begin(m) == STATUS_OK);
	for (p = (const char *)data + 1; p < end;) {
		const char *q = find(p, end, 0);

		add_one(m, p, q, frames);
		p = q < end ? q + 1 : end;
	}
	/* hostile text in the window's own strings too */
	n = size - 1 < sizeof(text) - 1 ? size - 1 : sizeof(text) - 1;
	memcpy(text, data + 1, n);
	text[n] = '\0';
	comments[0] = text;
	memset(&meta, 0, sizeof(meta));
	meta.time_nanos = (int64_t)size * 1000000007;
	meta.duration_nanos = 5000000000;
	meta.partial = (data[0] & 1) != 0;
	meta.reason = text;
	meta.source = text;
	meta.comments = comments;
	meta.ncomments = 1;
	st = model_commit(m, &meta, &w);
	FUZZ_ASSERT(st == STATUS_OK || st == STATUS_EMPTY_WINDOW ||
	            st == STATUS_NOMEM);
	if (st == STATUS_OK) {
		check_pprof(m, w);
		check_collapsed(m, w, (enum metric)(data[0] % METRIC_COUNT));
		check_text(m, w, data, size);
	}
	model_free(m);
	return 0;
}
