/* Pure rendering of the viewer's screen into text lines with spans. */
#include "tui/render.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "encode/humanize.h"
#include "encode/utf8.h"
#include "model/alloc.h"
#include "tui/glyph.h"
#include "tui/keymap.h"
#include "tui/line.h"

/* ---- screen and lines --------------------------------------------------- */

enum status screen_init(struct screen *s, size_t cols, size_t rows)
{
	memset(s, 0, sizeof(*s));
	s->lines = mem_calloc(rows ? rows : 1, sizeof(*s->lines));
	if (!s->lines)
		return STATUS_NOMEM;
	s->cols = cols;
	s->rows = rows;
	for (size_t i = 0; i < rows; i++)
		buf_init(&s->lines[i].text);
	return STATUS_OK;
}

void screen_fini(struct screen *s)
{
	for (size_t i = 0; s->lines && i < s->rows; i++)
		buf_fini(&s->lines[i].text);
	mem_free(s->lines);
	memset(s, 0, sizeof(*s));
}

/* ---- pure pieces -------------------------------------------------------- */

void layout_compute(size_t cols, enum metric key, struct layout *l)
{
	static const enum metric drop[] = { METRIC_WAKES, METRIC_POLLS,
		                            METRIC_SCHED, METRIC_BUSY,
		                            METRIC_IDLE };
	size_t fixed = 0;

	memset(l, 0, sizeof(*l));
	for (int i = 0; i < METRIC_COUNT; i++) {
		l->metric[i] = true;
		fixed += metric_is_duration((enum metric)i)
		             ? LAYOUT_DURATION_COLS
		             : LAYOUT_COUNT_COLS;
	}
	l->tasks = true;
	fixed += LAYOUT_TASKS_COLS + LAYOUT_SHARE_COLS + 2;
	for (size_t i = 0;
	     fixed + LAYOUT_STACK_MIN > cols && i <= ARRAY_SIZE(drop); i++) {
		if (i == 0) {
			l->tasks = false;
			fixed -= LAYOUT_TASKS_COLS;
			continue;
		}
		if (drop[i - 1] == key)
			continue;
		l->metric[drop[i - 1]] = false;
		fixed -= metric_is_duration(drop[i - 1]) ? LAYOUT_DURATION_COLS
		                                         : LAYOUT_COUNT_COLS;
	}
	if (cols > fixed + LAYOUT_STACK_MIN) {
		size_t spare = cols - fixed - LAYOUT_STACK_MIN;
		l->bar = spare >= 3 ? size_min(spare, 16) : 0;
	}
	fixed += l->bar;
	l->stack = cols > fixed ? cols - fixed : 0;
}

enum status render_bar(struct buf *out, uint64_t part, uint64_t whole,
                       size_t width, unsigned flags)
{
	static const char *const eighths[] = { "",
		                               "\xE2\x96\x8F", /* ▏ */
		                               "\xE2\x96\x8E",
		                               "\xE2\x96\x8D",
		                               "\xE2\x96\x8C",
		                               "\xE2\x96\x8B",
		                               "\xE2\x96\x8A",
		                               "\xE2\x96\x89" };
	uint64_t cells8;
	size_t full, used;
	unsigned rest;

	if (!whole || !width) {
		for (size_t i = 0; i < width; i++)
			buf_addc(out, ' ');
		return buf_status(out);
	}
	if (part > whole)
		part = whole;
	/* in eighths of a cell; double keeps huge nanosecond figures safe */
	cells8 = (uint64_t)((double)part / (double)whole * (double)width * 8.0);
	if (cells8 > (uint64_t)width * 8)
		cells8 = (uint64_t)width * 8;
	full = (size_t)(cells8 / 8);
	rest = (unsigned)(cells8 % 8);
	if (flags & UTF8_ASCII)
		rest = 0;
	for (size_t i = 0; i < full; i++)
		buf_adds(out, glyph(GLYPH_BLOCK, flags));
	used = full;
	if (rest && used < width) {
		buf_adds(out, eighths[rest]);
		used++;
	}
	/* a nonzero share never draws as nothing */
	if (!used && part) {
		buf_adds(out, glyph(GLYPH_BLOCK_MIN, flags));
		used++;
	}
	for (; used < width; used++)
		buf_addc(out, ' ');
	return buf_status(out);
}

