/* The bounded little-endian cursor: exact values, every short read at every
 * offset, counts that cannot fit, sticky errors with offsets, the writer. */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "adapters/wire.h"
#include "model/buf.h"

static const unsigned char sample[] = {
	0x7f,                                           /* u8 */
	0x34, 0x12,                                     /* u16 */
	0x78, 0x56, 0x34, 0x12,                         /* u32 */
	0xef, 0xcd, 0xab, 0x89, 0x67, 0x45, 0x23, 0x01, /* u64 */
	'a',  'b',  'c',                                /* bytes */
};

START_TEST(wire_reads_values)
{
	struct wire w;
	uint8_t a;
	uint16_t b;
	uint32_t c;
	uint64_t d;
	const unsigned char *s;

	wire_init(&w, sample, sizeof(sample));
	ck_assert_int_eq(wire_u8(&w, "a", &a), STATUS_OK);
	ck_assert_int_eq(wire_u16(&w, "b", &b), STATUS_OK);
	ck_assert_int_eq(wire_u32(&w, "c", &c), STATUS_OK);
	ck_assert_int_eq(wire_u64(&w, "d", &d), STATUS_OK);
	ck_assert_int_eq(wire_bytes(&w, "s", 3, &s), STATUS_OK);
	ck_assert_uint_eq(a, 0x7f);
	ck_assert_uint_eq(b, 0x1234);
	ck_assert_uint_eq(c, 0x12345678u);
	ck_assert_uint_eq(d, 0x0123456789abcdefull);
	ck_assert_int_eq(memcmp(s, "abc", 3), 0);
	ck_assert_uint_eq(wire_left(&w), 0);
	ck_assert_int_eq(wire_end(&w, "the frame"), STATUS_OK);
	ck_assert_str_eq(w.err, "");
}
END_TEST

/* Reading the same layout from every prefix fails exactly at the field
 * that no longer fits, naming it and its offset, and never moves past. */
START_TEST(wire_truncated_every_offset)
{
	static const size_t field_at[] = { 0, 1, 3, 7, 15 };
	static const size_t sizes[] = { 1, 2, 4, 8, 3 };
	static const char *const names[] = { "a", "b", "c", "d", "s" };
	size_t cut;

	for (cut = 0; cut < sizeof(sample); cut++) {
		struct wire w;
		uint8_t a;
		uint16_t b;
		uint32_t c;
		uint64_t d;
		const unsigned char *s = sample;
		char want[200];
		size_t f = 0;

		wire_init(&w, sample, cut);
		(void)wire_u8(&w, "a", &a);
		(void)wire_u16(&w, "b", &b);
		(void)wire_u32(&w, "c", &c);
		(void)wire_u64(&w, "d", &d);
		(void)wire_bytes(&w, "s", 3, &s);
		ck_assert_int_eq(wire_status(&w), STATUS_MALFORMED);
		while (field_at[f] + sizes[f] <= cut)
			f++; /* the first field that did not fit */
		ck_assert_ptr_null(s);
		ck_assert_uint_le(w.off, cut);
		ck_assert_uint_eq(w.off, field_at[f]);
		snprintf(want, sizeof(want),
		         "truncated: %s needs %zu bytes, %zu remain at offset "
		         "%zu",
		         names[f], sizes[f], cut - field_at[f], field_at[f]);
		ck_assert_str_eq(w.err, want);
	}
}
END_TEST

START_TEST(wire_sticky_zeroes)
{
	struct wire w;
	uint32_t c = 99;
	uint8_t a = 99;

	wire_init(&w, sample, 2);
	ck_assert_int_eq(wire_u32(&w, "the length", &c), STATUS_MALFORMED);
	ck_assert_uint_eq(c, 0);
	/* later reads that would fit still fail, and keep the first text */
	ck_assert_int_eq(wire_u8(&w, "x", &a), STATUS_MALFORMED);
	ck_assert_uint_eq(a, 0);
	ck_assert_uint_eq(w.off, 0);
	ck_assert_str_eq(w.err, "truncated: the length needs 4 bytes, 2 "
	                        "remain at offset 0");
	ck_assert_int_eq(wire_fail(&w, 5, "other"), STATUS_MALFORMED);
	ck_assert_str_eq(w.err, "truncated: the length needs 4 bytes, 2 "
	                        "remain at offset 0");
}
END_TEST

