#!/bin/sh
# make bench, the tokio adapter: decoding and applying console-api Updates
# of 100,000 tasks against protobuf-c unpacking the same bytes alone (the
# aim: at least half its rate, a ratio of at most 2), and the resident
# memory the adapter's state adds at 100,000 tasks (the aim: under 100 MB).
#   sh tests/bench/tokio.sh BUILD_DIR_ABS      (BENCH_RUNS=N, default 5)
set -eu

build=${1:?usage: tokio.sh BUILD_DIR}
bench=$build/tests/bench_tokio
if [ ! -x "$bench" ]; then
	echo "tokio benchmark skipped: $bench is missing"
	exit 0
fi
"$bench" "${BENCH_RUNS:-5}" | awk '
NF == 2 { v[$1] = $2 }
function row(label, key, base) {
	printf "  %-34s %10.1f ms %10.1f ms %8.2f\n", label, v[key], v[base], v[base] ? v[key] / v[base] : 0
}
END {
	printf "tokio benchmark: %d tasks; first Update %.1f MB, a tick of all changed %.1f MB; median of %d runs\n",
		v["tk_tasks"], v["tk_first_bytes"] / 1e6, v["tk_tick_bytes"] / 1e6, v["tk_runs"]
	printf "  %-34s %13s %13s %8s\n", "", "asynctop", "unpack only", "ratio"
	row("first Update: decode + apply", "tk_apply_first_ms", "tk_unpack_first_ms")
	row("tick: decode + apply", "tk_apply_tick_ms", "tk_unpack_tick_ms")
	printf "  %-34s %10.1f ms (%d samples)\n", "window: every task to samples", v["tk_emit_ms"], v["tk_samples"]
	printf "  %-34s %10.1f MB (process %.1f MB)\n", "resident memory of the state", v["tk_rss_state_bytes"] / 1e6, v["tk_rss_total_bytes"] / 1e6
	printf "RATIOS (decode+apply / unpack): first %.2f, tick %.2f; state RSS %.1f MB at %d tasks\n",
		v["tk_apply_first_ms"] / v["tk_unpack_first_ms"], v["tk_apply_tick_ms"] / v["tk_unpack_tick_ms"],
		v["tk_rss_state_bytes"] / 1e6, v["tk_tasks"]
}'