enum status render_stack(struct buf *out, const struct model *m, uint32_t stack,
                         size_t columns, unsigned flags, size_t *width)
{
	const char *sep = glyph(GLYPH_STACK_SEP, flags);
	const uint32_t *frames;
	size_t depth = 0, limit = columns * 4 + 16;
	struct buf raw;
	enum status st;

	buf_init(&raw);
	frames = model_stack(m, stack, &depth);
	for (size_t i = depth; i-- > 0 && raw.len <= limit;) {
		if (i + 1 < depth)
			buf_adds(&raw, sep);
		buf_addv(&raw, model_frame(m, frames[i]));
	}
	if (buf_status(&raw) != STATUS_OK) {
		st = buf_status(&raw);
		buf_fini(&raw);
		return st;
	}
	st = utf8_fit_ex(out, buf_view(&raw), columns, FIT_END, flags, width);
	buf_fini(&raw);
	return st;
}

size_t render_wrap(struct strview text, size_t cols,
                   void (*line)(void *ctx, struct strview l), void *ctx)
{
	size_t lines = 0;
	size_t i = 0;

	while (i <= text.len) {
		size_t end = i;
		while (end < text.len && text.ptr[end] != '\n')
			end++;
		/* one paragraph: text[i, end) */
		size_t start = i, w = 0, last_space = SIZE_MAX;
		size_t k = i;
		if (start == end) {
			struct strview e = { text.ptr + start, 0 };
			line(ctx, e);
			lines++;
		}
		while (k < end) {
			uint32_t cp;
			struct strview rest = { text.ptr + k, end - k };
			size_t n = utf8_decode(rest, &cp);
			unsigned cw = utf8_cp_width(cp);

			if (cp == ' ')
				last_space = k;
			if (w + cw > cols && k > start) {
				size_t cut =
				    last_space != SIZE_MAX && last_space > start
				        ? last_space
				        : k;
				struct strview l = { text.ptr + start,
					             cut - start };
				line(ctx, l);
				lines++;
				start = cut;
				while (start < end && text.ptr[start] == ' ')
					start++;
				k = start;
				w = 0;
				last_space = SIZE_MAX;
				continue;
			}
			w += cw;
			k += n;
		}
		if (start < end) {
			struct strview l = { text.ptr + start, end - start };
			line(ctx, l);
			lines++;
		}
		i = end + 1;
	}
	return lines;
}

/* ---- the screen ---------------------------------------------------------- */

struct body {
	struct screen *s;
	size_t row, end;
	enum elem el;
	unsigned flags;
};

static void body_line(void *ctx, struct strview text)
{
	struct body *b = ctx;
	struct screen_line *l;

	if (b->row >= b->end)
		return;
	l = &b->s->lines[b->row++];
	line_reset(l, EL_NORMAL);
	line_put(l, EL_NORMAL, sv_c(" "), 1, b->flags);
	line_put(l, b->el, text, b->s->cols > 2 ? b->s->cols - 2 : 0, b->flags);
}

static void body_text(struct screen *s, size_t row, size_t end,
                      const char *text, enum elem el, unsigned flags)
{
	struct body b = { s, row + 1, end, el, flags };

	if (row + 1 >= end)
		b.row = row;
	render_wrap(sv_c(text), s->cols > 2 ? s->cols - 2 : 1, body_line, &b);
}

static void fmt_clock(char *dst, size_t size, int64_t ns)
{
	time_t t = (time_t)(ns / 1000000000);
	struct tm tm;

	if (ns <= 0 || !localtime_r(&t, &tm)) {
		snprintf(dst, size, "--:--:--");
		return;
	}
	snprintf(dst, size, "%02d:%02d:%02d", tm.tm_hour, tm.tm_min, tm.tm_sec);
}