START_TEST(wire_huge_lengths)
{
	struct wire w;
	const unsigned char *s = sample;

	wire_init(&w, sample, sizeof(sample));
	ck_assert_int_eq(wire_skip(&w, "x", 15), STATUS_OK);
	ck_assert_int_eq(wire_bytes(&w, "the name", UINT64_MAX, &s),
	                 STATUS_MALFORMED);
	ck_assert_ptr_null(s);
	ck_assert_str_eq(w.err, "truncated: the name needs "
	                        "18446744073709551615 bytes, 3 remain at "
	                        "offset 15");
	ck_assert_uint_eq(w.off, 15);
}
END_TEST

START_TEST(wire_counts)
{
	struct wire w;

	wire_init(&w, sample, sizeof(sample)); /* 18 bytes */
	ck_assert_int_eq(wire_count(&w, "n", 2, 9), STATUS_OK);
	ck_assert_int_eq(wire_count(&w, "n", 0, 1000), STATUS_OK);
	ck_assert_int_eq(wire_count(&w, "n", UINT64_MAX, 0), STATUS_OK);
	ck_assert_int_eq(wire_count(&w, "the task count", 3, 9),
	                 STATUS_MALFORMED);
	ck_assert_str_eq(w.err, "the task count 3 (at least 9 bytes each) "
	                        "exceeds the 18 bytes left at offset 0");
	/* a count whose product would overflow */
	wire_init(&w, sample, sizeof(sample));
	ck_assert_int_eq(wire_count(&w, "n", UINT64_MAX / 2 + 1, 4),
	                 STATUS_MALFORMED);
	wire_init(&w, NULL, 0);
	ck_assert_int_eq(wire_count(&w, "n", 1, 1), STATUS_MALFORMED);
}
END_TEST

START_TEST(wire_end_and_fail)
{
	struct wire w;
	uint8_t a;

	wire_init(&w, sample, sizeof(sample));
	ck_assert_int_eq(wire_u8(&w, "a", &a), STATUS_OK);
	ck_assert_int_eq(wire_end(&w, "the reply"), STATUS_MALFORMED);
	ck_assert_str_eq(w.err, "17 unexpected bytes after the reply at "
	                        "offset 1");
	wire_init(&w, sample, sizeof(sample));
	ck_assert_int_eq(wire_fail(&w, SIZE_MAX, "bad kind %u", 7u),
	                 STATUS_MALFORMED);
	ck_assert_str_eq(w.err, "bad kind 7 at offset 0");
	wire_init(&w, sample, sizeof(sample));
	ck_assert_int_eq(wire_fail(&w, 12, "string id %u out of range", 9u),
	                 STATUS_MALFORMED);
	ck_assert_str_eq(w.err, "string id 9 out of range at offset 12");
}
END_TEST

START_TEST(wire_writer_roundtrip)
{
	struct buf b;
	struct wire w;
	uint8_t a;
	uint16_t x;
	uint32_t c;
	uint64_t d;

	buf_init(&b);
	ck_assert_int_eq(wire_put_u8(&b, 0x7f), STATUS_OK);
	ck_assert_int_eq(wire_put_u16(&b, 0x1234), STATUS_OK);
	ck_assert_int_eq(wire_put_u32(&b, 0x12345678u), STATUS_OK);
	ck_assert_int_eq(wire_put_u64(&b, 0x0123456789abcdefull), STATUS_OK);
	ck_assert_uint_eq(b.len, 15);
	ck_assert_int_eq(memcmp(b.data, sample, 15), 0);
	wire_init(&w, b.data, b.len);
	ck_assert_int_eq(wire_u8(&w, "a", &a), STATUS_OK);
	ck_assert_int_eq(wire_u16(&w, "x", &x), STATUS_OK);
	ck_assert_int_eq(wire_u32(&w, "c", &c), STATUS_OK);
	ck_assert_int_eq(wire_u64(&w, "d", &d), STATUS_OK);
	ck_assert_uint_eq(d, 0x0123456789abcdefull);
	ck_assert_uint_eq(wire_le16(sample + 1), 0x1234);
	ck_assert_uint_eq(wire_le32(sample + 3), 0x12345678u);
	ck_assert_uint_eq(wire_le64(sample + 7), 0x0123456789abcdefull);
	buf_fini(&b);
}
END_TEST

Suite *suite_wire(void);
Suite *suite_wire(void)
{
	Suite *s = suite_create("wire");
	TCase *t = tcase_create("core");

	tcase_add_test(t, wire_reads_values);
	tcase_add_test(t, wire_truncated_every_offset);
	tcase_add_test(t, wire_sticky_zeroes);
	tcase_add_test(t, wire_huge_lengths);
	tcase_add_test(t, wire_counts);
	tcase_add_test(t, wire_end_and_fail);
	tcase_add_test(t, wire_writer_roundtrip);
	suite_add_tcase(s, t);
	return s;
}
