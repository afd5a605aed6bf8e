/* The writer chain's core (sticky errors, finish and free down the chain)
 * and the memory sink. */
#include "encode/out.h"

#include <stdarg.h>
#include <stdio.h>

#include "model/alloc.h"

enum { OUT_MSG_MAX = 4352 }; /* a PATH_MAX path plus a reason */

struct out {
	const struct out_ops *ops;
	void *ctx;
	struct out *next;
	enum status err;
	bool finished;
	char msg[OUT_MSG_MAX];
};

enum status out_new(const struct out_ops *ops, void *ctx, struct out *next,
                    struct out **res)
{
	struct out *o = mem_alloc(sizeof(*o));

	*res = NULL;
	if (!o)
		return STATUS_NOMEM;
	o->ops = ops;
	o->ctx = ctx;
	o->next = next;
	o->err = STATUS_OK;
	o->finished = false;
	o->msg[0] = '\0';
	*res = o;
	return STATUS_OK;
}

void *out_ctx(const struct out *o)
{
	return o->ctx;
}

struct out *out_next(const struct out *o)
{
	return o->next;
}

const struct out_ops *out_kind(const struct out *o)
{
	return o->ops;
}

enum status out_fail(struct out *o, enum status st, const char *fmt, ...)
{
	va_list ap;

	if (o->err != STATUS_OK || st == STATUS_OK)
		return o->err;
	o->err = st;
	va_start(ap, fmt);
	vsnprintf(o->msg, sizeof(o->msg), fmt, ap);
	va_end(ap);
	return st;
}

/* Records a failure a callback returned without explaining it: its own
 * (named after the writer) unless it came from below. */
static enum status failed(struct out *o, enum status st)
{
	if (o->err != STATUS_OK)
		return o->err;
	if (o->next && o->next->err != STATUS_OK) {
		o->err = st;
		return st;
	}
	return out_fail(o, st, "%s: %s", o->ops->name, status_str(st));
}

enum status out_write(struct out *o, const void *p, size_t n)
{
	enum status st;

	if (o->err != STATUS_OK)
		return o->err;
	if (o->finished)
		return out_fail(o, STATUS_INVAL, "%s: write after finish",
		                o->ops->name);
	if (n == 0)
		return STATUS_OK;
	st = o->ops->write(o, p, n);
	return st == STATUS_OK ? STATUS_OK : failed(o, st);
}

enum status out_finish(struct out *o)
{
	for (; o; o = o->next) {
		if (o->err != STATUS_OK)
			return o->err;
		if (o->finished)
			continue;
		if (o->ops->finish) {
			enum status st = o->ops->finish(o);
			if (st != STATUS_OK)
				return failed(o, st);
		}
		o->finished = true;
	}
	return STATUS_OK;
}

void out_free(struct out *o)
{
	while (o) {
		struct out *next = o->next;

		if (o->ops->free)
			o->ops->free(o);
		mem_free(o);
		o = next;
	}
}

enum status out_status(const struct out *o)
{
	for (; o; o = o->next)
		if (o->err != STATUS_OK)
			return o->err;
	return STATUS_OK;
}

const char *out_error(const struct out *o)
{
	const char *text = "";
	enum status first = STATUS_OK;

	for (; o; o = o->next) {
		if (o->err == STATUS_OK)
			continue;
		if (first == STATUS_OK)
			first = o->err;
		if (o->msg[0])
			text = o->msg;
	}
	if (!text[0] && first != STATUS_OK)
		text = status_str(first);
	return text;
}

/* ---- memory sink ---- */

static enum status mem_write(struct out *o, const void *p, size_t n)
{
	struct buf *b = out_ctx(o);
	enum status st = buf_add(b, p, n);

	if (st != STATUS_OK)
		return out_fail(o, st, "memory buffer: %s", status_str(st));
	return STATUS_OK;
}

static const struct out_ops mem_ops = {
	.name = "memory buffer",
	.write = mem_write,
};

enum status out_mem_new(struct buf *b, struct out **res)
{
	return out_new(&mem_ops, b, NULL, res);
}
