/* The detail of one row, rendered as a scrolled list of lines. */
#include "tui/view_detail.h"

#include <stdio.h>
#include <string.h>

#include "encode/humanize.h"
#include "encode/utf8.h"
#include "model/alloc.h"
#include "model/extras.h"
#include "model/sort.h"
#include "tui/glyph.h"
#include "tui/grouped.h"
#include "tui/line.h"

/* Lines besides the frames, the other stacks and the tasks: the stack's
 * title, a gap, the metrics' title, the five metrics, the means, the
 * optional figures, the sparkline, a gap, the other stacks' title and the
 * gap after them, the tasks' title and column titles. */
#define DETAIL_FIXED \
	(1 + 1 + 1 + METRIC_COUNT + 1 + EXTRA_COUNT + 1 + 1 + 2 + 2)

/* The most other stacks listed (the heaviest by the weighting). */
#define OTHER_MAX 12
/* The fewest of a row's tasks put in order by selection (doubled as the
 * operator scrolls, up to a quarter of them: then all are sorted). */
#define DETAIL_SELECT 64

/* The optional figures as the detail words them. */
static const char *const figure_label[EXTRA_COUNT] = {
	[EXTRA_SELF_WAKES] = "self-wakes", [EXTRA_MAX_POLL] = "longest poll",
	[EXTRA_WAKERS] = "wakers held",    [EXTRA_POLL_NOW] = "poll running",
	[EXTRA_NO_WAKER] = "no waker",
};

/* Writes lines in order; only those from skip on, up to the screen's end,
 * are drawn (the others are counted and dropped). */
struct out {
	struct screen *s;
	size_t row, end;
	size_t skip;
	unsigned flags;
};

/* The next line to draw, or NULL when it is scrolled away or past the
 * end (then the caller draws nothing). */
static struct screen_line *next(struct out *o)
{
	struct screen_line *l;

	if (o->skip) {
		o->skip--;
		return NULL;
	}
	if (o->row >= o->end)
		return NULL;
	l = &o->s->lines[o->row++];
	line_reset(l, EL_NORMAL);
	return l;
}

static void text_line(struct out *o, enum elem el, const char *text)
{
	struct screen_line *l = next(o);

	if (!l)
		return;
	line_puts(l, el, " ", 1, o->flags);
	line_puts(l, el, text, line_room(o->s, l), o->flags);
}

size_t detail_row(const struct detail_in *in)
{
	const struct window *w = in->w;
	size_t r = w ? window_find_row(w, in->stack) : SIZE_MAX;

	if (r == SIZE_MAX || !w->group.by_name)
		return r;
	/* split by name, the stack's rows are neighbours */
	while (r > 0 && w->rows[r - 1].stack == in->stack)
		r--;
	for (; r < w->nrows && w->rows[r].stack == in->stack; r++)
		if (w->rows[r].name == in->name)
			return r;
	return SIZE_MAX;
}

void detail_cache_fini(struct detail_cache *dc)
{
	mem_free(dc->other);
	mem_free(dc->oorder);
	mem_free(dc->torder);
	mem_free(dc->keys);
	mem_free(dc->tkeys);
	mem_free(dc->tvals);
	*dc = (struct detail_cache){ .w = NULL };
}

static enum status cache_grow(struct detail_cache *dc, size_t n)
{
	n = n ? n : 1;
	if (mem_grow(&dc->other, &dc->other_cap, n, sizeof(*dc->other)) ||
	    mem_grow(&dc->oorder, &dc->oorder_cap, n, sizeof(*dc->oorder)) ||
	    mem_grow(&dc->torder, &dc->torder_cap, n, sizeof(*dc->torder)) ||
	    mem_grow(&dc->keys, &dc->keys_cap, n, sizeof(*dc->keys)) ||
	    mem_grow(&dc->tkeys, &dc->tkeys_cap, n, sizeof(*dc->tkeys)) ||
	    mem_grow(&dc->tvals, &dc->tvals_cap, n, sizeof(*dc->tvals)))
		return STATUS_NOMEM;
	return STATUS_OK;
}

/* The row's other stacks (window_other_stack of its entries) folded by
 * stack id, every metric summed: a radix sort of its entries by that id
 * (tens of times faster than qsort at 100,000 entries, a whole window in
 * one row at worst). */
