#!/bin/sh
# make demo-tokio: the simulator on a free loopback port, then the viewer on
# it (q quits); without a terminal, three text windows instead.
# Usage: demo.sh ASYNCTOP TOKIO_SIM SCENARIO
set -eu
bin=$1
sim=$2
scn=$3
out=$(mktemp)
"$sim" "$scn" 127.0.0.1:0 >"$out" &
pid=$!
trap 'kill $pid 2>/dev/null; wait $pid 2>/dev/null; rm -f "$out"' EXIT INT TERM
# the simulator prints its address once it listens
i=0
until grep -q '^listening on ' "$out"; do
	i=$((i + 1))
	[ $i -lt 100 ] || { echo "demo-tokio: the simulator did not start" >&2; exit 1; }
	kill -0 $pid 2>/dev/null || { echo "demo-tokio: the simulator failed" >&2; exit 1; }
	sleep 0.1
done
ep=$(sed -n 's/^listening on //p' "$out")
if [ -t 0 ] && [ -t 1 ]; then
	"$bin" -a tokio -e "$ep" -w 2
else
	"$bin" record -a tokio -e "$ep" -w 2 -n 3 -f text -o -
fi
