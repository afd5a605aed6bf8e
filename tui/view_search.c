/* The filter's search: case folding and substring matching of frames and
 * task names, and an index of those of a model's windows, case-folded once
 * and kept across windows, that a filter key searches. */
#include "tui/view_search.h"

#include <string.h>

#include "model/alloc.h"

/* Open addressing over model ids (never 0): a string's number, or where
 * a stack's string numbers are in sref. */
struct view_slot {
	uint32_t id; /* 0: free */
	uint32_t val;
};

struct view_table {
	struct view_slot *slot;
	size_t cap, n; /* cap = 1 << bits, at most half full */
	unsigned bits;
};

/* Buckets of the sort of a window's rows by stack id. */
#define BUCKETS 4096

/* The filter's index: the distinct frames and task names met so far,
 * case-folded, end to end in text (string k is text[soff[k] .. soff[k +
 * 1])), and the frames of each stack met, as string numbers.  Ids are never
 * reused within a model, so these outlive a window; when mostly unused,
 * the index starts over.  For the window of tag: its rows about in the
 * order of their stack ids (row ord[e] has frames refs[eoff[e] .. eoff[e +
 * 1])), which is about the order of the model's memory, and each row's
 * task names (nref[nroff[r] .. nroff[r + 1]]). */
struct view_index {
	const struct model *m;
	bool stale; /* start over at the next build */
	struct view_table frames, names, stacks;
	char *text;
	size_t text_len, text_cap;
	size_t *soff; /* soff[nstr] == text_len */
	size_t nstr, soff_cap;
	uint32_t *sref; /* per stack: its depth, then its frames' strings */
	size_t nsref, sref_cap;
	struct view_tag tag;
	uint32_t *ord;
	size_t ord_cap;
	size_t *eoff;
	size_t eoff_cap;
	uint32_t *refs;
	size_t nrefs, refs_cap;
	size_t *nroff;
	size_t nroff_cap;
	uint32_t *nref;
	size_t nnref, nref_cap;
	uint64_t *key; /* scratch of a build: (stack << 32 | row), twice */
	size_t key_cap;
	size_t bucket[BUCKETS + 1];
	uint64_t *used; /* the strings the window refers to */
	size_t used_cap, used_n;
	/* a bit per string below hits_n: it holds hits_fold */
	uint64_t *hits;
	size_t hits_cap, hits_n;
	bool hits_ok;
	char hits_fold[VIEW_FILTER_MAX];
	size_t hits_len;
};

enum status view_index_new(struct view_index **out)
{
	struct view_index *ix = mem_calloc(1, sizeof(*ix));

	if (!ix)
		return STATUS_NOMEM;
	*out = ix;
	return STATUS_OK;
}

void view_index_free(struct view_index *ix)
{
	if (!ix)
		return;
	mem_free(ix->frames.slot);
	mem_free(ix->names.slot);
	mem_free(ix->stacks.slot);
	mem_free(ix->text);
	mem_free(ix->soff);
	mem_free(ix->sref);
	mem_free(ix->key);
	mem_free(ix->ord);
	mem_free(ix->eoff);
	mem_free(ix->refs);
	mem_free(ix->nroff);
	mem_free(ix->nref);
	mem_free(ix->used);
	mem_free(ix->hits);
	mem_free(ix);
}

/* The simple lower case of a code point of two UTF-8 bytes (U+0080 ..
 * U+07FF) when that is two bytes too; else the code point itself. */
static uint32_t lower2(uint32_t c)
{
	if (c >= 0xC0 && c <= 0xDE && c != 0xD7)
		return c + 0x20;
	if (c == 0x178)
		return 0xFF;
	if (c >= 0x100 && c <= 0x17F) {
		if (c == 0x130 || c == 0x131 || c == 0x138 || c == 0x149 ||
		    c == 0x17F)
			return c;
		/* 0x139 .. 0x148 and 0x179 .. 0x17E (0x17F returned) */
		if ((c >= 0x139 && c <= 0x148) || c >= 0x179)
			return c & 1 ? c + 1 : c;
		return c & 1 ? c : c + 1;
	}
	if (c == 0x386)
		return 0x3AC;
	if (c >= 0x388 && c <= 0x38A)
		return c + 0x25;
	if (c == 0x38C)
		return 0x3CC;
	if (c == 0x38E || c == 0x38F)
		return c + 0x3F;
	if (c >= 0x391 && c <= 0x3AB && c != 0x3A2)
		return c + 0x20;
	if (c == 0x3C2) /* final sigma folds to sigma */
		return 0x3C3;
	if (c >= 0x400 && c <= 0x40F)
		return c + 0x50;
	if (c >= 0x410 && c <= 0x42F)
		return c + 0x20;
	if (c == 0x4C0)
		return 0x4CF;
	if ((c >= 0x460 && c <= 0x481) || (c >= 0x48A && c <= 0x4BF) ||
	    (c >= 0x4D0 && c <= 0x52F))
		return c & 1 ? c : c + 1;
	if (c >= 0x4C1 && c <= 0x4CE)
		return c & 1 ? c + 1 : c;
	if (c >= 0x531 && c <= 0x556)
		return c + 0x30;
	return c;
}

