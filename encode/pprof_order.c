/* The pprof encoder's samples (docs/design.md §3): one per (stack text, task
 * name, leaf of the other stack), in that order; entries that read the
 * same (sanitising, or stacks that differ only above their leaf) are
 * merged, all-zero ones left out. */
#include "encode/pprof_int.h"

#include <string.h>

#include "model/sort.h"

/* Byte-wise order of the sanitised stack texts of rows a and b. */
static int cmp_row_text(const struct enc *e, size_t a, size_t b)
{
	size_t na = e->rowoff[a + 1] - e->rowoff[a];
	size_t nb = e->rowoff[b + 1] - e->rowoff[b];
	const uint32_t *fa = e->fr + e->rowoff[a], *fb = e->fr + e->rowoff[b];

	for (size_t i = 0; i < na && i < nb; i++) {
		int c = fa[i] == fb[i]
		            ? 0
		            : sv_cmp(pprof_str(e, fa[i]), pprof_str(e, fb[i]));
		if (c)
			return c;
	}
	return (na > nb) - (na < nb);
}

/* <0, 0, >0 as leaf a sorts before, with or after b: none first. */
static int cmp_leaf(const struct enc *e, uint32_t a, uint32_t b)
{
	if (a == b)
		return 0;
	if (a == NO_LEAF || b == NO_LEAF)
		return a == NO_LEAF ? -1 : 1;
	return sv_cmp(pprof_str(e, a), pprof_str(e, b));
}

/* True when the window's canonical order (rows by stack text, entries by
 * name) is already strictly ascending over the sanitised strings (names,
 * then leaves), so no sort and no merge is needed: the usual case. */
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
			uint32_t k = row->first + j;
			uint32_t a = e->ename[k - 1], b = e->ename[k];
			int c = a == b
			            ? 0
			            : sv_cmp(pprof_str(e, a), pprof_str(e, b));
			if (c == 0)
				c = cmp_leaf(e, e->eleaf[k - 1], e->eleaf[k]);
			if (c >= 0)
				return false;
		}
	}
	return true;
}

/* Appends the output sample of entries [start, start + count) of the
 * output order, unless all their values are zero. */
static bool add_osample(struct enc *e, uint32_t group, uint32_t row,
                        uint32_t name, uint32_t leaf, size_t start,
                        size_t count)
{
	struct osample *o = &e->os[e->nos];
	bool zero = true;

	for (size_t k = start; k < start + count && zero; k++)
		zero = metrics_zero(&e->w->entries[pprof_entry_at(e, k)].m);
	if (zero)
		return false;
	*o = (struct osample){ .group = group,
		               .row = row,
		               .name = name,
		               .start = (uint32_t)start,
		               .count = (uint32_t)count,
		               .leaf = leaf };
	for (size_t k = start; k < start + count; k++)
		extras_add(
		    &o->x,
		    window_extras(e->w, &e->w->entries[pprof_entry_at(e, k)]));
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
			any = add_osample(e, group, r, UINT32_MAX, NO_LEAF,
			                  row->first, row->count);
		} else {
			for (uint32_t j = 0; j < row->count; j++) {
				uint32_t k = row->first + j;
				any |= add_osample(e, group, r, e->ename[k],
				                   e->eleaf[k], k, 1);
			}
		}
		if (any) {
			e->nlocs += e->rowoff[r + 1] - e->rowoff[r];
			group++;
		}
	}
}

/* The general case, after sanitising made texts equal or changed their
 * order: rank every string, sort the rows by their frames' ranks, merge
 * rows that read the same, and merge and sort their entries by name. */
struct sorter {
	const struct enc *e;
	uint32_t *rank; /* per string id: its place in byte-wise order */
	uint32_t *frk;  /* fr as ranks */
	uint32_t *rows; /* row numbers, sorted by stack */
	uint32_t *tmp;  /* scratch of max(strings, rows) items */
	uint64_t *keys, *tkeys; /* name rank << 32 | leaf rank, per group */
	uint32_t *vals, *tvals; /* the entries */
};

static int cmp_str(const void *ctx, uint32_t a, uint32_t b)
{
	const struct enc *e = ctx;

	return sv_cmp(pprof_str(e, a), pprof_str(e, b));
}

static enum status rank_strings(struct sorter *s)
{
	const struct enc *e = s->e;
	size_t n = e->st.n;
	uint32_t *ids = pprof_array(n, sizeof(*ids));

	if (!ids)
		return STATUS_NOMEM;
	for (size_t i = 0; i < n; i++)
		ids[i] = (uint32_t)i;
	sort_merge(ids, s->tmp, n, cmp_str, e);
	for (size_t i = 0; i < n; i++)
		s->rank[ids[i]] = (uint32_t)i;
	mem_free(ids);
	return STATUS_OK;
}

static uint32_t row_depth(const struct enc *e, uint32_t r)
{
	return (uint32_t)(e->rowoff[r + 1] - e->rowoff[r]);
}

