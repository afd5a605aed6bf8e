/* Helpers of the adapter tests: an adapter of a registry run by a worker
 * for one short window, and the worker's messages awaited with a bound. */
#ifndef ASYNCTOP_TESTS_ADAPTER_UTIL_H
#define ASYNCTOP_TESTS_ADAPTER_UTIL_H

#include "adapters/adapter.h"
#include "adapters/asynctop.h"
#include "adapters/worker.h"

/* A producer that adds nothing and succeeds: an idle program. */
enum asynctop_result au_produce_nothing(void *user, struct asynctop_window *w);

/* The worker's next message (the caller frees it); fails the test when
 * none comes within limit_s seconds.  Blocks. */
struct worker_msg *au_wait_msg(struct worker *w, int limit_s);
/* au_wait_msg within 10 s. */
struct worker_msg *au_next_msg(struct worker *w);

/* Opens adapter name of r at endpoint ep (NULL: its default), starts a
 * worker on it for one window of 2 ms into *wp and *ap,
 * and returns the worker's first message.  Fails the test when either
 * cannot start.  Blocks. */
struct worker_msg *au_one_window(const struct adapter_registry *r,
                                 const char *name, const char *ep,
                                 struct worker **wp, struct adapter **ap);

/* After au_one_window's message: takes the worker's last ones (the retry
 * state a failed window brings, then DONE), frees the worker and closes
 * the adapter.  Blocks. */
void au_finish(struct worker *w, struct adapter *a);

#endif