static bool is_lead2(unsigned char c)
{
	return c >= 0xC2 && c <= 0xDF;
}

static bool is_cont(unsigned char c)
{
	return c >= 0x80 && c <= 0xBF;
}

/* Byte i of s (n bytes) case-folded.  Each byte folds alone, or with its
 * neighbour when the two form a well-formed two-byte character (a lead
 * byte is never a continuation byte, so the pairs are unambiguous); the
 * fold keeps lengths, so folded offsets are the string's offsets. */
static unsigned char fold_at(const char *s, size_t n, size_t i)
{
	const unsigned char *u = (const unsigned char *)s;
	unsigned char c = u[i];
	uint32_t cp;

	if (c < 0x80)
		return c >= 'A' && c <= 'Z' ? (unsigned char)(c + 32) : c;
	if (is_lead2(c) && i + 1 < n && is_cont(u[i + 1])) {
		cp = lower2((uint32_t)(c & 0x1F) << 6 | (u[i + 1] & 0x3F));
		return (unsigned char)(0xC0 | cp >> 6);
	}
	if (is_cont(c) && i > 0 && is_lead2(u[i - 1])) {
		cp = lower2((uint32_t)(u[i - 1] & 0x1F) << 6 | (c & 0x3F));
		return (unsigned char)(0x80 | (cp & 0x3F));
	}
	return c;
}

/* Folds n bytes of s from at into out. */
void vsearch_fold_span(struct strview s, size_t at, size_t n, char *out)
{
	const unsigned char *u = (const unsigned char *)s.ptr + at;

	for (size_t j = 0; j < n; j++) {
		unsigned char c = u[j];
		out[j] = (char)(c < 0x80 ? (c >= 'A' && c <= 'Z' ? c + 32 : c)
		                         : fold_at(s.ptr, s.len, at + j));
	}
}

/* Byte substring search: needle (nn >= 1 bytes) in hay. */
bool vsearch_find(const char *hay, size_t hn, const char *needle, size_t nn)
{
	const char *p = hay, *end;

	if (nn > hn)
		return false;
	end = hay + (hn - nn) + 1;
	while ((p = memchr(p, needle[0], (size_t)(end - p)))) {
		if (!memcmp(p + 1, needle + 1, nn - 1))
			return true;
		p++;
	}
	return false;
}

/* The filter's test without an index: needle in s, both folded a byte at
 * a time. */
static bool str_hits_slow(struct strview s, const char *needle, size_t len)
{
	for (size_t i = 0; len <= s.len && i <= s.len - len; i++) {
		size_t k = 0;

		while (k < len &&
		       fold_at(s.ptr, s.len, i + k) == fold_at(needle, len, k))
			k++;
		if (k == len)
			return true;
	}
	return false;
}

bool view_row_matches(const struct model *m, const struct window *w, size_t row,
                      const char *needle, size_t len)
{
	const struct fold_row *r = &w->rows[row];
	const uint32_t *frames;
	size_t depth = 0;

	if (!len)
		return true;
	frames = model_stack(m, r->stack, &depth);
	for (size_t i = 0; i < depth; i++)
		if (str_hits_slow(model_frame(m, frames[i]), needle, len))
			return true;
	for (uint32_t i = 0; i < r->count; i++)
		if (str_hits_slow(model_name(m, w->entries[r->first + i].name),
		                  needle, len))
			return true;
	return false;
}

static void set_bit(uint64_t *b, size_t i)
{
	b[i / 64] |= (uint64_t)1 << (i % 64);
}

