/* A kept window split by name under the spawn stack (model_group,
 * model_split_step).  The kept order is the asked one already (rows by
 * spawn stack, then entries by name): the derived window shares the
 * entries and only cuts its rows.
 *
 * One pass makes the rows into room for as many rows as there are
 * entries (the most a split can make: a pass that counted them first read
 * every kept row and entry twice), then the by-id index, and the block is
 * cut to what it holds.  Most kept rows hold one name and make one row
 * each: when all do, the split's rows are the kept ones in the same
 * places, and the kept index is the split's as it is (sorting each
 * stack's rows by name cost a fifth of the split at 100,000 rows). */
#include "model/model.h"

#include <stdint.h>
#include <string.h>

#include "model/alloc.h"
#include "model/group_int.h"
#include "model/sort.h"

/* A stack's names sorted by insertion up to this many */
#define SPLIT_FEW 32

static struct fold_row *rows_of(const struct group_step *s)
{
	return (struct fold_row *)(void *)(s->wp + 1);
}

/* The window being made, with room for a row and an index entry per
 * entry of w (only the head zeroed: every row and index entry is written
 * as it is made), and where each kept row's rows begin. */
static enum status split_alloc(const struct window *w, struct group_step *s)
{
	size_t per = sizeof(struct fold_row) + sizeof(uint32_t);

	if (w->nentries > (SIZE_MAX - sizeof(*s->wp)) / per)
		return STATUS_NOMEM;
	s->sz = sizeof(*s->wp) + w->nentries * per;
	s->wp = mem_alloc(s->sz);
	if (s->wp)
		*s->wp = (struct window_priv){ .byid = NULL };
	s->start = mem_realloc_array(NULL, w->nrows + 1, sizeof(*s->start));
	return s->wp && s->start ? STATUS_OK : STATUS_NOMEM;
}

/* Kept rows of w from s->at on, while *left entries remain (a row's all
 * at once), made into rows: each kept row cut where the name changes. */
static void split_make(const struct window *w, struct group_step *s,
                       size_t *left)
{
	struct fold_row *rows = rows_of(s);

	for (; s->at < w->nrows && *left; s->at++) {
		const struct fold_row *kept = &w->rows[s->at];
		uint32_t first = kept->first, n = kept->count;
		const struct fold_entry *e = w->entries + first;
		size_t from = s->out;

		s->start[s->at] = (uint32_t)from;
		/* a row's entries are by name: one name from the first to the
		 * last is a row as it is (its sums the same, in any order),
		 * copied without reading the entries between */
		if (n && e[0].name == e[n - 1].name) {
			rows[s->out] = *kept;
			rows[s->out++].name = e[0].name;
			*left -= size_min(*left, 1);
			continue;
		}
		for (uint32_t i = 0; i < n; i++) {
			if (!i || e[i].name != e[i - 1].name)
				rows[s->out++] =
				    (struct fold_row){ .stack = e[i].stack,
					               .name = e[i].name,
					               .first = first + i };
			group_row_add(w, &rows[s->out - 1], &e[i]);
		}
		/* none (no entries) or several: not a row each */
		s->several = true;
		s->most = size_max(s->most, s->out - from);
		*left -= size_min(*left, n ? n : 1);
	}
}

/* The by-id index, from the kept row s->at and the index's place s->out
 * on, while *left rows remain (a stack's rows all at once).  A row each:
 * the kept index.  Else the kept window's by-id order of stacks, each
 * stack's rows by name id: by insertion when they are few, else by a
 * radix sort (in s->keys and s->vals, 2 * s->most each). */
static void split_byid(const struct window *w, struct group_step *s,
                       size_t *left)
{
	const uint32_t *kept =
	    ((const struct window_priv *)(const void *)w)->byid;
	const struct fold_row *rows = rows_of(s);
	uint32_t *byid = (uint32_t *)(void *)(rows_of(s) + s->nrows);

	if (!s->several) {
		size_t k = size_min(*left, w->nrows - s->at);

		memcpy(byid + s->at, kept + s->at, k * sizeof(*byid));
		s->at += k;
		s->out = s->at;
		*left -= k;
		return;
	}
	for (; s->at < w->nrows && *left; s->at++) {
		uint32_t r = kept[s->at], a = s->start[r],
		         nr = s->start[r + 1] - a;

		if (nr > SPLIT_FEW) {
			for (uint32_t k = 0; k < nr; k++) {
				s->keys[k] = rows[a + k].name;
				s->vals[k] = a + k;
			}
			sort_radix(s->keys, s->vals, s->keys + s->most,
			           s->vals + s->most, nr);
			memcpy(byid + s->out, s->vals, nr * sizeof(*byid));
		}
		for (uint32_t k = 0; nr <= SPLIT_FEW && k < nr; k++) {
			size_t j = s->out + k;

			for (; j > s->out &&
			       rows[byid[j - 1]].name > rows[a + k].name;
			     j--)
				byid[j] = byid[j - 1];
			byid[j] = a + k;
		}
		s->out += nr;
		*left -= size_min(*left, nr ? nr : 1);
	}
}

