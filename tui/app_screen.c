/* The app's state worded for the screen: the header's state and mode, the
 * countdowns and brief statuses that change it between refreshes, and the
 * render_in gathered for render.c. */
#include "tui/app.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "encode/utf8.h"
#include "tui/events.h"
#include "tui/glyph.h"
#include "tui/saver.h"
#include "tui/view_detail.h"
#include "tui/view_warn.h"

#define SEC ((uint64_t)1000000000u)

/* The context of the view drawn instead of the table. */
struct body_ctx {
	struct detail_in detail;
	struct compare_in compare;
	struct tree_in tree;
	struct flame_in flame;
	struct warn_in warn;
};

void app_set_now(struct app *a, uint64_t now_ns)
{
	a->now_ns = now_ns;
	if (a->status_until_ns && now_ns >= a->status_until_ns) {
		a->status[0] = '\0';
		a->status_until_ns = 0;
	}
}

void app_saved(struct app *a, const struct saver_result *res)
{
	if (res->st == STATUS_OK) {
		app_set_status(a, false, "saved %s", res->written);
		/* 0 is "no deadline": a clock at 0 still clears */
		a->status_until_ns = u64_add_sat(a->now_ns, APP_BRIEF_NS) | 1;
		events_emit(a->o.events, "saved %s", res->written);
		return;
	}
	app_set_status(a, true, "cannot save: %s",
	               res->err[0] ? res->err : status_str(res->st));
	events_emit(a->o.events, "error %s", a->status);
}

/* Whole seconds to the next attempt, rounded up (0 once it is due). */
static uint64_t retry_seconds(const struct app *a)
{
	uint64_t left =
	    a->retry_at_ns > a->now_ns ? a->retry_at_ns - a->now_ns : 0;

	return (left + SEC - 1) / SEC;
}

uint64_t app_next_change(const struct app *a)
{
	uint64_t secs,
	    next = a->status_until_ns ? a->status_until_ns : UINT64_MAX;

	/* the detail's sparkline sums the windows left between keys */
	if (a->body == APP_BODY_DETAIL && a->spark.pending && app_shown(a) &&
	    a->spark.m == app_model(a))
		return a->now_ns;
	if (a->o.replay || a->done || !a->have_state ||
	    a->state != SOURCE_RETRYING)
		return next;
	secs = retry_seconds(a);
	/* the shown number drops when the time left reaches secs - 1 */
	return secs ? u64_min(next, a->retry_at_ns - (secs - 1) * SEC) : next;
}

static void state_text(const struct app *a, char *dst, size_t size)
{
	const char *bad =
	    a->error_st == STATUS_TIMEOUT ? "not answering" : "unreachable";
	char st[48];

	if (a->o.replay) {
		snprintf(dst, size, "REPLAY");
		return;
	}
	if (a->done) {
		snprintf(dst, size, "source ended");
		return;
	}
	if (!a->have_state)
		snprintf(st, sizeof(st), "connecting");
	else if (a->state == SOURCE_RETRYING && retry_seconds(a))
		snprintf(st, sizeof(st), "retrying in %" PRIu64 " s",
		         retry_seconds(a));
	else if (a->state == SOURCE_RETRYING)
		snprintf(st, sizeof(st), "retrying now");
	else
		snprintf(st, sizeof(st), "%s", source_state_str(a->state));
	/* a failing source says why it retries: "unreachable · retrying in
	 * 4 s", "unreachable · connecting" */
	if (a->error_bad && (!a->have_state || a->state != SOURCE_CONNECTED))
		snprintf(dst, size, "%s%s%s", bad, glyph(GLYPH_SEP, a->flags),
		         st);
	else
		snprintf(dst, size, "%s", st);
}

