/* Builder thread: one job slot under a mutex, a wake pipe. */
#include "tui/builder.h"

#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include "model/alloc.h"

/* How much lower this thread runs than the main thread. */
#define THREAD_NICE 10

struct builder {
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct model_build *job; /* submitted, not yet done */
	struct builder_derive *sort;
	bool running, quit;
	int pipe[2];
};

static void *builder_main(void *arg)
{
	struct builder *b = arg;

	/* below the main thread, so that keys win the CPU on a busy
	 * machine (Linux: a nice value is the calling thread's alone) */
	if (nice(THREAD_NICE) == -1) {
		/* errno only says it stays as it was: fine */
	}
	pthread_mutex_lock(&b->mu);
	for (;;) {
		struct model_build *mb;
		struct builder_derive *so;
		unsigned char one = 1;

		while (!(b->job && !b->running) && !b->quit)
			pthread_cond_wait(&b->cv, &b->mu);
		if (b->quit && !(b->job && !b->running))
			break;
		mb = b->job;
		so = b->sort;
		b->running = true;
		pthread_mutex_unlock(&b->mu);
		model_build_run(mb);
		if (so) {
			const struct window *w = model_build_window(mb);
			so->st = w ? order_build(so->o, w, so->key,
			                         so->descending, NULL, NULL)
			           : STATUS_INVAL;
			so->warn_st =
			    w && so->warn
			        ? warn_eval_next(so->warn, so->m, w, &so->cfg)
			        : STATUS_INVAL;
		}
		pthread_mutex_lock(&b->mu);
		b->job = NULL;
		b->running = false;
		pthread_cond_broadcast(&b->cv);
		if (write(b->pipe[1], &one, 1) < 0) {
			/* full: the reader is already woken */
		}
	}
	pthread_mutex_unlock(&b->mu);
	return NULL;
}

enum status builder_new(struct builder **out)
{
	struct builder *b = mem_calloc(1, sizeof(*b));
	sigset_t all, old;
	int rc;

	*out = NULL;
	if (!b)
		return STATUS_NOMEM;
	if (pipe(b->pipe) < 0) {
		mem_free(b);
		return STATUS_IO;
	}
	for (int i = 0; i < 2; i++) {
		fcntl(b->pipe[i], F_SETFD, FD_CLOEXEC);
		fcntl(b->pipe[i], F_SETFL,
		      fcntl(b->pipe[i], F_GETFL) | O_NONBLOCK);
	}
	pthread_mutex_init(&b->mu, NULL);
	pthread_cond_init(&b->cv, NULL);
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	rc = pthread_create(&b->thread, NULL, builder_main, b);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc) {
		close(b->pipe[0]);
		close(b->pipe[1]);
		pthread_mutex_destroy(&b->mu);
		pthread_cond_destroy(&b->cv);
		mem_free(b);
		return STATUS_IO;
	}
	*out = b;
	return STATUS_OK;
}

int builder_fd(const struct builder *b)
{
	return b->pipe[0];
}

enum status builder_submit(struct builder *b, struct model_build *mb,
                           struct builder_derive *sort)
{
	enum status st = STATUS_OK;

	pthread_mutex_lock(&b->mu);
	if (b->job) {
		st = STATUS_INVAL;
	} else {
		b->job = mb;
		b->sort = sort;
	}
	pthread_cond_broadcast(&b->cv);
	pthread_mutex_unlock(&b->mu);
	return st;
}

bool builder_done(struct builder *b)
{
	unsigned char buf[16];
	bool done;

	pthread_mutex_lock(&b->mu);
	done = !b->job;
	while (read(b->pipe[0], buf, sizeof(buf)) > 0)
		;
	pthread_mutex_unlock(&b->mu);
	return done;
}

void builder_wait(struct builder *b)
{
	pthread_mutex_lock(&b->mu);
	while (b->job)
		pthread_cond_wait(&b->cv, &b->mu);
	pthread_mutex_unlock(&b->mu);
}

void builder_free(struct builder *b)
{
	if (!b)
		return;
	builder_wait(b);
	pthread_mutex_lock(&b->mu);
	b->quit = true;
	pthread_cond_broadcast(&b->cv);
	pthread_mutex_unlock(&b->mu);
	pthread_join(b->thread, NULL);
	close(b->pipe[0]);
	close(b->pipe[1]);
	pthread_mutex_destroy(&b->mu);
	pthread_cond_destroy(&b->cv);
	mem_free(b);
}
