/* The collect_* functions of the adapter contract (adapters/adapter.h):
 * what an adapter calls inside collect, on the worker thread, to read its
 * window's bounds, add samples, wait, and report progress or failure. */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "adapters/adapter.h"
#include "adapters/batch.h"
#include "adapters/worker_int.h"
#include "model/alloc.h"

uint64_t collect_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* ---- owned metadata ----------------------------------------------------- */

void meta_own_fini(struct meta_own *o)
{
	size_t i;

	mem_free(o->reason);
	mem_free(o->source);
	for (i = 0; i < o->ncomments; i++)
		mem_free(o->comments[i]);
	mem_free(o->comments);
	memset(o, 0, sizeof(*o));
}

char *worker_dup_str(const char *s, bool *nomem)
{
	char *d;

	if (!s)
		return NULL;
	d = mem_strndup(s, strlen(s));
	if (!d)
		*nomem = true;
	return d;
}

static void meta_own_view(struct meta_own *o)
{
	o->meta.reason = o->reason;
	o->meta.source = o->source;
	o->meta.comments = (const char *const *)o->comments;
	o->meta.ncomments = o->ncomments;
}

/* Replaces o with a deep copy of src; STATUS_NOMEM leaves o empty. */
static enum status meta_own_set(struct meta_own *o,
                                const struct window_meta *src)
{
	bool nomem = false;

	meta_own_fini(o);
	o->meta = *src;
	o->reason = worker_dup_str(src->reason, &nomem);
	o->source = worker_dup_str(src->source, &nomem);
	if (src->ncomments && src->comments) {
		o->comments = mem_calloc(src->ncomments, sizeof(*o->comments));
		if (!o->comments)
			nomem = true;
		for (size_t i = 0; o->comments && i < src->ncomments; i++) {
			o->comments[i] =
			    worker_dup_str(src->comments[i], &nomem);
			o->ncomments = i + 1;
		}
	}
	meta_own_view(o);
	if (nomem) {
		meta_own_fini(o);
		return STATUS_NOMEM;
	}
	return STATUS_OK;
}

/* ---- inside collect ----------------------------------------------------- */

uint64_t collect_length(const struct collect *c)
{
	return c->length;
}

uint64_t collect_start(const struct collect *c)
{
	return c->start;
}

uint64_t collect_deadline(const struct collect *c)
{
	return c->deadline;
}

void collect_restart(struct collect *c)
{
	struct worker *w = c->w;
	uint64_t now = collect_now();

	if (now > c->start)
		c->start_real += (int64_t)(now - c->start);
	c->start = now;
	c->deadline = u64_add_sat(now, c->length);
	pthread_mutex_lock(&w->mu);
	w->cur_deadline = c->deadline; /* the watchdog counts from here */
	pthread_cond_broadcast(&w->cond);
	pthread_mutex_unlock(&w->mu);
}

void collect_hold(struct collect *c, uint64_t until_ns)
{
	struct worker *w = c->w;

	pthread_mutex_lock(&w->mu);
	if (until_ns > w->cur_hold) {
		w->cur_hold = until_ns;
		pthread_cond_broadcast(&w->cond);
	}
	pthread_mutex_unlock(&w->mu);
}

uint64_t collect_index(const struct collect *c)
{
	return c->index;
}

uint64_t collect_refresh(const struct collect *c)
{
	return c->w->o.refresh_ns ? c->w->o.refresh_ns : REFRESH_DEFAULT_NS;
}

int collect_stop_fd(const struct collect *c)
{
	return c->w->stop_rfd;
}

bool collect_stopping(const struct collect *c)
{
	bool s;

	pthread_mutex_lock(&c->w->mu);
	s = c->w->stop || c->w->end_now;
	pthread_mutex_unlock(&c->w->mu);
	return s;
}

enum status collect_wait_until(struct collect *c, uint64_t deadline_ns)
{
	struct worker *w = c->w;
	enum status st = STATUS_OK;

	pthread_mutex_lock(&w->mu);
	for (;;) {
		uint64_t now;
		struct timespec ts;

		if (w->stop || w->end_now) {
			st = STATUS_STOPPED;
			break;
		}
		now = collect_now();
		if (now >= deadline_ns)
			break;
		if (deadline_ns - now > (uint64_t)86400 * 1000000000u) {
			pthread_cond_wait(&w->cond, &w->mu);
			continue;
		}
		ts.tv_sec = (time_t)(deadline_ns / 1000000000u);
		ts.tv_nsec = (long)(deadline_ns % 1000000000u);
		pthread_cond_timedwait(&w->cond, &w->mu, &ts);
	}
	pthread_mutex_unlock(&w->mu);
	return st;
}

enum status collect_add(struct collect *c, const struct sample *s)
{
	enum status st = batch_add(&c->batch, s);

	return st == STATUS_INVAL ? STATUS_LIMIT : st;
}

void collect_dropped(struct collect *c, uint64_t n)
{
	c->batch.dropped = u64_add_sat(c->batch.dropped, n);
}

void collect_clear(struct collect *c)
{
	uint64_t dropped = c->batch.dropped;

	batch_clear(&c->batch);
	c->batch.dropped = dropped;
}

void collect_set_meta(struct collect *c, const struct window_meta *meta)
{
	c->meta_set = true;
	if (meta_own_set(&c->own, meta) != STATUS_OK)
		c->meta_nomem = true;
}

void collect_state(struct collect *c, enum source_state st,
                   uint64_t retry_in_ns)
{
	struct msg_node *n = worker_node_new(WORKER_STATE, c->index);

	if (!n) {
		worker_lost(c->w);
		return;
	}
	n->msg.state = st;
	n->msg.retry_in_ns = retry_in_ns;
	worker_push(c->w, n);
}

/* The worker's own measurement of c from start to end (ns, monotonic). */
void collect_measured(const struct collect *c, uint64_t end,
                      struct window_meta *m)
{
	memset(m, 0, sizeof(*m));
	m->time_nanos = c->start_real;
	m->duration_nanos = (int64_t)(end - c->start);
	m->requested_nanos = c->w->requested;
	m->clamped = c->w->clamped;
	m->dropped = c->batch.dropped;
}

enum status collect_progress(struct collect *c)
{
	struct msg_node *n = worker_node_new(WORKER_PROGRESS, c->index);

	if (!n)
		return STATUS_NOMEM;
	if (batch_copy(&n->batch, &c->batch) != STATUS_OK) {
		worker_node_free(n);
		return STATUS_NOMEM;
	}
	collect_measured(c, collect_now(), &n->msg.meta);
	n->msg.meta.partial = true;
	n->msg.meta.reason = "in progress";
	n->msg.nsamples = n->batch.n;
	worker_push_progress(c->w, n);
	return STATUS_OK;
}

enum status collect_fail(struct collect *c, enum status st, const char *detail,
                         const char *remediation)
{
	c->failed = true;
	worker_set_error(&c->err, st, detail, remediation);
	return st;
}
