/* The model: interning with reference counts, the open window's fold,
 * reading kept windows; commit.c puts windows into the ring.
 * docs/model.md describes the data and the accounting. */
#include "model/model.h"

#include <string.h>

#include "model/alloc.h"
#include "model/hash.h"
#include "model/intern.h"
#include "model/model_int.h"
#include "model/reserved.h"
#include "model/sort.h"

/* Bounds past what the slots can represent: a stack's key text, about
 * max_depth * (max_name + 4) bytes, must stay under 2 GiB. */
#define NAME_BOUND ((size_t)1 << 30)
#define KEY_BOUND  ((size_t)1 << 31)

void model_limits_default(struct model_limits *lim)
{
	lim->max_windows = 120;
	lim->mem_budget = (size_t)256 << 20;
	lim->max_stacks = (size_t)1 << 20;
	lim->max_frames = (size_t)4 << 20;
	lim->max_depth = 128;
	lim->max_name = 4096;
}

/* Length of p cut to at most max bytes without splitting a UTF-8 sequence
 * that starts before the cut (invalid bytes are cut where they fall). */
size_t model_utf8_cut(const char *p, size_t len, size_t max)
{
	size_t k = max;

	if (len <= max)
		return len;
	while (k > 0 && max - k < 4) {
		unsigned char c = (unsigned char)p[--k];
		size_t need;
		if ((c & 0xc0) == 0x80)
			continue;
		if (c < 0xc0)
			break;
		need = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : 2;
		return k + need > max ? k : max;
	}
	return max;
}

/* A stack's key is [uint32 depth] then [uint32 len][bytes] per frame, root
 * first; its frame ids are the extra bytes stored before the key. */
