/* Metadata of one window: when it started, how long it measured, where it
 * came from, and whether it is whole. */
#ifndef ASYNCTOP_MODEL_WINDOW_H
#define ASYNCTOP_MODEL_WINDOW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The longest window a source may be asked for (docs/design.md §2). */
#define WINDOW_MAX_NANOS ((uint64_t)60 * 1000000000u)

/* Given to model_commit (borrowed, copied) and kept in each window (then
 * owned by it).  Strings may be NULL. */
struct window_meta {
	int64_t time_nanos;       /* wall-clock start, ns since the epoch */
	int64_t duration_nanos;   /* measured length (replay: as saved) */
	uint64_t requested_nanos; /* what was asked; 0 when not applicable */
	bool clamped;             /* the request was clamped to 60 s */
	bool partial;             /* cut short; reason says why */
	const char *reason;       /* why partial, e.g. "application exited" */
	const char *source; /* e.g. "asyncio pid 4242", "replay x.pb.gz" */
	uint64_t dropped;   /* records the source says it dropped */
	const char *const *comments; /* pprof comments, written verbatim */
	size_t ncomments;
	/* replay: the file was saved grouped by parked-at stack (its samples
	 * name their spawn site in a spawned_at label) */
	bool saved_by_parked;
};

/* Clamps a requested window length to WINDOW_MAX_NANOS; *clamped tells
 * whether it had to (may be NULL). */
static inline uint64_t window_clamp(uint64_t requested, bool *clamped)
{
	bool c = requested > WINDOW_MAX_NANOS;

	if (clamped)
		*clamped = c;
	return c ? WINDOW_MAX_NANOS : requested;
}

#endif
