/* toyexec: a pretend in-house async executor, and all it takes to give it
 * asynctop.  Build: cc embed.c $(pkg-config --cflags --libs asynctop)
 * Run:   ./embed record -a toyexec -w 0.5 -n 3 -o toy.pb.gz */
#define _POSIX_C_SOURCE 200809L

#include <asynctop.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

/* ---- the executor: tasks with cumulative counters ---------------------- */

/* What the executor knows about a task, as most runtimes do: where it was
 * spawned (root first), its name, and counters that only ever grow. */
struct toy_task {
	const char *name;
	const char *spawn[4];
	size_t depth;
	unsigned period; /* woken every `period` ticks */
	unsigned work;   /* busy for `work` tenths of a tick per poll */
	uint64_t idle_ns, busy_ns, sched_ns, polls, wakes;
};

#define TOY_TASKS 4

/* The executor ticks every 2 ms of its clock, at fixed times from start. */
#define TOY_TICK_NS 2000000u

struct toy_runtime {
	pthread_mutex_t lock;
	struct toy_task tasks[TOY_TASKS]; /* guarded by lock */
	uint64_t start, ticks;            /* guarded by lock */
	int stop;                         /* guarded by lock */
	pthread_t thread;
	/* The counters as the previous window ended (at first: as the runtime
	 * started), used by asynctop's worker thread only. */
	struct toy_task seen[TOY_TASKS];
};

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The executor's loop, simulated: every tick due by now, each task either
 * waits or is woken, scheduled and polled.  Called with rt->lock held. */
static void toy_advance(struct toy_runtime *rt, uint64_t now)
{
	const uint64_t dt = TOY_TICK_NS;

	while (rt->start + (rt->ticks + 1) * dt <= now) {
		rt->ticks++;
		for (size_t i = 0; i < TOY_TASKS; i++) {
			struct toy_task *t = &rt->tasks[i];

			if (rt->ticks % t->period) {
				t->idle_ns += dt;
				continue;
			}
			t->wakes++;
			t->polls++;
			t->sched_ns += dt / 20;
			t->busy_ns += dt * t->work / 10;
			t->idle_ns += dt - dt / 20 - dt * t->work / 10;
		}
	}
}

/* The runtime's thread.  Its figures follow its clock, not how often the
 * thread gets to run: on a loaded machine it may sleep through many ticks,
 * which the next call of toy_advance catches up. */
static void *toy_run(void *arg)
{
	struct toy_runtime *rt = arg;
	const struct timespec tick = { 0, TOY_TICK_NS };

	for (;;) {
		nanosleep(&tick, NULL);
		pthread_mutex_lock(&rt->lock);
		if (rt->stop) {
			pthread_mutex_unlock(&rt->lock);
			return NULL;
		}
		toy_advance(rt, mono_ns());
		pthread_mutex_unlock(&rt->lock);
	}
}

static int toy_start(struct toy_runtime *rt)
{
	static const struct toy_task init[TOY_TASKS] = {
		{ .name = "accept loop",
		  .spawn = { "toy::main", "server::run", "server::accept" },
		  .depth = 3,
		  .period = 50,
		  .work = 1 },
		{ .name = "", /* unnamed: asynctop shows <unnamed> */
		  .spawn = { "toy::main", "server::run", "server::accept",
		             "conn::handle" },
		  .depth = 4,
		  .period = 3,
		  .work = 4 },
		{ .name = "db pool",
		  .spawn = { "toy::main", "db::Pool::new", "db::reaper" },
		  .depth = 3,
		  .period = 25,
		  .work = 2 },
		{ .name = "metrics flush",
		  .spawn = { "toy::main", "metrics::flusher" },
		  .depth = 2,
		  .period = 10,
		  .work = 1 },
	};
	sigset_t all, old;
	int rc;

	memset(rt, 0, sizeof(*rt));
	memcpy(rt->tasks, init, sizeof(init));
	memcpy(rt->seen, init, sizeof(init));
	rt->start = mono_ns();
	pthread_mutex_init(&rt->lock, NULL);
	/* The runtime's threads block signals, so Ctrl-C reaches asynctop's
	 * loop in the main thread. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	rc = pthread_create(&rt->thread, NULL, toy_run, rt);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return rc;
}

static void toy_stop(struct toy_runtime *rt)
{
	pthread_mutex_lock(&rt->lock);
	rt->stop = 1;
	pthread_mutex_unlock(&rt->lock);
	pthread_join(rt->thread, NULL);
	pthread_mutex_destroy(&rt->lock);
}

/* ---- the asynctop producer: wait, snapshot, differences from the last -- */

static struct asynctop_str str(const char *s)
{
	struct asynctop_str v = { s, strlen(s) };
	return v;
}

/* The counters as of now: a real runtime's are current when read; this
 * simulation's catch up first. */
static void snapshot(struct toy_runtime *rt, struct toy_task *out)
{
	pthread_mutex_lock(&rt->lock);
	toy_advance(rt, mono_ns());
	memcpy(out, rt->tasks, sizeof(rt->tasks));
	pthread_mutex_unlock(&rt->lock);
}

/* Runs on asynctop's worker thread, once per window.  Each window takes
 * the differences from where the previous one ended, not from when this
 * call began: on a loaded machine the call may begin late, its window
 * nearly over, and asynctop_window_wait return at once. */
static enum asynctop_result toy_produce(void *user, struct asynctop_window *w)
{
	struct toy_runtime *rt = user;
	struct toy_task *before = rt->seen, after[TOY_TASKS];

	if (strcmp(asynctop_window_endpoint(w), "sim://local") != 0) {
		asynctop_window_explain(w, "toyexec runs in this process only",
		                        "leave -e out, or use -e sim://local");
		return ASYNCTOP_UNREACHABLE;
	}
	asynctop_window_wait(w); /* returns early when asked to stop */
	snapshot(rt, after);
	for (size_t i = 0; i < TOY_TASKS; i++) {
		struct asynctop_str frames[4];
		struct asynctop_sample s;

		for (size_t k = 0; k < after[i].depth; k++)
			frames[k] = str(after[i].spawn[k]);
		memset(&s, 0, sizeof(s));
		s.frames = frames;
		s.depth = after[i].depth;
		s.task = str(after[i].name); /* "" reads <unnamed> */
		s.idle_ns = after[i].idle_ns - before[i].idle_ns;
		s.busy_ns = after[i].busy_ns - before[i].busy_ns;
		s.scheduled_ns = after[i].sched_ns - before[i].sched_ns;
		s.polls = after[i].polls - before[i].polls;
		s.wakes = after[i].wakes - before[i].wakes;
		s.tasks = 1;
		if (asynctop_window_add(w, &s) != 0)
			return ASYNCTOP_FAILED;
	}
	memcpy(rt->seen, after, sizeof(after));
	return ASYNCTOP_OK;
}

int main(int argc, char **argv)
{
	struct toy_runtime rt;
	struct asynctop_adapter toyexec = {
		.abi = ASYNCTOP_ABI_VERSION,
		.name = "toyexec",
		.summary = "the toy executor of docs/examples/embed.c",
		.default_endpoint = "sim://local",
		.produce = toy_produce,
		.user = &rt,
	};
	int code;

	if (toy_start(&rt) != 0) {
		fprintf(stderr, "toyexec: cannot start the runtime\n");
		return 1;
	}
	code = asynctop_main(argc, argv, &toyexec, 1);
	toy_stop(&rt);
	return code;
}
