/* gzip (RFC 1952): the filter writer of the output chain, through
 * libdeflate, and the bounded in-memory decompressor of encode/gzip.h,
 * through libdeflate with zlib to explain what it refuses. */
#define ZLIB_CONST
#include "encode/gzip.h"

#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <libdeflate.h>
#include <zlib.h>

#include "encode/out.h"
#include "model/alloc.h"

enum { GZ_CHUNK = 64 * 1024, GZ_WBITS = 15 + 16 };

static voidpf gz_alloc(voidpf opaque, uInt items, uInt size)
{
	(void)opaque;
	return mem_calloc(items, size);
}

static void gz_free(voidpf opaque, voidpf p)
{
	(void)opaque;
	mem_free(p);
}

static void gz_stream_init(z_stream *zs)
{
	memset(zs, 0, sizeof(*zs));
	zs->zalloc = gz_alloc;
	zs->zfree = gz_free;
}

static uInt clamp_uint(size_t n)
{
	return n > UINT_MAX ? UINT_MAX : (uInt)n;
}

bool gzip_is(const void *data, size_t len)
{
	const unsigned char *p = data;

	return len >= 2 && p[0] == 0x1f && p[1] == 0x8b;
}

/* ---- the filter writer ---- */

/* The filter compresses with libdeflate, which takes the whole input at
 * once: on a 100,000-sample profile its level 1 needs less than half of
 * zlib's level-1 CPU time for a 5% smaller file (docs/saving.md).  So it
 * gathers what is written and compresses it in its finish. */
struct gz_writer {
	int level;
	struct buf in;
};

static enum status gz_write(struct out *o, const void *p, size_t n)
{
	struct gz_writer *g = out_ctx(o);

	if (buf_add(&g->in, p, n) != STATUS_OK)
		return out_fail(o, buf_status(&g->in), "%s",
		                status_str(buf_status(&g->in)));
	return STATUS_OK;
}

static enum status gz_finish(struct out *o)
{
	struct gz_writer *g = out_ctx(o);
	struct libdeflate_compressor *c;
	unsigned char *z;
	size_t bound, n;
	enum status st;

	c = libdeflate_alloc_compressor(g->level);
	if (!c)
		return out_fail(o, STATUS_NOMEM, "out of memory");
	bound = libdeflate_gzip_compress_bound(c, g->in.len);
	z = mem_alloc(bound);
	if (!z) {
		libdeflate_free_compressor(c);
		return out_fail(o, STATUS_NOMEM, "out of memory");
	}
	n = libdeflate_gzip_compress(c, g->in.data, g->in.len, z, bound);
	libdeflate_free_compressor(c);
	buf_fini(&g->in);
	st = n ? STATUS_OK
	       : out_fail(o, STATUS_INVAL, "gzip: compression failed");
	for (size_t at = 0; st == STATUS_OK && at < n; at += GZ_CHUNK)
		st = out_write(out_next(o), z + at, size_min(GZ_CHUNK, n - at));
	mem_free(z);
	return st;
}

static void gz_writer_free(struct out *o)
{
	struct gz_writer *g = out_ctx(o);

	buf_fini(&g->in);
	mem_free(g);
}

static const struct out_ops gz_ops = {
	.name = "gzip",
	.write = gz_write,
	.finish = gz_finish,
	.free = gz_writer_free,
};

enum status out_gzip_new(int level, struct out *next, struct out **res)
{
	struct gz_writer *g;

	*res = NULL;
	if (level < 0 || level > 9 || !next)
		return STATUS_INVAL;
	g = mem_alloc(sizeof(*g));
	if (!g)
		return STATUS_NOMEM;
	g->level = level;
	buf_init(&g->in);
	if (out_new(&gz_ops, g, next, res) != STATUS_OK) {
		mem_free(g);
		return STATUS_NOMEM;
	}
	return STATUS_OK;
}

/* ---- the decompressor ---- */