static void mode_text(const struct app *a, char *dst, size_t size)
{
	const char *d = glyph(GLYPH_SEP, a->flags);

	switch (a->mode) {
	case APP_LIVE:
		snprintf(dst, size, "%s", a->o.replay ? "LATEST" : "LIVE");
		break;
	case APP_PAUSED:
		if (a->arrived)
			snprintf(dst, size, "PAUSED%s%" PRIu64 " new", d,
			         a->arrived);
		else
			snprintf(dst, size, "PAUSED");
		break;
	case APP_HISTORY:
		if (a->arrived && !a->o.replay)
			snprintf(dst, size, "HISTORY%s%" PRIu64 " new", d,
			         a->arrived);
		else
			snprintf(dst, size, "HISTORY");
		break;
	}
	if (a->group.key == GROUP_PARKED || a->group.by_name) {
		size_t used = strlen(dst);

		snprintf(dst + used, size - used, "%sby %s%s%s", d,
		         a->group.key == GROUP_PARKED ? "parked-at" : "spawn",
		         a->group.by_name ? "+" : "",
		         a->group.by_name ? "name" : "");
	}
	if (a->warn.ok && a->warn.n) {
		size_t used = strlen(dst);

		/* W lists them */
		snprintf(dst + used, size - used, "%s%zu warning%s", d,
		         a->warn.n, a->warn.n == 1 ? "" : "s");
	}
	if (a->in_progress && !a->have_progress) {
		size_t used = strlen(dst);

		/* 'o' is on, and this window has no partial figures yet */
		snprintf(dst + used, size - used, "%so: waiting", d);
	}
}

/* No window runs: a retry is not due yet, or an unreachable source is not
 * connected again. */
static bool not_collecting(const struct app *a)
{
	if (a->have_state && a->state == SOURCE_RETRYING)
		return a->now_ns < a->retry_at_ns;
	return a->error_bad && (!a->have_state || a->state != SOURCE_CONNECTED);
}

/* Line 2 and the progress of the window being collected. */
static void progress(const struct app *a, struct render_in *in, char *line2,
                     size_t size)
{
	size_t n = model_window_count(a->m);

	if (a->o.replay) {
		snprintf(line2, size, "replay: %zu window%s kept", n,
		         n == 1 ? "" : "s");
		in->line2 = line2;
	} else if (!a->done && not_collecting(a)) {
		snprintf(line2, size, "not collecting: waiting for the source");
		in->line2 = line2;
	} else if (!a->done) {
		/* after a retry, the window started when it was due */
		uint64_t from = a->since_ns, due = a->retry_at_ns;

		if (a->have_state && a->state == SOURCE_RETRYING && due > from)
			from = due;
		in->collecting = true;
		in->window_ns = a->o.window_ns;
		in->progress_ns = a->now_ns > from ? a->now_ns - from : 0;
	}
}

const struct window *app_compare_base(const struct app *a,
                                      const struct window *w, bool *marked)
{
	const struct window *b = NULL;
	size_t n = model_window_count(a->m);

	*marked = false;
	if (a->mark_seq && a->mark_seq != w->seq &&
	    (b = model_window_seq(a->m, a->mark_seq))) {
		*marked = true;
		return b;
	}
	for (size_t i = 1; i < n; i++)
		if (model_window(a->m, i)->seq == w->seq)
			return model_window(a->m, i - 1);
	return NULL;
}

/* The compare of the shown window, or why there is none; its first need
 * rows in order. */
static void compare_of(struct app *a, struct compare_in *c, size_t need)
{
	const struct window *w = app_showing_progress(a) ? NULL : app_shown(a);
	bool marked = false;
	const struct window *b = w ? app_compare_base(a, w, &marked) : NULL;

	*c = (struct compare_in){ .m = a->m, .c = &a->cmp, .marked = marked };
	if (app_showing_progress(a))
		c->why = "the window in progress is not compared; o goes back";
	else if (!b)
		c->why = "no kept window before this one to compare with";
	else if (grouped_get(&a->grouped, a->m, b, w->group, w, &b) !=
	         STATUS_OK)
		c->why = "out of memory grouping the window compared with";
	else if (compare_build_top(&a->cmp, a->m, w, b, a->v.metric,
	                           a->v.ascending, need) != STATUS_OK)
		c->why = "out of memory comparing the windows";
}

/* The view that replaces the table, if any, into *body (its context in
 * *v); its scrolling clamped to what it holds. */
/* The detail's stack in the shown model, 0 when it holds none: its row
 * moves into the shown model when that is another ('o', or the window in
 * progress ended), the ids becoming that model's own.  Until the shown
 * model holds the stack, the detail keeps it where it was found (a model
 * never gives a freed id again) and says it is not in the window. */
