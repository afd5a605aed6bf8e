/* What worker.c (the thread, the queue) and collect.c (the calls adapters
 * make inside collect) share.  Not for use outside those two files. */
#ifndef ASYNCTOP_ADAPTERS_WORKER_INT_H
#define ASYNCTOP_ADAPTERS_WORKER_INT_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "adapters/adapter.h"
#include "adapters/batch.h"
#include "adapters/worker.h"

#define REFRESH_DEFAULT_NS ((uint64_t)1000000000u)

/* A window_meta whose strings are owned copies. */
struct meta_own {
	struct window_meta meta; /* views of the fields below */
	char *reason, *source;
	char **comments;
	size_t ncomments;
};

struct msg_node {
	struct worker_msg msg; /* msg.priv points back here */
	struct batch batch;
	struct meta_own own;
	struct msg_node *next;
};

struct collect {
	struct worker *w;
	uint64_t index, length, start, deadline;
	int64_t start_real;
	struct batch batch;
	bool meta_set, meta_nomem, failed;
	struct meta_own own;
	struct adapter_error err;
};

struct worker {
	struct adapter *a;
	struct worker_opts o;
	uint64_t length, requested, grace;
	bool clamped;
	int rfd, wfd;
	int stop_rfd, stop_wfd; /* readable once stop or end-now is asked */
	pthread_t thread, watchdog;
	bool has_thread, has_watchdog;
	pthread_mutex_t mu;
	pthread_cond_t cond; /* CLOCK_MONOTONIC; every change broadcasts */
	/* Under mu: */
	struct msg_node *head, *tail;
	bool signalled; /* a wake-up byte is in the pipe */
	bool stop, end_now, quit;
	uint64_t stop_at, end_at;
	bool in_collect, timed_out;
	uint64_t cur_index, cur_deadline;
	uint64_t cur_hold; /* collect_hold: a bounded wait of the adapter's */
	uint64_t lost;     /* messages lost to memory */
	unsigned failures; /* failed windows in a row (the worker's own) */
	struct msg_node *done; /* preallocated, so WORKER_DONE always arrives */
};

/* collect.c: owned metadata and the worker's own measurement. */
void meta_own_fini(struct meta_own *o);
/* A copy of s (NULL for NULL); sets *nomem when the copy failed. */
char *worker_dup_str(const char *s, bool *nomem);
/* The worker's own measurement of c from its start to end (ns,
 * monotonic). */
void collect_measured(const struct collect *c, uint64_t end,
                      struct window_meta *m);

/* worker.c: the queue to the main thread. */
struct msg_node *worker_node_new(enum worker_msg_kind kind, uint64_t index);
void worker_node_free(struct msg_node *n);
void worker_push(struct worker *w, struct msg_node *n);
/* Pushes a progress view, replacing an undelivered one of the same window. */
void worker_push_progress(struct worker *w, struct msg_node *n);
/* Counts a message lost to memory. */
void worker_lost(struct worker *w);
/* Fills e with st and the two texts (NULL reads as empty). */
void worker_set_error(struct adapter_error *e, enum status st,
                      const char *detail, const char *remediation);

#endif
