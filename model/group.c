/* A kept window grouped another way (model_group): its entries reordered
 * under the rows of the asked grouping, from the window alone.
 *
 * Split by name under the spawn stack, the kept order is the asked one
 * already (rows by spawn stack, then entries by name): the derived window
 * shares the entries and only cuts its rows.  By parked-at stack, the
 * distinct parked-at stacks and names are ranked by their text, and two
 * stable counting sorts on those dense ranks (name, then parked-at stack)
 * put the entries, still in spawn order within equal keys, in place.
 * Ranking is what costs: a memo keeps the text order of the last window's
 * stacks and names, and as ids are never reused, a later window sorts
 * only the ids the memo has not seen and merges them in. */
#include "model/model.h"

#include <stdint.h>
#include <string.h>

#include "model/alloc.h"
#include "model/group_int.h"
#include "model/ring.h"
#include "model/sort.h"

#define EMPTY   UINT32_MAX
#define IN_MEMO ((uint32_t)1 << 31)
/* Entries fetched ahead where they are read out of order */
#define PARKED_AHEAD 16

/* An open-addressing set of ids, each with a value; a power of two in
 * size, at most half full. */
struct idset {
	uint32_t *key, *val;
	size_t mask;
};

static size_t id_slot(const struct idset *h, uint32_t id)
{
	size_t i = (size_t)((id * 0x9E3779B1u) >> 7) & h->mask;

	while (h->key[i] != EMPTY && h->key[i] != id)
		i = (i + 1) & h->mask;
	return i;
}

/* The scratch of one derivation, one block: see scratch_new. */
struct scratch {
	uint32_t *slot;  /* per entry: its id's slot in set */
	uint32_t *prank; /* per entry: its parked-at stack's rank */
	uint32_t *nrank; /* per entry: its name's rank */
	uint32_t *perm, *tmp;
	uint32_t *count; /* n + 1 */
	/* ids: the memo's still in the window, those it has not seen, both
	 * merged, and the merge sort's scratch */
	uint32_t *known, *fresh, *merged, *mtmp;
	struct idset set;
	void *block;
};

/* Room for n entries and a memo of up to memo ids; STATUS_NOMEM. */
static enum status scratch_new(struct scratch *sc, size_t n, size_t memo)
{
	size_t cap = 16, words;
	uint32_t *p;

	if (n > SIZE_MAX / 64 || memo > SIZE_MAX / 64)
		return STATUS_NOMEM;
	while (cap < 2 * (n + memo))
		cap *= 2;
	words = 10 * (n + 1) + 2 * cap;
	p = mem_realloc_array(NULL, words, sizeof(*p));
	if (!p)
		return STATUS_NOMEM;
	sc->block = p;
	sc->slot = p;
	sc->prank = sc->slot + n + 1;
	sc->nrank = sc->prank + n + 1;
	sc->perm = sc->nrank + n + 1;
	sc->tmp = sc->perm + n + 1;
	sc->count = sc->tmp + n + 1;
	sc->known = sc->count + n + 1;
	sc->fresh = sc->known + n + 1;
	sc->merged = sc->fresh + n + 1;
	sc->mtmp = sc->merged + n + 1;
	sc->set.key = sc->mtmp + n + 1;
	sc->set.val = sc->set.key + cap;
	sc->set.mask = cap - 1;
	return STATUS_OK;
}

struct text_ctx {
	const struct model *m;
	bool names;
};

static int cmp_text(const void *ctx, uint32_t a, uint32_t b)
{
	const struct text_ctx *c = ctx;

	if (c->names)
		return sv_cmp(model_name(c->m, a), model_name(c->m, b));
	return model_stack_cmp(c->m, a, b);
}

static uint32_t entry_id(const struct fold_entry *e, bool names)
{
	return names ? e->name : e->parked;
}

/* Ranks the distinct parked-at stacks (or names) of w's entries by their
 * text into rank[] per entry; *nranks gets how many.  *memo (ids in text
 * order, *nmemo of them; may be none) gives the order of the ids it holds,
 * and gets this window's on return when it can grow (else it is kept). */
