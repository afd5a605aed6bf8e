/* A growable byte buffer with a sticky error, the output of every encoder.
 * After the first failure further appends do nothing and buf_status() tells;
 * so an encoder can append freely and check once at the end. */
#ifndef ASYNCTOP_MODEL_BUF_H
#define ASYNCTOP_MODEL_BUF_H

#include <stddef.h>

#include "model/base.h"
#include "model/status.h"
#include "model/strview.h"

struct buf {
	char *data; /* NUL-terminated when len > 0 or after buf_cstr */
	size_t len, cap;
	size_t limit;    /* 0: none; growth past it fails with STATUS_LIMIT */
	enum status err; /* sticky: the first failure */
};

void buf_init(struct buf *b);
/* Frees the bytes and leaves b as after buf_init (limit kept). */
void buf_fini(struct buf *b);
/* Forgets the contents and the error; keeps the memory. */
void buf_reset(struct buf *b);

/* Appends n bytes of p.  Returns the sticky status. */
enum status buf_add(struct buf *b, const void *p, size_t n);
enum status buf_addc(struct buf *b, char c);
enum status buf_adds(struct buf *b, const char *s);
enum status buf_addv(struct buf *b, struct strview v);
/* Formatted append (C locale numbers: asynctop never sets LC_NUMERIC). */
enum status buf_printf(struct buf *b, const char *fmt, ...) PRINTF(2, 3);
/* Makes room for n more bytes without changing len. */
enum status buf_reserve(struct buf *b, size_t n);

/* The contents as a C string ("" when empty); NULL after a failure. */
const char *buf_cstr(struct buf *b);
static inline struct strview buf_view(const struct buf *b)
{
	struct strview v = { b->data, b->len };
	return v;
}
static inline enum status buf_status(const struct buf *b)
{
	return b->err;
}

/* Hands the bytes to the caller (free with mem_free) and re-initialises b. */
char *buf_detach(struct buf *b, size_t *len);

#endif
