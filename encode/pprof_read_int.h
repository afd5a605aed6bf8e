/* Internal to the pprof reader: the state that pprof_read_check.c fills
 * while it validates a profile and pprof_read.c then feeds to a sink.  The
 * checks are a file of their own because they are most of the reader and
 * change for other reasons (what a valid profile is) than the feeding does
 * (what a sample sink receives). */
#ifndef ASYNCTOP_ENCODE_PPROF_READ_INT_H
#define ASYNCTOP_ENCODE_PPROF_READ_INT_H

#include <stddef.h>
#include <stdint.h>

#include "encode/pprof_wire.h"
#include "encode/profile.pb-c.h"
#include "model/base.h"
#include "model/metric.h"
#include "model/sample.h"
#include "model/status.h"
#include "model/strview.h"

/* Id -> array index, for mappings, locations and functions.  (Not the
 * encoder's idmap of pprof_int.h, which maps model ids to strings.) */
struct rd_idpair {
	uint64_t id;
	uint32_t idx;
};

struct rd_idmap {
	struct rd_idpair *v; /* sorted by id; NULL when the ids are dense */
	size_t n;
};

/* The reader's state between validation and feeding. */
struct rd {
	const Perftools__Profiles__Profile *p; /* all but the samples */
	struct pb_samples s;                   /* the samples */
	char *err;
	size_t errsz;
	size_t ntypes;
	size_t type_of[METRIC_COUNT]; /* sample_type index of each metric */
	unsigned char *kind;          /* per string: KIND_* */
	struct rd_idmap maps, locs, funcs;
	/* The frames of every location, resolved once: location i's are
	 * lframe[lstart[i]] to lframe[lstart[i + 1]], root side first. */
	struct strview *lframe;
	size_t *lstart;
	uint32_t *sloc;   /* per location id of every sample: its index */
	size_t maxdepth;  /* most frames in one sample */
	int64_t *task;    /* per sample: string of its task label, or 0 */
	uint64_t *ntasks; /* per sample: its tasks label, or 1 */
	char **comments;
};

/* What a label key names; a figure's kind is KIND_EXTRA + its enum. */
enum {
	KIND_OTHER,
	KIND_TASK,
	KIND_TASKS,
	KIND_PARKED_AT,  /* the sample's stack is its spawn stack */
	KIND_SPAWNED_AT, /* the sample's stack is its parked-at stack */
	KIND_EXTRA
};

/* The text of string i of the table (a view into the unpacked message). */
static inline struct strview rd_str_at(const struct rd *r, int64_t i)
{
	const ProtobufCBinaryData *s = &r->p->string_table[i];

	return sv_n((const char *)s->data, s->len);
}

/* Checks all of r->p and r->s (set by the caller, the rest of r zeroed)
 * against lim: string indices, ids, the five sample types, locations and
 * their functions, every sample's values, locations and labels; fills the
 * rest of r for feeding (kind, the id maps, lframe and lstart, sloc,
 * maxdepth, task, ntasks, comments), which the caller frees whatever the
 * result.  STATUS_MALFORMED, STATUS_FOREIGN or STATUS_TOO_LARGE with a
 * reason in r->err; STATUS_NOMEM without one. */
enum status pprof_read_validate(struct rd *r,
                                const struct load_limits *lim) MUST_CHECK;

#endif