static void rank(const struct model *m, const struct window *w, bool names,
                 uint32_t **memo, size_t *nmemo, struct scratch *sc,
                 uint32_t *rank, size_t *nranks)
{
	struct text_ctx tc = { m, names };
	struct idset *h = &sc->set;
	size_t n = w->nentries, nk = 0, nf = 0, nm = 0, from = 0;
	const uint32_t *mem = *memo;

	memset(h->key, 0xff, (h->mask + 1) * sizeof(*h->key));
	for (size_t i = 0; i < *nmemo; i++) {
		size_t s = id_slot(h, mem[i]);
		h->key[s] = mem[i];
		h->val[s] = IN_MEMO;
	}
	for (size_t i = 0; i < n; i++) {
		uint32_t id = entry_id(&w->entries[i], names);
		size_t s;

		/* a row's entries often share their name: found once */
		if (i && id == entry_id(&w->entries[i - 1], names)) {
			sc->slot[i] = sc->slot[i - 1];
			continue;
		}
		s = id_slot(h, id);
		sc->slot[i] = (uint32_t)s;
		if (h->key[s] == id && h->val[s] != IN_MEMO)
			continue;
		if (h->key[s] != id) {
			h->key[s] = id;
			sc->fresh[nf++] = id;
		}
		h->val[s] = 0; /* in the window */
	}
	/* the memo's ids still here keep their order; the fresh ones are
	 * sorted and each put in its place by a binary search */
	for (size_t i = 0; i < *nmemo; i++)
		if (h->val[id_slot(h, mem[i])] != IN_MEMO)
			sc->known[nk++] = mem[i];
	sort_merge(sc->fresh, sc->mtmp, nf, cmp_text, &tc);
	for (size_t f = 0; f < nf; f++) {
		size_t lo = from, hi = nk;

		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			if (cmp_text(&tc, sc->known[mid], sc->fresh[f]) < 0)
				lo = mid + 1;
			else
				hi = mid;
		}
		memcpy(sc->merged + nm, sc->known + from,
		       (lo - from) * sizeof(*sc->merged));
		nm += lo - from;
		sc->merged[nm++] = sc->fresh[f];
		from = lo;
	}
	memcpy(sc->merged + nm, sc->known + from,
	       (nk - from) * sizeof(*sc->merged));
	nm += nk - from;
	for (size_t r = 0; r < nm; r++)
		h->val[id_slot(h, sc->merged[r])] = (uint32_t)r;
	for (size_t i = 0; i < n; i++)
		rank[i] = h->val[sc->slot[i]];
	*nranks = nm;
	/* the memo follows the window it last ranked (a failure keeps the
	 * old one: it only costs sorting again) */
	if (!nm) {
		*nmemo = 0;
		return;
	}
	if (nm > *nmemo || nm * 2 < *nmemo) {
		uint32_t *grown = mem_realloc_array(*memo, nm, sizeof(**memo));

		if (!grown)
			return;
		*memo = grown;
	}
	memcpy(*memo, sc->merged, nm * sizeof(**memo));
	*nmemo = nm;
}

/* Stable counting sort of the entry indices in[0..n) by key[] (of nk
 * values) into out. */
static void count_sort(const uint32_t *key, size_t nk, const uint32_t *in,
                       uint32_t *out, size_t n, uint32_t *count)
{
	uint32_t sum = 0;

	memset(count, 0, (nk + 1) * sizeof(*count));
	for (size_t i = 0; i < n; i++)
		count[key[in[i]]]++;
	for (size_t k = 0; k < nk; k++) {
		uint32_t c = count[k];
		count[k] = sum;
		sum += c;
	}
	for (size_t i = 0; i < n; i++)
		out[count[key[in[i]]]++] = in[i];
}

/* The entries of w by parked-at stack text, then name, then spawn stack
 * (the kept order) into sc->perm. */
static void order_parked(const struct model *m, const struct window *w,
                         struct group_memo *memo, struct scratch *sc)
{
	size_t n = w->nentries, np = 0, nn = 0;
	struct group_memo once = { .m = m }, *mm = memo ? memo : &once;

	rank(m, w, false, &mm->stacks, &mm->nstacks, sc, sc->prank, &np);
	rank(m, w, true, &mm->names, &mm->nnames, sc, sc->nrank, &nn);
	group_memo_fini(&once);
	for (size_t i = 0; i < n; i++)
		sc->tmp[i] = (uint32_t)i;
	if (nn > 1) {
		count_sort(sc->nrank, nn, sc->tmp, sc->perm, n, sc->count);
		memcpy(sc->tmp, sc->perm, n * sizeof(*sc->tmp));
	}
	count_sort(sc->prank, np, sc->tmp, sc->perm, n, sc->count);
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

/* The by-id index of rows by parked-at stack: rows by (stack id, name
 * id), sorted. */
static enum status byid_sorted(const struct fold_row *rows, size_t nrows,
                               uint32_t *byid)
{
	uint64_t *keys = mem_realloc_array(NULL, 2 * nrows + 1, sizeof(*keys));
	uint32_t *tv = mem_realloc_array(NULL, nrows + 1, sizeof(*tv));

	if (!keys || !tv) {
		mem_free(keys);
		mem_free(tv);
		return STATUS_NOMEM;
	}
	for (size_t r = 0; r < nrows; r++) {
		keys[r] = (uint64_t)rows[r].stack << 32 | rows[r].name;
		byid[r] = (uint32_t)r;
	}
	sort_radix(keys, byid, keys + nrows, tv, nrows);
	mem_free(keys);
	mem_free(tv);
	return STATUS_OK;
}

/* Rows by parked-at stack (split by name or not) in sc->perm's order,
 * counted from the ranks alone (4 bytes an entry, where the entries are
 * 64 and read out of order). */
static size_t parked_rows(const struct window *w, const struct scratch *sc,
                          struct grouping g)
{
	size_t n = w->nentries, nrows = 0;

