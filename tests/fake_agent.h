/* A fake asyncio agent for the reader's tests: a thread serving canned
 * frames over a Unix socket in a temporary directory, the builders of those
 * frames, a window scenario, and the adapter driven through the worker. */
#ifndef ASYNCTOP_TESTS_FAKE_AGENT_H
#define ASYNCTOP_TESTS_FAKE_AGENT_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "adapters/asyncio_endpoint.h"
#include "adapters/worker.h"
#include "model/buf.h"
#include "model/status.h"

#define SEC    ((uint64_t)1000000000u)
#define MSEC   ((uint64_t)1000000u)
#define MSs(x) ((uint64_t)(x)*MSEC)

/* A socket file nobody listens on (what a killed agent leaves). */
void agent_stale_at(const char *path);

/* ---- frames: each builder appends one whole frame to b --------------- */

/* Starts a frame header of type and seq (its length filled by fr_end);
 * *at is where it starts. */
void fr_begin(struct buf *b, uint16_t type, uint32_t seq, size_t *at);
/* Fills in the length of the frame begun at at. */
void fr_end(struct buf *b, size_t at);
/* HELLO_OK for pid, with the reader's limits and "CPython 3.11.2". */
void put_hello_ok(struct buf *b, uint32_t seq, uint32_t pid);

struct fstr {
	uint32_t id;
	const char *text;
};

/* STRINGS defining the n strings of s. */
void put_strings(struct buf *b, uint32_t seq, const struct fstr *s, size_t n);

struct fstack {
	uint32_t id, parent, n;
	uint32_t frames[4];
	uint32_t dropped; /* frames the agent left out above these */
};

/* STACKS defining the n stacks of s (frames[k % 4] for frame k). */
void put_stacks(struct buf *b, uint32_t seq, const struct fstack *s, size_t n);

struct ftask {
	uint64_t id, parent;
	uint32_t stack, name, thread, loop;
	uint8_t state;
	uint16_t flags;
	uint64_t created, ended, t_mark, polls, wakes, self_wakes, busy, sched,
	    idle;
	uint32_t parked;   /* parked-at stack id; 0: unknown */
	uint64_t max_step; /* longest step since the previous record */
};

/* TASKS with the n task records of t (loop 0 is sent as 1). */
void put_tasks(struct buf *b, uint32_t seq, const struct ftask *t, size_t n);

struct fagg {
	uint32_t stack, thread;
	uint64_t tasks, polls, wakes, busy, sched, idle;
	uint64_t self_wakes;
};

/* AGGS with the n aggregates of g. */
void put_aggs(struct buf *b, uint32_t seq, const struct fagg *g, size_t n);

/* RETIRE of the n string ids of ids. */
void put_retire(struct buf *b, uint32_t seq, const uint32_t *ids, size_t n);
enum { END_FINAL_F = 1, END_FIRST_F = 2, END_MORE_F = 16 };

/* END of request seq at monotonic boundary ns (wall clock 1700000000 s
 * later), counting records task records and threads loop threads. */
void put_end(struct buf *b, uint32_t seq, uint64_t boundary, uint64_t records,
             uint32_t threads, uint32_t flags);

/* ---- the agent ----------------------------------------------------------- */

enum agent_mode {
	AGENT_REPLY, /* read a request, send the bytes */
	AGENT_CUT,   /* read a request, send `cut` bytes, close */
	AGENT_HANG,  /* read a request, never answer */
	AGENT_PUSH,  /* send the bytes without a request */
	AGENT_CLOSE, /* read a request, close */
	AGENT_MORE,  /* answer every request with an empty END MORE */
	AGENT_SLOW,  /* read a request, send the bytes a frame at a time,
	                `cut` ms before each */
};

struct agent_step {
	enum agent_mode mode;
	struct buf out;
	size_t cut;
};

/* Serves one connection, a step per request, then waits for the reader to
 * close; records the request types it saw. */
struct agent {
	char dir[64], path[ASYNCIO_PATH_MAX];
	int lfd, quit[2];
	pthread_t th;
	struct agent_step step[8];
	size_t nsteps;
	uint16_t req[16];
	size_t nreq;
	bool unlink_at_end;
};

/* A temporary directory and a socket listening in it (g->path). */
void agent_init(struct agent *g);
/* Adds a step of mode; returns its bytes to fill. */
struct buf *agent_step(struct agent *g, enum agent_mode mode);
/* Starts the serving thread. */
void agent_start(struct agent *g);
/* Ends the thread, frees the steps, removes the socket and directory. */
void agent_fini(struct agent *g);
/* A step answering the HELLO with put_hello_ok (pid 4242). */
void agent_hello_ok(struct agent *g);

/* ---- the window scenario --------------------------------------------- */

/* Strings 1-6, and stacks 1 (main) and 2 (main, serve, handle). */
extern const struct fstr agent_strs[6];
extern const struct fstack agent_stacks[2];
/* Task A (stack 2, idle) and task B (stack 1, running) at T0. */
extern const struct ftask agent_task_a0, agent_task_b0;
/* The first READ's reply: the baseline at T0 = 1 s. */
void agent_first_reply(struct buf *b);

#define A_STACK "main:<module>:1;app:serve:10;app:handle:20"

/* ---- driving the adapter through the worker ------------------------------ */

/* A message of the worker, copied; samples as "stack|task|idle|busy|sched|
 * polls|wakes|tasks" lines, sorted. */
struct agent_msg {
	enum worker_msg_kind kind;
	enum status st;
	char detail[512], remedy[512], reason[700];
	int64_t time, duration;
	bool partial;
	char line[12][6000];
	size_t n;
};

struct agent_run {
	struct agent_msg m[12];
	size_t n;
	char states[256]; /* the connection states reported, in order */
};

/* Runs the asyncio adapter on endpoint for max windows of window ns, with
 * refresh and the reply timeout, to WORKER_DONE; every message but DONE
 * goes into r.  Blocks; fails the test after 30 s without a message. */
void agent_drive(const char *endpoint, uint64_t window, uint64_t refresh,
                 uint64_t max, uint64_t reply_timeout, struct agent_run *r);

/* The hostile-agent cases: a fresh agent whose steps build makes, driven
 * for one window of 1 ms (2 s reply timeout), must end in exactly one
 * message, an error; it is r->m[0], for the caller to check. */
void agent_drive_to_error(void (*build)(struct agent *g), struct agent_run *r);

#endif
