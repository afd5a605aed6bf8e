/* Collapsed stacks: the writer (sanitise, guard, merge, sort) and a strict
 * two-pass reader. */
#include "encode/collapsed.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "encode/utf8.h"
#include "model/alloc.h"
#include "model/model.h"
#include "model/reserved.h"
#include "model/window.h"

struct line {
	const char *p; /* into the arena, set once it is complete */
	size_t off, len;
	uint64_t v;
};

static int cmp_text(const void *a, const void *b)
{
	const struct line *x = a, *y = b;

	return sv_cmp(sv_n(x->p, x->len), sv_n(y->p, y->len));
}

static int cmp_value(const void *a, const void *b)
{
	const struct line *x = a, *y = b;

	if (x->v != y->v)
		return x->v > y->v ? -1 : 1;
	return cmp_text(a, b);
}

static bool is_digit_dot(char c)
{
	return (c >= '0' && c <= '9') || c == '.';
}

/* " <digits>" at the end of a stack: that space becomes '_'.  True when
 * it did. */
static bool guard(char *p, size_t n)
{
	size_t i = n;

	while (i > 0 && is_digit_dot(p[i - 1]))
		i--;
	if (i < n && i > 0 && p[i - 1] == ' ') {
		p[i - 1] = '_';
		return true;
	}
	return false;
}

/* Cuts the frame at a->data + at to max bytes at a character boundary:
 * U+FFFD in place of an invalid byte can make a frame the model kept whole
 * longer than the model keeps it when the file is read back. */
static void cut_frame(struct buf *a, size_t at, size_t max)
{
	size_t n = a->len - at;

	if (buf_status(a) != STATUS_OK || n <= max)
		return;
	n = max;
	while (n > 0 && ((unsigned char)a->data[at + n] & 0xc0) == 0x80)
		n--;
	a->len = at + n;
	a->data[a->len] = '\0';
}

/* Appends the sanitised text of a stack, root first, to the arena.  True
 * when a frame read differently once sanitised (then two stacks may now
 * read the same); distinct stacks of untouched frames never do, as their
 * frames hold no ';'. */
static bool stack_text(const struct model *m, uint32_t stack, struct buf *a)
{
	size_t depth = 0;
	const uint32_t *ids = model_stack(m, stack, &depth);
	bool changed = false;

	for (size_t i = 0; i < depth; i++) {
		struct strview f = model_frame(m, ids[i]);
		size_t at;

		if (i > 0)
			buf_addc(a, ';');
		if (f.len == 0) {
			f = reserved_name(RESERVED_UNKNOWN_FRAME);
			changed = true;
		}
		at = a->len;
		utf8_sanitize(a, f, UTF8_CTRL_SPACE | UTF8_SEMI_COLON);
		cut_frame(a, at, model_get_limits(m)->max_name);
		if (buf_status(a) == STATUS_OK &&
		    !sv_eq(sv_n(a->data + at, a->len - at), f))
			changed = true;
	}
	return changed;
}

