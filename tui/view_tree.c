/* The prefix tree of a window's stacks, the walk of its rows, drawing. */
#include "tui/view_tree.h"

#include <stdio.h>
#include <string.h>

#include "encode/humanize.h"
#include "encode/utf8.h"
#include "model/alloc.h"
#include "model/sort.h"
#include "tui/glyph.h"
#include "tui/grouped.h"
#include "tui/line.h"
#include "tui/view_tree_all.h"

/* Up to this many callees, a frame the flame lays out gets them all. */
#define WIDE_FEW 64
/* From this many callees, a frame keeps them in an array in the order
 * shown (a walk of the list reads a node per callee, scattered). */
#define RANKED_MIN 64

/* Columns of the value, share and tasks cells before the tree. */
#define TREE_VALUE_COLS 9
#define TREE_SHARE_COLS 8
#define TREE_TASKS_COLS 7

void tree_init(struct tree *t)
{
	memset(t, 0, sizeof(*t));
	t->page = 1;
	t->sel_node = TREE_NONE;
	t->order = 1;
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
	tree_init(t);
}

static uint64_t path_hash(uint64_t parent, uint32_t frame)
{
	uint64_t h = (parent ^ ((uint64_t)frame + 1)) * 0x9E3779B97F4A7C15u;

	return h ^ (h >> 29);
}

static uint32_t new_node(struct tree *t, uint32_t parent, uint32_t frame)
{
	struct tree_node *p, *n;
	uint32_t id;

	if (t->n >= UINT32_MAX - 1 ||
	    mem_grow(&t->nodes, &t->cap, t->n + 1, sizeof(*t->nodes)))
		return TREE_NONE;
	id = (uint32_t)t->n++;
	n = &t->nodes[id];
	*n = (struct tree_node){ .frame = frame,
		                 .parent = parent,
		                 .first_child = TREE_NONE,
		                 .last_child = TREE_NONE,
		                 .next_sibling = TREE_NONE,
		                 .first_sorted = TREE_NONE,
		                 .next_sorted = TREE_NONE,
		                 .ranked = TREE_NONE };
	if (parent == TREE_NONE) {
		n->expanded = true;
		return id;
	}
	p = &t->nodes[parent];
	n->depth = p->depth + 1;
	n->path = path_hash(p->path, frame);
	n->expanded = tree_paths_has(&t->open, n->path);
	n->all = tree_paths_has(&t->open_all, n->path);
	if (p->last_child == TREE_NONE)
		p->first_child = id;
	else
		t->nodes[p->last_child].next_sibling = id;
	p->last_child = id;
	p->nchild++;
	p->order = 0; /* its callees changed: sorted again when walked */
	return id;
}

static void add_to(struct tree_node *n, const struct fold_row *r)
{
	for (int i = 0; i < METRIC_COUNT; i++)
		n->m.v[i] += r->m.v[i];
	n->tasks += r->tasks;
}

uint64_t tree_path(const uint32_t *frames, size_t n)
{
	uint64_t h = 0;

	for (size_t i = 0; i < n; i++)
		h = path_hash(h, frames[i]);
	return h;
}

/* The root only: its sums are the window's, its callees and each row's
 * frames (tree_rows_make) come later. */
static enum status build(struct tree *t, const struct window *w)
{
	struct tree_node *root;

	t->n = 0;
	t->nranked = 0;
	t->fresh_ok = false;
	t->rows_known = false;
	if (new_node(t, TREE_NONE, TREE_NONE) == TREE_NONE)
		return STATUS_NOMEM;
	root = &t->nodes[0];
	root->r1 = (uint32_t)w->nrows;
	root->kids = w->nrows > 0;
	root->m = w->total;
	root->tasks = w->tasks;
	return STATUS_OK;
}

/* Forgets the callees a wide build made (they stay in nodes, unlinked,
 * until the tree is built again). */
static void unlink_wide(struct tree_node *n)
{
	if (!n->wide)
		return;
	n->first_child = n->last_child = TREE_NONE;
	n->nchild = 0;
	n->branches = 0;
	n->order = 0;
	n->wide = false;
}

enum status tree_children(struct tree *t, uint32_t node)
{
	const struct window *w = t->w;
	uint32_t depth = t->nodes[node].depth, cur = TREE_NONE;

