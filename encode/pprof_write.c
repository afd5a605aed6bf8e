/* The pprof encoder: one committed window -> a deterministic Profile message
 * (pprof.md §1-§3, decisions §3): strings sanitised to valid UTF-8 and
 * re-interned, samples merged, sorted by content, ids dense. */
#include "encode/pprof.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "encode/profile.pb-c.h"
#include "model/alloc.h"
#include "model/reserved.h"

static const enum metric type_metric[PPROF_NTYPES] = {
	METRIC_POLLS, METRIC_WAKES, METRIC_BUSY, METRIC_SCHED, METRIC_IDLE,
};

enum metric pprof_type_metric(size_t i)
{
	return i < PPROF_NTYPES ? type_metric[i] : METRIC_COUNT;
}

/* ---- UTF-8: strict validation, maximal invalid subparts -> U+FFFD ---- */

/* Length of the valid sequence at s[0..n), or 0 when it is invalid; *bad
 * gets the length of its maximal valid prefix (at least 1). */
static size_t utf8_seq(const unsigned char *s, size_t n, size_t *bad)
{
	unsigned char c = s[0], lo = 0x80, hi = 0xBF;
	size_t len, i;

	*bad = 1;
	if (c < 0x80)
		return 1;
	if (c >= 0xC2 && c <= 0xDF)
		len = 2;
	else if (c >= 0xE0 && c <= 0xEF)
		len = 3;
	else if (c >= 0xF0 && c <= 0xF4)
		len = 4;
	else
		return 0;
	if (c == 0xE0)
		lo = 0xA0;
	else if (c == 0xED)
		hi = 0x9F;
	else if (c == 0xF0)
		lo = 0x90;
	else if (c == 0xF4)
		hi = 0x8F;
	for (i = 1; i < len; i++) {
		if (i >= n || s[i] < lo || s[i] > hi)
			return 0;
		lo = 0x80;
		hi = 0xBF;
		*bad = i + 1;
	}
	return len;
}

static bool utf8_valid(const unsigned char *s, size_t n)
{
	size_t i = 0, bad, k;

	while (i < n) {
		if (s[i] < 0x80) {
			i++;
			continue;
		}
		k = utf8_seq(s + i, n - i, &bad);
		if (!k)
			return false;
		i += k;
	}
	return true;
}

/* Writes the sanitised form of s[0..n) to out (room for 3 * n bytes);
 * returns its length. */
static size_t utf8_sanitise(const unsigned char *s, size_t n, char *out)
{
	size_t i = 0, o = 0, bad;

	while (i < n) {
		size_t k = utf8_seq(s + i, n - i, &bad);
		if (k) {
			memcpy(out + o, s + i, k);
			o += k;
			i += k;
		} else {
			memcpy(out + o, "\xEF\xBF\xBD", 3);
			o += 3;
			i += bad;
		}
	}
	return o;
}

/* ---- an arena for sanitised copies (blocks never move) ---- */

struct arena_block {
	struct arena_block *next;
	size_t used, size;
	char data[];
};

static char *arena_alloc(struct arena_block **head, size_t n)
{
	struct arena_block *b = *head;

	if (!b || b->size - b->used < n) {
		size_t size = n > 65536 ? n : 65536;
		if (size > SIZE_MAX - sizeof(*b))
			return NULL;
		b = mem_alloc(sizeof(*b) + size);
		if (!b)
			return NULL;
		b->next = *head;
		b->used = 0;
		b->size = size;
		*head = b;
	}
	b->used += n;
	return b->data + b->used - n;
}

static void arena_free(struct arena_block *b)
{
	while (b) {
		struct arena_block *next = b->next;
		mem_free(b);
		b = next;
	}
}

/* ---- hash tables: strings by content, model ids -> string ids ---- */

static uint32_t hash_bytes(struct strview v)
{
	uint64_t h = 1469598103934665603ull;

	for (size_t i = 0; i < v.len; i++)
		h = (h ^ (unsigned char)v.ptr[i]) * 1099511628211ull;
	return (uint32_t)(h ^ (h >> 32));
}

static size_t hash_u32(uint32_t k)
{
	return (size_t)(((uint64_t)k * 0x9E3779B97F4A7C15ull) >> 32);
}

struct strent {
	struct strview v; /* stays valid during the encode */
	uint32_t hash;
};

struct strtab {
	struct strent *s; /* by id */
	size_t n, cap;
	uint32_t *slot; /* id + 1; 0 = free */
	size_t nslot;   /* a power of two */
};

static enum status strtab_rehash(struct strtab *t, size_t nslot)
{
	uint32_t *slot = mem_calloc(nslot, sizeof(*slot));

	if (!slot)
		return STATUS_NOMEM;
	for (size_t id = 0; id < t->n; id++) {
		size_t j = t->s[id].hash & (nslot - 1);
		while (slot[j])
			j = (j + 1) & (nslot - 1);
		slot[j] = (uint32_t)id + 1;
	}
	mem_free(t->slot);
	t->slot = slot;
	t->nslot = nslot;
	return STATUS_OK;
}