static const char *dot(unsigned flags)
{
	return glyph(GLYPH_SEP, flags);
}

static void header1(const struct render_in *in, struct screen *s)
{
	struct screen_line *l = &s->lines[0];
	char right[160];
	const char *d = dot(in->flags);
	size_t rw, left_room, sw;

	line_reset(l, EL_HEADER);
	right[0] = '\0';
	if (in->w) {
		char clock[16], len[HUMAN_BUFSZ];

		fmt_clock(clock, sizeof(clock), in->w->meta.time_nanos);
		human_duration(len, sizeof(len),
		               in->w->meta.duration_nanos > 0
		                   ? (uint64_t)in->w->meta.duration_nanos
		                   : 0);
		if (in->in_progress)
			snprintf(right, sizeof(right),
			         "window in progress%s%s%s%s%sso far", d, clock,
			         d, len, d);
		else if (s->cols >= 72 && in->w->seq != in->win_pos)
			/* windows left the history: its number, as compare,
			 * the marks and the saved files' names give it, and
			 * where it stands among those kept */
			snprintf(right, sizeof(right),
			         "window %llu, %zu/%zu kept%s%s%s%s%s%s",
			         (unsigned long long)in->w->seq, in->win_pos,
			         in->win_count, d, clock, d, len, d,
			         in->mode ? in->mode : "");
		else if (s->cols >= 72)
			snprintf(right, sizeof(right),
			         "window %zu/%zu%s%s%s%s%s%s", in->win_pos,
			         in->win_count, d, clock, d, len, d,
			         in->mode ? in->mode : "");
		else
			snprintf(right, sizeof(right), "%zu/%zu%s%s%s%s",
			         in->win_pos, in->win_count, d, len, d,
			         in->mode ? in->mode : "");
	} else if (in->mode) {
		snprintf(right, sizeof(right), "%s", in->mode);
	}
	rw = utf8_width(sv_c(right));
	if (rw > s->cols)
		rw = s->cols;
	left_room = s->cols - rw > 1 ? s->cols - rw - 1 : 0;
	/* the state before the title's tail: the title is cut first, and
	 * left out when too little of it would show */
	sw = in->state ? utf8_width(sv_c(d)) + utf8_width(sv_c(in->state)) : 0;
	if (!in->state || left_room >= sw + 12) {
		line_puts(l, EL_HEADER, in->title ? in->title : "asynctop",
		          in->state ? left_room - sw : left_room, in->flags);
		if (in->state)
			line_puts(l, EL_HEADER, d, line_room(s, l), in->flags);
	}
	if (in->state)
		line_puts(l, in->state_bad ? EL_ERROR : EL_HEADER, in->state,
		          left_room > l->width ? left_room - l->width : 0,
		          in->flags);
	line_pad(l, EL_HEADER, s->cols - rw);
	line_puts(l, EL_HEADER, right, rw, in->flags);
	line_pad(l, EL_HEADER, s->cols);
}

static void totals(const struct render_in *in, struct buf *b)
{
	char v[HUMAN_BUFSZ];

	if (!in->w || in->w->empty)
		return;
	human_count(v, sizeof(v), in->w->tasks);
	buf_printf(b, "%s %s", v, in->w->tasks == 1 ? "task" : "tasks");
	for (int i = 0; i < METRIC_COUNT; i++) {
		human_metric(v, sizeof(v), (enum metric)i, in->w->total.v[i]);
		buf_printf(b, "  %s %s", metric_name((enum metric)i), v);
	}
}