	if (t->nodes[node].built || !w)
		return STATUS_OK;
	if (tree_rows_make(t) != STATUS_OK)
		return STATUS_NOMEM;
	unlink_wide(&t->nodes[node]);
	for (uint32_t r = t->nodes[node].r0; r < t->nodes[node].r1; r++) {
		size_t d = t->rowd[r];
		const uint32_t *f = t->rowf[r];
		struct tree_node *c;

		/* a stack that ends here: its figures are the node's own */
		if (d <= depth)
			continue;
		if (cur == TREE_NONE || t->nodes[cur].frame != f[depth]) {
			cur = new_node(t, node, f[depth]);
			if (cur == TREE_NONE)
				return STATUS_NOMEM;
			t->nodes[cur].r0 = r;
		}
		c = &t->nodes[cur];
		c->r1 = r + 1;
		if (!c->kids && d > depth + 1) {
			c->kids = true;
			t->nodes[node].branches++;
		}
		add_to(c, &w->rows[r]);
	}
	t->nodes[node].built = true;
	return STATUS_OK;
}

/* A run of rows: a callee, and its value of the weighting. */
struct run {
	uint32_t frame, r0, r1;
	bool deeper;
	uint64_t v;
};

/* The node of run u under node, its sums from its rows. */
static enum status run_node(struct tree *t, uint32_t node, const struct run *u)
{
	uint32_t c = new_node(t, node, u->frame);
	struct tree_node *cn;

	if (c == TREE_NONE)
		return STATUS_NOMEM;
	cn = &t->nodes[c];
	cn->r0 = u->r0;
	cn->r1 = u->r1;
	cn->kids = u->deeper;
	t->nodes[node].branches += u->deeper;
	for (uint32_t k = u->r0; k < u->r1; k++)
		add_to(cn, &t->w->rows[k]);
	return STATUS_OK;
}

/* run_node for a run at least min (and not 0). */
static enum status wide_node(struct tree *t, uint32_t node, const struct run *u,
                             uint64_t min)
{
	return u->v >= min && u->v ? run_node(t, node, u) : STATUS_OK;
}

enum status tree_wide_children(struct tree *t, uint32_t node,
                               enum metric metric, uint64_t min)
{
	const struct window *w = t->w;
	const struct tree_node *n = &t->nodes[node];
	uint32_t depth = n->depth, r1 = n->r1, r = n->r0;
	struct run few[WIDE_FEW];
	size_t runs = 0;

	if (n->built || !w ||
	    (n->wide && n->wide_metric == metric && n->wide_min <= min))
		return STATUS_OK;
	if (tree_rows_make(t) != STATUS_OK)
		return STATUS_NOMEM;
	unlink_wide(&t->nodes[node]);
	/* each callee is a run of rows with the same frame at depth; only
	 * the weighting is summed here, the rest for the nodes made */
	while (r < r1) {
		struct run u = { .r0 = r };

		if (t->rowd[r] <= depth) { /* the node's own figures */
			r++;
			continue;
		}
		u.frame = t->rowf[r][depth];
		for (; r < r1 && t->rowd[r] > depth &&
		       t->rowf[r][depth] == u.frame;
		     r++) {
			u.v = u64_add_sat(u.v, w->rows[r].m.v[metric]);
			u.deeper |= t->rowd[r] > depth + 1;
		}
		u.r1 = r;
		if (runs < WIDE_FEW) {
			few[runs++] = u;
			continue;
		}
		/* many: the wide ones held back among the first, then this */
		for (size_t k = 0; runs == WIDE_FEW && k < WIDE_FEW; k++)
			if (wide_node(t, node, &few[k], min) != STATUS_OK)
				return STATUS_NOMEM;
		runs++;
		if (wide_node(t, node, &u, min) != STATUS_OK)
			return STATUS_NOMEM;
	}
	if (runs > WIDE_FEW) {
		t->nodes[node].wide = true;
		t->nodes[node].wide_metric = metric;
		t->nodes[node].wide_min = min;
		return STATUS_OK;
	}
	/* few callees: all of them, from this scan, so another weighting
	 * scans no more (only a frame with many narrow callees is scanned
	 * per weighting) */
	for (size_t k = 0; k < runs; k++)
		if (run_node(t, node, &few[k]) != STATUS_OK)
			return STATUS_NOMEM;
	t->nodes[node].built = true;
	return STATUS_OK;
}