static enum status strtab_intern(struct strtab *t, struct strview v,
                                 uint32_t *id)
{
	uint32_t h = hash_bytes(v);
	size_t j;

	if ((t->n + 1) * 2 > t->nslot) {
		if (t->nslot > SIZE_MAX / 4 ||
		    strtab_rehash(t, t->nslot ? t->nslot * 2 : 1024))
			return STATUS_NOMEM;
	}
	for (j = h & (t->nslot - 1); t->slot[j]; j = (j + 1) & (t->nslot - 1)) {
		uint32_t k = t->slot[j] - 1;
		if (t->s[k].hash == h && sv_eq(t->s[k].v, v)) {
			*id = k;
			return STATUS_OK;
		}
	}
	if (t->n >= UINT32_MAX - 1 ||
	    mem_grow(&t->s, &t->cap, t->n + 1, sizeof(*t->s)))
		return STATUS_NOMEM;
	t->s[t->n].v = v;
	t->s[t->n].hash = h;
	t->slot[j] = (uint32_t)t->n + 1;
	*id = (uint32_t)t->n++;
	return STATUS_OK;
}

static void strtab_fini(struct strtab *t)
{
	mem_free(t->s);
	mem_free(t->slot);
}

struct u32map {
	uint32_t *key, *val; /* val UINT32_MAX = free */
	size_t n, nslot;
};

static enum status u32map_rehash(struct u32map *m, size_t nslot)
{
	uint32_t *key = mem_alloc(nslot * sizeof(*key));
	uint32_t *val = mem_alloc(nslot * sizeof(*val));

	if (!key || !val) {
		mem_free(key);
		mem_free(val);
		return STATUS_NOMEM;
	}
	memset(val, 0xFF, nslot * sizeof(*val));
	for (size_t i = 0; i < m->nslot; i++) {
		if (m->val[i] == UINT32_MAX)
			continue;
		size_t j = hash_u32(m->key[i]) & (nslot - 1);
		while (val[j] != UINT32_MAX)
			j = (j + 1) & (nslot - 1);
		key[j] = m->key[i];
		val[j] = m->val[i];
	}
	mem_free(m->key);
	mem_free(m->val);
	m->key = key;
	m->val = val;
	m->nslot = nslot;
	return STATUS_OK;
}

/* The slot of k: its value, or UINT32_MAX where it would go. */
static size_t u32map_slot(const struct u32map *m, uint32_t k)
{
	size_t j = hash_u32(k) & (m->nslot - 1);

	while (m->val[j] != UINT32_MAX && m->key[j] != k)
		j = (j + 1) & (m->nslot - 1);
	return j;
}

static void u32map_fini(struct u32map *m)
{
	mem_free(m->key);
	mem_free(m->val);
}

/* ---- the encoder's state ---- */

/* One output sample: a (sanitised stack, sanitised task) pair made of the
 * window entries order[start .. start + count) (entry k itself when order
 * is NULL). */
struct osample {
	uint32_t group; /* output stack number, in sorted order */
	uint32_t row;   /* a row with that stack (for its frames) */
	uint32_t name;  /* string id of the task; UINT32_MAX with omit_task */
	uint32_t start, count;
};

/* A row, for sorting by its stack's frame ranks. */
struct rowkey {
	const uint32_t *rank;
	uint32_t depth, row;
};

/* A string, for sorting by content. */
struct strkey {
	struct strview v;
	uint32_t id;
};

enum fixed { /* strings interned first, in this (the table's) order */
	     FX_EMPTY,
	     FX_POLLS,
	     FX_COUNT,
	     FX_WAKES,
	     FX_BUSY,
	     FX_NANOS,
	     FX_SCHED,
	     FX_IDLE,
	     FX_TASK,
	     FX_TASKS,
	     FX_FILENAME,
	     FX_NOSTACK,
	     FX_UNKNOWN,
	     FX_UNNAMED,
	     FX_COUNT_
};

struct enc {
	const struct model *m;
	const struct window *w;
	bool omit;
	struct arena_block *arena;
	struct strtab st;
	uint32_t fx[FX_COUNT_]; /* string ids of the fixed strings */
	struct u32map frames, names;
	size_t *rowoff;  /* nrows + 1: row r's frames are fr[rowoff[r]..] */
	uint32_t *fr;    /* string ids, root first */
	uint32_t *ename; /* per entry: string id of its task name */
	uint32_t *order; /* entries in output order; NULL: as in the window */
	struct osample *os;
	size_t nos, nlocs;
	uint32_t *fidx; /* string id -> final string index; UINT32_MAX */
	uint32_t *func; /* string id -> function id; 0 = none */
	uint32_t *strs; /* final string index -> string id */
	size_t nstrs;
	uint32_t *funcs; /* function id - 1 -> string id */
	size_t nfuncs;
};

static void *alloc_array(size_t n, size_t size)
{
	return mem_realloc_array(NULL, n ? n : 1, size);
}

