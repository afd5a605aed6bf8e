/* A console-api simulator: a gRPC C core server that plays a scenario of
 * tasks (spawning, polling, waking, idling, completing) and publishes
 * Updates as console-subscriber does: the first message full, then
 * changes, heartbeats when nothing changed.  Used in-process by the tests
 * and as its own program (tests/tokio_sim/main.c, `make demo-tokio`).
 *
 * Scenario files (tests/data/tokio/NAME.scn), one directive a line, `#`
 * comments; durations take ns, us, ms or s:
 *
 *   interval 100ms      publish interval (simulated and real); default 100ms
 *   family NAME COUNT busy=D idle=D sched=D [kind=K] [loc=FILE:LINE:COL]
 *          [spawn=D] [stagger=D] [polls=N] [wakes=N] [named]
 *       COUNT tasks, each cycling: one poll of `busy`, `idle` parked, a wake
 *       then `sched` waiting to be polled again.  The i-th starts at
 *       spawn + i*stagger; with polls=N it completes at the end of its N-th
 *       poll.  wakes=N: the wake is N wakes (default 1).  `named`:
 *       task.name is NAME (the family folds into one row); otherwise
 *       task.name is empty and asynctop names it by task.id.
 *   reuse               span ids of completed tasks are given again
 *   old                 an older subscriber: no scheduled_time
 *   stall AT FOR        no Update between AT and AT+FOR (the clock runs on)
 *   end AT              the stream ends (status OK) at AT
 *   junk AT             the Update due at AT is replaced by bytes that are
 *                       not an Update
 *   unimplemented       WatchUpdates is not served (UNIMPLEMENTED)
 *
 * Times are offsets from the first call (Update.now = SIM_EPOCH + offset). */
#ifndef ASYNCTOP_TESTS_TOKIO_SIM_H
#define ASYNCTOP_TESTS_TOKIO_SIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/metric.h"

/* The simulated clock's zero, in ns since the epoch. */
#define SIM_EPOCH ((int64_t)1700000000 * 1000000000)

struct sim_family {
	char name[64], kind[16], loc[128];
	size_t count;
	uint64_t busy, idle, sched; /* ns */
	uint64_t spawn, stagger;    /* ns */
	uint64_t polls;             /* 0: never completes */
	uint64_t wakes;             /* per cycle; 0 read as 1 */
	bool named;
};

#define SIM_MAX_FAMILIES 16
#define SIM_MAX_EVENTS   16

enum sim_event_kind {
	SIM_STALL,
	SIM_END,
	SIM_JUNK,
};

struct sim_event {
	enum sim_event_kind kind;
	uint64_t at, len; /* ns */
};

struct sim_scenario {
	uint64_t interval;
	struct sim_family fam[SIM_MAX_FAMILIES];
	size_t nfam;
	struct sim_event ev[SIM_MAX_EVENTS];
	size_t nev;
	bool reuse, old, unimplemented;
};

/* Parses a scenario from text; false with a reason in err. */
bool sim_parse(const char *text, struct sim_scenario *sc, char *err,
               size_t errsz);
/* Reads and parses a scenario file; false with a reason in err. */
bool sim_load(const char *path, struct sim_scenario *sc, char *err,
              size_t errsz);

/* The ground truth of family f's task i over [a, b] (offsets in ns): the
 * time it spent polled, scheduled and idle, its polls and wakes, worked out
 * from the cycle, not from the Stats the simulator sends. */
void sim_truth(const struct sim_family *f, size_t i, uint64_t a, uint64_t b,
               struct metrics *m);

struct sim;

/* Starts a server thread on bind ("127.0.0.1:0" for any free port), the
 * scenario copied.  *port: the port bound.  NULL on failure (err says). */
struct sim *sim_start(const struct sim_scenario *sc, const char *bind,
                      int *port, char *err, size_t errsz);
/* The scenario's clock: the offset of the latest Update sent (ns). */
uint64_t sim_offset(struct sim *s);
/* The largest message sent so far, in bytes. */
size_t sim_largest(struct sim *s);
/* Calls served so far. */
unsigned sim_calls(struct sim *s);
/* Stops the server (open streams end with UNAVAILABLE) and frees it. */
void sim_stop(struct sim *s);

#endif
