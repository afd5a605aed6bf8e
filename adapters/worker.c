/* The worker thread that runs one source's collect window after window,
 * its watchdog, and the message queue to the main thread (a mutex-guarded
 * list; the pipe only wakes poll()).  collect.c holds what adapters call
 * inside collect. */
#include "adapters/worker.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "adapters/batch.h"
#include "adapters/worker_int.h"
#include "model/alloc.h"

#define GRACE_DEFAULT_NS ((uint64_t)1000000000u)

static int64_t now_real(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + (int64_t)ts.tv_nsec;
}

/* ---- the queue ---------------------------------------------------------- */

struct msg_node *worker_node_new(enum worker_msg_kind kind, uint64_t index)
{
	struct msg_node *n = mem_calloc(1, sizeof(*n));

	if (!n)
		return NULL;
	n->msg.kind = kind;
	n->msg.index = index;
	n->msg.priv = n;
	batch_init(&n->batch);
	return n;
}

void worker_node_free(struct msg_node *n)
{
	if (!n)
		return;
	batch_fini(&n->batch);
	meta_own_fini(&n->own);
	mem_free(n);
}

static void drain(int fd)
{
	char b[64];

	while (read(fd, b, sizeof(b)) > 0)
		;
}

static void poke(int fd)
{
	ssize_t r;

	do
		r = write(fd, "", 1);
	while (r < 0 && errno == EINTR);
}

/* Appends n (mu held) and wakes the main thread if the queue was idle. */
static void push_locked(struct worker *w, struct msg_node *n)
{
	n->next = NULL;
	if (w->tail)
		w->tail->next = n;
	else
		w->head = n;
	w->tail = n;
	if (!w->signalled) {
		poke(w->wfd);
		w->signalled = true;
	}
}

void worker_push(struct worker *w, struct msg_node *n)
{
	pthread_mutex_lock(&w->mu);
	push_locked(w, n);
	pthread_mutex_unlock(&w->mu);
}

/* Pushes a progress view, replacing an undelivered one of the same window. */
void worker_push_progress(struct worker *w, struct msg_node *n)
{
	struct msg_node *p, *prev = NULL;

	pthread_mutex_lock(&w->mu);
	for (p = w->head; p; prev = p, p = p->next) {
		if (p->msg.kind != WORKER_PROGRESS ||
		    p->msg.index != n->msg.index)
			continue;
		n->next = p->next;
		if (prev)
			prev->next = n;
		else
			w->head = n;
		if (w->tail == p)
			w->tail = n;
		pthread_mutex_unlock(&w->mu);
		worker_node_free(p);
		return;
	}
	push_locked(w, n);
	pthread_mutex_unlock(&w->mu);
}

void worker_lost(struct worker *w)
{
	pthread_mutex_lock(&w->mu);
	w->lost = u64_add_sat(w->lost, 1);
	pthread_mutex_unlock(&w->mu);
}

void worker_set_error(struct adapter_error *e, enum status st,
                      const char *detail, const char *remediation)
{
	memset(e, 0, sizeof(*e));
	e->st = st;
	snprintf(e->detail, sizeof(e->detail), "%s", detail ? detail : "");
	snprintf(e->remediation, sizeof(e->remediation), "%s",
	         remediation ? remediation : "");
}

enum status worker_read(struct worker *w, struct worker_msg **out)
{
	struct msg_node *n;

	*out = NULL;
	pthread_mutex_lock(&w->mu);
	n = w->head;
	if (n) {
		w->head = n->next;
		if (!w->head)
			w->tail = NULL;
	}
	if (!w->head && w->signalled) {
		drain(w->rfd);
		w->signalled = false;
	}
	pthread_mutex_unlock(&w->mu);
	if (!n)
		return STATUS_AGAIN;
	n->next = NULL;
	*out = &n->msg;
	return STATUS_OK;
}

int worker_fd(const struct worker *w)
{
	return w->rfd;
}

enum status worker_msg_feed(const struct worker_msg *m,
                            const struct sample_sink *sink)
{
	const struct msg_node *n = m->priv;

	return batch_feed(&n->batch, sink);
}

enum status worker_msg_feed_from(const struct worker_msg *m, size_t *next,
                                 const struct sample_sink *sink)
{
	const struct msg_node *n = m->priv;

	return batch_feed_from(&n->batch, next, sink);
}

