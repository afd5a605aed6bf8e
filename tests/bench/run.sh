#!/bin/sh
# make bench: asynctop's pprof writer and reader against Go's pprof library
# (github.com/google/pprof/profile) on the same generated workload, timed in
# the same run.  The headline is the ratio ours / Go's (below 1: we are
# faster).  Then the model's fold and commit of that workload against a
# baseline that copies and hashes each sample's bytes once (bench_model).
# End to end: the saved file replayed into a model and saved again, against
# Go's Parse + Write, both in memory.  The two sides run alternately, one
# run of each at a time, and each figure is the median of its runs.
# Absolute figures vary with the machine and its load.  Each step is timed
# on the wall clock and in CPU time (user + system, every thread, Go's
# garbage collector included): on a loaded machine the scheduler gives a
# process a share per runnable thread, so Go, whose collector runs beside
# it, loses less wall time to the load than a single thread does; the CPU
# ratio does not move with the load (docs/saving.md).
#   sh tests/bench/run.sh BUILD_DIR_ABS      (BENCH_RUNS=N, default 5)
set -eu

build=${1:?usage: run.sh BUILD_DIR}
runs=${BENCH_RUNS:-5}
cbench=$build/tests/bench_pprof
gobench=$build/tests/gobench
mbench=$build/tests/bench_model

if [ ! -x "$cbench" ]; then
	echo "run.sh: $cbench is missing (make bench builds it)" >&2
	exit 1
fi

# One run of each at a time, alternately, so that a change of the machine's
# load weighs on both sides alike; the medians are taken here.
ours=""
go=""
i=0
while [ "$i" -lt "$runs" ]; do
	ours="$ours
$("$cbench" 1)"
	if [ -x "$gobench" ]; then
		go="$go
$("$gobench" 1)"
	fi
	i=$((i + 1))
done

printf '%s\n--go--\n%s\n' "$ours" "$go" | awk -v runs="$runs" -v load="$(cut -d' ' -f1-3 /proc/loadavg)" '
/^--go--$/ { side = "go"; next }
NF == 2 {
	if (side == "go") { gn[$1]++; gv[$1, gn[$1]] = $2 }
	else { cn[$1]++; cv[$1, cn[$1]] = $2 }
}
function median(v, n, k,   a, i, j, x) {
	for (i = 1; i <= n; i++) {
		x = v[k, i] + 0
		for (j = i - 1; j >= 1 && a[j] > x; j--)
			a[j + 1] = a[j]
		a[j + 1] = x
	}
	return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
function ms(v) { return v == "" ? "-" : sprintf("%.1f ms", v) }
function mb(v) { return v == "" ? "-" : sprintf("%.2f MB", v / 1e6) }
function ratio(a, b) { return (a == "" || b == "" || b == 0) ? "-" : sprintf("%.2f", a / b) }
# Go / ours of each alternate pair for key: "median (min-max)"
function pairs(key,   r, n, i, lo, hi) {
	n = cn[key] < gn[key] ? cn[key] : gn[key]
	if (n == 0) return "-"
	for (i = 1; i <= n; i++) {
		r["x", i] = cv[key, i] > 0 ? gv[key, i] / cv[key, i] : 0
		if (i == 1 || r["x", i] < lo) lo = r["x", i]
		if (i == 1 || r["x", i] > hi) hi = r["x", i]
	}
	return sprintf("%.2f (%.2f-%.2f)", median(r, n, "x"), lo, hi)
}
function row(label, key, fmt) {
	if (fmt == "ms")
		printf "  %-28s %12s %12s %8s\n", label, ms(c[key]), ms(g[key]), ratio(c[key], g[key])
	else
		printf "  %-28s %12s %12s %8s\n", label, mb(c[key]), mb(g[key]), ratio(c[key], g[key])
}
END {
	for (k in cn) c[k] = median(cv, cn[k], k)
	for (k in gn) g[k] = median(gv, gn[k], k)
	c["runs"] = runs
	printf "pprof benchmark: %d samples, %d stacks of depth %d, %d task names; median of %d alternate runs; load average at the end %s\n",
		c["samples"], c["stacks"], c["depth"], c["tasks"], c["runs"], load
	printf "  %-28s %12s %12s %8s\n", "", "asynctop", "Go pprof", "ours/Go"
	row("encode (uncompressed)", "encode_ms", "ms")
	row("encode + gzip (ours 1, Go 6)", "gzip_ms", "ms")
	row("parse (gunzip+decode+check)", "parse_ms", "ms")
	row("replay + save, end to end", "e2e_ms", "ms")
	printf "  CPU time (user + system, all threads):\n"
	row("encode (uncompressed)", "encode_cpu_ms", "ms")
	row("encode + gzip (ours 1, Go 6)", "gzip_cpu_ms", "ms")
	row("parse (gunzip+decode+check)", "parse_cpu_ms", "ms")
	row("replay + save, end to end", "e2e_cpu_ms", "ms")
	row("size uncompressed", "encode_bytes", "B")
	row("size gzip", "gzip_bytes", "B")
	printf "  %-28s %12s %12s %8s\n", "model fold + commit", ms(c["fold_ms"]), "-", "-"
	printf "  gzip levels (libdeflate) on the encoded profile (size against Go'"'"'s gzip output):\n"
	for (l = 1; l <= 9; l++)
		printf "    level %d %10s %10s %8s\n", l, ms(c["gzip_l" l "_ms"]), mb(c["gzip_l" l "_bytes"]), ratio(c["gzip_l" l "_bytes"], g["gzip_bytes"])
	if (g["encode_ms"] == "") {
		print "Go baseline skipped: go or golang-github-google-pprof-dev is missing."
	} else {
		printf "RATIOS (ours / Go): encode %s, encode+gzip %s, parse %s, end to end %s (Go takes %s times as long; aim 3)\n",
			ratio(c["encode_ms"], g["encode_ms"]),
			ratio(c["gzip_ms"], g["gzip_ms"]),
			ratio(c["parse_ms"], g["parse_ms"]),
			ratio(c["e2e_ms"], g["e2e_ms"]),
			ratio(g["e2e_ms"], c["e2e_ms"])
		printf "RATIOS (ours / Go, CPU time): encode %s, encode+gzip %s, parse %s, end to end %s (Go takes %s times as much CPU; aim 3)\n",
			ratio(c["encode_cpu_ms"], g["encode_cpu_ms"]),
			ratio(c["gzip_cpu_ms"], g["gzip_cpu_ms"]),
			ratio(c["parse_cpu_ms"], g["parse_cpu_ms"]),
			ratio(c["e2e_cpu_ms"], g["e2e_cpu_ms"]),
			ratio(g["e2e_cpu_ms"], c["e2e_cpu_ms"])
		printf "  end to end, Go / ours in each alternate pair, median (min-max): wall %s, CPU %s\n",
			pairs("e2e_ms"), pairs("e2e_cpu_ms")
	}
}'