/* Rows by their frames' ranks, then by depth, then by number. */
static int cmp_rows(const void *ctx, uint32_t a, uint32_t b)
{
	const struct sorter *s = ctx;
	const uint32_t *x = s->frk + s->e->rowoff[a];
	const uint32_t *y = s->frk + s->e->rowoff[b];
	uint32_t da = row_depth(s->e, a), db = row_depth(s->e, b);
	uint32_t n = da < db ? da : db;

	for (uint32_t i = 0; i < n; i++) {
		if (x[i] != y[i])
			return x[i] < y[i] ? -1 : 1;
	}
	if (da != db)
		return da < db ? -1 : 1;
	return (a > b) - (a < b);
}

static bool same_stack(const struct sorter *s, uint32_t a, uint32_t b)
{
	uint32_t d = row_depth(s->e, a);

	return d == row_depth(s->e, b) &&
	       !memcmp(s->frk + s->e->rowoff[a], s->frk + s->e->rowoff[b],
	               d * sizeof(*s->frk));
}

/* The rank of a leaf, none first. */
static uint64_t leaf_rank(const struct sorter *s, uint32_t leaf)
{
	return leaf == NO_LEAF ? 0 : (uint64_t)s->rank[leaf] + 1;
}

/* Merges the entries of the rows rows[from..to) (one stack) by name and
 * leaf. */
static void merge_group(struct enc *e, struct sorter *s, size_t from, size_t to,
                        uint32_t group, size_t *used)
{
	const struct window *w = e->w;
	size_t n = 0, i, j, base = *used;
	bool any = false;

	for (i = from; i < to; i++) {
		const struct fold_row *row = &w->rows[s->rows[i]];
		for (uint32_t k = 0; k < row->count; k++) {
			uint32_t ent = row->first + k;
			uint64_t r = e->omit ? 0 : s->rank[e->ename[ent]];
			uint64_t l = e->omit ? 0 : leaf_rank(s, e->eleaf[ent]);
			s->keys[n] = r << 32 | l;
			s->vals[n++] = ent;
		}
	}
	sort_radix(s->keys, s->vals, s->tkeys, s->tvals, n);
	memcpy(e->order + base, s->vals, n * sizeof(*s->vals));
	*used += n;
	for (i = 0; i < n; i = j) {
		uint32_t first = e->order[base + i];
		for (j = i + 1; j < n && s->keys[j] == s->keys[i]; j++)
			;
		any |= add_osample(e, group, s->rows[from],
		                   e->omit ? UINT32_MAX : e->ename[first],
		                   e->omit ? NO_LEAF : e->eleaf[first],
		                   base + i, j - i);
	}
	if (any)
		e->nlocs += row_depth(e, s->rows[from]);
}

/* Sorts the rows by stack, then merges each run of equal stacks. */
static void sort_rows(struct enc *e, struct sorter *s)
{
	const struct window *w = e->w;
	size_t r, from, used = 0, nfr = e->rowoff[w->nrows];
	uint32_t group = 0;

	for (size_t i = 0; i < nfr; i++)
		s->frk[i] = s->rank[e->fr[i]];
	for (r = 0; r < w->nrows; r++)
		s->rows[r] = (uint32_t)r;
	sort_merge(s->rows, s->tmp, w->nrows, cmp_rows, s);
	for (from = 0; from < w->nrows; from = r) {
		size_t before = e->nos;
		for (r = from + 1;
		     r < w->nrows && same_stack(s, s->rows[from], s->rows[r]);
		     r++)
			;
		merge_group(e, s, from, r, group, &used);
		if (e->nos > before)
			group++;
	}
}

static enum status samples_sorted(struct enc *e)
{
	const struct window *w = e->w;
	size_t ne = w->nentries;
	struct sorter s;
	enum status st = STATUS_NOMEM;

	memset(&s, 0, sizeof(s));
	s.e = e;
	s.rank = pprof_array(e->st.n, sizeof(*s.rank));
	s.tmp = pprof_array(size_max(e->st.n, w->nrows), sizeof(*s.tmp));
	s.frk = pprof_array(e->rowoff[w->nrows], sizeof(*s.frk));
	s.rows = pprof_array(w->nrows, sizeof(*s.rows));
	s.keys = pprof_array(ne, sizeof(*s.keys));
	s.tkeys = pprof_array(ne, sizeof(*s.tkeys));
	s.vals = pprof_array(ne, sizeof(*s.vals));
	s.tvals = pprof_array(ne, sizeof(*s.tvals));
	e->order = pprof_array(ne, sizeof(*e->order));
	if (s.rank && s.tmp && s.frk && s.rows && s.keys && s.tkeys && s.vals &&
	    s.tvals && e->order)
		st = rank_strings(&s);
	if (st == STATUS_OK)
		sort_rows(e, &s);
	mem_free(s.rank);
	mem_free(s.tmp);
	mem_free(s.frk);
	mem_free(s.rows);
	mem_free(s.keys);
	mem_free(s.tkeys);
	mem_free(s.vals);
	mem_free(s.tvals);
	return st;
}

enum status pprof_order_build(struct enc *e)
{
	e->os = pprof_array(e->w->nentries, sizeof(*e->os));
	if (!e->os)
		return STATUS_NOMEM;
	if (window_in_order(e)) {
		samples_in_order(e);
		return STATUS_OK;
	}
	return samples_sorted(e);
}
