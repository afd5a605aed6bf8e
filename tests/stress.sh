#!/bin/sh
# make check-stress: runs the Check suite and the agent's tests RUNS times
# while LOAD busy loops (default: twice the cores) compete for the CPU, and
# names every test that failed, with its suite, run and message.  A test
# that passes alone but not here waits on time, not on an event
# (docs/testing.md).  The busy loops are this script's children, killed on
# every way out.
# usage: tests/stress.sh TESTBIN RUNS [LOAD]; ASYNCTOP_* set as for make check.
testbin=$1
runs=${2:-3}
load=${3:-$(($(nproc) * 2))}
here=$(cd "$(dirname "$0")/.." && pwd)
logs=${STRESS_LOGS:-$(dirname "$testbin")/stress}
pids=""

stop() {
	for p in $pids; do kill "$p" 2>/dev/null; done
	for p in $pids; do wait "$p" 2>/dev/null; done
	pids=""
}
trap 'stop' EXIT
trap 'stop; exit 130' INT TERM HUP

rm -rf "$logs" && mkdir -p "$logs" || exit 2
i=0
while [ "$i" -lt "$load" ]; do
	sh -c 'while :; do :; done' &
	pids="$pids $!"
	i=$((i + 1))
done
echo "check-stress: $runs runs under $load busy loops ($(nproc) cores); logs in $logs"

failed=0
run=1
while [ "$run" -le "$runs" ]; do
	start=$(date +%s)
	"$testbin" > "$logs/check.$run" 2>&1
	rc=$?
	# Check's failure lines: FILE:LINE:F|E:CASE:TEST:ITER: MESSAGE, FILE
	# being a helper's at times: the suite is the file defining TEST
	grep -E '^[^:]+:[0-9]+:[FE]:[^:]*:[^:]*:[0-9]+:' "$logs/check.$run" |
		while IFS=: read -r file line kind tcase test iter msg; do
			suite=$(grep -l "START_TEST($test)" "$here"/tests/test_*.c | head -n 1)
			suite=${suite##*/test_}
			echo "  run $run: suite ${suite%.c}, case $tcase, test $test ($file:$line):$msg"
		done > "$logs/failed.$run"
	if [ "$rc" -ne 0 ] || [ -s "$logs/failed.$run" ]; then
		failed=1
		echo "check-stress: run $run of the Check suite failed (exit $rc):"
		if [ -s "$logs/failed.$run" ]; then
			cat "$logs/failed.$run"
		else
			tail -n 20 "$logs/check.$run"
		fi
	fi
	if [ -z "$STRESS_NO_AGENT" ]; then
		ASYNCTOP_BIN=${ASYNCTOP_BIN:?} sh "$here/adapters/asyncio/tests/run.sh" > "$logs/agent.$run" 2>&1
		if [ $? -ne 0 ]; then
			failed=1
			echo "check-stress: run $run of the agent's tests failed:"
			grep -E '^(FAIL|ERROR):' "$logs/agent.$run" | sed 's/^/  /'
			grep -E '^(FAIL|ERROR):' "$logs/agent.$run" >/dev/null || tail -n 20 "$logs/agent.$run"
		fi
	fi
	echo "check-stress: run $run done in $(($(date +%s) - start)) s"
	run=$((run + 1))
done
stop
if [ "$failed" -ne 0 ]; then
	echo "check-stress: FAILED (logs in $logs)"
	exit 1
fi
echo "check-stress: every run passed"