	for (size_t i = 0; i < n; i++) {
		uint32_t e = sc->perm[i], p = i ? sc->perm[i - 1] : 0;

		nrows += i == 0 || sc->prank[e] != sc->prank[p] ||
		         (g.by_name && sc->nrank[e] != sc->nrank[p]);
	}
	return nrows;
}

/* By parked-at stack, split by name or not. */
static enum status by_parked(const struct model *m, const struct window *w,
                             struct grouping g, struct group_memo *memo,
                             struct window_priv **out)
{
	struct window_priv *wp;
	struct fold_row *rows;
	struct fold_entry *ent;
	uint32_t *byid;
	struct scratch sc;
	size_t n = w->nentries, nrows, sz;

	if (scratch_new(&sc, n,
	                memo ? size_max(memo->nstacks, memo->nnames) : 0))
		return STATUS_NOMEM;
	order_parked(m, w, memo, &sc);
	nrows = parked_rows(w, &sc, g);
	sz = sizeof(*wp) + nrows * sizeof(*rows) + n * sizeof(*ent) +
	     nrows * sizeof(*byid);
	/* every row, entry and index is written below: only the head is
	 * zeroed (clearing megabytes of reused memory cost a pass more) */
	wp = mem_alloc(sz);
	if (!wp) {
		mem_free(sc.block);
		return STATUS_NOMEM;
	}
	*wp = (struct window_priv){ .byid = NULL };
	rows = (struct fold_row *)(void *)(wp + 1);
	ent = (struct fold_entry *)(void *)(rows + nrows);
	byid = (uint32_t *)(void *)(ent + n);
	nrows = 0;
	for (size_t i = 0; i < n; i++) {
		const struct fold_entry *e = &w->entries[sc.perm[i]];

		/* read out of order: fetched a few entries ahead */
		if (i + PARKED_AHEAD < n)
			model_prefetch(&w->entries[sc.perm[i + PARKED_AHEAD]]);
		ent[i] = *e;
		if (i == 0 || new_row(&ent[i - 1], e, g))
			rows[nrows++] =
			    (struct fold_row){ .stack = e->parked,
				               .name = g.by_name ? e->name : 0,
				               .first = (uint32_t)i };
		group_row_add(w, &rows[nrows - 1], e);
	}
	mem_free(sc.block);
	if (byid_sorted(rows, nrows, byid) != STATUS_OK) {
		mem_free(wp);
		return STATUS_NOMEM;
	}
	wp->pub.nrows = nrows;
	wp->pub.rows = rows;
	wp->pub.entries = ent;
	wp->pub.bytes = sz;
	wp->byid = byid;
	*out = wp;
	return STATUS_OK;
}

const struct window *group_finish(struct window_priv *wp,
                                  const struct window *w, struct grouping g)
{
	const struct fold_row *rows = wp->pub.rows;
	size_t nrows = wp->pub.nrows, bytes = wp->pub.bytes;
	const struct fold_entry *ent = wp->pub.entries;
	const uint32_t *byid = wp->byid;

	wp->pub = *w;
	wp->pub.rows = rows;
	wp->pub.nrows = nrows;
	wp->pub.entries = ent;
	wp->pub.bytes = bytes;
	wp->pub.group = g;
	wp->byid = byid;
	return &wp->pub;
}

enum status model_group_memo(const struct model *m, const struct window *w,
                             struct grouping g, struct group_memo *memo,
                             const struct window **out)
{
	struct window_priv *wp = NULL;
	enum status st;

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
	if (memo && memo->m != m) {
		group_memo_fini(memo);
		memo->m = m;
	}
	st = g.key == GROUP_SPAWN ? group_split(w, &wp)
	                          : by_parked(m, w, g, memo, &wp);
	if (st != STATUS_OK)
		return st;
	*out = group_finish(wp, w, g);
	return STATUS_OK;
}

enum status model_group(const struct model *m, const struct window *w,
                        struct grouping g, const struct window **out)
{
	return model_group_memo(m, w, g, NULL, out);
}

void group_memo_fini(struct group_memo *memo)
{
	mem_free(memo->stacks);
	mem_free(memo->names);
	*memo = (struct group_memo){ .m = NULL };
}

void model_group_free(const struct window *w)
{
	/* a kept window is grouped by spawn stack, unsplit; every grouping
	 * model_group makes a window for is another */
	if (w && (w->group.key != GROUP_SPAWN || w->group.by_name))
		mem_free((void *)(uintptr_t)w);
}
