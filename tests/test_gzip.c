/* gzip: the filter writer checked against zlib's own inflate, and the bounded
 * decompressor on good, multi-member, truncated, corrupt and hostile input. */
#define ZLIB_CONST
#include <check.h>
#include <stdint.h>
#include <string.h>
#include <zlib.h>

#include "encode/gzip.h"
#include "encode/out.h"
#include "model/alloc.h"
#include "model/buf.h"
#include "tests/util.h"

static void fill_random(unsigned char *p, size_t n, uint64_t seed)
{
	uint64_t x = seed | 1;

	for (size_t i = 0; i < n; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		p[i] = (unsigned char)(x >> 24);
	}
}

/* Text with some entropy: numbered lines of a small vocabulary. */
static void fill_text(struct buf *b, size_t n)
{
	static const char *const words[] = { "poll",         "wake",
		                             "idle",         "sched",
		                             "tokio::spawn", "asyncio.gather" };
	uint64_t x = 88172645463325252u;

	while (b->len < n) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		ck_assert_int_eq(buf_printf(b, "%s %llu\n", words[x % 6],
		                            (unsigned long long)(x % 1000)),
		                 STATUS_OK);
	}
	b->len = n;
}

/* zlib's own gzip inflate, independent of gzip_decompress. */
static void zlib_gunzip(const void *in, size_t len, struct buf *out)
{
	z_stream zs;
	unsigned char chunk[16384];
	int ret;

	memset(&zs, 0, sizeof(zs));
	ck_assert_int_eq(inflateInit2(&zs, 15 + 16), Z_OK);
	zs.next_in = in;
	zs.avail_in = (uInt)len;
	do {
		zs.next_out = chunk;
		zs.avail_out = sizeof(chunk);
		ret = inflate(&zs, Z_NO_FLUSH);
		ck_assert_msg(ret == Z_OK || ret == Z_STREAM_END,
		              "inflate: %d %s", ret, zs.msg ? zs.msg : "");
		ck_assert_int_eq(
		    buf_add(out, chunk, sizeof(chunk) - zs.avail_out),
		    STATUS_OK);
	} while (ret != Z_STREAM_END);
	ck_assert_uint_eq(zs.avail_in, 0); /* one member, nothing after */
	inflateEnd(&zs);
}

/* Compresses data through gzip filter + memory sink, writing in uneven
 * pieces so that the streaming path is used. */
static void gz_compress(const void *data, size_t len, int level,
                        struct buf *out)
{
	static const size_t pieces[] = { 1, 7, 4096, 65536, 100000 };
	struct out *mem, *gz;
	const char *p = data;
	size_t i = 0;

	ck_assert_int_eq(out_mem_new(out, &mem), STATUS_OK);
	ck_assert_int_eq(out_gzip_new(level, mem, &gz), STATUS_OK);
	while (len) {
		size_t n = size_min(len, pieces[i++ % ARRAY_SIZE(pieces)]);
		ck_assert_int_eq(out_write(gz, p, n), STATUS_OK);
		p += n;
		len -= n;
	}
	ck_assert_int_eq(out_finish(gz), STATUS_OK);
	ck_assert_int_eq(out_status(gz), STATUS_OK);
	ck_assert_str_eq(out_error(gz), "");
	out_free(gz);
}

static void round_trip(const void *data, size_t len, int level, size_t *gzlen)
{
	struct buf z, back;

	buf_init(&z);
	buf_init(&back);
	gz_compress(data, len, level, &z);
	ck_assert(gzip_is(z.data, z.len));
	ck_assert_uint_eq((unsigned char)z.data[2], 8); /* deflate */
	/* XFL: 4 for levels 0-1, 2 for 9, else 0 */
	ck_assert_uint_eq((unsigned char)z.data[8], level < 2    ? 4
	                                            : level == 9 ? 2
	                                                         : 0);
	zlib_gunzip(z.data, z.len, &back);
	ck_assert_uint_eq(back.len, len);
	if (len)
		ck_assert_mem_eq(back.data, data, len);
	buf_reset(&back);
	ck_assert_int_eq(gzip_decompress(z.data, z.len, 0, &back, NULL, 0),
	                 STATUS_OK);
	ck_assert_uint_eq(back.len, len);
	if (len)
		ck_assert_mem_eq(back.data, data, len);
	if (gzlen)
		*gzlen = z.len;
	buf_fini(&z);
	buf_fini(&back);
}

