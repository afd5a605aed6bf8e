/* The viewer's state and behaviour, without the terminal: windows in,
 * actions, saving (the saver thread encodes and writes), rendering. */
#include "tui/app.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "encode/utf8.h"
#include "tui/comments.h"
#include "tui/events.h"
#include "tui/saver.h"

#define SEC ((uint64_t)1000000000u)

enum status app_init(struct app *a, const struct app_opts *o)
{
	struct model_limits lim;
	enum status st;

	memset(a, 0, sizeof(*a));
	a->o = *o;
	order_init(&a->in_order);
	warn_init(&a->in_warn);
	view_init(&a->v, o->metric);
	view_init(&a->pv, o->metric);
	compare_init(&a->cmp);
	table_sort_init(&a->tsort);
	tree_init(&a->tree);
	flame_init(&a->flame);
	warn_init(&a->warn);
	for (size_t i = 0; i < APP_WARN_PREV; i++)
		warn_init(&a->warn_prev[i]);
	if (!a->o.warn.poll_ns)
		a->o.warn.poll_ns = WARN_POLL_NS_DEFAULT;
	if (!a->o.warn.idle_windows)
		a->o.warn.idle_windows = WARN_IDLE_WINDOWS_DEFAULT;
	model_limits_default(&lim);
	lim.max_windows = o->history ? o->history : CLI_HISTORY_DEFAULT;
	st = model_new(&lim, &a->m);
	if (st == STATUS_OK) {
		lim.max_windows = 1;
		st = model_new(&lim, &a->pm);
	}
	if (st != STATUS_OK) {
		app_fini(a);
		return st;
	}
	snprintf(a->title, sizeof(a->title), "asynctop \xC2\xB7 %s%s%s",
	         o->adapter ? o->adapter : "?",
	         o->endpoint && *o->endpoint ? " " : "",
	         o->endpoint ? o->endpoint : "");
	if (o->window_clamped)
		snprintf(a->notice, sizeof(a->notice),
		         "windows are capped at 60 s");
	return STATUS_OK;
}

void app_fini(struct app *a)
{
	view_fini(&a->v);
	view_fini(&a->pv);
	compare_fini(&a->cmp);
	table_sort_fini(&a->tsort);
	tree_fini(&a->tree);
	flame_fini(&a->flame);
	detail_cache_fini(&a->dcache);
	grouped_fini(&a->grouped);
	warn_fini(&a->warn);
	for (size_t i = 0; i < APP_WARN_PREV; i++)
		warn_fini(&a->warn_prev[i]);
	model_free(a->m);
	model_free(a->pm);
	order_fini(&a->in_order);
	warn_fini(&a->in_warn);
	a->m = a->pm = NULL;
}

bool app_showing_progress(const struct app *a)
{
	return a->in_progress && a->have_progress;
}

const struct window *app_kept(const struct app *a)
{
	if (app_showing_progress(a))
		return model_latest(a->pm);
	if (a->mode == APP_LIVE)
		return model_latest(a->m);
	return model_window_seq(a->m, a->shown);
}

const struct window *app_shown(const struct app *a)
{
	const struct window *k = app_kept(a);
	const struct window *w =
	    grouped_peek(&a->grouped, app_model(a), k, a->group);

	return w ? w : k;
}

void app_regroup(struct app *a)
{
	const struct window *w;

	if (grouped_get(&a->grouped, app_model(a), app_kept(a), a->group, NULL,
	                &w) != STATUS_OK)
		app_set_status(
		    a, true,
		    "out of memory grouping the rows; shown by spawn stack");
}

static void refresh_view(struct app *a);

struct view *app_view(struct app *a)
{
	if ((a->table_stale && a->body == APP_BODY_TABLE) || a->filter_stale) {
		a->table_stale = a->filter_stale = false;
		refresh_view(a);
	}
	return app_showing_progress(a) ? &a->pv : &a->v;
}

const struct model *app_model(const struct app *a)
{
	return app_showing_progress(a) ? a->pm : a->m;
}

void app_set_status(struct app *a, bool error, const char *fmt, ...)
{
	va_list ap;

	char text[sizeof(a->status)];
	size_t used = 0;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	/* one line: a message's lines (an error, then its remedy) run on,
	 * separated by " · ", their indentation dropped */
	for (const char *p = text; *p && used + 1 < sizeof(a->status);) {
		if (*p == '\n') {
			while (*++p == ' ')
				;
			if (*p)
				used += (size_t)snprintf(
				    a->status + used, sizeof(a->status) - used,
				    " \xC2\xB7 ");
			continue;
		}
		a->status[used++] = *p++;
	}
	a->status[size_min(used, sizeof(a->status) - 1)] = '\0';
	a->status_error = error;
	a->status_until_ns = 0;
}

