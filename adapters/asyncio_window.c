/* The asyncio adapter's window arithmetic: baselines, figures in the
 * window, spawn stacks root first, and the samples handed to collect. */
#include "adapters/asyncio_int.h"

#include <stdio.h>
#include <string.h>

#include "model/alloc.h"
#include "model/reserved.h"

/* ---- the window arithmetic ------------------------------------------------
 */

/* Task t's cumulative figures at boundary T (§6). */
void aio_task_at(const struct task *t, uint64_t T, struct metrics *m)
{
	uint64_t more =
	    t->state != TASK_DONE && T > t->t_mark ? T - t->t_mark : 0;

	memset(m, 0, sizeof(*m));
	m->v[METRIC_BUSY] = t->busy;
	m->v[METRIC_SCHED] = t->sched;
	m->v[METRIC_IDLE] = t->idle;
	m->v[METRIC_POLLS] = t->polls;
	m->v[METRIC_WAKES] = t->wakes;
	if (t->state == TASK_RUNNING)
		m->v[METRIC_BUSY] = u64_add_sat(t->busy, more);
	else if (t->state == TASK_SCHEDULED)
		m->v[METRIC_SCHED] = u64_add_sat(t->sched, more);
	else if (t->state == TASK_IDLE)
		m->v[METRIC_IDLE] = u64_add_sat(t->idle, more);
}

/* Task t's figures in the window ending at T: from its baseline, or from
 * zero when it was first received in the window; never negative. */
static void task_window(const struct task *t, uint64_t T, struct metrics *m)
{
	int i;

	aio_task_at(t, T, m);
	if (!t->has_base)
		return;
	for (i = 0; i < METRIC_COUNT; i++)
		m->v[i] = m->v[i] > t->base.v[i] ? m->v[i] - t->base.v[i] : 0;
}

static struct strview str_view(const struct aio *p, uint32_t ref)
{
	return ref ? sv_n(p->strs[ref - 1].p, p->strs[ref - 1].len)
	           : sv_n("", 0);
}

/* Fills *outp (capacity *cap) with a stack, root first: [thread NAME]
 * when asked, then [spawn site unknown] when unknown, else the chain of
 * stack from the leaf up to its 4096th frame or to the first link whose
 * root side the agent cut, or nothing for stack 0 (the model's [no spawn
 * stack]; spelled out under a thread frame).  *dropped gets the chain's
 * frames left out.  STATUS_NOMEM. */
static enum status stack_into(struct aio *p, struct strview **outp, size_t *cap,
                              uint32_t stack, bool unknown, bool thread,
                              uint32_t tref, size_t *depth, size_t *dropped)
{
	struct strview *out;
	size_t kept = 0, off = thread ? 1 : 0, d, pos;
	uint32_t s;

	if (unknown)
		stack = 0;
	for (s = stack; s; s = p->stks[s - 1].parent) {
		const struct stk *k = &p->stks[s - 1];
		size_t take = size_min(k->n, MAX_FRAMES - kept);

		kept += take;
		if (take < k->n || k->dropped || kept == MAX_FRAMES)
			break;
	}
	*dropped = stack ? (size_t)(p->stks[stack - 1].total - kept) : 0;
	d = stack ? kept : (unknown || thread) ? 1 : 0;
	if (mem_grow(outp, cap, off + d + 1, sizeof(**outp)) != STATUS_OK)
		return STATUS_NOMEM;
	out = *outp;
	if (thread) {
		struct strview n = str_view(p, tref);
		int k =
		    snprintf(p->thread_frame, sizeof(p->thread_frame),
		             "[thread %.*s]", (int)n.len, n.len ? n.ptr : "");

		out[0] = sv_n(p->thread_frame,
		              size_min((size_t)(k < 0 ? 0 : k),
		                       sizeof(p->thread_frame) - 1));
	}
	if (!stack) {
		if (d)
			out[off] =
			    reserved_name(unknown ? RESERVED_SPAWN_UNKNOWN
			                          : RESERVED_NO_STACK);
		*depth = off + d;
		return STATUS_OK;
	}
	pos = off + d;
	for (s = stack; s && pos > off; s = p->stks[s - 1].parent) {
		const struct stk *k = &p->stks[s - 1];
		uint32_t j;

		for (j = k->n; j > 0 && pos > off; j--)
			out[--pos] =
			    str_view(p, p->frame_pool[k->off + j - 1] + 1);
	}
	*depth = off + d;
	return STATUS_OK;
}

static enum status frames_of(struct aio *p, uint32_t stack, bool unknown,
                             bool thread, uint32_t tref, size_t *depth,
                             size_t *dropped)
{
	return stack_into(p, &p->out, &p->capout, stack, unknown, thread, tref,
	                  depth, dropped);
}

/* The figures beside the five that the agent tells for task t in the
 * window ending at T: self-wakes, the longest step (a step still running
 * at T counts as far as it went), that step's run so far, and whether it
 * waits where nothing can wake it. */
