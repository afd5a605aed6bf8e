/* Internal to adapters/: an owned copy of a window's samples (spawn and
 * parked-at stacks, names, the five values and the optional figures), the
 * payload that crosses from a worker thread to the main thread.  Bounded:
 * past BATCH_MAX_SAMPLES samples, BATCH_MAX_BYTES of strings or
 * BATCH_MAX_FRAMES frames (spawn and parked-at ones together), samples are
 * dropped and counted. */
#ifndef ASYNCTOP_ADAPTERS_BATCH_H
#define ASYNCTOP_ADAPTERS_BATCH_H

#include <stddef.h>
#include <stdint.h>

#include "model/base.h"
#include "model/metric.h"
#include "model/sample.h"
#include "model/status.h"

#define BATCH_MAX_SAMPLES ((size_t)4 << 20)
#define BATCH_MAX_BYTES   ((size_t)256 << 20)
#define BATCH_MAX_FRAMES  ((size_t)16 << 20)

struct batch_str {
	uint32_t off, len; /* into bytes */
};

struct batch_rec {
	uint32_t first, depth; /* frames[first .. first + depth) */
	struct batch_str task;
	uint64_t tasks;
	struct metrics m;
	uint32_t pfirst, pdepth; /* the parked-at stack, as first, depth */
	struct extras x;
	/* frames the producer left out, root side: of the spawn stack, of the
	 * parked-at stack (the sample's dropped, parked_dropped) */
	size_t dropped, pdropped;
};

struct batch {
	char *bytes;
	size_t nbytes, capbytes;
	struct batch_str *frames;
	size_t nframes, capframes;
	struct batch_rec *recs;
	size_t n, cap;
	size_t max_depth; /* deepest stack, for batch_feed's scratch */
	uint64_t dropped; /* samples lost to the caps or to memory */
};

/* An empty batch; no allocation. */
void batch_init(struct batch *b);
/* Frees everything and leaves b empty. */
void batch_fini(struct batch *b);
/* Forgets the samples (and the dropped count); keeps the memory. */
void batch_clear(struct batch *b);

/* Copies s (borrowed) into b.  STATUS_OK; STATUS_LIMIT past a cap,
 * STATUS_INVAL for frames (or parked) NULL with a nonzero depth, and
 * STATUS_NOMEM, each leaving b as it was but for dropped + 1. */
enum status batch_add(struct batch *b, const struct sample *s) MUST_CHECK;

/* Makes dst (initialised, emptied first) an exact copy of src.
 * STATUS_NOMEM leaves dst empty. */
enum status batch_copy(struct batch *dst, const struct batch *src) MUST_CHECK;

/* Moves src's contents into dst (dst's are freed); src is left empty. */
void batch_move(struct batch *dst, struct batch *src);

/* Feeds every sample, in order, to sink->sample (views into b, valid during
 * each call).  Stops at the first status other than OK or LIMIT and
 * returns it; STATUS_NOMEM for the scratch array of frames. */
enum status batch_feed(const struct batch *b,
                       const struct sample_sink *sink) MUST_CHECK;

/* batch_feed in slices: feeds from sample *next on, advancing *next past
 * each sample fed.  A sink that returns STATUS_AGAIN took its sample and
 * asks to stop there: STATUS_AGAIN is returned while samples remain, and
 * STATUS_OK once all are fed.  Other statuses as batch_feed (*next at the
 * sample that failed). */
enum status batch_feed_from(const struct batch *b, size_t *next,
                            const struct sample_sink *sink) MUST_CHECK;

#endif