void app_word_error(struct app *a, const struct adapter_error *e,
                    double seconds, char *dst, size_t size)
{
	size_t used;

	adapter_format_error(e, a->o.adapter ? a->o.adapter : "?",
	                     a->o.endpoint, seconds, dst, size);
	used = strlen(dst);
	if (e->st == STATUS_UNREACHABLE && a->o.also && a->o.also[0] &&
	    used + 1 < size)
		snprintf(dst + used, size - used, "\n%s", a->o.also);
}

/* Rebuilds the rows of the shown window (selection kept by stack id). */
static void refresh_view(struct app *a)
{
	struct view *v;

	a->table_stale = a->filter_stale = false; /* sorted now */
	v = app_view(a);
	app_regroup(a);
	if (view_build(v, app_model(a), app_shown(a)) != STATUS_OK)
		app_set_status(a, true, "out of memory sorting the rows");
}

/* When the shown window left the history: the oldest kept instead. */
static bool shown_kept(struct app *a)
{
	const struct window *old;

	if (model_window_seq(a->m, a->shown))
		return true;
	old = model_window(a->m, 0);
	a->shown = old ? old->seq : 0;
	snprintf(a->notice, sizeof(a->notice),
	         "the shown window left the history; showing the oldest kept");
	return false;
}

/* When the window marked for compare left the history: no mark, said. */
static void mark_kept(struct app *a)
{
	if (!a->mark_seq || model_window_seq(a->m, a->mark_seq))
		return;
	app_set_status(a, false,
	               "marked window %" PRIu64
	               " left the history; = compares with the window before",
	               a->mark_seq);
	a->mark_seq = 0;
}

void app_evicted(struct app *a, uint64_t oldest)
{
	(void)oldest; /* the model tells which windows it still keeps */
	grouped_forget(&a->grouped, a->m);
	mark_kept(a);
	if (app_showing_progress(a) || a->mode == APP_LIVE || shown_kept(a))
		return;
	refresh_view(a);
}

/* Replay of a file saved grouped by parked-at stack: its first window
 * shows so, as it was saved (its samples' spawn stacks are only their
 * leaf, which the default grouping would show as rows of one frame),
 * unless a or n was pressed already. */
static void replay_grouping(struct app *a)
{
	const struct window *w = model_latest(a->m);

	if (!a->o.replay || a->group_chosen || a->committed != 1 || !w ||
	    !w->meta.saved_by_parked || a->group.key == GROUP_PARKED)
		return;
	a->group.key = GROUP_PARKED;
	app_regroup(a);
	app_set_status(
	    a, false,
	    "the file was saved grouped by parked-at stack: shown so (a: by spawn stack)");
}

/* After a commit: follow LIVE, count arrivals, handle eviction. */
void app_after_commit(struct app *a, uint64_t index)
{
	a->since_ns = a->now_ns;
	a->error[0] = '\0';
	a->error_bad = false;
	/* a window came: the source is reachable, whatever it reported */
	if (!a->o.replay && (!a->have_state || a->state == SOURCE_CONNECTING ||
	                     a->state == SOURCE_RETRYING)) {
		a->have_state = true;
		a->state = SOURCE_CONNECTED;
	}
	a->committed++;
	for (size_t i = 0; i < APP_WARN_PREV; i++)
		a->warn_prev[i].ok = false;
	events_emit(a->o.events, "window %" PRIu64 " committed", index);
	if (a->mode != APP_LIVE) {
		a->arrived++;
		shown_kept(a);
	}
	mark_kept(a);
	replay_grouping(a);
	/* 'o' stays on: the next window in progress shows from its first
	 * partial figures, the finished one until then */
	a->have_progress = false;
	refresh_view(a);
}

