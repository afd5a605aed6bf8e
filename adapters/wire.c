/* The bounded little-endian cursor: every length checked before use. */
#include "adapters/wire.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void wire_init(struct wire *w, const void *data, size_t len)
{
	memset(w, 0, sizeof(*w));
	w->p = data;
	w->len = data ? len : 0;
}

enum status wire_fail(struct wire *w, size_t at, const char *fmt, ...)
{
	va_list ap;
	size_t used;

	if (w->st != STATUS_OK)
		return w->st;
	w->st = STATUS_MALFORMED;
	va_start(ap, fmt);
	vsnprintf(w->err, sizeof(w->err), fmt, ap);
	va_end(ap);
	used = strlen(w->err);
	snprintf(w->err + used, sizeof(w->err) - used, " at offset %zu",
	         at == SIZE_MAX ? w->off : at);
	return w->st;
}

/* Takes n bytes, or fails naming what needed them. */
static const unsigned char *take(struct wire *w, const char *what, uint64_t n)
{
	const unsigned char *p;

	if (w->st != STATUS_OK)
		return NULL;
	if (n > wire_left(w)) {
		(void)wire_fail(w, SIZE_MAX,
		                "truncated: %s needs %llu bytes, %zu remain",
		                what, (unsigned long long)n, wire_left(w));
		return NULL;
	}
	p = w->p + w->off;
	w->off += (size_t)n;
	return p;
}

uint16_t wire_le16(const unsigned char *p)
{
	return (uint16_t)(p[0] | (unsigned)p[1] << 8);
}

uint32_t wire_le32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

uint64_t wire_le64(const unsigned char *p)
{
	return (uint64_t)wire_le32(p) | (uint64_t)wire_le32(p + 4) << 32;
}

enum status wire_u8(struct wire *w, const char *what, uint8_t *out)
{
	const unsigned char *p = take(w, what, 1);

	*out = p ? p[0] : 0;
	return w->st;
}

enum status wire_u16(struct wire *w, const char *what, uint16_t *out)
{
	const unsigned char *p = take(w, what, 2);

	*out = p ? wire_le16(p) : 0;
	return w->st;
}

enum status wire_u32(struct wire *w, const char *what, uint32_t *out)
{
	const unsigned char *p = take(w, what, 4);

	*out = p ? wire_le32(p) : 0;
	return w->st;
}

enum status wire_u64(struct wire *w, const char *what, uint64_t *out)
{
	const unsigned char *p = take(w, what, 8);

	*out = p ? wire_le64(p) : 0;
	return w->st;
}

enum status wire_bytes(struct wire *w, const char *what, uint64_t n,
                       const unsigned char **out)
{
	*out = take(w, what, n);
	return w->st;
}

enum status wire_skip(struct wire *w, const char *what, uint64_t n)
{
	(void)take(w, what, n);
	return w->st;
}

enum status wire_count(struct wire *w, const char *what, uint64_t count,
                       size_t min_size)
{
	if (w->st != STATUS_OK)
		return w->st;
	if (min_size == 0 || count <= wire_left(w) / min_size)
		return STATUS_OK;
	return wire_fail(w, SIZE_MAX,
	                 "%s %llu (at least %zu bytes each) exceeds the %zu "
	                 "bytes left",
	                 what, (unsigned long long)count, min_size,
	                 wire_left(w));
}

enum status wire_end(struct wire *w, const char *what)
{
	if (w->st != STATUS_OK || wire_left(w) == 0)
		return w->st;
	return wire_fail(w, SIZE_MAX, "%zu unexpected bytes after %s",
	                 wire_left(w), what);
}

static enum status put(struct buf *b, uint64_t v, size_t n)
{
	unsigned char d[8];
	size_t i;

	for (i = 0; i < n; i++)
		d[i] = (unsigned char)(v >> (8 * i));
	return buf_add(b, d, n);
}

enum status wire_put_u8(struct buf *b, uint8_t v)
{
	return put(b, v, 1);
}

enum status wire_put_u16(struct buf *b, uint16_t v)
{
	return put(b, v, 2);
}

enum status wire_put_u32(struct buf *b, uint32_t v)
{
	return put(b, v, 4);
}

enum status wire_put_u64(struct buf *b, uint64_t v)
{
	return put(b, v, 8);
}