static void fold_others(struct detail_cache *dc, const struct window *w,
                        const struct fold_row *r)
{
	const struct fold_entry *e = w->entries + r->first;
	size_t k = 0;

	for (uint32_t i = 0; i < r->count; i++) {
		dc->keys[i] = window_other_stack(w, &e[i]);
		dc->torder[i] = i;
	}
	sort_radix(dc->keys, dc->torder, dc->tkeys, dc->tvals, r->count);
	for (uint32_t i = 0; i < r->count; i++) {
		const struct fold_entry *x = &e[dc->torder[i]];
		uint32_t stack = (uint32_t)dc->keys[i];

		if (!k || dc->other[k - 1].stack != stack)
			dc->other[k++] =
			    (struct detail_other){ .stack = stack };
		dc->other[k - 1].tasks =
		    u64_add_sat(dc->other[k - 1].tasks, x->tasks);
		metrics_add(&dc->other[k - 1].m, &x->m);
	}
	dc->nother = k;
	/* a row's entries are by name first: count the changes */
	dc->names = 0;
	for (uint32_t i = 0; i < r->count; i++)
		dc->names += !i || e[i].name != e[i - 1].name;
}

/* The first OTHER_MAX others heaviest first by the weighting (ties by
 * stack id): only those are drawn.  And the row's entries by the
 * weighting (ties in entry order, by name), at least the first need of
 * them: a page or a few (doubling as the operator scrolls) are selected
 * in one pass (sort_first; a row may fold a whole window, 100,000
 * entries, which the sort took milliseconds over at each weighting key),
 * all sorted past a quarter of them. */
static void sort_row(struct detail_cache *dc, const struct window *w,
                     const struct fold_row *r, enum metric mt, bool ascending,
                     size_t need)
{
	const struct fold_entry *e = w->entries + r->first;
	size_t k;

	for (size_t i = 0; i < dc->nother; i++)
		dc->keys[i] = ~dc->other[i].m.v[mt];
	sort_first(dc->keys, dc->nother, OTHER_MAX, dc->oorder, dc->tvals);
	for (uint32_t i = 0; i < r->count; i++) {
		uint64_t v = e[i].m.v[mt];
		dc->keys[i] = ascending ? v : ~v;
	}
	for (k = DETAIL_SELECT; k < need && k < r->count; k *= 2)
		;
	if (k < r->count / 4) {
		sort_first(dc->keys, r->count, k, dc->torder, dc->tvals);
		dc->tsorted = k;
		return;
	}
	for (uint32_t i = 0; i < r->count; i++)
		dc->torder[i] = i;
	sort_radix(dc->keys, dc->torder, dc->tkeys, dc->tvals, r->count);
	dc->tsorted = r->count;
}

enum status detail_prepare(struct detail_cache *dc, const struct detail_in *in)
{
	size_t row = detail_row(in), need;
	const struct fold_row *r;

	if (row == SIZE_MAX)
		return STATUS_OK; /* the draw says the row is gone */
	r = &in->w->rows[row];
	if (dc->m != in->m || dc->w != in->w || dc->seq != in->w->seq ||
	    !grouping_eq(dc->g, in->w->group) || dc->row != row) {
		*dc = (struct detail_cache){
			.other = dc->other,
			.oorder = dc->oorder,
			.torder = dc->torder,
			.keys = dc->keys,
			.tkeys = dc->tkeys,
			.tvals = dc->tvals,
			.other_cap = dc->other_cap,
			.oorder_cap = dc->oorder_cap,
			.torder_cap = dc->torder_cap,
			.keys_cap = dc->keys_cap,
			.tkeys_cap = dc->tkeys_cap,
			.tvals_cap = dc->tvals_cap,
		};
		if (cache_grow(dc, r->count) != STATUS_OK)
			return STATUS_NOMEM;
		fold_others(dc, in->w, r);
		dc->m = in->m;
		dc->w = in->w;
		dc->seq = in->w->seq;
		dc->g = in->w->group;
		dc->row = row;
		dc->folded = true;
	}
	/* the draw reaches the task at most at line top + page */
	need = in->page ? size_add_sat(in->top, in->page) : SIZE_MAX;
	if (dc->sorted && dc->metric == in->metric &&
	    dc->ascending == in->ascending &&
	    (dc->tsorted >= need || dc->tsorted == r->count))
		return STATUS_OK;
	sort_row(dc, in->w, r, in->metric, in->ascending, need);
	dc->metric = in->metric;
	dc->ascending = in->ascending;
	dc->sorted = true;
	return STATUS_OK;
}

