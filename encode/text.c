/* The text report: header, then the top stacks for each metric, with
 * humanised right-aligned columns and width-aware stack elision. */
#include "encode/text.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "encode/humanize.h"
#include "encode/utf8.h"
#include "model/alloc.h"
#include "model/model.h"
#include "model/reserved.h"
#include "model/window.h"

#define NCOLS    (METRIC_COUNT + 1) /* the five metrics, then TASKS */
#define SEP      "  "
#define SEP_LEN  2
#define ARROW    " \xE2\x86\x90 " /* " ← " */
#define ARROW_AS " <- "

/* One stack as displayed: its sanitised text (leaf first) and sums. */
struct drow {
	const char *p;
	size_t off, len;
	struct metrics m;
	uint64_t tasks;
};

struct pick {
	uint64_t key;
	const struct drow *r;
};

struct text_enc {
	const struct text_opts *o;
	unsigned flags; /* for utf8_fit_ex */
	struct buf *out;
	struct buf arena, line;
	struct drow *rows;
	size_t nrows;
	struct pick *picks; /* METRIC_COUNT runs of up to per rows */
	size_t per, npicked[METRIC_COUNT];
	size_t colw[NCOLS];
	enum status err; /* the first failure of the line buffer */
};

void text_opts_default(struct text_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->first = METRIC_IDLE;
	o->top = TEXT_TOP_DEFAULT;
}

static int cmp_text(const void *a, const void *b)
{
	const struct drow *x = a, *y = b;

	return sv_cmp(sv_n(x->p, x->len), sv_n(y->p, y->len));
}

static int cmp_pick(const void *a, const void *b)
{
	const struct pick *x = a, *y = b;

	if (x->key != y->key)
		return x->key > y->key ? -1 : 1;
	return cmp_text(x->r, y->r);
}

static bool contains(struct strview h, const char *needle)
{
	size_t n = strlen(needle);

	for (size_t i = 0; i + n <= h.len; i++) {
		if (memcmp(h.ptr + i, needle, n) == 0)
			return true;
	}
	return false;
}

/* Appends the display text of a stack, leaf first, frames sanitised, to
 * the arena.  True when it may now read like another stack: a frame was
 * changed by sanitising or holds the separator. */
static bool stack_text(struct text_enc *e, const struct model *m,
                       uint32_t stack)
{
	size_t depth = 0;
	const uint32_t *ids = model_stack(m, stack, &depth);
	struct buf *a = &e->arena;
	const char *sep = e->o->ascii ? ARROW_AS : ARROW;
	bool changed = depth == 0;

	if (depth == 0)
		buf_addv(a, reserved_name(RESERVED_NO_STACK));
	for (size_t i = depth; i-- > 0;) {
		struct strview f = model_frame(m, ids[i]);
		size_t at;

		if (i + 1 < depth)
			buf_adds(a, sep);
		if (f.len == 0) {
			f = reserved_name(RESERVED_UNKNOWN_FRAME);
			changed = true;
		}
		at = a->len;
		utf8_sanitize(a, f, 0);
		if (buf_status(a) == STATUS_OK &&
		    (!sv_eq(sv_n(a->data + at, a->len - at), f) ||
		     contains(f, sep)))
			changed = true;
	}
	return changed;
}

/* Display rows of w, merged by their text. */
static enum status build_rows(struct text_enc *e, const struct model *m,
                              const struct window *w)
{
	size_t cap = 0, k;
	bool merge = false;

	for (size_t r = 0; r < w->nrows; r++) {
		size_t start = e->arena.len;
		struct drow *d;
		enum status st;

		merge |= stack_text(e, m, w->rows[r].stack);
		if ((st = buf_status(&e->arena)) != STATUS_OK)
			return st;
		if ((st = mem_grow(&e->rows, &cap, e->nrows + 1,
		                   sizeof(*e->rows))) != STATUS_OK)
			return st;
		d = &e->rows[e->nrows++];
		d->off = start;
		d->len = e->arena.len - start;
		d->m = w->rows[r].m;
		d->tasks = w->rows[r].tasks;
	}
	for (size_t i = 0; i < e->nrows; i++)
		e->rows[i].p = e->arena.data + e->rows[i].off;
	if (!merge)
		return STATUS_OK; /* distinct stacks read differently */
	if (e->nrows > 1)
		qsort(e->rows, e->nrows, sizeof(*e->rows), cmp_text);
	for (size_t i = k = 0; i < e->nrows; i++) {
		if (k > 0 && cmp_text(&e->rows[k - 1], &e->rows[i]) == 0) {
			metrics_add(&e->rows[k - 1].m, &e->rows[i].m);
			e->rows[k - 1].tasks =
			    u64_add_sat(e->rows[k - 1].tasks, e->rows[i].tasks);
		} else {
			e->rows[k++] = e->rows[i];
		}
	}
	e->nrows = k;
	return STATUS_OK;
}