START_TEST(gzip_round_trips)
{
	enum { MIB = 1 << 20 };
	unsigned char *rnd = mem_alloc(MIB);
	struct buf text;
	size_t n;

	ck_assert_ptr_nonnull(rnd);
	round_trip("", 0, 6, &n);
	/* 10 header + an empty stored block (5) + 8 trailer */
	ck_assert_uint_eq(n, 23);
	round_trip("hello, gzip", 11, 6, NULL);
	fill_random(rnd, MIB, 42);
	round_trip(rnd, MIB, 6, &n);
	ck_assert_uint_gt(n, MIB); /* random data does not shrink */
	ck_assert_uint_lt(n, MIB + MIB / 100);
	memset(rnd, 'a', MIB);
	round_trip(rnd, MIB, 6, &n);
	ck_assert_uint_lt(n, 2048); /* highly compressible */
	round_trip(rnd, MIB, 1, NULL);
	mem_free(rnd);

	buf_init(&text);
	fill_text(&text, MIB);
	round_trip(text.data, text.len, 6, &n);
	ck_assert_uint_lt(n, MIB / 3);
	buf_fini(&text);
}
END_TEST

START_TEST(gzip_levels)
{
	struct buf text;
	size_t fast, dflt, l9;

	buf_init(&text);
	fill_text(&text, 512 * 1024);
	round_trip(text.data, text.len, OUT_GZIP_FAST, &fast);
	round_trip(text.data, text.len, OUT_GZIP_DEFAULT, &dflt);
	round_trip(text.data, text.len, 9, &l9);
	round_trip(text.data, text.len, 0, NULL); /* stored blocks */
	ck_assert_uint_lt(dflt, fast);
	ck_assert_uint_le(l9, dflt);
	buf_fini(&text);
}
END_TEST

START_TEST(gzip_bad_level)
{
	struct buf b;
	struct out *mem, *gz;

	buf_init(&b);
	ck_assert_int_eq(out_mem_new(&b, &mem), STATUS_OK);
	gz = mem;
	ck_assert_int_eq(out_gzip_new(10, mem, &gz), STATUS_INVAL);
	ck_assert_ptr_null(gz);
	ck_assert_int_eq(out_gzip_new(-1, mem, &gz), STATUS_INVAL);
	/* the caller still owns the sink */
	ck_assert_int_eq(out_write(mem, "x", 1), STATUS_OK);
	out_free(mem);
	ck_assert_uint_eq(b.len, 1);
	buf_fini(&b);
}
END_TEST

/* Compresses s into z (one member). */
static void gz_str(const char *s, struct buf *z)
{
	gz_compress(s, strlen(s), 6, z);
}

START_TEST(gunzip_multi_member)
{
	struct buf z, out;
	char err[256];

	buf_init(&z);
	buf_init(&out);
	gz_str("first member, ", &z);
	gz_str("", &z);
	gz_str("second member", &z);
	ck_assert_int_eq(buf_adds(&out, "kept:"), STATUS_OK);
	ck_assert_int_eq(
	    gzip_decompress(z.data, z.len, 0, &out, err, sizeof(err)),
	    STATUS_OK);
	ck_assert_str_eq(buf_cstr(&out), "kept:first member, second member");
	buf_fini(&z);
	buf_fini(&out);
}
END_TEST

/* The room for a member is first sized by the size the last member's
 * trailer claims: a large member before a small last one is decompressed
 * again into doubled room, and a limit that falls inside the large member
 * still stops it there. */