/* Clears bits from .. to - 1. */
static void clear_bits(uint64_t *b, size_t from, size_t to)
{
	for (; from < to && from % 64; from++)
		b[from / 64] &= ~((uint64_t)1 << (from % 64));
	if (from < to)
		memset(b + from / 64, 0, ((to - from + 63) / 64) * sizeof(*b));
}

/* The slot of id in t: its own, or the free one it would take. */
static struct view_slot *table_at(const struct view_table *t, uint32_t id)
{
	/* runs of 16 ids keep together: meeting ids in order reads the
	 * table about in order */
	size_t h =
	    (size_t)((uint32_t)((id >> 4) * 2654435769u) >> (36 - t->bits))
	        << 4 |
	    (id & 15);

	while (t->slot[h].id && t->slot[h].id != id)
		h = (h + 1) & (t->cap - 1);
	return &t->slot[h];
}

/* Makes room for n ids at most half full (rehashing). */
static enum status table_reserve(struct view_table *t, size_t n)
{
	size_t cap = (size_t)1 << 10, ocap = t->cap;
	unsigned bits = 10;
	struct view_slot *os = t->slot;

	while (cap / 2 < n) {
		if (bits == 31)
			return STATUS_NOMEM;
		cap *= 2;
		bits++;
	}
	if (cap <= ocap)
		return STATUS_OK;
	t->slot = mem_calloc(cap, sizeof(*t->slot));
	if (!t->slot) {
		t->slot = os;
		return STATUS_NOMEM;
	}
	t->cap = cap;
	t->bits = bits;
	for (size_t i = 0; i < ocap; i++)
		if (os[i].id)
			*table_at(t, os[i].id) = os[i];
	mem_free(os);
	return STATUS_OK;
}

static void table_clear(struct view_table *t)
{
	if (t->cap)
		memset(t->slot, 0, t->cap * sizeof(*t->slot));
	t->n = 0;
}

static void index_reset(struct view_index *ix, const struct model *m)
{
	table_clear(&ix->frames);
	table_clear(&ix->names);
	table_clear(&ix->stacks);
	ix->m = m;
	ix->stale = false;
	ix->text_len = ix->nstr = ix->nsref = 0;
	ix->tag.ok = false;
	ix->hits_ok = false;
	ix->hits_n = 0;
	ix->used_n = 0;
}

/* The string number of a frame (kind 0) or task name (kind 1), adding it,
 * case-folded, when new. */
static enum status index_str(struct view_index *ix, size_t kind, uint32_t id,
                             uint32_t *out)
{
	struct view_table *t = kind ? &ix->names : &ix->frames;
	struct view_slot *e;
	struct strview s;

	if (table_reserve(t, t->n + 1) != STATUS_OK)
		return STATUS_NOMEM;
	e = table_at(t, id);
	if (e->id) {
		*out = (uint32_t)e->val;
		return STATUS_OK;
	}
	s = kind ? model_name(ix->m, id) : model_frame(ix->m, id);
	if (ix->nstr >= UINT32_MAX - 1 || s.len > SIZE_MAX - ix->text_len ||
	    mem_grow(&ix->text, &ix->text_cap, ix->text_len + s.len, 1) ||
	    mem_grow(&ix->soff, &ix->soff_cap, ix->nstr + 2, sizeof(*ix->soff)))
		return STATUS_NOMEM;
	vsearch_fold_span(s, 0, s.len, ix->text + ix->text_len);
	ix->text_len += s.len;
	ix->soff[ix->nstr + 1] = ix->text_len;
	e->id = id;
	e->val = ix->nstr;
	t->n++;
	*out = (uint32_t)ix->nstr++;
	return STATUS_OK;
}

/* Where in sref the stack id is (its depth, then its frames' strings,
 * leaf first), adding it when new. */
static enum status index_stack(struct view_index *ix, uint32_t id,
                               uint32_t *off)
{
	struct view_slot *e;
	size_t depth = 0;

	if (table_reserve(&ix->stacks, ix->stacks.n + 1) != STATUS_OK)
		return STATUS_NOMEM;
	e = table_at(&ix->stacks, id);
	if (!e->id) {
		const uint32_t *frames = model_stack(ix->m, id, &depth);

		if (depth >= UINT32_MAX - 1 - ix->nsref ||
		    mem_grow(&ix->sref, &ix->sref_cap, ix->nsref + 1 + depth,
		             sizeof(*ix->sref)))
			return STATUS_NOMEM;
		for (size_t i = 0; i < depth; i++)
			if (index_str(ix, 0, frames[depth - 1 - i],
			              &ix->sref[ix->nsref + 1 + i]) !=
			    STATUS_OK)
				return STATUS_NOMEM;
		ix->sref[ix->nsref] = (uint32_t)depth;
		e->id = id;
		e->val = (uint32_t)ix->nsref;
		ix->nsref += 1 + depth;
		ix->stacks.n++;
	}
	*off = e->val;
	return STATUS_OK;
}

