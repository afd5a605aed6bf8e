/* Tree (t): the folded stacks of the shown window as a prefix tree of
 * frames, root first, each node with the sums of its subtree, siblings
 * sorted by the weighting; + - * (or the arrows) expand and collapse.
 * Built lazily: a frame's callees come from one scan of its range of the
 * window's rows, which the model keeps in stack text order, so stacks
 * sharing a prefix are neighbours (no hashing), and only when the frame
 * is first expanded or drawn.  Expansion and the selection are kept by
 * path across windows. */
#ifndef ASYNCTOP_TUI_VIEW_TREE_H
#define ASYNCTOP_TUI_VIEW_TREE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/metric.h"
#include "model/model.h"
#include "model/status.h"
#include "tui/render.h"
#include "tui/tree_paths.h"

#define TREE_NONE UINT32_MAX
/* The most expanded paths remembered across windows. */
#define TREE_EXPANDED_MAX 4096

struct tree_node {
	uint32_t frame;  /* TREE_NONE for the root */
	uint32_t parent; /* TREE_NONE for the root */
	uint32_t first_child, last_child, next_sibling;
	uint32_t nchild; /* once built */
	uint32_t depth;  /* 0 the root, 1 a top frame */
	uint32_t r0, r1; /* the window's rows under it */
	bool kids;       /* it has callees (known before they are built) */
	bool built;      /* its callees are nodes */
	/* only its callees of wide_min or more in wide_metric are nodes (the
	 * flame's, tree_wide_children); built is false */
	bool wide;
	enum metric wide_metric;
	uint64_t wide_min;
	bool expanded;
	/* everything below it shows expanded (*): its rows are counted from
	 * the window's stacks, and its callees are marked only when a walk
	 * reaches them (view_tree_all.h) */
	bool all;
	/* its callees in the order shown, sorted when first walked for the
	 * tree's order (order stamps it) */
	uint32_t first_sorted, next_sorted, order;
	/* many callees: where they start, in that order, in the tree's
	 * ranked (else TREE_NONE), and its own place among its caller's, so
	 * a row among callees of one row each is found without a walk */
	uint32_t ranked, rank;
	uint32_t branches; /* its callees with callees, once built */
	/* its callees are its rows, one each (named: split by task name, a
	 * stack's rows side by side one each), none with callees, and no
	 * nodes but those a walk reaches (leaf, by tree_leaf): nchild
	 * counts them, the first nsorted and the last ntail in the order
	 * shown are in ranked (by their first row), selected rather than
	 * all sorted */
	bool leafy, named;
	uint32_t nsorted, ntail;
	uint32_t ranked_order; /* the order its room in ranked is for */
	/* a leafy frame's callee: rank is its place for order rank_order */
	bool leaf;
	uint32_t rank_order;
	/* the rows shown under it (0 when collapsed), counted when the
	 * expansion changes, so a row is found in O(depth) */
	uint32_t below;
	uint64_t path; /* hash of the frames from the root */
	uint64_t tasks;
	struct metrics m;
};

/* A window's rows by stack (open addressing, stack << 32 | row; the first
 * row of each stack, so split by name it is sized by stacks): the rows
 * before next put, whole once all are. */
struct tree_index {
	uint64_t *v;
	size_t cap, mask, next;
	bool begun, whole;
};