static uint64_t col_value(const struct drow *r, size_t col)
{
	return col < METRIC_COUNT ? r->m.v[col] : r->tasks;
}

static size_t col_format(char *dst, size_t size, size_t col, uint64_t v)
{
	if (col < METRIC_COUNT)
		return human_metric(dst, size, (enum metric)col, v);
	return human_count(dst, size, v);
}

static const char *col_header(size_t col)
{
	return col < METRIC_COUNT ? metric_header((enum metric)col) : "TASKS";
}

/* The narrowest a column gets: a typical figure of its kind. */
static size_t col_min(size_t col)
{
	if (col >= METRIC_COUNT)
		return 5; /* TASKS */
	return metric_is_duration((enum metric)col) ? 7 : 6;
}

/* The rows of each section and the column widths they need. */
/* Offers p to h[0..*len), a heap of the best cap picks so far with the
 * worst at the root, so choosing the top N costs O(rows log N). */
static void heap_offer(struct pick *h, size_t *len, size_t cap, struct pick p)
{
	size_t i, c;

	if (*len < cap) {
		for (i = (*len)++; i > 0 && cmp_pick(&h[(i - 1) / 2], &p) < 0;
		     i = (i - 1) / 2)
			h[i] = h[(i - 1) / 2];
		h[i] = p;
		return;
	}
	if (cmp_pick(&p, &h[0]) >= 0)
		return; /* no better than the worst kept */
	for (i = 0; (c = 2 * i + 1) < cap; i = c) {
		if (c + 1 < cap && cmp_pick(&h[c + 1], &h[c]) > 0)
			c++;
		if (cmp_pick(&h[c], &p) <= 0)
			break;
		h[i] = h[c];
	}
	h[i] = p;
}

static enum status pick_rows(struct text_enc *e)
{
	size_t n = e->nrows;

	e->per = e->o->top ? size_min(e->o->top, n) : n;
	if (n == 0)
		return STATUS_OK;
	e->picks = mem_calloc(METRIC_COUNT * e->per, sizeof(*e->picks));
	if (!e->picks)
		return STATUS_NOMEM;
	for (size_t mi = 0; mi < METRIC_COUNT; mi++) {
		struct pick *h = e->picks + mi * e->per;
		size_t k = 0;

		for (size_t i = 0; i < n; i++) {
			struct pick p = { e->rows[i].m.v[mi], &e->rows[i] };

			if (p.key != 0)
				heap_offer(h, &k, e->per, p);
		}
		if (k > 1)
			qsort(h, k, sizeof(*h), cmp_pick);
		e->npicked[mi] = k;
	}
	for (size_t c = 0; c < NCOLS; c++) {
		char tmp[HUMAN_BUFSZ];

		e->colw[c] = size_max(strlen(col_header(c)), col_min(c));
		for (size_t mi = 0; mi < METRIC_COUNT; mi++) {
			for (size_t i = 0; i < e->npicked[mi]; i++) {
				const struct drow *r =
				    e->picks[mi * e->per + i].r;
				e->colw[c] = size_max(
				    e->colw[c], col_format(tmp, sizeof(tmp), c,
				                           col_value(r, c)));
			}
		}
	}
	return STATUS_OK;
}

/* Writes e->line (cut to the width, if any) and a newline to out. */
static void flush_line(struct text_enc *e)
{
	size_t width = e->o->width ? e->o->width : SIZE_MAX;

	if (e->err == STATUS_OK)
		e->err = buf_status(&e->line);
	utf8_fit_ex(e->out, buf_view(&e->line), width, FIT_END, e->flags, NULL);
	buf_addc(e->out, '\n');
	buf_reset(&e->line);
}

static void put_right(struct buf *b, const char *s, size_t width)
{
	size_t n = strlen(s);

	for (; n < width; n++)
		buf_addc(b, ' ');
	buf_adds(b, s);
}

static void lower(char *dst, size_t size, const char *s)
{
	size_t i;

	for (i = 0; s[i] && i + 1 < size; i++)
		dst[i] = s[i] >= 'A' && s[i] <= 'Z' ? (char)(s[i] - 'A' + 'a')
		                                    : s[i];
	dst[i] = '\0';
}

