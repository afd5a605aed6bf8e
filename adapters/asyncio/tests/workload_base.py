"""What every workload shares (workload.py's protocol with the test): the clock, the lines each
way, the marks and the ground truth, one module so that workload.py and workload_reads.py fill the
same truth."""

import asyncio
import sys
import time

now = time.monotonic_ns
def say(*parts):
    sys.stdout.write(" ".join(str(p) for p in parts) + "\n")
    sys.stdout.flush()


def wait_line(expected):
    got = sys.stdin.readline().strip()
    if got != expected:
        raise SystemExit("workload: expected %r, got %r" % (expected, got))


async def mark(name):
    """Pause at a boundary the test places; the loop keeps running meanwhile."""
    say("mark", name)
    await asyncio.get_running_loop().run_in_executor(None, wait_line, "ok")


def burn(ns):
    end = now() + ns
    while now() < end:
        pass


truth = {}