/* The cache of in, when it holds in's row as in orders it; else NULL. */
static const struct detail_cache *cache_of(const struct detail_in *in,
                                           size_t row)
{
	const struct detail_cache *dc = in->cache;

	if (!dc || !dc->folded || !dc->sorted || dc->m != in->m ||
	    dc->w != in->w || dc->seq != in->w->seq || dc->row != row ||
	    dc->metric != in->metric || dc->ascending != in->ascending)
		return NULL;
	return dc;
}

size_t detail_count(const struct detail_in *in)
{
	size_t i = detail_row(in), depth = 0;
	const struct detail_cache *dc = i == SIZE_MAX ? NULL : cache_of(in, i);
	size_t n = dc ? dc->nother : 0;

	if (i == SIZE_MAX)
		return 1;
	(void)model_stack(in->m, in->stack, &depth);
	/* without a cache (out of memory) none are counted: the draw says so */
	return DETAIL_FIXED + depth + size_min(n, OTHER_MAX) + (n > OTHER_MAX) +
	       in->w->rows[i].count;
}

static void frames(struct out *o, const struct detail_in *in)
{
	size_t depth = 0;
	const uint32_t *f = model_stack(in->m, in->stack, &depth);
	char head[96];

	snprintf(head, sizeof(head), "%s stack, root first (%zu frame%s):",
	         in->w->group.key == GROUP_PARKED ? "Parked-at" : "Spawn",
	         depth, depth == 1 ? "" : "s");
	text_line(o, EL_TITLE, head);
	for (size_t i = 0; i < depth; i++) {
		struct screen_line *l = next(o);
		char num[32];

		if (!l)
			continue;
		snprintf(num, sizeof(num), "%5zu  ", i + 1);
		line_puts(l, EL_DIM, num, line_room(o->s, l), o->flags);
		line_put(l, i + 1 == depth ? EL_KEYCOL : EL_NORMAL,
		         model_frame(in->m, f[i]), line_room(o->s, l),
		         o->flags);
	}
	text_line(o, EL_NORMAL, "");
}

/* The optional figures, a line each: "unknown" where no task of the row
 * told it (a runtime that cannot), never 0. */
static void figures(struct out *o, const struct fold_row *r)
{
	for (int i = 0; i < EXTRA_COUNT; i++) {
		enum extra e = (enum extra)i;
		struct screen_line *l = next(o);
		char v[HUMAN_BUFSZ], cell[64];
		uint64_t x;

		if (!l)
			continue;
		if (!extras_get(&r->x, e, &x))
			snprintf(v, sizeof(v), "unknown");
		else if (!strcmp(extra_unit(e), "nanoseconds"))
			human_duration(v, sizeof(v), x);
		else
			human_count(v, sizeof(v), x);
		snprintf(cell, sizeof(cell), " %-12s", figure_label[e]);
		line_puts(l, EL_NORMAL, cell, line_room(o->s, l), o->flags);
		line_right(l, extras_get(&r->x, e, &x) ? EL_NORMAL : EL_DIM, v,
		           12, o->flags);
	}
}

static void metrics(struct out *o, const struct detail_in *in,
                    const struct fold_row *r, struct buf *tmp)
{
	const struct window *w = in->w;
	char v[HUMAN_BUFSZ], pct[HUMAN_BUFSZ], cell[64];

	text_line(o, EL_TITLE, "METRIC             VALUE   SHARE OF WINDOW");
	for (int i = 0; i < METRIC_COUNT; i++) {
		enum metric m = (enum metric)i;
		struct screen_line *l = next(o);
		enum elem el = m == in->metric ? EL_KEYCOL : EL_NORMAL;

		if (!l)
			continue;
		human_metric(v, sizeof(v), m, r->m.v[i]);
		human_percent(pct, sizeof(pct), r->m.v[i], w->total.v[i]);
		snprintf(cell, sizeof(cell), " %-12s", metric_name(m));
		line_puts(l, el, cell, line_room(o->s, l), o->flags);
		line_right(l, el, v, 12, o->flags);
		line_right(l, el, pct, 8, o->flags);
		line_pad(l, EL_NORMAL, l->width + 2);
		buf_reset(tmp);
		(void)render_bar(tmp, r->m.v[i], w->total.v[i], 16, o->flags);
		line_put(l, EL_BAR, buf_view(tmp), line_room(o->s, l),
		         o->flags);
	}
	/* the means per poll: how long a poll ran, how long it waited */
	{
		struct screen_line *l = next(o);
		uint64_t polls = r->m.v[METRIC_POLLS];
		char b[HUMAN_BUFSZ], q[HUMAN_BUFSZ], line[96];

		if (!l)
			return;
		if (polls) {
			human_duration(b, sizeof(b),
			               r->m.v[METRIC_BUSY] / polls);
			human_duration(q, sizeof(q),
			               r->m.v[METRIC_SCHED] / polls);
		} else {
			snprintf(b, sizeof(b), "-");
			snprintf(q, sizeof(q), "-");
		}
		snprintf(line, sizeof(line),
		         " per poll:  busy %s  scheduled %s", b, q);
		line_puts(l, EL_NORMAL, line, line_room(o->s, l), o->flags);
	}
	figures(o, r);
}

