/* pprof profiles (perftools.profiles.Profile, docs/formats.md): the
 * deterministic encoder of one committed window, and the validating reader
 * that replays a saved profile into a sample sink. */
#ifndef ASYNCTOP_ENCODE_PPROF_H
#define ASYNCTOP_ENCODE_PPROF_H

#include <stdbool.h>
#include <stddef.h>

#include "model/base.h"
#include "model/buf.h"
#include "model/metric.h"
#include "model/model.h"
#include "model/sample.h"
#include "model/status.h"

/* The sample types in the order they are written (docs/formats.md): polls,
 * wakes, busy, scheduled, idle.  Idle is last so that readers which ignore
 * default_sample_type still show it. */
#define PPROF_NTYPES 5

/* The metric written at sample-type index i (0 <= i < PPROF_NTYPES). */
enum metric pprof_type_metric(size_t i);

/* Encoder options; a NULL pointer means all false. */
struct pprof_opts {
	/* Write no `task` label: samples of the same stack are merged into
	 * one (values and `tasks` added), which keeps Pyroscope's series
	 * count down. */
	bool omit_task;
};

/* Appends the uncompressed Profile message for window w of model m to out
 * (borrowed; nothing kept).  Deterministic: the bytes depend only on the
 * window's content (strings sanitised to valid UTF-8, merged, sorted), not
 * on ids or arrival order.  Returns STATUS_EMPTY_WINDOW, appending nothing,
 * when no sample with a nonzero value is left; STATUS_NOMEM; a buffer
 * failure (STATUS_LIMIT) through out's sticky error.  Does not block. */
enum status pprof_encode(const struct model *m, const struct window *w,
                         const struct pprof_opts *opts,
                         struct buf *out) MUST_CHECK;

/* Reads a profile from data (gzip, detected by its magic bytes, or raw
 * protobuf), validates all of it, then feeds sink every sample (frames
 * root first, task name from label `task`, count from label `tasks`) and
 * last, when sink->meta is set, the time, duration and comments (borrowed
 * for the call; source NULL).  lim may be NULL for the defaults; a zero
 * bound in it means no bound.
 * Nothing reaches the sink unless the whole profile is valid.  Returns
 * STATUS_MALFORMED (corrupt, truncated or inconsistent), STATUS_FOREIGN (a
 * valid pprof that lacks one of the five asynctop sample types),
 * STATUS_TOO_LARGE (over lim's bytes or samples), STATUS_NOMEM, or the
 * first status of the sink other than STATUS_OK and STATUS_LIMIT.  A
 * one-line reason goes to err (may be NULL when errsz is 0). */
enum status pprof_decode(const void *data, size_t len,
                         const struct load_limits *lim,
                         const struct sample_sink *sink, char *err,
                         size_t errsz) MUST_CHECK;

/* The replay loader (profile_loader_fn): reads the file at path, bounded
 * by lim's byte limit, and decodes it as pprof_decode does.  STATUS_IO for
 * a missing, unreadable or directory path, or one that is not a regular
 * file (reason, with strerror where there is one, in err, without the
 * path).  Blocks on file I/O, never on opening a FIFO. */
enum status pprof_load(const char *path, const struct load_limits *lim,
                       const struct sample_sink *sink, char *err,
                       size_t errsz) MUST_CHECK;

#endif
