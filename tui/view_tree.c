/* The tree kept up to date: for a window, a weighting and the keys that
 * expand, collapse and move; the rows under each frame counted. */
#include "tui/view_tree.h"

#include <string.h>

#include "model/alloc.h"
#include "tui/grouped.h"
#include "tui/tree_parts.h"
#include "tui/view_tree_all.h"

void tree_init(struct tree *t)
{
	memset(t, 0, sizeof(*t));
	t->page = 1;
	t->sel_node = TREE_NONE;
	t->order = 1;
	t->lkeys_node = TREE_NONE;
	tree_paths_init(&t->open, TREE_EXPANDED_MAX);
	tree_paths_init(&t->open_all, TREE_EXPANDED_MAX);
}

void tree_fini(struct tree *t)
{
	mem_free(t->nodes);
	mem_free(t->view);
	tree_paths_fini(&t->open);
	tree_paths_fini(&t->open_all);
	mem_free(t->fresh);
	mem_free(t->pre);
	mem_free(t->frames);
	mem_free(t->ranked);
	mem_free(t->keys);
	mem_free(t->tkeys);
	mem_free(t->vals);
	mem_free(t->tvals);
	mem_free(t->stack);
	mem_free(t->seen);
	mem_free(t->rowf);
	mem_free(t->rowd);
	mem_free(t->leaf_of);
	mem_free(t->lkeys);
	mem_free(t->stacks);
	mem_free(t->prev.rowf);
	mem_free(t->prev.rowd);
	mem_free(t->prev.frames);
	mem_free(t->prev.stacks);
	mem_free(t->prev.fresh);
	mem_free(t->prev.index.v);
	mem_free(t->index.v);
	tree_init(t);
}

static void scroll(struct tree *t)
{
	if (t->sel < t->top)
		t->top = t->sel;
	if (t->page && t->sel >= t->top + t->page)
		t->top = t->sel - t->page + 1;
	if (t->top && t->top + t->page > t->nshown)
		t->top = t->nshown > t->page ? t->nshown - t->page : 0;
}

/* Makes the callees of node for a walk of the counts: a node is seen
 * once and pushed once, so the node count bounds the walk's arrays (grown
 * only when callees are made: most nodes are built already).
 * STATUS_NOMEM. */
static enum status callees(struct tree *t, uint32_t node)
{
	if (t->nodes[node].built || t->nodes[node].leafy)
		return STATUS_OK;
	if (tree_callees(t, node) != STATUS_OK ||
	    mem_grow(&t->stack, &t->stack_cap, t->n + 1, sizeof(*t->stack)) ||
	    mem_grow(&t->seen, &t->seen_cap, t->n + 1, sizeof(*t->seen)))
		return STATUS_NOMEM;
	return STATUS_OK;
}

/* The selection among the callees of leafy node, made a node;
 * TREE_NONE when it is not there (or out of memory). */
static uint32_t leaf_selected(struct tree *t, uint32_t node)
{
	const struct tree_node *n = &t->nodes[node];

	for (uint32_t r = n->r0; r < n->r1; r++) {
		if (t->rowd[r] > n->depth &&
		    t->rowf[r][n->depth] == t->sel_frame) {
			uint32_t id = tree_leaf(t, node, r);

			return id != TREE_NONE &&
			               t->nodes[id].path == t->sel_path
			           ? id
			           : TREE_NONE;
		}
	}
	return TREE_NONE;
}

/* Selects node id (shown), by its path and where it is found again. */
static void select_node(struct tree *t, uint32_t id)
{
	const struct tree_node *n = &t->nodes[id];

	t->sel_node = id;
	t->sel_path = n->path;
	t->sel_up = t->nodes[n->parent].path;
	t->sel_frame = n->frame;
}

/* Counts the rows under each shown node, making the callees of the
 * expanded ones; finds the selected path among them.  No sorting: the
 * order only matters for the rows walked. */
static enum status count(struct tree *t)
{
	size_t sp = 0, ns = 0;