if [ ! -x "$mbench" ]; then
	echo "model benchmark skipped: $mbench is missing"
	exit 0
fi
"$mbench" "$runs" | awk '
NF == 2 { v[$1] = $2 }
function row(label, key) {
	printf "  %-36s %9.1f ms %9.2f\n", label, v[key], v["base_ms"] ? v[key] / v["base_ms"] : 0
}
END {
	printf "model benchmark: %d samples, %d stacks of depth %d, %d task names -> %d rows, %d entries; median of %d runs\n",
		v["samples"], v["stacks"], v["depth"], v["tasks"], v["rows"], v["entries"], v["runs"]
	printf "  %-36s %12s %9s\n", "", "time", "/baseline"
	row("baseline: copy + hash each sample", "base_ms")
	row("fold, first window (all new)", "fold_new_ms")
	row("commit, first window", "commit_new_ms")
	row("fold, third window (all known)", "fold_known_ms")
	row("commit, third (evicts the first)", "commit_known_ms")
	row("fold, first, with parked-at stacks", "fold_new_parked_ms")
	row("commit, first, with parked-at", "commit_new_parked_ms")
	row("fold, third, with parked-at", "fold_known_parked_ms")
	row("commit, third, with parked-at", "commit_known_parked_ms")
	row("group by parked-at (third window)", "group_parked_ms")
	printf "RATIOS (model / baseline): fold %.2f, commit %.2f (third window); fold %.2f, commit %.2f (first)\n",
		v["fold_known_ms"] / v["base_ms"], v["commit_known_ms"] / v["base_ms"],
		v["fold_new_ms"] / v["base_ms"], v["commit_new_ms"] / v["base_ms"]
	printf "RATIOS (with parked-at stacks and 2 figures / without): fold %.2f, commit %.2f (third window); fold %.2f, commit %.2f (first)\n",
		v["fold_known_parked_ms"] / v["fold_known_ms"], v["commit_known_parked_ms"] / v["commit_known_ms"],
		v["fold_new_parked_ms"] / v["fold_new_ms"], v["commit_new_parked_ms"] / v["commit_new_ms"]
}'
