/* The rows shown under frames: summed up from callees, and counted
 * from the window's stacks for expand-all; the mark handed down. */
#include "tui/view_tree_all.h"

#include "model/alloc.h"
#include "tui/tree_parts.h"

void tree_sum_below(struct tree *t, const uint32_t *seen, size_t ns)
{
	while (ns-- > 1) {
		const struct tree_node *n = &t->nodes[seen[ns]];

		t->nodes[n->parent].below += 1 + n->below;
	}
}

/* fresh (view_tree.h): made with the rows.  In rows sorted frame by
 * frame (a prefix first), the frames under a node of depth c over rows
 * [r0, r1) are those row r0 adds past c, and those of the rows after it,
 * which all share the node's c. */
static enum status fresh(struct tree *t)
{
	return tree_rows_make(t);
}

/* The frames below node (marked all), fresh made. */
static uint32_t below_all(const struct tree *t, uint32_t node)
{
	const struct tree_node *n = &t->nodes[node];

	if (!n->expanded || !n->kids)
		return 0;
	return t->rowd[n->r0] - n->depth + t->fresh[n->r1] -
	       t->fresh[n->r0 + 1];
}

enum status tree_all_count(struct tree *t, uint32_t node)
{
	if (fresh(t) != STATUS_OK)
		return STATUS_NOMEM;
	t->nodes[node].below = below_all(t, node);
	return STATUS_OK;
}

enum status tree_all_hand_down(struct tree *t, uint32_t node)
{
	if (!t->nodes[node].all)
		return STATUS_OK;
	if (fresh(t) != STATUS_OK || tree_callees(t, node) != STATUS_OK)
		return STATUS_NOMEM;
	/* callees without callees take no mark: not one visited */
	for (uint32_t c = t->nodes[node].branches ? t->nodes[node].first_child
	                                          : TREE_NONE;
	     c != TREE_NONE; c = t->nodes[c].next_sibling) {
		struct tree_node *cn = &t->nodes[c];

		if (!cn->kids)
			continue;
		cn->expanded = cn->all = true;
		cn->below = below_all(t, c);
		/* past TREE_EXPANDED_MAX, for this window only */
		(void)tree_paths_add(&t->open, cn->path);
		(void)tree_paths_add(&t->open_all, cn->path);
	}
	tree_paths_settle(&t->open);
	tree_paths_settle(&t->open_all);
	t->nodes[node].all = false;
	tree_paths_forget(&t->open_all, t->nodes[node].path);
	return STATUS_OK;
}