void worker_msg_free(struct worker_msg *m)
{
	if (m)
		worker_node_free(m->priv);
}

/* ---- the threads -------------------------------------------------------- */

static bool finite(const struct worker *w)
{
	return (w->a->ops->flags & ADAPTER_FINITE) != 0;
}

static void send_error(struct worker *w, uint64_t index,
                       const struct adapter_error *e)
{
	struct msg_node *n = worker_node_new(WORKER_ERROR, index);

	if (!n) {
		worker_lost(w);
		return;
	}
	n->msg.err = *e;
	worker_push(w, n);
}

/* Hands the finished window in c to the main thread. */
static void send_window(struct worker *w, struct collect *c, uint64_t end,
                        bool cut_by_stop)
{
	struct msg_node *n = worker_node_new(WORKER_WINDOW, c->index);
	struct window_meta *m;
	uint64_t dropped = c->batch.dropped;

	if (!n) {
		worker_lost(w);
		return;
	}
	batch_move(&n->batch, &c->batch);
	m = &n->own.meta;
	if (c->meta_set) {
		n->own = c->own;
		memset(&c->own, 0, sizeof(c->own));
		m->dropped = u64_add_sat(m->dropped, dropped);
		if (!finite(w)) {
			m->requested_nanos = w->requested;
			m->clamped = w->clamped;
		}
	} else {
		collect_measured(c, end, m);
		m->dropped = dropped;
	}
	if (!n->own.source) {
		char src[256];
		const char *ep = w->a->nendpoints ? w->a->endpoints[0] : "";
		bool nomem = false;

		snprintf(src, sizeof(src), "%s%s%s", w->a->ops->name,
		         *ep ? " " : "", ep);
		n->own.source = worker_dup_str(src, &nomem);
		m->source = n->own.source;
	}
	if (cut_by_stop && !m->partial) {
		m->partial = true;
		m->reason = "stopped";
	}
	n->msg.meta = *m;
	n->msg.nsamples = n->batch.n;
	worker_push(w, n);
}

static void begin(struct worker *w, struct collect *c, uint64_t index,
                  uint64_t start, int64_t start_real)
{
	c->index = index;
	c->length = w->length;
	c->start = start;
	c->deadline = u64_add_sat(start, w->length);
	c->start_real = start_real;
	batch_clear(&c->batch);
	meta_own_fini(&c->own);
	c->meta_set = c->meta_nomem = c->failed = false;
	memset(&c->err, 0, sizeof(c->err));
	pthread_mutex_lock(&w->mu);
	w->in_collect = true;
	w->timed_out = false;
	w->end_now = false;
	if (!w->stop)
		drain(w->stop_rfd);
	w->cur_index = index;
	w->cur_deadline = c->deadline;
	w->cur_hold = 0;
	pthread_cond_broadcast(&w->cond);
	pthread_mutex_unlock(&w->mu);
}

/* After a failed window of a live source: says when the next attempt is
 * due (WORKER_STATE RETRYING), waits for it or a stop, and returns the
 * time it ended, where the next window starts. */
static uint64_t retry_wait(struct worker *w, struct collect *c, uint64_t end)
{
	struct msg_node *n = worker_node_new(WORKER_STATE, c->index);
	uint64_t at;

	if (w->o.retry_base_ns)
		at = u64_add_sat(end,
		                 backoff_ns(w->o.retry_base_ns,
		                            w->o.retry_max_ns, w->failures));
	else
		at = c->deadline > end ? c->deadline : end;
	if (w->failures < UINT_MAX)
		w->failures++;
	if (n) {
		n->msg.state = SOURCE_RETRYING;
		n->msg.retry_in_ns = at - end;
		worker_push(w, n);
	} else {
		worker_lost(w);
	}
	(void)collect_wait_until(c, at);
	return collect_now();
}