static uint32_t detail_home(struct app *a)
{
	const struct model *m = app_model(a);
	uint32_t stack, name;

	if (a->body_m == m)
		return a->body_stack;
	stack = model_stack_in(m, a->body_m, a->body_stack);
	name = model_name_in(m, a->body_m, a->body_name);
	if (!stack || (a->body_name && !name))
		return 0;
	a->body_stack = stack;
	a->body_name = name;
	a->body_m = m;
	return stack;
}

static const struct render_body *body_of(struct app *a, const struct screen *s,
                                         struct body_ctx *v,
                                         struct render_body *body)
{
	size_t page = s->rows > RENDER_TOP_ROWS + RENDER_BOTTOM_ROWS
	                  ? s->rows - RENDER_TOP_ROWS - RENDER_BOTTOM_ROWS
	                  : 1;
	size_t total;
	uint32_t stack;

	switch (a->body) {
	case APP_BODY_TABLE:
		return NULL;
	case APP_BODY_DETAIL:
		stack = detail_home(a);
		if (app_shown(a))
			spark_update(&a->spark, app_model(a),
			             app_shown(a)->group, stack, a->body_name,
			             spark_columns(s->cols), SPARK_BUDGET);
		v->detail =
		    (struct detail_in){ .spark =
			                    app_shown(a) ? &a->spark : NULL,
			                .m = app_model(a),
			                .w = app_shown(a),
			                .stack = stack,
			                .name = a->body_name,
			                .metric = a->v.metric,
			                .ascending = a->v.ascending,
			                /* clamped below, never raised:
			                 * prepared for as far */
			                .top = a->body_top,
			                .page = page };
		v->detail.cache = &a->dcache;
		if (v->detail.w &&
		    detail_prepare(&a->dcache, &v->detail) != STATUS_OK)
			v->detail.cache = NULL;
		total = detail_count(&v->detail);
		*body = (struct render_body){ .draw = detail_draw,
			                      .ctx = &v->detail };
		break;
	case APP_BODY_COMPARE:
		/* the rows up to the page's last, not all of them */
		compare_of(a, &v->compare, size_add_sat(a->body_top, page));
		/* its column titles take a line of the page */
		total = compare_count(&v->compare) + 1;
		*body = (struct render_body){ .draw = compare_draw,
			                      .ctx = &v->compare };
		break;
	case APP_BODY_TREE:
		if (app_showing_progress(a) || !app_shown(a))
			return NULL;
		/* its column titles take a line of the page */
		a->tree.page = page > 1 ? page - 1 : 1;
		if (tree_update(&a->tree, a->m, app_shown(a), a->v.metric,
		                a->v.ascending) != STATUS_OK)
			app_set_status(a, true,
			               "out of memory building the tree");
		v->tree = (struct tree_in){ .m = a->m,
			                    .t = &a->tree,
			                    .w = app_shown(a) };
		*body =
		    (struct render_body){ .draw = tree_draw, .ctx = &v->tree };
		return body;
	case APP_BODY_FLAME:
		if (app_showing_progress(a) || !app_shown(a))
			return NULL;
		if (tree_sync(&a->tree, a->m, app_shown(a)) != STATUS_OK ||
		    flame_layout(&a->flame, &a->tree, a->v.metric, s->cols,
		                 page + 1 - FLAME_HEAD_ROWS) != STATUS_OK)
			app_set_status(a, true,
			               "out of memory laying out the flame");
		v->flame = (struct flame_in){ .m = a->m,
			                      .t = &a->tree,
			                      .f = &a->flame,
			                      .w = app_shown(a),
			                      .metric = a->v.metric };
		*body = (struct render_body){ .draw = flame_draw,
			                      .ctx = &v->flame };
		return body;
	case APP_BODY_WARN:
		v->warn = (struct warn_in){ .m = app_model(a),
			                    .w = app_shown(a),
			                    .ws = &a->warn };
		/* its title takes a line of the page */
		total = warn_count(&v->warn) + 1;
		*body =
		    (struct render_body){ .draw = warn_draw, .ctx = &v->warn };
		break;
	default:
		return NULL;
	}
	if (a->body_top + page > total)
		a->body_top = total > page ? total - page : 0;
	v->detail.top = a->body_top;
	v->compare.top = a->body_top;
	v->warn.top = a->body_top;
	return body;
}

