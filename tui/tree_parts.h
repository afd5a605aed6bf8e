/* What the tree's files (view_tree*.c, tree_*.c) share and nothing else
 * sees: the making of the root, and the walk's steps. */
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
