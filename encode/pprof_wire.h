/* Internal to the pprof reader: its own decoder of Profile.sample, the one
 * field that holds most of a profile.  protobuf-c would unpack each of
 * 100,000 samples and its labels into structures of their own, scattered
 * over the arena; this reads them from the wire into a few flat arrays and
 * hands protobuf-c the rest of the message. */
#ifndef ASYNCTOP_ENCODE_PPROF_WIRE_H
#define ASYNCTOP_ENCODE_PPROF_WIRE_H

#include <stddef.h>
#include <stdint.h>

#include "model/base.h"
#include "model/buf.h"
#include "model/status.h"

/* One Label as on the wire: string indices and a number, 0 when absent. */
struct pb_label {
	int64_t key, str, num, num_unit;
};

/* Every sample: sample i's location ids are loc[loc_at[i]] up to
 * loc[loc_at[i + 1]], and likewise its values and labels. */
struct pb_samples {
	size_t n;    /* decoded */
	size_t seen; /* in the message: more than n past the limit */
	size_t *loc_at, *val_at, *lab_at; /* n + 1 each */
	uint64_t *loc;
	uint64_t *val; /* int64 values as on the wire: cast to read */
	struct pb_label *lab;
	size_t cap_loc_at, cap_val_at, cap_lab_at, cap_loc, cap_val, cap_lab;
};

/* Splits the Profile message data: each sample (field 2) is decoded into s
 * (zeroed first), and every other field is appended to rest as it stands,
 * in order, for protobuf-c.  Past max_samples samples (0: no bound) the
 * others are only counted, in s->seen, so a file of many tiny samples
 * costs no memory before it is refused.  Repeated numbers may be packed or not,
 * fields come in any order, unknown fields are skipped, a field given twice in
 * a Label keeps the last value, as protobuf decoders do.  STATUS_MALFORMED for
 * bytes that are not a protobuf message (a varint over 10 bytes, a length past
 * the end, a wire type that is not 0, 1, 2 or 5, or not the one a known field
 * has); STATUS_NOMEM.  s must be freed with pb_samples_fini whatever the
 * result. */
enum status pb_split_samples(const uint8_t *data, size_t len,
                             size_t max_samples, struct buf *rest,
                             struct pb_samples *s) MUST_CHECK;

void pb_samples_fini(struct pb_samples *s);

#endif
