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
	/* private: scratch reused between builds */
	uint64_t *scratch;
	size_t scratch_cap;
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

/* Position in o of the row of stack id in w, or SIZE_MAX. */
size_t order_find(const struct order *o, const struct window *w,
                  uint32_t stack);

#endif
