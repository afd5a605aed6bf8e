/* The tree's nodes: a frame's callees made from its rows, all of them or
 * only the wide ones the flame draws. */
#include "tui/tree_parts.h"

#include "model/alloc.h"

/* Up to this many callees, a frame the flame lays out gets them all. */
#define WIDE_FEW 64

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

enum status tree_build_root(struct tree *t, const struct window *w)
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