struct tree {
	struct tree_node *nodes; /* nodes[0] is the root */
	size_t n, cap;
	/* the rows shown: nshown in all, only those on the page (from top)
	 * made, in view; the rest are found by walking the counts */
	size_t nshown;
	uint32_t *view;
	size_t nview, view_cap;
	size_t sel, top, page;
	uint32_t sel_node; /* the node at sel, TREE_NONE when none */
	uint32_t order;    /* stamps the callees sorted for metric, ascending */
	/* the callees of nodes with many, in the order shown, for this order */
	uint32_t *ranked;
	size_t nranked, ranked_cap;
	/* what it was built and counted for */
	const struct model *m;
	const struct window *w;
	uint64_t seq;
	struct grouping group; /* a derived window's address comes back */
	enum metric metric;
	bool ascending;
	bool flat; /* nshown and the counts are up to date */
	/* the paths expanded, those marked all, and the selected one */
	struct tree_paths open, open_all;
	uint64_t sel_path;
	/* the selection's caller's path and its frame: a new window finds it
	 * among the rows of a leafy frame */
	uint64_t sel_up;
	uint32_t sel_frame;
	/* the node made for a leafy frame's row (checked: it may be stale) */
	uint32_t *leaf_of;
	size_t leaf_cap;
	/* the keys of a leafy frame's rows for the order (by row), and for
	 * which frame and order they are; lkeys_on while they are read */
	uint64_t *lkeys;
	size_t lkeys_cap;
	uint32_t lkeys_node, lkeys_order;
	bool lkeys_on;
	/* private scratch of the sorts */
	uint64_t *keys, *tkeys;
	uint32_t *vals, *tvals;
	size_t keys_cap, tkeys_cap, vals_cap, tvals_cap;
	uint32_t *stack, *seen;
	size_t stack_cap, seen_cap;
	/* each row's frames and depth, made at a window's first scan of
	 * rows (tree_rows_make; a lookup per row and level cost the flame's
	 * first draw most of its time), and the copy of those frames, row
	 * after row, that rowf points into (up to a bound; tree_rows_step
	 * makes it) */
	const uint32_t **rowf;
	uint32_t *rowd;
	size_t rowf_cap, rowd_cap;
	uint32_t *frames;
	size_t frames_cap;
	/* per row, the sums of the rows before it (each metric's, then the
	 * tasks': TREE_SUMS sums side by side, row after row, so the lookup,
	 * which a key may make, writes one run of memory, not one per sum,
	 * each 8 bytes a row far from the others; tree_sum),
	 * wrapping as nodes' sums do, so a run of rows is summed in two reads:
	 * made with the rows' lookup (which reads each row anyway) or, for
	 * the flame, alone (tree_sums); the rows before sums_next summed,
	 * sums_wrapped a bit per metric whose running sum wrapped (not
	 * monotonic) */
	uint64_t *pre;
	size_t pre_cap, sums_next;
	unsigned sums_wrapped;
	/* the frames each row adds to the tree after the row before it,
	 * summed over the rows before (fresh[r] for rows [0, r)): made with
	 * the rows' lookup, a row the window before had between the same
	 * neighbours adding what it added there */
	uint32_t *fresh;
	size_t fresh_cap;
	bool rows_known; /* rowf and rowd are made (tree_rows_make) */
	/* how far tree_rows_step has gone on the window's rows (rows_begun:
	 * its arrays are the window's): the rows looked up (rows_next, with
	 * rows_frames frames; rows_at the window before's row after the
	 * last found), then those copied (copy_next, into frames at
	 * copy_at) */
	size_t rows_next, rows_frames, rows_at, copy_next, copy_at;
	bool rows_begun, rows_copying;
	bool rows_failed; /* a step ran out of memory: left to the keys */
	/* the stack of each row, and whether its frames were copied: the
	 * next window's rows take the frames of the stacks they share from
	 * this copy (prev, after a swap) rather than from the model */
	uint32_t *stacks;
	size_t stacks_cap, ncopied;
	bool copied;
	struct tree_prev {
		const uint32_t **rowf;
		uint32_t *rowd, *frames, *stacks, *fresh;
		size_t rowf_cap, rowd_cap, frames_cap, stacks_cap, fresh_cap;
		size_t n;
		/* its rows by stack: made between keys after the copy (the
		 * index of the window that was t's), else by the lookup
		 * once far stacks (not found in turn) are many, or lost of
		 * them one after the other */
		struct tree_index index;
		size_t far, lost;
		/* the least and the greatest of its stacks */
		uint32_t least, most;
	} prev;
	/* the least and the greatest stack of the rows looked up */
	uint32_t rows_least, rows_most;
	/* the index of this window's rows by stack, made between keys by the
	 * step that finishes their copy (tree_rows_step), so that the next
	 * window's lookup, which may be a key's, finds it made */
	struct tree_index index;
};

void tree_init(struct tree *t);
void tree_fini(struct tree *t);

/* Brings t up to date for w (of m) weighted by metric: built again for a
 * new window (expansion and selection kept by path) and its rows counted
 * again; then the selection placed and the page's rows (view) made, the
 * callees walked sorted by the order.  STATUS_NOMEM leaves it empty. */
enum status tree_update(struct tree *t, const struct model *m,
                        const struct window *w, enum metric metric,
                        bool ascending) MUST_CHECK;

/* Builds t for w (of m) when it was built for another window, without
 * counting its rows (what the flame needs).  STATUS_NOMEM leaves it empty. */
enum status tree_sync(struct tree *t, const struct model *m,
                      const struct window *w) MUST_CHECK;

/* Looks every row's frames up into rowf and rowd, once per window (a
 * stack the window before had comes from that window's copy, only new
 * stacks from the model's), going on from where tree_rows_step stopped:
 * every reader of rowf, rowd, frames or fresh calls it first (the scans
 * of rows want them all; the flame's binary searches look the few rows
 * they read up with tree_rows_frames).  Their copy side by side is left
 * to tree_rows_step.  STATUS_NOMEM.  tree_rows.c. */