static enum status fold_in(struct app *a, const struct worker_msg *msg,
                           const struct sample *s, size_t n,
                           const struct window_meta *meta, struct model *m)
{
	struct sample_sink sink = model_sink(m);
	struct window_meta mm;
	struct comments c;
	enum status st;

	/* the saver may be encoding from m: a commit waits for it */
	if (a->saver && m == a->m)
		saver_wait(a->saver);
	st = model_begin(m);

	if (st != STATUS_OK)
		return st;
	if (msg)
		st = worker_msg_feed(msg, &sink);
	for (size_t i = 0; st == STATUS_OK && i < n; i++)
		st = model_add(m, &s[i]);
	if (st == STATUS_LIMIT)
		st = STATUS_OK;
	if (st == STATUS_OK) {
		comments_add(meta, a->o.replay, a->o.adapter, a->o.endpoint,
		             &mm, &c);
		st = model_commit(m, &mm, NULL);
		/* it may have evicted windows groupings were derived from */
		grouped_forget(&a->grouped, m);
	}
	if (st != STATUS_OK && st != STATUS_EMPTY_WINDOW)
		model_abort(m);
	return st;
}

static void window_in(struct app *a, const struct worker_msg *msg,
                      const struct sample *s, size_t n,
                      const struct window_meta *meta, uint64_t index)
{
	enum status st = fold_in(a, msg, s, n, meta, a->m);

	if (st != STATUS_OK && st != STATUS_EMPTY_WINDOW) {
		app_set_status(a, true, "window %" PRIu64 " lost: %s", index,
		               status_str(st));
		return;
	}
	app_after_commit(a, index);
}

/* The tree and the flame lay out finished windows only: when the window
 * in progress comes to show, the table shows it, and says why. */
static void progress_body(struct app *a)
{
	if (!app_showing_progress(a) ||
	    (a->body != APP_BODY_TREE && a->body != APP_BODY_FLAME))
		return;
	app_set_status(
	    a, false,
	    "the %s shows finished windows; the table shows the window in progress",
	    a->body == APP_BODY_TREE ? "tree" : "flame");
	a->body = APP_BODY_TABLE;
}

enum status app_commit(struct app *a, const struct sample *s, size_t n,
                       const struct window_meta *meta)
{
	enum status st = fold_in(a, NULL, s, n, meta, a->m);

	if (st == STATUS_OK || st == STATUS_EMPTY_WINDOW)
		app_after_commit(a, a->committed + 1);
	return st;
}

void app_take(struct app *a, const struct worker_msg *msg)
{
	switch (msg->kind) {
	case WORKER_WINDOW:
		window_in(a, msg, NULL, 0, &msg->meta, msg->index);
		return;
	case WORKER_PROGRESS:
		if (fold_in(a, msg, NULL, 0, &msg->meta, a->pm) == STATUS_OK) {
			a->have_progress = true;
			progress_body(a);
			if (a->in_progress)
				refresh_view(a);
		}
		return;
	case WORKER_STATE:
		a->state = msg->state;
		a->have_state = true;
		a->retry_at_ns = u64_add_sat(a->now_ns, msg->retry_in_ns);
		if (msg->state == SOURCE_REPLAY)
			a->o.replay = true;
		events_emit(a->o.events, "state %s",
		            source_state_str(msg->state));
		return;
	case WORKER_ERROR:
		app_word_error(a, &msg->err, 0.0, a->error, sizeof(a->error));
		a->error_st = msg->err.st;
		a->error_bad = msg->err.st == STATUS_UNREACHABLE ||
		               msg->err.st == STATUS_TIMEOUT;
		/* without a window the body shows it; else the status line */
		if (model_latest(a->m))
			app_set_status(a, true, "%s", a->error);
		events_emit(a->o.events, "error %s", a->error);
		if (!a->o.replay)
			a->since_ns = a->now_ns;
		return;
	case WORKER_DONE:
		a->done = true;
		if (msg->err.st != STATUS_OK) {
			app_word_error(a, &msg->err, 0.0, a->error,
			               sizeof(a->error));
			app_set_status(a, true, "%s", a->error);
		} else if (!a->o.replay) {
			app_set_status(
			    a, false,
			    "the source ended; the history stays browsable");
		}
		events_emit(a->o.events, "state done");
		return;
	}
}

/* ---- actions --------------------------------------------------------- */

/* A weighting or order key.  Behind a view the table is sorted when it
 * shows again (app_view), not now: that sort was half of a view's key. */
static void resort(struct app *a)
{
	if (a->body != APP_BODY_TABLE) {
		a->table_stale = true;
		return;
	}
	refresh_view(a);
}

static unsigned set_metric(struct app *a, enum metric m)
{
	a->v.metric = m;
	a->pv.metric = m;
	resort(a);
	return APP_REDRAW;
}

static unsigned go_live(struct app *a)
{
	a->mode = APP_LIVE;
	a->arrived = 0;
	a->notice[0] = '\0';
	refresh_view(a);
	return APP_REDRAW;
}

