/* make bench: a viewer of N stacks, for measuring what the live viewer costs
 * when nobody touches it (tests/bench/idle.sh runs it in tmux and reads its
 * CPU time).  A producer "bulk" hands over N distinct three-frame stacks per
 * window, so each window is a real commit of N samples.
 *   idle_viewer [asynctop options]        BENCH_STACKS=N (default 10000) */
#define _POSIX_C_SOURCE 200809L

#include "adapters/asynctop.h"
#include <stdlib.h>

#include "tests/bench_workload.h"

static enum asynctop_result bulk(void *user, struct asynctop_window *w)
{
	const unsigned long *n = user;
	struct bench_bulk b;

	asynctop_window_wait(w);
	bench_bulk_init(&b);
	for (unsigned long i = 0; i < *n; i++)
		if (asynctop_window_add(w, bench_bulk_sample(&b, i)) != 0)
			return ASYNCTOP_FAILED;
	return ASYNCTOP_OK;
}

int main(int argc, char **argv)
{
	const char *env = getenv("BENCH_STACKS");
	unsigned long n = env ? strtoul(env, NULL, 10) : 10000;
	struct asynctop_adapter a = {
		.abi = ASYNCTOP_ABI_VERSION,
		.name = "bulk",
		.summary = "N distinct stacks per window (BENCH_STACKS)",
		.default_endpoint = "bench://",
		.produce = bulk,
		.user = &n,
	};

	return asynctop_main(argc, argv, &a, 1);
}