/* Explains input that does not start like gzip. */
static enum status not_gzip(const unsigned char *p, size_t len, char *err,
                            size_t errsz)
{
	if (len == 0)
		return status_errf(err, errsz, STATUS_MALFORMED,
		                   "empty input, not gzip data");
	if (len >= 2 && (p[0] & 0x0f) == 8 && ((p[0] << 8) | p[1]) % 31 == 0)
		return status_errf(
		    err, errsz, STATUS_MALFORMED,
		    "zlib (RFC 1950) data, not gzip (RFC 1952): starts with %02x %02x, not 1f 8b",
		    p[0], p[1]);
	if (len == 1)
		return status_errf(err, errsz, STATUS_MALFORMED,
		                   "truncated: 1 byte, not gzip data");
	return status_errf(err, errsz, STATUS_MALFORMED,
	                   "not gzip data: starts with %02x %02x, not 1f 8b",
	                   p[0], p[1]);
}

/* Makes spare room in out for the next inflate step; the room offered is
 * capped so that at most one byte past the limit is ever produced. */
static enum status room(struct buf *out, size_t made, size_t limit, uInt *avail)
{
	size_t spare, most = SIZE_MAX;

	if (limit && limit - made < SIZE_MAX)
		most = limit - made + 1;
	if (out->cap - out->len <= 1) {
		enum status st = buf_reserve(out, size_min(GZ_CHUNK, most));
		if (st != STATUS_OK)
			return st;
	}
	spare = size_min(out->cap - out->len - 1, most);
	*avail = clamp_uint(spare);
	return STATUS_OK;
}

/* The careful decompressor: zlib, in steps, each failure with its reason.
 * The fast one below hands it every input it does not simply accept. */
static enum status zlib_decompress(const void *data, size_t len, size_t limit,
                                   struct buf *out, char *err, size_t errsz)
{
	const unsigned char *in = data;
	size_t start = out->len, pos = 0, member = 0, made = 0;
	enum status st = STATUS_OK;
	z_stream zs;
	int ret;

	if (err && errsz)
		err[0] = '\0';
	if (!gzip_is(data, len))
		return not_gzip(in, len, err, errsz);
	if (buf_status(out) != STATUS_OK)
		return buf_status(out);
	gz_stream_init(&zs);
	ret = inflateInit2(&zs, GZ_WBITS);
	if (ret != Z_OK)
		return ret == Z_MEM_ERROR ? STATUS_NOMEM : STATUS_INVAL;
	for (;;) {
		uInt avail_out, in_piece = clamp_uint(len - pos);

		st = room(out, made, limit, &avail_out);
		if (st != STATUS_OK) {
			if (st == STATUS_LIMIT)
				st = status_errf(
				    err, errsz, STATUS_TOO_LARGE,
				    "decompressed data passes the buffer's limit of %zu bytes",
				    out->limit);
			break;
		}
		zs.next_in = in + pos;
		zs.avail_in = in_piece;
		zs.next_out = (unsigned char *)out->data + out->len;
		zs.avail_out = avail_out;
		ret = inflate(&zs, Z_NO_FLUSH);
		size_t got = avail_out - zs.avail_out;
		pos += in_piece - zs.avail_in;
		out->len += got;
		out->data[out->len] = '\0';
		made = out->len - start;
		if (limit && made > limit) {
			st = status_errf(
			    err, errsz, STATUS_TOO_LARGE,
			    "decompressed data passes the limit of %zu bytes",
			    limit);
			break;
		}
		if (ret == Z_STREAM_END) {
			if (pos == len)
				break;
			if (!gzip_is(in + pos, len - pos)) {
				st = status_errf(
				    err, errsz, STATUS_MALFORMED,
				    "%zu trailing bytes after the gzip data (at offset %zu)",
				    len - pos, pos);
				break;
			}
			member = pos;
			inflateReset(&zs);
			continue;
		}
		if (ret == Z_MEM_ERROR) {
			st = STATUS_NOMEM;
			break;
		}
		if (ret == Z_DATA_ERROR || ret == Z_NEED_DICT ||
		    ret == Z_STREAM_ERROR) {
			st = status_errf(
			    err, errsz, STATUS_MALFORMED,
			    "corrupt gzip data (member at offset %zu): %s",
			    member, zs.msg ? zs.msg : "invalid stream");
			break;
		}
		/* Z_OK or Z_BUF_ERROR: out of input with room left means the
		 * stream stops short; no progress at all would loop forever. */
		if ((pos == len && zs.avail_out > 0) ||
		    (got == 0 && in_piece == zs.avail_in)) {
			st = status_errf(
			    err, errsz, STATUS_MALFORMED,
			    "truncated gzip data: the member at offset %zu ends early (%zu bytes in all)",
			    member, len);
			break;
		}
	}
	inflateEnd(&zs);
	return st;
}