static uint32_t rd32(const char *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static const uint32_t *key_ids(const char *key)
{
	size_t depth = rd32(key);

	return (const uint32_t *)(const void *)(key - sizeof(uint32_t) -
	                                        depth * sizeof(uint32_t));
}

/* The canonical order on two stack keys: frame by frame, equal frame ids
 * equal without reading their bytes, a prefix first. */
int model_key_cmp(const char *a, const char *b)
{
	uint32_t da = rd32(a), db = rd32(b);
	const uint32_t *ia = key_ids(a), *ib = key_ids(b);

	a += sizeof(uint32_t);
	b += sizeof(uint32_t);
	for (uint32_t i = 0; i < da && i < db; i++) {
		uint32_t la = rd32(a), lb = rd32(b);
		if (ia[i] != ib[i]) {
			int c = sv_cmp(sv_n(a + 4, la), sv_n(b + 4, lb));
			if (c)
				return c < 0 ? -1 : 1;
		}
		a += 4 + (size_t)la;
		b += 4 + (size_t)lb;
	}
	return (da > db) - (da < db);
}

/* ---- releasing ----------------------------------------------------------*/

static void stack_release(struct model *m, uint32_t id, bool count)
{
	const char *key = intern_slot(&m->stacks, id)->str;
	const uint32_t *f = key_ids(key);

	for (size_t i = 0; i < rd32(key); i++) {
		if (intern_unref(&m->frames, f[i]))
			intern_remove(&m->frames, f[i], count);
	}
	intern_remove(&m->stacks, id, count);
}

void model_unref_window(struct model *m, const struct window *w)
{
	for (size_t r = 0; r < w->nrows; r++) {
		const struct fold_row *row = &w->rows[r];
		struct intern_slot *s;
		for (uint32_t i = row->first; i < row->first + row->count;
		     i++) {
			uint32_t name = w->entries[i].name;
			if (intern_unref(&m->names, name))
				intern_remove(&m->names, name, true);
		}
		/* one reference per entry, dropped all at once */
		s = intern_slot(&m->stacks, row->stack);
		s->refs -= row->count;
		if (s->refs == 0)
			stack_release(m, row->stack, true);
	}
}

/* Removes the stacks made since s0 that nothing refers to. */
static void rollback_stacks(struct model *m, uint32_t s0)
{
	for (uint32_t id = m->stacks.next; id-- > s0;) {
		const struct intern_slot *s = intern_slot(&m->stacks, id);
		if (s && s->refs == 0)
			stack_release(m, id, false);
	}
	intern_rollback(&m->stacks, s0);
}

/* ---- life ---------------------------------------------------------------*/

static size_t key_text(char *out, const struct strview *v, size_t n);
static uint64_t stack_hash(const struct strview *v, size_t n);

static enum status pin_other(struct model *m)
{
	struct strview o = reserved_name(RESERVED_OTHER);
	char key[64];
	size_t len = key_text(key, &o, 1);
	uint32_t h = hash_fold32(stack_hash(&o, 1)), f;
	bool c;

	if (intern_put(&m->frames, o.ptr, o.len, NULL, 0, SIZE_MAX, &f, &c) ||
	    intern_put_hashed(&m->stacks, h, key, len, &f, sizeof(f), SIZE_MAX,
	                      &m->other_stack, &c) ||
	    intern_put(&m->names, o.ptr, o.len, NULL, 0, SIZE_MAX,
	               &m->other_name, &c))
		return STATUS_NOMEM;
	m->other_hash = h;
	intern_ref(&m->frames, f);
	intern_ref(&m->stacks, m->other_stack);
	intern_ref(&m->names, m->other_name);
	return STATUS_OK;
}

enum status model_new(const struct model_limits *lim, struct model **out)
{
	struct model_limits d;
	struct model *m;

	if (!out)
		return STATUS_INVAL;
	*out = NULL;
	if (!lim) {
		model_limits_default(&d);
		lim = &d;
	}
	if (!lim->max_windows || !lim->mem_budget || !lim->max_stacks ||
	    !lim->max_frames || !lim->max_depth || !lim->max_name ||
	    lim->max_name > NAME_BOUND ||
	    lim->max_depth > KEY_BOUND / (lim->max_name + 8))
		return STATUS_INVAL;
	m = mem_calloc(1, sizeof(*m));
	if (!m)
		return STATUS_NOMEM;
	m->lim = *lim;
	intern_init(&m->frames);
	intern_init(&m->names);
	intern_init(&m->stacks);
	if (pin_other(m) != STATUS_OK) {
		model_free(m);
		return STATUS_NOMEM;
	}
	*out = m;
	return STATUS_OK;
}

struct window_priv *model_ring_at(const struct model *m, size_t i)
{
	return m->ring[(m->head + i) % m->ring_cap];
}

void model_free(struct model *m)
{
	if (!m)
		return;
	for (size_t i = 0; i < m->count; i++)
		mem_free(model_ring_at(m, i));
	mem_free(m->ring);
	intern_fini(&m->frames);
	intern_fini(&m->names);
	intern_fini(&m->stacks);
	mem_free(m->ent);
	mem_free(m->idx);
	mem_free(m->views);
	mem_free(m->ids);
	mem_free(m->text);
	mem_free(m);
}

static void open_reset(struct model *m)
{
	m->nent = 0;
	if (m->idx_cap)
		memset(m->idx, 0, m->idx_cap * sizeof(*m->idx));
	memset(&m->cur, 0, sizeof(m->cur));
}

enum status model_begin(struct model *m)
{
	if (!m || m->open)
		return STATUS_INVAL;
	open_reset(m);
	m->open = true;
	return STATUS_OK;
}

void model_abort(struct model *m)
{
	if (!m || !m->open)
		return;
	/* Entries hold no references yet: drop what only they used. */
	for (size_t i = 0; i < m->nent; i++) {
		const struct fold_entry *e = &m->ent[i];
		const struct intern_slot *s = intern_slot(&m->stacks, e->stack);
		if (s && s->refs == 0)
			stack_release(m, e->stack, true);
		s = intern_slot(&m->names, e->name);
		if (s && s->refs == 0)
			intern_remove(&m->names, e->name, true);
	}
	m->nent = 0;
	m->open = false;
}

/* ---- adding -------------------------------------------------------------*/

/* A frame or name as kept: reserved when empty, cut at max_name. */
static struct strview bound(const struct model *m, struct strview v,
                            enum reserved empty)
{
	if (v.len > 0)
		v.len = model_utf8_cut(v.ptr, v.len, m->lim.max_name);
	return v.len > 0 ? v : reserved_name(empty);
}

static enum status put_str(struct intern *t, struct strview v, size_t cap,
                           uint32_t *id)
{
	bool created;

	return intern_put(t, v.ptr, v.len, NULL, 0, cap, id, &created);
}

static bool view_ok(struct strview v)
{
	return v.ptr != NULL || v.len == 0;
}

/* Whether s's stack is marked [truncated N frames]: it is deeper than
 * the cap, or its producer already left frames out. */
static bool cut(const struct model *m, const struct sample *s)
{
	return s->depth > m->lim.max_depth || (s->dropped && s->depth);
}

/* The frames of a cut stack that are kept, nearest the leaf (the marker
 * takes the last slot). */
static size_t kept(const struct model *m, const struct sample *s)
{
	return size_min(s->depth, m->lim.max_depth - 1);
}

/* Checks the sample's views; counts the strings past max_name that are
 * kept (the frames beyond the depth cap are not). */
static bool scan(const struct model *m, const struct sample *s,
                 uint64_t *clipped)
{
	size_t max = m->lim.max_name, from = 0;

	if (!view_ok(s->task) || (s->depth && !s->frames))
		return false;
	*clipped = s->task.len > max;
	if (cut(m, s))
		from = s->depth - kept(m, s);
	for (size_t i = 0; i < s->depth; i++) {
		if (!view_ok(s->frames[i]))
			return false;
		if (i >= from && s->frames[i].len > max)
			(*clipped)++;
	}
	return true;
}

/* Writes the key text of n frames into out (room checked by the caller);
 * returns its length. */
static size_t key_text(char *out, const struct strview *v, size_t n)
{
	uint32_t n32 = (uint32_t)n;
	size_t at = sizeof(n32);

	memcpy(out, &n32, sizeof(n32));
	for (size_t i = 0; i < n; i++) {
		n32 = (uint32_t)v[i].len;
		memcpy(out + at, &n32, sizeof(n32));
		memcpy(out + at + sizeof(n32), v[i].ptr, v[i].len);
		at += sizeof(n32) + v[i].len;
	}
	return at;
}

/* ---- finding a stack ---------------------------------------------------
 * A sample's stack is hashed and compared from its frames as given, in one
 * pass and without building its key text; only a new stack gets its text,
 * its frames' hash_bytes and their lookups. */

static inline uint64_t rotl64(uint64_t x, unsigned r)
{
	return (x << r) | (x >> (64 - r));
}

static inline uint64_t ld64(const char *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static inline uint64_t ld32(const char *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/* Up to 7 bytes at p in a word, with fixed-size loads. */
static inline uint64_t short_word(const char *p, size_t n)
{
	if (n >= 4)
		return ld32(p) | ld32(p + n - 4) << 32;
	if (n == 0)
		return 0;
	return (uint64_t)(unsigned char)p[0] << 16 |
	       (uint64_t)(unsigned char)p[n / 2] << 8 | (unsigned char)p[n - 1];
}

static inline uint64_t lane(uint64_t x, uint64_t w)
{
	return rotl64((x ^ w) * 0x9e3779b97f4a7c15ull, 29);
}

/* The hash of n frames: three lanes take a frame's words in turn (so that
 * their multiplications overlap), a fourth its last 8 bytes (which may
 * overlap the others': any word will do) and its length. */
static uint64_t stack_hash(const struct strview *v, size_t n)
{
	uint64_t a = n, b = 0x243f6a8885a308d3ull, c = 0x13198a2e03707344ull,
	         d = 0xa4093822299f31d0ull;

	for (size_t f = 0; f < n; f++) {
		const char *p = v[f].ptr;
		size_t len = v[f].len;
		uint64_t t;
		if (len >= 8) {
			size_t i = 0;
			for (; i + 16 < len; i += 16) {
				a = lane(a, ld64(p + i));
				b = lane(b, ld64(p + i + 8));
			}
			if (i + 8 < len)
				c = lane(c, ld64(p + i));
			t = ld64(p + len - 8);
		} else {
			t = short_word(p, len);
		}
		d = lane(d, t ^ (uint64_t)len << 56);
	}
	a ^= rotl64(b, 16) ^ rotl64(c, 32) ^ rotl64(d, 48);
	return hash_mix64(a ^ (b + c + d));
}

/* The frames of s as kept into m->views (reserved names, the depth cap,
 * max_name); *hash gets their stack_hash and *len their key text's
 * length. */
static enum status sample_frames(struct model *m, const struct sample *s,
                                 size_t *nframes, uint64_t *hash, size_t *len)
{
	size_t depth = s->depth, skip = 0, k = 0;
	size_t n = depth == 0 ? 1 : cut(m, s) ? kept(m, s) + 1 : depth;

	if (mem_grow(&m->views, &m->views_cap, n, sizeof(*m->views)))
		return STATUS_NOMEM;
	if (depth == 0) {
		m->views[k++] = reserved_name(RESERVED_NO_STACK);
	} else if (cut(m, s)) {
		skip = depth - kept(m, s);
		m->views[k++] =
		    sv_n(m->mark,
		         reserved_truncated(m->mark, sizeof(m->mark),
		                            size_add_sat(skip, s->dropped)));
	}
	for (size_t i = skip; i < depth; i++)
		m->views[k++] = bound(m, s->frames[i], RESERVED_UNKNOWN_FRAME);
	*nframes = k;
	*hash = stack_hash(m->views, k);
	*len = sizeof(uint32_t);
	for (size_t i = 0; i < k; i++)
		*len += sizeof(uint32_t) + m->views[i].len;
	return STATUS_OK;
}

/* Whether n bytes at a and b are equal, a word at a time. */
static inline bool bytes_eq(const char *a, const char *b, size_t n)
{
	uint64_t d = 0;

	if (n < 8)
		return n == 0 || memcmp(a, b, n) == 0;
	for (size_t i = 0; i + 8 <= n; i += 8)
		d |= ld64(a + i) ^ ld64(b + i);
	return (d | (ld64(a + n - 8) ^ ld64(b + n - 8))) == 0;
}

struct frames_key {
	const struct strview *v;
	size_t n, len; /* frames, and the length of their key text */
};

/* Whether a stack's key text holds the frames of ctx (a frames_key).
 * Once the lengths agree, every offset comes from the frames, not from
 * the key, so that the key's cache lines are all fetched at once. */
static bool stack_eq(const void *ctx, uint32_t id, const void *key)
{
	const struct frames_key *k = ctx;
	const char *p = key;

	(void)id;
	if (intern_keylen(p) != k->len || rd32(p) != k->n)
		return false;
	p += sizeof(uint32_t);
	for (size_t i = 0; i < k->n; i++) {
		size_t len = k->v[i].len;
		if (rd32(p) != len ||
		    !bytes_eq(p + sizeof(uint32_t), k->v[i].ptr, len))
			return false;
		p += sizeof(uint32_t) + len;
	}
	return true;
}

/* Interns the frames of k (hash h) as a new stack. */
static enum status new_stack(struct model *m, const struct frames_key *k,
                             uint32_t h, uint32_t *out)
{
	size_t n = k->n;
	enum status st;
	bool created;

	if (mem_grow(&m->text, &m->text_cap, k->len, 1) ||
	    mem_grow(&m->ids, &m->ids_cap, n, sizeof(*m->ids)))
		return STATUS_NOMEM;
	key_text(m->text, k->v, n);
	for (size_t i = 0; i < n; i++) {
		st = put_str(&m->frames, k->v[i],
		             size_add_sat(m->lim.max_frames, 1), &m->ids[i]);
		if (st != STATUS_OK)
			return st;
	}
	st = intern_put_hashed(
	    &m->stacks, h, m->text, k->len, m->ids, n * sizeof(*m->ids),
	    size_add_sat(m->lim.max_stacks, 1), out, &created);
	if (st == STATUS_OK && created) {
		for (size_t i = 0; i < n; i++)
			intern_ref(&m->frames, m->ids[i]);
	}
	return st;
}

/* ---- the open window's entries --------------------------------------- */

/* The index's hash of a (stack, name) pair, from the stack's hash so that
 * it is known (and its slot fetched) before the stack is found. */
static inline uint32_t fold_hash(uint32_t stack_hash32, uint32_t name)
{
	uint64_t x =
	    ((uint64_t)stack_hash32 << 32 | name) * 0x9e3779b97f4a7c15ull;

	x ^= x >> 29;
	x *= 0xbf58476d1ce4e5b9ull;
	return (uint32_t)(x >> 32);
}

static void idx_place(struct fold_slot *idx, size_t cap, uint32_t h,
                      uint32_t ent)
{
	size_t i = h & (cap - 1);

	while (idx[i].ent)
		i = (i + 1) & (cap - 1);
	idx[i].ent = ent;
	idx[i].hash = h;
}

/* Room for one more entry: the entries grow, and the index doubles (load
 * at most 3/4; at most 2^31 slots, so entries fit in uint32).
 * STATUS_NOMEM leaves the window as it was. */
static enum status fold_reserve(struct model *m)
{
	struct fold_slot *t;
	size_t cap;

	if (mem_grow(&m->ent, &m->ent_cap, m->nent + 1, sizeof(*m->ent)))
		return STATUS_NOMEM;
	if ((m->nent + 1) * 4 <= m->idx_cap * 3)
		return STATUS_OK;
	cap = m->idx_cap ? m->idx_cap * 2 : 64;
	if (m->idx_cap >= (size_t)1 << 31 ||
	    m->idx_cap > SIZE_MAX / 4 / sizeof(*t))
		return STATUS_NOMEM;
	t = mem_calloc(cap, sizeof(*t));
	if (!t)
		return STATUS_NOMEM;
	for (size_t i = 0; i < m->idx_cap; i++) {
		if (m->idx[i].ent)
			idx_place(t, cap, m->idx[i].hash, m->idx[i].ent);
	}
	mem_free(m->idx);
	m->idx = t;
	m->idx_cap = cap;
	return STATUS_OK;
}

static enum status fold_add(struct model *m, uint32_t stack, uint32_t name,
                            uint32_t h, const struct sample *s)
{
	uint64_t tasks = s->tasks ? s->tasks : 1;
	struct fold_entry *e;

	if (m->idx_cap) {
		size_t mask = m->idx_cap - 1;
		for (size_t i = h & mask; m->idx[i].ent; i = (i + 1) & mask) {
			if (m->idx[i].hash != h)
				continue;
			e = &m->ent[m->idx[i].ent - 1];
			if (e->stack == stack && e->name == name) {
				e->tasks = u64_add_sat(e->tasks, tasks);
				metrics_add(&e->m, &s->m);
				return STATUS_OK;
			}
		}
	}
	if (fold_reserve(m))
		return STATUS_NOMEM;
	idx_place(m->idx, m->idx_cap, h, (uint32_t)(m->nent + 1));
	e = &m->ent[m->nent++];
	e->stack = stack;
	e->name = name;
	e->tasks = tasks;
	e->m = s->m;
	return STATUS_OK;
}

/* ---- model_add ---------------------------------------------------------*/

/* Finds or makes the stack of the frames of k (hash h32) and folds s into
 * its entry with name.  STATUS_LIMIT when a cap refused the stack (nothing
 * folded). */
static enum status add_stack(struct model *m, const struct sample *s,
                             const struct frames_key *k, uint32_t h32,
                             uint32_t name)
{
	uint32_t fh = fold_hash(h32, name), stack;

	if (m->idx_cap)
		model_prefetch(&m->idx[fh & (m->idx_cap - 1)]);
	stack = hash_table_find(&m->stacks.index, h32, stack_eq, k);
	if (!stack) {
		enum status st;
		if (m->stacks.live >= size_add_sat(m->lim.max_stacks, 1))
			return STATUS_LIMIT;
		st = new_stack(m, k, h32, &stack);
		if (st != STATUS_OK)
			return st;
	}
	return fold_add(m, stack, name, fh, s);
}

enum status model_add(struct model *m, const struct sample *s)
{
	uint32_t f0, s0, n0, name, h32;
	struct frames_key k;
	uint64_t clipped, h;
	bool other = false;
	enum status st;

	if (!m || !s || !m->open || !scan(m, s, &clipped))
		return STATUS_INVAL;
	if (metrics_zero(&s->m)) {
		m->cur.zero++;
		return STATUS_OK;
	}
	st = sample_frames(m, s, &k.n, &h, &k.len);
	if (st != STATUS_OK)
		return st;
	k.v = m->views;
	/* the stack's index slot is fetched while the name is looked up */
	h32 = hash_fold32(h);
	if (m->stacks.index.cap)
		model_prefetch(
		    &m->stacks.index.slots[h32 & (m->stacks.index.cap - 1)]);
	f0 = m->frames.next;
	s0 = m->stacks.next;
	n0 = m->names.next;
	st = put_str(&m->names, bound(m, s->task, RESERVED_UNNAMED),
	             size_add_sat(m->lim.max_frames, 1), &name);
	if (st == STATUS_LIMIT) {
		name = m->other_name;
		other = true;
	} else if (st == STATUS_OK) {
		st = add_stack(m, s, &k, h32, name);
		if (st == STATUS_LIMIT) {
			rollback_stacks(m, s0);
			intern_rollback(&m->frames, f0);
			other = true;
		}
	}
	if (other)
		st = fold_add(m, m->other_stack, name,
		              fold_hash(m->other_hash, name), s);
	if (st != STATUS_OK) {
		rollback_stacks(m, s0);
		intern_rollback(&m->frames, f0);
		intern_rollback(&m->names, n0);
		return st;
	}
	m->cur.samples++;
	m->cur.other += other;
	m->cur.truncated += cut(m, s);
	m->cur.clipped += clipped;
	return other ? STATUS_LIMIT : STATUS_OK;
}

static enum status sink_sample(void *ctx, const struct sample *s)
{
	return model_add(ctx, s);
}

struct sample_sink model_sink(struct model *m)
{
	struct sample_sink k = { .sample = sink_sample,
		                 .meta = NULL,
		                 .ctx = m };

	return k;
}

/* ---- reading ------------------------------------------------------------*/

size_t model_window_count(const struct model *m)
{
	return m ? m->count : 0;
}

const struct window *model_window(const struct model *m, size_t i)
{
	return m && i < m->count ? &model_ring_at(m, i)->pub : NULL;
}

const struct window *model_latest(const struct model *m)
{
	return m && m->count ? &model_ring_at(m, m->count - 1)->pub : NULL;
}

const struct window *model_window_seq(const struct model *m, uint64_t seq)
{
	uint64_t first;

	if (!m || m->count == 0)
		return NULL;
	first = model_ring_at(m, 0)->pub.seq;
	if (seq < first || seq - first >= m->count)
		return NULL;
	return &model_ring_at(m, (size_t)(seq - first))->pub;
}

struct strview model_frame(const struct model *m, uint32_t frame)
{
	return intern_view(&m->frames, frame);
}

struct strview model_name(const struct model *m, uint32_t name)
{
	return intern_view(&m->names, name);
}

const uint32_t *model_stack(const struct model *m, uint32_t stack,
                            size_t *depth)
{
	const struct intern_slot *s = intern_slot(&m->stacks, stack);

	if (depth)
		*depth = s ? rd32(s->str) : 0;
	return s ? key_ids(s->str) : NULL;
}

size_t window_find_row(const struct window *w, uint32_t stack)
{
	const struct window_priv *wp = (const struct window_priv *)w;
	size_t lo = 0, hi = w->nrows;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		uint32_t at = w->rows[wp->byid[mid]].stack;
		if (at == stack)
			return wp->byid[mid];
		if (at < stack)
			lo = mid + 1;
		else
			hi = mid;
	}
	return SIZE_MAX;
}

int model_stack_cmp(const struct model *m, uint32_t a, uint32_t b)
{
	const struct intern_slot *sa, *sb;

	if (a == b)
		return 0;
	sa = intern_slot(&m->stacks, a);
	sb = intern_slot(&m->stacks, b);
	if (!sa || !sb) /* a reclaimed id reads as the empty stack */
		return (sa != NULL) - (sb != NULL);
	return model_key_cmp(sa->str, sb->str);
}

void model_stats(const struct model *m, struct model_stats *st)
{
	memset(st, 0, sizeof(*st));
	st->windows_committed = m->committed;
	st->windows_evicted = m->evicted;
	st->windows_kept = m->count;
	/* The pinned [other] frame, stack and name are not counted. */
	st->frames_live = m->frames.live - 1;
	st->stacks_live = m->stacks.live - 1;
	st->names_live = m->names.live - 1;
	st->frames_reclaimed = m->frames.reclaimed;
	st->stacks_reclaimed = m->stacks.reclaimed;
	st->names_reclaimed = m->names.reclaimed;
	st->bytes = model_bytes_used(m);
}
