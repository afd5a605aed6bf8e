/* The pprof reader's own decoder of samples (encode/pprof_wire.c): every
 * form the protobuf wire format allows reads as protobuf-c's packed form
 * does, and every malformed sample is refused as a whole. */
#include <check.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "encode/pprof.h"
#include "encode/profile.pb-c.h"
#include "model/alloc.h"
#include "model/buf.h"
#include "model/model.h"
#include "tests/pprof_util.h"
#include "tests/util.h"

static void put_varint(struct buf *b, uint64_t v)
{
	do {
		unsigned char c = (unsigned char)(v & 0x7f);
		v >>= 7;
		if (v)
			c |= 0x80;
		ck_assert_int_eq(buf_add(b, &c, 1), STATUS_OK);
	} while (v);
}

static void put_tag(struct buf *b, uint64_t field, unsigned wt)
{
	put_varint(b, field << 3 | wt);
}

/* A length-delimited field holding the bytes of in. */
static void put_sub(struct buf *b, uint64_t field, const struct buf *in)
{
	put_tag(b, field, 2);
	put_varint(b, in->len);
	ck_assert_int_eq(buf_add(b, in->data, in->len), STATUS_OK);
}

/* Label l the odd way: its key first given wrong, an unknown field of
 * each wire type, then every field. */
static void put_label(struct buf *b, const Perftools__Profiles__Label *l)
{
	struct buf m;

	buf_init(&m);
	put_tag(&m, 1, 0);
	put_varint(&m, 9999); /* overwritten below: the last value wins */
	put_tag(&m, 7, 0);
	put_varint(&m, 1);
	put_tag(&m, 8, 1);
	ck_assert_int_eq(buf_add(&m, "12345678", 8), STATUS_OK);
	put_tag(&m, 9, 5);
	ck_assert_int_eq(buf_add(&m, "1234", 4), STATUS_OK);
	put_tag(&m, 1, 0);
	put_varint(&m, (uint64_t)l->key);
	put_tag(&m, 2, 0);
	put_varint(&m, (uint64_t)l->str);
	put_tag(&m, 3, 0);
	put_varint(&m, (uint64_t)l->num);
	put_tag(&m, 4, 0);
	put_varint(&m, (uint64_t)l->num_unit);
	put_sub(b, 3, &m);
	buf_fini(&m);
}

/* Sample s with its numbers one by one (unpacked) or packed in two runs,
 * its fields interleaved, and an unknown length-delimited field. */
static void put_sample(struct buf *b, const Perftools__Profiles__Sample *s,
                       bool packed)
{
	struct buf m, run;

	buf_init(&m);
	buf_init(&run);
	put_tag(&m, 11, 2);
	put_varint(&m, 3);
	ck_assert_int_eq(buf_add(&m, "abc", 3), STATUS_OK);
	for (size_t j = 0; j < s->n_label; j++)
		put_label(&m, s->label[j]);
	for (size_t j = 0; j < s->n_location_id; j++) {
		if (!packed) {
			put_tag(&m, 1, 0);
			put_varint(&m, s->location_id[j]);
			continue;
		}
		put_varint(&run, s->location_id[j]);
		if (j == 0 || j + 1 == s->n_location_id) {
			put_sub(&m, 1, &run);
			buf_reset(&run);
		}
	}
	for (size_t j = 0; j < s->n_value; j++) {
		if (!packed) {
			put_tag(&m, 2, 0);
			put_varint(&m, (uint64_t)s->value[j]);
			continue;
		}
		put_varint(&run, (uint64_t)s->value[j]);
	}
	if (packed)
		put_sub(&m, 2, &run);
	put_sub(b, 2, &m);
	buf_fini(&m);
	buf_fini(&run);
}

/* The small window's profile as protobuf-c packs it (into whole), and its
 * other fields alone (into rest): the caller frees both and the message. */
static Perftools__Profiles__Profile *small_profile(struct buf *whole,
                                                   struct buf *rest)
{
	const struct window *w;
	struct model *m =
	    pt_make_model(pt_small, ARRAY_SIZE(pt_small), NULL, &w);
	Perftools__Profiles__Profile *p;
	size_t n;

