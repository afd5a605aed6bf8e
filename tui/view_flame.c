/* The icicle: a layout of the prefix tree by level, and its drawing. */
#include "tui/view_flame.h"

#include <stdio.h>
#include <string.h>

#include "encode/humanize.h"
#include "encode/utf8.h"
#include "model/alloc.h"
#include "model/sort.h"
#include "tui/glyph.h"
#include "tui/line.h"

void flame_init(struct flame *f)
{
	memset(f, 0, sizeof(*f));
}

void flame_fini(struct flame *f)
{
	mem_free(f->boxes);
	mem_free(f->keys);
	mem_free(f->tkeys);
	mem_free(f->vals);
	mem_free(f->tvals);
	mem_free(f->runs);
	flame_init(f);
}

/* The zoomed frame's node, its callees built on the way down; as deep as
 * the window still has its frames. */
static enum status find_zoom(struct flame *f, struct tree *t, uint32_t *out)
{
	uint32_t node = 0;
	size_t i;

	for (i = 0; i < f->zoom_depth; i++) {
		uint32_t c;

		if (tree_children(t, node) != STATUS_OK)
			return STATUS_NOMEM;
		for (c = t->nodes[node].first_child; c != TREE_NONE;
		     c = t->nodes[c].next_sibling)
			if (t->nodes[c].frame == f->zoom_frames[i])
				break;
		if (c == TREE_NONE)
			break;
		node = c;
	}
	f->zoom_depth = i;
	f->zoom_path = t->nodes[node].path;
	*out = node;
	return STATUS_OK;
}

/* The row whose value holds the running sum target of metric in rows
 * [r0, r1): the last p with pre[p] < target (pre[r1] >= target). */
