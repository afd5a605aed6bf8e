#!/bin/sh
# Runs the agent's Python tests on every interpreter asynctop supports: python3 on PATH,
# /usr/bin/python3 when it differs, and any python3.12 / python3.13 found (pyenv versions too).
# A missing interpreter is skipped with a printed reason. uvloop and eager-task cases pick an
# interpreter that can run them by themselves (see agentcase.interpreter).
here=$(cd "$(dirname "$0")" && pwd)
status=0
ran=""
seen=""

try() {
	label=$1
	py=$2
	if ! "$py" -c 'import sys; sys.exit(sys.version_info < (3, 11))' >/dev/null 2>&1; then
		echo "asyncio agent tests: skipping $label ($py): not a working Python 3.11+"
		return
	fi
	real=$("$py" -c 'import sys; print(sys.executable, sys.version.split()[0])')
	case " $seen " in *" $real "*) echo "asyncio agent tests: $label is $real, already run"; return ;; esac
	seen="$seen $real"
	echo "asyncio agent tests: $label = $real"
	if (cd "$here" && "$py" -m unittest discover -s "$here" -t "$here"); then
		ran="$ran $label"
	else
		status=1
	fi
}

try "python3 on PATH" "$(command -v python3 || echo python3)"
try "/usr/bin/python3" /usr/bin/python3
for v in 3.12 3.13; do
	found=""
	if "python$v" -c "" >/dev/null 2>&1; then
		found="python$v"
	else
		for p in "${PYENV_ROOT:-$HOME/.pyenv}"/versions/$v*/bin/python$v; do
			[ -x "$p" ] && found=$p
		done
	fi
	if [ -n "$found" ]; then
		try "python$v" "$found"
	else
		echo "asyncio agent tests: skipping python$v: not found on PATH or under pyenv"
	fi
done
echo "asyncio agent tests: ran on:$ran"
exit $status
