/* Inside the console-api simulator (tokio_sim.h): the scenario's tasks
 * and the Updates made of them, apart from the gRPC server that sends
 * them (tokio_sim.c). */
#ifndef ASYNCTOP_TESTS_TOKIO_SIM_INT_H
#define ASYNCTOP_TESTS_TOKIO_SIM_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tests/tokio_sim.h"

/* One simulated task: the i-th of family f, its span and task ids, when
 * it spawns and when it completes (offsets in ns; UINT64_MAX: never). */
struct sim_task {
	const struct sim_family *f;
	size_t i;
	uint64_t span, id, t0, td;
};

/* The tasks of sc (borrowed: the tasks point into it) in spawn order,
 * numbered from 1, with span ids reused as `reuse` asks; *tasks is
 * malloc'd (the caller frees it).  False when out of memory. */
bool sim_tasks_build(const struct sim_scenario *sc, struct sim_task **tasks,
                     size_t *ntasks);

/* The packed Update at offset now for a call whose last Update was at prev
 * (first: everything so far), malloc'd (*len bytes); NULL when out of
 * memory. */
uint8_t *sim_update(const struct sim_scenario *sc, const struct sim_task *tasks,
                    size_t ntasks, uint64_t now, bool first, uint64_t prev,
                    size_t *len);

#endif
