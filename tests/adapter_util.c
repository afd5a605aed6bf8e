/* Helpers of the adapter tests (see adapter_util.h). */
#include "tests/adapter_util.h"

#include <check.h>
#include <poll.h>
#include <stdint.h>

#define MS ((uint64_t)1000000u)

enum asynctop_result au_produce_nothing(void *user, struct asynctop_window *w)
{
	(void)user;
	(void)w;
	return ASYNCTOP_OK;
}

struct worker_msg *au_wait_msg(struct worker *w, int limit_s)
{
	for (;;) {
		struct worker_msg *m = NULL;
		struct pollfd p = { worker_fd(w), POLLIN, 0 };

		if (worker_read(w, &m) == STATUS_OK)
			return m;
		ck_assert_msg(poll(&p, 1, limit_s * 1000) > 0,
		              "no message from the worker within %d s",
		              limit_s);
	}
}

struct worker_msg *au_next_msg(struct worker *w)
{
	return au_wait_msg(w, 10);
}

struct worker_msg *au_one_window(const struct adapter_registry *r,
                                 const char *name, const char *ep,
                                 struct worker **wp, struct adapter **ap)
{
	struct worker_opts o = { .window_ns = 2 * MS, .max_windows = 1 };
	struct adapter_error err;

	ck_assert_int_eq(adapter_open(adapter_find(r, name), ep ? &ep : NULL,
	                              ep ? 1 : 0, NULL, &err, ap),
	                 STATUS_OK);
	ck_assert_int_eq(worker_start(*ap, &o, wp), STATUS_OK);
	return au_next_msg(*wp);
}

void au_finish(struct worker *w, struct adapter *a)
{
	struct worker_msg *m = au_next_msg(w);

	if (m->kind == WORKER_STATE) {
		/* after a failed window: when the retry is due (held to the
		 * window's end: base 0, so at most its 2 ms) */
		ck_assert_int_eq(m->state, SOURCE_RETRYING);
		ck_assert_uint_le(m->retry_in_ns, 2 * MS);
		worker_msg_free(m);
		m = au_next_msg(w);
	}
	ck_assert_int_eq(m->kind, WORKER_DONE);
	worker_msg_free(m);
	worker_free(w);
	adapter_close(a);
}
