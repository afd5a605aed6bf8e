/* What the tree's files (view_tree*.c, tree_*.c) share and nothing else
 * sees: the making of the root and of callees, the walk's steps, and the
 * order of a leafy frame's callees. */
#ifndef ASYNCTOP_TUI_TREE_PARTS_H
#define ASYNCTOP_TUI_TREE_PARTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/model.h"
#include "model/status.h"
#include "tui/view_tree.h"

/* Makes t's nodes the root of w alone: its sums are the window's, its
 * callees and each row's frames (tree_rows_make) come later.
 * STATUS_NOMEM.  tree_build.c. */
enum status tree_build_root(struct tree *t, const struct window *w) MUST_CHECK;

/* Whether row r of leafy node n starts one of its callees: it goes past
 * n, and, split by task name (named), its stack is not the row before's
 * (a stack has a row per name, side by side, one callee). */
static inline bool tree_leafy_starts(const struct tree *t,
                                     const struct tree_node *n, uint32_t r)
{
	return t->rowd[r] > n->depth &&
	       (!n->named || r == n->r0 || t->stacks[r] != t->stacks[r - 1]);
}

/* The row after the rows of the callee of leafy node n starting at row r
 * (its stack's: one unless named). */
static inline uint32_t tree_leafy_end(const struct tree *t,
                                      const struct tree_node *n, uint32_t r)
{
	uint32_t e = r + 1;

	while (n->named && e < n->r1 && t->stacks[e] == t->stacks[r])
		e++;
	return e;
}

/* Makes the callees of node for the tree's walk: leafy when its rows
 * each end in a callee of their own, a stack's rows split by name one
 * callee (64 or more), no node made; else as tree_children.  Nodes may
 * move.  STATUS_NOMEM.  tree_build.c. */
enum status tree_callees(struct tree *t, uint32_t node) MUST_CHECK;
/* The node of leafy node's callee starting at row r (its stack's rows),
 * made when first asked for (not linked among node's callees); TREE_NONE
 * out of memory. */
uint32_t tree_leaf(struct tree *t, uint32_t node, uint32_t r);

/* Puts leafy node's callee shown i-th (0 the first) in the order shown
 * (of t->metric) into ranked, with those between it and the nearer end:
 * selected while they are under a quarter of all, else all sorted; kept
 * for the order.  STATUS_NOMEM.  tree_leafy.c. */
enum status tree_leafy_order(struct tree *t, uint32_t node,
                             size_t i) MUST_CHECK;
/* The node of leafy node's callee shown i-th (0 the first), its rank
 * set; TREE_NONE past the last or out of memory. */
uint32_t tree_leafy_at(struct tree *t, uint32_t node, size_t i);
/* The place of leaf id among its caller's callees in the order shown:
 * counted from the rows (O(rows)) when not known for this order. */
uint32_t tree_leafy_rank(struct tree *t, uint32_t id);

/* Whether node shows its callees.  tree_walk.c. */
bool tree_open(const struct tree *t, uint32_t node);
/* The row after node's, TREE_NONE after the last (or out of memory). */
uint32_t tree_next_row(struct tree *t, uint32_t node);
/* The row node shows at (it is shown); SIZE_MAX out of memory. */
size_t tree_row_of(struct tree *t, uint32_t node);

/* Adds the rows under each node seen[1 .. ns) to its caller's below, the
 * callees seen after their caller (the order of a walk from the top), so
 * backwards each one's own are summed when it adds them.  view_tree_all.c. */
void tree_sum_below(struct tree *t, const uint32_t *seen, size_t ns);

#endif