enum status tree_wide_runs(struct tree *t, uint32_t node, enum metric metric,
                           uint64_t min, const struct tree_run *runs, size_t n)
{
	unlink_wide(&t->nodes[node]);
	/* out of memory half way, the next call unlinks what was made */
	t->nodes[node].wide = true;
	t->nodes[node].wide_metric = metric;
	t->nodes[node].wide_min = UINT64_MAX;
	for (size_t i = 0; i < n; i++) {
		uint32_t c = new_node(t, node, runs[i].frame);

		if (c == TREE_NONE)
			return STATUS_NOMEM;
		t->nodes[c].r0 = runs[i].r0;
		t->nodes[c].r1 = runs[i].r1;
		t->nodes[c].kids = runs[i].kids;
		t->nodes[node].branches += runs[i].kids;
		t->nodes[c].m = runs[i].m;
		t->nodes[c].tasks = runs[i].tasks;
	}
	t->nodes[node].wide_min = min;
	return STATUS_OK;
}

/* Sorts the callees of node (built) into the order shown, once per
 * order.  STATUS_NOMEM. */
static enum status sort_children(struct tree *t, uint32_t node)
{
	struct tree_node *n;
	uint32_t prev = TREE_NONE;
	size_t k = 0;

	/* a walk reaches it: its callees take the mark it holds */
	if (tree_all_hand_down(t, node) != STATUS_OK)
		return STATUS_NOMEM;
	n = &t->nodes[node];
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

/* Whether node shows its callees. */
static bool open_node(const struct tree *t, uint32_t node)
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

/* The row after node's, TREE_NONE after the last (or out of memory). */
static uint32_t next_row(struct tree *t, uint32_t node)
{
	if (open_node(t, node) && t->nodes[node].below) {
		if (sort_children(t, node) != STATUS_OK)
			return TREE_NONE;
		return t->nodes[node].first_sorted;
	}
	while (node && t->nodes[node].next_sorted == TREE_NONE)
		node = t->nodes[node].parent;
	return node ? t->nodes[node].next_sorted : TREE_NONE;
}

/* The row node shows at (it is shown). */
static size_t row_of(struct tree *t, uint32_t node)
{
	size_t i = 0;

	while (node) {
		uint32_t p = t->nodes[node].parent;

		if (sort_children(t, p) != STATUS_OK)
			return SIZE_MAX;
		if (one_row_each(t, p))
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
	if (t->nodes[node].built)
		return STATUS_OK;
	if (tree_children(t, node) != STATUS_OK ||
	    mem_grow(&t->stack, &t->stack_cap, t->n + 1, sizeof(*t->stack)) ||
	    mem_grow(&t->seen, &t->seen_cap, t->n + 1, sizeof(*t->seen)))
		return STATUS_NOMEM;
	return STATUS_OK;
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
		if (!open_node(t, id))
			continue;
		if (t->nodes[id].all) { /* counted from the stacks */
			if (tree_all_count(t, id) != STATUS_OK)
				return STATUS_NOMEM;
			continue;
		}
		if (callees(t, id) != STATUS_OK)
			return STATUS_NOMEM;
		for (uint32_t c = t->nodes[id].first_child; c != TREE_NONE;
		     c = t->nodes[c].next_sibling)
			t->stack[sp++] = c;
	}
	/* callees are seen after their caller: backwards, each adds its rows
	 * to its caller's */
	while (ns-- > 1) {
		const struct tree_node *n = &t->nodes[t->seen[ns]];

		t->nodes[n->parent].below += 1 + n->below;
	}
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
		size_t at = row_of(t, t->sel_node);

		if (at == SIZE_MAX)
			return STATUS_NOMEM;
		t->sel = at;
	}
	if (t->sel >= t->nshown)
		t->sel = t->nshown ? t->nshown - 1 : 0;
	t->sel_node = t->nshown ? tree_row(t, t->sel) : TREE_NONE;
	if (t->nshown && t->sel_node == TREE_NONE)
		return STATUS_NOMEM;
	if (t->sel_node != TREE_NONE)
		t->sel_path = t->nodes[t->sel_node].path;
	scroll(t);
	t->nview = 0;
	if (mem_grow(&t->view, &t->view_cap, t->page + 1, sizeof(*t->view)))
		return STATUS_NOMEM;
	id = t->top < t->nshown ? tree_row(t, t->top) : TREE_NONE;
	while (id != TREE_NONE && t->nview < t->page) {
		t->view[t->nview++] = id;
		id = next_row(t, id);
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
	st = build(t, w);
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
		t->sel_path = t->nodes[t->sel_node].path;
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
		if (!open_node(t, id))
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
	while (ns-- > 1) {
		const struct tree_node *n = &t->nodes[t->seen[ns]];

		t->nodes[n->parent].below += 1 + n->below;
	}
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
		t->sel_path = t->nodes[n->parent].path;
		t->sel_node = n->parent;
	}
}