static void *run(void *arg)
{
	struct worker *w = arg;
	const struct adapter_ops *ops = w->a->ops;
	struct collect c;
	sigset_t all;
	uint64_t mono, index = 0;
	int64_t real;

	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, NULL);
	memset(&c, 0, sizeof(c));
	c.w = w;
	batch_init(&c.batch);
	mono = collect_now();
	real = now_real();
	for (;;) {
		enum status st;
		uint64_t end;
		bool stopped, timed_out;

		pthread_mutex_lock(&w->mu);
		stopped = w->stop;
		pthread_mutex_unlock(&w->mu);
		if (stopped || (w->o.max_windows && index >= w->o.max_windows))
			break;
		begin(w, &c, ++index, mono, real);
		st = ops->collect(w->a, &c);
		if (st == STATUS_STOPPED)
			st = STATUS_OK;
		/* A live source that answers early with nothing is held to its
		 * window, so it cannot spin; a failed one waits for its retry
		 * below, once the failure is reported. */
		if (!finite(w) && st == STATUS_OK && !c.meta_set)
			(void)collect_wait_until(&c, c.deadline);
		end = collect_now();
		pthread_mutex_lock(&w->mu);
		w->in_collect = false;
		w->end_now = false;
		stopped = w->stop;
		timed_out = w->timed_out;
		pthread_cond_broadcast(&w->cond);
		pthread_mutex_unlock(&w->mu);
		if (st == STATUS_EOF) {
			break;
		} else if (timed_out) {
			/* Reported as a TIMEOUT already: the late result goes.
			 */
		} else if (st == STATUS_OK && c.meta_nomem) {
			worker_set_error(&c.err, STATUS_NOMEM,
			                 status_str(STATUS_NOMEM), NULL);
			send_error(w, c.index, &c.err);
		} else if (st == STATUS_OK) {
			send_window(w, &c, end,
			            stopped && !finite(w) && end < c.deadline);
		} else {
			if (!c.failed)
				worker_set_error(&c.err, st, status_str(st),
				                 NULL);
			c.err.st = st;
			send_error(w, c.index, &c.err);
		}
		if (st == STATUS_OK && !timed_out)
			w->failures = 0;
		else if (!finite(w) && !stopped)
			end = retry_wait(w, &c, end);
		real += (int64_t)(end - mono);
		mono = end;
	}
	batch_fini(&c.batch);
	meta_own_fini(&c.own);
	pthread_mutex_lock(&w->mu);
	w->done->msg.index = index;
	if (w->lost) {
		char d[128];

		snprintf(d, sizeof(d), "%llu messages were lost: %s",
		         (unsigned long long)w->lost, status_str(STATUS_NOMEM));
		worker_set_error(&w->done->msg.err, STATUS_NOMEM, d, NULL);
	}
	push_locked(w, w->done);
	w->done = NULL;
	pthread_mutex_unlock(&w->mu);
	return NULL;
}

/* Reports a collect that overran its window (or a stop) by the grace. */
static void *watch(void *arg)
{
	struct worker *w = arg;

	pthread_mutex_lock(&w->mu);
	while (!w->quit) {
		uint64_t from, lim;
		const char *what;
		struct timespec ts;

		if (!w->in_collect || w->timed_out || finite(w)) {
			pthread_cond_wait(&w->cond, &w->mu);
			continue;
		}
		from = w->cur_deadline;
		what = "the window's end";
		if (w->cur_hold > from) {
			from = w->cur_hold;
			what = "the end of its own timeout";
		}
		if (w->stop && w->stop_at < from) {
			from = w->stop_at;
			what = "the stop request";
		}
		if (w->end_now && w->end_at < from) {
			from = w->end_at;
			what = "the request to end the window";
		}
		lim = u64_add_sat(from, w->grace);
		if (collect_now() >= lim) {
			struct msg_node *n =
			    worker_node_new(WORKER_ERROR, w->cur_index);
			char d[160];

			w->timed_out = true;
			if (!n) {
				w->lost = u64_add_sat(w->lost, 1);
				continue;
			}
			snprintf(d, sizeof(d),
			         "the %s adapter did not return within %gs of "
			         "%s",
			         w->a->ops->name, (double)w->grace / 1e9, what);
			worker_set_error(&n->msg.err, STATUS_TIMEOUT, d, NULL);
			push_locked(w, n);
			continue;
		}
		if (lim - collect_now() > (uint64_t)86400 * 1000000000u) {
			pthread_cond_wait(&w->cond, &w->mu);
			continue;
		}
		ts.tv_sec = (time_t)(lim / 1000000000u);
		ts.tv_nsec = (long)(lim % 1000000000u);
		pthread_cond_timedwait(&w->cond, &w->mu, &ts);
	}
	pthread_mutex_unlock(&w->mu);
	return NULL;
}

static enum status make_pipe(int *rfd, int *wfd)
{
	int fds[2], i;