/* The string id of the sanitised form of v. */
static enum status intern_sanitised(struct enc *e, struct strview v,
                                    uint32_t *id)
{
	const unsigned char *p = (const unsigned char *)v.ptr;

	if (!utf8_valid(p, v.len)) {
		char *d;
		if (v.len > SIZE_MAX / 3)
			return STATUS_NOMEM;
		d = arena_alloc(&e->arena, v.len * 3);
		if (!d)
			return STATUS_NOMEM;
		v = sv_n(d, utf8_sanitise(p, v.len, d));
	}
	return strtab_intern(&e->st, v, id);
}

/* The string id of frame (or task name) key, sanitised once per id. */
static enum status map_id(struct enc *e, bool frame, uint32_t key, uint32_t *id)
{
	struct u32map *map = frame ? &e->frames : &e->names;
	struct strview v;
	size_t j;
	enum status st;

	if ((map->n + 1) * 2 > map->nslot &&
	    u32map_rehash(map, map->nslot ? map->nslot * 2 : 1024))
		return STATUS_NOMEM;
	j = u32map_slot(map, key);
	if (map->val[j] != UINT32_MAX) {
		*id = map->val[j];
		return STATUS_OK;
	}
	v = frame ? model_frame(e->m, key) : model_name(e->m, key);
	if (v.len == 0)
		*id = e->fx[frame ? FX_UNKNOWN : FX_UNNAMED];
	else if ((st = intern_sanitised(e, v, id)) != STATUS_OK)
		return st;
	map->key[j] = key;
	map->val[j] = *id;
	map->n++;
	return STATUS_OK;
}

static enum status intern_fixed(struct enc *e)
{
	static const char *const fixed[FX_COUNT_] = {
		[FX_EMPTY] = "",
		[FX_POLLS] = "polls",
		[FX_COUNT] = "count",
		[FX_WAKES] = "wakes",
		[FX_BUSY] = "busy",
		[FX_NANOS] = "nanoseconds",
		[FX_SCHED] = "scheduled",
		[FX_IDLE] = "idle",
		[FX_TASK] = "task",
		[FX_TASKS] = "tasks",
		[FX_FILENAME] = "asynctop",
	};
	struct strview v;

	for (int i = 0; i < FX_COUNT_; i++) {
		if (i == FX_NOSTACK)
			v = reserved_name(RESERVED_NO_STACK);
		else if (i == FX_UNKNOWN)
			v = reserved_name(RESERVED_UNKNOWN_FRAME);
		else if (i == FX_UNNAMED)
			v = reserved_name(RESERVED_UNNAMED);
		else
			v = sv_c(fixed[i]);
		if (strtab_intern(&e->st, v, &e->fx[i]))
			return STATUS_NOMEM;
	}
	return STATUS_OK;
}

/* Sanitised string ids of every row's frames and every entry's name. */
static enum status collect(struct enc *e)
{
	const struct window *w = e->w;
	const uint32_t **ids;
	size_t total = 0, depth, r, k;
	enum status st = STATUS_OK;

	e->rowoff = alloc_array(w->nrows + 1, sizeof(*e->rowoff));
	ids = alloc_array(w->nrows, sizeof(*ids));
	if (!e->rowoff || !ids) {
		mem_free(ids);
		return STATUS_NOMEM;
	}
	for (r = 0; r < w->nrows; r++) {
		ids[r] = model_stack(e->m, w->rows[r].stack, &depth);
		if (!ids[r] || !depth) {
			ids[r] = NULL;
			depth = 0;
		}
		e->rowoff[r] = total;
		total += depth ? depth : 1; /* [no spawn stack] */
	}
	e->rowoff[w->nrows] = total;
	e->fr = alloc_array(total, sizeof(*e->fr));
	for (r = 0; e->fr && r < w->nrows && st == STATUS_OK; r++) {
		uint32_t *out = e->fr + e->rowoff[r];
		depth = e->rowoff[r + 1] - e->rowoff[r];
		if (!ids[r]) {
			out[0] = e->fx[FX_NOSTACK];
			continue;
		}
		/* Sorted rows share their root side: reuse the row before's
		 * ids while the frames are the same. */
		size_t same = 0;
		if (r > 0 && ids[r - 1]) {
			size_t prev = e->rowoff[r] - e->rowoff[r - 1];
			while (same < depth && same < prev &&
			       ids[r][same] == ids[r - 1][same]) {
				out[same] = e->fr[e->rowoff[r - 1] + same];
				same++;
			}
		}
		for (k = same; k < depth && st == STATUS_OK; k++)
			st = map_id(e, true, ids[r][k], &out[k]);
	}
	mem_free(ids);
	if (!e->fr)
		return STATUS_NOMEM;
	if (st || e->omit)
		return st;
	e->ename = alloc_array(w->nentries, sizeof(*e->ename));
	if (!e->ename)
		return STATUS_NOMEM;
	for (k = 0; k < w->nentries; k++) {
		st = map_id(e, false, w->entries[k].name, &e->ename[k]);
		if (st)
			return st;
	}
	return STATUS_OK;
}

static struct strview str_of(const struct enc *e, uint32_t id)
{
	return e->st.s[id].v;
}

