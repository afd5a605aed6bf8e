/* The saver thread (docs/design.md §1, §15): it encodes a kept window, then
 * gzips and writes it with save_file in unique mode, so keys keep
 * answering; results come back through a pipe for poll(). */
#ifndef ASYNCTOP_TUI_SAVER_H
#define ASYNCTOP_TUI_SAVER_H

#include <stdbool.h>
#include <stddef.h>

#include "model/base.h"
#include "model/metric.h"
#include "model/model.h"
#include "model/status.h"

struct saver;

/* The outcome of one job. */
struct saver_result {
	enum status st;
	char written[4096 + 64]; /* the path written (unique: maybe -2...) */
	char err[1024];          /* the reason, when st is not STATUS_OK */
};

/* Starts the thread (it blocks all signals).  STATUS_NOMEM, STATUS_IO. */
enum status saver_new(struct saver **out) MUST_CHECK;

/* Readable while a result waits (saver_take empties it). */
int saver_fd(const struct saver *s);

/* Queues a job: data (len bytes, allocated with mem_alloc) is taken over
 * whatever the outcome; path is copied; gzip_level -1 writes data as it
 * is.  Never overwrites (save_file's unique mode).  STATUS_NOMEM (data is
 * freed).  Does not block on I/O. */
enum status saver_submit(struct saver *s, const char *path, char *data,
                         size_t len, int gzip_level) MUST_CHECK;

/* Queues a job that encodes window w of m (both borrowed) as pprof, or as
 * collapsed stacks weighted by metric when collapsed, on the thread, then
 * saves it as saver_submit does (pprof gzipped).  The bytes are those the
 * encoders give on the main thread.  Until the encoding is done
 * (saver_reading false) the caller must not change m: w must stay kept,
 * and nothing may intern or release.  STATUS_NOMEM.  Does not block. */
enum status saver_submit_window(struct saver *s, const char *path,
                                const struct model *m, const struct window *w,
                                bool collapsed, enum metric metric) MUST_CHECK;

/* Blocks until every queued job is written (results wait for
 * saver_take). */
void saver_wait(struct saver *s);

/* Takes a finished job's result without blocking: STATUS_OK with *res
 * filled, STATUS_AGAIN when none is waiting. */
enum status saver_take(struct saver *s, struct saver_result *res) MUST_CHECK;

/* True while a job that reads the model is queued or encoding: the main
 * thread must not change the model then.  Once it turns false the saver's
 * fd is readable (saver_take may then find no result). */
bool saver_reading(struct saver *s);

/* True while a job is queued or being written. */
bool saver_busy(struct saver *s);

/* Finishes the queued jobs, joins the thread and frees s; NULL is a
 * no-op.  Blocks until the last file is written. */
void saver_free(struct saver *s);

#endif
