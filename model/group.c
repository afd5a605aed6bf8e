/* A kept window grouped by parked-at stack (model_group; split by name
 * under the spawn stack is model/group_split.c): its entries reordered
 * under the rows of the asked grouping, from the window alone.
 *
 * One pass reads each entry's parked-at stack and name (4 bytes each of
 * its 64); the distinct ones are ranked by their text, and a stable
 * counting sort on those dense ranks puts the entries, still in spawn
 * order within equal keys, in place: on the parked-at stack's rank alone
 * when there is one name, on both ranks as one key when their pairs are
 * no more than the entries, else two sorts (name, then parked-at stack).
 * The sort's counts say where each row begins, so the rows are made as
 * the entries are copied, without reading a rank per entry again.
 * Ranking is what costs most: a memo keeps the text order of the last
 * window's stacks and names, and as ids are never reused, a later window
 * sorts only the ids the memo has not seen and merges them in. */
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

/* A set of ids, each with a value.  Dense: val indexed by id - lo, for
 * the ids from lo to hi; else open addressing on key and val, a power of
 * two in size (mask + 1), at most half full.  Ids are given in order of
 * arrival and a window's are mostly of the last few windows, so they are
 * often close together: a dense set then costs no hashing and no probe,
 * and is smaller than the open one (it is taken only then). */
struct idset {
	uint32_t *key, *val;
	size_t mask;
	uint32_t lo, hi;
	bool dense;
};

static size_t id_slot(const struct idset *h, uint32_t id)
{
	size_t i = (size_t)((id * 0x9E3779B1u) >> 7) & h->mask;

	while (h->key[i] != EMPTY && h->key[i] != id)
		i = (i + 1) & h->mask;
	return i;
}

/* Where id is (or goes) in h. */
static inline size_t set_slot(const struct idset *h, uint32_t id)
{
	return h->dense ? (size_t)(id - h->lo) : id_slot(h, id);
}

/* Slot s (set_slot's) holds id. */
static inline bool set_holds(const struct idset *h, size_t s, uint32_t id)
{
	return h->dense ? h->val[s] != EMPTY : h->key[s] == id;
}

/* The ids of one kind (parked-at stacks, or names) of a window's entries:
 * from lo to hi, and the words a set of them takes (see set_plan). */
struct idspan {
	uint32_t lo, hi;
	size_t words, cap;
	bool dense;
};

/* Plans a set for the ids of sp (of n entries) and a memo of memo ids:
 * dense when that takes no more words than open addressing would. */
static void set_plan(struct idspan *sp, size_t n, size_t memo)
{
	size_t span = n ? (size_t)(sp->hi - sp->lo) + 1 : 0;

	sp->cap = 16;
	while (sp->cap < 2 * (n + memo))
		sp->cap *= 2;
	sp->dense = span <= 2 * sp->cap;
	sp->words = sp->dense ? span : 2 * sp->cap;
}

/* h over words (sp->words of them), empty. */
static void set_init(struct idset *h, const struct idspan *sp, uint32_t *words)
{
	*h = (struct idset){ .lo = sp->lo,
		             .hi = sp->hi,
		             .dense = sp->dense,
		             .mask = sp->cap - 1 };
	if (sp->dense) {
		h->val = words;
		memset(h->val, 0xff, sp->words * sizeof(*h->val));
		return;
	}
	h->key = words;
	h->val = words + sp->cap;
	memset(h->key, 0xff, sp->cap * sizeof(*h->key));
}

/* Whether a memo's id can be in the window: a dense set holds only the
 * window's span. */
static inline bool set_covers(const struct idset *h, uint32_t id)
{
	return !h->dense || (id >= h->lo && id <= h->hi);
}

/* The scratch of one derivation, one block (see scratch_new), and the id
 * set's, another (sized once the ids are read). */
struct scratch {
	uint32_t *pid;   /* per entry: its parked-at stack */
	uint32_t *nid;   /* per entry: its name */
	uint32_t *slot;  /* per entry: its id's slot (open addressing) */
	uint32_t *prank; /* per entry: its parked-at stack's rank */
	uint32_t *nrank; /* per entry: its name's rank */
	uint32_t *perm, *tmp;
	uint32_t *count; /* n + 1 */
	/* ids: the memo's still in the window, those it has not seen, both
	 * merged, and the merge sort's scratch */
	uint32_t *known, *fresh, *merged, *mtmp;
	uint32_t *words; /* the id set's */
	void *block;
};

/* Room for n entries; STATUS_NOMEM. */
static enum status scratch_new(struct scratch *sc, size_t n)
{
	uint32_t *p;