START_TEST(gunzip_grows_past_a_small_hint)
{
	enum { BIG = 1 << 20 };
	struct buf text, z, out;
	char err[256];

	buf_init(&text);
	buf_init(&z);
	buf_init(&out);
	fill_text(&text, BIG);
	gz_compress(text.data, text.len, 1, &z);
	gz_str("end", &z);
	ck_assert_int_eq(
	    gzip_decompress(z.data, z.len, 0, &out, err, sizeof(err)),
	    STATUS_OK);
	ck_assert_uint_eq(out.len, text.len + 3);
	ck_assert_mem_eq(out.data, text.data, text.len);
	ck_assert_str_eq(out.data + text.len, "end");
	buf_reset(&out);
	ck_assert_int_eq(gzip_decompress(z.data, z.len, text.len + 3, &out, err,
	                                 sizeof(err)),
	                 STATUS_OK);
	buf_reset(&out);
	ck_assert_int_eq(gzip_decompress(z.data, z.len, text.len + 2, &out, err,
	                                 sizeof(err)),
	                 STATUS_TOO_LARGE);
	ck_assert_uint_le(out.len, text.len + 3);
	buf_reset(&out);
	ck_assert_int_eq(
	    gzip_decompress(z.data, z.len, BIG / 2, &out, err, sizeof(err)),
	    STATUS_TOO_LARGE);
	ck_assert_str_eq(err, "decompressed data passes the limit of 524288 "
	                      "bytes");
	ck_assert_uint_le(out.len, BIG / 2 + 1);
	buf_fini(&text);
	buf_fini(&z);
	buf_fini(&out);
}
END_TEST

START_TEST(gunzip_every_prefix_is_truncated)
{
	struct buf z, out;
	char err[256];

	buf_init(&z);
	buf_init(&out);
	gz_str("a small stream that is cut at every length", &z);
	for (size_t n = 0; n < z.len; n++) {
		err[0] = '\0';
		buf_reset(&out);
		ck_assert_int_eq(
		    gzip_decompress(z.data, n, 0, &out, err, sizeof(err)),
		    STATUS_MALFORMED);
		if (n == 0)
			ck_assert_str_eq(err, "empty input, not gzip data");
		else
			ck_assert_msg(strstr(err, "truncated"), "%zu: %s", n,
			              err);
	}
	gz_str("second", &z); /* a complete first member, a cut second */
	for (size_t n = z.len - 5; n < z.len; n++) {
		buf_reset(&out);
		ck_assert_int_eq(
		    gzip_decompress(z.data, n, 0, &out, err, sizeof(err)),
		    STATUS_MALFORMED);
		ck_assert_msg(strstr(err, "truncated"), "%zu: %s", n, err);
	}
	buf_fini(&z);
	buf_fini(&out);
}
END_TEST

START_TEST(gunzip_corrupt_and_junk)
{
	struct buf z, out;
	char err[256];

	buf_init(&z);
	buf_init(&out);
	gz_str("checksummed content", &z);
	z.data[z.len - 8] ^= 0x01; /* the CRC-32 */
	ck_assert_int_eq(
	    gzip_decompress(z.data, z.len, 0, &out, err, sizeof(err)),
	    STATUS_MALFORMED);
	ck_assert_str_eq(err, "corrupt gzip data (member at offset 0): "
	                      "incorrect data check");
	z.data[z.len - 8] ^= 0x01;
	z.data[z.len - 1] ^= 0x01; /* ISIZE */
	buf_reset(&out);
	ck_assert_int_eq(
	    gzip_decompress(z.data, z.len, 0, &out, err, sizeof(err)),
	    STATUS_MALFORMED);
	ck_assert_ptr_nonnull(strstr(err, "incorrect length check"));
	z.data[z.len - 1] ^= 0x01;

	ck_assert_int_eq(buf_add(&z, "\0\0junk", 6), STATUS_OK);
	buf_reset(&out);
	ck_assert_int_eq(
	    gzip_decompress(z.data, z.len, 0, &out, err, sizeof(err)),
	    STATUS_MALFORMED);
	ck_assert_ptr_nonnull(strstr(err, "6 trailing bytes"));

	buf_reset(&out);
	ck_assert_int_eq(gzip_decompress("\x1f", 1, 0, &out, err, sizeof(err)),
	                 STATUS_MALFORMED);
	ck_assert_int_eq(gzip_decompress("", 0, 0, &out, err, sizeof(err)),
	                 STATUS_MALFORMED);
	ck_assert_str_eq(err, "empty input, not gzip data");
	ck_assert_int_eq(
	    gzip_decompress("PK\3\4", 4, 0, &out, err, sizeof(err)),
	    STATUS_MALFORMED);
	ck_assert_str_eq(err, "not gzip data: starts with 50 4b, not 1f 8b");
	/* gzip magic, then garbage */
	ck_assert_int_eq(gzip_decompress("\x1f\x8b\x08\x00garbage!", 12, 0,
	                                 &out, err, sizeof(err)),
	                 STATUS_MALFORMED);
	ck_assert_int_eq(gzip_decompress("\x1f\x8b\x07", 3, 0, &out, NULL, 0),
	                 STATUS_MALFORMED);
	buf_fini(&z);
	buf_fini(&out);
}
END_TEST

