/* A window taken in by steps, so that keys answer while a huge one
 * arrives (docs/design.md §15): the fold in time slices on the main
 * thread, the build on the builder thread while the main thread only
 * reads the model, then the release of evicted windows in slices.  The
 * shown window stays the previous one until the new one is whole. */
#include "tui/app.h"

#include <inttypes.h>
#include <time.h>

#include "tui/builder.h"
#include "tui/events.h"
#include "tui/saver.h"

/* Samples folded between two looks at the clock. */
#define FOLD_CHECK 128
/* Entries released between two looks at the clock. */
#define RECLAIM_CHECK 4096

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* When a slice begun now ends. */
static uint64_t slice_end(const struct app *a)
{
	return mono_ns() + (a->slice_ns ? a->slice_ns : APP_SLICE_NS);
}

/* model_add until the slice's time is up (then STATUS_AGAIN). */
struct slice {
	struct model *m;
	uint64_t until;
	size_t n;
};

static enum status slice_sample(void *ctx, const struct sample *s)
{
	struct slice *sl = ctx;
	enum status st = model_add(sl->m, s);

	if (st != STATUS_OK && st != STATUS_LIMIT)
		return st;
	if (++sl->n % FOLD_CHECK == 0 && mono_ns() >= sl->until)
		return STATUS_AGAIN;
	return st;
}

bool app_intake(struct app *a, struct worker_msg *msg)
{
	if (!a->builder || msg->kind != WORKER_WINDOW ||
	    a->phase != APP_INTAKE_NONE)
		return false;
	/* the window opens at the first slice: a save may be reading */
	a->in_msg = msg;
	a->in_fed = 0;
	a->in_open = false;
	a->phase = APP_INTAKE_FOLD;
	return true;
}

bool app_busy(const struct app *a)
{
	return a->phase != APP_INTAKE_NONE;
}

/* The saver reads the model while it encodes: nothing changes it then. */
static bool model_held(const struct app *a)
{
	return a->saver && saver_reading(a->saver);
}

bool app_step_ready(const struct app *a)
{
	return (a->phase == APP_INTAKE_FOLD ||
	        a->phase == APP_INTAKE_RECLAIM) &&
	       !model_held(a);
}

static void intake_done(struct app *a)
{
	worker_msg_free(a->in_msg);
	a->in_msg = NULL;
	a->in_build = NULL;
	a->phase = APP_INTAKE_NONE;
}

static unsigned lost(struct app *a, enum status st)
{
	model_abort(a->m);
	app_set_status(a, true, "window %" PRIu64 " lost: %s", a->in_msg->index,
	               status_str(st));
	intake_done(a);
	return APP_REDRAW;
}

static unsigned fold_step(struct app *a)
{
	struct slice sl = { .m = a->m, .until = slice_end(a) };
	struct sample_sink sink = { .sample = slice_sample, .ctx = &sl };
	enum status st;

	if (!a->in_open) {
		/* a window left over by a failed intake goes first */
		model_abort(a->m);
		st = model_begin(a->m);
		/* it ends a release left over: its windows' groupings go */
		grouped_forget(&a->grouped, a->m);
		if (st != STATUS_OK)
			return lost(a, st);
		if (model_reserve(a->m, a->in_msg->nsamples) != STATUS_OK) {
			/* the tables grow as the fold needs them: slower */
		}
		a->in_open = true;
	}
	st = worker_msg_feed_from(a->in_msg, &a->in_fed, &sink);

	if (st == STATUS_AGAIN)
		return 0;
	if (st != STATUS_OK)
		return lost(a, st);
	comments_add(&a->in_msg->meta, a->o.replay, a->o.adapter, a->o.endpoint,
	             &a->in_meta, &a->in_c);
	st = model_build_begin(a->m, &a->in_meta, &a->in_build);
	if (st == STATUS_OK) {
		/* sorted there as the table shows it now; a key that changes
		 * the weighting meanwhile sorts again, here */
		a->in_derive = (struct builder_derive){
			.o = &a->in_order,
			.key = a->v.metric,
			.descending = !a->v.ascending,
			.st = STATUS_INVAL,
			.warn = &a->in_warn,
			.m = a->m,
			.cfg = a->o.warn,
			.warn_st = STATUS_INVAL,
		};
		st = builder_submit(a->builder, a->in_build, &a->in_derive);
		if (st != STATUS_OK) /* never: one build at a time */
			model_build_run(a->in_build);
	}
	if (st != STATUS_OK && !a->in_build)
		return lost(a, st);
	a->phase = APP_INTAKE_BUILD;
	return 0;
}

static unsigned build_step(struct app *a)
{
	const struct window *w;
	enum status st;

	if (!builder_done(a->builder))
		return 0;
	st = model_build_end(a->m, a->in_build, &w);
	a->in_build = NULL;
	if (st != STATUS_OK && st != STATUS_EMPTY_WINDOW)
		return lost(a, st);
	if (a->in_derive.st == STATUS_OK && a->mode == APP_LIVE)
		view_adopt_order(&a->v, w, &a->in_order);
	if (a->in_derive.warn_st == STATUS_OK && a->mode == APP_LIVE)
		warn_adopt(&a->warn, &a->in_warn, w);
	a->phase = APP_INTAKE_RECLAIM;
	app_after_commit(a, a->in_msg->index);
	return APP_REDRAW;
}

/* The oldest kept window's seq (0: none). */
static uint64_t oldest(const struct app *a)
{
	const struct window *w = model_window(a->m, 0);

	return w ? w->seq : 0;
}

static unsigned reclaim_step(struct app *a)
{
	uint64_t until = slice_end(a), first = oldest(a);
	unsigned flags = 0;
	bool more;

	do {
		more = model_reclaim(a->m, RECLAIM_CHECK);
		/* a window left the ring: nothing may point at it once this
		 * step ends (its strings go with the next slices) */
		if (oldest(a) != first) {
			first = oldest(a);
			app_evicted(a, first);
			flags = APP_REDRAW;
		}
	} while (more && mono_ns() < until);
	if (!more)
		intake_done(a);
	return flags;
}

unsigned app_step(struct app *a)
{
	switch (a->phase) {
	case APP_INTAKE_NONE:
		return 0;
	case APP_INTAKE_FOLD:
		return model_held(a) ? 0 : fold_step(a);
	case APP_INTAKE_BUILD:
		return model_held(a) ? 0 : build_step(a);
	case APP_INTAKE_RECLAIM:
		return model_held(a) ? 0 : reclaim_step(a);
	}
	return 0;
}

void app_intake_stop(struct app *a)
{
	if (a->phase == APP_INTAKE_BUILD) {
		builder_wait(a->builder);
		if (model_build_end(a->m, a->in_build, NULL) != STATUS_OK)
			model_abort(a->m);
		a->in_build = NULL;
	} else if (a->phase == APP_INTAKE_FOLD && a->in_open) {
		model_abort(a->m);
	}
	if (a->phase != APP_INTAKE_NONE)
		intake_done(a);
}