static uint32_t row_at(const struct tree *t, enum metric metric, uint32_t r0,
                       uint32_t r1, uint64_t target)
{
	uint32_t lo = r0, hi = r1;

	while (hi - lo > 1) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (tree_sum(t, metric, mid) < target)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

/* tree_wide_children of node, from the running sums: only the rows at
 * each multiple of min from the node's first row are looked at (a callee
 * of min or more holds one), each one's run found by galloping. */
static enum status wide(struct flame *f, struct tree *t, uint32_t node,
                        enum metric metric, uint64_t min)
{
	const struct tree_node *n = &t->nodes[node];
	uint32_t depth = n->depth, r0 = n->r0, r1 = n->r1;
	uint64_t from, span;
	size_t nr = 0;

	if (n->built ||
	    (n->wide && n->wide_metric == metric && n->wide_min <= min))
		return STATUS_OK;
	/* every callee wanted, or a sum that wrapped: each row decides */
	if (!min || r0 >= r1 || ((t->sums_wrapped >> metric) & 1))
		return tree_wide_children(t, node, metric, min);
	from = tree_sum(t, metric, r0);
	span = tree_sum(t, metric, r1) - from;
	for (uint64_t k = 1; k <= span / min;) {
		uint32_t p = row_at(t, metric, r0, r1, from + k * min);
		uint32_t frame, a, b, d, last;
		const uint32_t *fp = tree_rows_frames(t, p, &d);
		struct tree_run *u;

		if (d <= depth) { /* the node's own figures */
			k++;
			continue;
		}
		frame = fp[depth];
		a = tree_run_start(t, depth, frame, r0, p);
		b = tree_run_end(t, depth, frame, p, r1);
		/* the next multiple past this run */
		k = (tree_sum(t, metric, b) - from) / min + 1;
		if (tree_sum(t, metric, b) - tree_sum(t, metric, a) < min)
			continue;
		if (mem_grow(&f->runs, &f->runs_cap, nr + 1, sizeof(*f->runs)))
			return STATUS_NOMEM;
		u = &f->runs[nr++];
		/* a prefix sorts first: if a row goes deeper, the last does */
		(void)tree_rows_frames(t, b - 1, &last);
		*u = (struct tree_run){ .frame = frame,
			                .r0 = a,
			                .r1 = b,
			                .kids = last > depth + 1,
			                .tasks = tree_sum(t, METRIC_COUNT, b) -
			                         tree_sum(t, METRIC_COUNT, a) };
		for (int m = 0; m < METRIC_COUNT; m++)
			u->m.v[m] = tree_sum(t, m, b) - tree_sum(t, m, a);
	}
	return tree_wide_runs(t, node, metric, min, f->runs, nr);
}

static enum status add_box(struct flame *f, uint32_t node, uint32_t row,
                           size_t x0, size_t x1)
{
	if (mem_grow(&f->boxes, &f->cap, f->n + 1, sizeof(*f->boxes)))
		return STATUS_NOMEM;
	f->boxes[f->n++] =
	    (struct flame_box){ .node = node, .row = row, .x0 = x0, .x1 = x1 };
	return STATUS_OK;
}

/* The children of box b, widest first, in its columns: each as wide as
 * its share of b's value (what b ran itself, and the children narrower
 * than a column, stay a gap on the right). */
static enum status children(struct flame *f, struct tree *t, enum metric metric,
                            size_t b)
{
	const struct tree_node *n = &t->nodes[f->boxes[b].node];
	uint64_t total = n->m.v[metric], cum = 0;
	size_t k = 0, x0 = f->boxes[b].x0, w = f->boxes[b].x1 - x0;
	uint32_t row = f->boxes[b].row + 1;
	enum status st = STATUS_OK;

	if (!total || !n->kids)
		return STATUS_OK;
	/* only the callees a column wide or more are made */
	if (wide(f, t, f->boxes[b].node, metric,
	         (uint64_t)((double)total / (double)w)) != STATUS_OK)
		return STATUS_NOMEM;
	n = &t->nodes[f->boxes[b].node];
	if (mem_grow(&f->keys, &f->keys_cap, n->nchild, sizeof(*f->keys)) ||
	    mem_grow(&f->tkeys, &f->tkeys_cap, n->nchild, sizeof(*f->tkeys)) ||
	    mem_grow(&f->vals, &f->vals_cap, n->nchild, sizeof(*f->vals)) ||
	    mem_grow(&f->tvals, &f->tvals_cap, n->nchild, sizeof(*f->tvals)))
		return STATUS_NOMEM;
	/* a child narrower than a column is left out, as flame graphs do:
	 * at most w children are sorted, whatever the fan-out */
	for (uint32_t c = n->first_child; c != TREE_NONE;
	     c = t->nodes[c].next_sibling) {
		uint64_t v = t->nodes[c].m.v[metric];
		if ((double)v * (double)w < (double)total)
			continue;
		f->keys[k] = ~v;
		f->vals[k++] = c;
	}
	sort_radix(f->keys, f->vals, f->tkeys, f->tvals, k);
	for (size_t i = 0; i < k && st == STATUS_OK; i++) {
		uint64_t v = t->nodes[f->vals[i]].m.v[metric];
		size_t a =
		    x0 + (size_t)((double)cum / (double)total * (double)w);
		size_t e;

		if (!v)
			break;
		cum += v;
		e = x0 + (size_t)((double)cum / (double)total * (double)w);
		if (e > x0 + w)
			e = x0 + w;
		if (e > a)
			st = add_box(f, f->vals[i], row, a, e);
		if (e >= x0 + w)
			break;
	}
	return st;
}

enum status flame_layout(struct flame *f, struct tree *t, enum metric metric,
                         size_t cols, size_t levels)
{
	size_t start = 0;
	enum status st;

	f->n = 0;
	f->zoom = f->sel = 0;
	if (!t->n || !cols || !levels)
		return STATUS_OK;
	st = tree_sums(t);
	if (st == STATUS_OK)
		st = find_zoom(f, t, &f->zoom);
	if (st == STATUS_OK)
		st = add_box(f, f->zoom, 0, 0, cols);
	for (uint32_t row = 1; st == STATUS_OK && row < levels; row++) {
		size_t end = f->n;

		for (size_t b = start; b < end && st == STATUS_OK; b++)
			st = children(f, t, metric, b);
		start = end;
		if (start == f->n)
			break;
	}
	if (st != STATUS_OK) {
		f->n = 0;
		return st;
	}
	f->sel = f->zoom;
	for (size_t b = 0; b < f->n; b++)
		if (t->nodes[f->boxes[b].node].path == f->sel_path &&
		    (f->sel_path || !f->boxes[b].node))
			f->sel = f->boxes[b].node;
	f->sel_path = t->nodes[f->sel].path;
	return STATUS_OK;
}

static size_t box_of(const struct flame *f, uint32_t node)
{
	for (size_t b = 0; b < f->n; b++)
		if (f->boxes[b].node == node)
			return b;
	return SIZE_MAX;
}

void flame_select(struct flame *f, const struct tree *t, char dir)
{
	size_t b = box_of(f, f->sel);
	uint32_t to = TREE_NONE;

	/* the layout is the last drawn: the tree may have been made again */
	if (b == SIZE_MAX || f->sel >= t->n)
		return;
	if (dir == 'u' && f->sel != f->zoom)
		to = t->nodes[f->sel].parent;
	for (size_t c = b + 1; dir == 'd' && c < f->n; c++)
		if (f->boxes[c].node < t->n &&
		    t->nodes[f->boxes[c].node].parent == f->sel) {
			to = f->boxes[c].node;
			break;
		}
	if (dir == 'l' && b > 0 && f->boxes[b - 1].row == f->boxes[b].row)
		to = f->boxes[b - 1].node;
	if (dir == 'r' && b + 1 < f->n &&
	    f->boxes[b + 1].row == f->boxes[b].row)
		to = f->boxes[b + 1].node;
	if (to == TREE_NONE || to >= t->n)
		return;
	f->sel = to;
	f->sel_path = t->nodes[to].path;
}

void flame_zoom_in(struct flame *f, const struct tree *t)
{
	size_t n = 0;

	if (f->sel >= t->n)
		return;
	for (uint32_t id = f->sel; id && id != TREE_NONE;
	     id = t->nodes[id].parent)
		n++;
	if (n > FLAME_ZOOM_MAX)
		return;
	f->zoom_depth = n;
	for (uint32_t id = f->sel; id && id != TREE_NONE;
	     id = t->nodes[id].parent)
		f->zoom_frames[--n] = t->nodes[id].frame;
	f->zoom_path = f->sel_path;
}

bool flame_zoom_out(struct flame *f)
{
	/* by frames: keys may come faster than layouts */
	if (!f->zoom_depth)
		return false;
	f->sel_path = tree_path(f->zoom_frames, f->zoom_depth);
	f->zoom_depth--;
	f->zoom_path = tree_path(f->zoom_frames, f->zoom_depth);
	return true;
}

static struct strview label(const struct flame_in *in, uint32_t node)
{
	return node ? model_frame(in->m, in->t->nodes[node].frame)
	            : sv_c("all");
}

static void head(const struct flame_in *in, const struct render_in *rin,
                 struct screen *s, size_t top)
{
	const struct tree_node *z = &in->t->nodes[in->f->zoom];
	const struct tree_node *n = &in->t->nodes[in->f->sel];
	struct screen_line *l = &s->lines[top];
	const char *d = glyph(GLYPH_SEP, rin->flags);
	char h[256], v[HUMAN_BUFSZ], p[HUMAN_BUFSZ], zp[HUMAN_BUFSZ];

	human_percent(zp, sizeof(zp), z->m.v[in->metric],
	              in->w->total.v[in->metric]);
	line_reset(l, EL_TITLE);
	snprintf(h, sizeof(h),
	         " FLAME %s%szoom %s%sEnter in, Esc out, arrows select%s",
	         metric_name(in->metric), d, zp, d, d);
	line_puts(l, EL_TITLE, h, line_room(s, l), rin->flags);
	human_metric(v, sizeof(v), in->metric, n->m.v[in->metric]);
	human_percent(p, sizeof(p), n->m.v[in->metric],
	              in->w->total.v[in->metric]);
	snprintf(h, sizeof(h), "%s %s  ", v, p);
	line_puts(l, EL_TITLE_KEY, h, line_room(s, l), rin->flags);
	line_put(l, EL_TITLE_KEY, label(in, in->f->sel), line_room(s, l),
	         rin->flags);
	line_pad(l, EL_TITLE, s->cols);
}

enum status flame_draw(const void *ctx, const struct render_in *rin,
                       struct screen *s, size_t top, size_t end)
{
	const struct flame_in *in = ctx;
	const struct flame *f = in->f;
	size_t b = 0;

	if (!in->t->n) {
		line_reset(&s->lines[top], EL_TITLE);
		line_puts(&s->lines[top], EL_TITLE, " FLAME", s->cols,
		          rin->flags);
		return STATUS_OK;
	}
	head(in, rin, s, top);
	for (size_t r = top + FLAME_HEAD_ROWS; r < end; r++) {
		struct screen_line *l = &s->lines[r];
		uint32_t row = (uint32_t)(r - top - FLAME_HEAD_ROWS);

		line_reset(l, EL_NORMAL);
		for (size_t k = 0; b < f->n && f->boxes[b].row == row;
		     b++, k++) {
			const struct flame_box *x = &f->boxes[b];
			enum elem el = x->node == f->sel ? EL_SELECTED
			               : k % 2           ? EL_BAR
			                                 : EL_HOT;

			if (x->node == f->sel)
				s->cursor_row = r;
			line_pad(l, EL_NORMAL, x->x0);
			line_puts(l, el, glyph(GLYPH_BAR_OPEN, rin->flags), 1,
			          rin->flags);
			if (x->x1 - x->x0 > 1)
				line_put(l, el, label(in, x->node),
				         x->x1 - x->x0 - 1, rin->flags);
			/* filled, so a frame's width shows without colour */
			while (l->width < x->x1) {
				size_t at = l->text.len;
				buf_adds(&l->text,
				         glyph(GLYPH_FILL, rin->flags));
				l->width++;
				line_span(l, at, el);
			}
		}
	}
	return STATUS_OK;
}
