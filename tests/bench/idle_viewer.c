/* make bench: a viewer of N stacks, for measuring what the live viewer costs
 * when nobody touches it (tests/bench/idle.sh runs it in tmux and reads its
 * CPU time).  A producer "bulk" hands over N distinct three-frame stacks per
 * window, so each window is a real commit of N samples.
 *   idle_viewer [asynctop options]        BENCH_STACKS=N (default 10000) */
#define _POSIX_C_SOURCE 200809L

#include "adapters/asynctop.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static enum asynctop_result bulk(void *user, struct asynctop_window *w)
{
	const unsigned long *n = user;
	char leaf[32], mid[32];
	struct asynctop_str frames[3];
	struct asynctop_sample s;

	asynctop_window_wait(w);
	memset(&s, 0, sizeof(s));
	frames[0].ptr = "bench::main";
	frames[0].len = strlen(frames[0].ptr);
	s.frames = frames;
	s.depth = 3;
	s.task.ptr = "worker";
	s.task.len = 6;
	for (unsigned long i = 0; i < *n; i++) {
		frames[1].len = (size_t)snprintf(mid, sizeof(mid),
		                                 "bench::pool_%lu", i % 97);
		frames[1].ptr = mid;
		frames[2].len =
		    (size_t)snprintf(leaf, sizeof(leaf), "bench::task_%lu", i);
		frames[2].ptr = leaf;
		s.idle_ns = 1000000u * (i % 1000 + 1);
		s.busy_ns = 1000u * (i % 777 + 1);
		s.scheduled_ns = 100u * (i % 555 + 1);
		s.polls = i % 50 + 1;
		s.wakes = i % 40 + 1;
		s.tasks = 1;
		if (asynctop_window_add(w, &s) != 0)
			return ASYNCTOP_FAILED;
	}
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