/* Sorts the rows of w by stack id into ix->key + n (as stack << 32 |
 * row), near enough: by BUCKETS ranges of ids, in row order within one;
 * and on the way, indexes each row's task names. */
static enum status index_rows(struct view_index *ix, const struct window *w)
{
	size_t n = w->nrows, *b = ix->bucket;
	uint32_t lo = UINT32_MAX, hi = 0;
	unsigned shift = 0;
	uint64_t *key, *out;

	if (n > SIZE_MAX / 2 / sizeof(*key) ||
	    mem_grow(&ix->key, &ix->key_cap, 2 * n, sizeof(*key)) ||
	    mem_grow(&ix->nref, &ix->nref_cap, w->nentries, sizeof(*ix->nref)))
		return STATUS_NOMEM;
	key = ix->key;
	out = key + n;
	ix->nnref = 0;
	for (size_t r = 0; r < n; r++) {
		const struct fold_row *fr = &w->rows[r];
		uint32_t id = fr->stack;

		lo = id < lo ? id : lo;
		hi = id > hi ? id : hi;
		key[r] = (uint64_t)id << 32 | r;
		ix->nroff[r] = ix->nnref;
		for (uint32_t i = 0; i < fr->count; i++)
			if (index_str(ix, 1, w->entries[fr->first + i].name,
			              &ix->nref[ix->nnref++]) != STATUS_OK)
				return STATUS_NOMEM;
	}
	ix->nroff[n] = ix->nnref;
	while (n && (hi - lo) >> shift >= BUCKETS)
		shift++;
	memset(b, 0, sizeof(ix->bucket));
	for (size_t r = 0; r < n; r++)
		b[((uint32_t)(key[r] >> 32) - lo) >> shift]++;
	for (size_t i = 0, sum = 0; i <= BUCKETS; i++) {
		size_t c = b[i];
		b[i] = sum;
		sum += c;
	}
	for (size_t r = 0; r < n; r++)
		out[b[((uint32_t)(key[r] >> 32) - lo) >> shift]++] = key[r];
	return STATUS_OK;
}

bool view_index_current(const struct view_index *ix, const struct model *m,
                        const struct window *w)
{
	return view_tag_holds(&ix->tag, w) && ix->m == m;
}

/* Indexes the rows of w (m's): the model is read only for stacks and
 * strings not met before, in the order of their ids. */
enum status view_index_build(struct view_index *ix, const struct model *m,
                             const struct window *w)
{
	size_t n = w->nrows;
	const uint64_t *key;

	if (ix->m != m || ix->stale || ix->stacks.n > 2 * n + 4096)
		index_reset(ix, m);
	ix->tag.ok = false;
	if (mem_grow(&ix->soff, &ix->soff_cap, ix->nstr + 1,
	             sizeof(*ix->soff)) ||
	    mem_grow(&ix->ord, &ix->ord_cap, n, sizeof(*ix->ord)) ||
	    mem_grow(&ix->eoff, &ix->eoff_cap, n + 1, sizeof(*ix->eoff)) ||
	    mem_grow(&ix->nroff, &ix->nroff_cap, n + 1, sizeof(*ix->nroff)))
		return STATUS_NOMEM;
	ix->soff[ix->nstr] = ix->text_len;
	if (index_rows(ix, w) != STATUS_OK)
		return STATUS_NOMEM;
	key = ix->key + n;
	ix->nrefs = 0;
	for (size_t e = 0; e < n; e++) {
		uint32_t off;
		size_t d;

		if (index_stack(ix, (uint32_t)(key[e] >> 32), &off) !=
		    STATUS_OK)
			return STATUS_NOMEM;
		d = ix->sref[off];
		if (mem_grow(&ix->refs, &ix->refs_cap, ix->nrefs + d,
		             sizeof(*ix->refs)))
			return STATUS_NOMEM;
		memcpy(ix->refs + ix->nrefs, ix->sref + off + 1,
		       d * sizeof(*ix->refs));
		ix->ord[e] = (uint32_t)key[e];
		ix->eoff[e] = ix->nrefs;
		ix->nrefs += d;
	}
	ix->eoff[n] = ix->nrefs;
	/* when the strings have doubled since last counted, count those in
	 * use: mostly strings of older windows, start over next time */
	if (ix->nstr > 2 * ix->used_n + 4096) {
		size_t used = 0;
		if (mem_grow(&ix->used, &ix->used_cap, ix->nstr / 64 + 1,
		             sizeof(*ix->used)))
			return STATUS_NOMEM;
		memset(ix->used, 0, (ix->nstr / 64 + 1) * sizeof(*ix->used));
		for (size_t i = 0; i < ix->nrefs + ix->nnref; i++) {
			uint32_t k = i < ix->nrefs ? ix->refs[i]
			                           : ix->nref[i - ix->nrefs];
			if (!vsearch_bit(ix->used, k)) {
				set_bit(ix->used, k);
				used++;
			}
		}
		ix->used_n = used;
		ix->stale = ix->nstr > 2 * used + 4096;
	}
	view_tag_set(&ix->tag, w);
	return STATUS_OK;
}

