/* A kept window grouped another way (model_group): its entries reordered
 * under the rows of the asked grouping, from the window alone.
 *
 * Parked-at stacks and names are ranked once (their distinct ids sorted
 * by text; spawn stacks are ranked by the window's rows already), then the
 * entries take two stable radix sorts on those ranks: by (name, other
 * stack), then by (row stack, name when split). */
#include "model/model.h"

#include <stdint.h>
#include <string.h>

#include "model/alloc.h"
#include "model/extras.h"
#include "model/ring.h"
#include "model/sort.h"

struct scratch {
	uint64_t *keys, *tkeys; /* 2n each */
	uint32_t *vals, *tvals; /* 2n each */
	uint32_t *uniq;         /* distinct ids, ascending id */
	uint32_t *slot;         /* a slot's distinct index, then its rank */
	uint32_t *perm, *tmp;   /* distinct ids in text order */
	uint32_t *rrank, *nrank, *orank; /* per entry: row, name, other */
};

static enum status scratch_new(struct scratch *sc, size_t n)
{
	size_t n2 = n ? 2 * n : 1;
	char *p;

	if (n > SIZE_MAX / 128)
		return STATUS_NOMEM;
	p = mem_realloc_array(NULL, n2,
	                      2 * sizeof(uint64_t) + 8 * sizeof(uint32_t));
	if (!p)
		return STATUS_NOMEM;
	sc->keys = (uint64_t *)(void *)p;
	sc->tkeys = sc->keys + n2;
	sc->vals = (uint32_t *)(void *)(sc->tkeys + n2);
	sc->tvals = sc->vals + n2;
	sc->uniq = sc->tvals + n2;
	sc->slot = sc->uniq + n2;
	sc->perm = sc->slot + n2;
	sc->tmp = sc->perm + n2;
	sc->rrank = sc->tmp + n2;
	sc->nrank = sc->rrank + n;
	sc->orank = sc->rrank + n2; /* n of the 2n past rrank + n2 */
	return STATUS_OK;
}

struct rank_ctx {
	const struct model *m;
	const uint32_t *uniq;
	bool names;
};

static int cmp_ids(const void *ctx, uint32_t a, uint32_t b)
{
	const struct rank_ctx *c = ctx;
	uint32_t x = c->uniq[a], y = c->uniq[b];

	if (c->names)
		return sv_cmp(model_name(c->m, x), model_name(c->m, y));
	return model_stack_cmp(c->m, x, y);
}

/* Ranks the n ids in sc->keys (slot i holding id keys[i]) by their text:
 * sc->slot[i] gets the rank of slot i's id, equal ids equal ranks. */
static void rank(const struct model *m, struct scratch *sc, size_t n,
                 bool names)
{
	struct rank_ctx c = { m, sc->uniq, names };
	size_t nu = 0;

	for (size_t i = 0; i < n; i++)
		sc->vals[i] = (uint32_t)i;
	sort_radix(sc->keys, sc->vals, sc->tkeys, sc->tvals, n);
	for (size_t i = 0; i < n; i++) {
		if (i == 0 || sc->keys[i] != sc->keys[i - 1])
			sc->uniq[nu++] = (uint32_t)sc->keys[i];
		sc->slot[sc->vals[i]] = (uint32_t)(nu - 1);
	}
	for (size_t u = 0; u < nu; u++)
		sc->perm[u] = (uint32_t)u;
	sort_merge(sc->perm, sc->tmp, nu, cmp_ids, &c);
	for (size_t r = 0; r < nu; r++)
		sc->tmp[sc->perm[r]] = (uint32_t)r;
	for (size_t i = 0; i < n; i++)
		sc->slot[i] = sc->tmp[sc->slot[i]];
}

/* The entries of w in the order of g into sc->vals (n of them).  A kept
 * window's rows are in spawn stack order already, so a spawn stack's rank
 * is its row's index; only parked-at stacks and names are ranked. */
static void order(const struct model *m, const struct window *w,
                  struct grouping g, struct scratch *sc)
{
	size_t n = w->nentries;
	bool parked = g.key == GROUP_PARKED;
	uint32_t *spawn = parked ? sc->orank : sc->rrank;

