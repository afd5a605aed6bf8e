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
	order_init(o);
}

enum status order_build(struct order *o, const struct window *w,
                        enum metric key, bool descending, order_keep_fn keep,
                        void *ctx)
{
	size_t nrows, n = 0, need;
	uint64_t *keys, *tkeys;
	uint32_t *tvals;

	o->n = 0;
	o->key = key;
	o->descending = descending;
	if (!w || (unsigned)key >= METRIC_COUNT || w->nrows > UINT32_MAX)
		return STATUS_INVAL;
	nrows = w->nrows;
	/* keys, their copy, and the values' copy (two uint32 per uint64) */
	need = nrows / 2 + 1;
	if (nrows > (SIZE_MAX - need) / 2)
		return STATUS_NOMEM;
	need += 2 * nrows;
	if (mem_grow(&o->idx, &o->cap, nrows, sizeof(*o->idx)) ||
	    mem_grow(&o->scratch, &o->scratch_cap, need, sizeof(*o->scratch)))
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
