/* The warning rules, evaluated on a window's rows. */
#include "tui/warn.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "encode/humanize.h"
#include "model/alloc.h"
#include "model/extras.h"

static const struct {
	const char *name, *help;
} rules[WARN_COUNT] = {
#define WARN_ROW(id, n, h) [WARN_##id] = { .name = n, .help = h },
	WARN_LIST(WARN_ROW)
#undef WARN_ROW
};

const char *warn_name(enum warn_rule r)
{
	return (unsigned)r < WARN_COUNT ? rules[r].name : "?";
}

const char *warn_help(enum warn_rule r)
{
	return (unsigned)r < WARN_COUNT ? rules[r].help : "?";
}

void warn_init(struct warnings *ws)
{
	memset(ws, 0, sizeof(*ws));
}

void warn_fini(struct warnings *ws)
{
	mem_free(ws->v);
	mem_free(ws->rows);
	warn_init(ws);
}

/* Idle all window: waiting and nothing else, not even a wake. */
static bool idle_only(const struct metrics *m)
{
	return m->v[METRIC_IDLE] && !m->v[METRIC_BUSY] && !m->v[METRIC_SCHED] &&
	       !m->v[METRIC_POLLS] && !m->v[METRIC_WAKES];
}

/* The stuck-idle streak of stack, counted back from window index at (w
 * itself, idle already) to index lo, up to want. */
static uint64_t idle_streak(const struct model *m, size_t at, size_t lo,
                            uint32_t stack, uint64_t want)
{
	uint64_t n = 1;

	while (n < want && at > lo) {
		const struct window *p = model_window(m, --at);
		size_t r = window_find_row(p, stack);

		if (r == SIZE_MAX || !idle_only(&p->rows[r].m))
			break;
		n++;
	}
	return n;
}

/* Where w is among m's kept windows, or SIZE_MAX. */
static size_t kept_index(const struct model *m, const struct window *w)
{
	size_t n = model_window_count(m);

	for (size_t i = n; i-- > 0;)
		if (model_window(m, i) == w)
			return i;
	return SIZE_MAX;
}

static enum status add(struct warnings *ws, uint32_t row, enum warn_rule r,
                       uint64_t figure, uint64_t of)
{
	if (mem_grow(&ws->v, &ws->cap, ws->n + 1, sizeof(*ws->v)))
		return STATUS_NOMEM;
	ws->v[ws->n++] = (struct warning){
		.row = row, .rule = r, .figure = figure, .of = of
	};
	ws->rows[row / 64] |= (uint64_t)1 << (row % 64);
	ws->rule_count[r]++;
	return STATUS_OK;
}

/* Rule r on row i; adds its warning when it holds. */
static enum status rule(struct warnings *ws, const struct model *m,
                        const struct window *w, size_t at, size_t lo,
                        uint32_t i, enum warn_rule r)
{
	const struct fold_row *fr = &w->rows[i];
	uint64_t wakes = fr->m.v[METRIC_WAKES], polls = fr->m.v[METRIC_POLLS];
	uint64_t a = 0, b = 0;
	bool ka, kb;

	switch (r) {
	case WARN_LONG_POLL:
		ka = extras_get(&fr->x, EXTRA_MAX_POLL, &a);
		kb = extras_get(&fr->x, EXTRA_POLL_NOW, &b);
		a = ka ? a : 0;
		b = kb ? b : 0;
		a = a > b ? a : b;
		return (ka || kb) && a >= ws->cfg.poll_ns
		           ? add(ws, i, r, a, ws->cfg.poll_ns)
		           : STATUS_OK;
	case WARN_NO_WAKER:
		return extras_get(&fr->x, EXTRA_NO_WAKER, &a) && a
		           ? add(ws, i, r, a, 0)
		           : STATUS_OK;
	case WARN_SELF_WAKES:
		return extras_get(&fr->x, EXTRA_SELF_WAKES, &a) &&
		               wakes >= WARN_SELF_WAKES_MIN && a > wakes / 2
		           ? add(ws, i, r, a, wakes)
		           : STATUS_OK;
	case WARN_STUCK_IDLE:
		/* the kept windows are by spawn stack: only such rows */
		if (at == SIZE_MAX || w->group.key != GROUP_SPAWN ||
		    w->group.by_name || !idle_only(&fr->m))
			return STATUS_OK;
		a = idle_streak(m, at, lo, fr->stack, ws->cfg.idle_windows);
		return a >= ws->cfg.idle_windows
		           ? add(ws, i, r, a, ws->cfg.idle_windows)
		           : STATUS_OK;
	case WARN_WAKE_STORM:
		return wakes >= WARN_STORM_MIN &&
		               wakes / WARN_STORM_FACTOR >= polls
		           ? add(ws, i, r, wakes, polls)
		           : STATUS_OK;
	default:
		return STATUS_OK;
	}
}

/* Orders the warnings by rule, each rule's by row (a stable counting
 * sort of those found in row order). */