/* Byte-wise order of the sanitised stack texts of rows a and b. */
static int cmp_row_text(const struct enc *e, size_t a, size_t b)
{
	size_t na = e->rowoff[a + 1] - e->rowoff[a];
	size_t nb = e->rowoff[b + 1] - e->rowoff[b];
	const uint32_t *fa = e->fr + e->rowoff[a], *fb = e->fr + e->rowoff[b];

	for (size_t i = 0; i < na && i < nb; i++) {
		int c = fa[i] == fb[i]
		            ? 0
		            : sv_cmp(str_of(e, fa[i]), str_of(e, fb[i]));
		if (c)
			return c;
	}
	return (na > nb) - (na < nb);
}

/* True when the window's canonical order (rows by stack text, entries by
 * name) is already strictly ascending over the sanitised strings, so no
 * sort and no merge is needed: the usual case. */
static bool window_in_order(const struct enc *e)
{
	const struct window *w = e->w;

	for (size_t r = 1; r < w->nrows; r++) {
		if (cmp_row_text(e, r - 1, r) >= 0)
			return false;
	}
	if (e->omit)
		return true;
	for (size_t r = 0; r < w->nrows; r++) {
		const struct fold_row *row = &w->rows[r];
		for (uint32_t j = 1; j < row->count; j++) {
			uint32_t a = e->ename[row->first + j - 1];
			uint32_t b = e->ename[row->first + j];
			if (a == b || sv_cmp(str_of(e, a), str_of(e, b)) >= 0)
				return false;
		}
	}
	return true;
}

static uint32_t entry_at(const struct enc *e, size_t k)
{
	return e->order ? e->order[k] : (uint32_t)k;
}

/* Appends the output sample of entries [start, start + count) of the
 * output order, unless all their values are zero. */
static bool add_osample(struct enc *e, uint32_t group, uint32_t row,
                        uint32_t name, size_t start, size_t count)
{
	bool zero = true;

	for (size_t k = start; k < start + count && zero; k++)
		zero = metrics_zero(&e->w->entries[entry_at(e, k)].m);
	if (zero)
		return false;
	e->os[e->nos].group = group;
	e->os[e->nos].row = row;
	e->os[e->nos].name = name;
	e->os[e->nos].start = (uint32_t)start;
	e->os[e->nos].count = (uint32_t)count;
	e->nos++;
	return true;
}

/* The usual case: one output sample per entry (or per row, omit_task). */
static void samples_in_order(struct enc *e)
{
	const struct window *w = e->w;
	uint32_t group = 0;

	for (uint32_t r = 0; r < w->nrows; r++) {
		const struct fold_row *row = &w->rows[r];
		bool any = false;
		if (e->omit) {
			any = add_osample(e, group, r, UINT32_MAX, row->first,
			                  row->count);
		} else {
			for (uint32_t j = 0; j < row->count; j++)
				any |= add_osample(e, group, r,
				                   e->ename[row->first + j],
				                   row->first + j, 1);
		}
		if (any) {
			e->nlocs += e->rowoff[r + 1] - e->rowoff[r];
			group++;
		}
	}
}

static int cmp_strkey(const void *a, const void *b)
{
	const struct strkey *x = a, *y = b;

	return sv_cmp(x->v, y->v);
}

static int cmp_rowkey(const void *a, const void *b)
{
	const struct rowkey *x = a, *y = b;
	uint32_t n = x->depth < y->depth ? x->depth : y->depth;

	for (uint32_t i = 0; i < n; i++) {
		if (x->rank[i] != y->rank[i])
			return x->rank[i] < y->rank[i] ? -1 : 1;
	}
	if (x->depth != y->depth)
		return x->depth < y->depth ? -1 : 1;
	return (x->row > y->row) - (x->row < y->row);
}

static bool same_stack(const struct rowkey *x, const struct rowkey *y)
{
	return x->depth == y->depth &&
	       !memcmp(x->rank, y->rank, x->depth * sizeof(*x->rank));
}

static int cmp_u64(const void *a, const void *b)
{
	const uint64_t *x = a, *y = b;

	return (*x > *y) - (*x < *y);
}

/* Sorts a[0..n): insertion for the short runs typical of one stack. */
static void sort_u64(uint64_t *a, size_t n)
{
	if (n > 24) {
		qsort(a, n, sizeof(*a), cmp_u64);
		return;
	}
	for (size_t i = 1; i < n; i++) {
		uint64_t v = a[i];
		size_t j = i;
		for (; j > 0 && a[j - 1] > v; j--)
			a[j] = a[j - 1];
		a[j] = v;
	}
}

/* The general case, after sanitising made texts equal or changed their
 * order: rank every string, sort the rows by their frames' ranks, merge
 * rows that read the same, and merge and sort their entries by name. */
struct sorter {
	uint32_t *rank; /* per string id: its place in byte-wise order */
	uint32_t *frk;  /* fr as ranks */
	struct rowkey *rk;
	uint64_t *keys; /* name rank << 32 | entry, per group */
};

static enum status rank_strings(const struct enc *e, struct sorter *s)
{
	size_t n = e->st.n;
	struct strkey *k = alloc_array(n, sizeof(*k));

