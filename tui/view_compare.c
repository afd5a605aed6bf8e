/* Compare: two windows of one model, row by row. */
#include "tui/view_compare.h"

#include <stdio.h>
#include <string.h>

#include "encode/humanize.h"
#include "encode/utf8.h"
#include "model/alloc.h"
#include "model/sort.h"
#include "tui/glyph.h"
#include "tui/grouped.h"
#include "tui/line.h"

/* Columns of the CHANGE, NOW and THEN cells and of the mark. */
#define CMP_CELL 10
#define CMP_MARK 6

void compare_init(struct compare *c)
{
	memset(c, 0, sizeof(*c));
}

void compare_fini(struct compare *c)
{
	mem_free(c->rows);
	mem_free(c->order);
	mem_free(c->keys);
	mem_free(c->tkeys);
	mem_free(c->tvals);
	compare_init(c);
}

/* A compared row: r of cur (row now) or of base (row then, when now is
 * UINT32_MAX); either may be absent (UINT32_MAX). */
static void add(struct cmp_row *r, const struct fold_row *a, uint32_t now,
                uint32_t then)
{
	*r = (struct cmp_row){
		.stack = a->stack, .name = a->name, .now = now, .then = then
	};
}

/* The change as a key that sorts ascending from the largest fall to the
 * largest rise (changes beyond 2^63 ns or counts saturate). */
static uint64_t change_key(const struct cmp_row *r)
{
	uint64_t mag =
	    r->mag > (uint64_t)INT64_MAX ? (uint64_t)INT64_MAX : r->mag;
	uint64_t bias = (uint64_t)1 << 63;

	return r->fall ? bias - mag : bias + mag;
}

/* Row i's change in c's weighting, x now against y then, and its key in
 * c's direction: ~key puts the largest rise first; ties stay in row
 * order. */
static void keyed(struct compare *c, size_t i, uint64_t x, uint64_t y)
{
	struct cmp_row *r = &c->rows[i];
	uint64_t key;

	r->mag = x >= y ? x - y : y - x;
	r->fall = x < y;
	key = change_key(r);
	c->keys[i] = c->ascending ? key : ~key;
}

/* Room for n rows: the pairing writes every one again, so none is
 * copied into the larger arrays (mem_fresh). */
static enum status grow(struct compare *c, size_t n)
{
	if (mem_fresh(&c->rows, &c->cap, n, sizeof(*c->rows)) ||
	    mem_fresh(&c->order, &c->order_cap, n, sizeof(*c->order)) ||
	    mem_fresh(&c->keys, &c->keys_cap, n, sizeof(*c->keys)) ||
	    mem_fresh(&c->tkeys, &c->tkeys_cap, n, sizeof(*c->tkeys)) ||
	    mem_fresh(&c->tvals, &c->tvals_cap, n, sizeof(*c->tvals)))
		return STATUS_NOMEM;
	return STATUS_OK;
}

/* Two rows in the canonical order of rows (model.h): stack text, then
 * name text when split by name. */
static int row_cmp(const struct model *m, const struct fold_row *a,
                   const struct fold_row *b)
{
	int d =
	    a->stack == b->stack ? 0 : model_stack_cmp(m, a->stack, b->stack);

	if (d || a->name == b->name)
		return d;
	return sv_cmp(model_name(m, a->name), model_name(m, b->name));
}

/* The rows of cur, each with its row of base, then the rows of base gone
 * from cur; both in row order.  Both windows' rows are in the canonical
 * order, so one merge in row order pairs them, reading rows in turn (a
 * merge of the by-id indexes read them at random: most of the time at
 * 100,000 rows) and comparing texts only where the windows differ; each
 * row is made as the merge passes it (cur's at its index, the gone after
 * all of cur's), with its change in c's weighting, so neither window is
 * read twice.  pair_begin readies it; pair_on goes on from where it
 * stopped for at most budget rows (SIZE_MAX: to the end), true when
 * done. */
static enum status pair_begin(struct compare *c, const struct window *cur,
                              const struct window *base)
{
	size_t nc = cur->nrows, nb = base->nrows;

	if (nc + nb >= UINT32_MAX || grow(c, nc + nb + 1) != STATUS_OK)
		return STATUS_NOMEM;
	c->pi = c->pj = 0;
	c->pgone = nc;
	return STATUS_OK;
}

