/* The filter's index: the frames and stacks of a model's windows,
 * case-folded once (tui/view_fold.c) and kept across windows, that a
 * filter key searches, with what each stack and task name was found to
 * hold for the filter. */
#include "tui/view_search.h"

#include <string.h>

#include "model/alloc.h"
#include "tui/view_index.h"

enum status view_index_new(struct view_index **out)
{
	struct view_index *ix = mem_calloc(1, sizeof(*ix));

	if (!ix)
		return STATUS_NOMEM;
	*out = ix;
	return STATUS_OK;
}

void view_index_free(struct view_index *ix)
{
	if (!ix)
		return;
	vmap_fini(&ix->frames);
	vtable_fini(&ix->names);
	vmap_fini(&ix->stacks);
	mem_free(ix->text);
	mem_free(ix->soff);
	mem_free(ix->sref);
	mem_free(ix->stk);
	mem_free(ix->ord);
	mem_free(ix->est);
	mem_free(ix->ids);
	mem_free(ix->rname);
	mem_free(ix->used);
	mem_free(ix->hits);
	mem_free(ix->sknown);
	mem_free(ix->shit);
	mem_free(ix->pend);
	mem_free(ix);
}

static void clear_bit(uint64_t *b, size_t i)
{
	b[i / 64] &= ~((uint64_t)1 << (i % 64));
}

/* Clears bits from .. to - 1. */
static void clear_bits(uint64_t *b, size_t from, size_t to)
{
	for (; from < to && from % 64; from++)
		clear_bit(b, from);
	if (from < to)
		memset(b + from / 64, 0, ((to - from + 63) / 64) * sizeof(*b));
}

static void index_reset(struct view_index *ix, const struct model *m)
{
	vmap_clear(&ix->frames);
	vtable_clear(&ix->names);
	vmap_clear(&ix->stacks);
	memset(ix->fcache, 0, sizeof(ix->fcache));
	ix->m = m;
	ix->stale = false;
	ix->text_len = ix->nstr = ix->nsref = ix->nstk = 0;
	ix->tag.ok = false;
	ix->hits_ok = false;
	ix->hits_n = 0;
	ix->used_n = 0;
}

/* The string number of a frame, adding it, case-folded, when new. */
static enum status index_str(struct view_index *ix, uint32_t id, uint32_t *out)
{
	uint32_t *e = vmap_at(&ix->frames, id);
	struct strview s;

	if (!e)
		return STATUS_NOMEM;
	if (*e) {
		*out = *e - 1;
		return STATUS_OK;
	}
	s = model_frame(ix->m, id);
	if (ix->nstr >= UINT32_MAX - 1 || s.len > SIZE_MAX - ix->text_len ||
	    mem_grow(&ix->text, &ix->text_cap, ix->text_len + s.len, 1) ||
	    mem_grow(&ix->soff, &ix->soff_cap, ix->nstr + 2, sizeof(*ix->soff)))
		return STATUS_NOMEM;
	vsearch_fold_span(s, 0, s.len, ix->text + ix->text_len);
	ix->text_len += s.len;
	ix->soff[ix->nstr + 1] = ix->text_len;
	*e = (uint32_t)ix->nstr + 1;
	ix->frames.n++;
	*out = (uint32_t)ix->nstr++;
	return STATUS_OK;
}

/* Adds stack id (its slot e, free) as stack number nstk: its depth, then
 * its frames' strings, leaf first, at the end of sref; nothing known of it
 * for the pattern yet. */
static enum status add_stack(struct view_index *ix, uint32_t *e, uint32_t id)
{
	size_t depth = 0, k = ix->nstk;
	const uint32_t *frames = model_stack(ix->m, id, &depth);

