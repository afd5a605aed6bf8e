/* The table's sort of a window's rows made a step at a time, so that the
 * viewer can make it between keys (tui/app_idle.c): the same stable radix
 * sort as order_build, its passes cut into steps of a bounded number of
 * rows, with exactly order_build's result (ties by row, ascending). */
#ifndef ASYNCTOP_TUI_TABLE_SORT_H
#define ASYNCTOP_TUI_TABLE_SORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/base.h"
#include "model/metric.h"
#include "model/model.h"
#include "model/order.h"
#include "model/status.h"
#include "tui/view.h"

/* Rows a step of the viewer's idle work reads or moves at most. */
#define TABLE_SORT_STEP 8192

enum table_sort_phase {
	TABLE_SORT_NONE,  /* nothing begun */
	TABLE_SORT_KEYS,  /* the keys read from the rows */
	TABLE_SORT_COUNT, /* the digits of each pass counted */
	TABLE_SORT_PASS,  /* the rows moved by one digit */
	TABLE_SORT_DONE,  /* o holds every row of tag's window, sorted */
};

struct table_sort {
	struct order o; /* the result (its idx, n, key, descending) */
	/* private: what is sorted, and how far */
	struct view_tag tag;
	enum table_sort_phase phase;
	size_t at;         /* rows done in the phase */
	unsigned npass, q; /* the passes, the one being made */
	unsigned pass[8];  /* the bytes of the key where keys differ */
	uint64_t diff;     /* the bits where a key differs from the first */
	uint64_t *keys, *tkeys;
	uint32_t *tvals;
	size_t keys_cap, tkeys_cap, tvals_cap;
	size_t count[8][256];
};

void table_sort_init(struct table_sort *t);
/* Frees what t holds; t can be table_sort_init'ed again. */
void table_sort_fini(struct table_sort *t);

/* Forgets what t sorted (after its o was taken, e.g. by
 * view_adopt_order): the next step begins again.  Cannot fail. */
void table_sort_forget(struct table_sort *t);

/* True when t holds every row of w (borrowed, only compared) sorted by
 * key in that direction.  Cannot fail. */
bool table_sort_done(const struct table_sort *t, const struct window *w,
                     enum metric key, bool descending);

/* Sorts the rows of w by key as order_build(&t->o, w, key, descending,
 * NULL, NULL) would, going on from where the last step on the same window
 * and order stopped (else from the start), reading or moving at most
 * about budget rows (at least one step's worth of progress); *done says
 * whether t->o then holds them all.  w is borrowed for the call: a
 * window freed between steps is never read again, as a window given
 * later is told from it by address, seq and grouping.  STATUS_NOMEM
 * leaves nothing begun; STATUS_INVAL for an unknown key or a window of
 * more than UINT32_MAX rows. */
enum status table_sort_step(struct table_sort *t, const struct window *w,
                            enum metric key, bool descending, size_t budget,
                            bool *done) MUST_CHECK;

#endif