/* Appends " VALUE\n". */
static void put_count(struct buf *out, uint64_t v)
{
	char d[24];
	size_t i = sizeof(d);

	d[--i] = '\n';
	do {
		d[--i] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	d[--i] = ' ';
	buf_add(out, d + i, sizeof(d) - i);
}

enum status collapsed_encode(const struct model *m, const struct window *w,
                             enum metric metric, struct buf *out)
{
	struct buf arena;
	struct line *lines = NULL;
	size_t n = 0, cap = 0, k;
	enum status st = STATUS_OK;
	bool merge = false;

	if (!m || !w || !out || (unsigned)metric >= METRIC_COUNT)
		return STATUS_INVAL;
	if (w->empty || w->nrows == 0)
		return STATUS_EMPTY_WINDOW;
	buf_init(&arena);
	for (size_t r = 0; r < w->nrows; r++) {
		const struct fold_row *row = &w->rows[r];
		size_t start = arena.len;

		if (row->m.v[metric] == 0)
			continue;
		merge |= stack_text(m, row->stack, &arena);
		if ((st = buf_status(&arena)) != STATUS_OK)
			goto done;
		if (arena.len == start)
			continue; /* no frames: nothing to write */
		merge |= guard(arena.data + start, arena.len - start);
		if ((st = mem_grow(&lines, &cap, n + 1, sizeof(*lines))) !=
		    STATUS_OK)
			goto done;
		lines[n].off = start;
		lines[n].len = arena.len - start;
		lines[n].v = row->m.v[metric];
		n++;
	}
	for (size_t i = 0; i < n; i++)
		lines[i].p = arena.data + lines[i].off;
	/* Re-intern by the sanitised text: what reads the same is merged. */
	if (merge && n > 1)
		qsort(lines, n, sizeof(*lines), cmp_text);
	for (size_t i = k = 0; merge && i < n; i++) {
		if (k > 0 && cmp_text(&lines[k - 1], &lines[i]) == 0)
			lines[k - 1].v =
			    u64_add_sat(lines[k - 1].v, lines[i].v);
		else
			lines[k++] = lines[i];
	}
	if (merge)
		n = k;
	if (n > 1)
		qsort(lines, n, sizeof(*lines), cmp_value);
	for (size_t i = 0; i < n; i++) {
		buf_add(out, lines[i].p, lines[i].len);
		put_count(out, lines[i].v);
	}
	st = buf_status(out);
done:
	mem_free(lines);
	buf_fini(&arena);
	return st;
}

/* ---- reading ------------------------------------------------------------*/

/* One line of input, as found by next_line. */
struct cline {
	size_t no;           /* 1-based line number */
	struct strview text; /* without "\n" or "\r\n" */
	size_t raw;          /* its length before the CR was dropped */
};

/* The line starting at *pos; false at the end of data. */
static bool next_line(const char *d, size_t len, size_t *pos, struct cline *l)
{
	const char *nl;
	size_t n;

	if (*pos >= len)
		return false;
	nl = memchr(d + *pos, '\n', len - *pos);
	n = nl ? (size_t)(nl - (d + *pos)) : len - *pos;
	l->no++;
	l->raw = n;
	l->text = sv_n(d + *pos, n);
	if (l->text.len && l->text.ptr[l->text.len - 1] == '\r')
		l->text.len--;
	*pos += n + (nl != NULL);
	return true;
}

/* Splits a nonempty line at its last space into stack and count, and
 * checks both; a reason for a bad one goes to why. */
static enum status parse_line(const struct cline *l, struct strview *stack,
                              uint64_t *count, size_t *frames, const char **why)
{
	struct strview t = l->text;
	size_t sp = t.len, i;
	uint64_t v = 0;

	if (l->raw > COLLAPSED_LINE_MAX) {
		*why = "line too long";
		return STATUS_TOO_LARGE;
	}
	while (sp > 0 && t.ptr[sp - 1] != ' ')
		sp--;
	*why = NULL;
	if (sp == 0)
		*why = "no space before the count";
	else if (sp == t.len)
		*why = "missing count";
	else if (t.ptr[sp] == '-')
		*why = "negative count";
	else if (sp == 1)
		*why = "empty stack";
	if (*why)
		return STATUS_MALFORMED;
	for (i = sp; i < t.len; i++) {
		unsigned d = (unsigned char)t.ptr[i] - '0';

		if (t.ptr[i] == '.' || t.ptr[i] == ',') {
			*why = "fractional count";
			return STATUS_MALFORMED;
		}
		if (d > 9) {
			*why = "count is not a decimal integer";
			return STATUS_MALFORMED;
		}
		if (v > (UINT64_MAX - d) / 10) {
			*why = "count overflows 64 bits";
			return STATUS_MALFORMED;
		}
		v = v * 10 + d;
	}
	*stack = sv_n(t.ptr, sp - 1);
	*count = v;
	*frames = 1;
	for (i = 0; i < stack->len; i++)
		*frames += stack->ptr[i] == ';';
	return STATUS_OK;
}

static void set_err(char *err, size_t errsz, size_t line, const char *why)
{
	if (err && errsz)
		snprintf(err, errsz, "line %zu: %s", line, why);
}

enum status collapsed_decode(const void *data, size_t len, enum metric metric,
                             const struct sample_sink *sink, char *err,
                             size_t errsz)
{
	const char *d = data;
	struct cline l = { 0 };
	struct strview stack, *fv = NULL;
	size_t pos = 0, frames, max_frames = 0;
	uint64_t count;
	const char *why;
	enum status st;

	if (err && errsz)
		err[0] = '\0';
	if ((!data && len) || !sink || !sink->sample ||
	    (unsigned)metric >= METRIC_COUNT)
		return STATUS_INVAL;
	while (next_line(d, len, &pos, &l)) {
		if (l.text.len == 0)
			continue;
		st = parse_line(&l, &stack, &count, &frames, &why);
		if (st != STATUS_OK) {
			set_err(err, errsz, l.no, why);
			return st;
		}
		max_frames = size_max(max_frames, frames);
	}
	if (max_frames && !(fv = mem_calloc(max_frames, sizeof(*fv))))
		return STATUS_NOMEM;
	pos = 0;
	l.no = 0;
	st = STATUS_OK;
	while (st == STATUS_OK && next_line(d, len, &pos, &l)) {
		struct sample s = { .frames = fv, .tasks = 1 };
		size_t from = 0;

		if (l.text.len == 0)
			continue;
		if (parse_line(&l, &stack, &count, &frames, &why) != STATUS_OK)
			break; /* cannot happen: validated above */
		for (size_t i = 0; i <= stack.len; i++) {
			if (i == stack.len || stack.ptr[i] == ';') {
				fv[s.depth++] =
				    sv_n(stack.ptr + from, i - from);
				from = i + 1;
			}
		}
		s.m.v[metric] = count;
		st = sink->sample(sink->ctx, &s);
		if (st == STATUS_LIMIT)
			st = STATUS_OK;
		if (st != STATUS_OK)
			set_err(err, errsz, l.no, status_str(st));
	}
	mem_free(fv);
	if (st == STATUS_OK && sink->meta) {
		struct window_meta meta;

		memset(&meta, 0, sizeof(meta));
		st = sink->meta(sink->ctx, &meta);
	}
	return st;
}