	pt_encode_ok(m, w, NULL, whole);
	model_free(m);
	p = pt_unpack(whole);
	n = p->n_sample;
	p->n_sample = 0;
	buf_init(rest);
	ck_assert_int_eq(
	    buf_reserve(rest, perftools__profiles__profile__get_packed_size(p)),
	    STATUS_OK);
	rest->len =
	    perftools__profiles__profile__pack(p, (uint8_t *)rest->data);
	p->n_sample = n;
	return p;
}

START_TEST(wire_forms_read_alike)
{
	struct buf whole, rest, odd;
	Perftools__Profiles__Profile *p = small_profile(&whole, &rest);
	struct pt_rec r;

	for (int packed = 0; packed < 2; packed++) {
		/* the first sample before the other fields, the rest after:
		 * fields may come in any order */
		buf_init(&odd);
		put_sample(&odd, p->sample[0], packed);
		ck_assert_int_eq(buf_add(&odd, rest.data, rest.len), STATUS_OK);
		for (size_t i = 1; i < p->n_sample; i++)
			put_sample(&odd, p->sample[i], packed);
		pt_decode_expect(odd.data, odd.len, NULL, STATUS_OK, NULL, &r);
		ck_assert_str_eq(buf_cstr(&r.log), pt_small_log);
		buf_fini(&r.log);
		buf_fini(&odd);
	}
	perftools__profiles__profile__free_unpacked(p, NULL);
	buf_fini(&whole);
	buf_fini(&rest);
}
END_TEST

/* Appends to the valid profile one sample field made of the bytes of bad
 * and checks that the whole profile is refused. */
static void refused(const struct buf *whole, const char *bad, size_t n)
{
	struct buf b, m;
	struct pt_rec r;

	buf_init(&b);
	buf_init(&m);
	ck_assert_int_eq(buf_add(&m, bad, n), STATUS_OK);
	ck_assert_int_eq(buf_add(&b, whole->data, whole->len), STATUS_OK);
	put_sub(&b, 2, &m);
	pt_decode_expect(b.data, b.len, NULL, STATUS_MALFORMED,
	                 "not a protobuf Profile message", &r);
	buf_fini(&r.log);
	buf_fini(&b);
	buf_fini(&m);
}

START_TEST(wire_malformed_samples)
{
	struct buf whole, rest, b;
	Perftools__Profiles__Profile *p = small_profile(&whole, &rest);
	struct pt_rec r;

	/* a varint of 11 bytes */
	refused(&whole, "\x08\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01", 12);
	/* a varint cut short, alone and in a packed run */
	refused(&whole, "\x08\xff", 2);
	refused(&whole, "\x0a\x02\x01\xff", 4);
	/* a length past the sample's end */
	refused(&whole, "\x0a\x05\x01", 3);
	refused(&whole, "\x1a\x09\x08\x01", 4);
	/* field 0, a group, wire types 6 and 7 */
	refused(&whole, "\x00\x01", 2);
	refused(&whole, "\x23\x24", 2);
	refused(&whole, "\x26\x01", 2);
	refused(&whole, "\x27\x01", 2);
	/* known fields with the wrong wire type */
	refused(&whole, "\x09\x01\x02\x03\x04\x05\x06\x07\x08", 9);
	refused(&whole, "\x15\x01\x02\x03\x04", 5);
	refused(&whole, "\x18\x01", 2);
	refused(&whole, "\x1a\x02\x09\x01", 4);
	refused(&whole, "\x1a\x02\x12\x00", 4);
	/* fixed-size unknown fields cut short */
	refused(&whole, "\x21\x01\x02", 3);
	refused(&whole, "\x25\x01", 2);
	/* a tag over 32 bits */
	refused(&whole, "\x80\x80\x80\x80\x80\x01\x00", 7);
	/* the sample field itself with the wrong wire type, or cut short */
	buf_init(&b);
	ck_assert_int_eq(buf_add(&b, whole.data, whole.len), STATUS_OK);
	ck_assert_int_eq(buf_add(&b, "\x10\x01", 2), STATUS_OK);
	pt_decode_expect(b.data, b.len, NULL, STATUS_MALFORMED,
	                 "not a protobuf Profile message", &r);
	buf_fini(&r.log);
	b.len = whole.len;
	ck_assert_int_eq(buf_add(&b, "\x12\x05\x08", 3), STATUS_OK);
	pt_decode_expect(b.data, b.len, NULL, STATUS_MALFORMED,
	                 "not a protobuf Profile message", &r);
	buf_fini(&r.log);
	/* an empty sample is well formed: then refused for its values */
	b.len = whole.len;
	ck_assert_int_eq(buf_add(&b, "\x12\x00", 2), STATUS_OK);
	pt_decode_expect(b.data, b.len, NULL, STATUS_MALFORMED,
	                 "has 0 values for 5 types", &r);
	buf_fini(&r.log);
	buf_fini(&b);
	perftools__profiles__profile__free_unpacked(p, NULL);
	buf_fini(&whole);
	buf_fini(&rest);
}
END_TEST

