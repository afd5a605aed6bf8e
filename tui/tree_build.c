/* The tree's nodes: a frame's callees made from its rows, all of them or
 * only the wide ones the flame draws. */
#include "tui/tree_parts.h"

#include "model/alloc.h"

/* Up to this many callees, a frame the flame lays out gets them all. */
#define WIDE_FEW 64
/* From this many callees, each a row of its own without callees, a frame
 * makes nodes only for those a walk reaches (leafy). */
#define LEAFY_MIN 64

static uint64_t path_hash(uint64_t parent, uint32_t frame)
{
	uint64_t h = (parent ^ ((uint64_t)frame + 1)) * 0x9E3779B97F4A7C15u;

	return h ^ (h >> 29);
}

/* A node of frame under parent, not linked among its callees. */
static uint32_t make_node(struct tree *t, uint32_t parent, uint32_t frame)
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
	return id;
}

static uint32_t new_node(struct tree *t, uint32_t parent, uint32_t frame)
{
	uint32_t id = make_node(t, parent, frame);
	struct tree_node *p;

	if (id == TREE_NONE || parent == TREE_NONE)
		return id;
	p = &t->nodes[parent];
	if (p->last_child == TREE_NONE)
		p->first_child = id;
	else
		t->nodes[p->last_child].next_sibling = id;
	p->last_child = id;
	p->nchild++;
	p->order = 0; /* its callees changed: sorted again when walked */
	return id;
}

/* Node id's sums: those of rows [r0, r1), from the running sums (made
 * whole: the rows are looked up). */
static void sums_of(struct tree *t, uint32_t id, uint32_t r0, uint32_t r1)
{
	struct tree_node *n = &t->nodes[id];

	for (int i = 0; i < METRIC_COUNT; i++)
		n->m.v[i] = tree_sum(t, i, r1) - tree_sum(t, i, r0);
	n->tasks =
	    tree_sum(t, METRIC_COUNT, r1) - tree_sum(t, METRIC_COUNT, r0);
}

/* Whether row r has frame at depth (it is under the callee's node). */
static bool in_run(const struct tree *t, uint32_t r, uint32_t depth,
                   uint32_t frame)
{
	uint32_t d;
	const uint32_t *f = tree_rows_frames(t, r, &d);

	return d > depth && f[depth] == frame;
}

uint32_t tree_run_start(const struct tree *t, uint32_t depth, uint32_t frame,
                        uint32_t r0, uint32_t p)
{
	uint32_t good = p, step = 1, lo;

	while (good - r0 >= step && in_run(t, good - step, depth, frame)) {
		good -= step;
		step = step <= UINT32_MAX / 2 ? step * 2 : step;
	}
	lo = good - r0 >= step ? good - step + 1 : r0;
	while (lo < good) {
		uint32_t mid = lo + (good - lo) / 2;

		if (in_run(t, mid, depth, frame))
			good = mid;
		else
			lo = mid + 1;
	}
	return good;
}

uint32_t tree_run_end(const struct tree *t, uint32_t depth, uint32_t frame,
                      uint32_t p, uint32_t r1)
{
	uint32_t good = p, step = 1, hi;

	while (r1 - 1 - good >= step && in_run(t, good + step, depth, frame)) {
		good += step;
		step = step <= UINT32_MAX / 2 ? step * 2 : step;
	}
	hi = r1 - 1 - good >= step ? good + step : r1;
	while (good + 1 < hi) {
		uint32_t mid = good + (hi - good) / 2;

		if (in_run(t, mid, depth, frame))
			good = mid;
		else
			hi = mid;
	}
	return good + 1;
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
	t->sums_next = 0;
	t->rows_known = false;
	t->rows_begun = t->rows_copying = t->rows_failed = false;
	t->lkeys_node = TREE_NONE; /* its nodes are new */
	if (new_node(t, TREE_NONE, TREE_NONE) == TREE_NONE)
		return STATUS_NOMEM;
	root = &t->nodes[0];
	root->r1 = (uint32_t)w->nrows;
	root->kids = w->nrows > 0;
	root->m = w->total;
	root->tasks = w->tasks;
	return STATUS_OK;
}

/* Forgets the callees a wide build made, or the rows a leafy node stood
 * for (the nodes made stay in nodes, unlinked, until the tree is built
 * again; the selection among them is found again by its position). */
static void unlink_callees(struct tree *t, uint32_t node)
{
	struct tree_node *n = &t->nodes[node];

	if (!n->wide && !n->leafy)
		return;
	if (n->leafy && t->sel_node != TREE_NONE &&
	    t->nodes[t->sel_node].parent == node)
		t->sel_node = TREE_NONE;
	n->first_child = n->last_child = TREE_NONE;
	n->nchild = 0;
	n->branches = 0;
	n->order = 0;
	n->wide = n->leafy = false;
}

/* Whether the rows of node (LEAFY_MIN or more) each end in a callee of
 * their own (split by name, the rows of a stack one callee: *named), but
 * those ending at node; *n the callees. */
static bool rows_leafy(const struct tree *t, uint32_t node, uint32_t *n,
                       bool *named)
{
	const struct tree_node *nd = &t->nodes[node];
	uint32_t depth = nd->depth, last = TREE_NONE, k = 0;

	*named = false;
	if (nd->r1 - nd->r0 < LEAFY_MIN)
		return false;
	for (uint32_t r = nd->r0; r < nd->r1; r++) {
		uint32_t d = t->rowd[r];

		if (d <= depth) /* the node's own figures */
			continue;
		if (d > depth + 1)
			return false;
		if (r > nd->r0 && t->stacks[r] == t->stacks[r - 1]) {
			*named = true; /* the stack's next task name */
			continue;
		}
		if (t->rowf[r][depth] == last)
			return false;
		last = t->rowf[r][depth];
		k++;
	}
	*n = k;
	return k >= LEAFY_MIN;
}

