/* Table state: order, filter, selection by stack id, scrolling. */
#include "tui/view.h"

#include <string.h>

#include "model/alloc.h"

void view_init(struct view *v, enum metric metric)
{
	memset(v, 0, sizeof(*v));
	v->metric = metric;
	v->page = 1;
	order_init(&v->order);
	buf_init(&v->hay);
}

void view_fini(struct view *v)
{
	order_fini(&v->order);
	mem_free(v->kept);
	mem_free(v->hay_off);
	buf_fini(&v->hay);
	memset(v, 0, sizeof(*v));
}

static unsigned char lower(unsigned char c)
{
	return c >= 'A' && c <= 'Z' ? (unsigned char)(c - 'A' + 'a') : c;
}

static bool contains(struct strview hay, const char *needle, size_t len)
{
	if (len > hay.len)
		return false;
	for (size_t i = 0; i + len <= hay.len; i++) {
		size_t k = 0;

		while (k < len && lower((unsigned char)hay.ptr[i + k]) ==
		                      lower((unsigned char)needle[k]))
			k++;
		if (k == len)
			return true;
	}
	return false;
}

bool view_row_matches(const struct model *m, const struct window *w, size_t row,
                      const char *needle, size_t len)
{
	const struct fold_row *r = &w->rows[row];
	const uint32_t *frames;
	size_t depth = 0;

	if (!len)
		return true;
	frames = model_stack(m, r->stack, &depth);
	for (size_t i = 0; i < depth; i++)
		if (contains(model_frame(m, frames[i]), needle, len))
			return true;
	for (uint32_t i = 0; i < r->count; i++)
		if (contains(model_name(m, w->entries[r->first + i].name),
		             needle, len))
			return true;
	return false;
}

struct keep_ctx {
	const struct view *v;
};

static bool keep_row(void *ctx, const struct window *w, size_t row)
{
	const struct view *v = ((struct keep_ctx *)ctx)->v;

	if (v->narrowing && !(v->kept[row / 64] >> (row % 64) & 1))
		return false;
	if (v->hay_w == w) {
		struct strview h = { v->hay.data + v->hay_off[row],
			             v->hay_off[row + 1] - v->hay_off[row] };
		return contains(h, v->filter, v->filter_len);
	}
	return view_row_matches(v->m, w, row, v->filter, v->filter_len);
}

static void hay_add(struct buf *b, struct strview s)
{
	size_t start = b->len;

	if (buf_addv(b, s) != STATUS_OK || buf_addc(b, '\n') != STATUS_OK)
		return;
	for (size_t i = start; i < b->len; i++)
		b->data[i] = (char)lower((unsigned char)b->data[i]);
}

/* Builds the haystack of w's rows (best effort: on failure the filter
 * reads the model directly). */
static void hay_build(struct view *v, const struct window *w)
{
	v->hay_w = NULL;
	if (w->nrows + 1 > v->hay_cap) {
		size_t *o =
		    mem_realloc_array(v->hay_off, w->nrows + 1, sizeof(*o));
		if (!o)
			return;
		v->hay_off = o;
		v->hay_cap = w->nrows + 1;
	}
	buf_reset(&v->hay);
	for (size_t r = 0; r < w->nrows; r++) {
		const struct fold_row *fr = &w->rows[r];
		size_t depth = 0;
		const uint32_t *frames = model_stack(v->m, fr->stack, &depth);

		v->hay_off[r] = v->hay.len;
		for (size_t i = 0; i < depth; i++)
			hay_add(&v->hay, model_frame(v->m, frames[i]));
		for (uint32_t i = 0; i < fr->count; i++)
			hay_add(
			    &v->hay,
			    model_name(v->m, w->entries[fr->first + i].name));
	}
	v->hay_off[w->nrows] = v->hay.len;
	if (buf_status(&v->hay) != STATUS_OK) {
		buf_fini(&v->hay);
		return;
	}
	v->hay_w = w;
	v->hay_seq = w->seq;
}

/* Remembers the rows this filter kept (best effort: no memory, no
 * narrowing next time). */
