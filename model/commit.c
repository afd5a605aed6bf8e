/* The build of a committed window: canonical order of rows and entries,
 * the window's single block, and its references. */
#include "model/commit.h"

#include <string.h>

#include "model/alloc.h"
#include "model/extras.h"
#include "model/stackkey.h"
#include "model/sort.h"

static int cmp_stack_keys(const void *ctx, uint32_t a, uint32_t b)
{
	const char *const *key = ctx;

	return stackkey_cmp(key[a], key[b]);
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
static size_t meta_len(const struct commit_in *m, const char *s)
{
	return s ? model_utf8_cut(s, strnlen(s, m->max_name + 1), m->max_name)
	         : 0;
}

static const char *meta_copy(const struct commit_in *m, const char *s,
                             char **at)
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

/* The scratch of one commit: per entry (n) and per distinct stack or name
 * (at most n).  Entry i is m->ent[i]. */
struct scratch {
	uint64_t *keys, *tkeys;
	const char **key;       /* a group's key text */
	uint32_t *vals, *tvals; /* radix sorts */
	uint32_t *byname;       /* entries by name, ascending */
	uint32_t *grp;          /* an entry's stack group */
	uint32_t *ord;          /* entries in the window's order */
	uint32_t *nid, *ncnt;   /* name groups: id, entries */
	uint32_t *gid, *gcnt;   /* stack groups, ascending id */
	uint32_t *perm, *tmp;   /* groups in canonical order; merge scratch */
	uint32_t *row;          /* a stack group's row */
	uint32_t *pord;         /* entries by parked-at stack text */
	uint32_t *pid, *pcnt;   /* parked-at groups: id, entries */
	size_t np;              /* their number; pord unset when 1 or 0 */
};

static enum status scratch_new(struct scratch *sc, size_t n)
{
	char *p = mem_realloc_array(NULL, n ? n : 1,
	                            2 * sizeof(uint64_t) + sizeof(char *) +
	                                15 * sizeof(uint32_t));
	uint32_t **u32[] = { &sc->vals, &sc->tvals, &sc->byname, &sc->grp,
		             &sc->ord,  &sc->nid,   &sc->ncnt,   &sc->gid,
		             &sc->gcnt, &sc->perm,  &sc->tmp,    &sc->row,
		             &sc->pord, &sc->pid,   &sc->pcnt };

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

enum field { F_STACK, F_NAME, F_PARKED };

static uint32_t field_of(const struct fold_entry *e, enum field f)
{
	return f == F_STACK ? e->stack : f == F_NAME ? e->name : e->parked;
}

/* Sorts the entries (taken in the order in[], or in arrival order when
 * in is NULL) by the id in field f into sc->vals, stably, and lists the
 * distinct ids (ascending) in id[] with their number of entries in
 * cnt[]; returns how many.  Ids within a span of n take a counting sort
 * (sc->tmp counts), others a radix sort. */
static size_t group_by(const struct commit_in *m, struct scratch *sc,
                       enum field f, const uint32_t *in, uint32_t *id,
                       uint32_t *cnt)
{
	size_t n = m->nent, ng = 0, span;
	uint32_t lo = UINT32_MAX, hi = 0;

	for (size_t i = 0; i < n; i++) {
		uint32_t v = field_of(&m->ent[in ? in[i] : i], f);
		sc->keys[i] = v;
		lo = v < lo ? v : lo;
		hi = v > hi ? v : hi;
	}
	if (n == 0)
		return 0;
	span = (size_t)(hi - lo) + 1;
	if (span <= n) {
		uint32_t *c = sc->tmp, at = 0;
		memset(c, 0, span * sizeof(*c));
		for (size_t i = 0; i < n; i++)
			c[sc->keys[i] - lo]++;
		for (size_t v = 0; v < span; v++) {
			if (!c[v])
				continue;
			id[ng] = (uint32_t)(lo + v);
			cnt[ng++] = c[v];
			at += c[v];
			c[v] = at - c[v];
		}
		for (size_t i = 0; i < n; i++)
			sc->vals[c[sc->keys[i] - lo]++] =
			    in ? in[i] : (uint32_t)i;
		return ng;
	}
	for (size_t i = 0; i < n; i++)
		sc->vals[i] = in ? in[i] : (uint32_t)i;
	sort_radix(sc->keys, sc->vals, sc->tkeys, sc->tvals, n);
	for (size_t i = 0; i < n; i++) {
		if (i == 0 || sc->keys[i] != sc->keys[i - 1]) {
			cnt[ng] = 0;
			id[ng++] = (uint32_t)sc->keys[i];
		}
		cnt[ng - 1]++;
	}
	return ng;
}

/* Entries by parked-at stack text into sc->pord, the parked-at groups in
 * sc->pid and sc->pcnt; returns their number. */
static size_t rank_parked(const struct commit_in *m, struct scratch *sc)
{
	size_t np, at = 0, sum = 0;

	if (!m->any_parked) { /* one group, without a pass over the entries */
		sc->pid[0] = m->not_parked;
		sc->pcnt[0] = (uint32_t)m->nent;
		sc->np = m->nent ? 1 : 0;
		return sc->np;
	}
	np = group_by(m, sc, F_PARKED, NULL, sc->pid, sc->pcnt);
	sc->np = np;
	if (np <= 1) /* one parked-at stack (or none): arrival order */
		return np;
	for (size_t q = 0; q < np; q++) {
		sc->key[q] = intern_slot(m->stacks, sc->pid[q])->str;
		sc->perm[q] = (uint32_t)q;
	}
	sort_merge(sc->perm, sc->tmp, np, cmp_stack_keys, sc->key);
	for (size_t r = 0; r < np; r++) {
		sc->tmp[sc->perm[r]] = (uint32_t)sum;
		sum += sc->pcnt[sc->perm[r]];
	}
	for (size_t q = 0; q < np; q++) {
		memcpy(sc->pord + sc->tmp[q], sc->vals + at,
		       sc->pcnt[q] * sizeof(*sc->vals));
		at += sc->pcnt[q];
	}
	return np;
}

/* Entries by name text, then parked-at stack text, into sc->byname;
 * returns the number of names. */
static size_t rank_names(const struct commit_in *m, struct scratch *sc)
{
	size_t nn = group_by(m, sc, F_NAME, sc->np > 1 ? sc->pord : NULL,
	                     sc->nid, sc->ncnt);
	size_t at = 0, sum = 0;

	for (size_t q = 0; q < nn; q++) {
		sc->key[q] = intern_slot(m->names, sc->nid[q])->str;
		sc->perm[q] = (uint32_t)q;
	}
	sort_merge(sc->perm, sc->tmp, nn, cmp_name_keys, sc->key);
	/* each name's entries are a run of vals: move the runs in order */
	for (size_t r = 0; r < nn; r++) {
		sc->tmp[sc->perm[r]] = (uint32_t)sum;
		sum += sc->ncnt[sc->perm[r]];
	}
	for (size_t q = 0; q < nn; q++) {
		memcpy(sc->byname + sc->tmp[q], sc->vals + at,
		       sc->ncnt[q] * sizeof(*sc->vals));
		at += sc->ncnt[q];
	}
	return nn;
}

/* The first of a[from..n) (ascending) whose key sorts after x's, or n:
 * an exponential then a binary search. */
static size_t gallop(const uint32_t *a, size_t from, size_t n, uint32_t x,
                     const char *const *key)
{
	size_t lo = from, step = 1, hi;

	while (lo + step - 1 < n &&
	       stackkey_cmp(key[a[lo + step - 1]], key[x]) < 0) {
		lo += step;
		step *= 2;
	}
	hi = lo + step - 1 < n ? lo + step - 1 : n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (stackkey_cmp(key[a[mid]], key[x]) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The stack groups in canonical order into sc->perm.  The stacks that the
 * newest kept window has keep its row order (a stack's key never changes
 * while it lives, so that order holds for any subset of them); only the
 * others are compared, sorted, and merged in. */
static void stack_order(const struct commit_in *m, struct scratch *sc,
                        size_t ns)
{
	const struct window_priv *prev = m->prev;
	size_t np = prev ? prev->pub.nrows : 0, j = 0, kept = 0, fresh = 0,
	       at = 0, o = 0;
	uint32_t *seen = sc->vals, *added = sc->perm;

	/* both lists ascend by stack id: merge them */
	for (size_t g = 0; g < ns; g++) {
		while (j < np &&
		       prev->pub.rows[prev->byid[j]].stack < sc->gid[g])
			j++;
		if (j < np &&
		    prev->pub.rows[prev->byid[j]].stack == sc->gid[g]) {
			sc->keys[kept] = prev->byid[j];
			seen[kept++] = (uint32_t)g;
		} else {
			added[fresh++] = (uint32_t)g;
		}
	}
	sort_radix(sc->keys, seen, sc->tkeys, sc->tvals, kept);
	sort_merge(added, sc->tmp, fresh, cmp_stack_keys, sc->key);
	if (kept == 0)
		return;
	/* merge the added stacks into the order of those seen */
	for (size_t f = 0; f < fresh; f++) {
		size_t end = gallop(seen, at, kept, added[f], sc->key);
		memcpy(sc->tmp + o, seen + at, (end - at) * sizeof(*seen));
		o += end - at;
		sc->tmp[o++] = added[f];
		at = end;
	}
	memcpy(sc->tmp + o, seen + at, (kept - at) * sizeof(*seen));
	memcpy(sc->perm, sc->tmp, ns * sizeof(*sc->perm));
}

/* Orders the entries by (stack text, name text, parked-at stack text)
 * into sc->ord, and sets sc->row (each stack group's row, ascending stack
 * id); returns the number of rows and, through *nnames and *nparked, of
 * names (sc->nid, sc->ncnt) and parked-at stacks (sc->pid, sc->pcnt). */
static size_t rank_entries(const struct commit_in *m, struct scratch *sc,
                           size_t *nnames, size_t *nparked)
{
	size_t n = m->nent, ns, sum = 0;

	*nparked = rank_parked(m, sc);
	*nnames = rank_names(m, sc);
	ns = group_by(m, sc, F_STACK, NULL, sc->gid, sc->gcnt);
	for (size_t g = 0, i = 0; g < ns; g++) {
		for (size_t k = 0; k < sc->gcnt[g]; k++)
			sc->grp[sc->vals[i++]] = (uint32_t)g;
		sc->key[g] = intern_slot(m->stacks, sc->gid[g])->str;
	}
	stack_order(m, sc, ns);
	for (size_t r = 0; r < ns; r++) {
		uint32_t g = sc->perm[r];
		sc->row[g] = (uint32_t)r;
		sc->tmp[g] = (uint32_t)sum; /* the row's first entry */
		sum += sc->gcnt[g];
	}
	/* a stable counting sort by row of the entries in name order */
	for (size_t i = 0; i < n; i++) {
		uint32_t e = sc->byname[i];
		sc->ord[sc->tmp[sc->grp[e]]++] = e;
	}
	return ns;
}

/* Lays out the block; false on overflow. */
struct layout {
	size_t rows, entries, extras, byid, comments, strings, total;
};

static bool plan(const struct commit_in *m, const struct window_meta *meta,
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
	l->extras = sz;
	if (!add_size(&sz, m->nxs, sizeof(struct extras)))
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

static void fill_meta(const struct commit_in *m, struct window_meta *dst,
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

/* Fills rows and entries in order, and the entries' figures in the
 * entries' order; each row's stack gets a reference per entry. */
static void fill_rows(const struct commit_in *m, struct window *w,
                      struct fold_row *rows, struct fold_entry *entries,
                      struct extras *xs, const struct scratch *sc)
{
	uint32_t nx = 0;

	enum { AHEAD = 16 };
	size_t nrows = 0, n = m->nent;

	for (size_t i = 0; i < n; i++) {
		const struct fold_entry *e = &m->ent[sc->ord[i]];
		struct fold_row *r;

		if (i + AHEAD < n) { /* an entry may span two lines */
			const char *p =
			    (const char *)&m->ent[sc->ord[i + AHEAD]];
			model_prefetch(p);
			model_prefetch(p + sizeof(*e) - 1);
		}
		entries[i] = *e;
		if (e->xi) { /* the figures follow the entries' order */
			xs[nx] = m->xs[e->xi - 1];
			entries[i].xi = ++nx;
		}
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
		if (e->xi)
			extras_add(&r->x, &m->xs[e->xi - 1]);
		w->tasks = u64_add_sat(w->tasks, e->tasks);
		metrics_add(&w->total, &e->m);
	}
	for (size_t r = 0; r < nrows; r++)
		intern_slot(m->stacks, rows[r].stack)->refs += rows[r].count;
}

enum status commit_build(const struct commit_in *m,
                         const struct window_meta *meta,
                         struct window_priv **out)
{
	struct scratch sc;
	struct layout l;
	size_t nrows;
	struct window_priv *wp;
	struct window *w;
	char *block;
	uint32_t *byid;
	size_t nnames, nparked;

	if (scratch_new(&sc, m->nent))
		return STATUS_NOMEM;
	nrows = rank_entries(m, &sc, &nnames, &nparked);
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
	          (struct fold_entry *)(void *)(block + l.entries),
	          (struct extras *)(void *)(block + l.extras), &sc);
	w->extras = (const struct extras *)(void *)(block + l.extras);
	w->nextras = m->nxs;
	for (size_t q = 0; q < nnames; q++)
		intern_slot(m->names, sc.nid[q])->refs += sc.ncnt[q];
	for (size_t q = 0; q < nparked; q++)
		intern_slot(m->stacks, sc.pid[q])->refs += sc.pcnt[q];
	w->nrows = nrows;
	w->nentries = m->nent;
	if (nrows)
		memcpy(byid, sc.row, nrows * sizeof(*byid));
	wp->byid = byid;
	mem_free(sc.keys);
	fill_meta(m, &w->meta, meta, block, &l);
	w->empty = m->nent == 0;
	w->stats = m->stats;
	w->bytes = l.total;
	*out = wp;
	return STATUS_OK;
}
