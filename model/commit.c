/* Commit of the open window: canonical order of rows and entries, the
 * window's single block, the ring, and eviction past the bounds. */
#include "model/model.h"

#include <string.h>

#include "model/alloc.h"
#include "model/model_int.h"
#include "model/sort.h"

static int cmp_stack_keys(const void *ctx, uint32_t a, uint32_t b)
{
	const char *const *key = ctx;

	return model_key_cmp(key[a], key[b]);
}

static int cmp_name_keys(const void *ctx, uint32_t a, uint32_t b)
{
	const char *const *key = ctx;

	return sv_cmp(sv_n(key[a], intern_keylen(key[a])),
	              sv_n(key[b], intern_keylen(key[b])));
}

static bool add_size(size_t *acc, size_t n, size_t size)
{
	if (size && n > (SIZE_MAX - *acc) / size)
		return false;
	*acc += n * size;
	return true;
}

static bool align8(size_t *acc)
{
	if (*acc > SIZE_MAX - 7)
		return false;
	*acc = (*acc + 7) & ~(size_t)7;
	return true;
}

/* Bytes of a meta string as kept (with its NUL), 0 for NULL. */
static size_t meta_len(const struct model *m, const char *s)
{
	return s ? model_utf8_cut(s, strnlen(s, m->lim.max_name + 1),
	                          m->lim.max_name)
	         : 0;
}

static const char *meta_copy(const struct model *m, const char *s, char **at)
{
	size_t len = meta_len(m, s);
	char *d = *at;

	if (!s)
		return NULL;
	memcpy(d, s, len);
	d[len] = '\0';
	*at = d + len + 1;
	return d;
}

/* The scratch of one commit, n items each.  at[] lists the occupied
 * slots of the fold table; entry i below is m->fold[at[i]]. */
struct scratch {
	uint64_t *keys, *tkeys;
	const char **key;
	uint32_t *vals, *tvals, *srank, *nrank, *id, *cnt, *perm, *tmp, *byid,
	    *at;
};

static enum status scratch_new(struct scratch *sc, size_t n)
{
	char *p = mem_realloc_array(NULL, n ? n : 1,
	                            2 * sizeof(uint64_t) + sizeof(char *) +
	                                10 * sizeof(uint32_t));
	uint32_t **u32[] = { &sc->vals, &sc->tvals, &sc->srank, &sc->nrank,
		             &sc->id,   &sc->cnt,   &sc->perm,  &sc->tmp,
		             &sc->byid, &sc->at };

	if (!p)
		return STATUS_NOMEM;
	sc->keys = (uint64_t *)(void *)p;
	sc->tkeys = sc->keys + n;
	sc->key = (const char **)(void *)(sc->tkeys + n);
	*u32[0] = (uint32_t *)(void *)(sc->key + n);
	for (size_t i = 1; i < ARRAY_SIZE(u32); i++)
		*u32[i] = *u32[i - 1] + n;
	return STATUS_OK;
}

/* Ranks the distinct ids that field (stack or name) takes over the entries:
 * groups them by id (a radix sort), sorts the groups by their keys' text,
 * and writes each entry's rank into rank[].  sc->id and sc->cnt get each
 * group's id and size, and byid (may be NULL) its rank, in ascending id
 * order.  Returns the number of groups. */
static size_t rank_field(const struct model *m, struct scratch *sc, bool stacks,
                         uint32_t *rank, uint32_t *byid)
{
	const struct intern *t = stacks ? &m->stacks : &m->names;
	size_t n = m->nent, ng = 0;

	for (size_t i = 0; i < n; i++) {
		const struct fold_entry *e = &m->fold[sc->at[i]];
		sc->keys[i] = stacks ? e->stack : e->name;
		sc->vals[i] = (uint32_t)i;
	}
	sort_radix(sc->keys, sc->vals, sc->tkeys, sc->tvals, n);
	for (size_t i = 0; i < n; i++) {
		if (i == 0 || sc->keys[i] != sc->keys[i - 1]) {
			sc->cnt[ng] = 0;
			sc->id[ng++] = (uint32_t)sc->keys[i];
		}
		sc->cnt[ng - 1]++;
		rank[sc->vals[i]] = (uint32_t)(ng - 1);
	}
	for (size_t g = 0; g < ng; g++) {
		sc->key[g] = intern_slot(t, sc->id[g])->str;
		sc->perm[g] = (uint32_t)g;
	}
	sort_merge(sc->perm, sc->tmp, ng,
	           stacks ? cmp_stack_keys : cmp_name_keys, sc->key);
	for (size_t r = 0; r < ng; r++)
		sc->tmp[sc->perm[r]] = (uint32_t)r;
	for (size_t i = 0; i < n; i++)
		rank[i] = sc->tmp[rank[i]];
	if (byid)
		memcpy(byid, sc->tmp, ng * sizeof(*byid));
	return ng;
}

