/* Sorted views of a window's rows: a stable radix sort of (key, row). */
#include "model/order.h"

#include <string.h>

#include "model/alloc.h"
#include "model/model.h"
#include "model/sort.h"

void order_init(struct order *o)
{
	memset(o, 0, sizeof(*o));
}

void order_fini(struct order *o)
{
	mem_free(o->idx);
	mem_free(o->scratch);
	mem_free(o->rows);
	order_init(o);
}

/* keys, their copy, and the values' copy (two uint32 per uint64), as
 * order_build lays them out in o->scratch. */
static enum status grow(struct order *o, size_t nrows)
{
	size_t need = nrows / 2 + 1;

	if (nrows > (SIZE_MAX - need) / 2)
		return STATUS_NOMEM;
	need += 2 * nrows;
	if (mem_grow(&o->idx, &o->cap, nrows, sizeof(*o->idx)) ||
	    mem_grow(&o->scratch, &o->scratch_cap, need, sizeof(*o->scratch)))
		return STATUS_NOMEM;
	return STATUS_OK;
}

enum status order_build(struct order *o, const struct window *w,
                        enum metric key, bool descending, order_keep_fn keep,
                        void *ctx)
{
	size_t nrows, n = 0;
	uint64_t *keys, *tkeys;
	uint32_t *tvals;

	o->n = 0;
	o->key = key;
	o->descending = descending;
	if (!w || (unsigned)key >= METRIC_COUNT || w->nrows > UINT32_MAX)
		return STATUS_INVAL;
	nrows = w->nrows;
	if (grow(o, nrows) != STATUS_OK)
		return STATUS_NOMEM;
	keys = o->scratch;
	tkeys = keys + nrows;
	tvals = (uint32_t *)(void *)(tkeys + nrows);
	for (size_t r = 0; r < nrows; r++) {
		uint64_t v;
		if (keep && !keep(ctx, w, r))
			continue;
		v = w->rows[r].m.v[key];
		/* ~v sorts descending; stability keeps ties by row ascending */
		keys[n] = descending ? ~v : v;
		o->idx[n++] = (uint32_t)r;
	}
	sort_radix(keys, o->idx, tkeys, tvals, n);
	o->n = n;
	return STATUS_OK;
}

enum status order_keys_in(struct order *o, const struct window *w,
                          enum metric key, bool descending,
                          const uint64_t *keep)
{
	size_t n = 0, nrows;

	o->n = 0;
	o->key = key;
	o->descending = descending;
	o->subset = keep != NULL;
	if (!w || (unsigned)key >= METRIC_COUNT || w->nrows > UINT32_MAX)
		return STATUS_INVAL;
	nrows = w->nrows;
	if (grow(o, nrows) != STATUS_OK)
		return STATUS_NOMEM;
	o->diff = 0;
	if (!keep) {
		for (size_t r = 0; r < nrows; r++) {
			uint64_t v = w->rows[r].m.v[key];

			o->scratch[r] = descending ? ~v : v;
			o->diff |= o->scratch[r] ^ o->scratch[0];
		}
		o->n = nrows;
		return STATUS_OK;
	}
	if (mem_grow(&o->rows, &o->rows_cap, nrows, sizeof(*o->rows)))
		return STATUS_NOMEM;
	/* a word at a time: the rows a filter leaves are skipped unread */
	for (size_t i = 0; i < (nrows + 63) / 64; i++) {
		uint64_t b = keep[i];
		size_t r = 64 * i, end = nrows - r < 64 ? nrows : r + 64;

		for (; b && r < end; r++, b >>= 1) {
			uint64_t v;

			if (!(b & 1))
				continue;
			v = w->rows[r].m.v[key];
			o->scratch[n] = descending ? ~v : v;
			o->diff |= o->scratch[n] ^ o->scratch[0];
			o->rows[n++] = (uint32_t)r;
		}
	}
	o->n = n;
	return STATUS_OK;
}

enum status order_keys(struct order *o, const struct window *w, enum metric key,
                       bool descending)
{
	return order_keys_in(o, w, key, descending, NULL);
}

