/* Short, locale-independent renderings of durations, counts and shares for
 * the text format and the viewer's columns ("4m10.2s", "50.1k", "99.1%").
 * Integer arithmetic, rounding half up, promoted to the next unit when the
 * rounded figure would not fit its own ("1.00s", never "1000.0ms"). */
#ifndef ASYNCTOP_ENCODE_HUMANIZE_H
#define ASYNCTOP_ENCODE_HUMANIZE_H

#include <stddef.h>
#include <stdint.h>

#include "model/metric.h"

/* The longest results, in bytes (all ASCII, so also columns), and a buffer
 * size that holds any of them with the NUL. */
#define HUMAN_DURATION_MAX 10 /* "213504d00h" (UINT64_MAX ns) */
#define HUMAN_COUNT_MAX    6  /* "999.9k" */
#define HUMAN_PERCENT_MAX  6  /* ">99.9%" */
#define HUMAN_BUFSZ        16

/* Writes a duration of ns nanoseconds into dst (always NUL-terminated when
 * size > 0; cut short if size is too small) and returns the length
 * written.  The unit is the smallest whose rounded figure stays in range:
 *   0                      "0"
 *   1 ns .. 999 ns         "850ns"
 *   up to 999.9 us         "12.3us"   (tenths; ASCII "us", never "µs")
 *   up to 999.9 ms         "12.1ms"   (tenths)
 *   up to 59.99 s          "5.00s"    (hundredths)
 *   up to 59m59.9s         "4m10.2s"  (tenths of a second)
 *   up to 23h59m           "1h02m"    (whole minutes)
 *   beyond                 "3d04h"    (whole hours)
 * e.g. 999950 ns is "1.0ms", 59995 ms is "1m00.0s".  At most
 * HUMAN_DURATION_MAX bytes. */
size_t human_duration(char *dst, size_t size, uint64_t ns);

/* A count: below 10000 as is ("50", "9999"); then one decimal with a
 * suffix k, M, G, T, P, E (powers of 1000), rounded half up and promoted
 * ("50.1k", "999.9k", then "1.0M"; UINT64_MAX is "18.4E").  Same buffer
 * rules as human_duration; at most HUMAN_COUNT_MAX bytes. */
size_t human_count(char *dst, size_t size, uint64_t n);

/* part as a share of whole, in tenths of a percent rounded half up:
 * "0%" for a zero part (or a zero whole), "<0.1%" for a nonzero part that
 * rounds to zero, "99.1%", ">99.9%" for a part short of whole that rounds
 * to 100, "100%" when part >= whole.  Exact for all uint64 values.  At
 * most HUMAN_PERCENT_MAX bytes. */
size_t human_percent(char *dst, size_t size, uint64_t part, uint64_t whole);

/* human_duration for the nanosecond metrics, human_count for the others. */
size_t human_metric(char *dst, size_t size, enum metric m, uint64_t value);

#endif