/* Sets the bit of each string from `from` on that holds f (folded, len
 * >= 1): one pass over their text, jumping to the next string on a hit. */
static void index_scan(struct view_index *ix, size_t from, const char *f,
                       size_t len)
{
	const char *t = ix->text, *p, *q, *end;
	size_t k = from;

	if (!ix->text_len)
		return;
	p = t + ix->soff[from];
	end = t + ix->text_len;
	while (len <= (size_t)(end - p) &&
	       (q = memchr(p, f[0], (size_t)(end - p) - len + 1))) {
		size_t at = (size_t)(q - t);

		if (memcmp(q + 1, f + 1, len - 1)) {
			p = q + 1;
			continue;
		}
		while (ix->soff[k + 1] <= at)
			k++;
		if (at + len <= ix->soff[k + 1]) {
			set_bit(ix->hits, k);
			p = t + ix->soff[k + 1];
		} else {
			p = q + 1;
		}
	}
}

/* Brings hits up to date for f (folded, len >= 1): only the strings added
 * since, when f is the last one; when the last one is a part of f, only
 * the strings that held it, and the new ones; else all. */
enum status view_index_search(struct view_index *ix, const char *f, size_t len)
{
	size_t from = 0;

	if (mem_grow(&ix->hits, &ix->hits_cap, ix->nstr / 64 + 1,
	             sizeof(*ix->hits)))
		return STATUS_NOMEM;
	if (ix->hits_ok && ix->hits_len == len &&
	    !memcmp(ix->hits_fold, f, len)) {
		from = ix->hits_n;
	} else if (ix->hits_ok &&
	           vsearch_find(f, len, ix->hits_fold, ix->hits_len)) {
		for (size_t s = 0; s < ix->hits_n; s++)
			if (vsearch_bit(ix->hits, s) &&
			    !vsearch_find(ix->text + ix->soff[s],
			                  ix->soff[s + 1] - ix->soff[s], f,
			                  len))
				ix->hits[s / 64] &= ~((uint64_t)1 << (s % 64));
		from = ix->hits_n;
	}
	clear_bits(ix->hits, from, ix->nstr);
	if (from < ix->nstr)
		index_scan(ix, from, f, len);
	ix->hits_ok = true;
	ix->hits_n = ix->nstr;
	memcpy(ix->hits_fold, f, len);
	ix->hits_len = len;
	return STATUS_OK;
}

const uint32_t *view_index_order(const struct view_index *ix)
{
	return ix->ord;
}

/* Entry e of the index (its row ord[e]) has a string holding the filter. */
bool view_index_entry_hits(const struct view_index *ix, size_t e)
{
	size_t r = ix->ord[e];

	for (size_t i = ix->eoff[e]; i < ix->eoff[e + 1]; i++)
		if (vsearch_bit(ix->hits, ix->refs[i]))
			return true;
	for (size_t i = ix->nroff[r]; i < ix->nroff[r + 1]; i++)
		if (vsearch_bit(ix->hits, ix->nref[i]))
			return true;
	return false;
}