/* Sorts entry indices by (stack rank, name rank) into sc->vals; returns
 * the number of rows and, through *nnames, of distinct names (whose ids
 * and counts stay in sc->id and sc->cnt). */
static size_t rank_entries(const struct model *m, struct scratch *sc,
                           size_t *nnames)
{
	size_t nrows, j = 0;

	for (size_t i = 0; i < m->fold_cap; i++) {
		if (m->fold[i].stack)
			sc->at[j++] = (uint32_t)i;
	}
	nrows = rank_field(m, sc, true, sc->srank, sc->byid);
	*nnames = rank_field(m, sc, false, sc->nrank, NULL);
	for (size_t i = 0; i < m->nent; i++) {
		sc->keys[i] = (uint64_t)sc->srank[i] << 32 | sc->nrank[i];
		sc->vals[i] = (uint32_t)i;
	}
	sort_radix(sc->keys, sc->vals, sc->tkeys, sc->tvals, m->nent);
	return nrows;
}

/* Lays out the block; false on overflow. */
struct layout {
	size_t rows, entries, byid, comments, strings, total;
};

static bool plan(const struct model *m, const struct window_meta *meta,
                 size_t nrows, struct layout *l)
{
	size_t nc = meta && meta->comments ? meta->ncomments : 0;
	size_t sz = sizeof(struct window_priv);

	if (!align8(&sz))
		return false;
	l->rows = sz;
	if (!add_size(&sz, nrows, sizeof(struct fold_row)))
		return false;
	l->entries = sz;
	if (!add_size(&sz, m->nent, sizeof(struct fold_entry)))
		return false;
	l->byid = sz;
	if (!add_size(&sz, nrows, sizeof(uint32_t)) || !align8(&sz))
		return false;
	l->comments = sz;
	if (!add_size(&sz, nc, sizeof(char *)))
		return false;
	l->strings = sz;
	if (meta) {
		const char *one[2] = { meta->reason, meta->source };
		for (size_t i = 0; i < 2 + nc; i++) {
			const char *s = i < 2 ? one[i] : meta->comments[i - 2];
			if (s && !add_size(&sz, meta_len(m, s) + 1, 1))
				return false;
		}
	}
	l->total = sz;
	return true;
}

static void fill_meta(const struct model *m, struct window_meta *dst,
                      const struct window_meta *src, char *block,
                      const struct layout *l)
{
	char *at = block + l->strings;
	const char **c = (const char **)(void *)(block + l->comments);

	memset(dst, 0, sizeof(*dst));
	if (!src)
		return;
	*dst = *src;
	dst->reason = meta_copy(m, src->reason, &at);
	dst->source = meta_copy(m, src->source, &at);
	dst->ncomments = src->comments ? src->ncomments : 0;
	dst->comments = dst->ncomments ? c : NULL;
	for (size_t i = 0; i < dst->ncomments; i++)
		c[i] = meta_copy(m, src->comments[i], &at);
}

/* Fills rows and entries in order; each row's stack gets a reference per
 * entry. */
static void fill_rows(struct model *m, struct window *w, struct fold_row *rows,
                      struct fold_entry *entries, const struct scratch *sc)
{
	size_t nrows = 0;

	for (size_t i = 0; i < m->nent; i++) {
		const struct fold_entry *e = &m->fold[sc->at[sc->vals[i]]];
		struct fold_row *r;

		entries[i] = *e;
		if (nrows == 0 || rows[nrows - 1].stack != e->stack) {
			r = &rows[nrows++];
			memset(r, 0, sizeof(*r));
			r->stack = e->stack;
			r->first = (uint32_t)i;
		}
		r = &rows[nrows - 1];
		r->count++;
		r->tasks = u64_add_sat(r->tasks, e->tasks);
		metrics_add(&r->m, &e->m);
		w->tasks = u64_add_sat(w->tasks, e->tasks);
		metrics_add(&w->total, &e->m);
	}
	for (size_t r = 0; r < nrows; r++)
		intern_slot(&m->stacks, rows[r].stack)->refs += rows[r].count;
}

