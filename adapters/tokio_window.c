/* The tokio adapter's windows: a task's figures at an Update's now with
 * tokio-console's formulas, baselines at the window's start, and the
 * samples of the difference between the two (docs/tokio.md). */
#include "adapters/tokio_int.h"

#include <string.h>

#include "model/reserved.h"

/* ---- a task's figures at now --------------------------------------------- */

static uint64_t diff(int64_t a, int64_t b)
{
	return a > b ? (uint64_t)a - (uint64_t)b : 0;
}

/* A poll started and not ended: the task is running. */
static bool polling(const struct tokio_stats *st)
{
	return (st->flags & TOKIO_HAS_STARTED) &&
	       (!(st->flags & TOKIO_HAS_ENDED) || st->started > st->ended);
}

/* A wake since the last poll started: the task waits for the executor. */
static bool scheduled(const struct tokio_stats *st)
{
	return (st->flags & TOKIO_HAS_WAKE) &&
	       (!(st->flags & TOKIO_HAS_STARTED) ||
	        st->last_wake > st->started);
}

void tokio_stats_at(const struct tokio_stats *st, int64_t now,
                    struct metrics *m, uint64_t *poll_now)
{
	bool dropped = st->flags & TOKIO_HAS_DROPPED;
	int64_t end = dropped ? st->dropped : now;
	uint64_t total = diff(end, st->created), busy = st->busy,
	         sched = st->sched, running = 0;

	if (polling(st) && !dropped) {
		running = diff(now, st->started);
		busy = u64_add_sat(busy, running);
	}
	if (scheduled(st) && !dropped)
		sched = u64_add_sat(sched, diff(now, st->last_wake));
	memset(m, 0, sizeof(*m));
	m->v[METRIC_BUSY] = busy;
	m->v[METRIC_SCHED] = sched;
	m->v[METRIC_IDLE] =
	    total > u64_add_sat(busy, sched) ? total - busy - sched : 0;
	m->v[METRIC_POLLS] = st->polls;
	m->v[METRIC_WAKES] = st->wakes;
	if (poll_now)
		*poll_now = running;
}

/* ---- windows ------------------------------------------------------------- */

void tokio_state_roll(struct tokio_state *s)
{
	size_t i = 0;

	while (i < s->ntasks) {
		struct tokio_task *t = &s->tasks[i];
		uint64_t ignored;

		if ((t->flags & TOKIO_RETIRED) ||
		    ((t->s.flags & TOKIO_HAS_DROPPED) &&
		     t->s.dropped <= s->now)) {
			tokio_task_remove(s, i);
			continue;
		}
		tokio_stats_at(&t->s, s->now, &t->base, &ignored);
		t->base_self = t->s.self_wakes;
		t->flags |= TOKIO_HAS_BASE;
		i++;
	}
	s->start = s->now;
	s->have_start = true;
	s->dropped = 0;
	s->malformed = 0;
}

/* tokio-console's lost-waker lint at now: a task polled before, not
 * done, neither running nor woken, that holds no waker, can never be
 * polled again.  A blocking task is not woken by wakers, and one never
 * polled yet waits in the run queue where its spawn put it. */
static bool lost_waker(const struct tokio_state *s, const struct tokio_task *t)
{
	const struct tokio_stats *st = &t->s;

	if ((st->flags & TOKIO_HAS_DROPPED) && st->dropped <= s->now)
		return false;
	return (st->flags & TOKIO_HAS_STARTED) && !polling(st) &&
	       !scheduled(st) && st->clones <= st->drops &&
	       !sv_eq(intern_view(&s->strs, t->kind), sv_c("blocking"));
}

/* Task t's figures in the window; a task first seen in it, though created
 * before it, counts its life from the window's start. */
static void task_window(const struct tokio_state *s, const struct tokio_task *t,
                        struct sample *out)
{
	struct metrics base;
	uint64_t poll_now;
	int i;

	tokio_stats_at(&t->s, s->now, &out->m, &poll_now);
	memset(&base, 0, sizeof(base));
	if (t->flags & TOKIO_HAS_BASE)
		base = t->base;
	else
		base.v[METRIC_IDLE] = diff(s->start, t->s.created);
	for (i = 0; i < METRIC_COUNT; i++)
		out->m.v[i] =
		    out->m.v[i] > base.v[i] ? out->m.v[i] - base.v[i] : 0;
	out->x.v[EXTRA_SELF_WAKES] =
	    diff((int64_t)t->s.self_wakes,
	         (int64_t)((t->flags & TOKIO_HAS_BASE) ? t->base_self : 0));
	out->x.v[EXTRA_WAKERS] =
	    t->s.clones > t->s.drops ? t->s.clones - t->s.drops : 0;
	out->x.v[EXTRA_POLL_NOW] = poll_now;
	out->x.v[EXTRA_NO_WAKER] = lost_waker(s, t) ? 1 : 0;
	out->x.known = 1u << EXTRA_SELF_WAKES | 1u << EXTRA_WAKERS |
	               1u << EXTRA_POLL_NOW | 1u << EXTRA_NO_WAKER;
}

enum status tokio_state_emit(struct tokio_state *s,
                             const struct sample_sink *sink)
{
	size_t i;

	for (i = 0; i < s->ntasks; i++) {
		const struct tokio_task *t = &s->tasks[i];
		size_t depth = 0;
		struct sample smp = { .tasks = 1 };
		enum status st;

		if (!(t->flags & TOKIO_HAS_STATS))
			continue; /* nothing known of it yet */
		if ((t->s.flags & TOKIO_HAS_DROPPED) && s->have_start &&
		    t->s.dropped < s->start)
			continue; /* ended before the window */
		if (t->kind)
			s->frames[depth++] = intern_view(&s->strs, t->kind);
		if (t->loc)
			s->frames[depth++] = intern_view(&s->strs, t->loc);
		else if (depth)
			s->frames[depth++] =
			    reserved_name(RESERVED_SPAWN_UNKNOWN);
		smp.frames = s->frames;
		smp.depth = depth;
		smp.task = intern_view(&s->strs, t->name);
		task_window(s, t, &smp);
		st = sink->sample(sink->ctx, &smp);
		if (st != STATUS_OK && st != STATUS_LIMIT)
			return st;
	}
	return STATUS_OK;
}