	s->rank = alloc_array(n, sizeof(*s->rank));
	if (!k || !s->rank) {
		mem_free(k);
		return STATUS_NOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		k[i].v = e->st.s[i].v;
		k[i].id = (uint32_t)i;
	}
	qsort(k, n, sizeof(*k), cmp_strkey);
	for (size_t i = 0; i < n; i++)
		s->rank[k[i].id] = (uint32_t)i;
	mem_free(k);
	return STATUS_OK;
}

static void merge_group(struct enc *e, struct sorter *s, size_t from, size_t to,
                        uint32_t group, size_t *used)
{
	const struct window *w = e->w;
	size_t n = 0, i, j, base = *used;
	bool any = false;

	for (i = from; i < to; i++) {
		const struct fold_row *row = &w->rows[s->rk[i].row];
		for (uint32_t k = 0; k < row->count; k++) {
			uint32_t ent = row->first + k;
			uint64_t r = e->omit ? 0 : s->rank[e->ename[ent]];
			s->keys[n++] = r << 32 | ent;
		}
	}
	sort_u64(s->keys, n);
	for (i = 0; i < n; i++)
		e->order[base + i] = (uint32_t)s->keys[i];
	*used += n;
	for (i = 0; i < n; i = j) {
		for (j = i + 1; j < n && s->keys[j] >> 32 == s->keys[i] >> 32;
		     j++)
			;
		any |= add_osample(e, group, s->rk[from].row,
		                   e->omit ? UINT32_MAX
		                           : e->ename[e->order[base + i]],
		                   base + i, j - i);
	}
	if (any)
		e->nlocs += s->rk[from].depth;
}

/* Sorts the rows by stack, then merges each run of equal stacks. */
static void sort_rows(struct enc *e, struct sorter *s)
{
	const struct window *w = e->w;
	size_t r, from, used = 0, nfr = e->rowoff[w->nrows];
	uint32_t group = 0;

	for (size_t i = 0; i < nfr; i++)
		s->frk[i] = s->rank[e->fr[i]];
	for (r = 0; r < w->nrows; r++) {
		s->rk[r].rank = s->frk + e->rowoff[r];
		s->rk[r].depth = (uint32_t)(e->rowoff[r + 1] - e->rowoff[r]);
		s->rk[r].row = (uint32_t)r;
	}
	qsort(s->rk, w->nrows, sizeof(*s->rk), cmp_rowkey);
	for (from = 0; from < w->nrows; from = r) {
		size_t before = e->nos;
		for (r = from + 1;
		     r < w->nrows && same_stack(&s->rk[from], &s->rk[r]); r++)
			;
		merge_group(e, s, from, r, group, &used);
		if (e->nos > before)
			group++;
	}
}

static enum status samples_sorted(struct enc *e)
{
	const struct window *w = e->w;
	struct sorter s;
	enum status st;

	memset(&s, 0, sizeof(s));
	st = rank_strings(e, &s);
	if (st == STATUS_OK) {
		s.frk = alloc_array(e->rowoff[w->nrows], sizeof(*s.frk));
		s.rk = alloc_array(w->nrows, sizeof(*s.rk));
		s.keys = alloc_array(w->nentries, sizeof(*s.keys));
		e->order = alloc_array(w->nentries, sizeof(*e->order));
		if (!s.frk || !s.rk || !s.keys || !e->order)
			st = STATUS_NOMEM;
	}
	if (st == STATUS_OK)
		sort_rows(e, &s);
	mem_free(s.rank);
	mem_free(s.frk);
	mem_free(s.rk);
	mem_free(s.keys);
	return st;
}

static enum status build_samples(struct enc *e)
{
	e->os = alloc_array(e->w->nentries, sizeof(*e->os));
	if (!e->os)
		return STATUS_NOMEM;
	if (window_in_order(e)) {
		samples_in_order(e);
		return STATUS_OK;
	}
	return samples_sorted(e);
}

static void use_string(struct enc *e, uint32_t id)
{
	if (e->fidx[id] == UINT32_MAX) {
		e->fidx[id] = (uint32_t)e->nstrs;
		e->strs[e->nstrs++] = id;
	}
}

/* The fixed walk that numbers strings and functions by first use: the
 * header strings, the comments, then each sample in order: its frames
 * root first, then its task name. */
static enum status number(struct enc *e, uint32_t *comments)
{
	const struct window_meta *meta = &e->w->meta;
	size_t n;
	static const enum fixed head[] = {
		FX_EMPTY, FX_POLLS, FX_COUNT, FX_WAKES, FX_BUSY,     FX_NANOS,
		FX_SCHED, FX_IDLE,  FX_TASK,  FX_TASKS, FX_FILENAME,
	};

