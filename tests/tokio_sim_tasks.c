/* The console-api simulator's tasks: each one's cycle worked out as ground
 * truth and as the Stats console-subscriber would send, the tasks of a
 * scenario in spawn order, and the Update a call gets. */
#include "tests/tokio_sim_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/tokio_sim_build.h"

static uint64_t clampu(uint64_t v, uint64_t lo, uint64_t hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

static uint64_t t0_of(const struct sim_family *f, size_t i)
{
	return f->spawn + i * f->stagger;
}

static uint64_t period(const struct sim_family *f)
{
	return f->busy + f->idle + f->sched;
}

/* When the task completes (the end of its last poll), or UINT64_MAX. */
static uint64_t td_of(const struct sim_family *f, size_t i)
{
	return f->polls ? t0_of(f, i) + (f->polls - 1) * period(f) + f->busy
	                : UINT64_MAX;
}

/* Cumulative figures at t by integrating the cycle. */
static void truth_at(const struct sim_family *f, size_t i, uint64_t t,
                     struct metrics *m)
{
	uint64_t t0 = t0_of(f, i), td = td_of(f, i), P = period(f), k, r;
	uint64_t lived;

	memset(m, 0, sizeof(*m));
	if (t < t0)
		return;
	lived = (t < td ? t : td) - t0;
	k = lived / P;
	r = lived % P;
	if (t >= td) { /* it ends as its last poll does */
		k = f->polls - 1;
		r = f->busy;
	}
	m->v[METRIC_BUSY] = k * f->busy + (r < f->busy ? r : f->busy);
	m->v[METRIC_IDLE] =
	    k * f->idle + clampu(r, f->busy, f->busy + f->idle) - f->busy;
	m->v[METRIC_SCHED] = k * f->sched + clampu(r, f->busy + f->idle, P) -
	                     (f->busy + f->idle);
	m->v[METRIC_POLLS] = k + 1;
	/* the wake that ends the idle part: at its end, unless the task
	 * ended there (then r is exactly busy) */
	m->v[METRIC_WAKES] = (k + (r >= f->busy + f->idle && t < td ? 1 : 0)) *
	                     (f->wakes ? f->wakes : 1);
}

void sim_truth(const struct sim_family *f, size_t i, uint64_t a, uint64_t b,
               struct metrics *m)
{
	struct metrics x, y;
	int j;

	truth_at(f, i, a, &x);
	truth_at(f, i, b, &y);
	for (j = 0; j < METRIC_COUNT; j++)
		m->v[j] = y.v[j] - x.v[j];
}

/* Whether two Stats say the same, field by field: a memcmp would read the
 * padding after no_sched, which nothing sets. */
static bool stats_same(const struct tb_stats *a, const struct tb_stats *b)
{
	return a->span == b->span && a->created == b->created &&
	       a->dropped == b->dropped && a->last_wake == b->last_wake &&
	       a->started == b->started && a->ended == b->ended &&
	       a->busy == b->busy && a->sched == b->sched &&
	       a->no_sched == b->no_sched && a->polls == b->polls &&
	       a->wakes == b->wakes && a->self_wakes == b->self_wakes &&
	       a->clones == b->clones && a->drops == b->drops;
}

/* The Stats console-subscriber would send for the task at t (events, not
 * integrals: completed polls, the latest poll and wake). */
static void stats_at(const struct sim_family *f, size_t i, uint64_t span,
                     uint64_t t, bool old, struct tb_stats *s)
{
	uint64_t t0 = t0_of(f, i), td = td_of(f, i), P = period(f), k, r;
	uint64_t at = t < td ? t : td;
	int64_t base = SIM_EPOCH + (int64_t)t0;

	*s = tb_stats_none(span, base);
	s->no_sched = old;
	k = (at - t0) / P;
	r = (at - t0) % P;
	if (t >= td) { /* it ends as its last poll does */
		k = f->polls - 1;
		r = f->busy;
	}
	s->polls = k + 1;
	s->started = base + (int64_t)(k * P);
	s->busy = k * f->busy + (r >= f->busy ? f->busy : 0);
	if (r >= f->busy)
		s->ended = s->started + (int64_t)f->busy;
	else if (k > 0)
		s->ended = s->started - (int64_t)P + (int64_t)f->busy;
	s->wakes = (k + (r >= f->busy + f->idle && t < td ? 1 : 0)) *
	           (f->wakes ? f->wakes : 1);
	if (r >= f->busy + f->idle && t < td)
		s->last_wake = s->started + (int64_t)(f->busy + f->idle);
	else if (k > 0)
		s->last_wake =
		    s->started - (int64_t)P + (int64_t)(f->busy + f->idle);
	s->sched = k * f->sched;
	s->clones = s->wakes + 1;
	s->drops = s->wakes;
	if (t >= td) {
		s->dropped = SIM_EPOCH + (int64_t)td;
		s->drops = s->clones;
	}
}

static int cmp_t0(const void *a, const void *b)
{
	const struct sim_task *x = a, *y = b;

	return (x->t0 > y->t0) - (x->t0 < y->t0);
}

bool sim_tasks_build(const struct sim_scenario *sc, struct sim_task **tasks,
                     size_t *ntasks)
{
	struct sim_task *ts;
	size_t n = 0, nts = 0, i, j, k;

	for (i = 0; i < sc->nfam; i++)
		n += sc->fam[i].count;
	ts = calloc(n ? n : 1, sizeof(*ts));
	if (!ts)
		return false;
	for (i = 0; i < sc->nfam; i++)
		for (j = 0; j < sc->fam[i].count; j++) {
			struct sim_task *t = &ts[nts++];

			t->f = &sc->fam[i];
			t->i = j;
			t->t0 = t0_of(t->f, j);
			t->td = td_of(t->f, j);
		}
	qsort(ts, nts, sizeof(*ts), cmp_t0);
	for (i = 0; i < nts; i++) {
		ts[i].id = i + 1;
		ts[i].span = (i + 1) * 4096 + 1; /* span-id like */
		if (!sc->reuse)
			continue;
		/* the lowest span a completed task freed, else a new one */
		for (k = 0; k < i; k++) {
			bool taken = false;

			/* freed in an earlier Update than the spawn's, as
			 * one stats map cannot hold two tasks of one id */
			uint64_t I = sc->interval;
			uint64_t told = (ts[k].td + I - 1) / I * I;

			if (ts[k].td == UINT64_MAX || told >= ts[i].t0)
				continue;
			for (j = 0; j < i; j++)
				taken |= j != k && ts[j].span == ts[k].span &&
				         (ts[j].td + I - 1) / I * I >= ts[i].t0;
			if (!taken) {
				ts[i].span = ts[k].span;
				break;
			}
		}
	}
	*tasks = ts;
	*ntasks = nts;
	return true;
}

static struct tb_task describe(const struct sim_task *t, char *loc, size_t size,
                               uint32_t *line, uint32_t *col)
{
	struct tb_task d = {
		.span = t->span,
		.kind = t->f->kind,
		.name = t->f->named ? t->f->name : "",
		.task_id = t->id,
	};
	char *c2;

	snprintf(loc, size, "%s", t->f->loc);
	c2 = strrchr(loc, ':');
	if (c2) {
		char *c1;

		*c2 = '\0';
		c1 = strrchr(loc, ':');
		if (c1) {
			*c1 = '\0';
			*line = (uint32_t)strtoul(c1 + 1, NULL, 10);
			*col = (uint32_t)strtoul(c2 + 1, NULL, 10);
		} else {
			*line = (uint32_t)strtoul(c2 + 1, NULL, 10);
		}
	}
	if (*loc) {
		d.file = loc;
		d.line = *line;
		d.col = *col;
	}
	return d;
}

uint8_t *sim_update(const struct sim_scenario *sc, const struct sim_task *tasks,
                    size_t ntasks, uint64_t now, bool first, uint64_t prev,
                    size_t *len)
{
	struct tb_task *nt = calloc(ntasks + 1, sizeof(*nt));
	struct tb_stats *st = calloc(ntasks + 1, sizeof(*st));
	char(*locs)[128] = calloc(ntasks + 1, sizeof(*locs));
	uint32_t line, col;
	size_t n = 0, m = 0, i;
	uint8_t *out = NULL;

	if (!nt || !st || !locs)
		goto done;
	for (i = 0; i < ntasks; i++) {
		const struct sim_task *t = &tasks[i];
		struct tb_stats a, b;
		bool fresh =
		    first ? t->t0 <= now : t->t0 > prev && t->t0 <= now;

		if (t->t0 > now)
			break; /* sorted by spawn time */
		line = col = 0;
		if (fresh) {
			nt[n] =
			    describe(t, locs[n], sizeof(locs[n]), &line, &col);
			n++;
		}
		if (!fresh && t->td < prev)
			continue; /* completed and reported */
		stats_at(t->f, t->i, t->span, now, sc->old, &b);
		if (!fresh) {
			stats_at(t->f, t->i, t->span, prev, sc->old, &a);
			if (stats_same(&a, &b))
				continue; /* unchanged: not sent */
		}
		st[m++] = b;
	}
	out = tb_update(SIM_EPOCH + (int64_t)now, nt, n, st, m, 0, len);
done:
	free(nt);
	free(st);
	free(locs);
	return out;
}
