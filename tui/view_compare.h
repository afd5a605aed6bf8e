/* Compare (=): the shown window against the one before it, or against a
 * window marked with m, row by row in the shown grouping (a row is a
 * stack, or a stack and a task name when split by name): each row's
 * change in the weighting, its figures now and then, rows new in the
 * shown window or gone from it marked; sorted by the change, largest rise
 * first (I: the largest fall first).  A pure build and renderer; it
 * scrolls. */
#ifndef ASYNCTOP_TUI_VIEW_COMPARE_H
#define ASYNCTOP_TUI_VIEW_COMPARE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/metric.h"
#include "model/model.h"
#include "model/status.h"
#include "tui/render.h"

/* One compared row: its row in each window (UINT32_MAX: not there). */
struct cmp_row {
	uint32_t stack, name; /* name: 0 unless split by name */
	uint32_t now, then;   /* rows of cur and base, UINT32_MAX if absent */
	uint64_t mag;         /* |change| of the weighting */
	bool fall;            /* the change is a fall */
};

/* The fewest rows compare_build_top puts in order by selecting them (it
 * doubles as more are wanted, up to a quarter of the rows: then all are
 * sorted). */
#define CMP_SELECT 64

struct compare {
	struct cmp_row *rows; /* shown window's rows, then the gone ones */
	uint32_t *order;      /* rows in display order: the first sorted */
	size_t n, cap, sorted;
	/* private scratch: sort keys and their copies */
	uint64_t *keys, *tkeys;
	uint32_t *tvals;
	size_t keys_cap, tkeys_cap, tvals_cap, order_cap;
	/* what rows were paired for (paired), and sorted for (built) */
	const struct window *cur, *base;
	uint64_t cur_seq, base_seq;
	struct grouping group; /* a derived window's address comes back */
	bool paired;
	/* pairing by steps (compare_pair_step): rows of cur and base passed,
	 * and where the next gone row goes */
	bool pairing;
	size_t pi, pj, pgone;
	enum metric metric;
	bool ascending;
	bool built;
};

void compare_init(struct compare *c);
void compare_fini(struct compare *c);

/* Builds the rows of cur against base (both windows of m, in one
 * grouping), sorted by the change in metric.  The rows are paired once
 * per pair of windows, by one merge in row order (texts compared only
 * where the windows differ); a weighting key then only orders them again
 * by the change it weighs (a radix sort: a few ms at 100,000 rows).  A
 * no-op when built for the same windows and order already.  STATUS_NOMEM
 * leaves no rows. */
enum status compare_build(struct compare *c, const struct model *m,
                          const struct window *cur, const struct window *base,
                          enum metric metric, bool ascending) MUST_CHECK;

/* The pairing of compare_build made a step at a time (between keys):
 * goes on from where the last step on the same windows stopped (else
 * from the start), reading at most about budget rows (at least one);
 * *done once they are paired, when compare_build then only orders them.
 * The rows are keyed in the weighting the pairing began in (a build in
 * another keys them again).  STATUS_NOMEM leaves nothing paired. */
enum status compare_pair_step(struct compare *c, const struct model *m,
                              const struct window *cur,
                              const struct window *base, enum metric metric,
                              bool ascending, size_t budget,
                              bool *done) MUST_CHECK;

/* True when c holds the rows of cur and base (borrowed, only compared)
 * paired.  Cannot fail. */
bool compare_paired(const struct compare *c, const struct window *cur,
                    const struct window *base);

/* compare_build, but only the first need rows of the order are sure to be
 * in place (c->sorted of them): up to a quarter of the rows wanted (a
 * page shows a few dozen), they are selected by one pass over the rows
 * rather than all rows sorted, in exactly the order the sort gives.  A
 * no-op when built for the same windows and order with need in place. */
enum status compare_build_top(struct compare *c, const struct model *m,
                              const struct window *cur,
                              const struct window *base, enum metric metric,
                              bool ascending, size_t need) MUST_CHECK;

/* What compare_draw draws (all borrowed). */
struct compare_in {
	const struct model *m;
	const struct compare *c; /* built for cur and base */
	bool marked;             /* base was marked with m */
	size_t top;              /* first row shown (scrolled) */
	const char *why;         /* instead of rows: why there is nothing */
};

/* Lines the compare of in has below its titles (for scrolling). */
size_t compare_count(const struct compare_in *in);

/* render_body's draw for ctx a struct compare_in.  STATUS_NOMEM. */
enum status compare_draw(const void *ctx, const struct render_in *rin,
                         struct screen *s, size_t top, size_t end) MUST_CHECK;

#endif