START_TEST(gunzip_rejects_zlib_wrapper)
{
	const char *s = "a zlib stream, as compress2 writes it";
	unsigned char z[128];
	uLongf zlen = sizeof(z);
	struct buf out;
	char err[256];

	ck_assert_int_eq(compress2(z, &zlen, (const Bytef *)s, strlen(s), 6),
	                 Z_OK);
	buf_init(&out);
	ck_assert_int_eq(gzip_decompress(z, zlen, 0, &out, err, sizeof(err)),
	                 STATUS_MALFORMED);
	ck_assert_str_eq(err, "zlib (RFC 1950) data, not gzip (RFC 1952): "
	                      "starts with 78 9c, not 1f 8b");
	ck_assert(!gzip_is(z, zlen));
	buf_fini(&out);
}
END_TEST

START_TEST(gunzip_bomb_stops_at_limit)
{
	enum { BIG = 16 << 20, LIMIT = 1 << 20 };
	unsigned char *zeros = mem_calloc(1, 1 << 20);
	struct buf z, out;
	struct out *mem, *gz;
	char err[256];

	/* 16 MiB of zeros: about 16 KiB of gzip */
	ck_assert_ptr_nonnull(zeros);
	buf_init(&z);
	ck_assert_int_eq(out_mem_new(&z, &mem), STATUS_OK);
	ck_assert_int_eq(out_gzip_new(9, mem, &gz), STATUS_OK);
	for (int i = 0; i < BIG >> 20; i++)
		ck_assert_int_eq(out_write(gz, zeros, 1 << 20), STATUS_OK);
	ck_assert_int_eq(out_finish(gz), STATUS_OK);
	out_free(gz);
	mem_free(zeros);
	ck_assert_uint_lt(z.len, 32 * 1024);

	buf_init(&out);
	ck_assert_int_eq(
	    gzip_decompress(z.data, z.len, LIMIT, &out, err, sizeof(err)),
	    STATUS_TOO_LARGE);
	ck_assert_str_eq(err, "decompressed data passes the limit of 1048576 "
	                      "bytes");
	ck_assert_uint_le(out.len, LIMIT + 1);
	ck_assert_uint_le(out.cap, 2 * (LIMIT + 65536));
	buf_fini(&out);

	/* exactly at the limit is fine, one byte under is not */
	buf_reset(&z);
	gz_str("0123456789", &z);
	ck_assert_int_eq(gzip_decompress(z.data, z.len, 10, &out, NULL, 0),
	                 STATUS_OK);
	ck_assert_str_eq(buf_cstr(&out), "0123456789");
	buf_reset(&out);
	ck_assert_int_eq(gzip_decompress(z.data, z.len, 9, &out, NULL, 0),
	                 STATUS_TOO_LARGE);
	ck_assert_uint_le(out.len, 10);
	/* the buffer's own limit counts as too large too */
	buf_fini(&out);
	out.limit = 5;
	ck_assert_int_eq(
	    gzip_decompress(z.data, z.len, 0, &out, err, sizeof(err)),
	    STATUS_TOO_LARGE);
	ck_assert_ptr_nonnull(strstr(err, "limit of 5 bytes"));
	buf_fini(&out);
	buf_fini(&z);
}
END_TEST