static bool pair_on(struct compare *c, const struct model *m,
                    const struct window *cur, const struct window *base,
                    size_t budget)
{
	size_t nc = cur->nrows, nb = base->nrows, i = c->pi, j = c->pj;
	size_t gone = c->pgone, left = budget;
	enum metric mt = c->metric;

	for (; i < nc && j < nb && left; left--) {
		const struct fold_row *a = &cur->rows[i], *b = &base->rows[j];
		int d = a->stack == b->stack && a->name == b->name
		            ? 0
		            : row_cmp(m, a, b);

		if (d > 0) {
			add(&c->rows[gone], b, UINT32_MAX, (uint32_t)j);
			keyed(c, gone++, 0, b->m.v[mt]);
		} else {
			add(&c->rows[i], a, (uint32_t)i,
			    d ? UINT32_MAX : (uint32_t)j);
			keyed(c, i, a->m.v[mt], d ? 0 : b->m.v[mt]);
		}
		i += d <= 0;
		j += d >= 0;
	}
	for (; i < nc && j >= nb && left; i++, left--) {
		add(&c->rows[i], &cur->rows[i], (uint32_t)i, UINT32_MAX);
		keyed(c, i, cur->rows[i].m.v[mt], 0);
	}
	for (; j < nb && i >= nc && left; j++, left--) {
		add(&c->rows[gone], &base->rows[j], UINT32_MAX, (uint32_t)j);
		keyed(c, gone++, 0, base->rows[j].m.v[mt]);
	}
	c->pi = i;
	c->pj = j;
	c->pgone = gone;
	if (i < nc || j < nb)
		return false;
	c->n = gone;
	return true;
}

enum status compare_build(struct compare *c, const struct model *m,
                          const struct window *cur, const struct window *base,
                          enum metric metric, bool ascending)
{
	return compare_build_top(c, m, cur, base, metric, ascending, SIZE_MAX);
}

/* c pairs (or paired) cur and base, as they are now. */
static bool pairs(const struct compare *c, const struct window *cur,
                  const struct window *base)
{
	return (c->paired || c->pairing) && c->cur == cur && c->base == base &&
	       c->cur_seq == cur->seq && c->base_seq == base->seq &&
	       grouping_eq(c->group, cur->group);
}

bool compare_paired(const struct compare *c, const struct window *cur,
                    const struct window *base)
{
	return c->paired && pairs(c, cur, base);
}

enum status compare_pair_step(struct compare *c, const struct model *m,
                              const struct window *cur,
                              const struct window *base, enum metric metric,
                              bool ascending, size_t budget, bool *done)
{
	*done = false;
	if (!pairs(c, cur, base)) {
		c->paired = c->built = c->pairing = false;
		c->n = c->sorted = 0;
		/* the weighting the rows are keyed in as the merge passes:
		 * another one asked before it ends keys them again */
		c->metric = metric;
		c->ascending = ascending;
		if (pair_begin(c, cur, base) != STATUS_OK)
			return STATUS_NOMEM;
		c->cur = cur;
		c->base = base;
		c->cur_seq = cur->seq;
		c->base_seq = base->seq;
		c->group = cur->group;
		c->pairing = true;
	}
	if (c->pairing && pair_on(c, m, cur, base, budget ? budget : 1)) {
		c->pairing = false;
		c->paired = c->built = true;
	}
	*done = c->paired;
	return STATUS_OK;
}

enum status compare_build_top(struct compare *c, const struct model *m,
                              const struct window *cur,
                              const struct window *base, enum metric metric,
                              bool ascending, size_t need)
{
	uint64_t low = UINT64_MAX;
	size_t k;
	bool done;

	if (compare_pair_step(c, m, cur, base, metric, ascending, SIZE_MAX,
	                      &done) != STATUS_OK) {
		c->n = 0;
		return STATUS_NOMEM;
	}
	if (!c->built || c->metric != metric || c->ascending != ascending) {
		c->metric = metric;
		c->ascending = ascending;
		c->sorted = 0;
		for (size_t i = 0; i < c->n; i++) {
			const struct cmp_row *r = &c->rows[i];

			keyed(c, i,
			      r->now == UINT32_MAX
			          ? 0
			          : cur->rows[r->now].m.v[metric],
			      r->then == UINT32_MAX
			          ? 0
			          : base->rows[r->then].m.v[metric]);
		}
		c->built = true;
	}
	if (need <= c->sorted || c->sorted == c->n)
		return STATUS_OK;
	/* a page or a few: selected in one pass (a few ms less than the
	 * sort at 100,000 rows); the fewer, the cheaper the selection, and
	 * doubling as the operator pages down selects again only each time
	 * the rows in place run out */
	for (k = CMP_SELECT; k < need && k < c->n; k *= 2)
		;
	if (k < c->n / 4) {
		sort_first(c->keys, c->n, k, c->order, c->tvals);
		c->sorted = k;
		return STATUS_OK;
	}
	for (size_t i = 0; i < c->n; i++) {
		low = c->keys[i] < low ? c->keys[i] : low;
		c->order[i] = (uint32_t)i;
	}
	/* from the smallest key on, only the digits of the spread differ:
	 * fewer radix passes (the sort leaves the keys in order, no longer
	 * by row: with every row in place, nothing reads them again) */
	for (size_t i = 0; i < c->n; i++)
		c->keys[i] -= low;
	sort_radix(c->keys, c->order, c->tkeys, c->tvals, c->n);
	c->sorted = c->n;
	return STATUS_OK;
}

size_t compare_count(const struct compare_in *in)
{
	return in->why || !in->c->built ? 1 : in->c->n;
}

