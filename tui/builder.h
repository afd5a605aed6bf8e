/* The builder thread (docs/design.md §15): builds a committed window
 * (model_build_run) while the main thread keeps answering keys; it says
 * it is done through a pipe for poll(). */
#ifndef ASYNCTOP_TUI_BUILDER_H
#define ASYNCTOP_TUI_BUILDER_H

#include <stdbool.h>

#include "model/base.h"
#include "model/metric.h"
#include "model/model.h"
#include "model/order.h"
#include "model/status.h"

struct builder;

/* Starts the thread (it blocks all signals).  STATUS_NOMEM, STATUS_IO. */
enum status builder_new(struct builder **out) MUST_CHECK;

/* Readable once the build submitted last is done (builder_done empties
 * it). */
int builder_fd(const struct builder *b);

/* The rows of the built window sorted as the viewer shows them, so that
 * the main thread need not sort a million rows (order_build). */
struct builder_sort {
	struct order *o;
	enum metric key;
	bool descending;
	enum status st; /* order_build's, once done */
};

/* Runs model_build_run(mb) on the thread, then, when sort is not NULL,
 * sorts the window it built into sort->o; mb and sort stay the caller's
 * and untouched until builder_done.  One at a time: STATUS_INVAL while
 * one runs.  Does not block. */
enum status builder_submit(struct builder *b, struct model_build *mb,
                           struct builder_sort *sort) MUST_CHECK;

/* True once the build submitted is done (then it is the caller's again,
 * and a new one may be submitted).  Does not block. */
bool builder_done(struct builder *b);

/* Blocks until the build submitted, if any, is done. */
void builder_wait(struct builder *b);

/* Waits for a running build, joins the thread and frees b; NULL is a
 * no-op. */
void builder_free(struct builder *b);

#endif
