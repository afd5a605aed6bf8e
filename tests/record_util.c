/* Helpers shared by the record tests (see record_util.h). */
#include "tests/record_util.h"

#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "adapters/asynctop.h"

/* ---- the toy producer ---------------------------------------------------- */

struct toy {
	enum toy_mode mode;
	int calls;
};

static struct asynctop_str str(const char *s)
{
	struct asynctop_str v = { s, strlen(s) };
	return v;
}

static enum asynctop_result toy_produce(void *user, struct asynctop_window *w)
{
	struct toy *t = user;
	struct asynctop_str f1[2] = { str("main"), str("serve") };
	struct asynctop_str f2[3] = { str("main"), str("serve"), str("conn") };
	struct asynctop_sample s;
	int call = ++t->calls;

	if (t->mode == TOY_UNREACHABLE ||
	    (t->mode == TOY_LOST_2ND && call >= 2)) {
		asynctop_window_explain(w, "connection refused",
		                        "is the toy runtime running?");
		return ASYNCTOP_UNREACHABLE;
	}
	if (t->mode == TOY_HOSTILE) {
		asynctop_window_explain(w, "refused\033]0;owned\007\033[2J",
		                        "run \033[31mthis\233K\n\r\b ok");
		return ASYNCTOP_UNREACHABLE;
	}
	if ((t->mode == TOY_HANG_2ND && call >= 2) || t->mode == TOY_HANG_1ST)
		for (;;)
			pause(); /* the worker blocks every signal */
	asynctop_window_wait(w);
	if (t->mode == TOY_EMPTY || (t->mode == TOY_EMPTY_2ND && call == 2))
		return ASYNCTOP_OK;
	memset(&s, 0, sizeof(s));
	s.frames = f1;
	s.depth = 2;
	s.task = str("listener");
	s.idle_ns = 7000000;
	s.busy_ns = 1000000;
	s.scheduled_ns = 20000;
	s.polls = 3;
	s.wakes = 2;
	s.tasks = 1;
	ck_assert_int_eq(asynctop_window_add(w, &s), 0);
	s.frames = f2;
	s.depth = 3;
	s.task = str("");
	s.idle_ns = 2000000;
	s.busy_ns = 3000000;
	s.polls = 9;
	s.wakes = 9;
	s.tasks = 4;
	ck_assert_int_eq(asynctop_window_add(w, &s), 0);
	return ASYNCTOP_OK;
}

/* ---- running children ---------------------------------------------------- */

void rt_init(struct rt_run *r)
{
	memset(r, 0, sizeof(*r));
	tu_mkdtemp(r->dir, sizeof(r->dir));
	tu_run_init(&r->p);
}

void rt_fini(struct rt_run *r)
{
	char sub[640];

	tu_run_fini(&r->p);
	/* one level of subdirectories (replay inputs) */
	snprintf(sub, sizeof(sub), "%s/in", r->dir);
	tu_rmtree(sub);
	tu_rmtree(r->dir);
}

void rt_path(char *dst, size_t size, const struct rt_run *r, const char *name)
{
	int n = snprintf(dst, size, "%s/%s", r->dir, name);
	ck_assert(n > 0 && (size_t)n < size);
}

bool rt_exists(const struct rt_run *r, const char *name)
{
	char p[640];
	struct stat sb;

	rt_path(p, sizeof(p), r, name);
	return lstat(p, &sb) == 0;
}

const char *rt_bin(void)
{
	const char *b = getenv("ASYNCTOP_BIN");
	return b && *b && access(b, X_OK) == 0 ? b : NULL;
}

/* How a child runs: in r->dir, with events (NULL: none) as
 * ASYNCTOP_TEST_EVENTS. */
struct child_env {
	char events[700];
	const char *set[2], *unset[2];
	struct tu_proc p;
};

static const struct tu_proc *
child_env(struct child_env *e, const struct rt_run *r, const char *events)
{
	memset(e, 0, sizeof(*e));
	e->p.dir = r->dir;
	e->p.timeout_ms = CHILD_LIMIT_S * 1000;
	if (events) {
		snprintf(e->events, sizeof(e->events),
		         "ASYNCTOP_TEST_EVENTS=%s", events);
		e->set[0] = e->events;
		e->p.env_set = e->set;
	} else {
		e->unset[0] = "ASYNCTOP_TEST_EVENTS";
		e->p.env_unset = e->unset;
	}
	return &e->p;
}

void rt_start_bin(struct rt_run *r, const char *const *argv, const char *events)
{
	const char *args[32];
	struct child_env e;
	size_t n = 0;

	while (argv[n])
		n++;
	ck_assert_uint_lt(n, 32);
	memcpy(args, argv, (n + 1) * sizeof(*argv));
	args[0] = rt_bin();
	tu_run_start(&r->p, child_env(&e, r, events), args);
}

void rt_run_bin(struct rt_run *r, const char *const *argv)
{
	rt_start_bin(r, argv, NULL);
	tu_run_wait(&r->p);
}

struct toy_main_args {
	const char *const *argv;
	enum toy_mode mode;
};

/* In the child: asynctop_main with the toy adapter. */
static int toy_main(void *ctx)
{
	const struct toy_main_args *m = ctx;
	struct toy t = { m->mode, 0 };
	struct asynctop_adapter a = {
		.abi = ASYNCTOP_ABI_VERSION,
		.name = "toy",
		.summary = "test producer",
		.default_endpoint = "sim://t",
		.produce = toy_produce,
		.user = &t,
	};
	char *args[32];
	size_t n = 0;

	while (m->argv[n])
		n++;
	memcpy(args, m->argv, (n + 1) * sizeof(*m->argv));
	return asynctop_main((int)n, args, &a, 1);
}

void rt_start_main(struct rt_run *r, const char *const *argv,
                   enum toy_mode mode, const char *events)
{
	struct toy_main_args m = { argv, mode };
	struct child_env e;
	size_t n = 0;

	while (argv[n])
		n++;
	ck_assert_uint_lt(n, 32);
	tu_run_start_fn(&r->p, child_env(&e, r, events), argv[0], toy_main, &m);
}

void rt_run_main(struct rt_run *r, const char *const *argv, enum toy_mode mode)
{
	rt_start_main(r, argv, mode, NULL);
	tu_run_wait(&r->p);
}

int rt_events_fifo(const struct rt_run *r, char *fifo, size_t size)
{
	rt_path(fifo, size, r, ".events");
	return tu_fifo_open(fifo);
}

/* A tu_seen_fn: ctx (a string ending in a newline) is in the text. */
static bool has_line(const char *text, const void *ctx)
{
	return strstr(text, ctx) != NULL;
}

bool rt_wait_event(int fd, struct buf *seen, const char *want)
{
	char line[256];
	int n = snprintf(line, sizeof(line), "%s\n", want);

	ck_assert(n > 0 && (size_t)n < sizeof(line));
	return tu_read_until(fd, seen, has_line, line, CHILD_LIMIT_S);
}

void rt_events_open(struct rt_events *e, const struct rt_run *r)
{
	e->fd = rt_events_fifo(r, e->fifo, sizeof(e->fifo));
	buf_init(&e->seen);
}

void rt_events_close(struct rt_events *e)
{
	close(e->fd);
	unlink(e->fifo);
	buf_fini(&e->seen);
}

void rt_make_saved(struct rt_run *r, const char *name)
{
	const char *argv[] = {
		"toytop", "record", "-w", "0.1", "-o", name, NULL
	};

	rt_run_main(r, argv, TOY_DATA);
	ASSERT_EXIT(r, 0);
}
