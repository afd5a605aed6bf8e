/* A sorted view of a window's rows by one metric: an index array kept
 * apart from the window's storage order, rebuilt when the metric changes. */
#ifndef ASYNCTOP_MODEL_ORDER_H
#define ASYNCTOP_MODEL_ORDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/base.h"
#include "model/metric.h"
#include "model/status.h"

struct window;

/* Which rows to keep: true to keep row (an index into w->rows). */
typedef bool (*order_keep_fn)(void *ctx, const struct window *w, size_t row);

struct order {
	uint32_t *idx; /* row indices into w->rows, in display order */
	size_t n, cap;
	enum metric key;
	bool descending;
	/* private: scratch reused between builds; rows: the row of each
	 * key of the last order_keys_in given a bitmap (subset), whose keys
	 * are those of the rows it keeps only */
	uint64_t *scratch;
	size_t scratch_cap;
	uint32_t *rows;
	size_t rows_cap;
	bool subset;
	uint64_t diff; /* the bits where the keys read differ (order_range) */
};

void order_init(struct order *o);
void order_fini(struct order *o);

/* Sorts the rows of w by key, descending or ascending, ties broken by row
 * index (the canonical stack order) ascending either way, so the output is
 * stable.  keep (may be NULL) filters rows.  Reuses o's memory.  On
 * STATUS_NOMEM o is left empty. */
enum status order_build(struct order *o, const struct window *w,
                        enum metric key, bool descending, order_keep_fn keep,
                        void *ctx) MUST_CHECK;

/* order_build, a part at a time, for a caller that shows only a page of
 * the rows: order_keys_in reads the key of every row of w whose bit is
 * set in keep (a bit per row, row r in keep[r / 64] bit r % 64; NULL:
 * every row) into o and sets o->n to their count, taking all the memory
 * order_build would, so that order_build of w into o after it never
 * fails; order_keys is order_keys_in of every row.  order_range then
 * puts at least positions lo to hi (lo < hi <= o->n) of order_build's
 * order of those rows (keep as the keep function), ties included, in
 * place in o->idx, and returns where those in place end (*from: where
 * they start; the rest of o->idx is left unspecified): the rows whose
 * key's top eight differing bits are those of positions lo to hi - 1,
 * found by one count and sorted; 0 when they are over a quarter of the
 * rows (the caller then sorts all: order_sort).  order_rank is the
 * position order_build gives row (an index into w->rows), SIZE_MAX when
 * it is not kept.  order_sort puts every position in place from the
 * keys read, as order_build would, without reading the rows again.
 * order_range, order_rank and order_sort read the keys of the last
 * order_keys_in (order_build and order_sort leave them in another
 * order).  order_keys_in: STATUS_NOMEM, STATUS_INVAL as order_build. */
enum status order_keys_in(struct order *o, const struct window *w,
                          enum metric key, bool descending,
                          const uint64_t *keep) MUST_CHECK;
enum status order_keys(struct order *o, const struct window *w, enum metric key,
                       bool descending) MUST_CHECK;
/* Keeps, of the keys the last order_keys_in read, those of the rows keep
 * holds (a bit per row of the same window), as order_keys_in of w with
 * keep would read them when every row keep holds was read; *kept: how
 * many (the caller, knowing how many rows keep holds, sees whether they
 * all were).  Reads no row.  STATUS_NOMEM leaves o empty. */
enum status order_keys_narrow(struct order *o, const uint64_t *keep,
                              size_t *kept) MUST_CHECK;
size_t order_range(struct order *o, size_t lo, size_t hi, size_t *from);
size_t order_rank(const struct order *o, size_t row);
void order_sort(struct order *o);

/* Position in o of the row of stack id in w, or SIZE_MAX. */
size_t order_find(const struct order *o, const struct window *w,
                  uint32_t stack);

#endif