static void titles(const struct render_in *rin, const struct tree *t,
                   struct screen *s, size_t top)
{
	struct screen_line *l = &s->lines[top];
	char h[160];

	line_reset(l, EL_TITLE);
	snprintf(h, sizeof(h),
	         " TREE %s%s+ %s expand, - %s collapse, * all below, Esc back",
	         metric_name(t->metric), glyph(GLYPH_SEP, rin->flags),
	         glyph(GLYPH_ARROW_RIGHT, rin->flags),
	         glyph(GLYPH_ARROW_LEFT, rin->flags));
	line_puts(l, EL_TITLE, h, line_room(s, l), rin->flags);
	line_pad(l, EL_TITLE, s->cols);
}

static void node_line(const struct tree_in *in, const struct render_in *rin,
                      struct screen *s, struct screen_line *l, uint32_t id,
                      bool selected)
{
	const struct tree *t = in->t;
	const struct tree_node *n = &t->nodes[id];
	size_t fixed = TREE_VALUE_COLS + TREE_SHARE_COLS + TREE_TASKS_COLS + 2;
	size_t avail = s->cols > fixed ? s->cols - fixed : 0;
	/* indent two columns a level up to a third of the room; deeper
	 * levels say their depth instead */
	size_t levels = avail / 3 / 2, d = n->depth - 1;
	char v[HUMAN_BUFSZ];

	line_reset(l, selected ? EL_SELECTED : EL_NORMAL);
	human_metric(v, sizeof(v), t->metric, n->m.v[t->metric]);
	line_right(l, EL_KEYCOL, v, TREE_VALUE_COLS, rin->flags);
	human_percent(v, sizeof(v), n->m.v[t->metric],
	              in->w->total.v[t->metric]);
	line_right(l, l->base, v, TREE_SHARE_COLS, rin->flags);
	human_count(v, sizeof(v), n->tasks);
	line_right(l, l->base, v, TREE_TASKS_COLS, rin->flags);
	line_pad(l, l->base, l->width + 2 + 2 * size_min(d, levels));
	if (d > levels) {
		char deep[24];

		snprintf(deep, sizeof(deep), "%zu:", d + 1);
		line_puts(l, EL_DIM, deep, line_room(s, l), rin->flags);
	}
	line_puts(l, EL_DIM,
	          !n->kids      ? " "
	          : n->expanded ? glyph(GLYPH_TREE_OPEN, rin->flags)
	                        : glyph(GLYPH_TREE_CLOSED, rin->flags),
	          line_room(s, l), rin->flags);
	line_puts(l, l->base, " ", line_room(s, l), rin->flags);
	line_put(l, l->base, model_frame(in->m, n->frame), line_room(s, l),
	         rin->flags);
	line_pad(l, l->base, s->cols);
}

enum status tree_draw(const void *ctx, const struct render_in *rin,
                      struct screen *s, size_t top, size_t end)
{
	const struct tree_in *in = ctx;
	const struct tree *t = in->t;
	struct screen_line *l;

	titles(rin, t, s, top);
	if (top + 1 >= end)
		return STATUS_OK;
	l = &s->lines[top + 1];
	line_reset(l, EL_TITLE);
	line_right(l, EL_TITLE, metric_header(t->metric), TREE_VALUE_COLS,
	           rin->flags);
	line_right(l, EL_TITLE, "SHARE", TREE_SHARE_COLS, rin->flags);
	line_right(l, EL_TITLE, "TASKS", TREE_TASKS_COLS, rin->flags);
	line_puts(l, EL_TITLE, "  FRAMES (root first)", line_room(s, l),
	          rin->flags);
	line_pad(l, EL_TITLE, s->cols);
	for (size_t r = top + 2, i = t->top; r < end && i - t->top < t->nview;
	     r++, i++) {
		node_line(in, rin, s, &s->lines[r], t->view[i - t->top],
		          i == t->sel);
		if (i == t->sel)
			s->cursor_row = r;
	}
	return STATUS_OK;
}