/* The warnings of w (NULL: none) into a->warn, evaluated once per shown
 * window: those of the windows shown before are kept, the oldest giving
 * its place (and memory) to a window none holds. */
static void warn_shown(struct app *a, const struct window *w)
{
	const struct model *m = app_model(a);

	if (w && !warn_holds(&a->warn, m, w, &a->o.warn)) {
		struct warnings t;
		size_t i = 0;

		while (i < APP_WARN_PREV &&
		       !warn_holds(&a->warn_prev[i], m, w, &a->o.warn))
			i++;
		/* none holds w: a slot that holds nothing, else the oldest */
		if (i == APP_WARN_PREV) {
			i = 0;
			while (i < APP_WARN_PREV && a->warn_prev[i].ok)
				i++;
		}
		if (i == APP_WARN_PREV) {
			i = a->warn_at;
			a->warn_at = (a->warn_at + 1) % APP_WARN_PREV;
		}
		t = a->warn;
		a->warn = a->warn_prev[i];
		a->warn_prev[i] = t;
	}
	if (!w || warn_eval(&a->warn, m, w, &a->o.warn) != STATUS_OK)
		warn_fini(&a->warn);
}

enum status app_render(struct app *a, struct screen *s)
{
	struct body_ctx view;
	struct render_body body;
	struct render_in in;
	char state[96], mode[96], line2[128], title[sizeof(a->title)];
	char status[sizeof(a->status)], message[sizeof(a->error)];
	const struct window *w;
	struct view *v;
	size_t n = model_window_count(a->m);

	app_regroup(a);
	w = app_shown(a);
	warn_shown(a, w);
	v = app_view(a);
	a->rows = s->rows;
	a->cols = s->cols;
	if (s->rows > RENDER_TOP_ROWS + RENDER_BOTTOM_ROWS)
		view_set_page(v,
		              s->rows - RENDER_TOP_ROWS - RENDER_BOTTOM_ROWS);
	memset(&in, 0, sizeof(in));
	in.m = app_model(a);
	in.w = w;
	in.v = v;
	glyph_copy(title, sizeof(title), a->title, a->flags);
	in.title = title;
	state_text(a, state, sizeof(state));
	in.state = state;
	in.state_bad = a->error_bad || (a->done && !a->o.replay);
	in.win_count = n;
	for (size_t i = 0; w && !app_showing_progress(a) && i < n; i++)
		if (model_window(a->m, i)->seq == w->seq)
			in.win_pos = i + 1;
	mode_text(a, mode, sizeof(mode));
	in.mode = mode;
	in.in_progress = app_showing_progress(a);
	in.replay = a->o.replay;
	progress(a, &in, line2, sizeof(line2));
	in.notice = a->notice[0] ? a->notice : NULL;
	glyph_copy(status, sizeof(status), a->status, a->flags);
	in.status = status[0] ? status : NULL;
	in.status_error = a->status_error;
	if (!w) {
		in.message = a->error[0] ? a->error
		             : a->done   ? "the source ended without a window"
		                         : NULL;
	} else if (w->empty) {
		struct adapter_error e;
		memset(&e, 0, sizeof(e));
		e.st = STATUS_EMPTY_WINDOW;
		app_word_error(a, &e,
		               w->meta.duration_nanos > 0
		                   ? (double)w->meta.duration_nanos / 1e9
		                   : 0.0,
		               a->message, sizeof(a->message));
		in.message = a->message;
	}
	if (in.message) {
		glyph_copy(message, sizeof(message), in.message, a->flags);
		in.message = message;
	}
	in.editing = a->editing;
	in.help = a->help;
	in.help_top = a->help_top;
	in.flags = a->flags;
	in.warn = a->warn.ok ? &a->warn : NULL;
	in.body = body_of(a, s, &view, &body);
	return render_screen(&in, s);
}
