/* The walk of the tree's rows: callees sorted when a walk reaches them,
 * the row at a position, the row after a row, the position of a row. */
#include "tui/tree_parts.h"

#include "model/alloc.h"
#include "model/sort.h"
#include "tui/view_tree_all.h"

/* From this many callees, a frame keeps them in an array in the order
 * shown (a walk of the list reads a node per callee, scattered). */
#define RANKED_MIN 64

/* Sorts the callees of node into the order shown, once per order (a
 * leafy node's first page only); makes them first when the flame left
 * only its wide ones.  STATUS_NOMEM. */
static enum status sort_children(struct tree *t, uint32_t node)
{
	struct tree_node *n;
	uint32_t prev = TREE_NONE;
	size_t k = 0;

	/* a walk reaches it: its callees take the mark it holds */
	if (tree_all_hand_down(t, node) != STATUS_OK ||
	    tree_callees(t, node) != STATUS_OK)
		return STATUS_NOMEM;
	n = &t->nodes[node];
	if (n->leafy)
		return tree_leafy_order(t, node, 0);
	if (n->order == t->order)
		return STATUS_OK;
	if (mem_grow(&t->keys, &t->keys_cap, n->nchild + 1, sizeof(*t->keys)) ||
	    mem_grow(&t->tkeys, &t->tkeys_cap, n->nchild + 1,
	             sizeof(*t->tkeys)) ||
	    mem_grow(&t->vals, &t->vals_cap, n->nchild + 1, sizeof(*t->vals)) ||
	    mem_grow(&t->tvals, &t->tvals_cap, n->nchild + 1,
	             sizeof(*t->tvals)))
		return STATUS_NOMEM;
	for (uint32_t c = n->first_child; c != TREE_NONE;
	     c = t->nodes[c].next_sibling, k++) {
		uint64_t v = t->nodes[c].m.v[t->metric];
		/* linked in reverse: the first shown sorts last */
		t->keys[k] = t->ascending ? ~v : v;
		t->vals[k] = c;
	}
	if (k > 1) /* most nodes of a deep tree: nothing to sort */
		sort_radix(t->keys, t->vals, t->tkeys, t->tvals, k);
	n = &t->nodes[node];
	n->ranked = TREE_NONE;
	/* many: ranked too (without room, the list is walked) */
	if (k >= RANKED_MIN && t->nranked + k < UINT32_MAX &&
	    mem_grow(&t->ranked, &t->ranked_cap, t->nranked + k,
	             sizeof(*t->ranked)) == STATUS_OK) {
		n->ranked = (uint32_t)t->nranked;
		t->nranked += k;
	}
	/* one pass over the callees (each a node apart from the last) */
	for (size_t i = 0; i < k; i++) {
		struct tree_node *c = &t->nodes[t->vals[i]];

		c->next_sorted = prev;
		prev = t->vals[i];
		if (n->ranked != TREE_NONE) {
			c->rank = (uint32_t)(k - 1 - i);
			t->ranked[n->ranked + k - 1 - i] = prev;
		}
	}
	n->first_sorted = prev;
	n->order = t->order;
	return STATUS_OK;
}

bool tree_open(const struct tree *t, uint32_t node)
{
	return t->nodes[node].expanded && t->nodes[node].kids;
}

/* Whether node (expanded, sorted) shows each callee on one row and keeps
 * them ranked: the row of a callee is its rank. */
static bool one_row_each(const struct tree *t, uint32_t node)
{
	const struct tree_node *n = &t->nodes[node];

	return n->ranked != TREE_NONE && n->below == n->nchild;
}

uint32_t tree_row(struct tree *t, size_t i)
{
	uint32_t p = 0;

	if (i >= t->nshown)
		return TREE_NONE;
	for (;;) {
		uint32_t c;

		if (sort_children(t, p) != STATUS_OK)
			return TREE_NONE;
		if (t->nodes[p].leafy) /* one row each */
			return tree_leafy_at(t, p, i);
		if (one_row_each(t, p))
			return i < t->nodes[p].nchild
			           ? t->ranked[t->nodes[p].ranked + i]
			           : TREE_NONE;
		for (c = t->nodes[p].first_sorted; c != TREE_NONE;
		     c = t->nodes[c].next_sorted) {
			size_t span = 1 + (size_t)t->nodes[c].below;

			if (i < span)
				break;
			i -= span;
		}
		if (c == TREE_NONE || i == 0)
			return c;
		i--;
		p = c;
	}
}

/* The callee of node's caller shown after node, TREE_NONE after the last
 * (or out of memory). */
static uint32_t sibling_after(struct tree *t, uint32_t node)
{
	uint32_t p = t->nodes[node].parent;

	if (!t->nodes[node].leaf || !t->nodes[p].leafy)
		return t->nodes[node].next_sorted;
	return tree_leafy_at(t, p, (size_t)tree_leafy_rank(t, node) + 1);
}

uint32_t tree_next_row(struct tree *t, uint32_t node)
{
	if (tree_open(t, node) && t->nodes[node].below) {
		if (sort_children(t, node) != STATUS_OK)
			return TREE_NONE;
		return t->nodes[node].leafy ? tree_leafy_at(t, node, 0)
		                            : t->nodes[node].first_sorted;
	}
	for (; node; node = t->nodes[node].parent) {
		uint32_t next = sibling_after(t, node);

		if (next != TREE_NONE)
			return next;
	}
	return TREE_NONE;
}

size_t tree_row_of(struct tree *t, uint32_t node)
{
	size_t i = 0;

	while (node) {
		uint32_t p = t->nodes[node].parent;

		if (sort_children(t, p) != STATUS_OK)
			return SIZE_MAX;
		if (t->nodes[p].leafy)
			i += tree_leafy_rank(t, node);
		else if (one_row_each(t, p))
			i += t->nodes[node].rank;
		else
			for (uint32_t c = t->nodes[p].first_sorted;
			     c != TREE_NONE && c != node;
			     c = t->nodes[c].next_sorted)
				i += 1 + (size_t)t->nodes[c].below;
		i += p != 0;
		node = p;
	}
	return i;
}