static unsigned step(struct app *a, int dir)
{
	size_t n = model_window_count(a->m);
	const struct window *cur = app_shown(a);
	size_t pos = SIZE_MAX;

	if (!n || !cur)
		return APP_REDRAW;
	/* history is of finished windows: leave the one in progress */
	a->in_progress = false;
	for (size_t i = 0; i < n; i++)
		if (model_window(a->m, i)->seq == cur->seq)
			pos = i;
	if (pos == SIZE_MAX)
		pos = n - 1;
	if (dir < 0 && pos == 0) {
		app_set_status(a, false, "this is the oldest kept window");
		return APP_REDRAW;
	}
	/* the newest window is the live one: ] onto it (or on from it,
	 * paused) follows new windows again */
	if (dir > 0 && pos + 1 >= n)
		return a->mode == APP_LIVE ? APP_REDRAW : go_live(a);
	pos = dir < 0 ? pos - 1 : pos + 1;
	if (dir > 0 && pos + 1 == n)
		return go_live(a);
	if (a->mode == APP_LIVE)
		a->arrived = 0;
	a->mode = APP_HISTORY;
	a->shown = model_window(a->m, pos)->seq;
	a->notice[0] = '\0';
	refresh_view(a);
	return APP_REDRAW;
}

static unsigned save(struct app *a, bool collapsed)
{
	const struct window *w = app_showing_progress(a) ? NULL : app_shown(a);
	char path[4096 + 64];
	enum status st;

	if (!w) {
		app_set_status(
		    a, true,
		    app_showing_progress(a)
		        ? "the window in progress cannot be saved; o goes back"
		        : "no window to save yet");
		return APP_REDRAW;
	}
	if (w->empty) {
		app_set_status(a, true,
		               "window %" PRIu64
		               " has no task data: nothing to save",
		               w->seq);
		return APP_REDRAW;
	}
	if (!a->saver) {
		app_set_status(a, true, "saving is not available");
		return APP_REDRAW;
	}
	st = app_save_path(path, sizeof(path), a->o.save_dir, a->o.adapter, w,
	                   collapsed ? (int)a->v.metric : -1);
	if (st != STATUS_OK) {
		app_set_status(a, true,
		               "the save directory's name is too long");
		return APP_REDRAW;
	}
	/* encoded on the saver thread: the model is left alone until then
	 * (the intake waits), so w stays kept and unchanged */
	st = saver_submit_window(a->saver, path, a->m, w, collapsed,
	                         a->v.metric);
	if (st != STATUS_OK) {
		app_set_status(a, true, "cannot save: %s", status_str(st));
		return APP_REDRAW;
	}
	app_set_status(a, false, "saving\xE2\x80\xA6 %s", path);
	return APP_REDRAW;
}