/* Samples past the limit are counted, not decoded: the message names how
 * many there were. */
START_TEST(wire_counts_samples_past_the_limit)
{
	struct load_limits lim = { 0, 10 };
	struct buf whole, rest, b;
	Perftools__Profiles__Profile *p = small_profile(&whole, &rest);
	struct pt_rec r;

	buf_init(&b);
	ck_assert_int_eq(buf_add(&b, whole.data, whole.len), STATUS_OK);
	for (int i = 0; i < 1000; i++)
		ck_assert_int_eq(buf_add(&b, "\x12\x00", 2), STATUS_OK);
	pt_decode_expect(b.data, b.len, &lim, STATUS_TOO_LARGE,
	                 "1005 samples, over the limit of 10", &r);
	buf_fini(&r.log);
	lim.max_samples = 5;
	pt_decode_expect(whole.data, whole.len, &lim, STATUS_OK, NULL, &r);
	ck_assert_str_eq(buf_cstr(&r.log), pt_small_log);
	buf_fini(&r.log);
	buf_fini(&b);
	perftools__profiles__profile__free_unpacked(p, NULL);
	buf_fini(&whole);
	buf_fini(&rest);
}
END_TEST

static enum status torture_wire(void *ctx)
{
	const struct buf *in = ctx;
	struct pt_rec r;
	struct sample_sink k = pt_rec_sink(&r);
	enum status st = pprof_decode(in->data, in->len, NULL, &k, NULL, 0);

	mem_fail_at(0); /* the checks below are not under test */
	if (st == STATUS_OK)
		ck_assert_str_eq(buf_cstr(&r.log), pt_small_log);
	buf_fini(&r.log);
	return st;
}

START_TEST(wire_torture)
{
	struct buf whole, rest, odd;
	Perftools__Profiles__Profile *p = small_profile(&whole, &rest);

	buf_init(&odd);
	ck_assert_int_eq(buf_add(&odd, rest.data, rest.len), STATUS_OK);
	for (size_t i = 0; i < p->n_sample; i++)
		put_sample(&odd, p->sample[i], i % 2);
	ck_assert_uint_gt(tu_torture(torture_wire, &odd), 5);
	perftools__profiles__profile__free_unpacked(p, NULL);
	buf_fini(&odd);
	buf_fini(&whole);
	buf_fini(&rest);
}
END_TEST

Suite *suite_pprof_wire(void);
Suite *suite_pprof_wire(void)
{
	Suite *s = suite_create("pprof_wire");
	TCase *tc = tcase_create("pprof_wire");

	tcase_add_test(tc, wire_forms_read_alike);
	tcase_add_test(tc, wire_malformed_samples);
	tcase_add_test(tc, wire_counts_samples_past_the_limit);
	tcase_add_test(tc, wire_torture);
	suite_add_tcase(s, tc);
	return s;
}
