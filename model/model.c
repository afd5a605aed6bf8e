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

void model_unref_entry(struct model *m, const struct fold_entry *e)
{
	if (intern_unref(&m->stacks, e->stack))
		stack_release(m, e->stack, true);
	if (intern_unref(&m->names, e->name))
		intern_remove(&m->names, e->name, true);
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

static enum status pin_other(struct model *m)
{
	struct strview o = reserved_name(RESERVED_OTHER);
	char key[64];
	size_t len = key_text(key, &o, 1);
	uint32_t f;
	bool c;

	if (intern_put(&m->frames, o.ptr, o.len, NULL, 0, SIZE_MAX, &f, &c) ||
	    intern_put(&m->stacks, key, len, &f, sizeof(f), SIZE_MAX,
	               &m->other_stack, &c) ||
	    intern_put(&m->names, o.ptr, o.len, NULL, 0, SIZE_MAX,
	               &m->other_name, &c))
		return STATUS_NOMEM;
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
	mem_free(m->fold);
	mem_free(m->views);
	mem_free(m->ids);
	mem_free(m->text);
	mem_free(m);
}

static void open_reset(struct model *m)
{
	m->nent = 0;
	if (m->fold_cap)
		memset(m->fold, 0, m->fold_cap * sizeof(*m->fold));
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
	for (size_t i = 0; i < m->fold_cap; i++) {
		const struct intern_slot *s;
		if (!m->fold[i].stack)
			continue;
		s = intern_slot(&m->stacks, m->fold[i].stack);
		if (s && s->refs == 0)
			stack_release(m, m->fold[i].stack, true);
		s = intern_slot(&m->names, m->fold[i].name);
		if (s && s->refs == 0)
			intern_remove(&m->names, m->fold[i].name, true);
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

/* Checks the sample's views; counts the strings past max_name that are
 * kept (the frames beyond the depth cap are not). */
static bool scan(const struct model *m, const struct sample *s,
                 uint64_t *clipped)
{
	size_t max = m->lim.max_name, from = 0;

	if (!view_ok(s->task) || (s->depth && !s->frames))
		return false;
	*clipped = s->task.len > max;
	if (s->depth > m->lim.max_depth)
		from = s->depth - (m->lim.max_depth - 1);
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

/* The frames of s as kept into m->views (reserved names, the depth cap,
 * max_name), and their key text into m->text. */
static enum status sample_key(struct model *m, const struct sample *s,
                              size_t *nframes, size_t *len)
{
	size_t depth = s->depth, skip = 0, k = 0, bytes = sizeof(uint32_t);
	size_t n = depth == 0 ? 1 : size_min(depth, m->lim.max_depth);

	if (mem_grow(&m->views, &m->views_cap, n, sizeof(*m->views)))
		return STATUS_NOMEM;
	if (depth == 0) {
		m->views[k++] = reserved_name(RESERVED_NO_STACK);
	} else if (depth > m->lim.max_depth) {
		skip = depth - (m->lim.max_depth - 1);
		m->views[k++] =
		    sv_n(m->mark,
		         reserved_truncated(m->mark, sizeof(m->mark), skip));
	}
	for (size_t i = skip; i < depth; i++)
		m->views[k++] = bound(m, s->frames[i], RESERVED_UNKNOWN_FRAME);
	for (size_t i = 0; i < k; i++)
		bytes += sizeof(uint32_t) + m->views[i].len;
	if (mem_grow(&m->text, &m->text_cap, bytes, 1))
		return STATUS_NOMEM;
	*nframes = k;
	*len = key_text(m->text, m->views, k);
	return STATUS_OK;
}

static enum status resolve_stack(struct model *m, const struct sample *s,
                                 uint32_t *out)
{
	size_t cap = size_add_sat(m->lim.max_stacks, 1), n, len;
	enum status st;
	bool created;

	st = sample_key(m, s, &n, &len);
	if (st != STATUS_OK)
		return st;
	*out = intern_find(&m->stacks, m->text, len);
	if (*out)
		return STATUS_OK;
	if (m->stacks.live >= cap)
		return STATUS_LIMIT;
	if (mem_grow(&m->ids, &m->ids_cap, n, sizeof(*m->ids)))
		return STATUS_NOMEM;
	for (size_t i = 0; i < n; i++) {
		st = put_str(&m->frames, m->views[i],
		             size_add_sat(m->lim.max_frames, 1), &m->ids[i]);
		if (st != STATUS_OK)
			return st;
	}
	st = intern_put(&m->stacks, m->text, len, m->ids, n * sizeof(*m->ids),
	                cap, out, &created);
	if (st == STATUS_OK && created) {
		for (size_t i = 0; i < n; i++)
			intern_ref(&m->frames, m->ids[i]);
	}
	return st;
}

static size_t fold_home(uint32_t stack, uint32_t name, size_t cap)
{
	return (size_t)hash_mix64((uint64_t)stack << 32 | name) & (cap - 1);
}

/* Doubles the fold table (load at most 3/4; at most 2^32 slots, which
 * commit indexes with uint32).  STATUS_NOMEM leaves it. */
static enum status fold_grow(struct model *m)
{
	size_t cap = m->fold_cap ? m->fold_cap * 2 : 64;
	struct fold_entry *t;

	if (m->fold_cap >= (size_t)1 << 31 ||
	    m->fold_cap > SIZE_MAX / 4 / sizeof(*t))
		return STATUS_NOMEM;
	t = mem_calloc(cap, sizeof(*t));
	if (!t)
		return STATUS_NOMEM;
	for (size_t i = 0; i < m->fold_cap; i++) {
		const struct fold_entry *e = &m->fold[i];
		size_t j;
		if (!e->stack)
			continue;
		for (j = fold_home(e->stack, e->name, cap); t[j].stack;)
			j = (j + 1) & (cap - 1);
		t[j] = *e;
	}
	mem_free(m->fold);
	m->fold = t;
	m->fold_cap = cap;
	return STATUS_OK;
}

static enum status fold_add(struct model *m, uint32_t stack, uint32_t name,
                            uint64_t tasks, const struct metrics *v)
{
	struct fold_entry *e = NULL;
	size_t i;

	if (m->fold_cap) {
		for (i = fold_home(stack, name, m->fold_cap); m->fold[i].stack;
		     i = (i + 1) & (m->fold_cap - 1)) {
			if (m->fold[i].stack == stack &&
			    m->fold[i].name == name) {
				e = &m->fold[i];
				break;
			}
		}
	}
	if (!e) {
		if ((m->nent + 1) * 4 > m->fold_cap * 3 && fold_grow(m))
			return STATUS_NOMEM;
		for (i = fold_home(stack, name, m->fold_cap); m->fold[i].stack;)
			i = (i + 1) & (m->fold_cap - 1);
		e = &m->fold[i];
		e->stack = stack;
		e->name = name;
		m->nent++;
	}
	e->tasks = u64_add_sat(e->tasks, tasks);
	metrics_add(&e->m, v);
	return STATUS_OK;
}

enum status model_add(struct model *m, const struct sample *s)
{
	uint32_t f0, s0, n0, name, stack = 0;
	uint64_t clipped;
	bool other = false;
	enum status st;

	if (!m || !s || !m->open || !scan(m, s, &clipped))
		return STATUS_INVAL;
	if (metrics_zero(&s->m)) {
		m->cur.zero++;
		return STATUS_OK;
	}
	f0 = m->frames.next;
	s0 = m->stacks.next;
	n0 = m->names.next;
	st = put_str(&m->names, bound(m, s->task, RESERVED_UNNAMED),
	             size_add_sat(m->lim.max_frames, 1), &name);
	if (st == STATUS_LIMIT) {
		name = m->other_name;
		stack = m->other_stack;
		other = true;
	} else if (st == STATUS_OK) {
		st = resolve_stack(m, s, &stack);
		if (st == STATUS_LIMIT) {
			rollback_stacks(m, s0);
			intern_rollback(&m->frames, f0);
			stack = m->other_stack;
			other = true;
		}
	}
	if (st == STATUS_OK || st == STATUS_LIMIT)
		st = fold_add(m, stack, name, s->tasks ? s->tasks : 1, &s->m);
	if (st != STATUS_OK) {
		rollback_stacks(m, s0);
		intern_rollback(&m->frames, f0);
		intern_rollback(&m->names, n0);
		return st;
	}
	m->cur.samples++;
	m->cur.other += other;
	m->cur.truncated += s->depth > m->lim.max_depth;
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
