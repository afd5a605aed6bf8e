/* The five figures asynctop measures per task, in display order.
 * The pprof sample-type order is encode/'s own table, not this enum. */
#ifndef ASYNCTOP_MODEL_METRIC_H
#define ASYNCTOP_MODEL_METRIC_H

#include <stdbool.h>
#include <stdint.h>

#include "model/strview.h"

/* X(NAME, name, unit, header, is_duration) */
#define METRIC_LIST(X)                                      \
	X(IDLE, "idle", "nanoseconds", "IDLE", true)        \
	X(BUSY, "busy", "nanoseconds", "BUSY", true)        \
	X(SCHED, "scheduled", "nanoseconds", "SCHED", true) \
	X(POLLS, "polls", "count", "POLLS", false)          \
	X(WAKES, "wakes", "count", "WAKES", false)

enum metric {
#define METRIC_ENUM(id, name, unit, header, dur) METRIC_##id,
	METRIC_LIST(METRIC_ENUM)
#undef METRIC_ENUM
	    METRIC_COUNT
};

/* The values of one task, or of many folded together. */
struct metrics {
	uint64_t v[METRIC_COUNT];
};

/* "idle", "busy", "scheduled", "polls", "wakes". */
const char *metric_name(enum metric m);
/* "nanoseconds" or "count": the pprof unit. */
const char *metric_unit(enum metric m);
/* Column header: "IDLE", "BUSY", "SCHED", "POLLS", "WAKES". */
const char *metric_header(enum metric m);
/* True for the three nanosecond metrics. */
bool metric_is_duration(enum metric m);

/* Parses a metric name as an operator types it: the name, the header, or a
 * unique prefix of the name, in any case ("idle", "SCHED", "sched", "p").
 * False when nothing or more than one metric matches. */
bool metric_parse(struct strview s, enum metric *out);

/* a += b, saturating per value. */
void metrics_add(struct metrics *a, const struct metrics *b);

/* True when every value is zero. */
bool metrics_zero(const struct metrics *a);

#endif