size_t spark_columns(size_t cols)
{
	return size_min(cols > 60 ? cols - 60 : 1, SPARK_MAX);
}

/* The row's figures in kept window w into *v; false when w has none of
 * its entries.  *cost gets the entries looked at. */
static bool sum_row(const struct window *w, struct grouping g, uint32_t stack,
                    uint32_t name, struct metrics *v, size_t *cost)
{
	bool any = false;

	memset(v, 0, sizeof(*v));
	if (g.key == GROUP_SPAWN) {
		size_t r = window_find_row(w, stack);
		const struct fold_row *row = r == SIZE_MAX ? NULL : &w->rows[r];

		*cost = 1;
		if (!row || !g.by_name) {
			if (row)
				*v = row->m;
			return row != NULL;
		}
		/* split by name: the row's entries of that name */
		*cost += row->count;
		for (uint32_t i = row->first; i < row->first + row->count; i++)
			if (w->entries[i].name == name) {
				metrics_add(v, &w->entries[i].m);
				any = true;
			}
		return any;
	}
	/* by parked-at stack: no index of a kept window has it */
	*cost = w->nentries;
	for (size_t i = 0; i < w->nentries; i++) {
		const struct fold_entry *e = &w->entries[i];

		if (e->parked == stack && (!g.by_name || e->name == name)) {
			metrics_add(v, &e->m);
			any = true;
		}
	}
	return any;
}

void spark_update(struct spark *sp, const struct model *m, struct grouping g,
                  uint32_t stack, uint32_t name, size_t ncols, size_t budget)
{
	size_t n = model_window_count(m), from, k = 0;
	struct spark old = *sp;

	if (sp->m != m || !grouping_eq(sp->g, g) || sp->stack != stack ||
	    sp->name != name)
		old.n = 0;
	ncols = size_min(ncols, SPARK_MAX);
	from = n > ncols ? n - ncols : 0;
	*sp = (struct spark){
		.m = m, .g = g, .stack = stack, .name = name, .n = n - from
	};
	/* both in seq order: keep what was summed for a window still here */
	for (size_t i = 0; i < sp->n; i++) {
		const struct window *w = model_window(m, from + i);

		sp->seq[i] = w->seq;
		while (k < old.n && old.seq[k] < w->seq)
			k++;
		if (k < old.n && old.seq[k] == w->seq && old.done[k]) {
			sp->v[i] = old.v[k];
			sp->have[i] = old.have[k];
			sp->done[i] = true;
		}
	}
	/* the newest first: they are what the eye reads */
	for (size_t i = sp->n; i-- > 0;) {
		size_t cost = 0;

		if (sp->done[i])
			continue;
		if (!budget) {
			sp->pending++;
			continue;
		}
		sp->have[i] = sum_row(model_window(m, from + i), g, stack, name,
		                      &sp->v[i], &cost);
		sp->done[i] = true;
		budget -= size_min(cost, budget);
	}
}

/* The weighting for this row in each kept window, oldest first, as
 * eighth-height bars scaled to the largest; a window without the row is a
 * space, one not summed yet a dot. */
