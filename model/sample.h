/* The contract's unit of data: one task's figures over one window, and the
 * sink through which producers (adapters, file readers) hand samples over. */
#ifndef ASYNCTOP_MODEL_SAMPLE_H
#define ASYNCTOP_MODEL_SAMPLE_H

#include <stddef.h>
#include <stdint.h>

#include "model/metric.h"
#include "model/status.h"
#include "model/strview.h"

struct window_meta;

/* Figures some runtimes can tell beside the five, each optional: a sample
 * says which it knows, so "unknown" stays distinct from zero.  How several
 * tasks fold into one row: X(NAME, name, unit, fold), fold being SUM (the
 * row's total) or MAX (the row's largest). */
#define EXTRA_LIST(X)                                       \
	X(SELF_WAKES, "self_wakes", "count", SUM)           \
	X(MAX_POLL, "max_poll", "nanoseconds", MAX)         \
	X(WAKERS, "wakers", "count", SUM)                   \
	X(POLL_NOW, "poll_in_progress", "nanoseconds", MAX) \
	X(NO_WAKER, "no_waker", "count", SUM)

/* self_wakes:  wakes the task gave itself (yields, self-rescheduling);
 * max_poll:    the longest single poll or step in the window;
 * wakers:      wakers held at the window's end (clones minus drops);
 * poll_in_progress: how long a poll still running at the window's end
 *              has run (a task stuck inside one step);
 * no_waker:    1 when the task is parked where nothing can wake it (a lost
 *              waker: awaiting a future nobody else references). */
enum extra {
#define EXTRA_ENUM(id, name, unit, fold) EXTRA_##id,
	EXTRA_LIST(EXTRA_ENUM)
#undef EXTRA_ENUM
	    EXTRA_COUNT
};

struct extras {
	uint64_t v[EXTRA_COUNT];
	uint32_t known; /* bit (1u << EXTRA_x) set when v[EXTRA_x] is known */
};

/* What an adapter measured for one task (or, from a saved profile, for
 * several tasks folded together).  Everything is borrowed for the duration
 * of the call that receives it; the receiver copies what it keeps.  Build
 * it with designated initializers: fields are added at the end. */
struct sample {
	const struct strview *frames; /* spawn stack, ROOT FIRST */
	size_t depth;                 /* number of frames; 0 = no stack */
	struct strview task;          /* task name; empty = <unnamed> */
	struct metrics m;             /* the five values */
	uint64_t tasks;               /* tasks folded in; 0 is read as 1 */
	/* Where the task is parked at the window's end, when the runtime can
	 * tell: ROOT FIRST as the spawn stack is (the task's own coroutine
	 * first, the innermost suspension point, then what it awaits, last).
	 * parked_depth 0: unknown (a task that is running, or a runtime that
	 * cannot tell). */
	const struct strview *parked;
	size_t parked_depth;
	struct extras x; /* optional figures; x.known 0: none */
	/* Frames the producer already left out on the root side of frames
	 * (of parked): the model's [truncated N frames] counts them too. */
	size_t dropped;
	size_t parked_dropped;
};

/* Where samples go.  sample() is called once per sample; meta(), when set,
 * once after the last sample with the window's metadata (borrowed).  A
 * status other than STATUS_OK (or STATUS_LIMIT, which means "counted in the
 * overflow bucket") stops the producer, which returns it. */
struct sample_sink {
	enum status (*sample)(void *ctx, const struct sample *s);
	enum status (*meta)(void *ctx, const struct window_meta *meta);
	void *ctx;
};

/* Bounds a reader of saved profiles enforces (docs/design.md §6). */
struct load_limits {
	size_t max_bytes;   /* decompressed size; default 256 MiB */
	size_t max_samples; /* default 1 M */
};

#define LOAD_MAX_BYTES_DEFAULT   ((size_t)256 << 20)
#define LOAD_MAX_SAMPLES_DEFAULT ((size_t)1 << 20)

/* Loads one saved profile from path and feeds it to sink: every sample,
 * then the metadata.  Nothing reaches the sink unless the whole file was
 * read and validated first, so a bad file delivers nothing.  On failure a
 * one-line reason (without the path) goes to err.  Blocks on file I/O.
 * Declared here so that encode/ can implement it and adapters/ call it
 * without knowing each other. */
typedef enum status (*profile_loader_fn)(const char *path,
                                         const struct load_limits *lim,
                                         const struct sample_sink *sink,
                                         char *err, size_t errsz);

#endif