	for (size_t r = 0; r < w->nrows; r++) {
		const struct fold_row *row = &w->rows[r];
		for (uint32_t i = row->first; i < row->first + row->count; i++)
			spawn[i] = (uint32_t)r;
	}
	for (size_t i = 0; i < n; i++)
		sc->keys[i] = w->entries[i].parked;
	rank(m, sc, n, false);
	memcpy(parked ? sc->rrank : sc->orank, sc->slot, n * sizeof(*sc->slot));
	for (size_t i = 0; i < n; i++)
		sc->keys[i] = w->entries[i].name;
	rank(m, sc, n, true);
	memcpy(sc->nrank, sc->slot, n * sizeof(*sc->nrank));
	for (size_t i = 0; i < n; i++) {
		sc->keys[i] = (uint64_t)sc->nrank[i] << 32 | sc->orank[i];
		sc->vals[i] = (uint32_t)i;
	}
	sort_radix(sc->keys, sc->vals, sc->tkeys, sc->tvals, n);
	for (size_t i = 0; i < n; i++) {
		uint32_t e = sc->vals[i];
		sc->keys[i] = (uint64_t)sc->rrank[e] << 32 |
		              (g.by_name ? sc->nrank[e] : 0);
	}
	sort_radix(sc->keys, sc->vals, sc->tkeys, sc->tvals, n);
}

/* Whether entry e starts a row after entry p (both in the new order). */
static bool new_row(const struct fold_entry *p, const struct fold_entry *e,
                    struct grouping g)
{
	bool parked = g.key == GROUP_PARKED;

	if ((parked ? p->parked : p->stack) != (parked ? e->parked : e->stack))
		return true;
	return g.by_name && p->name != e->name;
}

enum status model_group(const struct model *m, const struct window *w,
                        struct grouping g, const struct window **out)
{
	struct window_priv *wp;
	struct fold_row *rows;
	struct fold_entry *ent;
	uint32_t *byid;
	struct scratch sc;
	size_t n, nrows = 0, sz;

	if (!out)
		return STATUS_INVAL;
	*out = NULL;
	if (!m || !w || (g.key != GROUP_SPAWN && g.key != GROUP_PARKED) ||
	    model_window_seq(m, w->seq) != w)
		return STATUS_INVAL;
	if (g.key == GROUP_SPAWN && !g.by_name) {
		*out = w;
		return STATUS_OK;
	}
	n = w->nentries;
	if (scratch_new(&sc, n))
		return STATUS_NOMEM;
	order(m, w, g, &sc);
	for (size_t i = 0; i < n; i++) {
		if (i == 0 || new_row(&w->entries[sc.vals[i - 1]],
		                      &w->entries[sc.vals[i]], g))
			nrows++;
	}
	sz = sizeof(*wp) + nrows * sizeof(*rows) + n * sizeof(*ent) +
	     nrows * sizeof(*byid);
	wp = mem_calloc(1, sz);
	if (!wp) {
		mem_free(sc.keys);
		return STATUS_NOMEM;
	}
	rows = (struct fold_row *)(void *)(wp + 1);
	ent = (struct fold_entry *)(void *)(rows + nrows);
	byid = (uint32_t *)(void *)(ent + n);
	nrows = 0;
	for (size_t i = 0; i < n; i++) {
		const struct fold_entry *e = &w->entries[sc.vals[i]];
		struct fold_row *r;
		ent[i] = *e;
		if (i == 0 || new_row(&ent[i - 1], e, g)) {
			r = &rows[nrows++];
			r->stack = g.key == GROUP_PARKED ? e->parked : e->stack;
			r->name = g.by_name ? e->name : 0;
			r->first = (uint32_t)i;
		}
		r = &rows[nrows - 1];
		r->count++;
		r->tasks = u64_add_sat(r->tasks, e->tasks);
		metrics_add(&r->m, &e->m);
		if (e->xi) /* the entries keep pointing at w's figures */
			extras_add(&r->x, window_extras(w, e));
	}
	/* the by-id index: rows by (stack id, name id) */
	for (size_t r = 0; r < nrows; r++) {
		sc.keys[r] = (uint64_t)rows[r].stack << 32 | rows[r].name;
		sc.vals[r] = (uint32_t)r;
	}
	sort_radix(sc.keys, sc.vals, sc.tkeys, sc.tvals, nrows);
	memcpy(byid, sc.vals, nrows * sizeof(*byid));
	mem_free(sc.keys);
	wp->pub = *w;
	wp->pub.rows = rows;
	wp->pub.nrows = nrows;
	wp->pub.entries = ent;
	wp->pub.bytes = sz;
	wp->pub.group = g;
	wp->byid = byid;
	*out = &wp->pub;
	return STATUS_OK;
}

void model_group_free(const struct window *w)
{
	/* a kept window is grouped by spawn stack, unsplit; every grouping
	 * model_group makes a window for is another */
	if (w && (w->group.key != GROUP_SPAWN || w->group.by_name))
		mem_free((void *)(uintptr_t)w);
}
