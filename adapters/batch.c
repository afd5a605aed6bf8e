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

/* Adds the bytes of n frames f to *bytes; false past BATCH_MAX_BYTES. */
static bool frame_bytes(const struct strview *f, size_t n, size_t *bytes)
{
	for (size_t i = 0; i < n; i++) {
		if (f[i].len > BATCH_MAX_BYTES - *bytes)
			return false;
		*bytes += f[i].len;
	}
	return true;
}

/* Copies n frames f (room made) and returns the first one's index. */
static uint32_t copy_frames(struct batch *b, const struct strview *f, size_t n)
{
	uint32_t first = (uint32_t)b->nframes;

	for (size_t i = 0; i < n; i++) {
		struct batch_str *d = &b->frames[b->nframes++];
		d->off = (uint32_t)b->nbytes;
		d->len = (uint32_t)f[i].len;
		if (d->len)
			memcpy(b->bytes + b->nbytes, f[i].ptr, d->len);
		b->nbytes += d->len;
	}
	return first;
}

enum status batch_add(struct batch *b, const struct sample *s)
{
	size_t bytes = s->task.len;
	struct batch_rec *r;

	if (b->n >= BATCH_MAX_SAMPLES ||
	    s->depth > BATCH_MAX_FRAMES - b->nframes ||
	    s->parked_depth > BATCH_MAX_FRAMES - b->nframes - s->depth)
		return drop(b, STATUS_LIMIT);
	if ((s->depth > 0 && !s->frames) || (s->parked_depth > 0 && !s->parked))
		return drop(b, STATUS_INVAL);
	if (!frame_bytes(s->frames, s->depth, &bytes) ||
	    !frame_bytes(s->parked, s->parked_depth, &bytes) ||
	    bytes > BATCH_MAX_BYTES - b->nbytes)
		return drop(b, STATUS_LIMIT);
	if (mem_grow(&b->bytes, &b->capbytes, b->nbytes + bytes, 1) ||
	    mem_grow(&b->frames, &b->capframes,
	             b->nframes + s->depth + s->parked_depth,
	             sizeof(*b->frames)) ||
	    mem_grow(&b->recs, &b->cap, b->n + 1, sizeof(*b->recs)))
		return drop(b, STATUS_NOMEM);
	r = &b->recs[b->n++];
	r->depth = (uint32_t)s->depth;
	r->first = copy_frames(b, s->frames, s->depth);
	r->pdepth = (uint32_t)s->parked_depth;
	r->pfirst = copy_frames(b, s->parked, s->parked_depth);
	r->x = s->x;
	r->task.off = (uint32_t)b->nbytes;
	r->task.len = (uint32_t)s->task.len;
	if (r->task.len)
		memcpy(b->bytes + b->nbytes, s->task.ptr, r->task.len);
	b->nbytes += r->task.len;
	r->tasks = s->tasks;
	r->m = s->m;
	r->dropped = s->dropped;
	r->pdropped = s->parked_dropped;
	b->max_depth = size_max(b->max_depth, s->depth);
	b->max_depth = size_max(b->max_depth, s->parked_depth);
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
	size_t next = 0;

	return batch_feed_from(b, &next, sink);
}

enum status batch_feed_from(const struct batch *b, size_t *next,
                            const struct sample_sink *sink)
{
	size_t half = size_max(b->max_depth, 1);
	struct strview *fr;
	enum status st = STATUS_OK;

	if (*next >= b->n)
		return STATUS_OK;
	fr = mem_realloc_array(NULL, half, 2 * sizeof(*fr));
	if (!fr)
		return STATUS_NOMEM;
	for (size_t i = *next; i < b->n; i++) {
		const struct batch_rec *r = &b->recs[i];
		struct sample s;

		for (size_t j = 0; j < r->depth; j++)
			fr[j] = view(b, b->frames[r->first + j]);
		for (size_t j = 0; j < r->pdepth; j++)
			fr[half + j] = view(b, b->frames[r->pfirst + j]);
		s = (struct sample){
			.frames = fr,
			.depth = r->depth,
			.task = view(b, r->task),
			.m = r->m,
			.tasks = r->tasks,
			.parked = fr + half,
			.parked_depth = r->pdepth,
			.x = r->x,
			.dropped = r->dropped,
			.parked_dropped = r->pdropped,
		};
		st = sink->sample(sink->ctx, &s);
		if (st == STATUS_AGAIN) { /* taken; the rest later */
			*next = i + 1;
			break;
		}
		if (st != STATUS_OK && st != STATUS_LIMIT) {
			*next = i;
			break;
		}
		st = STATUS_OK;
		*next = i + 1;
	}
	mem_free(fr);
	return *next < b->n ? st : st == STATUS_AGAIN ? STATUS_OK : st;
}
