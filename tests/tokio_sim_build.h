/* Builds console-api Updates for the tokio tests, the simulator and the
 * bench: plain descriptions in, packed protobuf bytes out. */
#ifndef ASYNCTOP_TESTS_TOKIO_SIM_BUILD_H
#define ASYNCTOP_TESTS_TOKIO_SIM_BUILD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* An absent timestamp. */
#define TB_NONE INT64_MIN

/* A new task: NULL strings are left out; line/col 0 are left out. */
struct tb_task {
	uint64_t span;
	const char *kind, *name, *file;
	uint32_t line, col;
	uint64_t task_id; /* 0: no task.id field */
	const char *spawn_location;
};

/* A Stats snapshot; times in ns since the epoch, TB_NONE when absent. */
struct tb_stats {
	uint64_t span;
	int64_t created, dropped, last_wake, started, ended;
	uint64_t busy, sched;
	bool no_sched; /* an older subscriber: no scheduled_time */
	uint64_t polls, wakes, self_wakes, clones, drops;
};

/* A stats value with every timestamp absent and every figure 0. */
struct tb_stats tb_stats_none(uint64_t span, int64_t created);

/* Packs an Update (now in ns) into a malloc'd buffer (*len bytes);
 * NULL only when out of memory. */
uint8_t *tb_update(int64_t now, const struct tb_task *tasks, size_t ntasks,
                   const struct tb_stats *stats, size_t nstats,
                   uint64_t dropped, size_t *len);

#endif
