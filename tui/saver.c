/* Saver thread: a mutex-guarded job list in, results out, a wake pipe.
 * A job encodes its window first when it was given one. */
#include "tui/saver.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "encode/collapsed.h"
#include "encode/pprof.h"
#include "encode/save.h"
#include "model/alloc.h"
#include "model/buf.h"

/* How much lower this thread runs than the main thread. */
#define THREAD_NICE 10

struct job {
	struct job *next;
	char *path;
	char *data;
	size_t len;
	int level;
	/* to encode first (m NULL: data is the file's bytes) */
	const struct model *m;
	const struct window *w;
	bool collapsed;
	enum metric metric;
	struct saver_result res;
};

struct saver {
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct job *todo, *todo_tail; /* FIFO */
	struct job *done, *done_tail;
	bool busy, quit;
	size_t reading; /* jobs that still read the model */
	int pipe[2];
};

static void job_free(struct job *j)
{
	if (!j)
		return;
	mem_free(j->path);
	mem_free(j->data);
	mem_free(j);
}

static void wake(struct saver *s)
{
	unsigned char b = 1;

	if (write(s->pipe[1], &b, 1) < 0) {
		/* full: the reader is already woken */
	}
}

/* Encodes j's window into j->data; the model is free again after. */
static enum status encode(struct saver *s, struct job *j)
{
	struct buf b;
	enum status st;

	buf_init(&b);
	st = j->collapsed ? collapsed_encode(j->m, j->w, j->metric, &b)
	                  : pprof_encode(j->m, j->w, NULL, &b);
	if (st == STATUS_OK)
		st = buf_status(&b);
	if (st != STATUS_OK)
		snprintf(j->res.err, sizeof(j->res.err),
		         "cannot encode window %" PRIu64 ": %s", j->w->seq,
		         status_str(st));
	pthread_mutex_lock(&s->mu);
	s->reading--;
	j->m = NULL;
	j->w = NULL;
	wake(s);
	pthread_mutex_unlock(&s->mu);
	j->data = buf_detach(&b, &j->len);
	buf_fini(&b);
	return st;
}

static void run_job(struct saver *s, struct job *j)
{
	struct save_opts o = save_opts_default();

	j->res.err[0] = '\0';
	j->res.written[0] = '\0';
	if (j->m) {
		j->res.st = encode(s, j);
		if (j->res.st != STATUS_OK)
			return;
	}
	o.gzip_level = j->level;
	o.unique = true;
	j->res.st = save_file(j->path, j->data ? j->data : "", j->len, &o,
	                      j->res.written, sizeof(j->res.written),
	                      j->res.err, sizeof(j->res.err));
	mem_free(j->data);
	j->data = NULL;
}

static void *saver_main(void *arg)
{
	struct saver *s = arg;

	/* below the main thread, so that keys win the CPU on a busy
	 * machine (Linux: a nice value is the calling thread's alone) */
	if (nice(THREAD_NICE) == -1) {
		/* errno only says it stays as it was: fine */
	}
	pthread_mutex_lock(&s->mu);
	for (;;) {
		struct job *j;

		while (!s->todo && !s->quit)
			pthread_cond_wait(&s->cv, &s->mu);
		if (!s->todo)
			break;
		j = s->todo;
		s->todo = j->next;
		if (!s->todo)
			s->todo_tail = NULL;
		s->busy = true;
		pthread_mutex_unlock(&s->mu);
		run_job(s, j);
		pthread_mutex_lock(&s->mu);
		s->busy = false;
		j->next = NULL;
		if (s->done_tail)
			s->done_tail->next = j;
		else
			s->done = j;
		s->done_tail = j;
		wake(s);
		pthread_cond_broadcast(&s->cv);
	}
	pthread_mutex_unlock(&s->mu);
	return NULL;
}

enum status saver_new(struct saver **out)
{
	struct saver *s = mem_calloc(1, sizeof(*s));
	sigset_t all, old;
	int rc;

