/* A leafy frame's callees, its rows (split by task name, its stacks' runs
 * of rows), put in the order shown: the first (or the last) a page needs
 * selected in one pass, all sorted only past a quarter; and a callee's
 * place counted from the rows. */
#include "tui/tree_parts.h"

#include "model/alloc.h"
#include "model/sort.h"

/* The fewest callees put in order by selecting them at either end
 * (doubling as more are wanted, up to a quarter of them: then all are
 * sorted). */
#define LEAFY_SELECT 64

/* The key of the callee starting at row r of n, from its rows: the order
 * shown is by key, then by row, both descending (the later made first
 * among equals, as the sort of nodes leaves them).  Its value sums its
 * stack's rows (one unless split by task name) as a node's sums do, from
 * the running sums (two reads, not a row's 120 bytes each). */
static inline uint64_t key_rows(const struct tree *t, const struct tree_node *n,
                                uint32_t r)
{
	uint32_t e = tree_leafy_end(t, n, r);
	uint64_t v = tree_sum(t, t->metric, e) - tree_sum(t, t->metric, r);

	return t->ascending ? ~v : v;
}

/* key_rows, from the keys kept when there is room for them. */
static inline uint64_t key(const struct tree *t, const struct tree_node *n,
                           uint32_t r)
{
	return t->lkeys_on ? t->lkeys[r] : key_rows(t, n, r);
}

/* Keeps the keys of node's rows side by side, once per node and order:
 * a selection then reads 8 bytes a row in turn, not a row each (End and
 * the pages past the first select again).  Out of memory, the keys are
 * read from the rows. */
static void keys_of(struct tree *t, uint32_t node)
{
	const struct tree_node *n = &t->nodes[node];

	if (t->lkeys_node == node && t->lkeys_order == t->order) {
		t->lkeys_on = true;
		return;
	}
	t->lkeys_on = false;
	t->lkeys_node = TREE_NONE;
	if (mem_grow(&t->lkeys, &t->lkeys_cap, t->w->nrows + 1,
	             sizeof(*t->lkeys)))
		return;
	for (uint32_t r = n->r0; r < n->r1; r++)
		if (tree_leafy_starts(t, n, r))
			t->lkeys[r] = key_rows(t, n, r);
	t->lkeys_node = node;
	t->lkeys_order = t->order;
	t->lkeys_on = true;
}

/* The callee at row a of n shows after the one at row b. */
static bool after(const struct tree *t, const struct tree_node *n, uint32_t a,
                  uint32_t b)
{
	uint64_t ka = key(t, n, a), kb = key(t, n, b);

	return ka < kb || (ka == kb && a < b);
}

/* The callee at row a of f is farther than the one at row b from the end
 * selected: it shows after b when the first are selected, before b when
 * the last are. */
static bool farther(const struct tree *t, const struct tree_node *f, bool last,
                    uint32_t a, uint32_t b)
{
	return last ? after(t, f, b, a) : after(t, f, a, b);
}

/* Restores the heap of n callees of f (the farthest on top) below slot
 * i. */
static void sift(const struct tree *t, const struct tree_node *f, bool last,
                 uint32_t *heap, size_t n, size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, top = i;
		uint32_t x;

		if (l < n && farther(t, f, last, heap[l], heap[top]))
			top = l;
		if (r < n && farther(t, f, last, heap[r], heap[top]))
			top = r;
		if (top == i)
			return;
		x = heap[i];
		heap[i] = heap[top];
		heap[top] = x;
		i = top;
	}
}

/* The k callees of node shown first (or last), in the order shown, into
 * out: one pass that keeps them in a heap (t->vals), a callee replacing
 * the farthest kept only when it is nearer, then taken out farthest
 * first. */
static void select_end(struct tree *t, const struct tree_node *n, size_t k,
                       bool last, uint32_t *out)
{
	uint32_t *heap = t->vals;
	size_t h = 0;

	for (uint32_t r = n->r0; r < n->r1; r++) {
		/* the node's own figures, or its stack's next task name */
		if (!tree_leafy_starts(t, n, r))
			continue;
		if (h < k) {
			size_t i = h++;

			heap[i] = r;
			while (i && farther(t, n, last, heap[i],
			                    heap[(i - 1) / 2])) {
				uint32_t x = heap[i];
				heap[i] = heap[(i - 1) / 2];
				heap[(i - 1) / 2] = x;
				i = (i - 1) / 2;
			}
		} else if (farther(t, n, last, heap[0], r)) {
			heap[0] = r;
			sift(t, n, last, heap, h, 0);
		}
	}
	for (size_t i = h; i-- > 0;) {
		out[last ? h - 1 - i : i] = heap[0];
		heap[0] = heap[i];
		sift(t, n, last, heap, i, 0);
	}
}