	if (depth >= UINT32_MAX - 1 - ix->nsref || k >= UINT32_MAX - 1 ||
	    mem_grow(&ix->sref, &ix->sref_cap, ix->nsref + 1 + depth,
	             sizeof(*ix->sref)) ||
	    mem_grow(&ix->stk, &ix->stk_cap, k + 1, sizeof(*ix->stk)))
		return STATUS_NOMEM;
	if (k / 64 >= ix->sbits_cap) {
		size_t words = ix->sbits_cap, cap = words;

		if (mem_grow(&ix->sknown, &cap, k / 64 + 1,
		             sizeof(*ix->sknown)) ||
		    mem_grow(&ix->shit, &words, cap, sizeof(*ix->shit)))
			return STATUS_NOMEM;
		ix->sbits_cap = cap < words ? cap : words;
	}
	for (size_t i = 0; i < depth; i++)
		if (index_str(ix, frames[depth - 1 - i],
		              &ix->sref[ix->nsref + 1 + i]) != STATUS_OK)
			return STATUS_NOMEM;
	clear_bit(ix->sknown, k);
	clear_bit(ix->shit, k);
	ix->sref[ix->nsref] = (uint32_t)depth;
	ix->stk[k] = (uint32_t)ix->nsref;
	*e = (uint32_t)k + 1;
	ix->nsref += 1 + depth;
	ix->stacks.n++;
	ix->nstk++;
	return STATUS_OK;
}

/* Sorts the rows of btag's window by stack id into ord, with their ids in
 * est, near enough: by BUCKETS ranges of ids, in row order within one.
 * Three passes over the rows (their ids read, counted, placed), of about
 * budget rows a call all told; the next call goes on from there. */
void vindex_rows(struct view_index *ix, size_t budget)
{
	const struct window *w = ix->btag.w;
	size_t n = w->nrows, *b = ix->bucket, cost = 0;
	uint32_t *ids = ix->ids, *ord = ix->ord, *est = ix->est;
	uint32_t lo = ix->slo, hi = ix->shi;
	unsigned shift = ix->sshift;

	while (ix->sort != SORT_DONE && cost < budget) {
		size_t r = ix->spos,
		       end = n - r < budget - cost ? n : r + (budget - cost);

		cost += end - r + 1;
		if (ix->sort == SORT_READ) {
			for (; r < end; r++) {
				uint32_t id = w->rows[r].stack;

				ids[r] = id;
				lo = id < lo ? id : lo;
				hi = id > hi ? id : hi;
			}
		} else if (ix->sort == SORT_COUNT) {
			for (; r < end; r++)
				b[(ids[r] - lo) >> shift]++;
		} else {
			for (; r < end; r++) {
				size_t e = b[(ids[r] - lo) >> shift]++;

				ord[e] = (uint32_t)r;
				est[e] = ids[r];
			}
		}
		ix->spos = r;
		if (r < n)
			break;
		if (ix->sort == SORT_READ) {
			while (n && (hi - lo) >> shift >= BUCKETS)
				shift++;
			memset(b, 0, sizeof(ix->bucket));
		} else if (ix->sort == SORT_COUNT) {
			for (size_t i = 0, sum = 0; i <= BUCKETS; i++) {
				size_t c = b[i];
				b[i] = sum;
				sum += c;
			}
		}
		ix->sort++;
		ix->spos = 0;
	}
	ix->slo = lo;
	ix->shi = hi;
	ix->sshift = shift;
}

bool view_index_current(const struct view_index *ix, const struct model *m,
                        const struct window *w)
{
	return view_tag_holds(&ix->tag, w) && ix->m == m;
}

/* Counts the strings the window refers to; when they are few beside all
 * the index holds (mostly strings of older windows), it starts over at the
 * next build. */
static enum status count_used(struct view_index *ix, size_t n)
{
	size_t used = 0;

	if (mem_grow(&ix->used, &ix->used_cap, ix->nstr / 64 + 1,
	             sizeof(*ix->used)))
		return STATUS_NOMEM;
	memset(ix->used, 0, (ix->nstr / 64 + 1) * sizeof(*ix->used));
	for (size_t e = 0; e < n; e++) {
		const uint32_t *s = ix->sref + ix->stk[ix->est[e]];

		for (size_t i = 1; i <= s[0]; i++) {
			if (!vsearch_bit(ix->used, s[i])) {
				vindex_set_bit(ix->used, s[i]);
				used++;
			}
		}
	}
	ix->used_n = used;
	ix->stale = ix->nstr > 2 * used + 4096;
	return STATUS_OK;
}

/* Whether vindex_build_begin would start the index over for a window of n rows
 * of m. */
