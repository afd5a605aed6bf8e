/* A scripted adapter for the worker and framework tests: windows of given
 * samples, empty windows, hangs (one a stop ends, one only the test ends),
 * an error mid-window, and the end of a finite source. */
#ifndef ASYNCTOP_TESTS_FAKE_ADAPTER_H
#define ASYNCTOP_TESTS_FAKE_ADAPTER_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "adapters/adapter.h"
#include "model/status.h"

struct fake_sample {
	const char *frames[4]; /* root first */
	size_t depth;
	const char *task;
	uint64_t idle, busy, tasks;
};

enum fake_kind {
	FAKE_SAMPLES, /* add the samples (none: an empty window) */
	FAKE_HANG,    /* add the samples, then wait for a stop or end-now */
	FAKE_POLL,    /* add the samples, then poll() collect_stop_fd */
	FAKE_STUCK,   /* add the samples, then ignore stops until released */
	FAKE_ERROR,   /* add the samples, then fail with err */
	FAKE_EOF,     /* STATUS_EOF */
};

struct fake_step {
	enum fake_kind kind;
	const struct fake_sample *samples;
	size_t n;
	bool own_meta; /* collect_set_meta with time and duration below */
	int64_t time_nanos, duration_nanos;
	bool progress; /* collect_progress after each sample */
	bool wait;     /* FAKE_SAMPLES: then wait for the deadline or a stop */
	enum status err;
	const char *detail, *remediation; /* NULL: no collect_fail call */
};

/* Shared with the test: what the fake saw; release for FAKE_STUCK. */
struct fake_ctl {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	bool released;
	unsigned calls;   /* collect calls begun */
	unsigned blocked; /* times the fake reached a hang or a stuck wait */
	bool sigmask_ok;  /* SIGINT, SIGWINCH, SIGCHLD blocked in collect */
	uint64_t lengths[16];
};

struct fake_script {
	const struct fake_step *steps;
	size_t n;
	bool repeat; /* past the end: repeat the last step (else EOF) */
	struct fake_ctl *ctl;
};

void fake_ctl_init(struct fake_ctl *ctl);
void fake_ctl_fini(struct fake_ctl *ctl);
/* Lets a FAKE_STUCK step return. */
void fake_release(struct fake_ctl *ctl);
/* Waits (up to 10 s, then fails the test) until the fake has reached a
 * hang or stuck wait n times in all. */
void fake_wait_blocked(struct fake_ctl *ctl, unsigned n);

/* Fills ops named "fake" running script s (borrowed). */
void fake_ops(struct adapter_ops *ops, const struct fake_script *s,
              unsigned flags);

#endif