enum status tree_rows_make(struct tree *t) MUST_CHECK;
/* The rows of tree_rows_make a step at a time (the viewer takes them
 * between keys), then their copy side by side into frames, in row order
 * (the scans of the rows under a frame then read memory in turn, and the
 * next window takes its frames from the copy), and the copy's index by
 * stack in the step that finishes it, past the budget (index: the next
 * window's lookup, which a key may make, finds the stacks the window
 * before had without building it): goes on from where the last step on
 * this window stopped, looking up or copying about budget rows; *done
 * once all are made.  Rows
 * partly copied are the same rows (each points at its frames, copied or
 * not).  A new window begins again.  STATUS_NOMEM: tree_rows_wanted says
 * no until a new window, and tree_rows_make tries again. */
enum status tree_rows_step(struct tree *t, size_t budget,
                           bool *done) MUST_CHECK;
/* Whether t is built for w (of m) and its rows are not made, not copied
 * or their copy not indexed yet, nor did a step on them run out of
 * memory: what tree_rows_step would make. */
bool tree_rows_wanted(const struct tree *t, const struct model *m,
                      const struct window *w);
/* Row r's frames, root first, and *depth: from rowf and rowd when made,
 * else looked up. */
const uint32_t *tree_rows_frames(const struct tree *t, uint32_t r,
                                 uint32_t *depth);

/* The sums pre holds per row: the metrics', then the tasks'. */
#define TREE_SUMS (METRIC_COUNT + 1)
/* Sum k (a metric, or METRIC_COUNT the tasks) of the rows before row r. */
static inline uint64_t tree_sum(const struct tree *t, int k, size_t r)
{
	return t->pre[r * TREE_SUMS + (size_t)k];
}
/* Makes pre whole for t's window (the rows the lookup has not summed),
 * without looking any row's frames up: what the flame's binary searches
 * read.  STATUS_NOMEM.  tree_rows.c. */
enum status tree_sums(struct tree *t) MUST_CHECK;

/* The row after the run of rows holding frame at depth from row p (which
 * does), not past r1: galloping, then a binary search (rows made or not:
 * a run is read from a few of its rows).  tree_build.c. */
uint32_t tree_run_end(const struct tree *t, uint32_t depth, uint32_t frame,
                      uint32_t p, uint32_t r1);
/* The first row of that run, not before r0. */
uint32_t tree_run_start(const struct tree *t, uint32_t depth, uint32_t frame,
                        uint32_t r0, uint32_t p);

/* Makes the callees of node nodes (once; nodes may move).  STATUS_NOMEM. */
enum status tree_children(struct tree *t, uint32_t node) MUST_CHECK;

/* Makes only the callees of node whose value of metric is min or more
 * (what the flame can draw: at least a column wide), once per metric and
 * min; a later tree_children makes them all.  STATUS_NOMEM. */
enum status tree_wide_children(struct tree *t, uint32_t node,
                               enum metric metric, uint64_t min) MUST_CHECK;

/* A callee found by a layout that finds them itself (the flame): its
 * frame, the rows under it [r0, r1), whether it has callees, its sums. */
struct tree_run {
	uint32_t frame, r0, r1;
	bool kids;
	struct metrics m;
	uint64_t tasks;
};

/* What tree_wide_children makes, from runs[0 .. n) (in row order, at
 * least those of metric min or more) found by the caller: they replace
 * the callees an earlier wide call made.  STATUS_NOMEM. */
enum status tree_wide_runs(struct tree *t, uint32_t node, enum metric metric,
                           uint64_t min, const struct tree_run *runs,
                           size_t n) MUST_CHECK;

/* The path of frames[0 .. n) from the root, as nodes' path. */
uint64_t tree_path(const uint32_t *frames, size_t n);

/* The node shown at row i (0 the first), TREE_NONE past the last or out
 * of memory; O(depth) once its callers are sorted. */
uint32_t tree_row(struct tree *t, size_t i);

/* Moves the selection by delta (clamped) and scrolls to keep it shown. */
void tree_move(struct tree *t, long delta);
/* Expands the selected node (all below it with all: marked, counted from
 * the window's stacks in O(1), its frames made when walks reach them);
 * collapses it, or, when it is collapsed already, selects its parent.
 * Each counts the rows again only under the node it changes. */
void tree_expand(struct tree *t, bool all);
void tree_collapse(struct tree *t);

/* What tree_draw draws (borrowed). */
struct tree_in {
	const struct model *m;
	const struct tree *t;
	const struct window *w;
};

/* render_body's draw for ctx a struct tree_in.  STATUS_NOMEM. */
enum status tree_draw(const void *ctx, const struct render_in *rin,
                      struct screen *s, size_t top, size_t end) MUST_CHECK;

#endif
