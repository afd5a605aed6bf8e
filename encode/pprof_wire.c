/* The pprof reader's decoder of Profile.sample (encode/pprof_wire.h): the
 * protobuf wire format read directly, every length checked against what
 * is left. */
#include "encode/pprof_wire.h"

#include <string.h>

#include "model/alloc.h"

/* Wire types (the low 3 bits of a tag) */
enum { WT_VARINT = 0, WT_I64 = 1, WT_LEN = 2, WT_I32 = 5 };

/* Field numbers of Profile, Sample and Label that are read here */
enum {
	PROFILE_SAMPLE = 2,
	SAMPLE_LOCATION_ID = 1,
	SAMPLE_VALUE = 2,
	SAMPLE_LABEL = 3,
	LABEL_KEY = 1,
	LABEL_STR = 2,
	LABEL_NUM = 3,
	LABEL_NUM_UNIT = 4,
};

/* The bytes not yet read: [p, end) */
struct rd {
	const uint8_t *p, *end;
};

/* A varint of at most 10 bytes; false when it is longer or cut short. */
static bool varint(struct rd *r, uint64_t *v)
{
	uint64_t x = 0;

	for (unsigned shift = 0; shift < 70 && r->p < r->end; shift += 7) {
		uint8_t b = *r->p++;
		x |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80)) {
			*v = x;
			return true;
		}
	}
	return false;
}

/* A tag: its field number (nonzero, 32 bits) and wire type. */
static bool tag(struct rd *r, uint64_t *field, unsigned *wt)
{
	uint64_t t;

	if (!varint(r, &t) || t > UINT32_MAX || (t >> 3) == 0)
		return false;
	*field = t >> 3;
	*wt = (unsigned)(t & 7);
	return true;
}

/* A length-delimited field's bytes, as a reader of their own. */
static bool sub(struct rd *r, struct rd *in)
{
	uint64_t n;

	if (!varint(r, &n) || n > (uint64_t)(r->end - r->p))
		return false;
	in->p = r->p;
	in->end = r->p + n;
	r->p += n;
	return true;
}

/* Skips the value of an unknown field of wire type wt. */
static bool skip(struct rd *r, unsigned wt)
{
	struct rd in;
	uint64_t v;

	switch (wt) {
	case WT_VARINT:
		return varint(r, &v);
	case WT_I64:
	case WT_I32: {
		size_t n = wt == WT_I64 ? 8 : 4;
		if ((size_t)(r->end - r->p) < n)
			return false;
		r->p += n;
		return true;
	}
	case WT_LEN:
		return sub(r, &in);
	default: /* groups (3, 4) and 6, 7: not in a profile */
		return false;
	}
}

/* Appends a repeated 64-bit number given unpacked (wire type 0) or packed
 * (2) to *arr, n used of *cap; STATUS_MALFORMED or STATUS_NOMEM. */
static enum status numbers(struct rd *r, unsigned wt, uint64_t **arr, size_t *n,
                           size_t *cap)
{
	struct rd in;
	uint64_t v;

	if (wt == WT_VARINT) {
		if (!varint(r, &v))
			return STATUS_MALFORMED;
		if (mem_grow(arr, cap, *n + 1, sizeof(**arr)) != STATUS_OK)
			return STATUS_NOMEM;
		(*arr)[(*n)++] = v;
		return STATUS_OK;
	}
	if (wt != WT_LEN || !sub(r, &in))
		return STATUS_MALFORMED;
	/* a number ends at each byte without the continuation bit */
	size_t count = 0;
	for (const uint8_t *q = in.p; q < in.end; q++)
		count += !(*q & 0x80);
	if (mem_grow(arr, cap, *n + count, sizeof(**arr)) != STATUS_OK)
		return STATUS_NOMEM;
	for (; count > 0; count--) {
		if (!varint(&in, &v))
			return STATUS_MALFORMED;
		(*arr)[(*n)++] = v;
	}
	/* bytes left: a number cut short (or over 10 bytes) */
	return in.p == in.end ? STATUS_OK : STATUS_MALFORMED;
}

