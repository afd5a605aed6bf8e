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
#include "tui/warn.h"

struct builder;

/* Starts the thread (it blocks all signals).  STATUS_NOMEM, STATUS_IO. */
enum status builder_new(struct builder **out) MUST_CHECK;

/* Readable once the build submitted last is done (builder_done empties
 * it). */
int builder_fd(const struct builder *b);

/* What the viewer derives from the built window, done on the builder so
 * that the main thread need not go over a million rows: its rows sorted
 * as the table shows them (order_build), and, when warn is not NULL, its
 * warnings (warn_eval_next over m, which the builder only reads). */
struct builder_derive {
	struct order *o;
	enum metric key;
	bool descending;
	enum status st; /* order_build's, once done */
	struct warnings *warn;
	const struct model *m;
	struct warn_cfg cfg;
	enum status warn_st; /* warn_eval_next's, once done */
};

/* Runs model_build_run(mb) on the thread, then, when sort is not NULL,
 * derives sort's parts from the window it built; mb and sort stay the
 * caller's and untouched until builder_done.  One at a time: STATUS_INVAL while
 * one runs.  Does not block. */
enum status builder_submit(struct builder *b, struct model_build *mb,
                           struct builder_derive *sort) MUST_CHECK;

/* True once the build submitted is done (then it is the caller's again,
 * and a new one may be submitted).  Does not block. */
bool builder_done(struct builder *b);

/* Blocks until the build submitted, if any, is done. */
void builder_wait(struct builder *b);

/* Waits for a running build, joins the thread and frees b; NULL is a
 * no-op. */
void builder_free(struct builder *b);

#endif