static void sparkline(struct out *o, const struct detail_in *in)
{
	const struct spark *sp = in->spark;
	size_t n;
	uint64_t max = 0;
	struct screen_line *l = next(o);
	char head[32], tail[128], hi[HUMAN_BUFSZ];

	if (!l)
		return;
	snprintf(head, sizeof(head), " %-12s", "history");
	line_puts(l, EL_NORMAL, head, line_room(o->s, l), o->flags);
	if (!sp) {
		line_puts(l, EL_DIM, "-", line_room(o->s, l), o->flags);
		return;
	}
	n = sp->n;
	for (size_t i = 0; i < n; i++)
		if (sp->done[i] && sp->have[i])
			max = sp->v[i].v[in->metric] > max
			          ? sp->v[i].v[in->metric]
			          : max;
	for (size_t i = 0; i < n; i++) {
		uint64_t v = sp->v[i].v[in->metric];
		unsigned level =
		    max ? (unsigned)((double)v / (double)max * 7.0 + 0.5) : 0;
		line_puts(
		    l, EL_BAR,
		    !sp->done[i] ? "."
		    : sp->have[i]
		        ? glyph((enum glyph)(GLYPH_SPARK_1 + level), o->flags)
		        : " ",
		    line_room(o->s, l), o->flags);
	}
	human_metric(hi, sizeof(hi), in->metric, max);
	if (sp->pending)
		snprintf(tail, sizeof(tail),
		         "  %s in the last %zu windows, %zu still to sum",
		         metric_name(in->metric), n, sp->pending);
	else
		snprintf(tail, sizeof(tail),
		         "  %s in the last %zu window%s, top %s",
		         metric_name(in->metric), n, n == 1 ? "" : "s", hi);
	line_puts(l, EL_DIM, tail, line_room(o->s, l), o->flags);
}

/* "parked at" or "spawned at": what the row's other stacks are. */
static const char *other_what(const struct window *w)
{
	return w->group.key == GROUP_PARKED ? "spawned at" : "parked at";
}

/* The row's other stacks, a line each, leaf first, heaviest first. */
static void other_stacks(struct out *o, const struct detail_in *in,
                         const struct detail_cache *dc, struct buf *tmp)
{
	size_t n = dc->nother;
	char head[128], v[HUMAN_BUFSZ];

	snprintf(head, sizeof(head), "%s: %zu stack%s, by %s (leaf%sroot):",
	         in->w->group.key == GROUP_PARKED ? "Spawned at" : "Parked at",
	         n, n == 1 ? "" : "s", metric_name(in->metric),
	         glyph(GLYPH_STACK_SEP, o->flags));
	text_line(o, EL_TITLE, head);
	for (size_t i = 0; i < size_min(n, OTHER_MAX); i++) {
		struct screen_line *l = next(o);
		const struct detail_other *ot = &dc->other[dc->oorder[i]];
		size_t sw = 0;

		if (!l)
			continue;
		human_metric(v, sizeof(v), in->metric, ot->m.v[in->metric]);
		line_right(l, EL_KEYCOL, v, 9, o->flags);
		human_count(v, sizeof(v), ot->tasks);
		line_right(l, EL_NORMAL, v, LAYOUT_TASKS_COLS, o->flags);
		line_pad(l, EL_NORMAL, l->width + 2);
		buf_reset(tmp);
		if (render_stack(tmp, in->m, ot->stack, line_room(o->s, l),
		                 o->flags, &sw) == STATUS_OK)
			line_put(l, EL_NORMAL, buf_view(tmp), sw, o->flags);
	}
	if (n > OTHER_MAX) {
		snprintf(head, sizeof(head),
		         "  and %zu more (each task's below)", n - OTHER_MAX);
		text_line(o, EL_DIM, head);
	}
	text_line(o, EL_NORMAL, "");
}

static void task_row(struct out *o, const struct detail_in *in,
                     const struct layout *lay, const struct fold_entry *e,
                     struct buf *tmp)
{
	struct screen_line *l = next(o);
	char v[HUMAN_BUFSZ];
	size_t sw = 0;

	if (!l)
		return;
	for (int i = 0; i < METRIC_COUNT; i++) {
		enum metric m = (enum metric)i;
		if (!lay->metric[i])
			continue;
		human_metric(v, sizeof(v), m, e->m.v[i]);
		line_right(l, m == in->metric ? EL_KEYCOL : EL_NORMAL, v,
		           metric_is_duration(m) ? LAYOUT_DURATION_COLS
		                                 : LAYOUT_COUNT_COLS,
		           o->flags);
	}
	human_count(v, sizeof(v), e->tasks);
	line_right(l, EL_NORMAL, v, LAYOUT_TASKS_COLS, o->flags);
	line_pad(l, EL_NORMAL, l->width + 2);
	line_put(l, EL_NORMAL, model_name(in->m, e->name), line_room(o->s, l),
	         o->flags);
	/* each (name, other stack) is an entry: say which stack */
	line_puts(l, EL_DIM, glyph(GLYPH_SEP, o->flags), line_room(o->s, l),
	          o->flags);
	line_puts(l, EL_DIM, other_what(in->w), line_room(o->s, l), o->flags);
	line_puts(l, EL_DIM, " ", line_room(o->s, l), o->flags);
	buf_reset(tmp);
	if (render_stack(tmp, in->m, window_other_stack(in->w, e),
	                 line_room(o->s, l), o->flags, &sw) == STATUS_OK)
		line_put(l, EL_DIM, buf_view(tmp), sw, o->flags);
}