/* The output a member at in (n bytes, gzip at the start) likely needs: the
 * size its trailer claims when it is the last member, never more than
 * deflate can make of n bytes (1032 to 1), so a lying trailer costs
 * little; at least 64 KiB. */
static size_t size_hint(const unsigned char *in, size_t n)
{
	size_t claim;

	if (n < 18) /* no room for a header and a trailer */
		return GZ_CHUNK;
	claim = (size_t)in[n - 4] | (size_t)in[n - 3] << 8 |
	        (size_t)in[n - 2] << 16 | (size_t)in[n - 1] << 24;
	claim = size_min(claim, n <= SIZE_MAX / 1032 ? n * 1032 : SIZE_MAX);
	return claim > GZ_CHUNK ? claim : GZ_CHUNK;
}

/* Decompresses each member in one call with libdeflate, into room that
 * grows (doubling, the member done again) up to the limit.  libdeflate
 * reads gzip at about twice zlib's speed but tells one fault from another
 * only as "bad data", so any input it refuses is decided, reason and all,
 * by zlib_decompress, from the start. */
enum status gzip_decompress(const void *data, size_t len, size_t limit,
                            struct buf *out, char *err, size_t errsz)
{
	const unsigned char *in = data;
	size_t start = out->len, pos = 0, want;
	struct libdeflate_decompressor *d;
	enum status st = STATUS_OK;

	if (err && errsz)
		err[0] = '\0';
	if (!gzip_is(data, len) || len < 18)
		return zlib_decompress(data, len, limit, out, err, errsz);
	if (buf_status(out) != STATUS_OK)
		return buf_status(out);
	d = libdeflate_alloc_decompressor();
	if (!d)
		return STATUS_NOMEM;
	want = size_hint(in, len);
	while (pos < len) {
		size_t made = out->len - start, most = SIZE_MAX, got, used;
		enum libdeflate_result res;

		if (limit)
			most = limit - made + 1; /* one byte past tells */
		want = size_min(want, most);
		st = buf_reserve(out, want);
		if (st != STATUS_OK)
			break;
		res = libdeflate_gzip_decompress_ex(d, in + pos, len - pos,
		                                    out->data + out->len, want,
		                                    &used, &got);
		if (res == LIBDEFLATE_INSUFFICIENT_SPACE && want < most) {
			want = want <= SIZE_MAX / 2 ? want * 2 : SIZE_MAX;
			continue;
		}
		if (res == LIBDEFLATE_INSUFFICIENT_SPACE) {
			st = status_errf(
			    err, errsz, STATUS_TOO_LARGE,
			    "decompressed data passes the limit of %zu bytes",
			    limit);
			break;
		}
		if (res != LIBDEFLATE_SUCCESS ||
		    (pos + used < len &&
		     !gzip_is(in + pos + used, len - pos - used))) {
			st = STATUS_MALFORMED;
			break;
		}
		out->len += got;
		out->data[out->len] = '\0';
		pos += used;
		if (limit && out->len - start > limit) {
			st = status_errf(
			    err, errsz, STATUS_TOO_LARGE,
			    "decompressed data passes the limit of %zu bytes",
			    limit);
			break;
		}
		want = pos < len ? size_hint(in + pos, len - pos) : 0;
	}
	libdeflate_free_decompressor(d);
	if (st == STATUS_LIMIT)
		return status_errf(
		    err, errsz, STATUS_TOO_LARGE,
		    "decompressed data passes the buffer's limit of %zu bytes",
		    out->limit);
	if (st != STATUS_MALFORMED)
		return st;
	out->len = start;
	if (out->data)
		out->data[start] = '\0';
	return zlib_decompress(data, len, limit, out, err, errsz);
}