	if (n > SIZE_MAX / 64)
		return STATUS_NOMEM;
	p = mem_realloc_array(NULL, 12 * (n + 1), sizeof(*p));
	if (!p)
		return STATUS_NOMEM;
	*sc = (struct scratch){ .block = p };
	sc->pid = p;
	sc->nid = sc->pid + n + 1;
	sc->slot = sc->nid + n + 1;
	sc->prank = sc->slot + n + 1;
	sc->nrank = sc->prank + n + 1;
	sc->perm = sc->nrank + n + 1;
	sc->tmp = sc->perm + n + 1;
	sc->count = sc->tmp + n + 1;
	sc->known = sc->count + n + 1;
	sc->fresh = sc->known + n + 1;
	sc->merged = sc->fresh + n + 1;
	sc->mtmp = sc->merged + n + 1;
	return STATUS_OK;
}

static void scratch_free(struct scratch *sc)
{
	mem_free(sc->block);
	mem_free(sc->words);
}

/* The one pass over w's entries in their order: each one's parked-at
 * stack and name into sc (4 bytes each, where an entry is 64, for the
 * passes that follow), and the span of each. */
static void read_ids(const struct window *w, struct scratch *sc,
                     struct idspan *ps, struct idspan *ns)
{
	uint32_t plo = UINT32_MAX, phi = 0, nlo = UINT32_MAX, nhi = 0;

	for (size_t i = 0; i < w->nentries; i++) {
		uint32_t p = w->entries[i].parked, nm = w->entries[i].name;

		sc->pid[i] = p;
		sc->nid[i] = nm;
		plo = p < plo ? p : plo;
		phi = p > phi ? p : phi;
		nlo = nm < nlo ? nm : nlo;
		nhi = nm > nhi ? nm : nhi;
	}
	*ps = (struct idspan){ .lo = plo, .hi = phi };
	*ns = (struct idspan){ .lo = nlo, .hi = nhi };
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

/* Ranks the distinct ids[0..n) (parked-at stacks, or names) by their text
 * into rank[] per entry; *nranks gets how many.  h is an empty set for
 * them.  *memo (ids in text order, *nmemo of them; may be none) gives the
 * order of the ids it holds, and gets this window's on return when it
 * can grow (else it is kept). */
static void rank(const struct model *m, const uint32_t *ids, size_t n,
                 bool names, uint32_t **memo, size_t *nmemo, struct idset *h,
                 struct scratch *sc, uint32_t *rank, size_t *nranks)
{
	struct text_ctx tc = { m, names };
	size_t nk = 0, nf = 0, nm = 0, from = 0;
	const uint32_t *mem = *memo;

	for (size_t i = 0; i < *nmemo; i++) {
		size_t s;

		if (!set_covers(h, mem[i]))
			continue;
		s = set_slot(h, mem[i]);
		if (!h->dense)
			h->key[s] = mem[i];
		h->val[s] = IN_MEMO;
	}
	for (size_t i = 0; i < n; i++) {
		uint32_t id = ids[i];
		size_t s;

		/* a row's entries often share their name: found once (a
		 * probe's end kept for the ranks below; a dense set's slot is
		 * the id's own) */
		if (i && id == ids[i - 1]) {
			if (!h->dense)
				sc->slot[i] = sc->slot[i - 1];
			continue;
		}
		s = set_slot(h, id);
		if (!h->dense)
			sc->slot[i] = (uint32_t)s;
		if (set_holds(h, s, id) && h->val[s] != IN_MEMO)
			continue;
		if (!set_holds(h, s, id)) {
			if (!h->dense)
				h->key[s] = id;
			sc->fresh[nf++] = id;
		}
		h->val[s] = 0; /* in the window */
	}
	/* the memo's ids still here keep their order; the fresh ones are
	 * sorted and each put in its place by a binary search */
	for (size_t i = 0; i < *nmemo; i++)
		if (set_covers(h, mem[i]) &&
		    h->val[set_slot(h, mem[i])] != IN_MEMO)
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
		h->val[set_slot(h, sc->merged[r])] = (uint32_t)r;
	for (size_t i = 0; i < n; i++)
		rank[i] = h->val[h->dense ? ids[i] - h->lo : sc->slot[i]];
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

/* Where each row begins in sc->perm, into sc->tmp (and n at the end):
 * *nrows of them.  Entries sorted last by key, of nk values (count
 * holding each value's end), in rows by key value, each value a row, or
 * each run of per values (a parked-at stack's names under one key).
 * Rows are so known without reading a rank per entry (read in the new
 * order, out of the kept one). */
static size_t starts_by_key(struct scratch *sc, size_t n, size_t nk, size_t per)
{
	size_t nrows = 0, from = 0;

	/* every parked-at stack ranked has entries: a run per row */
	for (size_t r = 0; per > 1 && r * per < nk; r++)
		sc->tmp[nrows++] = r ? sc->count[r * per - 1] : 0;
	for (size_t k = 0; per == 1 && k < nk; k++) {
		size_t end = sc->count[k];

		if (end > from)
			sc->tmp[nrows++] = (uint32_t)from;
		from = end;
	}
	sc->tmp[nrows] = (uint32_t)n;
	return nrows;
}

/* starts_by_key's, where the entries are sorted by name then parked-at
 * stack and split by name: read from both ranks per entry. */
static size_t starts_by_ranks(struct scratch *sc, size_t n)
{
	size_t nrows = 0;

	for (size_t i = 0; i < n; i++) {
		uint32_t e = sc->perm[i], p = i ? sc->perm[i - 1] : 0;

		if (i == 0 || sc->prank[e] != sc->prank[p] ||
		    sc->nrank[e] != sc->nrank[p])
			sc->tmp[nrows++] = (uint32_t)i;
	}
	sc->tmp[nrows] = (uint32_t)n;
	return nrows;
}

/* The entries of w by parked-at stack text, then name, then spawn stack
 * (the kept order) into sc->perm, and where the rows of g begin into
 * sc->tmp (*nrows of them, then n).  One counting sort by parked-at
 * stack, when there is one name, or by parked-at stack and name when
 * their pairs are no more than the entries; else two (name, then
 * parked-at stack).  STATUS_NOMEM. */
static enum status order_parked(const struct model *m, const struct window *w,
                                struct grouping g, struct group_memo *memo,
                                struct scratch *sc, size_t *nrows)
{
	size_t n = w->nentries, np = 0, nn = 0;
	struct group_memo once = { .m = m }, *mm = memo ? memo : &once;
	struct idspan ps, ns;
	struct idset h;