static void tasks(struct out *o, const struct detail_in *in,
                  const struct fold_row *r, const struct detail_cache *dc,
                  struct buf *tmp)
{
	const struct fold_entry *e = in->w->entries + r->first;
	struct layout lay;
	struct screen_line *l;
	char head[128], tn[HUMAN_BUFSZ];
	uint32_t names = dc->names;

	human_count(tn, sizeof(tn), r->tasks);
	snprintf(head, sizeof(head),
	         "Tasks folded into this row: %u name%s, %s task%s, by %s:",
	         names, names == 1 ? "" : "s", tn, r->tasks == 1 ? "" : "s",
	         metric_name(in->metric));
	text_line(o, EL_TITLE, head);
	layout_compute(o->s->cols, in->metric, &lay);
	l = next(o);
	if (l) {
		for (int i = 0; i < METRIC_COUNT; i++)
			if (lay.metric[i])
				line_right(l, EL_TITLE,
				           metric_header((enum metric)i),
				           metric_is_duration((enum metric)i)
				               ? LAYOUT_DURATION_COLS
				               : LAYOUT_COUNT_COLS,
				           o->flags);
		line_right(l, EL_TITLE, "TASKS", LAYOUT_TASKS_COLS, o->flags);
		line_puts(l, EL_TITLE, "  NAME", line_room(o->s, l), o->flags);
	}
	/* by the weighting, ties in entry order (by name) */
	for (size_t i = 0; i < dc->tsorted && o->row < o->end; i++)
		task_row(o, in, &lay, &e[dc->torder[i]], tmp);
}

enum status detail_draw(const void *ctx, const struct render_in *rin,
                        struct screen *s, size_t top, size_t end)
{
	const struct detail_in *in = ctx;
	struct out o = { .s = s,
		         .row = top + 1,
		         .end = end,
		         .skip = in->top,
		         .flags = rin->flags };
	struct screen_line *t = &s->lines[top];
	size_t r = detail_row(in);
	const struct detail_cache *dc;
	struct buf tmp;
	enum status st;

	line_reset(t, EL_TITLE);
	line_puts(t, EL_TITLE, " DETAIL", line_room(s, t), rin->flags);
	line_puts(t, EL_TITLE, glyph(GLYPH_SEP, rin->flags), line_room(s, t),
	          rin->flags);
	line_puts(t, EL_TITLE, "Esc back, 1-5 weight, I invert, scroll with ",
	          line_room(s, t), rin->flags);
	line_puts(t, EL_TITLE, glyph(GLYPH_ARROW_UP, rin->flags),
	          line_room(s, t), rin->flags);
	line_puts(t, EL_TITLE, glyph(GLYPH_ARROW_DOWN, rin->flags),
	          line_room(s, t), rin->flags);
	line_pad(t, EL_TITLE, s->cols);
	if (r == SIZE_MAX) {
		o.skip = 0;
		text_line(
		    &o, EL_DIM,
		    "this stack is not in the shown window; Esc goes back to the table");
		return STATUS_OK;
	}
	buf_init(&tmp);
	frames(&o, in);
	metrics(&o, in, &in->w->rows[r], &tmp);
	sparkline(&o, in);
	text_line(&o, EL_NORMAL, "");
	dc = cache_of(in, r);
	if (dc) {
		other_stacks(&o, in, dc, &tmp);
		tasks(&o, in, &in->w->rows[r], dc, &tmp);
	} else {
		text_line(&o, EL_ERROR,
		          "out of memory sorting the tasks of this row");
	}
	st = STATUS_OK;
	if (buf_status(&tmp) != STATUS_OK)
		st = buf_status(&tmp);
	buf_fini(&tmp);
	return st;
}
