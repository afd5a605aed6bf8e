/* The pprof reader (replay, docs/design.md §6): gzip or raw by magic, unpacked
 * through mem_*, validated entirely, then fed to a sample sink root first.
 * This file holds the flow and the feeding; the validation that comes
 * first, and the tables it makes for feeding, are in pprof_read_check.c
 * (encode/pprof_read_int.h). */
#include "encode/pprof.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "encode/gzip.h"
#include "encode/pprof_read_int.h"
#include "model/alloc.h"
#include "model/arena.h"
#include "model/extras.h"
#include "model/window.h"

static enum status fail(char *err, size_t errsz, enum status st,
                        const char *fmt, ...) PRINTF(4, 5);

static enum status fail(char *err, size_t errsz, enum status st,
                        const char *fmt, ...)
{
	if (err && errsz) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(err, errsz, fmt, ap);
		va_end(ap);
	}
	return st;
}

/* protobuf-c unpacks into an arena (model/arena.h): one allocation per
 * megabyte instead of one per submessage, and one free. */
enum { PB_BLOCK = 1 << 20 };

static void *pb_alloc(void *data, size_t size)
{
	return arena_alloc(data, size);
}

static void pb_free(void *data, void *p)
{
	(void)data; /* the arena is freed whole */
	(void)p;
}

/* The other stack's leaf and the figures of sample i (labels checked):
 * *spawned tells whether the leaf is the spawn site (the sample's stack
 * then being where it is parked). */
static void sample_labels(const struct rd *r, size_t i, struct strview *leaf,
                          bool *has_leaf, bool *spawned, struct extras *x)
{
	*has_leaf = *spawned = false;
	*x = (struct extras){ .known = 0 };
	for (size_t j = r->s.lab_at[i]; j < r->s.lab_at[i + 1]; j++) {
		const struct pb_label *l = &r->s.lab[j];
		unsigned k = r->kind[l->key];
		if (k == KIND_PARKED_AT || k == KIND_SPAWNED_AT) {
			const ProtobufCBinaryData *d =
			    &r->p->string_table[l->str];
			*leaf = sv_n((const char *)d->data, d->len);
			*has_leaf = true;
			*spawned = k == KIND_SPAWNED_AT;
		} else if (k >= KIND_EXTRA) {
			x->v[k - KIND_EXTRA] = (uint64_t)l->num;
			x->known |= 1u << (k - KIND_EXTRA);
		}
	}
}

static enum status feed(struct rd *r, const struct sample_sink *sink)
{
	const Perftools__Profiles__Profile *p = r->p;
	const struct pb_samples *ps = &r->s;
	struct strview *frames;
	struct window_meta meta;
	enum status st = STATUS_OK;
	bool by_parked = false;

	frames = mem_realloc_array(NULL, r->maxdepth ? r->maxdepth : 1,
	                           sizeof(*frames));
	if (!frames)
		return STATUS_NOMEM;
	for (size_t i = 0; i < ps->n && st == STATUS_OK; i++) {
		const uint64_t *value = ps->val + ps->val_at[i];
		struct sample smp;
		struct strview leaf;
		bool has_leaf, spawned;
		size_t d = 0;

		for (size_t k = ps->loc_at[i + 1]; k > ps->loc_at[i]; k--) {
			uint32_t li = r->sloc[k - 1];
			size_t n = r->lstart[li + 1] - r->lstart[li];
			memcpy(frames + d, r->lframe + r->lstart[li],
			       n * sizeof(*frames));
			d += n;
		}
		memset(&smp, 0, sizeof(smp));
		smp.frames = frames;
		smp.depth = d;
		smp.task = rd_str_at(r, r->task[i]);
		smp.tasks = r->ntasks[i];
		sample_labels(r, i, &leaf, &has_leaf, &spawned, &smp.x);
		if (has_leaf && spawned) { /* grouped by parked-at stack */
			by_parked = true;
			smp.parked = frames;
			smp.parked_depth = d;
			smp.frames = &leaf;
			smp.depth = 1;
		} else if (has_leaf) {
			smp.parked = &leaf;
			smp.parked_depth = 1;
		}
		for (size_t t = 0; t < METRIC_COUNT; t++)
			smp.m.v[t] = value[r->type_of[t]];
		st = sink->sample(sink->ctx, &smp);
		if (st == STATUS_LIMIT)
			st = STATUS_OK;
	}
	mem_free(frames);
	if (st != STATUS_OK)
		return fail(r->err, r->errsz, st, "the receiver stopped: %s",
		            status_str(st));
	if (!sink->meta)
		return STATUS_OK;
	memset(&meta, 0, sizeof(meta));
	meta.time_nanos = p->time_nanos;
	meta.duration_nanos = p->duration_nanos;
	meta.saved_by_parked = by_parked;
	meta.comments = (const char *const *)r->comments;
	meta.ncomments = p->n_comment;
	st = sink->meta(sink->ctx, &meta);
	if (st != STATUS_OK && st != STATUS_LIMIT)
		return fail(r->err, r->errsz, st, "the receiver stopped: %s",
		            status_str(st));
	return STATUS_OK;
}