static void header2(const struct render_in *in, struct screen *s)
{
	struct screen_line *l = &s->lines[1];
	struct buf b;
	char a[HUMAN_BUFSZ], t[HUMAN_BUFSZ];

	line_reset(l, EL_NORMAL);
	buf_init(&b);
	if (in->line2) {
		line_puts(l, EL_DIM, in->line2, line_room(s, l), in->flags);
		line_puts(l, EL_NORMAL, "   ", line_room(s, l), in->flags);
	} else if (in->collecting && in->window_ns) {
		size_t bw = s->cols >= 100 ? 24 : s->cols >= 70 ? 16 : 8;
		uint64_t p = in->progress_ns < in->window_ns ? in->progress_ns
		                                             : in->window_ns;
		line_puts(l, EL_NORMAL, "collecting ", line_room(s, l),
		          in->flags);
		line_puts(l, EL_DIM, glyph(GLYPH_BAR_OPEN, in->flags),
		          line_room(s, l), in->flags);
		render_bar(&b, p, in->window_ns, bw, in->flags);
		line_put(l, EL_BAR, buf_view(&b), line_room(s, l), in->flags);
		line_puts(l, EL_DIM, glyph(GLYPH_BAR_CLOSE, in->flags),
		          line_room(s, l), in->flags);
		human_duration(a, sizeof(a), p);
		human_duration(t, sizeof(t), in->window_ns);
		buf_reset(&b);
		buf_printf(&b, " %s / %s   ", a, t);
		line_put(l, EL_NORMAL, buf_view(&b), line_room(s, l),
		         in->flags);
	}
	buf_reset(&b);
	totals(in, &b);
	line_put(l, EL_NORMAL, buf_view(&b), line_room(s, l), in->flags);
	line_pad(l, EL_NORMAL, s->cols);
	buf_fini(&b);
}

static void notices(const struct render_in *in, struct screen *s)
{
	struct screen_line *l = &s->lines[2];
	const struct window *w = in->w;
	struct buf b;
	char n[HUMAN_BUFSZ];

	line_reset(l, EL_NORMAL);
	buf_init(&b);
	if (in->notice)
		buf_printf(&b, "%s  ", in->notice);
	if (w && w->meta.clamped)
		buf_adds(&b, "window clamped to 60 s  ");
	if (w && w->meta.partial)
		buf_printf(&b, "partial: %s  ",
		           w->meta.reason && *w->meta.reason ? w->meta.reason
		                                             : "cut short");
	if (w && w->meta.dropped) {
		human_count(n, sizeof(n), w->meta.dropped);
		buf_printf(&b, "dropped %s  ", n);
	}
	if (w && w->stats.other) {
		human_count(n, sizeof(n), w->stats.other);
		buf_printf(&b, "overflow %s into [other]  ", n);
	}
	if (w && w->stats.truncated) {
		human_count(n, sizeof(n), w->stats.truncated);
		buf_printf(&b, "truncated stacks %s  ", n);
	}
	if (b.len)
		line_put(l, EL_NOTICE, buf_view(&b), line_room(s, l),
		         in->flags);
	buf_reset(&b);
	if (in->v->filter_len && !in->editing) {
		buf_adds(&b, "filter /");
		buf_add(&b, in->v->filter, in->v->filter_len);
		if (w)
			buf_printf(&b, ": %zu of %zu rows", in->v->order.n,
			           w->nrows);
		buf_adds(&b, " (Esc clears)");
		line_put(l, EL_PROMPT, buf_view(&b), line_room(s, l),
		         in->flags);
	}
	line_pad(l, EL_NORMAL, s->cols);
	buf_fini(&b);
}

static void titles(const struct render_in *in, const struct layout *lay,
                   struct screen *s)
{
	struct screen_line *l = &s->lines[3];
	const char *arrow = glyph(
	    in->v->ascending ? GLYPH_SORT_UP : GLYPH_SORT_DOWN, in->flags);
	char h[48];
	size_t share;