	read_ids(w, sc, &ps, &ns);
	set_plan(&ps, n, mm->nstacks);
	set_plan(&ns, n, mm->nnames);
	sc->words =
	    mem_realloc_array(NULL, size_max(size_max(ps.words, ns.words), 1),
	                      sizeof(*sc->words));
	if (!sc->words) {
		group_memo_fini(&once);
		return STATUS_NOMEM;
	}
	set_init(&h, &ps, sc->words);
	rank(m, sc->pid, n, false, &mm->stacks, &mm->nstacks, &h, sc, sc->prank,
	     &np);
	set_init(&h, &ns, sc->words);
	rank(m, sc->nid, n, true, &mm->names, &mm->nnames, &h, sc, sc->nrank,
	     &nn);
	group_memo_fini(&once);
	for (size_t i = 0; i < n; i++)
		sc->tmp[i] = (uint32_t)i;
	if (nn <= 1) {
		count_sort(sc->prank, np, sc->tmp, sc->perm, n, sc->count);
		*nrows = starts_by_key(sc, n, np, 1);
		return STATUS_OK;
	}
	if (np * nn <= n) {
		/* one key: the parked-at stack's rank, then the name's */
		for (size_t i = 0; i < n; i++)
			sc->prank[i] =
			    sc->prank[i] * (uint32_t)nn + sc->nrank[i];
		count_sort(sc->prank, np * nn, sc->tmp, sc->perm, n, sc->count);
		*nrows = starts_by_key(sc, n, np * nn, g.by_name ? 1 : nn);
		return STATUS_OK;
	}
	count_sort(sc->nrank, nn, sc->tmp, sc->perm, n, sc->count);
	memcpy(sc->tmp, sc->perm, n * sizeof(*sc->tmp));
	count_sort(sc->prank, np, sc->tmp, sc->perm, n, sc->count);
	*nrows =
	    g.by_name ? starts_by_ranks(sc, n) : starts_by_key(sc, n, np, 1);
	return STATUS_OK;
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

	if (scratch_new(&sc, n))
		return STATUS_NOMEM;
	if (order_parked(m, w, g, memo, &sc, &nrows) != STATUS_OK) {
		scratch_free(&sc);
		return STATUS_NOMEM;
	}
	sz = sizeof(*wp) + nrows * sizeof(*rows) + n * sizeof(*ent) +
	     nrows * sizeof(*byid);
	/* every row, entry and index is written below: only the head is
	 * zeroed (clearing megabytes of reused memory cost a pass more) */
	wp = mem_alloc(sz);
	if (!wp) {
		scratch_free(&sc);
		return STATUS_NOMEM;
	}
	*wp = (struct window_priv){ .byid = NULL };
	rows = (struct fold_row *)(void *)(wp + 1);
	ent = (struct fold_entry *)(void *)(rows + nrows);
	byid = (uint32_t *)(void *)(ent + n);
	for (size_t i = 0, r = 0; i < n; i++) {
		const struct fold_entry *e = &w->entries[sc.perm[i]];

		/* read out of order: fetched a few entries ahead */
		if (i + PARKED_AHEAD < n)
			model_prefetch(&w->entries[sc.perm[i + PARKED_AHEAD]]);
		ent[i] = *e;
		if (i == sc.tmp[r])
			rows[r++] =
			    (struct fold_row){ .stack = e->parked,
				               .name = g.by_name ? e->name : 0,
				               .first = (uint32_t)i };
		group_row_add(w, &rows[r - 1], e);
	}
	scratch_free(&sc);
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