	if (pipe(fds) < 0)
		return STATUS_IO;
	for (i = 0; i < 2; i++) {
		int fl = fcntl(fds[i], F_GETFL);

		if (fl < 0 || fcntl(fds[i], F_SETFL, fl | O_NONBLOCK) < 0 ||
		    fcntl(fds[i], F_SETFD, FD_CLOEXEC) < 0) {
			close(fds[0]);
			close(fds[1]);
			return STATUS_IO;
		}
	}
	*rfd = fds[0];
	*wfd = fds[1];
	return STATUS_OK;
}

static enum status init_sync(struct worker *w)
{
	pthread_condattr_t ca;

	if (pthread_mutex_init(&w->mu, NULL))
		return STATUS_NOMEM;
	if (pthread_condattr_init(&ca)) {
		pthread_mutex_destroy(&w->mu);
		return STATUS_NOMEM;
	}
	if (pthread_condattr_setclock(&ca, CLOCK_MONOTONIC) ||
	    pthread_cond_init(&w->cond, &ca)) {
		pthread_condattr_destroy(&ca);
		pthread_mutex_destroy(&w->mu);
		return STATUS_NOMEM;
	}
	pthread_condattr_destroy(&ca);
	return STATUS_OK;
}

enum status worker_start(struct adapter *a, const struct worker_opts *o,
                         struct worker **out)
{
	struct worker *w;
	sigset_t all, old;
	enum status st;

	*out = NULL;
	w = mem_calloc(1, sizeof(*w));
	if (!w)
		return STATUS_NOMEM;
	w->a = a;
	w->o = *o;
	w->requested = o->window_ns;
	w->length = window_clamp(o->window_ns, &w->clamped);
	w->grace = o->grace_ns ? o->grace_ns : GRACE_DEFAULT_NS;
	w->rfd = w->wfd = w->stop_rfd = w->stop_wfd = -1;
	w->done = worker_node_new(WORKER_DONE, 0);
	if (!w->done) {
		mem_free(w);
		return STATUS_NOMEM;
	}
	st = init_sync(w);
	if (st != STATUS_OK) {
		worker_node_free(w->done);
		mem_free(w);
		return st;
	}
	st = make_pipe(&w->rfd, &w->wfd);
	if (st == STATUS_OK)
		st = make_pipe(&w->stop_rfd, &w->stop_wfd);
	if (st != STATUS_OK) {
		worker_free(w);
		return st;
	}
	/* Both threads start with every signal blocked (docs/design.md §1). */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	w->has_watchdog = pthread_create(&w->watchdog, NULL, watch, w) == 0;
	if (w->has_watchdog)
		w->has_thread = pthread_create(&w->thread, NULL, run, w) == 0;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (!w->has_thread) {
		worker_free(w);
		return STATUS_IO;
	}
	*out = w;
	return STATUS_OK;
}

void worker_end_window(struct worker *w)
{
	pthread_mutex_lock(&w->mu);
	if (w->in_collect && !w->end_now) {
		w->end_now = true;
		w->end_at = collect_now();
		poke(w->stop_wfd);
		pthread_cond_broadcast(&w->cond);
	}
	pthread_mutex_unlock(&w->mu);
}

void worker_stop(struct worker *w)
{
	pthread_mutex_lock(&w->mu);
	if (!w->stop) {
		w->stop = true;
		w->stop_at = collect_now();
		poke(w->stop_wfd);
		pthread_cond_broadcast(&w->cond);
	}
	pthread_mutex_unlock(&w->mu);
}

void worker_free(struct worker *w)
{
	struct msg_node *n;

	if (!w)
		return;
	worker_stop(w);
	if (w->has_thread)
		pthread_join(w->thread, NULL);
	pthread_mutex_lock(&w->mu);
	w->quit = true;
	pthread_cond_broadcast(&w->cond);
	pthread_mutex_unlock(&w->mu);
	if (w->has_watchdog)
		pthread_join(w->watchdog, NULL);
	while ((n = w->head) != NULL) {
		w->head = n->next;
		worker_node_free(n);
	}
	worker_node_free(w->done);
	if (w->rfd >= 0)
		close(w->rfd);
	if (w->wfd >= 0)
		close(w->wfd);
	if (w->stop_rfd >= 0)
		close(w->stop_rfd);
	if (w->stop_wfd >= 0)
		close(w->stop_wfd);
	pthread_cond_destroy(&w->cond);
	pthread_mutex_destroy(&w->mu);
	mem_free(w);
}