/* The row of the key at i of the last order_keys_in. */
static uint32_t row_of(const struct order *o, size_t i)
{
	return o->subset ? o->rows[i] : (uint32_t)i;
}

enum status order_keys_narrow(struct order *o, const uint64_t *keep,
                              size_t *kept)
{
	size_t n = 0;

	*kept = 0;
	if (!o->subset &&
	    mem_grow(&o->rows, &o->rows_cap, o->n, sizeof(*o->rows))) {
		o->n = 0;
		return STATUS_NOMEM;
	}
	o->diff = 0;
	/* in place: the keys kept stay in row order, each at or before
	 * where it was */
	for (size_t i = 0; i < o->n; i++) {
		uint32_t r = row_of(o, i);

		if (!((keep[r / 64] >> (r % 64)) & 1))
			continue;
		o->scratch[n] = o->scratch[i];
		o->rows[n] = r;
		o->diff |= o->scratch[n] ^ o->scratch[0];
		n++;
	}
	o->subset = true;
	o->n = n;
	*kept = n;
	return STATUS_OK;
}

size_t order_range(struct order *o, size_t lo, size_t hi, size_t *from)
{
	const uint64_t *keys = o->scratch;
	size_t n = o->n, count[256] = { 0 }, below = 0, start, m = 0;
	uint64_t diff = o->diff, *tkeys = o->scratch + n;
	uint32_t *tvals = (uint32_t *)(void *)(o->scratch + 2 * n);
	unsigned shift = 0, b = 0, first;

	*from = 0;
	if (lo >= hi || hi > n)
		return 0;
	/* the top eight bits where keys differ: a key of a lower digit
	 * sorts before every key of a higher one */
	while (diff >> shift > 0xff)
		shift++;
	for (size_t r = 0; r < n; r++)
		count[(keys[r] >> shift) & 0xff]++;
	/* the digits of positions lo and hi - 1, and where the first starts */
	while (below + count[b] <= lo)
		below += count[b++];
	start = below;
	first = b;
	while (below + count[b] < hi)
		below += count[b++];
	if (below + count[b] - start > n / 4)
		return 0;
	/* the rows of those digits in row order (the sort is stable: ties
	 * stay by row; a subset's keys are in row order too), sorted: every
	 * position from start on is in place */
	for (size_t r = 0; r < n; r++) {
		unsigned d = (keys[r] >> shift) & 0xff;

		if (d >= first && d <= b) {
			tkeys[m] = keys[r];
			o->idx[start + m++] = row_of(o, r);
		}
	}
	sort_radix(tkeys, o->idx + start, tkeys + m, tvals, m);
	*from = start;
	return start + m;
}

size_t order_rank(const struct order *o, size_t row)
{
	const uint64_t *keys = o->scratch;
	size_t pos = 0, at = row;
	uint64_t k;

	/* a subset's rows ascend: the key of row is found by bisection */
	if (o->subset) {
		size_t lo = 0, hi = o->n;

		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;

			if (o->rows[mid] < row)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo == o->n || o->rows[lo] != row)
			return SIZE_MAX;
		at = lo;
	} else if (row >= o->n) {
		return SIZE_MAX;
	}
	k = keys[at];
	/* those before it: a lower key, or an equal one on a lower row (the
	 * stable sort keeps ties by row) */
	for (size_t r = 0; r < at; r++)
		pos += keys[r] <= k;
	for (size_t r = at + 1; r < o->n; r++)
		pos += keys[r] < k;
	return pos;
}

void order_sort(struct order *o)
{
	size_t n = o->n;
	uint64_t *tkeys = o->scratch + n;
	uint32_t *tvals = (uint32_t *)(void *)(o->scratch + 2 * n);

	for (size_t i = 0; i < n; i++)
		o->idx[i] = row_of(o, i);
	sort_radix(o->scratch, o->idx, tkeys, tvals, n);
}

size_t order_find(const struct order *o, const struct window *w, uint32_t stack)
{
	size_t row = window_find_row(w, stack);

	if (row == SIZE_MAX)
		return SIZE_MAX;
	for (size_t i = 0; i < o->n; i++) {
		if (o->idx[i] == row)
			return i;
	}
	return SIZE_MAX;
}