	line_reset(l, EL_TITLE);
	for (int i = 0; i < METRIC_COUNT; i++) {
		enum metric m = (enum metric)i;
		size_t cw = metric_is_duration(m) ? LAYOUT_DURATION_COLS
		                                  : LAYOUT_COUNT_COLS;
		if (!lay->metric[i])
			continue;
		snprintf(h, sizeof(h), "%s%s", metric_header(m),
		         m == in->v->metric ? arrow : "");
		line_right(l, m == in->v->metric ? EL_TITLE_KEY : EL_TITLE, h,
		           cw, in->flags);
	}
	if (lay->tasks)
		line_right(l, EL_TITLE, "TASKS", LAYOUT_TASKS_COLS, in->flags);
	share = l->width;
	line_pad(l, EL_TITLE, share + 2);
	line_puts(l, EL_TITLE, "SHARE", line_room(s, l), in->flags);
	line_pad(l, EL_TITLE, share + lay->bar + LAYOUT_SHARE_COLS + 2);
	if (in->warn && in->warn->n)
		line_puts(l, EL_TITLE, "  ", line_room(s, l), in->flags);
	if (line_room(s, l) >= 25)
		line_puts(l, EL_TITLE,
		          in->w && in->w->group.key == GROUP_PARKED
		              ? "PARKED AT "
		              : "SPAWN ",
		          line_room(s, l), in->flags);
	if (in->w && in->w->group.by_name)
		line_puts(l, EL_TITLE, "NAME: ", line_room(s, l), in->flags);
	snprintf(h, sizeof(h), "STACK (leaf%sroot)",
	         glyph(GLYPH_STACK_SEP, in->flags));
	line_puts(l, EL_TITLE, h, line_room(s, l), in->flags);
	line_pad(l, EL_TITLE, s->cols);
}

static void row(const struct render_in *in, const struct layout *lay,
                struct screen *s, struct screen_line *l, size_t r,
                bool selected, struct buf *tmp)
{
	const struct window *w = in->w;
	const struct fold_row *fr = &w->rows[r];
	enum metric key = in->v->metric;
	char v[HUMAN_BUFSZ];
	size_t sw = 0;

	line_reset(l, selected ? EL_SELECTED : EL_NORMAL);
	for (int i = 0; i < METRIC_COUNT; i++) {
		enum metric m = (enum metric)i;
		if (!lay->metric[i])
			continue;
		human_metric(v, sizeof(v), m, fr->m.v[i]);
		line_right(l, m == key ? EL_KEYCOL : l->base, v,
		           metric_is_duration(m) ? LAYOUT_DURATION_COLS
		                                 : LAYOUT_COUNT_COLS,
		           in->flags);
	}
	if (lay->tasks) {
		human_count(v, sizeof(v), fr->tasks);
		line_right(l, l->base, v, LAYOUT_TASKS_COLS, in->flags);
	}
	line_pad(l, l->base, l->width + 2);
	if (lay->bar) {
		buf_reset(tmp);
		render_bar(tmp, fr->m.v[key], w->total.v[key], lay->bar,
		           in->flags);
		line_put(l, EL_BAR, buf_view(tmp), lay->bar, in->flags);
	}
	human_percent(v, sizeof(v), fr->m.v[key], w->total.v[key]);
	line_right(l, l->base, v, LAYOUT_SHARE_COLS - 2, in->flags);
	line_pad(l, l->base, l->width + 2);
	/* the marker column, when the window has warnings: W lists them */
	if (in->warn && in->warn->n)
		line_puts(l, warn_row(in->warn, r) ? EL_ERROR : l->base,
		          warn_row(in->warn, r) ? "! " : "  ", line_room(s, l),
		          in->flags);
	if (w->group.by_name) {
		struct strview name = model_name(in->m, fr->name);

		/* split by name: the row's task name before its stack */
		line_put(l, l->base, name.len ? name : sv_c("<unnamed>"),
		         line_room(s, l), in->flags);
		line_puts(l, l->base, ": ", line_room(s, l), in->flags);
	}
	buf_reset(tmp);
	if (render_stack(tmp, in->m, fr->stack, line_room(s, l), in->flags,
	                 &sw) == STATUS_OK) {
		size_t start = l->text.len;
		buf_addv(&l->text, buf_view(tmp));
		l->width += sw;
		line_span(l, start, l->base);
	}
	line_pad(l, l->base, s->cols);
}