	t->sel_node = TREE_NONE;
	if (mem_grow(&t->stack, &t->stack_cap, t->n + 1, sizeof(*t->stack)) ||
	    mem_grow(&t->seen, &t->seen_cap, t->n + 1, sizeof(*t->seen)))
		return STATUS_NOMEM;
	t->stack[sp++] = 0;
	while (sp) {
		uint32_t id = t->stack[--sp];

		t->seen[ns++] = id;
		t->nodes[id].below = 0;
		if (id && t->sel_node == TREE_NONE &&
		    t->nodes[id].path == t->sel_path)
			t->sel_node = id;
		if (!tree_open(t, id))
			continue;
		if (t->nodes[id].all) { /* counted from the stacks */
			if (tree_all_count(t, id) != STATUS_OK)
				return STATUS_NOMEM;
			continue;
		}
		if (callees(t, id) != STATUS_OK)
			return STATUS_NOMEM;
		if (t->nodes[id].leafy) { /* one row each, found by its frame */
			t->nodes[id].below = t->nodes[id].nchild;
			if (t->sel_node == TREE_NONE &&
			    t->nodes[id].path == t->sel_up)
				t->sel_node = leaf_selected(t, id);
			continue;
		}
		for (uint32_t c = t->nodes[id].first_child; c != TREE_NONE;
		     c = t->nodes[c].next_sibling)
			t->stack[sp++] = c;
	}
	tree_sum_below(t, t->seen, ns);
	t->nshown = t->nodes[0].below;
	return STATUS_OK;
}

/* Puts the selection on its path (else its position, clamped), scrolls
 * to it and makes the rows of the page. */
static enum status place(struct tree *t)
{
	uint32_t id;

	if (t->sel_node != TREE_NONE &&
	    t->nodes[t->sel_node].path == t->sel_path) {
		size_t at = tree_row_of(t, t->sel_node);

		if (at == SIZE_MAX)
			return STATUS_NOMEM;
		t->sel = at;
	}
	if (t->sel >= t->nshown)
		t->sel = t->nshown ? t->nshown - 1 : 0;
	id = t->nshown ? tree_row(t, t->sel) : TREE_NONE;
	if (t->nshown && id == TREE_NONE)
		return STATUS_NOMEM;
	t->sel_node = TREE_NONE;
	if (id != TREE_NONE)
		select_node(t, id);
	scroll(t);
	t->nview = 0;
	if (mem_grow(&t->view, &t->view_cap, t->page + 1, sizeof(*t->view)))
		return STATUS_NOMEM;
	id = t->top < t->nshown ? tree_row(t, t->top) : TREE_NONE;
	while (id != TREE_NONE && t->nview < t->page) {
		t->view[t->nview++] = id;
		id = tree_next_row(t, id);
	}
	return STATUS_OK;
}

enum status tree_sync(struct tree *t, const struct model *m,
                      const struct window *w)
{
	enum status st;

	if (t->w == w && t->seq == w->seq && grouping_eq(t->group, w->group))
		return STATUS_OK;
	t->w = NULL;
	t->flat = false;
	st = tree_build_root(t, w);
	if (st != STATUS_OK) {
		t->n = t->nshown = t->nview = 0;
		t->sel_node = TREE_NONE;
		return st;
	}
	t->m = m;
	t->w = w;
	t->seq = w->seq;
	t->group = w->group;
	return STATUS_OK;
}

enum status tree_update(struct tree *t, const struct model *m,
                        const struct window *w, enum metric metric,
                        bool ascending)
{
	enum status st = tree_sync(t, m, w);

	if (st != STATUS_OK)
		return st;
	if (t->metric != metric || t->ascending != ascending) {
		t->metric = metric;
		t->ascending = ascending;
		/* every node's callees sort again when walked (and rank
		 * again: the old ranks go) */
		t->order = t->order == UINT32_MAX ? 1 : t->order + 1;
		t->nranked = 0;
	}
	if (!t->flat) {
		st = count(t);
		if (st == STATUS_OK)
			t->flat = true;
	}
	if (st == STATUS_OK)
		st = place(t);
	if (st != STATUS_OK) {
		t->flat = false;
		t->nshown = t->nview = 0;
		t->sel_node = TREE_NONE;
	}
	return st;
}