unsigned app_do(struct app *a, enum action act)
{
	struct view *v = app_view(a);
	long page = (long)(v->page > 1 ? v->page - 1 : 1);

	events_emit(a->o.events, "action %s", action_name(act));
	if (a->help && act >= ACTION_UP && act <= ACTION_BOTTOM) {
		size_t n = ACTION_COUNT - 1;
		if (act == ACTION_UP || act == ACTION_PAGE_UP ||
		    act == ACTION_TOP)
			a->help_top = act == ACTION_TOP || a->help_top < 5
			                  ? 0
			                  : a->help_top - 5;
		else
			a->help_top =
			    act == ACTION_BOTTOM || a->help_top + 5 >= n
			        ? n - 1
			        : a->help_top + 5;
		return APP_REDRAW;
	}
	if (act != ACTION_HELP && act != ACTION_REDRAW)
		a->help = false;
	if (a->body != APP_BODY_TABLE && act >= ACTION_UP &&
	    act <= ACTION_BOTTOM)
		return app_view_move(a, act, page);
	switch (act) {
	case ACTION_NONE:
		return 0;
	case ACTION_WEIGHT_IDLE:
	case ACTION_WEIGHT_BUSY:
	case ACTION_WEIGHT_SCHED:
	case ACTION_WEIGHT_POLLS:
	case ACTION_WEIGHT_WAKES:
		return set_metric(a, (enum metric)(act - ACTION_WEIGHT_IDLE));
	case ACTION_WEIGHT_NEXT:
		return set_metric(
		    a, (enum metric)((a->v.metric + 1) % METRIC_COUNT));
	case ACTION_WEIGHT_PREV:
		return set_metric(
		    a, (enum metric)((a->v.metric + METRIC_COUNT - 1) %
		                     METRIC_COUNT));
	case ACTION_INVERT:
		a->v.ascending = !a->v.ascending;
		a->pv.ascending = a->v.ascending;
		resort(a);
		return APP_REDRAW;
	case ACTION_UP:
		view_move(v, -1);
		return APP_REDRAW;
	case ACTION_DOWN:
		view_move(v, 1);
		return APP_REDRAW;
	case ACTION_PAGE_UP:
		view_move(v, -page);
		return APP_REDRAW;
	case ACTION_PAGE_DOWN:
		view_move(v, page);
		return APP_REDRAW;
	case ACTION_TOP:
		view_select(v, 0);
		return APP_REDRAW;
	case ACTION_BOTTOM:
		view_select(v, v->order.n ? v->order.n - 1 : 0);
		return APP_REDRAW;
	case ACTION_HIST_BACK:
		return step(a, -1);
	case ACTION_HIST_FWD:
		return step(a, 1);
	case ACTION_LIVE:
		a->in_progress = false;
		return go_live(a);
	case ACTION_PAUSE:
		a->in_progress = false;
		if (a->mode != APP_LIVE)
			return go_live(a);
		if (!model_latest(a->m))
			return APP_REDRAW;
		a->mode = APP_PAUSED;
		a->shown = model_latest(a->m)->seq;
		a->arrived = 0;
		refresh_view(a);
		return APP_REDRAW;
	case ACTION_PROGRESS:
		if (a->o.replay) {
			app_set_status(a, false,
			               "replay has no window in progress");
			return APP_REDRAW;
		}
		a->in_progress = !a->in_progress;
		if (a->in_progress && !a->have_progress)
			app_set_status(
			    a, false,
			    "the window in progress shows at its first partial figures (every -r period, where the source reports them)");
		progress_body(a);
		refresh_view(a);
		return APP_REDRAW;
	case ACTION_SAVE_PPROF:
		return save(a, false);
	case ACTION_SAVE_COLLAPSED:
		return save(a, true);
	case ACTION_FILTER:
		a->editing = true;
		return APP_REDRAW;
	case ACTION_DETAIL:
	case ACTION_COMPARE:
	case ACTION_MARK:
	case ACTION_TREE:
	case ACTION_TREE_EXPAND:
	case ACTION_TREE_COLLAPSE:
	case ACTION_TREE_EXPAND_ALL:
	case ACTION_FLAME:
	case ACTION_GROUP_PARKED:
	case ACTION_GROUP_NAME:
	case ACTION_WARNINGS:
		return app_view_action(a, act);
	case ACTION_HELP:
		a->help = !a->help;
		a->help_top = 0;
		return APP_REDRAW;
	case ACTION_REDRAW:
		return APP_REDRAW | APP_REPAINT;
	case ACTION_SUSPEND:
		return APP_SUSPEND;
	case ACTION_QUIT:
		return APP_QUIT;
	case ACTION_COUNT:
		break;
	}
	return 0;
}

static void filter_changed(struct app *a)
{
	memcpy(a->pv.filter, a->v.filter, sizeof(a->v.filter));
	a->pv.filter_len = a->v.filter_len;
	refresh_view(a);
}

/* A key typed or erased in the prompt: the rows follow when next read. */
static void filter_edited(struct app *a)
{
	memcpy(a->pv.filter, a->v.filter, sizeof(a->v.filter));
	a->pv.filter_len = a->v.filter_len;
	a->filter_stale = true;
}

