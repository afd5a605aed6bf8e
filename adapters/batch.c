/* An owned, bounded copy of a window's samples (see batch.h). */
#include "adapters/batch.h"

#include <string.h>

#include "model/alloc.h"
#include "model/strview.h"

void batch_init(struct batch *b)
{
	memset(b, 0, sizeof(*b));
}

void batch_fini(struct batch *b)
{
	mem_free(b->bytes);
	mem_free(b->frames);
	mem_free(b->recs);
	batch_init(b);
}

void batch_clear(struct batch *b)
{
	b->nbytes = 0;
	b->nframes = 0;
	b->n = 0;
	b->max_depth = 0;
	b->dropped = 0;
}

static enum status drop(struct batch *b, enum status st)
{
	b->dropped = u64_add_sat(b->dropped, 1);
	return st;
}

enum status batch_add(struct batch *b, const struct sample *s)
{
	size_t bytes = s->task.len, i;
	struct batch_rec *r;

	if (b->n >= BATCH_MAX_SAMPLES ||
	    s->depth > BATCH_MAX_FRAMES - b->nframes)
		return drop(b, STATUS_LIMIT);
	if (s->depth > 0 && !s->frames)
		return drop(b, STATUS_INVAL);
	for (i = 0; i < s->depth; i++) {
		if (s->frames[i].len > BATCH_MAX_BYTES - bytes)
			return drop(b, STATUS_LIMIT);
		bytes += s->frames[i].len;
	}
	if (bytes > BATCH_MAX_BYTES - b->nbytes)
		return drop(b, STATUS_LIMIT);
	if (mem_grow(&b->bytes, &b->capbytes, b->nbytes + bytes, 1) ||
	    mem_grow(&b->frames, &b->capframes, b->nframes + s->depth,
	             sizeof(*b->frames)) ||
	    mem_grow(&b->recs, &b->cap, b->n + 1, sizeof(*b->recs)))
		return drop(b, STATUS_NOMEM);
	r = &b->recs[b->n++];
	r->first = (uint32_t)b->nframes;
	r->depth = (uint32_t)s->depth;
	for (i = 0; i < s->depth; i++) {
		struct batch_str *f = &b->frames[b->nframes++];
		f->off = (uint32_t)b->nbytes;
		f->len = (uint32_t)s->frames[i].len;
		if (f->len)
			memcpy(b->bytes + b->nbytes, s->frames[i].ptr, f->len);
		b->nbytes += f->len;
	}
	r->task.off = (uint32_t)b->nbytes;
	r->task.len = (uint32_t)s->task.len;
	if (r->task.len)
		memcpy(b->bytes + b->nbytes, s->task.ptr, r->task.len);
	b->nbytes += r->task.len;
	r->tasks = s->tasks;
	r->m = s->m;
	r->dropped = s->dropped;
	b->max_depth = size_max(b->max_depth, s->depth);
	return STATUS_OK;
}

static void *dup_array(const void *src, size_t n, size_t size)
{
	void *p = mem_realloc_array(NULL, n ? n : 1, size);

	if (p && n)
		memcpy(p, src, n * size);
	return p;
}

enum status batch_copy(struct batch *dst, const struct batch *src)
{
	batch_fini(dst);
	dst->bytes = dup_array(src->bytes, src->nbytes, 1);
	dst->frames =
	    dup_array(src->frames, src->nframes, sizeof(*src->frames));
	dst->recs = dup_array(src->recs, src->n, sizeof(*src->recs));
	if (!dst->bytes || !dst->frames || !dst->recs) {
		batch_fini(dst);
		return STATUS_NOMEM;
	}
	dst->nbytes = dst->capbytes = src->nbytes;
	dst->nframes = dst->capframes = src->nframes;
	dst->n = dst->cap = src->n;
	dst->capbytes = size_max(dst->capbytes, 1);
	dst->capframes = size_max(dst->capframes, 1);
	dst->cap = size_max(dst->cap, 1);
	dst->max_depth = src->max_depth;
	dst->dropped = src->dropped;
	return STATUS_OK;
}

void batch_move(struct batch *dst, struct batch *src)
{
	batch_fini(dst);
	*dst = *src;
	batch_init(src);
}

static struct strview view(const struct batch *b, struct batch_str s)
{
	return sv_n(s.len ? b->bytes + s.off : "", s.len);
}

enum status batch_feed(const struct batch *b, const struct sample_sink *sink)
{
	struct strview *fr =
	    mem_realloc_array(NULL, size_max(b->max_depth, 1), sizeof(*fr));
	enum status st = STATUS_OK;
	size_t i, j;

	if (!fr)
		return STATUS_NOMEM;
	for (i = 0; i < b->n; i++) {
		const struct batch_rec *r = &b->recs[i];
		struct sample s;

		for (j = 0; j < r->depth; j++)
			fr[j] = view(b, b->frames[r->first + j]);
		s = (struct sample){
			.frames = fr,
			.depth = r->depth,
			.task = view(b, r->task),
			.m = r->m,
			.tasks = r->tasks,
			.dropped = r->dropped,
		};
		st = sink->sample(sink->ctx, &s);
		if (st != STATUS_OK && st != STATUS_LIMIT)
			break;
		st = STATUS_OK;
	}
	mem_free(fr);
	return st;
}
