#!/bin/sh
# make bench: what the live viewer costs when nobody touches it.  Runs
# idle_viewer (a producer of BENCH_STACKS distinct stacks per window) in a
# tmux pane at 200x50 with the defaults (5 s windows, 1 Hz refresh) and
# reads the CPU time of all its threads from /proc (schedstat, ns) over
# IDLE_SECONDS after the first windows.  Reported as a share of one core,
# with 10k stacks against 10 stacks in the same run.  The aim (issue 6):
# under 2% of a core at 1 Hz with 10k stacks.
#   sh tests/bench/idle.sh IDLE_VIEWER_ABS        (IDLE_SECONDS, default 20)
set -eu

bin=${1:?usage: idle.sh IDLE_VIEWER}
secs=${IDLE_SECONDS:-20}
if ! command -v tmux >/dev/null 2>&1; then
	echo "idle viewer: tmux is missing; skipped"
	exit 0
fi

# CPU ns of every thread of pid so far
cpu_ns() {
	cat /proc/"$1"/task/*/schedstat 2>/dev/null | awk '{ s += $1 } END { printf "%d\n", s }'
}

now_ns() {
	date +%s%N
}

# measure STACKS: prints the share of a core, in percent
measure() {
	session=asynctop-idle-$$-$1
	tmux -L asynctop-bench new-session -d -s "$session" -x 200 -y 50 \
		"exec env BENCH_STACKS=$1 TERM=xterm-256color $bin -w 5 -r 1"
	pid=$(tmux -L asynctop-bench display -p -t "$session" '#{pane_pid}')
	# past start-up and the first window (5 s) before counting
	sleep 6
	c0=$(cpu_ns "$pid"); t0=$(now_ns)
	sleep "$secs"
	c1=$(cpu_ns "$pid"); t1=$(now_ns)
	tmux -L asynctop-bench send-keys -t "$session" q
	sleep 0.5
	tmux -L asynctop-bench kill-session -t "$session" 2>/dev/null || true
	awk -v c="$((c1 - c0))" -v t="$((t1 - t0))" 'BEGIN { printf "%.3f\n", 100 * c / t }'
}

big=$(measure 10000)
small=$(measure 10)
tmux -L asynctop-bench kill-server 2>/dev/null || true
echo "idle viewer, 200x50, 5 s windows, 1 Hz, ${secs} s measured:"
printf '  %-34s %8s%% of a core (aim < 2%%)\n' "10k stacks" "$big"
printf '  %-34s %8s%% of a core\n' "10 stacks (baseline)" "$small"
awk -v b="$big" -v s="$small" 'BEGIN { if (s > 0) printf "  RATIOS idle_10k_vs_10 %.1f\n", b / s }'
