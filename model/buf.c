/* Growable byte buffer with a sticky error. */
#include "model/buf.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "model/alloc.h"

void buf_init(struct buf *b)
{
	memset(b, 0, sizeof(*b));
}

void buf_fini(struct buf *b)
{
	size_t limit = b->limit;

	mem_free(b->data);
	buf_init(b);
	b->limit = limit;
}

void buf_reset(struct buf *b)
{
	b->len = 0;
	b->err = STATUS_OK;
	if (b->data)
		b->data[0] = '\0';
}

static enum status fail(struct buf *b, enum status st)
{
	if (b->err == STATUS_OK)
		b->err = st;
	return b->err;
}

enum status buf_reserve(struct buf *b, size_t n)
{
	size_t need;

	if (b->err)
		return b->err;
	if (n > SIZE_MAX - b->len - 1)
		return fail(b, STATUS_NOMEM);
	need = b->len + n + 1; /* room for the terminating NUL */
	if (b->limit && need - 1 > b->limit)
		return fail(b, STATUS_LIMIT);
	if (mem_grow(&b->data, &b->cap, need, 1) != STATUS_OK)
		return fail(b, STATUS_NOMEM);
	return STATUS_OK;
}

enum status buf_add(struct buf *b, const void *p, size_t n)
{
	if (buf_reserve(b, n) != STATUS_OK)
		return b->err;
	if (n)
		memcpy(b->data + b->len, p, n);
	b->len += n;
	b->data[b->len] = '\0';
	return STATUS_OK;
}

enum status buf_addc(struct buf *b, char c)
{
	return buf_add(b, &c, 1);
}

enum status buf_adds(struct buf *b, const char *s)
{
	return buf_add(b, s, strlen(s));
}

enum status buf_addv(struct buf *b, struct strview v)
{
	return buf_add(b, v.ptr, v.len);
}

enum status buf_printf(struct buf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (b->err)
		return b->err;
	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		return fail(b, STATUS_INVAL);
	if (buf_reserve(b, (size_t)n) != STATUS_OK)
		return b->err;
	va_start(ap, fmt);
	vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
	return STATUS_OK;
}

const char *buf_cstr(struct buf *b)
{
	if (b->err)
		return NULL;
	if (!b->data)
		return "";
	return b->data;
}

char *buf_detach(struct buf *b, size_t *len)
{
	char *d = b->data;

	if (len)
		*len = b->len;
	b->data = NULL;
	b->len = b->cap = 0;
	b->err = STATUS_OK;
	return d;
}
