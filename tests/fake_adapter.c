/* The scripted fake adapter (see fake_adapter.h). */
#include "tests/fake_adapter.h"

#include <check.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <time.h>

#include "model/strview.h"

struct fake_priv {
	size_t pos;
};

void fake_ctl_init(struct fake_ctl *ctl)
{
	pthread_condattr_t ca;

	memset(ctl, 0, sizeof(*ctl));
	pthread_mutex_init(&ctl->mu, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&ctl->cv, &ca);
	pthread_condattr_destroy(&ca);
}

void fake_ctl_fini(struct fake_ctl *ctl)
{
	pthread_cond_destroy(&ctl->cv);
	pthread_mutex_destroy(&ctl->mu);
}

void fake_release(struct fake_ctl *ctl)
{
	pthread_mutex_lock(&ctl->mu);
	ctl->released = true;
	pthread_cond_broadcast(&ctl->cv);
	pthread_mutex_unlock(&ctl->mu);
}

void fake_wait_blocked(struct fake_ctl *ctl, unsigned n)
{
	struct timespec ts;
	int rc = 0;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	ts.tv_sec += 10;
	pthread_mutex_lock(&ctl->mu);
	while (ctl->blocked < n && rc == 0)
		rc = pthread_cond_timedwait(&ctl->cv, &ctl->mu, &ts);
	n = ctl->blocked >= n;
	pthread_mutex_unlock(&ctl->mu);
	ck_assert_msg(n, "the fake adapter never blocked");
}

static void blocked(struct fake_ctl *ctl)
{
	pthread_mutex_lock(&ctl->mu);
	ctl->blocked++;
	pthread_cond_broadcast(&ctl->cv);
	pthread_mutex_unlock(&ctl->mu);
}

static enum status add(struct collect *c, const struct fake_step *st)
{
	size_t i, j;

	for (i = 0; i < st->n; i++) {
		const struct fake_sample *f = &st->samples[i];
		struct strview fr[4];
		struct sample s;
		enum status rc;

		memset(&s, 0, sizeof(s));
		for (j = 0; j < f->depth && j < 4; j++)
			fr[j] = sv_c(f->frames[j]);
		s.frames = fr;
		s.depth = f->depth;
		s.task = sv_c(f->task);
		s.m.v[METRIC_IDLE] = f->idle;
		s.m.v[METRIC_BUSY] = f->busy;
		s.tasks = f->tasks;
		rc = collect_add(c, &s);
		if (rc != STATUS_OK)
			return rc;
		if (st->progress && (rc = collect_progress(c)) != STATUS_OK)
			return rc;
	}
	return STATUS_OK;
}

static enum status fake_collect(struct adapter *a, struct collect *c)
{
	const struct fake_script *sc = a->ops->user;
	struct fake_priv *p = a->priv;
	struct fake_ctl *ctl = sc->ctl;
	const struct fake_step *st;
	enum status rc;
	sigset_t cur;

	pthread_sigmask(SIG_BLOCK, NULL, &cur);
	pthread_mutex_lock(&ctl->mu);
	if (ctl->calls < 16)
		ctl->lengths[ctl->calls] = collect_length(c);
	if (ctl->calls++ == 0)
		ctl->sigmask_ok = sigismember(&cur, SIGINT) == 1 &&
		                  sigismember(&cur, SIGWINCH) == 1 &&
		                  sigismember(&cur, SIGCHLD) == 1;
	pthread_mutex_unlock(&ctl->mu);
	if (p->pos >= sc->n && !sc->repeat)
		return STATUS_EOF;
	st = &sc->steps[p->pos < sc->n ? p->pos : sc->n - 1];
	p->pos++;
	if (st->kind == FAKE_EOF)
		return STATUS_EOF;
	collect_state(c, SOURCE_CONNECTED, 0);
	rc = add(c, st);
	if (rc != STATUS_OK)
		return rc;
	if (st->own_meta) {
		struct window_meta m;

		memset(&m, 0, sizeof(m));
		m.time_nanos = st->time_nanos;
		m.duration_nanos = st->duration_nanos;
		m.source = "fake own";
		collect_set_meta(c, &m);
	}
	switch (st->kind) {
	case FAKE_HANG:
		blocked(ctl);
		return collect_wait_until(c, UINT64_MAX);
	case FAKE_POLL: {
		struct pollfd pf = { collect_stop_fd(c), POLLIN, 0 };

		blocked(ctl);
		while (poll(&pf, 1, -1) < 0)
			;
		ck_assert(collect_stopping(c));
		return STATUS_STOPPED;
	}
	case FAKE_STUCK:
		pthread_mutex_lock(&ctl->mu);
		ctl->blocked++;
		pthread_cond_broadcast(&ctl->cv);
		while (!ctl->released)
			pthread_cond_wait(&ctl->cv, &ctl->mu);
		pthread_mutex_unlock(&ctl->mu);
		return STATUS_OK;
	case FAKE_ERROR:
		if (st->detail)
			return collect_fail(c, st->err, st->detail,
			                    st->remediation);
		return st->err;
	default:
		if (st->wait)
			return collect_wait_until(c, collect_deadline(c));
		return STATUS_OK;
	}
}

void fake_ops(struct adapter_ops *ops, const struct fake_script *s,
              unsigned flags)
{
	struct adapter_ops o = {
		.name = "fake",
		.aliases = NULL,
		.summary = "a scripted adapter for tests",
		.default_endpoint = "",
		.flags = flags,
		.private_size = sizeof(struct fake_priv),
		.open = NULL,
		.collect = fake_collect,
		.close = NULL,
		.user = s,
	};

	*ops = o;
}