static enum status by_rule(struct warnings *ws)
{
	struct warning *v;
	size_t at[WARN_COUNT], sum = 0;

	if (ws->n < 2)
		return STATUS_OK;
	v = mem_calloc(ws->n, sizeof(*v));
	if (!v)
		return STATUS_NOMEM;
	for (int r = 0; r < WARN_COUNT; r++) {
		at[r] = sum;
		sum += ws->rule_count[r];
	}
	for (size_t i = 0; i < ws->n; i++)
		v[at[ws->v[i].rule]++] = ws->v[i];
	memcpy(ws->v, v, ws->n * sizeof(*v));
	mem_free(v);
	return STATUS_OK;
}

/* The rules on w, whose history is m's kept windows [lo, at). */
static enum status eval(struct warnings *ws, const struct model *m,
                        const struct window *w, const struct warn_cfg *cfg,
                        size_t at, size_t lo)
{
	size_t words;

	ws->ok = false;
	ws->n = 0;
	ws->nrows = 0;
	memset(ws->rule_count, 0, sizeof(ws->rule_count));
	words = (w->nrows + 63) / 64;
	if (mem_grow(&ws->rows, &ws->rows_cap, words ? words : 1,
	             sizeof(*ws->rows)))
		return STATUS_NOMEM;
	memset(ws->rows, 0, (words ? words : 1) * sizeof(*ws->rows));
	ws->cfg = *cfg;
	/* one pass over the rows (a row is a cache line or two: a pass per
	 * rule cost five times the memory traffic), then by rule */
	for (size_t i = 0; !w->empty && i < w->nrows; i++)
		for (int r = 0; r < WARN_COUNT; r++)
			if (rule(ws, m, w, at, lo, (uint32_t)i,
			         (enum warn_rule)r) != STATUS_OK) {
				ws->n = 0;
				return STATUS_NOMEM;
			}
	if (by_rule(ws) != STATUS_OK) {
		ws->n = 0;
		return STATUS_NOMEM;
	}
	ws->nrows = w->nrows;
	ws->m = m;
	ws->w = w;
	ws->seq = w->seq;
	ws->group = w->group;
	ws->ok = true;
	return STATUS_OK;
}

bool warn_holds(const struct warnings *ws, const struct model *m,
                const struct window *w, const struct warn_cfg *cfg)
{
	return ws->ok && ws->m == m && ws->w == w && ws->seq == w->seq &&
	       ws->group.key == w->group.key &&
	       ws->group.by_name == w->group.by_name &&
	       ws->cfg.poll_ns == cfg->poll_ns &&
	       ws->cfg.idle_windows == cfg->idle_windows;
}

enum status warn_eval(struct warnings *ws, const struct model *m,
                      const struct window *w, const struct warn_cfg *cfg)
{
	if (warn_holds(ws, m, w, cfg))
		return STATUS_OK;
	/* the stuck-idle streak needs the kept windows before w */
	return eval(ws, m, w, cfg, kept_index(m, w), 0);
}

enum status warn_eval_next(struct warnings *ws, const struct model *m,
                           const struct window *w, const struct warn_cfg *cfg)
{
	size_t n = model_window_count(m),
	       max = model_get_limits(m)->max_windows;

	/* the windows that stay once w is kept: the newest max - 1 */
	return eval(ws, m, w, cfg, n, n + 1 > max ? n + 1 - max : 0);
}

void warn_adopt(struct warnings *ws, struct warnings *next,
                const struct window *w)
{
	struct warnings t;

	if (!next->ok || next->w != w)
		return;
	next->seq = w->seq;
	t = *ws;
	*ws = *next;
	*next = t;
	next->ok = false;
}

void warn_figure(const struct warning *wn, char *dst, size_t size)
{
	char a[HUMAN_BUFSZ], b[HUMAN_BUFSZ];

	switch (wn->rule) {
	case WARN_LONG_POLL:
		human_duration(a, sizeof(a), wn->figure);
		human_duration(b, sizeof(b), wn->of);
		snprintf(dst, size, "longest poll %s (threshold %s)", a, b);
		return;
	case WARN_NO_WAKER:
		human_count(a, sizeof(a), wn->figure);
		snprintf(dst, size, "%s task%s parked with no waker", a,
		         wn->figure == 1 ? "" : "s");
		return;
	case WARN_SELF_WAKES:
		human_count(a, sizeof(a), wn->figure);
		human_count(b, sizeof(b), wn->of);
		snprintf(dst, size, "%s of %s wakes were self-wakes", a, b);
		return;
	case WARN_STUCK_IDLE:
		snprintf(dst, size,
		         "idle with no wakes for %" PRIu64 " windows",
		         wn->figure);
		return;
	case WARN_WAKE_STORM:
		human_count(a, sizeof(a), wn->figure);
		human_count(b, sizeof(b), wn->of);
		snprintf(dst, size, "%s wakes for %s polls", a, b);
		return;
	default:
		snprintf(dst, size, "?");
		return;
	}
}