static void remember(struct view *v, const struct window *w)
{
	size_t words = (w->nrows + 63) / 64;

	v->kept_w = NULL;
	if (!v->filter_len)
		return;
	if (words > v->kept_words) {
		uint64_t *k = mem_realloc_array(v->kept, words, sizeof(*k));
		if (!k)
			return;
		v->kept = k;
		v->kept_words = words;
	}
	memset(v->kept, 0, words * sizeof(*v->kept));
	for (size_t i = 0; i < v->order.n; i++)
		v->kept[v->order.idx[i] / 64] |= (uint64_t)1
		                                 << (v->order.idx[i] % 64);
	v->kept_w = w;
	v->kept_seq = w->seq;
	memcpy(v->kept_filter, v->filter, v->filter_len);
	v->kept_len = v->filter_len;
}

static void follow(struct view *v)
{
	size_t n = v->order.n;

	if (!n) {
		v->sel = v->top = 0;
		return;
	}
	if (v->sel >= n)
		v->sel = n - 1;
	if (v->sel < v->top)
		v->top = v->sel;
	if (v->sel >= v->top + v->page)
		v->top = v->sel + 1 - v->page;
	if (n > v->page && v->top > n - v->page)
		v->top = n - v->page;
	if (n <= v->page)
		v->top = 0;
	v->has_sel = true;
	v->sel_stack = v->w->rows[v->order.idx[v->sel]].stack;
}

enum status view_build(struct view *v, const struct model *m,
                       const struct window *w)
{
	struct keep_ctx k = { v };
	enum status st;

	v->m = m;
	v->w = w;
	if (!w) {
		v->order.n = 0;
		v->sel = v->top = 0;
		return STATUS_OK;
	}
	if (v->filter_len && (v->hay_w != w || v->hay_seq != w->seq))
		hay_build(v, w);
	/* a longer filter containing the last one keeps a subset of its
	 * rows: only those are checked again */
	v->narrowing = v->filter_len && v->kept_w == w &&
	               v->kept_seq == w->seq && v->kept_len &&
	               contains(sv_n(v->filter, v->filter_len), v->kept_filter,
	                        v->kept_len);
	st = order_build(&v->order, w, v->metric, !v->ascending,
	                 v->filter_len ? keep_row : NULL, &k);
	v->narrowing = false;
	if (st == STATUS_OK)
		remember(v, w);
	if (st != STATUS_OK) {
		v->order.n = 0;
		v->sel = v->top = 0;
		return st;
	}
	if (v->has_sel) {
		size_t pos = order_find(&v->order, w, v->sel_stack);
		if (pos != SIZE_MAX)
			v->sel = pos;
	}
	follow(v);
	return STATUS_OK;
}

void view_set_page(struct view *v, size_t rows)
{
	v->page = rows ? rows : 1;
	if (v->w)
		follow(v);
}

void view_move(struct view *v, long delta)
{
	size_t n = v->order.n;

	if (!n)
		return;
	if (delta < 0)
		v->sel = (size_t)-delta > v->sel ? 0 : v->sel - (size_t)-delta;
	else
		v->sel = (size_t)delta >= n - v->sel ? n - 1
		                                     : v->sel + (size_t)delta;
	follow(v);
}

void view_select(struct view *v, size_t pos)
{
	if (!v->order.n)
		return;
	v->sel = pos;
	follow(v);
}

void view_scroll(struct view *v, long delta)
{
	size_t n = v->order.n, maxtop;

	if (n <= v->page)
		return;
	maxtop = n - v->page;
	if (delta < 0)
		v->top = (size_t)-delta > v->top ? 0 : v->top - (size_t)-delta;
	else
		v->top = (size_t)delta >= maxtop - v->top
		             ? maxtop
		             : v->top + (size_t)delta;
	if (v->sel < v->top)
		v->sel = v->top;
	if (v->sel >= v->top + v->page)
		v->sel = v->top + v->page - 1;
	v->sel_stack = v->w->rows[v->order.idx[v->sel]].stack;
}

size_t view_row_at(const struct view *v, size_t pos)
{
	return pos < v->order.n ? v->order.idx[pos] : SIZE_MAX;
}
