/* The model: interning with reference counts, the open window's fold,
 * reading kept windows.  admit.c checks a sample against the limits,
 * commit.c builds a window, keep.c keeps it and evicts, ring.c holds
 * them, stackkey.c lays out stacks. docs/model.md describes the data and
 * the accounting. */
#include "model/model.h"

#include <stdlib.h>
#include <string.h>

#include "model/admit.h"
#include "model/alloc.h"
#include "model/hash.h"
#include "model/commit.h"
#include "model/extras.h"
#include "model/intern.h"
#include "model/model_int.h"
#include "model/reserved.h"
#include "model/ring.h"
#include "model/stackkey.h"

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

const struct model_limits *model_get_limits(const struct model *m)
{
	return &m->lim;
}

/* ---- releasing ----------------------------------------------------------*/

void model_stack_release(struct model *m, uint32_t id, bool count)
{
	const char *key = intern_slot(&m->stacks, id)->str;
	const uint32_t *f = stackkey_ids(key);

	for (size_t i = 0; i < stackkey_rd32(key); i++) {
		if (intern_unref(&m->frames, f[i]))
			intern_remove(&m->frames, f[i], count);
	}
	intern_remove(&m->stacks, id, count);
}

/* Removes the stacks made since s0 that nothing refers to. */
static void rollback_stacks(struct model *m, uint32_t s0)
{
	for (uint32_t id = m->stacks.next; id-- > s0;) {
		const struct intern_slot *s = intern_slot(&m->stacks, id);
		if (s && s->refs == 0)
			model_stack_release(m, id, false);
	}
	intern_rollback(&m->stacks, s0);
}

/* ---- life ---------------------------------------------------------------*/

/* A one-frame stack of reserved name r, pinned outside the caps. */
static enum status pin_stack(struct model *m, enum reserved r, uint32_t *id,
                             uint32_t *hash)
{
	struct strview o = reserved_name(r);
	char key[64];
	size_t len = stackkey_text(key, &o, 1);
	uint32_t h = hash_fold32(stackkey_hash(&o, 1)), f;
	bool c;

	if (intern_put(&m->frames, o.ptr, o.len, NULL, 0, SIZE_MAX, &f, &c) ||
	    intern_put_hashed(&m->stacks, h, key, len, &f, sizeof(f), SIZE_MAX,
	                      id, &c))
		return STATUS_NOMEM;
	intern_ref(&m->frames, f);
	intern_ref(&m->stacks, *id);
	*hash = h;
	return STATUS_OK;
}

static enum status pin_other(struct model *m)
{
	struct strview o = reserved_name(RESERVED_OTHER);
	uint32_t h;
	bool c;

	if (pin_stack(m, RESERVED_OTHER, &m->other_stack, &m->other_hash) ||
	    pin_stack(m, RESERVED_NOT_PARKED, &m->not_parked, &h) ||
	    intern_put(&m->names, o.ptr, o.len, NULL, 0, SIZE_MAX,
	               &m->other_name, &c))
		return STATUS_NOMEM;
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
	ring_init(&m->ring);
	if (pin_other(m) != STATUS_OK) {
		model_free(m);
		return STATUS_NOMEM;
	}
	*out = m;
	return STATUS_OK;
}

void model_free(struct model *m)
{
	if (!m)
		return;
	mem_free(m->retired);
	ring_fini(&m->ring);
	intern_fini(&m->frames);
	intern_fini(&m->names);
	intern_fini(&m->stacks);
	mem_free(m->ent);
	mem_free(m->xs);
	mem_free(m->idx);
	mem_free(m->views);
	mem_free(m->ids);
	mem_free(m->text);
	mem_free(m);
}

static void open_reset(struct model *m)
{
	m->nent = 0;
	m->nxs = 0;
	m->any_parked = false;
	if (m->idx_cap)
		memset(m->idx, 0, m->idx_cap * sizeof(*m->idx));
	memset(&m->cur, 0, sizeof(m->cur));
}