static enum status build(struct model *m, const struct window_meta *meta,
                         struct window_priv **out)
{
	struct scratch sc;
	struct layout l;
	size_t nrows;
	struct window_priv *wp;
	struct window *w;
	char *block;
	uint32_t *byid;
	size_t nnames;

	if (scratch_new(&sc, m->nent))
		return STATUS_NOMEM;
	nrows = rank_entries(m, &sc, &nnames);
	if (!plan(m, meta, nrows, &l) || !(block = mem_alloc(l.total))) {
		mem_free(sc.keys);
		return STATUS_NOMEM;
	}
	wp = (struct window_priv *)(void *)block;
	memset(wp, 0, sizeof(*wp));
	w = &wp->pub;
	w->rows = (const struct fold_row *)(void *)(block + l.rows);
	w->entries = (const struct fold_entry *)(void *)(block + l.entries);
	byid = (uint32_t *)(void *)(block + l.byid);
	/* Nothing fails from here: the entries' references are taken. */
	fill_rows(m, w, (struct fold_row *)(void *)(block + l.rows),
	          (struct fold_entry *)(void *)(block + l.entries), &sc);
	for (size_t g = 0; g < nnames; g++)
		intern_slot(&m->names, sc.id[g])->refs += sc.cnt[g];
	w->nrows = nrows;
	w->nentries = m->nent;
	if (nrows)
		memcpy(byid, sc.byid, nrows * sizeof(*byid));
	wp->byid = byid;
	mem_free(sc.keys);
	fill_meta(m, &w->meta, meta, block, &l);
	w->empty = m->nent == 0;
	w->stats = m->cur;
	w->bytes = l.total;
	*out = wp;
	return STATUS_OK;
}

static enum status ring_reserve(struct model *m)
{
	struct window_priv **nr;
	size_t ncap;

	if (m->count < m->ring_cap)
		return STATUS_OK;
	if (m->ring_cap > SIZE_MAX / 2 / sizeof(*nr))
		return STATUS_NOMEM;
	ncap = m->ring_cap ? m->ring_cap * 2 : 8;
	nr = mem_realloc_array(NULL, ncap, sizeof(*nr));
	if (!nr)
		return STATUS_NOMEM;
	for (size_t i = 0; i < m->count; i++)
		nr[i] = model_ring_at(m, i);
	mem_free(m->ring);
	m->ring = nr;
	m->ring_cap = ncap;
	m->head = 0;
	return STATUS_OK;
}

size_t model_bytes_used(const struct model *m)
{
	size_t b = m->win_bytes;

	b = size_add_sat(b, intern_bytes(&m->frames));
	b = size_add_sat(b, intern_bytes(&m->names));
	b = size_add_sat(b, intern_bytes(&m->stacks));
	return size_add_sat(b, m->ring_cap * sizeof(*m->ring));
}

static void evict(struct model *m)
{
	while (m->count > 1 && (m->count > m->lim.max_windows ||
	                        model_bytes_used(m) > m->lim.mem_budget)) {
		struct window_priv *w = m->ring[m->head];
		m->head = (m->head + 1) % m->ring_cap;
		m->count--;
		for (size_t i = 0; i < w->pub.nentries; i++)
			model_unref_entry(m, &w->pub.entries[i]);
		m->win_bytes -= w->pub.bytes;
		m->evicted++;
		mem_free(w);
	}
}

enum status model_commit(struct model *m, const struct window_meta *meta,
                         const struct window **out)
{
	struct window_priv *w;

	if (out)
		*out = NULL;
	if (!m || !m->open)
		return STATUS_INVAL;
	if (ring_reserve(m) || build(m, meta, &w))
		return STATUS_NOMEM;
	w->pub.seq = ++m->committed;
	m->ring[(m->head + m->count) % m->ring_cap] = w;
	m->count++;
	m->win_bytes += w->pub.bytes;
	/* A table grown for a burst is given back; a steady one is reused. */
	if (m->fold_cap > 1024 && m->nent * 8 < m->fold_cap) {
		mem_free(m->fold);
		m->fold = NULL;
		m->fold_cap = 0;
	}
	m->nent = 0;
	m->open = false;
	evict(m);
	if (out)
		*out = &w->pub;
	return w->pub.empty ? STATUS_EMPTY_WINDOW : STATUS_OK;
}
