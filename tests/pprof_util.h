/* Helpers shared by the pprof writer and reader tests: a small window
 * built in a model, encoding it, and a sink that records what a decode
 * delivers as text. */
#ifndef ASYNCTOP_TESTS_PPROF_UTIL_H
#define ASYNCTOP_TESTS_PPROF_UTIL_H

#include <stddef.h>
#include <stdint.h>

#include "encode/pprof.h"
#include "encode/profile.pb-c.h"
#include "model/buf.h"
#include "model/model.h"

/* One input sample: frames root first; values in metric order (idle, busy,
 * scheduled, polls, wakes). */
struct pt_sample {
	const char *frames[6];
	size_t depth;
	const char *task;
	uint64_t v[METRIC_COUNT];
	uint64_t tasks;
};

/* Five samples over four stacks, two of them with the same stack. */
extern const struct pt_sample pt_small[5];
/* The comments pt_make_model gives its window. */
extern const char *const pt_small_comments[2];
/* What the recording sink logs for pt_small's window. */
extern const char pt_small_log[];

/* Clears meta and sets the fixed start, a 5 s length and the n comments
 * (borrowed). */
void pt_set_meta(struct window_meta *meta, const char *const *comments,
                 size_t n);
/* Adds in to m's open window (fails the test unless model_add succeeds). */
void pt_add_in(struct model *m, const struct pt_sample *in);
/* A new model holding one window (*w) of the n samples, added in order
 * perm (NULL: as given), with pt_small_comments; the caller frees it. */
struct model *pt_make_model(const struct pt_sample *in, size_t n,
                            const size_t *perm, const struct window **w);
/* A new model holding one window (*w) whose tasks have parked-at stacks
 * and optional figures: two share a spawn stack, a name and the leaf of
 * their parked-at stacks (one output sample), one is not parked; meta as
 * pt_set_meta with one comment.  The caller frees it. */
struct model *pt_parked_model(const struct window **w);
/* Encodes w into b (initialised here); fails the test unless it succeeds
 * with some bytes. */
void pt_encode_ok(const struct model *m, const struct window *w,
                  const struct pprof_opts *o, struct buf *b);
/* protobuf-c's view of b (free with ..._free_unpacked); fails the test on
 * bytes it cannot read. */
Perftools__Profiles__Profile *pt_unpack(const struct buf *b);

/* A sink logging "stack | task | tasks | values" per sample and "meta ..."
 * per window, returning stop_st at the stop_at-th sample (0: never). */
struct pt_rec {
	struct buf log;
	int n, nmeta;
	int stop_at;
	enum status stop_st;
};

/* Resets r (its log initialised; the caller frees it) and returns a sink
 * into it. */
struct sample_sink pt_rec_sink(struct pt_rec *r);
/* Decodes data into r (see pt_rec_sink) and asserts the status; on failure
 * also that the sink saw nothing and err gives a one-line reason, which
 * contains errpart unless NULL. */
void pt_decode_expect(const void *data, size_t len,
                      const struct load_limits *lim, enum status want,
                      const char *errpart, struct pt_rec *r);

#endif