static void cell(struct screen_line *l, enum elem el, enum metric m,
                 const struct window *w, uint32_t row, unsigned flags)
{
	char v[HUMAN_BUFSZ];

	if (row == UINT32_MAX)
		snprintf(v, sizeof(v), "-");
	else
		human_metric(v, sizeof(v), m, w->rows[row].m.v[m]);
	line_right(l, el, v, CMP_CELL, flags);
}

static void titles(const struct compare_in *in, const struct render_in *rin,
                   struct screen *s, size_t top)
{
	const struct compare *c = in->c;
	struct screen_line *t = &s->lines[top];
	const char *d = glyph(GLYPH_SEP, rin->flags);
	char head[256];

	line_reset(t, EL_TITLE);
	if (in->why || !c->built)
		snprintf(head, sizeof(head), " COMPARE%sEsc back", d);
	else
		snprintf(
		    head, sizeof(head),
		    " COMPARE %s%swindow %llu against %s window %llu%sm marks, Esc back",
		    metric_name(c->metric), d, (unsigned long long)c->cur->seq,
		    in->marked ? "the marked" : "the previous",
		    (unsigned long long)c->base->seq, d);
	line_puts(t, EL_TITLE, head, line_room(s, t), rin->flags);
	line_pad(t, EL_TITLE, s->cols);
}

static void row(const struct compare_in *in, const struct render_in *rin,
                struct screen *s, struct screen_line *l,
                const struct cmp_row *r, struct buf *tmp)
{
	const struct compare *c = in->c;
	char v[HUMAN_BUFSZ], ch[HUMAN_BUFSZ + 2];
	size_t sw = 0;

	line_reset(l, EL_NORMAL);
	human_metric(v, sizeof(v), c->metric, r->mag);
	snprintf(ch, sizeof(ch), "%s%s", r->mag ? (r->fall ? "-" : "+") : "",
	         v);
	line_right(l, r->mag ? EL_KEYCOL : EL_NORMAL, ch, CMP_CELL, rin->flags);
	cell(l, EL_NORMAL, c->metric, c->cur, r->now, rin->flags);
	cell(l, EL_DIM, c->metric, c->base, r->then, rin->flags);
	line_pad(l, EL_NORMAL, l->width + 2);
	line_puts(l, EL_NOTICE,
	          r->then == UINT32_MAX  ? "new"
	          : r->now == UINT32_MAX ? "gone"
	                                 : "",
	          CMP_MARK, rin->flags);
	line_pad(l, EL_NORMAL, 3 * CMP_CELL + 2 + CMP_MARK);
	if (c->group.by_name) {
		struct strview name = model_name(in->m, r->name);

		/* split by name: the row's task name before its stack */
		line_put(l, EL_NORMAL, name.len ? name : sv_c("<unnamed>"),
		         line_room(s, l), rin->flags);
		line_puts(l, EL_NORMAL, ": ", line_room(s, l), rin->flags);
	}
	buf_reset(tmp);
	if (render_stack(tmp, in->m, r->stack, line_room(s, l), rin->flags,
	                 &sw) == STATUS_OK) {
		size_t start = l->text.len;
		buf_addv(&l->text, buf_view(tmp));
		l->width += sw;
		line_span(l, start, EL_NORMAL);
	}
}

enum status compare_draw(const void *ctx, const struct render_in *rin,
                         struct screen *s, size_t top, size_t end)
{
	const struct compare_in *in = ctx;
	const struct compare *c = in->c;
	struct screen_line *l;
	struct buf tmp;
	char h[64];

	titles(in, rin, s, top);
	if (top + 1 >= end)
		return STATUS_OK;
	l = &s->lines[top + 1];
	line_reset(l, EL_TITLE);
	if (in->why || !c->built) {
		line_reset(l, EL_NORMAL);
		line_puts(l, EL_DIM, " ", 1, rin->flags);
		line_puts(l, EL_DIM, in->why ? in->why : "nothing to compare",
		          line_room(s, l), rin->flags);
		return STATUS_OK;
	}
	line_right(l, EL_TITLE, "CHANGE", CMP_CELL, rin->flags);
	line_right(l, EL_TITLE, "NOW", CMP_CELL, rin->flags);
	snprintf(h, sizeof(h), "W%llu", (unsigned long long)c->base->seq);
	line_right(l, EL_TITLE, h, CMP_CELL, rin->flags);
	line_pad(l, EL_TITLE, 3 * CMP_CELL + 2 + CMP_MARK);
	snprintf(h, sizeof(h), "%s%sSTACK (leaf%sroot)",
	         c->group.key == GROUP_PARKED ? "PARKED AT " : "SPAWN ",
	         c->group.by_name ? "NAME: " : "",
	         glyph(GLYPH_STACK_SEP, rin->flags));
	line_puts(l, EL_TITLE, h, line_room(s, l), rin->flags);
	line_pad(l, EL_TITLE, s->cols);
	buf_init(&tmp);
	for (size_t r = top + 2, i = in->top; r < end && i < c->sorted;
	     r++, i++)
		row(in, rin, s, &s->lines[r], &c->rows[c->order[i]], &tmp);
	buf_fini(&tmp);
	return STATUS_OK;
}