static enum status label(struct rd *r, unsigned wt, struct pb_samples *s,
                         size_t *nlab)
{
	struct pb_label l = { 0, 0, 0, 0 };
	struct rd in;
	uint64_t field, v;

	if (wt != WT_LEN || !sub(r, &in))
		return STATUS_MALFORMED;
	while (in.p < in.end) {
		if (!tag(&in, &field, &wt))
			return STATUS_MALFORMED;
		if (field < LABEL_KEY || field > LABEL_NUM_UNIT) {
			if (!skip(&in, wt))
				return STATUS_MALFORMED;
			continue;
		}
		if (wt != WT_VARINT || !varint(&in, &v))
			return STATUS_MALFORMED;
		if (field == LABEL_KEY)
			l.key = (int64_t)v;
		else if (field == LABEL_STR)
			l.str = (int64_t)v;
		else if (field == LABEL_NUM)
			l.num = (int64_t)v;
		else
			l.num_unit = (int64_t)v;
	}
	if (mem_grow(&s->lab, &s->cap_lab, *nlab + 1, sizeof(*s->lab)) !=
	    STATUS_OK)
		return STATUS_NOMEM;
	s->lab[(*nlab)++] = l;
	return STATUS_OK;
}

/* Sample message in (wire type already checked) as sample s->n. */
static enum status sample(struct rd *in, struct pb_samples *s, size_t *nloc,
                          size_t *nval, size_t *nlab)
{
	uint64_t field;
	unsigned wt;
	enum status st = STATUS_OK;

	if (mem_grow(&s->loc_at, &s->cap_loc_at, s->n + 2, sizeof(size_t)) !=
	        STATUS_OK ||
	    mem_grow(&s->val_at, &s->cap_val_at, s->n + 2, sizeof(size_t)) !=
	        STATUS_OK ||
	    mem_grow(&s->lab_at, &s->cap_lab_at, s->n + 2, sizeof(size_t)) !=
	        STATUS_OK)
		return STATUS_NOMEM;
	while (in->p < in->end && st == STATUS_OK) {
		if (!tag(in, &field, &wt))
			return STATUS_MALFORMED;
		if (field == SAMPLE_LOCATION_ID)
			st = numbers(in, wt, &s->loc, nloc, &s->cap_loc);
		else if (field == SAMPLE_VALUE)
			st = numbers(in, wt, &s->val, nval, &s->cap_val);
		else if (field == SAMPLE_LABEL)
			st = label(in, wt, s, nlab);
		else if (!skip(in, wt))
			st = STATUS_MALFORMED;
	}
	if (st != STATUS_OK)
		return st;
	s->n++;
	s->loc_at[s->n] = *nloc;
	s->val_at[s->n] = *nval;
	s->lab_at[s->n] = *nlab;
	return STATUS_OK;
}

enum status pb_split_samples(const uint8_t *data, size_t len,
                             size_t max_samples, struct buf *rest,
                             struct pb_samples *s)
{
	struct rd r = { data, data + len };
	size_t nloc = 0, nval = 0, nlab = 0;

	memset(s, 0, sizeof(*s));
	if (mem_grow(&s->loc_at, &s->cap_loc_at, 1, sizeof(size_t)) !=
	        STATUS_OK ||
	    mem_grow(&s->val_at, &s->cap_val_at, 1, sizeof(size_t)) !=
	        STATUS_OK ||
	    mem_grow(&s->lab_at, &s->cap_lab_at, 1, sizeof(size_t)) !=
	        STATUS_OK)
		return STATUS_NOMEM;
	s->loc_at[0] = s->val_at[0] = s->lab_at[0] = 0;
	while (r.p < r.end) {
		const uint8_t *start = r.p;
		uint64_t field;
		unsigned wt;
		enum status st;
		struct rd in;

		if (!tag(&r, &field, &wt))
			return STATUS_MALFORMED;
		if (field != PROFILE_SAMPLE) {
			if (!skip(&r, wt))
				return STATUS_MALFORMED;
			if (buf_add(rest, start, (size_t)(r.p - start)) !=
			    STATUS_OK)
				return STATUS_NOMEM;
			continue;
		}
		if (wt != WT_LEN || !sub(&r, &in))
			return STATUS_MALFORMED;
		s->seen++;
		if (max_samples && s->seen > max_samples)
			continue; /* refused for their number: only counted */
		st = sample(&in, s, &nloc, &nval, &nlab);
		if (st != STATUS_OK)
			return st;
	}
	return STATUS_OK;
}

void pb_samples_fini(struct pb_samples *s)
{
	mem_free(s->loc_at);
	mem_free(s->val_at);
	mem_free(s->lab_at);
	mem_free(s->loc);
	mem_free(s->val);
	mem_free(s->lab);
	memset(s, 0, sizeof(*s));
}