static bool starts_over(const struct view_index *ix, const struct model *m,
                        size_t n)
{
	return ix->m != m || ix->stale || ix->stacks.n > 2 * n + 4096;
}

/* Starts a build of the rows of w (m's): sorts them by stack id, starting
 * the index over when it holds another model's ids or mostly those of
 * windows gone. */
enum status vindex_build_begin(struct view_index *ix, const struct model *m,
                               const struct window *w)
{
	size_t n = w->nrows;
	bool fresh = starts_over(ix, m, n);

	ix->btag.ok = false;
	if (fresh)
		index_reset(ix, m);
	/* room for a stack and a frame a row, of about 4 frames and 32
	 * bytes, so that the first build does not copy them as they grow */
	if (fresh && n < SIZE_MAX / 64 &&
	    (mem_grow(&ix->sref, &ix->sref_cap, 5 * n, sizeof(*ix->sref)) ||
	     mem_grow(&ix->stk, &ix->stk_cap, n, sizeof(*ix->stk)) ||
	     mem_grow(&ix->text, &ix->text_cap, 32 * n, 1) ||
	     mem_grow(&ix->soff, &ix->soff_cap, n + 1, sizeof(*ix->soff))))
		return STATUS_NOMEM;
	if (ix->names.n > 2 * w->nentries + 4096)
		vtable_clear(&ix->names);
	ix->tag.ok = false;
	if (mem_grow(&ix->soff, &ix->soff_cap, ix->nstr + 1,
	             sizeof(*ix->soff)) ||
	    mem_grow(&ix->ord, &ix->ord_cap, n, sizeof(*ix->ord)) ||
	    mem_grow(&ix->est, &ix->est_cap, n, sizeof(*ix->est)) ||
	    mem_grow(&ix->ids, &ix->ids_cap, n, sizeof(*ix->ids)))
		return STATUS_NOMEM;
	ix->soff[ix->nstr] = ix->text_len;
	ix->bm = m;
	ix->bpos = 0;
	ix->bfresh = fresh;
	ix->sort = SORT_READ;
	ix->spos = 0;
	ix->slo = UINT32_MAX;
	ix->shi = 0;
	ix->sshift = 0;
	view_tag_set(&ix->btag, w);
	return STATUS_OK;
}

/* Maps the rows from bpos to their stack numbers, adding the stacks not
 * met before, until about budget frames were read; then, with every row
 * mapped, ends the build. */
static enum status build_more(struct view_index *ix, size_t budget, bool *done)
{
	const struct window *w = ix->btag.w;
	size_t n = w->nrows, e = ix->bpos, cost = 0;

	for (; e < n && cost < budget; e++) {
		uint32_t id = ix->est[e];
		uint32_t *s = vmap_at(&ix->stacks, id);

		if (!s)
			return STATUS_NOMEM;
		cost++;
		if (!*s) {
			if (add_stack(ix, s, id) != STATUS_OK)
				return STATUS_NOMEM;
			cost += ix->sref[ix->stk[*s - 1]]; /* its frames */
		}
		ix->est[e] = *s - 1;
	}
	ix->bpos = e;
	if (e < n)
		return STATUS_OK;
	/* when the strings have doubled since last counted (all are used
	 * when the index starts over) */
	if (ix->bfresh)
		ix->used_n = ix->nstr;
	else if (ix->nstr > 2 * ix->used_n + 4096 &&
	         count_used(ix, n) != STATUS_OK)
		return STATUS_NOMEM;
	ix->rname_ok = false;
	ix->btag.ok = false;
	view_tag_set(&ix->tag, w);
	*done = true;
	return STATUS_OK;
}

enum status view_index_step(struct view_index *ix, const struct model *m,
                            const struct window *w, size_t budget, bool *done)
{
	*done = view_index_current(ix, m, w);
	if (*done)
		return STATUS_OK;
	if ((!view_tag_holds(&ix->btag, w) || ix->bm != m) &&
	    vindex_build_begin(ix, m, w) != STATUS_OK)
		goto nomem;
	if (ix->sort != SORT_DONE) {
		vindex_rows(ix, budget);
		/* the sort's steps are their own */
		if (budget != SIZE_MAX)
			return STATUS_OK;
	}
	if (build_more(ix, budget, done) != STATUS_OK)
		goto nomem;
	return STATUS_OK;
nomem:
	ix->btag.ok = false;
	return STATUS_NOMEM;
}