void tree_move(struct tree *t, long delta)
{
	if (!t->nshown)
		return;
	if (delta < 0)
		t->sel = (size_t)-delta > t->sel ? 0 : t->sel - (size_t)-delta;
	else
		t->sel = (size_t)delta >= t->nshown - t->sel
		             ? t->nshown - 1
		             : t->sel + (size_t)delta;
	t->sel_node = tree_row(t, t->sel);
	if (t->sel_node != TREE_NONE)
		select_node(t, t->sel_node);
	scroll(t);
}

/* Counts again the rows under node after its expansion changed (all:
 * marked, and counted from the stacks), and gives the difference to its
 * callers.  Past TREE_EXPANDED_MAX paths, for this window only.
 * STATUS_NOMEM. */
static enum status recount(struct tree *t, uint32_t node, bool all)
{
	size_t sp = 0, ns = 0;
	uint32_t was = t->nodes[node].below, now;

	if (mem_grow(&t->stack, &t->stack_cap, t->n + 1, sizeof(*t->stack)) ||
	    mem_grow(&t->seen, &t->seen_cap, t->n + 1, sizeof(*t->seen)))
		return STATUS_NOMEM;
	if (t->nodes[node].kids) {
		t->nodes[node].expanded = true;
		(void)tree_paths_add(&t->open, t->nodes[node].path);
		tree_paths_settle(&t->open);
		if (all) {
			t->nodes[node].all = true;
			(void)tree_paths_add(&t->open_all, t->nodes[node].path);
			tree_paths_settle(&t->open_all);
		}
	}
	t->stack[sp++] = node;
	while (sp) {
		uint32_t id = t->stack[--sp];

		t->seen[ns++] = id;
		t->nodes[id].below = 0;
		if (!tree_open(t, id))
			continue;
		if (t->nodes[id].all) { /* counted from the stacks */
			if (tree_all_count(t, id) != STATUS_OK)
				return STATUS_NOMEM;
			continue;
		}
		if (callees(t, id) != STATUS_OK)
			return STATUS_NOMEM;
		if (!t->nodes[id].branches) { /* one row each */
			t->nodes[id].below = t->nodes[id].nchild;
			continue;
		}
		for (uint32_t c = t->nodes[id].first_child; c != TREE_NONE;
		     c = t->nodes[c].next_sibling)
			t->stack[sp++] = c;
	}
	tree_sum_below(t, t->seen, ns);
	now = t->nodes[node].below;
	for (uint32_t p = t->nodes[node].parent; p != TREE_NONE;
	     p = t->nodes[p].parent)
		t->nodes[p].below = t->nodes[p].below - was + now;
	t->nshown = t->nodes[0].below;
	return STATUS_OK;
}

void tree_expand(struct tree *t, bool all)
{
	uint32_t sel = tree_row(t, t->sel);

	if (sel == TREE_NONE)
		return;
	if (t->nodes[sel].path == t->sel_path)
		t->sel_node = sel;
	/* counts only the rows under it (counted in full on failure) */
	if (recount(t, sel, all) != STATUS_OK)
		t->flat = false;
}

void tree_collapse(struct tree *t)
{
	uint32_t sel = tree_row(t, t->sel);
	struct tree_node *n;

	if (sel == TREE_NONE)
		return;
	n = &t->nodes[sel];
	if (n->expanded && n->kids) {
		uint32_t gone = n->below;

		n->expanded = false;
		n->below = 0;
		tree_paths_forget(&t->open, n->path);
		for (uint32_t p = n->parent; p != TREE_NONE;
		     p = t->nodes[p].parent)
			t->nodes[p].below -= gone;
		t->nshown = t->nodes[0].below;
		if (n->path == t->sel_path)
			t->sel_node = sel;
		return;
	}
	if (n->parent != TREE_NONE && n->parent != 0) {
		select_node(t, n->parent);
	}
}
