#!/bin/sh
# make soak: the viewer (without a terminal, --dump-screen) with a history
# of 4 half-second windows, on two churning workloads, one after the other:
# the console-api simulator's churn scenario (a new task and a never-seen
# task name every millisecond), then, with AGENT_DIR, the asyncio agent on
# the same churn (adapters/asyncio/tests/soak_workload.py).  Once the
# history is full, the resident size is read from /proc every 2 s; a soak
# fails when the last readings stand more than SOAK_SLACK_KB above the
# first ones (the application's: SOAK_APP_SLACK_KB, and its interpreter's
# allocated blocks, which the workload prints, SOAK_APP_BLOCKS;
# docs/testing.md).  With both, each soak takes half of SECONDS.
# usage: tests/soak.sh ASYNCTOP TOKIO_SIM SCENARIO SECONDS [AGENT_DIR]
bin=$1
sim=$2
scn=$3
secs=${4:-120}
agent=$5
slack=${SOAK_SLACK_KB:-512}
app_slack=${SOAK_APP_SLACK_KB:-2048}
app_blocks=${SOAK_APP_BLOCKS:-8192}
[ -n "$agent" ] && [ "${SOAK_ONLY:-}" != asyncio ] && secs=$((secs / 2))
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

rss() {
	sed -n 's/^VmRSS:[[:space:]]*\([0-9]*\) kB$/\1/p' "/proc/$1/status" 2>/dev/null
}

# soak LABEL PID...: reads the resident size of each PID every 2 s for
# secs, after 10 s in which the history fills (2 s) and the allocator and
# the tables reach their working size; fails on growth past the slack.
# The least of the first five readings against the least of the last
# five, so that a passing peak does not count as growth.  An application
# (any PID but the viewer's) also has its allocated blocks read, the last
# "blocks N" line it printed, and held to app_blocks the same way.
soak() {
	label=$1
	shift
	sleep 10
	n=$(((secs - 10) / 2))
	[ "$n" -ge 10 ] || n=10
	for p in "$@"; do : >"$dir/rss.$p" && : >"$dir/blocks.$p"; done
	i=0
	while [ "$i" -lt "$n" ]; do
		for p in "$@"; do
			r=$(rss "$p")
			if [ -z "$r" ]; then
				echo "soak: $label: process $p stopped after $((10 + 2 * i)) s; the viewer said:" >&2
				cat "$dir/err" >&2
				if [ -f "$dir/apperr" ]; then
					echo "soak: $label: the application said:" >&2
					cat "$dir/apperr" >&2
				fi
				return 1
			fi
			echo "$r" >>"$dir/rss.$p"
			[ "$p" = "$vpid" ] || sed -n 's/^blocks \([0-9]*\)$/\1/p' "$dir/app" | tail -n 1 >>"$dir/blocks.$p"
		done
		sleep 2
		i=$((i + 1))
	done
	for p in "$@"; do
		what="the viewer"
		limit=$slack
		[ "$p" = "$vpid" ] || { what="the application" && limit=$app_slack; }
		first=$(head -n 5 "$dir/rss.$p" | sort -n | head -n 1)
		last=$(tail -n 5 "$dir/rss.$p" | sort -n | head -n 1)
		echo "soak: $label: $what: RSS $first kB once the history was full, $last kB after $secs s ($((last - first)) kB; $n readings: $(tr '\n' ' ' <"$dir/rss.$p"))"
		if [ $((last - first)) -gt "$limit" ]; then
			echo "soak: $label: FAILED: the resident size of $what grew by $((last - first)) kB (over $limit kB) with the history full" >&2
			return 1
		fi
		[ "$p" = "$vpid" ] && continue
		first=$(head -n 5 "$dir/blocks.$p" | sort -n | head -n 1)
		last=$(tail -n 5 "$dir/blocks.$p" | sort -n | head -n 1)
		if [ -z "$first" ] || [ -z "$last" ]; then
			echo "soak: $label: FAILED: $what printed no allocated blocks" >&2
			return 1
		fi
		echo "soak: $label: $what: $first allocated blocks once the history was full, $last after $secs s ($((last - first)))"
		if [ $((last - first)) -gt "$app_blocks" ]; then
			echo "soak: $label: FAILED: the interpreter of $what grew by $((last - first)) allocated blocks (over $app_blocks) with the history full" >&2
			return 1
		fi
	done
	echo "soak: $label: flat"
}

# SOAK_ONLY=asyncio skips the tokio soak (then the asyncio one takes all SECONDS)
if [ "${SOAK_ONLY:-}" != asyncio ]; then
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

	soak tokio "$vpid" || exit 1
	stop
fi

[ -n "$agent" ] || exit 0
PYTHONPATH= python3 "$agent/tests/soak_workload.py" >"$dir/app" 2>"$dir/apperr" &
spid=$!
i=0
until [ -s "$dir/app" ]; do
	i=$((i + 1))
	if [ $i -ge 300 ] || ! kill -0 "$spid" 2>/dev/null; then
		echo "soak: the asyncio workload did not start:" >&2
		cat "$dir/apperr" >&2
		exit 1
	fi
	sleep 0.1
done
"$bin" -a asyncio -e "$spid" -w 0.5 --history 4 --exit-after 1000000 \
	--dump-screen 100x30 >"$dir/screen" 2>"$dir/err" &
vpid=$!
soak asyncio "$vpid" "$spid" || exit 1
