/* A filter key without the index (view_index_scan): the first key on a
 * window whose index is far from built reads the window's stacks and
 * frames once, in the order of their stack ids, then the task names of
 * the rows whose frames missed. */
#include "tui/view_search.h"

#include <string.h>

#include "model/alloc.h"
#include "tui/view_index.h"

/* Whether frame id of m holds ask: kept, or searched and kept in its
 * slot. */
static bool frame_hits(struct view_index *ix, const struct model *m,
                       uint32_t id)
{
	struct view_slot *c =
	    &ix->fcache[(uint32_t)(id * 2654435769u) >> (32 - FCACHE_BITS)];
	bool hit;

	if (c->id == id && c->val >> 1 == ix->gen)
		return c->val & 1;
	hit = vsearch_hits(model_frame(m, id), ix->ask, ix->ask_len);
	c->id = id;
	c->val = ix->gen << 1 | hit;
	return hit;
}

/* The depth of the first frame of fs (d frames, root first) that holds
 * ask, or SIZE_MAX: the frames before p are known not to. */
static size_t first_hit(struct view_index *ix, const struct model *m,
                        const uint32_t *fs, size_t d, size_t p)
{
	for (; p < d; p++)
		if (frame_hits(ix, m, fs[p]))
			return p;
	return SIZE_MAX;
}

/* The task names of the rows pend marks, in row order (the order of the
 * rows' and entries' memory): match follows whether one holds ask. */
static void scan_names(struct view_index *ix, const struct model *m,
                       const struct window *w, uint64_t *match)
{
	for (size_t r = 0; r < w->nrows; r++) {
		const struct fold_row *fr;
		bool hit = false;

		if (!ix->pend[r / 64]) {
			r |= 63; /* none in this word */
			continue;
		}
		if (!vsearch_bit(ix->pend, r))
			continue;
		fr = &w->rows[r];
		for (uint32_t i = 0; !hit && i < fr->count; i++)
			hit = vindex_name_hits(ix, m,
			                       w->entries[fr->first + i].name);
		if (hit != vsearch_bit(match, r))
			match[r / 64] ^= (uint64_t)1 << (r % 64);
	}
}

/* Stacks a scan looks up before it reads them. */
#define SCAN_BATCH 16

enum status view_index_scan(struct view_index *ix, const struct model *m,
                            const struct window *w, const char *f, size_t len,
                            uint64_t *match, enum vsearch_rows rows)
{
	const uint32_t *prev = NULL;
	size_t pd = 0, ph = SIZE_MAX; /* prev's depth and first hit */
	size_t words = (w->nrows + 63) / 64;

	/* the rows in the order of their stack ids, which is about that of
	 * the model's memory (in row order nearly every stack read misses
	 * the cache): the build's sort, made or finished here, kept for
	 * the steps between keys */
	if ((!view_tag_holds(&ix->btag, w) || ix->bm != m) &&
	    vindex_build_begin(ix, m, w) != STATUS_OK) {
		ix->btag.ok = false;
		return STATUS_NOMEM;
	}
	vindex_rows(ix, SIZE_MAX);
	if (mem_grow(&ix->pend, &ix->pend_cap, words, sizeof(*ix->pend)))
		return STATUS_NOMEM;
	memset(ix->pend, 0, words * sizeof(*ix->pend));
	vindex_answers_for(ix, f, len);
	for (size_t e0 = 0; e0 < w->nrows; e0 += SCAN_BATCH) {
		size_t end =
		    w->nrows - e0 > SCAN_BATCH ? e0 + SCAN_BATCH : w->nrows;
		const uint32_t *bfs[SCAN_BATCH] = { NULL };
		size_t bd[SCAN_BATCH] = { 0 };
		bool look[SCAN_BATCH] = { false };

		/* a batch's stacks looked up first, then their leaves'
		 * text fetched ahead: their reads miss the cache, and
		 * made side by side they are waited for about once */
		for (size_t e = e0; e < end; e++) {
			size_t i = e - e0, r = ix->ord[e];
			bool was = vsearch_bit(match, r);
			uint32_t id =
			    e < ix->bpos ? w->rows[r].stack : ix->est[e];

			look[i] = !((rows == VSEARCH_SET && !was) ||
			            (rows == VSEARCH_CLEAR && was));
			if (!look[i])
				continue;
			bfs[i] = model_stack(m, id, &bd[i]);
			if (bfs[i])
				model_prefetch(bfs[i]);
		}
		for (size_t e = e0; e < end; e++) {
			size_t i = e - e0;

			if (bd[i])
				model_prefetch(
				    model_frame(m, bfs[i][bd[i] - 1]).ptr);
		}
		for (size_t e = e0; e < end; e++) {
			size_t i = e - e0, r = ix->ord[e], d = bd[i], p = 0;
			size_t h = ph;
			bool was = vsearch_bit(match, r);
			const uint32_t *fs = bfs[i];

			if (!look[i])
				continue;
			/* a hit in the prefix a stack shares with the last
			 * one read is its too, and a miss there needs no
			 * search */
			while (p < d && p < pd && fs[p] == prev[p])
				p++;
			if (ph >= p)
				h = first_hit(ix, m, fs, d, p);
			prev = fs;
			pd = d;
			ph = h;
			if (h == SIZE_MAX)
				vindex_set_bit(ix->pend, r);
			else if (!was)
				vindex_set_bit(match, r);
		}
	}
	scan_names(ix, m, w, match);
	view_tag_set(&ix->scanned, w);
	return STATUS_OK;
}