static enum status decode_raw(const uint8_t *data, size_t len,
                              const struct load_limits *lim,
                              const struct sample_sink *sink, char *err,
                              size_t errsz)
{
	struct arena arena;
	ProtobufCAllocator alloc = { pb_alloc, pb_free, &arena };
	Perftools__Profiles__Profile *p;
	struct buf rest;
	struct rd r;
	enum status st;

	if (len == 0)
		return fail(err, errsz, STATUS_MALFORMED, "empty profile");
	memset(&r, 0, sizeof(r));
	buf_init(&rest);
	/* the samples read here, the rest of the message by protobuf-c
	 * (which copies what it keeps) */
	st = pb_split_samples(data, len, lim->max_samples, &rest, &r.s);
	arena_init(&arena, PB_BLOCK);
	p = st != STATUS_OK ? NULL
	                    : perftools__profiles__profile__unpack(
	                          &alloc, rest.len,
	                          rest.len ? (const uint8_t *)rest.data
	                                   : (const uint8_t *)"");
	buf_fini(&rest);
	if (!p) {
		bool nomem = arena.nomem || st == STATUS_NOMEM;
		arena_fini(&arena);
		pb_samples_fini(&r.s);
		if (nomem)
			return fail(err, errsz, STATUS_NOMEM, "out of memory");
		return fail(
		    err, errsz, STATUS_MALFORMED,
		    "not a protobuf Profile message (corrupt or truncated)");
	}
	r.p = p;
	r.err = err;
	r.errsz = errsz;
	st = pprof_read_validate(&r, lim);
	if (st == STATUS_NOMEM)
		(void)fail(err, errsz, st, "out of memory");
	else if (st == STATUS_OK)
		st = feed(&r, sink);
	if (r.comments) {
		for (size_t i = 0; i < p->n_comment; i++)
			mem_free(r.comments[i]);
	}
	mem_free(r.comments);
	mem_free(r.kind);
	mem_free(r.maps.v);
	mem_free(r.locs.v);
	mem_free(r.funcs.v);
	mem_free(r.lframe);
	mem_free(r.lstart);
	mem_free(r.sloc);
	mem_free(r.task);
	mem_free(r.ntasks);
	pb_samples_fini(&r.s);
	arena_fini(&arena);
	return st;
}

enum status pprof_decode(const void *data, size_t len,
                         const struct load_limits *lim,
                         const struct sample_sink *sink, char *err,
                         size_t errsz)
{
	struct load_limits def = { LOAD_MAX_BYTES_DEFAULT,
		                   LOAD_MAX_SAMPLES_DEFAULT };
	struct buf b;
	enum status st;

	if (err && errsz)
		err[0] = '\0';
	if ((!data && len) || !sink || !sink->sample)
		return fail(err, errsz, STATUS_INVAL, "invalid argument");
	if (!lim)
		lim = &def;
	if (len == 0)
		return fail(err, errsz, STATUS_MALFORMED, "empty input");
	if (!gzip_is(data, len)) {
		if (lim->max_bytes && len > lim->max_bytes)
			return fail(err, errsz, STATUS_TOO_LARGE,
			            "%zu bytes, over the limit of %zu", len,
			            lim->max_bytes);
		return decode_raw(data, len, lim, sink, err, errsz);
	}
	buf_init(&b);
	st = gzip_decompress(data, len, lim->max_bytes, &b, err, errsz);
	if (st == STATUS_OK)
		st = decode_raw((const uint8_t *)b.data, b.len, lim, sink, err,
		                errsz);
	else if (err && errsz && !err[0] && st == STATUS_TOO_LARGE)
		(void)fail(err, errsz, st,
		           "decompressed size over the limit of %zu bytes",
		           lim->max_bytes);
	else if (err && errsz && !err[0])
		(void)fail(err, errsz, st, "gzip: %s", status_str(st));
	buf_fini(&b);
	return st;
}