static void task_extras(const struct task *t, uint64_t T, struct extras *x)
{
	uint64_t now =
	    t->state == TASK_RUNNING && T > t->t_mark ? T - t->t_mark : 0;
	uint64_t base = t->has_base ? t->base_self_wakes : 0;

	memset(x, 0, sizeof(*x));
	x->v[EXTRA_SELF_WAKES] =
	    t->self_wakes > base ? t->self_wakes - base : 0;
	x->v[EXTRA_MAX_POLL] = t->max_step > now ? t->max_step : now;
	x->v[EXTRA_POLL_NOW] = now;
	x->v[EXTRA_NO_WAKER] = t->no_waker ? 1 : 0;
	x->known = 1u << EXTRA_SELF_WAKES | 1u << EXTRA_MAX_POLL |
	           1u << EXTRA_POLL_NOW | 1u << EXTRA_NO_WAKER;
}

/* Replaces the window's samples with every task's and site's figures
 * from the window's start to T. */
enum status aio_task_sample(struct aio *p, size_t i, uint64_t T,
                            struct sample *s)
{
	const struct task *t = &p->tasks[i];
	bool threads = p->loop_threads > 1;
	size_t depth, dropped, pdepth = 0, pdropped = 0;

	if (frames_of(p, t->stack, t->unknown_site, threads, t->thread, &depth,
	              &dropped) != STATUS_OK ||
	    (t->parked &&
	     stack_into(p, &p->pout, &p->cappout, t->parked, false, threads,
	                t->thread, &pdepth, &pdropped) != STATUS_OK))
		return STATUS_NOMEM;
	*s = (struct sample){
		.frames = p->out,
		.depth = depth,
		.task = str_view(p, t->name),
		.tasks = 1,
		.parked = pdepth ? p->pout : NULL,
		.parked_depth = pdepth,
		.dropped = dropped,
		.parked_dropped = pdropped,
	};
	task_window(t, T, &s->m);
	task_extras(t, T, &s->x);
	return STATUS_OK;
}

void aio_emit(struct aio *p, struct collect *c, uint64_t T)
{
	bool threads = p->loop_threads > 1;
	size_t i, depth, dropped;

	collect_clear(c);
	for (i = 0; i < p->ntasks; i++) {
		struct sample s;

		if (aio_task_sample(p, i, T, &s) != STATUS_OK) {
			collect_dropped(c, 1);
			continue;
		}
		if (collect_add(c, &s) != STATUS_OK)
			continue; /* counted as dropped by the worker */
	}
	for (i = 0; i < p->nsites; i++) {
		const struct site *x = &p->sites[i];
		uint64_t d[7];
		char name[64];
		struct sample s;
		int k;

		for (k = 0; k < 7; k++)
			d[k] =
			    x->cur[k] > x->base[k] ? x->cur[k] - x->base[k] : 0;
		if (!d[0])
			continue;
		if (frames_of(p, x->stack, false, threads, x->thread, &depth,
		              &dropped) != STATUS_OK) {
			collect_dropped(c, 1);
			continue;
		}
		memset(&s, 0, sizeof(s));
		k = snprintf(name, sizeof(name), "<%llu finished tasks>",
		             (unsigned long long)d[0]);
		s.frames = p->out;
		s.depth = depth;
		s.dropped = dropped;
		s.task = sv_n(name, (size_t)k);
		s.tasks = d[0];
		s.m.v[METRIC_POLLS] = d[1];
		s.m.v[METRIC_WAKES] = d[2];
		s.m.v[METRIC_BUSY] = d[3];
		s.m.v[METRIC_SCHED] = d[4];
		s.m.v[METRIC_IDLE] = d[5];
		s.x.v[EXTRA_SELF_WAKES] = d[6];
		s.x.known = 1u << EXTRA_SELF_WAKES;
		if (collect_add(c, &s) != STATUS_OK)
			continue;
	}
}

/* Makes T the start of the next window: finished tasks are forgotten,
 * the others keep their figures at T as their baseline. */
void aio_roll(struct aio *p, uint64_t T)
{
	size_t i = 0;

	while (i < p->ntasks) {
		struct task *t = &p->tasks[i];

		if (t->state != TASK_DONE) {
			aio_task_at(t, T, &t->base);
			t->base_self_wakes = t->self_wakes;
			t->max_step = 0;
			t->has_base = true;
			i++;
			continue;
		}
		aio_idmap_del(&p->task_ids, t->id);
		if (i + 1 < p->ntasks) {
			*t = p->tasks[p->ntasks - 1];
			(void)aio_idmap_put(&p->task_ids, t->id, (uint32_t)i);
		}
		p->ntasks--;
	}
	for (i = 0; i < p->nsites; i++)
		memcpy(p->sites[i].base, p->sites[i].cur,
		       sizeof(p->sites[i].base));
	if (p->nretiring) /* the finished tasks that named them are gone */
		aio_forget_retired(p);
	p->t_start = p->t_last = T;
}