enum status view_index_build(struct view_index *ix, const struct model *m,
                             const struct window *w)
{
	bool done;

	return view_index_step(ix, m, w, SIZE_MAX, &done);
}

/* Sets the bit of each string from `from` on that holds f (folded, len
 * >= 1): one pass over their text, jumping to the next string on a hit. */
static void index_scan(struct view_index *ix, size_t from, const char *f,
                       size_t len)
{
	const char *t = ix->text, *p, *q, *end;
	size_t k = from;

	if (!ix->text_len)
		return;
	p = t + ix->soff[from];
	end = t + ix->text_len;
	while (len <= (size_t)(end - p) &&
	       (q = memchr(p, f[0], (size_t)(end - p) - len + 1))) {
		size_t at = (size_t)(q - t);

		if (memcmp(q + 1, f + 1, len - 1)) {
			p = q + 1;
			continue;
		}
		while (ix->soff[k + 1] <= at)
			k++;
		if (at + len <= ix->soff[k + 1]) {
			vindex_set_bit(ix->hits, k);
			p = t + ix->soff[k + 1];
		} else {
			p = q + 1;
		}
	}
}

/* Keeps, of what is known of the stacks, what the search for f cannot
 * change: op 1 the misses (f holds the last pattern), op 2 the hits (the
 * last pattern holds f), op 0 nothing. */
static void stacks_keep(struct view_index *ix, int op)
{
	size_t words = (ix->nstk + 63) / 64;

	for (size_t i = 0; i < words; i++) {
		ix->sknown[i] &= op == 1   ? ~ix->shit[i]
		                 : op == 2 ? ix->shit[i]
		                           : 0;
		if (op != 2)
			ix->shit[i] = 0;
	}
}

/* Makes the answers kept for names and frames those for f (len >= 1):
 * those for another string are forgotten (all, when gen comes round). */
void vindex_answers_for(struct view_index *ix, const char *f, size_t len)
{
	if (ix->ask_ok && ix->ask_len == len && !memcmp(ix->ask, f, len))
		return;
	if (++ix->gen >= UINT32_MAX / 2) {
		vtable_clear(&ix->names);
		memset(ix->fcache, 0, sizeof(ix->fcache));
		ix->gen = 1;
	}
	memcpy(ix->ask, f, len);
	ix->ask_len = len;
	ix->ask_ok = true;
}

/* Brings hits up to date for f (folded, len >= 1): only the strings added
 * since, when f is the last one; when the last one is a part of f, only
 * the strings that held it, and the new ones; else all.  What is known of
 * the stacks follows. */
enum status view_index_search(struct view_index *ix, const char *f, size_t len)
{
	size_t from = 0;

	if (mem_grow(&ix->hits, &ix->hits_cap, ix->nstr / 64 + 1,
	             sizeof(*ix->hits)))
		return STATUS_NOMEM;
	if (ix->hits_ok && ix->hits_len == len &&
	    !memcmp(ix->hits_fold, f, len)) {
		from = ix->hits_n;
	} else if (ix->hits_ok &&
	           vsearch_find(f, len, ix->hits_fold, ix->hits_len)) {
		for (size_t s = 0; s < ix->hits_n; s++)
			if (vsearch_bit(ix->hits, s) &&
			    !vsearch_find(ix->text + ix->soff[s],
			                  ix->soff[s + 1] - ix->soff[s], f,
			                  len))
				clear_bit(ix->hits, s);
		from = ix->hits_n;
		stacks_keep(ix, 1);
	} else {
		bool wider = ix->hits_ok &&
		             vsearch_find(ix->hits_fold, ix->hits_len, f, len);

		stacks_keep(ix, wider ? 2 : 0);
	}
	clear_bits(ix->hits, from, ix->nstr);
	if (from < ix->nstr)
		index_scan(ix, from, f, len);
	vindex_answers_for(ix, f, len);
	ix->hits_ok = true;
	ix->hits_n = ix->nstr;
	memcpy(ix->hits_fold, f, len);
	ix->hits_len = len;
	return STATUS_OK;
}