static void help(const struct render_in *in, struct screen *s, size_t top,
                 size_t end)
{
	struct buf keys;
	size_t r = top;
	char more[96];

	buf_init(&keys);
	snprintf(more, sizeof(more), "   (more: %s or PgDn; ? or Esc closes)",
	         glyph(GLYPH_ARROW_DOWN, in->flags));
	for (int a = ACTION_NONE + 1 +
	             (int)size_min(in->help_top, ACTION_COUNT - 1);
	     a < ACTION_COUNT && r < end; a++, r++) {
		struct screen_line *l = &s->lines[r];

		line_reset(l, EL_NORMAL);
		if (r + 1 == end && a + 1 < ACTION_COUNT) {
			line_puts(l, EL_DIM, more, line_room(s, l), in->flags);
			break;
		}
		buf_reset(&keys);
		keymap_keys_text((enum action)a, in->flags, &keys);
		line_puts(l, EL_NORMAL, " ", 1, in->flags);
		line_put(l, EL_FOOTER_KEY, buf_view(&keys), 18, in->flags);
		line_pad(l, EL_NORMAL, 20);
		line_puts(l, EL_NORMAL, action_help((enum action)a),
		          line_room(s, l), in->flags);
		line_pad(l, EL_NORMAL, s->cols);
	}
	buf_fini(&keys);
}

/* Columns of footer item f, its separator included when not first. */
static size_t footer_cols(const struct footer_item *f, unsigned flags,
                          bool first)
{
	return utf8_width(sv_c(glyph_text(f->keys, flags))) + 1 +
	       strlen(f->name) + (first ? 0 : 2);
}

/* Marks in show[] the items that fit in cols: rank by rank, lowest first,
 * so Help and Quit (rank 0) stay and the others go highest rank first. */
static void footer_fit(const struct render_in *in, const struct footer_item *f,
                       size_t n, size_t cols, bool *show)
{
	size_t used = 0, shown = 0;
	unsigned top = 0;

	for (size_t i = 0; i < n; i++)
		top = f[i].rank > top ? f[i].rank : top;
	for (unsigned rank = 0; rank <= top; rank++) {
		for (size_t i = 0; i < n; i++) {
			size_t need;

			if (f[i].rank != rank || (f[i].live_only && in->replay))
				continue;
			need = footer_cols(&f[i], in->flags, !shown);
			if (rank && used + need > cols)
				return;
			show[i] = true;
			used += need;
			shown++;
		}
	}
}

static void footer(const struct render_in *in, struct screen *s)
{
	struct screen_line *l = &s->lines[s->rows - 1];
	const struct footer_item *f;
	bool show[32] = { false };
	size_t n, shown = 0;

	line_reset(l, EL_FOOTER);
	f = keymap_footer(&n);
	n = size_min(n, ARRAY_SIZE(show));
	footer_fit(in, f, n, s->cols, show);
	for (size_t i = 0; i < n; i++) {
		if (!show[i])
			continue;
		if (shown++)
			line_puts(l, EL_FOOTER, "  ", 2, in->flags);
		line_puts(l, EL_FOOTER_KEY, glyph_text(f[i].keys, in->flags),
		          line_room(s, l), in->flags);
		line_puts(l, EL_FOOTER, " ", 1, in->flags);
		line_puts(l, EL_FOOTER, f[i].name, line_room(s, l), in->flags);
	}
	line_pad(l, EL_FOOTER, s->cols);
}

