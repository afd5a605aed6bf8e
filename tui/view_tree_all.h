/* Expand-all (*) without making the frames: the tree's files only.  A
 * frame marked all shows everything below it expanded; the rows under it
 * are counted from the window's stacks in O(1), and the mark is handed
 * down to its callees only when a walk reaches them, so * costs O(depth)
 * however many frames it opens.  A walk to a row hands the marks down
 * on its way, so the selection's callers are never marked: a new window
 * finds it by its path among the frames it counts. */
#ifndef ASYNCTOP_TUI_VIEW_TREE_ALL_H
#define ASYNCTOP_TUI_VIEW_TREE_ALL_H

#include <stdint.h>

#include "model/status.h"
#include "tui/view_tree.h"

/* Sets the rows shown under node, marked all: every frame below it, or 0
 * when it is collapsed.  Counts each row's new frames once per window
 * first (O(rows)).  STATUS_NOMEM. */
enum status tree_all_count(struct tree *t, uint32_t node) MUST_CHECK;

/* When node is marked all: makes its callees, marks and counts each that
 * has callees as expanded-all (their paths remembered), and unmarks node.
 * Nodes may move.  STATUS_NOMEM leaves node marked. */
enum status tree_all_hand_down(struct tree *t, uint32_t node) MUST_CHECK;

#endif