/* Whether one of the frames of stack number k holds the filter: known, or
 * found and kept. */
static bool stack_hits(struct view_index *ix, uint32_t k)
{
	const uint32_t *s = ix->sref + ix->stk[k];
	bool hit = false;

	if (vsearch_bit(ix->sknown, k))
		return vsearch_bit(ix->shit, k);
	for (uint32_t i = 1; i <= s[0] && !hit; i++)
		hit = vsearch_bit(ix->hits, s[i]);
	vindex_set_bit(ix->sknown, k);
	if (hit)
		vindex_set_bit(ix->shit, k);
	return hit;
}

/* Whether task name id (of m, the index's model) holds ask: known, or
 * found and kept (when there is room). */
bool vindex_name_hits(struct view_index *ix, const struct model *m, uint32_t id)
{
	struct view_table *t = &ix->names;
	struct view_slot *e;
	bool hit;

	/* the rows of a name often follow each other */
	if (id == ix->last_name && ix->last_gen == ix->gen)
		return ix->last_hit;
	ix->last_name = id;
	ix->last_gen = ix->gen;
	if (vtable_reserve(t, t->n + 1) == STATUS_OK) {
		e = vtable_at(t, id);
		if (e->id && e->val >> 1 == ix->gen)
			return ix->last_hit = e->val & 1;
	} else {
		e = NULL;
	}
	hit = vsearch_hits_slow(model_name(m, id), ix->ask, ix->ask_len);
	if (e) {
		t->n += !e->id;
		e->id = id;
		e->val = ix->gen << 1 | hit;
	}
	return ix->last_hit = hit;
}

/* Makes rname for the rows of tag's window (without memory, the rows'
 * entries are read each time). */
static void row_names(struct view_index *ix)
{
	const struct window *w = ix->tag.w;

	if (mem_grow(&ix->rname, &ix->rname_cap, w->nrows, sizeof(*ix->rname)))
		return;
	for (size_t r = 0; r < w->nrows; r++) {
		const struct fold_row *fr = &w->rows[r];

		ix->rname[r] = fr->count == 1 ? w->entries[fr->first].name : 0;
	}
	ix->rname_ok = true;
}

const uint32_t *view_index_order(const struct view_index *ix)
{
	return ix->ord;
}

bool view_index_entry_hits(struct view_index *ix, size_t e)
{
	const struct window *w = ix->tag.w;
	size_t row = ix->ord[e];
	const struct fold_row *r;

	if (stack_hits(ix, ix->est[e]))
		return true;
	if (!ix->rname_ok)
		row_names(ix);
	if (ix->rname_ok && ix->rname[row])
		return vindex_name_hits(ix, ix->m, ix->rname[row]);
	r = &w->rows[row];
	for (uint32_t i = 0; i < r->count; i++)
		if (vindex_name_hits(ix, ix->m, w->entries[r->first + i].name))
			return true;
	return false;
}

bool view_index_far(const struct view_index *ix, const struct model *m,
                    const struct window *w)
{
	return !view_index_current(ix, m, w) && !view_index_scanned(ix, m, w) &&
	       (starts_over(ix, m, w->nrows) || ix->stacks.n < w->nrows / 2);
}

bool view_index_building(const struct view_index *ix, const struct model *m,
                         const struct window *w)
{
	return view_tag_holds(&ix->btag, w) && ix->bm == m;
}

bool view_index_scanned(const struct view_index *ix, const struct model *m,
                        const struct window *w)
{
	return view_tag_holds(&ix->scanned, w) && ix->m == m;
}

bool view_idle_wanted(const struct view *v, const struct model *m,
                      const struct window *w)
{
	return w && !view_tag_holds(&v->idle_failed, w) &&
	       !(v->ix && view_index_current(v->ix, m, w));
}

enum status view_idle_step(struct view *v, const struct model *m,
                           const struct window *w, size_t budget)
{
	bool done;

	if ((!v->ix && view_index_new(&v->ix) != STATUS_OK) ||
	    view_index_step(v->ix, m, w, budget, &done) != STATUS_OK) {
		/* not again for w: the key builds it */
		view_tag_set(&v->idle_failed, w);
		return STATUS_NOMEM;
	}
	return STATUS_OK;
}