START_TEST(gunzip_random_input_never_crashes)
{
	unsigned char junk[512];
	struct buf z, out;
	char err[256];

	buf_init(&z);
	buf_init(&out);
	gz_str("a valid stream whose body gets overwritten with noise", &z);
	for (uint64_t seed = 1; seed <= 200; seed++) {
		size_t n = 12 + seed % 40;
		fill_random(junk, sizeof(junk), seed);
		memcpy(junk, z.data, 10); /* a valid header */
		buf_reset(&out);
		err[0] = '\0';
		enum status st =
		    gzip_decompress(junk, n, 4096, &out, err, sizeof(err));
		ck_assert_msg(st == STATUS_MALFORMED || st == STATUS_TOO_LARGE,
		              "seed %llu: %s", (unsigned long long)seed,
		              status_name(st));
		ck_assert(err[0] != '\0');
	}
	buf_fini(&z);
	buf_fini(&out);
}
END_TEST

struct gz_torture {
	const char *text;
};

static enum status torture_chain(void *ctx)
{
	const struct gz_torture *t = ctx;
	struct buf z, back;
	struct out *mem, *gz;
	enum status st;

	buf_init(&z);
	buf_init(&back);
	st = out_mem_new(&z, &mem);
	if (st != STATUS_OK)
		return st;
	st = out_gzip_new(6, mem, &gz);
	if (st != STATUS_OK) {
		out_free(mem);
		return st;
	}
	st = out_write(gz, t->text, strlen(t->text));
	if (st == STATUS_OK)
		st = out_write(gz, t->text, strlen(t->text));
	if (st == STATUS_OK)
		st = out_finish(gz);
	/* the filter's own buffers fail as the sink's do */
	if (st != STATUS_OK)
		ck_assert_msg(strcmp(out_error(gz),
		                     "memory buffer: out of memory") == 0 ||
		                  strcmp(out_error(gz), "out of memory") == 0,
		              "%s", out_error(gz));
	out_free(gz);
	mem_fail_at(0); /* the checks below are not under test */
	if (st == STATUS_OK) {
		zlib_gunzip(z.data, z.len, &back);
		ck_assert_uint_eq(back.len, 2 * strlen(t->text));
	}
	buf_fini(&z);
	buf_fini(&back);
	return st;
}

static enum status torture_gunzip(void *ctx)
{
	const struct buf *z = ctx;
	struct buf out;
	enum status st;

	buf_init(&out);
	st = gzip_decompress(z->data, z->len, 0, &out, NULL, 0);
	if (st == STATUS_OK)
		ck_assert_str_eq(buf_cstr(&out), "torture me, torture me");
	buf_fini(&out);
	return st;
}

START_TEST(gzip_torture)
{
	struct gz_torture t = { "torture me, " };
	struct buf z;

	ck_assert_uint_gt(tu_torture(torture_chain, &t), 3);
	buf_init(&z);
	gz_str("torture me, ", &z);
	gz_str("torture me", &z);
	/* one allocation a member: the room it is decompressed into */
	ck_assert_uint_gt(tu_torture(torture_gunzip, &z), 0);
	buf_fini(&z);
}
END_TEST

Suite *suite_gzip(void);
Suite *suite_gzip(void)
{
	Suite *s = suite_create("gzip");
	TCase *tc = tcase_create("gzip");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, gzip_round_trips);
	tcase_add_test(tc, gzip_levels);
	tcase_add_test(tc, gzip_bad_level);
	tcase_add_test(tc, gunzip_multi_member);
	tcase_add_test(tc, gunzip_grows_past_a_small_hint);
	tcase_add_test(tc, gunzip_every_prefix_is_truncated);
	tcase_add_test(tc, gunzip_corrupt_and_junk);
	tcase_add_test(tc, gunzip_rejects_zlib_wrapper);
	tcase_add_test(tc, gunzip_bomb_stops_at_limit);
	tcase_add_test(tc, gunzip_random_input_never_crashes);
	tcase_add_test(tc, gzip_torture);
	suite_add_tcase(s, tc);
	return s;
}
