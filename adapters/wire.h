/* A bounded little-endian reader (and a small writer) for binary replies:
 * every read is checked against what remains, the first failure is sticky
 * and says what was wanted at which offset. */
#ifndef ASYNCTOP_ADAPTERS_WIRE_H
#define ASYNCTOP_ADAPTERS_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/base.h"
#include "model/buf.h"
#include "model/status.h"

/* A cursor over borrowed bytes.  Never reads before p or past p + len. */
struct wire {
	const unsigned char *p;
	size_t len, off;
	enum status st; /* sticky: the first failure */
	char err[200];  /* its text, "" while st is STATUS_OK */
};

/* Starts a cursor over len bytes of data (borrowed; data may be NULL when
 * len is 0).  Never fails. */
void wire_init(struct wire *w, const void *data, size_t len);

/* Bytes left after the cursor. */
static inline size_t wire_left(const struct wire *w)
{
	return w->len - w->off;
}

/* The sticky status: STATUS_OK until a read fails. */
static inline enum status wire_status(const struct wire *w)
{
	return w->st;
}

/* Fixed-width little-endian reads.  Sticky, like struct buf: a parser may
 * read a whole record and check wire_status once; what names the field
 * for the error ("the task count").  On success the cursor advances; when
 * fewer bytes remain, or after an earlier failure, *out is 0, the cursor
 * stays, and STATUS_MALFORMED is returned with err set to e.g.
 * "truncated: the task count needs 4 bytes, 2 remain at offset 120".
 * Never block. */
enum status wire_u8(struct wire *w, const char *what, uint8_t *out);
enum status wire_u16(struct wire *w, const char *what, uint16_t *out);
enum status wire_u32(struct wire *w, const char *what, uint32_t *out);
enum status wire_u64(struct wire *w, const char *what, uint64_t *out);

/* A view of the next n bytes (borrowed from the cursor's data), advancing
 * past them.  Fails like the reads above (*out is then NULL). */
enum status wire_bytes(struct wire *w, const char *what, uint64_t n,
                       const unsigned char **out);
/* Advances past n bytes; fails like wire_bytes. */
enum status wire_skip(struct wire *w, const char *what, uint64_t n);

/* Checks that count records of at least min_size bytes each can still be
 * in the input (count * min_size <= what remains, without overflow), so a
 * caller may size an allocation by count.  STATUS_MALFORMED with "the
 * task count 4000000000 (at least 88 bytes each) exceeds the 12 bytes
 * left at offset 64" otherwise. */
enum status wire_count(struct wire *w, const char *what, uint64_t count,
                       size_t min_size);

/* Records a failure found by the caller (a bad value rather than a short
 * input): the text is printf-formatted and followed by " at offset N"
 * (the cursor's, or at when it is not SIZE_MAX).  Keeps an earlier
 * failure.  Returns STATUS_MALFORMED. */
enum status wire_fail(struct wire *w, size_t at, const char *fmt, ...)
    PRINTF(3, 4);

/* Fails (as wire_fail) unless every byte was read: "N unexpected bytes
 * after WHAT at offset M". */
enum status wire_end(struct wire *w, const char *what);

/* Little-endian appends to b (sticky error, see model/buf.h). */
enum status wire_put_u8(struct buf *b, uint8_t v);
enum status wire_put_u16(struct buf *b, uint16_t v);
enum status wire_put_u32(struct buf *b, uint32_t v);
enum status wire_put_u64(struct buf *b, uint64_t v);

/* Little-endian decoding of the first 2, 4 or 8 bytes of p (which the
 * caller has checked are there). */
uint16_t wire_le16(const unsigned char *p);
uint32_t wire_le32(const unsigned char *p);
uint64_t wire_le64(const unsigned char *p);

#endif