	for (size_t i = 0; i < meta->ncomments; i++) {
		const char *c = meta->comments ? meta->comments[i] : NULL;
		enum status st = intern_sanitised(e, sv_c(c), &comments[i]);
		if (st)
			return st;
	}
	n = e->st.n;
	e->fidx = alloc_array(n, sizeof(*e->fidx));
	e->func = mem_calloc(n, sizeof(*e->func));
	e->strs = alloc_array(n, sizeof(*e->strs));
	e->funcs = alloc_array(n, sizeof(*e->funcs));
	if (!e->fidx || !e->func || !e->strs || !e->funcs)
		return STATUS_NOMEM;
	memset(e->fidx, 0xFF, n * sizeof(*e->fidx));
	for (size_t i = 0; i < ARRAY_SIZE(head); i++) {
		if (head[i] != FX_TASK || !e->omit)
			use_string(e, e->fx[head[i]]);
	}
	for (size_t i = 0; i < meta->ncomments; i++)
		use_string(e, comments[i]);
	for (size_t i = 0; i < e->nos; i++) {
		const struct osample *o = &e->os[i];
		if (i == 0 || o->group != e->os[i - 1].group) {
			size_t a = e->rowoff[o->row], b = e->rowoff[o->row + 1];
			for (size_t k = a; k < b; k++) {
				uint32_t id = e->fr[k];
				if (!e->func[id]) {
					e->funcs[e->nfuncs++] = id;
					e->func[id] = (uint32_t)e->nfuncs;
					use_string(e, id);
				}
			}
		}
		if (!e->omit)
			use_string(e, o->name);
	}
	return STATUS_OK;
}

static int64_t clamp64(uint64_t v)
{
	return v > INT64_MAX ? INT64_MAX : (int64_t)v;
}

/* Samples are packed in batches of this many, each as a Profile message
 * holding only them: protobuf-c writes fields in number order, so the
 * parts (sample types; the batches; everything else) concatenate to the
 * same bytes as one message, without 100k structures alive at once. */
enum { BATCH = 4096, SHARED_COUNTS = 64 };

/* The protobuf-c structures. */
struct msg {
	Perftools__Profiles__Profile p;
	Perftools__Profiles__ValueType types[PPROF_NTYPES + 1];
	Perftools__Profiles__ValueType *typep[PPROF_NTYPES];
	Perftools__Profiles__Mapping map;
	Perftools__Profiles__Mapping *mapp;
	ProtobufCBinaryData *strtab;
	char *strbytes;
	Perftools__Profiles__Function *fn;
	Perftools__Profiles__Function **fnp;
	Perftools__Profiles__Location *loc;
	Perftools__Profiles__Location **locp;
	Perftools__Profiles__Line *line;
	Perftools__Profiles__Line **linep;
	int64_t *comment;
	/* one batch of samples */
	Perftools__Profiles__Sample smp[BATCH], *smpp[BATCH];
	int64_t values[BATCH * PPROF_NTYPES];
	Perftools__Profiles__Label *labp[BATCH * 2];
	Perftools__Profiles__Label nlab[BATCH]; /* large tasks counts */
	/* shared labels */
	Perftools__Profiles__Label *tlab; /* task, by string index */
	unsigned char *tlab_set;
	Perftools__Profiles__Label clab[SHARED_COUNTS]; /* small counts */
	uint64_t *locids; /* per stack, leaf first */
};

static void msg_free(struct msg *g)
{
	mem_free(g->strtab);
	mem_free(g->strbytes);
	mem_free(g->fn);
	mem_free(g->fnp);
	mem_free(g->loc);
	mem_free(g->locp);
	mem_free(g->line);
	mem_free(g->linep);
	mem_free(g->comment);
	mem_free(g->tlab);
	mem_free(g->tlab_set);
	mem_free(g->locids);
	mem_free(g);
}

static int64_t sidx(const struct enc *e, enum fixed f)
{
	return e->fidx[e->fx[f]];
}

/* Appends p packed to out. */
static enum status pack_part(const Perftools__Profiles__Profile *p,
                             struct buf *out)
{
	size_t size = perftools__profiles__profile__get_packed_size(p);

	if (buf_reserve(out, size) != STATUS_OK)
		return buf_status(out);
	size = perftools__profiles__profile__pack(p, (uint8_t *)out->data +
	                                                 out->len);
	out->len += size;
	out->data[out->len] = '\0';
	return STATUS_OK;
}

static void build_types(struct enc *e, struct msg *g)
{
	static const enum fixed names[PPROF_NTYPES] = {
		FX_POLLS, FX_WAKES, FX_BUSY, FX_SCHED, FX_IDLE,
	};

	for (size_t t = 0; t <= PPROF_NTYPES; t++)
		perftools__profiles__value_type__init(&g->types[t]);
	for (size_t t = 0; t < PPROF_NTYPES; t++) {
		g->types[t].type = sidx(e, names[t]);
		g->types[t].unit =
		    sidx(e, metric_is_duration(type_metric[t]) ? FX_NANOS
		                                               : FX_COUNT);
		g->typep[t] = &g->types[t];
	}
	g->types[PPROF_NTYPES].type = sidx(e, FX_POLLS);
	g->types[PPROF_NTYPES].unit = sidx(e, FX_COUNT);
}

static enum status build_strings(struct enc *e, struct msg *g)
{
	size_t bytes = 0, off = 0;