enum status model_begin(struct model *m)
{
	if (!m || m->open)
		return STATUS_INVAL;
	/* the open window's entries hold no references: what is retired
	 * must be released before any could share its stacks */
	while (model_reclaim(m, SIZE_MAX))
		;
	open_reset(m);
	m->open = true;
	return STATUS_OK;
}

void model_abort(struct model *m)
{
	if (!m || !m->open || m->building)
		return;
	/* Entries hold no references yet: drop what only they used. */
	for (size_t i = 0; i < m->nent; i++) {
		const struct fold_entry *e = &m->ent[i];
		const struct intern_slot *s = intern_slot(&m->stacks, e->stack);
		if (s && s->refs == 0)
			model_stack_release(m, e->stack, true);
		s = intern_slot(&m->stacks, e->parked);
		if (s && s->refs == 0)
			model_stack_release(m, e->parked, true);
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

/* ---- finding a stack ---------------------------------------------------
 * A sample's stack is hashed and compared from its frames as given, in one
 * pass and without building its key text; only a new stack gets its text,
 * its frames' hash_bytes and their lookups. */

/* The depth frames f of a sample (none: the reserved one-frame stack),
 * of which its producer left dropped out on the root side, as kept into
 * m->views (reserved names, the depth cap, max_name); *hash gets their
 * stackkey_hash and *len their key text's length. */
static enum status sample_frames(struct model *m, const struct strview *f,
                                 size_t depth, size_t dropped,
                                 enum reserved none, size_t *nframes,
                                 uint64_t *hash, size_t *len)
{
	size_t skip = 0, k = 0;
	size_t n = depth == 0 ? 1
	           : admit_cut(&m->lim, depth, dropped)
	               ? admit_kept(&m->lim, depth) + 1
	               : depth;

	if (mem_grow(&m->views, &m->views_cap, n, sizeof(*m->views)))
		return STATUS_NOMEM;
	if (depth == 0) {
		m->views[k++] = reserved_name(none);
	} else if (admit_cut(&m->lim, depth, dropped)) {
		skip = depth - admit_kept(&m->lim, depth);
		m->views[k++] = sv_n(
		    m->mark, reserved_truncated(m->mark, sizeof(m->mark),
		                                size_add_sat(skip, dropped)));
	}
	for (size_t i = skip; i < depth; i++)
		m->views[k++] = bound(m, f[i], RESERVED_UNKNOWN_FRAME);
	*nframes = k;
	*hash = stackkey_hash(m->views, k);
	*len = sizeof(uint32_t);
	for (size_t i = 0; i < k; i++)
		*len += sizeof(uint32_t) + m->views[i].len;
	return STATUS_OK;
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
	stackkey_text(m->text, k->v, n);
	for (size_t i = 0; i < n; i++) {
		st = put_str(&m->frames, k->v[i],
		             size_add_sat(m->lim.max_frames, PINNED),
		             &m->ids[i]);
		if (st != STATUS_OK)
			return st;
	}
	st = intern_put_hashed(
	    &m->stacks, h, m->text, k->len, m->ids, n * sizeof(*m->ids),
	    size_add_sat(m->lim.max_stacks, PINNED), out, &created);
	if (st == STATUS_OK && created) {
		for (size_t i = 0; i < n; i++)
			intern_ref(&m->frames, m->ids[i]);
	}
	return st;
}

/* ---- the open window's entries --------------------------------------- */

/* The index's hash of a (stack, parked, name), from the stack's hash so
 * that it is known (and its slot fetched) before the stack is found. */
static inline uint32_t fold_hash(uint32_t stack_hash32, uint32_t parked,
                                 uint32_t name)
{
	uint64_t x =
	    ((uint64_t)(stack_hash32 ^ parked * 0x85ebca6bu) << 32 | name) *
	    0x9e3779b97f4a7c15ull;

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

/* Below this many samples model_reserve does nothing: the tables grow
 * in steps too small to hold keys. */
#define MODEL_RESERVE_MIN ((size_t)1 << 16)

/* Room in t's index for total ids in all, when it has fewer: a table
 * still small grows now, while it holds little to move. */
static void reserve_index(struct intern *t, size_t total)
{
	if (total > t->live &&
	    hash_table_reserve(&t->index, total - t->live) != STATUS_OK) {
		/* it grows as ids come: only slower */
	}
}

enum status model_reserve(struct model *m, size_t n)
{
	const struct window *prev;
	size_t cap;

	if (!m || !m->open || m->building || m->nent)
		return STATUS_INVAL;
	/* a small window grows its tables cheaply; one whose samples the
	 * last window folded into far fewer entries would have tables sized
	 * for nothing, given back at commit and reserved again each time */
	prev = model_latest(m);
	if (n < MODEL_RESERVE_MIN || (prev && prev->nentries < n / 2))
		return STATUS_OK;
	if (n > (size_t)1 << 30 ||
	    mem_grow(&m->ent, &m->ent_cap, n, sizeof(*m->ent)))
		return STATUS_NOMEM;
	for (cap = m->idx_cap ? m->idx_cap : 64; n * 4 > cap * 3;)
		cap *= 2;
	if (cap > m->idx_cap) { /* empty: nothing to move */
		struct fold_slot *t = mem_calloc(cap, sizeof(*t));
		if (!t)
			return STATUS_NOMEM;
		mem_free(m->idx);
		m->idx = t;
		m->idx_cap = cap;
	}
	/* a huge window's stacks, and a frame of its own each (the leaf) */
	reserve_index(&m->stacks, size_min(n, m->lim.max_stacks));
	reserve_index(&m->frames, size_min(n, m->lim.max_frames));
	return STATUS_OK;
}

/* A new, unknown set of figures for an entry, at m->xs[*xi - 1]. */
static enum status new_extras(struct model *m, uint32_t *xi)
{
	if (mem_grow(&m->xs, &m->xs_cap, m->nxs + 1, sizeof(*m->xs)))
		return STATUS_NOMEM;
	m->xs[m->nxs++] = (struct extras){ .known = 0 };
	*xi = (uint32_t)m->nxs;
	return STATUS_OK;
}

/* The fold key of an entry of the open window. */
struct fold_key {
	uint32_t stack, parked, name;
	uint32_t hash; /* fold_hash */
};

static enum status fold_add(struct model *m, const struct fold_key *k,
                            const struct sample *s)
{
	uint64_t tasks = s->tasks ? s->tasks : 1;
	struct fold_entry *e;

	if (m->idx_cap) {
		size_t mask = m->idx_cap - 1;
		for (size_t i = k->hash & mask; m->idx[i].ent;
		     i = (i + 1) & mask) {
			if (m->idx[i].hash != k->hash)
				continue;
			e = &m->ent[m->idx[i].ent - 1];
			if (e->stack == k->stack && e->name == k->name &&
			    e->parked == k->parked) {
				if (s->x.known && !e->xi &&
				    new_extras(m, &e->xi))
					return STATUS_NOMEM;
				e->tasks = u64_add_sat(e->tasks, tasks);
				metrics_add(&e->m, &s->m);
				if (s->x.known)
					extras_add(&m->xs[e->xi - 1], &s->x);
				return STATUS_OK;
			}
		}
	}
	if (fold_reserve(m) ||
	    (s->x.known &&
	     mem_grow(&m->xs, &m->xs_cap, m->nxs + 1, sizeof(*m->xs))))
		return STATUS_NOMEM;
	idx_place(m->idx, m->idx_cap, k->hash, (uint32_t)(m->nent + 1));
	e = &m->ent[m->nent++];
	m->any_parked |= k->parked != m->not_parked;
	*e = (struct fold_entry){
		.stack = k->stack,
		.name = k->name,
		.tasks = tasks,
		.m = s->m,
		.parked = k->parked,
	};
	if (s->x.known) { /* room made above */
		m->xs[m->nxs] = s->x;
		extras_clean(&m->xs[m->nxs++]);
		e->xi = (uint32_t)m->nxs;
	}
	return STATUS_OK;
}

/* ---- model_add ---------------------------------------------------------*/

/* Finds or makes the stack of the frames of k (hash h32).  STATUS_LIMIT
 * when the stack cap refused it. */
static enum status find_stack(struct model *m, const struct frames_key *k,
                              uint32_t h32, uint32_t *stack)
{
	*stack = hash_table_find(&m->stacks.index, h32, stackkey_eq, k);
	if (*stack)
		return STATUS_OK;
	if (m->stacks.live >= size_add_sat(m->lim.max_stacks, PINNED))
		return STATUS_LIMIT;
	return new_stack(m, k, h32, stack);
}

/* The parked-at stack of s into *parked: the pinned "[not parked]" when
 * s has none, "[other]" (and *other set) when a cap refused it. */
static enum status add_parked(struct model *m, const struct sample *s,
                              uint32_t *parked, bool *other)
{
	uint32_t f0 = m->frames.next, s0 = m->stacks.next;
	struct frames_key k;
	enum status st;
	uint64_t h;

	*parked = m->not_parked;
	if (s->parked_depth == 0)
		return STATUS_OK;
	st = sample_frames(m, s->parked, s->parked_depth, s->parked_dropped,
	                   RESERVED_NOT_PARKED, &k.n, &h, &k.len);
	if (st != STATUS_OK)
		return st;
	k.v = m->views;
	st = find_stack(m, &k, hash_fold32(h), parked);
	if (st == STATUS_LIMIT) {
		rollback_stacks(m, s0);
		intern_rollback(&m->frames, f0);
		*parked = m->other_stack;
		*other = true;
		return STATUS_OK;
	}
	return st;
}

enum status model_add(struct model *m, const struct sample *s)
{
	uint32_t f0, s0, n0, f1, s1, h32;
	struct fold_key fk;
	struct frames_key k;
	uint64_t clipped, h;
	bool other = false;
	enum status st;

	if (!m || !s || !m->open || m->building ||
	    !admit_scan(&m->lim, s, &clipped))
		return STATUS_INVAL;
	if (metrics_zero(&s->m)) {
		m->cur.zero++;
		return STATUS_OK;
	}
	f0 = m->frames.next;
	s0 = m->stacks.next;
	n0 = m->names.next;
	st = add_parked(m, s, &fk.parked, &other);
	if (st != STATUS_OK)
		goto undo;
	st = sample_frames(m, s->frames, s->depth, s->dropped,
	                   RESERVED_NO_STACK, &k.n, &h, &k.len);
	if (st != STATUS_OK)
		goto undo;
	k.v = m->views;
	/* the stack's index slot is fetched while the name is looked up */
	h32 = hash_fold32(h);
	if (m->stacks.index.cap)
		model_prefetch(
		    &m->stacks.index.slots[h32 & (m->stacks.index.cap - 1)]);
	f1 = m->frames.next;
	s1 = m->stacks.next;
	st = put_str(&m->names, bound(m, s->task, RESERVED_UNNAMED),
	             size_add_sat(m->lim.max_frames, 1), &fk.name);
	fk.stack = m->other_stack;
	if (st == STATUS_LIMIT) {
		fk.name = m->other_name;
		other = true;
		st = STATUS_OK;
	} else if (st == STATUS_OK) {
		fk.hash = fold_hash(h32, fk.parked, fk.name);
		if (m->idx_cap)
			model_prefetch(&m->idx[fk.hash & (m->idx_cap - 1)]);
		st = find_stack(m, &k, h32, &fk.stack);
		if (st == STATUS_LIMIT) {
			rollback_stacks(m, s1);
			intern_rollback(&m->frames, f1);
			fk.stack = m->other_stack;
			other = true;
			st = STATUS_OK;
		}
	}
	if (st == STATUS_OK) {
		if (fk.stack == m->other_stack)
			fk.hash = fold_hash(m->other_hash, fk.parked, fk.name);
		st = fold_add(m, &fk, s);
	}
	if (st != STATUS_OK)
		goto undo;
	m->cur.samples++;
	m->cur.other += other;
	m->cur.truncated +=
	    admit_cut(&m->lim, s->depth, s->dropped) +
	    admit_cut(&m->lim, s->parked_depth, s->parked_dropped);
	m->cur.clipped += clipped;
	return other ? STATUS_LIMIT : STATUS_OK;
undo:
	rollback_stacks(m, s0);
	intern_rollback(&m->frames, f0);
	intern_rollback(&m->names, n0);
	return st;
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

/* ---- accounting ----------------------------------------------------------*/

size_t model_bytes_used(const struct model *m)
{
	size_t b = ring_bytes(&m->ring);

	b = size_add_sat(b, intern_bytes(&m->frames));
	b = size_add_sat(b, intern_bytes(&m->names));
	return size_add_sat(b, intern_bytes(&m->stacks));
}

/* ---- reading ------------------------------------------------------------*/

size_t model_window_count(const struct model *m)
{
	return m ? m->ring.count : 0;
}

const struct window *model_window(const struct model *m, size_t i)
{
	return m && i < m->ring.count ? &ring_at(&m->ring, i)->pub : NULL;
}

const struct window *model_latest(const struct model *m)
{
	return m && m->ring.count ? &ring_at(&m->ring, m->ring.count - 1)->pub
	                          : NULL;
}

const struct window *model_window_seq(const struct model *m, uint64_t seq)
{
	uint64_t first;

	if (!m || m->ring.count == 0)
		return NULL;
	first = ring_at(&m->ring, 0)->pub.seq;
	if (seq < first || seq - first >= m->ring.count)
		return NULL;
	return &ring_at(&m->ring, (size_t)(seq - first))->pub;
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
		*depth = s ? stackkey_rd32(s->str) : 0;
	return s ? stackkey_ids(s->str) : NULL;
}

uint32_t model_stack_in(const struct model *m, const struct model *from,
                        uint32_t stack)
{
	const struct intern_slot *s = intern_slot(&from->stacks, stack);
	struct frames_key k = { 0 };
	struct strview *v;
	const char *p;
	uint32_t id;

	if (m == from || !s)
		return m == from ? stack : 0;
	k.n = stackkey_rd32(s->str);
	k.len = intern_keylen(s->str);
	v = calloc(k.n ? k.n : 1, sizeof(*v));
	if (!v)
		return 0;
	/* the key text is the frames' own: lengths and bytes, root first */
	p = s->str + sizeof(uint32_t);
	for (size_t i = 0; i < k.n; i++) {
		v[i] = sv_n(p + sizeof(uint32_t), stackkey_rd32(p));
		p += sizeof(uint32_t) + v[i].len;
	}
	k.v = v;
	id = hash_table_find(&m->stacks.index,
	                     hash_fold32(stackkey_hash(v, k.n)), stackkey_eq,
	                     &k);
	free(v);
	return id;
}

uint32_t model_name_in(const struct model *m, const struct model *from,
                       uint32_t name)
{
	struct strview v;

	if (m == from || !name)
		return name;
	v = intern_view(&from->names, name);
	return intern_find(&m->names, v.ptr, v.len);
}

size_t window_find_row(const struct window *w, uint32_t stack)
{
	const struct window_priv *wp = (const struct window_priv *)w;
	size_t lo = 0, hi = w->nrows;

	while (lo < hi) { /* the first of its rows, by (stack, name) id */
		size_t mid = lo + (hi - lo) / 2;
		if (w->rows[wp->byid[mid]].stack < stack)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < w->nrows && w->rows[wp->byid[lo]].stack == stack)
		return wp->byid[lo];
	return SIZE_MAX;
}

uint32_t model_not_parked(const struct model *m)
{
	return m->not_parked;
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
	return stackkey_cmp(sa->str, sb->str);
}

void model_stats(const struct model *m, struct model_stats *st)
{
	memset(st, 0, sizeof(*st));
	st->windows_committed = m->committed;
	st->windows_evicted = m->evicted;
	st->windows_kept = m->ring.count;
	/* The pinned [other] frame, stack and name are not counted, */
	/* nor the pinned [not parked] frame and stack */
	st->frames_live = m->frames.live - PINNED;
	st->stacks_live = m->stacks.live - PINNED;
	st->names_live = m->names.live - 1;
	st->frames_reclaimed = m->frames.reclaimed;
	st->stacks_reclaimed = m->stacks.reclaimed;
	st->names_reclaimed = m->names.reclaimed;
	st->bytes = model_bytes_used(m);
}