/* The window made whole: its block cut to the rows and index it holds
 * (a failure to cut keeps it whole: only room is lost). */
static void split_close(const struct window *w, struct group_step *s)
{
	size_t sz = sizeof(*s->wp) +
	            s->nrows * (sizeof(struct fold_row) + sizeof(uint32_t));
	struct fold_row *rows;

	/* the index was written right after the rows, inside sz */
	if (sz < s->sz) {
		struct window_priv *cut = mem_realloc(s->wp, sz);

		if (cut) {
			s->wp = cut;
			s->sz = sz;
		}
	}
	rows = rows_of(s);
	s->wp->pub.nrows = s->nrows;
	s->wp->pub.rows = rows;
	/* shared: the same order */
	s->wp->pub.entries = w->entries;
	s->wp->pub.bytes = s->sz;
	s->wp->byid = (uint32_t *)(void *)(rows + s->nrows);
}

/* Goes on with s (begun on w) for about budget entries or rows: the rows
 * made, then the by-id index; s->phase is SPLIT_DONE once s->wp is whole.
 * STATUS_NOMEM: s is to be freed. */
static enum status split_on(const struct window *w, struct group_step *s,
                            size_t budget)
{
	size_t left = budget ? budget : 1;

	while (s->phase != SPLIT_DONE && left) {
		if (s->phase == SPLIT_MAKE) {
			if (!s->wp && split_alloc(w, s) != STATUS_OK)
				return STATUS_NOMEM;
			split_make(w, s, &left);
			if (s->at < w->nrows)
				break;
			s->nrows = s->out;
			s->start[w->nrows] = (uint32_t)s->nrows;
			if (s->several && s->most > SPLIT_FEW) {
				s->keys = mem_realloc_array(NULL, 2 * s->most,
				                            sizeof(*s->keys));
				s->vals = mem_realloc_array(NULL, 2 * s->most,
				                            sizeof(*s->vals));
				if (!s->keys || !s->vals)
					return STATUS_NOMEM;
			}
			s->at = s->out = 0;
			s->phase = SPLIT_BYID;
			continue;
		}
		split_byid(w, s, &left);
		if (s->at < w->nrows)
			break;
		split_close(w, s);
		s->phase = SPLIT_DONE;
	}
	return STATUS_OK;
}

void group_step_fini(struct group_step *s)
{
	mem_free(s->wp);
	mem_free(s->start);
	mem_free(s->keys);
	mem_free(s->vals);
	*s = (struct group_step){ .src = NULL };
}

/* The window s made, taken from s (which then holds nothing). */
static struct window_priv *split_take(struct group_step *s)
{
	struct window_priv *wp = s->wp;

	s->wp = NULL;
	group_step_fini(s);
	return wp;
}

enum status group_split(const struct window *w, struct window_priv **out)
{
	struct group_step s = { .src = w, .phase = SPLIT_MAKE };

	if (split_on(w, &s, SIZE_MAX) != STATUS_OK) {
		group_step_fini(&s);
		return STATUS_NOMEM;
	}
	*out = split_take(&s);
	return STATUS_OK;
}

enum status model_split_step(const struct model *m, const struct window *w,
                             struct group_step *s, size_t budget,
                             const struct window **out)
{
	if (!out)
		return STATUS_INVAL;
	*out = NULL;
	if (!m || !w || !s || model_window_seq(m, w->seq) != w ||
	    w->group.key != GROUP_SPAWN || w->group.by_name)
		return STATUS_INVAL;
	if (s->phase == SPLIT_NONE || s->src != w || s->seq != w->seq) {
		group_step_fini(s);
		*s = (struct group_step){ .src = w,
			                  .seq = w->seq,
			                  .phase = SPLIT_MAKE };
	}
	if (split_on(w, s, budget) != STATUS_OK) {
		group_step_fini(s);
		return STATUS_NOMEM;
	}
	if (s->phase != SPLIT_DONE)
		return STATUS_OK;
	*out = group_finish(
	    split_take(s), w,
	    (struct grouping){ .key = GROUP_SPAWN, .by_name = true });
	return STATUS_OK;
}