	for (size_t i = 0; i < e->nstrs; i++)
		bytes += e->st.s[e->strs[i]].v.len;
	g->strtab = alloc_array(e->nstrs, sizeof(*g->strtab));
	g->strbytes = alloc_array(bytes, 1);
	if (!g->strtab || !g->strbytes)
		return STATUS_NOMEM;
	for (size_t i = 0; i < e->nstrs; i++) {
		struct strview v = e->st.s[e->strs[i]].v;
		if (v.len)
			memcpy(g->strbytes + off, v.ptr, v.len);
		g->strtab[i].data = (uint8_t *)g->strbytes + off;
		g->strtab[i].len = v.len;
		off += v.len;
	}
	g->p.n_string_table = e->nstrs;
	g->p.string_table = g->strtab;
	return STATUS_OK;
}

static enum status build_functions(struct enc *e, struct msg *g)
{
	size_t n = e->nfuncs;

	g->fn = alloc_array(n, sizeof(*g->fn));
	g->fnp = alloc_array(n, sizeof(*g->fnp));
	g->loc = alloc_array(n, sizeof(*g->loc));
	g->locp = alloc_array(n, sizeof(*g->locp));
	g->line = alloc_array(n, sizeof(*g->line));
	g->linep = alloc_array(n, sizeof(*g->linep));
	if (!g->fn || !g->fnp || !g->loc || !g->locp || !g->line || !g->linep)
		return STATUS_NOMEM;
	for (size_t i = 0; i < n; i++) {
		perftools__profiles__function__init(&g->fn[i]);
		g->fn[i].id = i + 1;
		g->fn[i].name = e->fidx[e->funcs[i]];
		g->fn[i].system_name = g->fn[i].name;
		g->fnp[i] = &g->fn[i];
		perftools__profiles__line__init(&g->line[i]);
		g->line[i].function_id = i + 1;
		g->linep[i] = &g->line[i];
		perftools__profiles__location__init(&g->loc[i]);
		g->loc[i].id = i + 1;
		g->loc[i].mapping_id = 1;
		g->loc[i].n_line = 1;
		g->loc[i].line = &g->linep[i];
		g->locp[i] = &g->loc[i];
	}
	g->p.n_function = n;
	g->p.function = g->fnp;
	g->p.n_location = n;
	g->p.location = g->locp;
	return STATUS_OK;
}

/* Labels are shared: one per task name, one per small tasks count. */
static Perftools__Profiles__Label *task_label(struct enc *e, struct msg *g,
                                              uint32_t name)
{
	Perftools__Profiles__Label *l = &g->tlab[e->fidx[name]];

	if (!g->tlab_set[e->fidx[name]]) {
		g->tlab_set[e->fidx[name]] = 1;
		perftools__profiles__label__init(l);
		l->key = sidx(e, FX_TASK);
		l->str = e->fidx[name];
	}
	return l;
}

static Perftools__Profiles__Label *tasks_label(struct enc *e, struct msg *g,
                                               uint64_t tasks, size_t i)
{
	Perftools__Profiles__Label *l;

	if (tasks < SHARED_COUNTS) {
		l = &g->clab[tasks];
		if (l->key)
			return l;
	} else {
		l = &g->nlab[i];
	}
	perftools__profiles__label__init(l);
	l->key = sidx(e, FX_TASKS);
	l->num = clamp64(tasks);
	l->num_unit = sidx(e, FX_TASKS);
	return l;
}

/* Location ids of every output stack, leaf first; os[i] then finds its
 * own at locids + offset, kept in li across batches. */
static enum status build_locids(struct enc *e, struct msg *g)
{
	size_t li = 0;

	g->locids = alloc_array(e->nlocs, sizeof(*g->locids));
	g->tlab = alloc_array(e->nstrs, sizeof(*g->tlab));
	g->tlab_set = mem_calloc(e->nstrs, 1);
	if (!g->locids || !g->tlab || !g->tlab_set)
		return STATUS_NOMEM;
	for (size_t i = 0; i < e->nos; i++) {
		const struct osample *o = &e->os[i];
		size_t a = e->rowoff[o->row], b = e->rowoff[o->row + 1];
		if (i > 0 && o->group == e->os[i - 1].group)
			continue;
		for (size_t k = b; k > a; k--)
			g->locids[li++] = e->func[e->fr[k - 1]];
	}
	return STATUS_OK;
}

/* Fills the batch with samples [from, from + n); *li tracks where the
 * current stack's location ids start. */
static void build_batch(struct enc *e, struct msg *g, size_t from, size_t n,
                        size_t *li)
{
	size_t nl = e->omit ? 1 : 2;

	for (size_t b = 0; b < n; b++) {
		size_t i = from + b;
		const struct osample *o = &e->os[i];
		Perftools__Profiles__Sample *s = &g->smp[b];
		Perftools__Profiles__Label **lp = &g->labp[b * nl];
		size_t depth = e->rowoff[o->row + 1] - e->rowoff[o->row];
		const struct fold_entry *en =
		    &e->w->entries[entry_at(e, o->start)];
		struct metrics sum = en->m;
		uint64_t tasks = en->tasks;

		for (size_t k = o->start + 1; k < o->start + o->count; k++) {
			en = &e->w->entries[entry_at(e, k)];
			metrics_add(&sum, &en->m);
			tasks = u64_add_sat(tasks, en->tasks);
		}
		if (i > 0 && o->group != e->os[i - 1].group)
			*li += e->rowoff[e->os[i - 1].row + 1] -
			       e->rowoff[e->os[i - 1].row];
		perftools__profiles__sample__init(s);
		s->n_location_id = depth;
		s->location_id = g->locids + *li;
		s->n_value = PPROF_NTYPES;
		s->value = g->values + b * PPROF_NTYPES;
		for (size_t t = 0; t < PPROF_NTYPES; t++)
			s->value[t] = clamp64(sum.v[type_metric[t]]);
		if (!e->omit)
			lp[0] = task_label(e, g, o->name);
		lp[nl - 1] = tasks_label(e, g, tasks, b);
		s->n_label = nl;
		s->label = lp;
		g->smpp[b] = s;
	}
}