static void header(struct text_enc *e, const struct window *w)
{
	const struct window_meta *mt = &w->meta;
	char tmp[HUMAN_BUFSZ], name[16];
	struct buf *l = &e->line;

	buf_printf(l, "window %" PRIu64, w->seq);
	if (mt->time_nanos > 0) {
		time_t t = (time_t)(mt->time_nanos / 1000000000);
		struct tm tm;

		if (gmtime_r(&t, &tm))
			buf_printf(l, SEP "%04d-%02d-%02dT%02d:%02d:%02dZ",
			           tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
			           tm.tm_hour, tm.tm_min, tm.tm_sec);
	}
	human_duration(tmp, sizeof(tmp),
	               mt->duration_nanos > 0 ? (uint64_t)mt->duration_nanos
	                                      : 0);
	buf_printf(l, SEP "%s" SEP "tasks %" PRIu64 SEP "stacks %zu", tmp,
	           w->tasks, e->nrows);
	flush_line(e);
	if (mt->partial) {
		buf_printf(l, "partial%s%s",
		           mt->reason && *mt->reason ? ": " : "",
		           mt->reason ? mt->reason : "");
		flush_line(e);
	}
	if (mt->source && *mt->source) {
		buf_printf(l, "source: %s", mt->source);
		flush_line(e);
	}
	buf_adds(l, "total");
	for (size_t c = 0; c < METRIC_COUNT; c++) {
		lower(name, sizeof(name), metric_header((enum metric)c));
		human_metric(tmp, sizeof(tmp), (enum metric)c, w->total.v[c]);
		buf_printf(l, SEP "%s %s", name, tmp);
	}
	flush_line(e);
}

static void section(struct text_enc *e, enum metric mi)
{
	struct buf *l = &e->line;
	char tmp[HUMAN_BUFSZ];
	size_t fixed = 0, budget;

	buf_addc(e->out, '\n');
	if (e->o->top)
		buf_printf(l, "top %zu by %s", e->o->top, metric_name(mi));
	else
		buf_printf(l, "all stacks by %s", metric_name(mi));
	flush_line(e);
	if (e->npicked[mi] == 0) {
		buf_printf(l, "(no tasks with %s)", metric_name(mi));
		flush_line(e);
		return;
	}
	for (size_t c = 0; c < NCOLS; c++) {
		put_right(l, col_header(c), e->colw[c]);
		buf_adds(l, SEP);
		fixed += e->colw[c] + SEP_LEN;
	}
	budget = !e->o->width          ? SIZE_MAX
	         : e->o->width > fixed ? e->o->width - fixed
	                               : 1;
	buf_adds(l, e->o->ascii ? "STACK (leaf <- root)"
	                        : "STACK (leaf" ARROW "root)");
	flush_line(e);
	for (size_t i = 0; i < e->npicked[mi]; i++) {
		const struct drow *r = e->picks[mi * e->per + i].r;

		for (size_t c = 0; c < NCOLS; c++) {
			col_format(tmp, sizeof(tmp), c, col_value(r, c));
			put_right(e->out, tmp, e->colw[c]);
			buf_adds(e->out, SEP);
		}
		utf8_fit_ex(e->out, sv_n(r->p, r->len), budget, FIT_END,
		            e->flags, NULL);
		buf_addc(e->out, '\n');
	}
}

enum status text_encode(const struct model *m, const struct window *w,
                        const struct text_opts *o, struct buf *out)
{
	struct text_opts defaults;
	struct text_enc e;
	enum status st;

	if (!o) {
		text_opts_default(&defaults);
		o = &defaults;
	}
	if (!m || !w || !out || (unsigned)o->first >= METRIC_COUNT)
		return STATUS_INVAL;
	if (w->empty || w->nrows == 0)
		return STATUS_EMPTY_WINDOW;
	memset(&e, 0, sizeof(e));
	e.o = o;
	e.flags = o->ascii ? UTF8_ASCII : 0;
	e.out = out;
	buf_init(&e.arena);
	buf_init(&e.line);
	st = build_rows(&e, m, w);
	if (st == STATUS_OK)
		st = pick_rows(&e);
	if (st == STATUS_OK) {
		header(&e, w);
		for (size_t i = 0; i < METRIC_COUNT; i++)
			section(&e,
			        (enum metric)((o->first + i) % METRIC_COUNT));
		st = e.err;
		if (st == STATUS_OK)
			st = buf_status(out);
	}
	mem_free(e.picks);
	mem_free(e.rows);
	buf_fini(&e.line);
	buf_fini(&e.arena);
	return st;
}
