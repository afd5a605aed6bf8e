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

/* What an adapter measured for one task (or, from a saved profile, for
 * several tasks folded together).  Everything is borrowed for the duration
 * of the call that receives it; the receiver copies what it keeps. */
struct sample {
	const struct strview *frames; /* spawn stack, ROOT FIRST */
	size_t depth;                 /* number of frames; 0 = no stack */
	struct strview task;          /* task name; empty = <unnamed> */
	struct metrics m;             /* the five values */
	uint64_t tasks;               /* tasks folded in; 0 is read as 1 */
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

/* Bounds a reader of saved profiles enforces (decisions §5). */
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