/* The tail part: every field after the samples. */
static enum status build_tail(struct enc *e, struct msg *g,
                              const uint32_t *comments)
{
	const struct window_meta *meta = &e->w->meta;
	enum status st;

	perftools__profiles__profile__init(&g->p);
	g->p.period_type = &g->types[PPROF_NTYPES];
	g->p.period = 1;
	g->p.default_sample_type = sidx(e, FX_IDLE);
	g->p.time_nanos = meta->time_nanos;
	g->p.duration_nanos = meta->duration_nanos;
	perftools__profiles__mapping__init(&g->map);
	g->map.id = 1;
	g->map.filename = sidx(e, FX_FILENAME);
	g->map.has_functions = 1;
	g->mapp = &g->map;
	g->p.n_mapping = 1;
	g->p.mapping = &g->mapp;
	if (meta->ncomments) {
		g->comment = alloc_array(meta->ncomments, sizeof(*g->comment));
		if (!g->comment)
			return STATUS_NOMEM;
		for (size_t i = 0; i < meta->ncomments; i++)
			g->comment[i] = e->fidx[comments[i]];
		g->p.n_comment = meta->ncomments;
		g->p.comment = g->comment;
	}
	if ((st = build_strings(e, g)) || (st = build_functions(e, g)))
		return st;
	return STATUS_OK;
}

static enum status emit(struct enc *e, struct msg *g, const uint32_t *comments,
                        struct buf *out)
{
	size_t li = 0;
	enum status st;

	build_types(e, g);
	perftools__profiles__profile__init(&g->p);
	g->p.n_sample_type = PPROF_NTYPES;
	g->p.sample_type = g->typep;
	if ((st = pack_part(&g->p, out)) || (st = build_locids(e, g)))
		return st;
	for (size_t from = 0; from < e->nos; from += BATCH) {
		size_t n = e->nos - from < BATCH ? e->nos - from : BATCH;
		build_batch(e, g, from, n, &li);
		perftools__profiles__profile__init(&g->p);
		g->p.n_sample = n;
		g->p.sample = g->smpp;
		if ((st = pack_part(&g->p, out)) != STATUS_OK)
			return st;
	}
	if ((st = build_tail(e, g, comments)) != STATUS_OK)
		return st;
	return pack_part(&g->p, out);
}

static enum status encode(struct enc *e, struct buf *out)
{
	size_t start = out->len;
	uint32_t *comments;
	struct msg *g;
	enum status st;

	if ((st = intern_fixed(e)) || (st = collect(e)) ||
	    (st = build_samples(e)))
		return st;
	if (e->nos == 0)
		return STATUS_EMPTY_WINDOW;
	comments = alloc_array(e->w->meta.ncomments, sizeof(*comments));
	g = mem_calloc(1, sizeof(*g));
	if (!comments || !g) {
		mem_free(comments);
		mem_free(g);
		return STATUS_NOMEM;
	}
	st = number(e, comments);
	if (!st)
		st = emit(e, g, comments, out);
	if (st && out->data) {
		out->len = start; /* nothing written */
		out->data[start] = '\0';
	}
	msg_free(g);
	mem_free(comments);
	return st;
}

enum status pprof_encode(const struct model *m, const struct window *w,
                         const struct pprof_opts *opts, struct buf *out)
{
	struct enc e;
	enum status st;

	if (!m || !w || !out)
		return STATUS_INVAL;
	if (buf_status(out))
		return buf_status(out);
	if (w->empty || w->nentries == 0 || w->nrows == 0)
		return STATUS_EMPTY_WINDOW;
	if (w->nentries > UINT32_MAX || w->nrows > UINT32_MAX)
		return STATUS_LIMIT;
	memset(&e, 0, sizeof(e));
	e.m = m;
	e.w = w;
	e.omit = opts && opts->omit_task;
	st = encode(&e, out);
	arena_free(e.arena);
	strtab_fini(&e.st);
	u32map_fini(&e.frames);
	u32map_fini(&e.names);
	mem_free(e.rowoff);
	mem_free(e.fr);
	mem_free(e.ename);
	mem_free(e.order);
	mem_free(e.os);
	mem_free(e.fidx);
	mem_free(e.func);
	mem_free(e.strs);
	mem_free(e.funcs);
	return st;
}