/* All the callees of node in order into out: a radix sort of their keys
 * (ascending, rows ascending among equals), read backwards. */
static void sort_all(struct tree *t, const struct tree_node *n, uint32_t *out)
{
	size_t k = 0;

	for (uint32_t r = n->r0; r < n->r1; r++) {
		if (!tree_leafy_starts(t, n, r))
			continue;
		t->keys[k] = key(t, n, r);
		t->vals[k++] = r;
	}
	sort_radix(t->keys, t->vals, t->tkeys, t->tvals, k);
	for (size_t i = 0; i < k; i++)
		out[i] = t->vals[k - 1 - i];
}

enum status tree_leafy_order(struct tree *t, uint32_t node, size_t i)
{
	struct tree_node *n = &t->nodes[node];
	size_t k, all = n->nchild, want;
	bool last;

	if (n->order != t->order) {
		n->nsorted = n->ntail = 0;
		/* its room in ranked is kept for the order: the flame's
		 * callees and leafy again take none more */
		if (n->ranked == TREE_NONE || n->ranked_order != t->order) {
			n->ranked = TREE_NONE;
			if (t->nranked + all >= UINT32_MAX ||
			    mem_grow(&t->ranked, &t->ranked_cap,
			             t->nranked + all + 1, sizeof(*t->ranked)))
				return STATUS_NOMEM;
			n->ranked = (uint32_t)t->nranked;
			n->ranked_order = t->order;
			t->nranked += all;
		}
		n->order = t->order;
	}
	if (i >= all || i < n->nsorted || i >= all - n->ntail)
		return STATUS_OK;
	keys_of(t, node);
	/* from the nearer end: the first (a page down) or the last (End) */
	last = i > all - 1 - i;
	want = last ? all - i : i + 1;
	for (k = LEAFY_SELECT; k < want && k < all; k *= 2)
		;
	if (mem_grow(&t->keys, &t->keys_cap, all + 1, sizeof(*t->keys)) ||
	    mem_grow(&t->tkeys, &t->tkeys_cap, all + 1, sizeof(*t->tkeys)) ||
	    mem_grow(&t->vals, &t->vals_cap, all + 1, sizeof(*t->vals)) ||
	    mem_grow(&t->tvals, &t->tvals_cap, all + 1, sizeof(*t->tvals)))
		return STATUS_NOMEM;
	if (k >= all / 4) {
		sort_all(t, n, t->ranked + n->ranked);
		n->nsorted = (uint32_t)all;
	} else if (last) {
		select_end(t, n, k, true, t->ranked + n->ranked + all - k);
		n->ntail = (uint32_t)k;
	} else {
		select_end(t, n, k, false, t->ranked + n->ranked);
		n->nsorted = (uint32_t)k;
	}
	return STATUS_OK;
}

uint32_t tree_leafy_at(struct tree *t, uint32_t node, size_t i)
{
	uint32_t id;

	if (i >= t->nodes[node].nchild ||
	    tree_leafy_order(t, node, i) != STATUS_OK)
		return TREE_NONE;
	id = tree_leaf(t, node, t->ranked[t->nodes[node].ranked + i]);
	if (id != TREE_NONE) {
		t->nodes[id].rank = (uint32_t)i;
		t->nodes[id].rank_order = t->order;
	}
	return id;
}

uint32_t tree_leafy_rank(struct tree *t, uint32_t id)
{
	struct tree_node *c = &t->nodes[id];

	if (c->rank_order != t->order) {
		const struct tree_node *n = &t->nodes[c->parent];
		uint32_t rank = 0, x = c->r0;

		keys_of(t, c->parent);
		for (uint32_t r = n->r0; r < n->r1; r++)
			rank += tree_leafy_starts(t, n, r) && after(t, n, x, r);
		c = &t->nodes[id];
		c->rank = rank;
		c->rank_order = t->order;
	}
	return c->rank;
}
