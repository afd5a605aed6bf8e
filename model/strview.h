/* A borrowed, length-delimited string: what crosses folder boundaries.
 * Not NUL-terminated; the owner says how long the bytes live. */
#ifndef ASYNCTOP_MODEL_STRVIEW_H
#define ASYNCTOP_MODEL_STRVIEW_H

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

struct strview {
	const char *ptr;
	size_t len;
};

/* A view of a NUL-terminated string (NULL gives the empty view). */
static inline struct strview sv_c(const char *s)
{
	struct strview v = { s, s ? strlen(s) : 0 };
	return v;
}

static inline struct strview sv_n(const char *s, size_t len)
{
	struct strview v = { s, len };
	return v;
}

static inline bool sv_eq(struct strview a, struct strview b)
{
	return a.len == b.len &&
	       (a.len == 0 || memcmp(a.ptr, b.ptr, a.len) == 0);
}

/* Byte-wise order, a shorter prefix first: <0, 0 or >0 like memcmp. */
static inline int sv_cmp(struct strview a, struct strview b)
{
	size_t n = a.len < b.len ? a.len : b.len;
	int c = n ? memcmp(a.ptr, b.ptr, n) : 0;
	if (c != 0)
		return c;
	return (a.len > b.len) - (a.len < b.len);
}

#endif
