"""What the agent's tests share: a workload in a child interpreter (workload.py) and its line
protocol, and a test case that reads the agent through the reference client (client.py).

Each case runs a workload and places window boundaries by reading the agent before and after it;
accuracy is checked against the workload's own measurements.  Synchronisation is by lines on
pipes, never by sleeping.
"""

import glob
import json
import os
import select
import shutil
import socket
import stat
import struct
import subprocess
import sys
import tempfile
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import client  # noqa: E402
from client import DONE, Reader, window, lifetime_in  # noqa: E402

WORKLOAD = os.path.join(HERE, "workload.py")
PKG_DIR = os.path.dirname(HERE)
TIMEOUT = 60.0


def interpreter(check):
    """An interpreter for which `python -c check` succeeds: sys.executable first, then the ones
    run.sh lists.  Returns None when there is none."""
    cands = [sys.executable, "/usr/bin/python3", "python3.12", "python3.13"]
    cands += sorted(glob.glob(os.path.expanduser("~/.pyenv/versions/3.1[2-9]*/bin/python3")))
    for c in cands:
        try:
            r = subprocess.run([c, "-c", check], capture_output=True, timeout=20)
        except (OSError, subprocess.TimeoutExpired):
            continue
        if r.returncode == 0:
            return c
    return None




class Child:
    """A workload process and its line protocol (see workload.py)."""

    def __init__(self, test, case, env=None, python=None, launcher=False):
        self.tmp = tempfile.mkdtemp(prefix="atest-")
        test.addCleanup(shutil.rmtree, self.tmp, True)
        e = dict(os.environ)
        e["XDG_RUNTIME_DIR"] = self.tmp
        e.pop("ASYNCTOP_SOCKET", None)
        if launcher:
            e["PYTHONPATH"] = PKG_DIR
        e.update(env or {})
        # stderr goes to a file: a pipe nobody drains could fill up and block the workload.
        self.errf = tempfile.TemporaryFile()
        test.addCleanup(self.errf.close)
        # launcher: started as `python3 -m asynctop_agent workload.py`, as operators do.
        argv = [python or sys.executable] + (["-m", "asynctop_agent"] if launcher else [])
        self.p = subprocess.Popen(argv + [WORKLOAD, case], stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, stderr=self.errf, env=e)
        test.addCleanup(self.kill)
        self.buf = b""
        word, rest = self.line()
        if word != "ready":
            raise AssertionError("workload did not start: %r %r" % (word, self.err()[-2000:]))
        self.path = rest

    def kill(self):
        if self.p.poll() is None:
            self.p.kill()
        self.p.wait()
        for f in (self.p.stdin, self.p.stdout):
            try:
                f.close()
            except OSError:
                pass

    def err(self):
        self.kill()
        self.errf.seek(0)
        return self.errf.read().decode(errors="replace")

    def line(self):
        fd = self.p.stdout.fileno()
        deadline = time.monotonic() + TIMEOUT
        while b"\n" not in self.buf:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([fd], [], [], left)[0]:
                raise AssertionError("workload timed out")
            b = os.read(fd, 65536)
            if not b:
                raise AssertionError("workload exited: %s" % self.err()[-2000:])
            self.buf += b
        ln, self.buf = self.buf.split(b"\n", 1)
        word, _, rest = ln.decode().partition(" ")
        return word, rest

    def send(self, text):
        self.p.stdin.write((text + "\n").encode())
        self.p.stdin.flush()

    def until_done(self, on_mark=None):
        """Answer marks until 'done'; returns the workload's ground truth."""
        while True:
            word, rest = self.line()
            if word == "done":
                return json.loads(rest)
            if word == "mark" and on_mark is not None:
                on_mark(rest)
                self.send("ok")
            elif word == "child" and on_mark is not None:
                on_mark(rest)
            elif word != "mark":
                raise AssertionError("unexpected workload line %r" % word)

    def finish(self):
        self.send("exit")
        self.p.stdin.close()
        self.p.wait(timeout=TIMEOUT)
        self.errf.seek(0)
        return self.p.returncode, self.errf.read().decode(errors="replace")


class AgentCase(unittest.TestCase):
    def reader(self, path):
        r = Reader(path)
        self.addCleanup(r.close)
        r.do_hello()
        return r

    def run_window(self, case, env=None, python=None, launcher=False):
        """Boundary A, the workload, boundary B: returns (reader, a, b, truth, child)."""
        c = Child(self, case, env, python, launcher)
        r = self.reader(c.path)
        a = r.read()
        c.send("go")
        truth = c.until_done()
        b = r.read()
        self.check_invariants(r, a, b)
        return r, a, b, truth, c

    def check_invariants(self, r, a, b):
        """Per task: busy + sched + idle == its lifetime inside the window (exact, ±1 µs)."""
        for tid, t in b.tasks.items():
            busy, sched, idle, _, _ = window(a, b, tid)
            self.assertGreaterEqual(min(busy, sched, idle), 0, r.name(t))
            self.assertAlmostEqual(busy + sched + idle, lifetime_in(a, b, t), delta=1000, msg=r.name(t))

    def assert_busy_burned(self, busy, burned):
        """A burner's busy time against the 50 ms burns it measured itself (workload.burner).
        Its steps enclose the burns, so busy falls short of them only by clock reads.  Busy is
        wall time, so a loaded machine adds whatever held the loop inside a step but outside a
        burn (the interpreter lock handed to the agent's thread, preemption): up to 30 ms was seen
        at a load of 8.5.  The slack above stays under one 50 ms step, the smallest error a step
        counted twice (or a step's time given to the wrong task) would make; a lost step fails
        the bound below."""
        self.assertGreaterEqual(busy, 0.999 * burned)
        self.assertLess(busy, burned + 40_000_000)

    def one(self, r, name):
        ts = r.find(name)
        self.assertEqual(len(ts), 1, "tasks named %r: %d" % (name, len(ts)))
        return ts[0]