static void status_line(const struct render_in *in, struct screen *s)
{
	struct screen_line *l = &s->lines[s->rows - 2];

	line_reset(l, EL_NORMAL);
	if (in->editing) {
		struct buf b;
		buf_init(&b);
		buf_adds(&b, "filter: ");
		buf_add(&b, in->v->filter, in->v->filter_len);
		line_put(l, EL_PROMPT, buf_view(&b), line_room(s, l),
		         in->flags);
		line_puts(l, EL_PROMPT, "_", line_room(s, l), in->flags);
		line_puts(l, EL_DIM, "   Enter keeps it, Esc clears it",
		          line_room(s, l), in->flags);
		buf_fini(&b);
	} else if (in->status) {
		line_puts(l, in->status_error ? EL_ERROR : EL_STATUS,
		          in->status, line_room(s, l), in->flags);
	}
	line_pad(l, EL_NORMAL, s->cols);
}

static void too_small(const struct render_in *in, struct screen *s)
{
	char msg[96];

	for (size_t r = 0; r < s->rows; r++) {
		line_reset(&s->lines[r], EL_NORMAL);
	}
	snprintf(msg, sizeof(msg), "terminal too small: %zux%zu, need %dx%d",
	         s->cols, s->rows, RENDER_MIN_COLS, RENDER_MIN_ROWS);
	if (s->rows)
		body_text(s, 0, s->rows, msg, EL_ERROR, in->flags);
	for (size_t r = 0; r < s->rows; r++)
		line_pad(&s->lines[r], EL_NORMAL, s->cols);
}

enum status render_screen(const struct render_in *in, struct screen *s)
{
	size_t top = RENDER_TOP_ROWS, end;
	struct layout lay;
	struct buf tmp;
	enum status st = STATUS_OK;

	s->cursor_row = 0;
	if (s->cols < RENDER_MIN_COLS || s->rows < RENDER_MIN_ROWS) {
		too_small(in, s);
		goto check;
	}
	end = s->rows - RENDER_BOTTOM_ROWS;
	layout_compute(s->cols, in->v->metric, &lay);
	header1(in, s);
	header2(in, s);
	notices(in, s);
	titles(in, &lay, s);
	for (size_t r = top; r < end; r++)
		line_reset(&s->lines[r], EL_NORMAL);
	if (in->help) {
		help(in, s, top, end);
	} else if (!in->w) {
		body_text(s, top, end,
		          in->message ? in->message
		                      : "waiting for the first window...",
		          in->state_bad ? EL_ERROR : EL_DIM, in->flags);
	} else if (in->w->empty) {
		body_text(s, top, end, in->message ? in->message : "no data",
		          EL_NOTICE, in->flags);
	} else if (!in->v->order.n) {
		char msg[VIEW_FILTER_MAX + 64];
		snprintf(msg, sizeof(msg),
		         "no stack matches the filter /%s (Esc clears it)",
		         in->v->filter);
		body_text(s, top, end, msg, EL_DIM, in->flags);
	} else if (in->body) {
		st = in->body->draw(in->body->ctx, in, s, top - 1, end);
	} else {
		buf_init(&tmp);
		for (size_t r = top, pos = in->v->top;
		     r < end && pos < in->v->order.n; r++, pos++) {
			bool sel = pos == in->v->sel;
			size_t wr = view_row_at(in->v, pos);

			/* the moves put the page in place before it is drawn; a
			 * position that is not stays blank rather than read */
			if (wr == SIZE_MAX)
				continue;
			row(in, &lay, s, &s->lines[r], wr, sel, &tmp);
			if (sel)
				s->cursor_row = r;
		}
		buf_fini(&tmp);
	}
	for (size_t r = top; r < end; r++)
		line_pad(&s->lines[r], s->lines[r].base, s->cols);
	status_line(in, s);
	footer(in, s);
check:
	for (size_t r = 0; r < s->rows; r++)
		if (buf_status(&s->lines[r].text) != STATUS_OK)
			st = buf_status(&s->lines[r].text);
	return st;
}

enum status screen_text(const struct screen *s, struct buf *out)
{
	for (size_t r = 0; r < s->rows; r++) {
		const struct buf *t = &s->lines[r].text;
		size_t n = t->len;
		while (n && t->data[n - 1] == ' ')
			n--;
		buf_add(out, t->data, n);
		buf_addc(out, '\n');
	}
	return buf_status(out);
}