static unsigned edit_filter(struct app *a, int key)
{
	struct view *v = &a->v;

	if (key == KC_ESC) {
		v->filter_len = 0;
		v->filter[0] = '\0';
		a->editing = false;
		filter_changed(a);
		return APP_REDRAW;
	}
	if (key == KC_ENTER || key == '\r' || key == '\n') {
		a->editing = false;
		(void)app_view(a); /* the rows of the text kept */
		return APP_REDRAW;
	}
	if (key == KC_BACKSPACE || key == 0x7f || key == 0x08) {
		/* drop one whole UTF-8 character */
		while (v->filter_len &&
		       ((unsigned char)v->filter[--v->filter_len] & 0xC0) ==
		           0x80)
			;
		v->filter[v->filter_len] = '\0';
		filter_edited(a);
		return APP_REDRAW;
	}
	if (key >= 0x20 && key < 0x110000 && !utf8_is_control((uint32_t)key)) {
		char enc[4];
		size_t n;
		uint32_t c = (uint32_t)key;

		if (c < 0x80) {
			enc[0] = (char)c;
			n = 1;
		} else if (c < 0x800) {
			enc[0] = (char)(0xC0 | (c >> 6));
			enc[1] = (char)(0x80 | (c & 0x3F));
			n = 2;
		} else if (c < 0x10000) {
			enc[0] = (char)(0xE0 | (c >> 12));
			enc[1] = (char)(0x80 | ((c >> 6) & 0x3F));
			enc[2] = (char)(0x80 | (c & 0x3F));
			n = 3;
		} else {
			enc[0] = (char)(0xF0 | (c >> 18));
			enc[1] = (char)(0x80 | ((c >> 12) & 0x3F));
			enc[2] = (char)(0x80 | ((c >> 6) & 0x3F));
			enc[3] = (char)(0x80 | (c & 0x3F));
			n = 4;
		}
		if (v->filter_len + n < sizeof(v->filter)) {
			memcpy(v->filter + v->filter_len, enc, n);
			v->filter_len += n;
			v->filter[v->filter_len] = '\0';
			filter_edited(a);
		}
		return APP_REDRAW;
	}
	return 0;
}

unsigned app_key(struct app *a, int key)
{
	unsigned flags;

	if (key == KC_RESIZE)
		return APP_REDRAW;
	if (a->editing)
		return edit_filter(a, key);
	if (!a->help && (flags = app_view_key(a, key)))
		return flags;
	if (key == KC_ESC) {
		if (a->help) {
			a->help = false;
			return APP_REDRAW;
		}
		if (a->body != APP_BODY_TABLE) {
			a->body = APP_BODY_TABLE;
			return APP_REDRAW;
		}
		if (a->v.filter_len) {
			a->v.filter_len = 0;
			a->v.filter[0] = '\0';
			filter_changed(a);
			return APP_REDRAW;
		}
		return 0;
	}
	return app_do(a, keymap_lookup(key));
}

unsigned app_mouse(struct app *a, size_t x, size_t y, int wheel)
{
	struct view *v = app_view(a);
	struct layout lay;

	/* a view's lines are not the table's rows: the wheel moves in the
	 * view, a click does nothing */
	if (a->body != APP_BODY_TABLE) {
		for (int i = 0; i < 3 && wheel; i++)
			(void)app_view_move(
			    a, wheel < 0 ? ACTION_UP : ACTION_DOWN, 1);
		return wheel ? APP_REDRAW : 0;
	}
	if (wheel) {
		view_move(v, wheel * 3);
		return APP_REDRAW;
	}
	if (y == RENDER_TOP_ROWS - 1) {
		size_t col = 0;

		layout_compute(a->cols, a->v.metric, &lay);
		for (int i = 0; i < METRIC_COUNT; i++) {
			size_t w;
			if (!lay.metric[i])
				continue;
			w = metric_is_duration((enum metric)i)
			        ? LAYOUT_DURATION_COLS
			        : LAYOUT_COUNT_COLS;
			if (x >= col && x < col + w)
				return app_do(
				    a, (enum action)(ACTION_WEIGHT_IDLE + i));
			col += w;
		}
		return 0;
	}
	if (y >= RENDER_TOP_ROWS && a->rows > RENDER_BOTTOM_ROWS &&
	    y < a->rows - RENDER_BOTTOM_ROWS) {
		view_select(v, v->top + (y - RENDER_TOP_ROWS));
		return APP_REDRAW;
	}
	return 0;
}

enum status app_save_path(char *dst, size_t size, const char *dir,
                          const char *adapter, const struct window *w,
                          int metric)
{
	time_t t = (time_t)(w->meta.time_nanos / 1000000000);
	struct tm tm;
	char when[32];
	int n;

	if (w->meta.time_nanos <= 0 || !gmtime_r(&t, &tm) ||
	    !strftime(when, sizeof(when), "%Y%m%dT%H%M%SZ", &tm))
		snprintf(when, sizeof(when), "00000000T000000Z");
	if (metric >= 0)
		n = snprintf(
		    dst, size,
		    "%s/asynctop-%s-%s-w%" PRIu64 "-%s.collapsedstack.txt", dir,
		    adapter, when, w->seq, metric_name((enum metric)metric));
	else
		n = snprintf(dst, size, "%s/asynctop-%s-%s-w%" PRIu64 ".pb.gz",
		             dir, adapter, when, w->seq);
	return n < 0 || (size_t)n >= size ? STATUS_INVAL : STATUS_OK;
}