	*out = NULL;
	if (!s)
		return STATUS_NOMEM;
	if (pipe(s->pipe) < 0) {
		mem_free(s);
		return STATUS_IO;
	}
	for (int i = 0; i < 2; i++) {
		fcntl(s->pipe[i], F_SETFD, FD_CLOEXEC);
		fcntl(s->pipe[i], F_SETFL,
		      fcntl(s->pipe[i], F_GETFL) | O_NONBLOCK);
	}
	pthread_mutex_init(&s->mu, NULL);
	pthread_cond_init(&s->cv, NULL);
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	rc = pthread_create(&s->thread, NULL, saver_main, s);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc) {
		close(s->pipe[0]);
		close(s->pipe[1]);
		pthread_mutex_destroy(&s->mu);
		pthread_cond_destroy(&s->cv);
		mem_free(s);
		return STATUS_IO;
	}
	*out = s;
	return STATUS_OK;
}

int saver_fd(const struct saver *s)
{
	return s->pipe[0];
}

/* Appends j to the queue. */
static void queue(struct saver *s, struct job *j)
{
	pthread_mutex_lock(&s->mu);
	if (s->todo_tail)
		s->todo_tail->next = j;
	else
		s->todo = j;
	s->todo_tail = j;
	if (j->m)
		s->reading++;
	pthread_cond_broadcast(&s->cv);
	pthread_mutex_unlock(&s->mu);
}

enum status saver_submit(struct saver *s, const char *path, char *data,
                         size_t len, int gzip_level)
{
	struct job *j = mem_calloc(1, sizeof(*j));

	if (!j) {
		mem_free(data);
		return STATUS_NOMEM;
	}
	j->data = data;
	j->len = len;
	j->level = gzip_level;
	j->path = mem_strndup(path, strlen(path));
	if (!j->path) {
		job_free(j);
		return STATUS_NOMEM;
	}
	queue(s, j);
	return STATUS_OK;
}

enum status saver_submit_window(struct saver *s, const char *path,
                                const struct model *m, const struct window *w,
                                bool collapsed, enum metric metric)
{
	struct job *j = mem_calloc(1, sizeof(*j));

	if (!j)
		return STATUS_NOMEM;
	j->path = mem_strndup(path, strlen(path));
	if (!j->path) {
		job_free(j);
		return STATUS_NOMEM;
	}
	j->m = m;
	j->w = w;
	j->collapsed = collapsed;
	j->metric = metric;
	j->level = collapsed ? -1 : OUT_GZIP_PPROF;
	queue(s, j);
	return STATUS_OK;
}

void saver_wait(struct saver *s)
{
	pthread_mutex_lock(&s->mu);
	while (s->busy || s->todo)
		pthread_cond_wait(&s->cv, &s->mu);
	pthread_mutex_unlock(&s->mu);
}

enum status saver_take(struct saver *s, struct saver_result *res)
{
	struct job *j;

	pthread_mutex_lock(&s->mu);
	j = s->done;
	if (j) {
		s->done = j->next;
		if (!s->done)
			s->done_tail = NULL;
	}
	if (!s->done) {
		unsigned char b[64];
		while (read(s->pipe[0], b, sizeof(b)) > 0)
			;
	}
	pthread_mutex_unlock(&s->mu);
	if (!j)
		return STATUS_AGAIN;
	*res = j->res;
	job_free(j);
	return STATUS_OK;
}

bool saver_reading(struct saver *s)
{
	bool reading;

	pthread_mutex_lock(&s->mu);
	reading = s->reading > 0;
	pthread_mutex_unlock(&s->mu);
	return reading;
}

bool saver_busy(struct saver *s)
{
	bool busy;

	pthread_mutex_lock(&s->mu);
	busy = s->busy || s->todo;
	pthread_mutex_unlock(&s->mu);
	return busy;
}

void saver_free(struct saver *s)
{
	if (!s)
		return;
	pthread_mutex_lock(&s->mu);
	s->quit = true;
	pthread_cond_broadcast(&s->cv);
	pthread_mutex_unlock(&s->mu);
	pthread_join(s->thread, NULL);
	while (s->done) {
		struct job *j = s->done;
		s->done = j->next;
		job_free(j);
	}
	close(s->pipe[0]);
	close(s->pipe[1]);
	pthread_mutex_destroy(&s->mu);
	pthread_cond_destroy(&s->cv);
	mem_free(s);
}
