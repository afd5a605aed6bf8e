/* The workload the benchmarks share (make bench): 100,000 samples,
 * drawn with splitmix64 from seed 0x5EED in the same order as
 * tests/bench/gobench regenerates them in Go, the live viewer's windows of
 * N distinct stacks, plus the timing helpers. */
#ifndef ASYNCTOP_TESTS_BENCH_WORKLOAD_H
#define ASYNCTOP_TESTS_BENCH_WORKLOAD_H

#include <stddef.h>

#include "adapters/asynctop.h"
#include "model/sample.h"
#include "model/status.h"
#include "model/window.h"

/* The shape of the workload; tests/bench/gobench/main.go has the same. */
enum {
	BW_NSTACKS = 10000,
	BW_DEPTH = 8, /* frames a stack: BW_DEPTH - 1 levels and a leaf */
	BW_NSAMPLES = 100000, /* sample j has stack j % BW_NSTACKS */
	BW_NTASKS = 1000,
	BW_NAMELEN = 64,   /* room for each name, NUL included */
	BW_POOLMAX = 1500, /* the largest level pool */
};

/* The samples, ready to hand to model_add: every view points into the
 * name tables, which this struct owns. */
struct bench_workload {
	char (*frame)[BW_NAMELEN]; /* level l index k: frame[l * BW_POOLMAX + k]
	                            */
	char (*leaf)[BW_NAMELEN];  /* one per stack */
	char (*task)[BW_NAMELEN];
	struct strview (
	    *stack)[BW_DEPTH]; /* frames of each stack, root first */
	struct sample *s;      /* BW_NSAMPLES of them */
};

/* Fills w (overwritten, need not be initialised) with the workload, the
 * same on every call and in every process.  Start-up allocation: prints a
 * message and exits the process when memory runs out. */
void bench_workload_generate(struct bench_workload *w);

/* Frees what bench_workload_generate allocated; w may be all NULL. */
void bench_workload_free(struct bench_workload *w);

/* The samples of the live viewer's benchmarks (windows of N distinct
 * stacks): sample i is one task ("worker") on the three-frame stack
 * bench::main, bench::pool_(i % 97), bench::task_i (root first), each
 * figure a function of i.  Only the public producer API: no link needed. */
struct bench_bulk {
	char mid[32], leaf[40];
	struct asynctop_str frames[3];
	struct asynctop_sample s;
};

/* Makes b ready for bench_bulk_sample: what every sample shares is set
 * once, out of the producers' loops. */
void bench_bulk_init(struct bench_bulk *b);
/* Sample i, ready for asynctop_window_add; it points into b (made ready by
 * bench_bulk_init) and is valid until the next call on b. */
const struct asynctop_sample *bench_bulk_sample(struct bench_bulk *b,
                                                unsigned long i);

/* Sets *meta to the workload's window metadata (the values gobench writes:
 * start time, duration, one comment).  The comment is static storage. */
void bench_meta(struct window_meta *meta);

/* Like calloc through model/alloc.h, but prints a message and exits the
 * process on failure: for the benchmarks' fixed start-up allocations.
 * Free with mem_free. */
void *bench_xcalloc(size_t n, size_t size);

/* The number of runs from argv[1]: def when absent, not a number, or
 * outside 1..max. */
int bench_runs(int argc, char **argv, int def, int max);

/* Prints the workload's "key value" lines (runs, samples, stacks, depth,
 * tasks) to stdout, as tests/bench/run.sh reads them. */
void bench_print_workload(int runs);

/* Milliseconds on the monotonic clock, from an arbitrary origin. */
double bench_now_ms(void);

/* Sorts the n timings in t in ascending order. */
void bench_sort(double *t, size_t n);

/* The median of the n (at least 1) timings in t; sorts t in place. */
double bench_median(double *t, size_t n);

/* When st is not STATUS_OK: prints "prog: what: reason" to stderr and exits
 * the process with status 1. */
void bench_check(const char *prog, enum status st, const char *what);

#endif