/* Whether node's sums are those of its rows: the root's are the window's,
 * summed without wrapping (saturated), the same unless one saturated. */
static bool sums_exact(const struct tree *t, uint32_t node)
{
	if (node)
		return true;
	for (int i = 0; i < METRIC_COUNT; i++)
		if (t->w->total.v[i] == UINT64_MAX)
			return false;
	return t->w->tasks != UINT64_MAX;
}

/* Whether every row of node goes on into one callee: none ends at node
 * (a prefix sorts first), and the first and the last share the frame
 * after it, so all between do.  Two rows read, made or not. */
static bool one_callee(const struct tree *t, uint32_t node)
{
	const struct tree_node *n = &t->nodes[node];
	const uint32_t *a, *b;
	uint32_t da = 0, db = 0;

	if (n->r0 >= n->r1)
		return false;
	a = tree_rows_frames(t, n->r0, &da);
	b = tree_rows_frames(t, n->r1 - 1, &db);
	return da > n->depth && db > n->depth && a[n->depth] == b[n->depth] &&
	       sums_exact(t, node);
}

/* The one callee of node (one_callee): its rows and sums are the node's,
 * not read again; it has callees when the last row goes deeper (if any
 * row does, the one ending at the callee sorts first).  No row's frames
 * made: a chain of frames of one callee each costs two lookups a frame.
 * STATUS_NOMEM. */
static enum status only_callee(struct tree *t, uint32_t node)
{
	const struct tree_node *n = &t->nodes[node];
	uint32_t depth = n->depth, r0 = n->r0, r1 = n->r1, d = 0, c;
	uint32_t frame = tree_rows_frames(t, r0, &d)[depth];
	struct tree_node *cn;

	(void)tree_rows_frames(t, r1 - 1, &d);
	unlink_callees(t, node);
	c = new_node(t, node, frame);
	if (c == TREE_NONE)
		return STATUS_NOMEM;
	n = &t->nodes[node];
	cn = &t->nodes[c];
	cn->r0 = r0;
	cn->r1 = r1;
	cn->kids = d > depth + 1;
	cn->m = n->m;
	cn->tasks = n->tasks;
	t->nodes[node].branches = cn->kids;
	t->nodes[node].built = true;
	return STATUS_OK;
}

enum status tree_callees(struct tree *t, uint32_t node)
{
	struct tree_node *n = &t->nodes[node];
	uint32_t k = 0;
	bool named;

	if (n->built || n->leafy || !t->w)
		return STATUS_OK;
	if (one_callee(t, node)) /* before any row's frames are made */
		return only_callee(t, node);
	if (tree_rows_make(t) != STATUS_OK)
		return STATUS_NOMEM;
	if (!rows_leafy(t, node, &k, &named))
		return tree_children(t, node);
	if (mem_grow(&t->leaf_of, &t->leaf_cap, t->w->nrows + 1,
	             sizeof(*t->leaf_of)))
		return STATUS_NOMEM;
	unlink_callees(t, node);
	n = &t->nodes[node];
	for (uint32_t r = n->r0; r < n->r1; r++)
		t->leaf_of[r] = TREE_NONE;
	n->leafy = true;
	n->named = named;
	n->nchild = k;
	n->nsorted = n->ntail = 0;
	return STATUS_OK;
}

uint32_t tree_leaf(struct tree *t, uint32_t node, uint32_t r)
{
	uint32_t id = t->leaf_of[r];
	struct tree_node *c;

	if (id < t->n && t->nodes[id].leaf && t->nodes[id].parent == node &&
	    t->nodes[id].r0 == r)
		return id;
	id = make_node(t, node, t->rowf[r][t->nodes[node].depth]);
	if (id == TREE_NONE)
		return TREE_NONE;
	c = &t->nodes[id];
	c->r0 = r;
	c->r1 = tree_leafy_end(t, &t->nodes[node], r);
	c->leaf = true;
	c->rank_order = 0;
	sums_of(t, id, r, c->r1);
	t->leaf_of[r] = id;
	return id;
}

enum status tree_children(struct tree *t, uint32_t node)
{
	uint32_t depth = t->nodes[node].depth, r, r1;

	if (t->nodes[node].built || !t->w)
		return STATUS_OK;
	if (one_callee(t, node))
		return only_callee(t, node);
	if (tree_rows_make(t) != STATUS_OK)
		return STATUS_NOMEM;
	unlink_callees(t, node);
	r = t->nodes[node].r0;
	r1 = t->nodes[node].r1;
	/* each callee a run of rows, found from a few of them (galloping),
	 * summed in two reads; the stacks that end here (their figures the
	 * node's own) sort first */
	while (r < r1) {
		uint32_t frame, e, c;

		if (t->rowd[r] <= depth) {
			r++;
			continue;
		}
		frame = t->rowf[r][depth];
		e = tree_run_end(t, depth, frame, r, r1);
		c = new_node(t, node, frame);
		if (c == TREE_NONE)
			return STATUS_NOMEM;
		t->nodes[c].r0 = r;
		t->nodes[c].r1 = e;
		/* a prefix sorts first: if a row goes deeper, the last does */
		t->nodes[c].kids = t->rowd[e - 1] > depth + 1;
		t->nodes[node].branches += t->nodes[c].kids;
		sums_of(t, c, r, e);
		r = e;
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
	sums_of(t, c, u->r0, u->r1);
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
	unlink_callees(t, node);
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
	unlink_callees(t, node);
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
