#!/bin/sh
# make check-valgrind: runs Check suites under valgrind memcheck, one suite
# at a time, and fails on any invalid access, use of uninitialised memory or
# definite or indirect leak, in the runner or in the children Check forks
# for each test (valgrind follows a fork; a program a test executes, the
# asynctop binary included, runs natively).  Names every failing suite with
# its time and log; the logs stay in build/tests/valgrind/.
# usage: tests/valgrind.sh TESTBIN SUITE...; ASYNCTOP_* set as for make check.
testbin=$1
shift
here=$(cd "$(dirname "$0")/.." && pwd)
logs=${VALGRIND_LOGS:-$(dirname "$testbin")/valgrind}
# a test's memcheck errors make its process exit with this status, which
# Check reports as the test's early exit
code=99

rm -rf "$logs" && mkdir -p "$logs" || exit 2
failed=""
total=$(date +%s)
for suite in "$@"; do
	start=$(date +%s)
	# Check's timeouts are multiplied: memcheck runs code 10 to 50 times
	# slower (docs/testing.md)
	CK_RUN_SUITE=$suite CK_TIMEOUT_MULTIPLIER=${VALGRIND_TIMEOUT_MULTIPLIER:-10} \
		valgrind --quiet --leak-check=full --show-leak-kinds=definite,indirect \
		--errors-for-leak-kinds=definite,indirect --error-exitcode=$code \
		--log-file="$logs/$suite.%p.vg" \
		"$testbin" > "$logs/$suite.log" 2>&1
	rc=$?
	secs=$(($(date +%s) - start))
	# with --quiet a log holds errors only: any non-empty one (the
	# runner's or a test's fork's) fails
	reports=0
	for f in "$logs/$suite".*.vg; do
		[ -s "$f" ] && reports=$((reports + 1))
	done
	if [ "$rc" -ne 0 ] || [ "$reports" -ne 0 ]; then
		failed="$failed $suite"
		echo "check-valgrind: $suite FAILED in $secs s (exit $rc, $reports processes with valgrind errors):"
		grep -E '^[^:]+:[0-9]+:[FE]:' "$logs/$suite.log" | head -n 10 | sed 's/^/  /'
		for f in "$logs/$suite".*.vg; do
			[ -s "$f" ] && head -n 30 "$f" | sed 's/^/  /'
		done
	else
		echo "check-valgrind: $suite passed in $secs s"
	fi
	# keep only the reports that say something
	for f in "$logs/$suite".*.vg; do [ -s "$f" ] || rm -f "$f"; done
done
echo "check-valgrind: $# suites in $(($(date +%s) - total)) s"
if [ -n "$failed" ]; then
	echo "check-valgrind: FAILED:$failed (logs in $logs)"
	exit 1
fi
echo "check-valgrind: every suite passed"
