#!/bin/sh
# make soak: the viewer (without a terminal, --dump-screen) on the
# console-api simulator's churn scenario, a new task and a never-seen task
# name every millisecond, with a history of 4 half-second windows.  Once
# the history is full, the resident size is read from /proc every 2 s; the
# soak fails when the last readings stand more than SOAK_SLACK_KB above the
# first ones (docs/testing.md).
# usage: tests/soak.sh ASYNCTOP TOKIO_SIM SCENARIO SECONDS
bin=$1
sim=$2
scn=$3
secs=${4:-120}
slack=${SOAK_SLACK_KB:-512}
dir=$(mktemp -d "${TMPDIR:-/tmp}/asynctop-soak.XXXXXX") || exit 2
spid=""
vpid=""

stop() {
	[ -n "$vpid" ] && kill "$vpid" 2>/dev/null && wait "$vpid" 2>/dev/null
	[ -n "$spid" ] && kill "$spid" 2>/dev/null && wait "$spid" 2>/dev/null
	vpid=""
	spid=""
}
trap 'stop; rm -rf "$dir"' EXIT
trap 'exit 130' INT TERM HUP

"$sim" "$scn" 127.0.0.1:0 >"$dir/sim" 2>&1 &
spid=$!
i=0
until grep -q '^listening on ' "$dir/sim"; do
	i=$((i + 1))
	if [ $i -ge 300 ] || ! kill -0 "$spid" 2>/dev/null; then
		echo "soak: the simulator did not start:" >&2
		cat "$dir/sim" >&2
		exit 1
	fi
	sleep 0.1
done
ep=$(sed -n 's/^listening on //p' "$dir/sim")

"$bin" -a tokio -e "$ep" -w 0.5 --history 4 --exit-after 1000000 \
	--dump-screen 100x30 >"$dir/screen" 2>"$dir/err" &
vpid=$!

rss() {
	sed -n 's/^VmRSS:[[:space:]]*\([0-9]*\) kB$/\1/p' "/proc/$vpid/status" 2>/dev/null
}

# The history is full after 2 s; the first 10 s also let the allocator and
# the tables reach their working size.
sleep 10
n=$(((secs - 10) / 2))
[ "$n" -ge 10 ] || n=10
: >"$dir/rss"
i=0
while [ "$i" -lt "$n" ]; do
	r=$(rss)
	if [ -z "$r" ]; then
		echo "soak: the viewer stopped after $((10 + 2 * i)) s:" >&2
		cat "$dir/err" >&2
		exit 1
	fi
	echo "$r" >>"$dir/rss"
	sleep 2
	i=$((i + 1))
done
# the least of the first five readings against the least of the last five,
# so that a passing peak does not count as growth
first=$(head -n 5 "$dir/rss" | sort -n | head -n 1)
last=$(tail -n 5 "$dir/rss" | sort -n | head -n 1)
echo "soak: RSS $first kB once the history was full, $last kB after $secs s ($((last - first)) kB; $n readings: $(tr '\n' ' ' <"$dir/rss"))"
if [ $((last - first)) -gt "$slack" ]; then
	echo "soak: FAILED: the resident size grew by $((last - first)) kB (over $slack kB) with the history full" >&2
	exit 1
fi
echo "soak: flat within $slack kB"
