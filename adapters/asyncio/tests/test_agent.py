"""Tests of the asyncio agent through the reference client (tests/client.py).

Each case runs a workload in a child interpreter (tests/workload.py) and places window boundaries
by reading the agent before and after it; accuracy is checked against the workload's own
measurements.  Synchronisation is by lines on pipes, never by sleeping.
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

    def one(self, r, name):
        ts = r.find(name)
        self.assertEqual(len(ts), 1, "tasks named %r: %d" % (name, len(ts)))
        return ts[0]


class Accuracy(AgentCase):
    def test_sleep0_polls_and_wakes(self):
        r, a, b, _, _ = self.run_window("sleep0")
        t = self.one(r, "spinner")
        busy, sched, idle, polls, wakes = window(a, b, t.tid)
        self.assertAlmostEqual(polls, 10001, delta=1)
        self.assertAlmostEqual(wakes, 10000, delta=1)
        self.assertEqual(t.self_wakes, 10000)
        self.assertEqual(t.state, DONE)

    def test_sleeper_idle_plus_sched(self):
        r, a, b, truth, _ = self.run_window("sleeper")
        t = self.one(r, "sleeper")
        busy, sched, idle, polls, wakes = window(a, b, t.tid)
        self.assertEqual((polls, wakes), (6, 5))
        self.assertLess(abs(idle + sched - truth["slept"]), 0.03 * truth["slept"])

    def test_burner_busy(self):
        r, a, b, truth, _ = self.run_window("burner")
        t = self.one(r, "burner")
        busy, sched, idle, polls, wakes = window(a, b, t.tid)
        self.assertEqual(polls, 11)
        # The longest single step: one 50 ms burn (wall time, so preemption may add to it).
        self.assertGreaterEqual(t.max_step, 50_000_000)
        self.assertLessEqual(t.max_step, busy)
        self.assertEqual(t.parked, 0)  # finished: parked nowhere
        self.assertLess(abs(busy - truth["burned"]), 0.03 * truth["burned"])

    def test_reads_during_long_steps(self):
        """Boundaries inside 50 ms steps: the step start is journaled, so no window goes negative."""
        c = Child(self, "burner")
        r = self.reader(c.path)
        snaps = [r.read()]
        c.send("go")
        fd = c.p.stdout.fileno()
        while not select.select([fd], [], [], 0.013)[0]:  # the sampling period, not a sync
            snaps.append(r.read())
        truth = c.until_done()
        snaps.append(r.read())
        for x, y in zip(snaps, snaps[1:]):
            self.check_invariants(r, x, y)
        t = self.one(r, "burner")
        self.assertTrue([s for s in snaps if t.tid in s.tasks and s.tasks[t.tid].state == client.RUNNING])
        busy = sum(window(x, y, t.tid)[0] for x, y in zip(snaps, snaps[1:]))
        self.assertLess(abs(busy - truth["burned"]), 0.03 * truth["burned"])

    def test_tasks_behind_a_hog_are_scheduled(self):
        c = Child(self, "hog")
        r = self.reader(c.path)
        snaps = [r.read()]
        c.send("go")
        fd = c.p.stdout.fileno()
        # Windows back to back while the workload runs (the wait is the sampling period, not a sync).
        while not select.select([fd], [], [], 0.05)[0]:
            snaps.append(r.read())
        truth = c.until_done()
        snaps.append(r.read())
        for x, y in zip(snaps, snaps[1:]):
            self.check_invariants(r, x, y)
        for i in range(3):
            t = self.one(r, "polite%d" % i)
            sched = sum(window(x, y, t.tid)[1] for x, y in zip(snaps, snaps[1:]))
            self.assertGreater(sched, 0.8 * truth["burned"])


class Structure(AgentCase):
    def test_nested_spawn_stacks_root_first(self):
        r, a, b, truth, _ = self.run_window("nested")
        l4, l3, l2, l1 = truth["lines"]
        serve, fan = self.one(r, "serve"), self.one(r, "fan")
        leaves = r.find("leaf")
        self.assertEqual(len(leaves), 2)
        main = b.tasks[serve.parent]
        self.assertEqual(r.name(main), "start")
        self.assertEqual(fan.parent, serve.tid)
        want = ["workload:case_nested:%d" % l4, "workload:start:%d" % l3, "workload:serve:%d" % l2,
                "workload:fan_out:%d" % l1]
        for leaf in leaves:
            self.assertEqual(leaf.parent, fan.tid)
            stack = r.stack_text(leaf.stack)
            self.assertEqual(stack[-4:], want)
            self.assertEqual(stack[0].split(":")[1], "[module]")
            self.assertFalse([f for f in stack if f.startswith("asyncio") or f.startswith("asynctop_agent")])
        self.assertEqual(r.stack_text(main.stack)[-1], want[0])

    def test_deep_stacks_count_what_they_leave_out(self):
        # Issue 14: a 10 000-frame spawn stack read "[truncated 2 frames]".  The agent keeps 128
        # frames of each stack and says how many it left out, so the true depth survives.
        c = Child(self, "deep")
        r = self.reader(c.path)
        r.read()
        c.send("go")
        got = []

        def at_mark(_):
            r.read()
            got.append(self.one(r, "deep"))

        truth = c.until_done(on_mark=at_mark)
        r.read()
        c.finish()
        t = got[0]
        own = r.stacks[t.stack]
        self.assertEqual(len(own[1]), 128)
        self.assertEqual(len(own[1]) + own[2], truth["own"])
        self.assertEqual(r.stack_text(t.stack)[-1].split(":")[1], "d_spawn")
        parent_frames = r.stack_frames(own[0])
        kept, left = r.stack_frames(t.stack)
        self.assertEqual(kept + left, sum(parent_frames) + truth["own"])
        self.assertTrue(t.parked, "no parked-at stack")
        self.assertEqual(r.stack_frames(t.parked), (128, truth["parked"] - 128))
        self.assertEqual(r.parked_text(t)[-1], "[awaits Event]")

    def test_launcher_frames_stay_out_of_stacks(self):
        # `python3 -m asynctop_agent app.py` runs the app through runpy (a frozen module
        # since 3.11): none of that belongs in a spawn stack, which starts at the app.
        r, a, b, truth, _ = self.run_window("nested", launcher=True)
        for leaf in r.find("leaf"):
            stack = r.stack_text(leaf.stack)
            self.assertEqual(stack[0].split(":")[:2], ["workload", "[module]"], stack)
            self.assertFalse([f for f in stack if f.split(":")[0] in ("runpy", "asynctop_agent")],
                             stack)

    def test_threads_two_loops(self):
        r, a, b, _, _ = self.run_window("threads")
        ws = r.find("w")
        self.assertEqual(len(ws), 6)
        names = sorted(r.strings[t.thread] for t in ws)
        self.assertEqual(names, ["loopA"] * 3 + ["loopB"] * 3)
        self.assertEqual(len({t.loop for t in ws}), 2)
        self.assertEqual(b.end["loop_threads"], 2)
        for t in ws:
            self.assertEqual(window(a, b, t.tid)[3], 201)

    def test_loop_threads_in_turn_count_as_two(self):
        r, a, b, _, _ = self.run_window("threads_in_turn")
        self.assertEqual(sorted(r.strings[t.thread] for t in r.find("w")), ["loopA"] * 3 + ["loopB"] * 3)
        self.assertEqual(b.end["loop_threads"], 2)

    def test_eager_tasks(self):
        py = interpreter("import sys, asyncio; sys.exit(not hasattr(asyncio, 'eager_task_factory'))")
        if py is None:
            self.skipTest("no Python 3.12+ interpreter found for eager tasks")
        r, a, b, truth, _ = self.run_window("eager", python=py)
        child, parent = self.one(r, "child"), self.one(r, "case_eager.<locals>.parent")
        self.assertTrue(child.flags & client.F_EAGER)
        self.assertEqual(child.parent, parent.tid)
        cb = window(a, b, child.tid)
        pb = window(a, b, parent.tid)
        self.assertEqual(cb[3], 2)
        quick, grand = self.one(r, "quick"), self.one(r, "grandchild")
        self.assertEqual((quick.state, quick.polls, quick.parent), (DONE, 1, parent.tid))
        self.assertTrue(quick.flags & client.F_EAGER)
        self.assertEqual(grand.parent, child.tid)
        self.assertEqual(r.stack_text(grand.stack)[:-1], r.stack_text(child.stack))
        # Busy is wall time: the slack covers create_task, the grandchild's spawn and preemption
        # outside the measured burns on a loaded machine; the point is that the eager first
        # step (50 ms) is the child's.
        self.assertGreaterEqual(cb[0], truth["child_burn"])
        self.assertLess(cb[0], truth["child_burn"] + max(0.03 * truth["child_burn"], 10_000_000))
        # Without moving the eager child's first step out of the parent's busy time, the parent
        # would show ≈ 70 ms instead of its own ≈ 20 ms; the slack covers create_task itself.
        self.assertGreaterEqual(pb[0], truth["parent_burn"])
        self.assertLess(pb[0], truth["parent_burn"] + 10_000_000)

    def test_uvloop(self):
        py = interpreter("import uvloop")
        if py is None:
            self.skipTest("no interpreter here can import uvloop")
        r, a, b, truth, _ = self.run_window("uvloop", python=py)
        self.assertTrue(truth["loop"].startswith("uvloop"))
        self.assertTrue(truth["patched"], "uvloop.Loop patched after its import")
        spin, burn = self.one(r, "spin"), self.one(r, "burn")
        _, _, _, polls, wakes = window(a, b, spin.tid)
        self.assertAlmostEqual(polls, 10001, delta=1)
        self.assertAlmostEqual(wakes, 10000, delta=1)
        busy = window(a, b, burn.tid)[0]
        self.assertLess(abs(busy - truth["burned"]), 0.03 * truth["burned"])
        self.assertGreater(window(a, b, spin.tid)[1], 0.8 * truth["burned"])

    def test_ring_overflow_aggregates_without_double_counting(self):
        c = Child(self, "aggregate", env={"ASYNCTOP_RING": "16"})
        r = self.reader(c.path)
        snaps = [r.read()]
        c.send("go")
        c.until_done(on_mark=lambda _: snaps.append(r.read()))
        snaps.append(r.read())
        a, m, b = snaps
        self.assertEqual(len([t for t in m.tasks.values() if r.name(t) == "waiter" and t.state != DONE]), 50)
        waiters = r.find("waiter")
        self.assertEqual(len(waiters), 50)
        self.assertTrue(all(t.state == DONE for t in waiters))
        shorts = [t for t in r.find("short") if t.created > m.T]
        agg = sum(v[0] for k, v in b.aggs.items())
        self.assertEqual(len(shorts) + agg, 1000)
        self.assertGreater(agg, 900)
        self.assertEqual(b.end["aggregated"], agg)
        wstack = waiters[0].stack
        self.assertFalse([k for k in b.aggs if k[0] == wstack])
        for x, y in ((a, m), (m, b)):
            self.check_invariants(r, x, y)


class Slices(AgentCase):
    def test_a_large_first_read_comes_in_slices(self):
        # A first read carries every live task; with a million that took longer than the
        # reader's 2 s reply timeout.  Past ASYNCTOP_SLICE_MS (default 500) the agent ends the
        # reply with END MORE and the rest of the backlog comes in the replies to the next READs.
        c = Child(self, "many", env={"ASYNCTOP_SLICE_MS": "20", "MANY_TASKS": "10000"})
        r = self.reader(c.path)
        r.read()
        c.send("go")
        got = {}

        def at_mark(_):
            fresh = self.reader(c.path)  # a new connection: its first read owes every live task
            ends = []
            while not ends or ends[-1]["flags"] & client.END_MORE:
                t0 = time.monotonic()
                snap = fresh.read(whole=False)
                snap.end["took"] = time.monotonic() - t0
                ends.append(snap.end)
                self.assertLess(len(ends), 1000, "slices never end")
            got["ends"], got["tasks"] = ends, snap.tasks
            got["whole"] = self.reader(c.path).read()  # as asynctop reads: slices until the last

        truth = c.until_done(on_mark=at_mark)
        r.read()
        c.finish()
        ends, n = got["ends"], truth["tasks"]
        print("\n  %d live tasks: first read in %d slices, longest %.0f ms, records %s"
              % (n, len(ends), max(e["took"] for e in ends) * 1e3,
                 " ".join(str(e["task_records"]) for e in ends[:8])), file=sys.stderr)
        self.assertGreater(len(ends), 1)
        self.assertLess(ends[0]["task_records"], n)
        self.assertEqual(ends[0]["flags"] & client.END_FIRST, client.END_FIRST)
        self.assertEqual([e["gen"] for e in ends], list(range(1, len(ends) + 1)))
        self.assertEqual(sum(1 for t in got["tasks"].values() if t.state != DONE), n + 1)  # and main
        self.assertGreaterEqual(sum(e["task_records"] for e in ends), n + 1)
        self.assertGreater(got["whole"].end["slices"], 1)
        self.assertEqual(sum(1 for t in got["whole"].tasks.values() if t.state != DONE), n + 1)


class Churn(AgentCase):
    def test_reads_answer_while_tasks_come_and_go(self):
        """A read answers the state as of one instant: tasks spawned while it is being served
        belong to the next read, so it never chases them (the reply timeout is 2 s)."""
        c = Child(self, "churn")
        r = self.reader(c.path)
        r.read()
        c.send("go")
        word, _ = c.line()
        self.assertEqual(word, "mark")
        took = []
        for _ in range(4):
            t0 = time.monotonic()
            snap = r.read()
            took.append(time.monotonic() - t0)
        self.assertLess(max(took), 2.0, took)
        self.assertGreater(snap.end["finished_total"], 0)
        c.send("ok")
        truth = c.until_done()
        last = r.read()
        self.assertGreaterEqual(truth["spawned"], 5000)
        self.assertEqual(last.end["live"], 0)
        c.finish()


class Stall(AgentCase):
    def test_reads_do_not_stall_the_loop(self):
        """The ticker's lateness while the agent is read against the quiet phases of the same run:
        one process alternates reading phases (a catch-up read, whose ticks are not counted, then
        three reads at least 0.25 s apart) and quiet phases as long as the reading phase before,
        so both see the same load.  Phases are counted in reads, never in seconds, and the bound
        is a ratio and a difference, never an absolute time: a loaded machine slows both alike."""
        c = Child(self, "stall", env={"STALL_TASKS": "1000", "STALL_SECONDS": "0", "STALL_SAMPLES": "1"})
        r = Reader(c.path, timeout=120)
        self.addCleanup(r.close)
        r.do_hello()
        r.read()
        c.send("go")
        self.assertEqual(c.line(), ("mark", "ticking"))
        phases = []  # (counted from, end, reading)
        fd = c.p.stdout.fileno()
        for _ in range(4):
            start = time.monotonic_ns()
            r.read()  # catches up with the quiet phase: its ticks are not counted
            counted = time.monotonic_ns()
            for _ in range(3):
                t = time.monotonic_ns()
                r.read()
                select.select([fd], [], [], max(0.0, 0.25 - (time.monotonic_ns() - t) / 1e9))  # spacing
            end = time.monotonic_ns()
            phases.append((counted, end, True))
            select.select([fd], [], [], max(1.0, (end - start) / 1e9))  # the quiet phase, not a sync
            phases.append((end, time.monotonic_ns(), False))
        c.send("stop")
        truth = c.until_done()
        c.finish()
        quiet, reading = [], []
        for t0, late in truth["samples"]:
            for a, b, rd in phases:
                if a <= t0 < b:
                    (reading if rd else quiet).append(late)
                    break
        quiet.sort()
        reading.sort()
        self.assertGreaterEqual(len(quiet), 4, "ticks in the quiet phases")
        self.assertGreaterEqual(len(reading), 4, "ticks in the reading phases")
        q, r = quiet[len(quiet) // 2], reading[len(reading) // 2]
        self.assertLess(r, 3 * q + 10_000_000, "median lateness %.2f ms while read, %.2f ms quiet"
                        % (r / 1e6, q / 1e6))


class Parked(AgentCase):
    """Where each task is parked, read at a mark while every task waits on its primitive."""

    def parked(self, python=None, env=None):
        c = Child(self, "parked", env=env, python=python)
        r = self.reader(c.path)
        r.read()
        c.send("go")
        got = {}

        def at_mark(_):
            snap = r.read()
            for t in snap.tasks.values():
                got[r.name(t)] = (r.parked_text(t), t)

        truth = c.until_done(on_mark=at_mark)
        r.read()
        c.finish()
        return got, truth["lines"], r

    def check_all(self, got, ln, uv=False):
        w = "workload:"

        def stack(name):
            frames, _ = got[name]
            self.assertTrue(frames, "%s: no parked-at stack" % name)
            return frames

        lock = stack("lock")
        self.assertEqual(lock[0], w + "p_lock:%d" % ln["lock"])
        self.assertTrue(lock[-2].startswith("asyncio.locks:Lock.acquire:"), lock)
        self.assertEqual(lock[-1], "[awaits Lock]")
        self.assertEqual(stack("event"), [w + "p_event:%d" % ln["event"], stack("event")[1], "[awaits Event]"])
        self.assertTrue(stack("event")[1].startswith("asyncio.locks:Event.wait:"))
        self.assertEqual(stack("queue")[0], w + "p_queue:%d" % ln["queue"])
        self.assertEqual(stack("queue")[-1], "[awaits Queue.get]")
        self.assertEqual(stack("sem")[-1], "[awaits Semaphore]")
        self.assertEqual(stack("sleep")[0], w + "p_sleep:%d" % ln["sleep"])
        self.assertEqual(stack("sleep")[-1], "[awaits sleep]")
        self.assertEqual(stack("awaits-task"), [w + "p_await_task:%d" % ln["task"], "[awaits task target]"])
        self.assertEqual(stack("gather"), [w + "p_gather:%d" % ln["gather"], "[awaits gather]"])
        nested = stack("nested")
        self.assertEqual(nested[:2], [w + "p_outer:%d" % ln["outer"], w + "p_middle:%d" % ln["middle"]])
        self.assertEqual(nested[-1], "[awaits Event]")
        agen = stack("agen")
        self.assertEqual(agen[:2], [w + "p_consumer:%d" % ln["consumer"], w + "p_agen:%d" % ln["agen"]])
        self.assertEqual(agen[-1], "[awaits Event]")
        tg = stack("taskgroup")
        self.assertEqual(tg[0], w + "p_taskgroup:%d" % ln["tg"])
        self.assertEqual(tg[-1], "[awaits TaskGroup]")
        self.assertEqual(stack("tg-child")[-1], "[awaits Event]")
        self.assertEqual(stack("read")[0], w + "p_read:%d" % ln["read"])
        self.assertEqual(stack("read")[-1], "[awaits socket read]")
        lost, held = got["lost"], got["held"]
        self.assertEqual(lost[0], [w + "p_lost:%d" % ln["lost"], "[awaits Future]"])
        self.assertEqual(held[0], [w + "p_held:%d" % ln["held"], "[awaits Future]"])
        self.assertEqual(got["lost-timed"][0], [w + "p_lost_timed:%d" % ln["timed"], "[awaits Future]"])
        # uvloop keeps no list of its timers to rule out a timeout, so it never claims one.
        self.assertEqual(bool(lost[1].flags & client.F_NO_WAKER), not uv, "an orphaned future")
        for name, (_, t) in got.items():
            if name != "lost":
                self.assertFalse(t.flags & client.F_NO_WAKER, name)

    def test_each_primitive(self):
        got, ln, _ = self.parked()
        self.check_all(got, ln)

    def test_each_primitive_uvloop(self):
        py = interpreter("import uvloop")
        if py is None:
            self.skipTest("no interpreter here can import uvloop")
        got, ln, _ = self.parked(python=py, env={"WORKLOAD_UVLOOP": "1"})
        self.check_all(got, ln, uv=True)

    def test_each_primitive_eager(self):
        py = interpreter("import asyncio; asyncio.eager_task_factory")
        if py is None:
            self.skipTest("eager tasks need CPython 3.12+, and none was found here")
        got, ln, _ = self.parked(python=py, env={"WORKLOAD_EAGER": "1"})
        self.check_all(got, ln)

    def test_only_tasks_that_stepped_are_walked_again(self):
        c = Child(self, "parked")
        r = self.reader(c.path)
        r.read()
        c.send("go")
        seen = []

        def at_mark(_):
            seen.append(r.read())
            # The main task may still be finishing the step that printed the mark; once it waits
            # for the test's answer, nothing steps, so a read carries (and walks) nothing.
            for _ in range(50):
                seen.append(r.read())
                if not seen[-1].end["task_records"]:
                    break

        c.until_done(on_mark=at_mark)
        c.finish()
        first, second = seen[0], seen[-1]
        self.assertGreater(first.end["task_records"], 10)
        self.assertEqual(second.end["task_records"], 0)  # nothing stepped: nothing sent, nothing walked
        lock = [t for t in second.tasks.values() if r.name(t) == "lock"][0]
        self.assertEqual(r.parked_text(lock)[-1], "[awaits Lock]")  # the reader keeps the last one


class Lifecycle(AgentCase):
    def test_tasks_that_predate_the_agent(self):
        c = Child(self, "predate")
        c.send("go")
        readers = []

        def at_mark(_):
            r = self.reader(c.path)
            readers.append((r, r.read()))

        truth = c.until_done(on_mark=at_mark)
        r, a = readers[0]
        b = r.read()
        self.check_invariants(r, a, b)
        old, young = self.one(r, "old"), self.one(r, "young")
        self.assertTrue(old.flags & client.F_UNKNOWN)
        self.assertEqual(r.stack_text(old.stack), ["[spawn site unknown]"])
        self.assertFalse(young.flags & client.F_UNKNOWN)
        self.assertEqual(young.parent, old.tid)
        self.assertEqual(r.stack_text(young.stack),
                         ["[spawn site unknown]", "workload:case_predate.[locals].old:%d" % truth["line"]])


    def test_late_timer_is_not_dated_before_a_boundary(self):
        c = Child(self, "late_timer")
        c.send("go")
        readers = []

        def at_mark(_):
            r = self.reader(c.path)
            readers.append((r, r.read()))

        c.until_done(on_mark=at_mark)
        r, a = readers[0]
        b = r.read()
        self.check_invariants(r, a, b)
        t = self.one(r, "sleeper")
        self.assertEqual(t.state, DONE)
        self.assertGreaterEqual(b.tasks[t.tid].t_mark, a.T)

    def test_orphaned_tasks_are_retired(self):
        r, a, b, truth, _ = self.run_window("orphans")
        self.assertGreaterEqual(truth["live_before"], 1000)
        self.assertEqual(truth["live_after"], 0)
        self.assertEqual(b.end["live"], 0)

    def test_intern_tables_are_capped(self):
        r, a, b, truth, _ = self.run_window("overflow")
        names = [r.name(t) for t in b.tasks.values()]
        self.assertIn("[other]", names)
        self.assertLess(len(r.strings), 45)
        self.assertTrue(b.end["flags"] & 4)
        kids = [t for t in b.tasks.values() if t.parent]
        self.assertEqual(len(kids), 100)
        self.assertTrue(all(r.name(t).startswith("n") or r.name(t) == "[other]" for t in kids))

    def test_hello_identifies_the_process(self):
        c = Child(self, "idle")
        r = self.reader(c.path)
        h = r.hello
        self.assertEqual(h["pid"], c.p.pid)
        with open("/proc/%d/stat" % c.p.pid, "rb") as f:
            data = f.read()
        self.assertEqual(h["start_ticks"], int(data[data.rindex(b")") + 2:].split()[19]))
        self.assertIn("workload.py idle", h["cmdline"])
        self.assertTrue(h["python"].startswith("cpython 3."))
        self.assertAlmostEqual(h["now"], time.monotonic_ns(), delta=5e9)
        self.assertEqual(os.path.basename(c.path), "%d.sock" % c.p.pid)
        self.assertEqual(stat.S_IMODE(os.stat(c.path).st_mode), 0o600)
        self.assertEqual(stat.S_IMODE(os.stat(os.path.dirname(c.path)).st_mode), 0o700)
        c.send("go")
        c.until_done(on_mark=lambda _: None)
        c.finish()

    def test_final_snapshot_at_exit(self):
        c = Child(self, "sleep0")
        r = self.reader(c.path)
        r.read()
        c.send("go")
        c.until_done()
        c.send("exit")
        final = r.collect(0)
        self.assertTrue(final.end["flags"] & client.END_FINAL)
        self.assertEqual(final.end["seq"], 0)
        self.assertEqual(self.one(r, "spinner").state, DONE)
        with self.assertRaises(EOFError):
            r.recv_frame()
        c.p.wait(timeout=TIMEOUT)
        self.assertFalse(os.path.exists(c.path))

    def test_fork(self):
        c = Child(self, "fork")
        parent_reader = self.reader(c.path)
        parent_reader.read()
        c.send("go")
        word, rest = c.line()
        self.assertEqual(word, "child")
        pid, path = rest.split(" ", 1)
        self.assertNotEqual(path, c.path)
        self.assertEqual(os.path.basename(path), "%s.sock" % pid)
        r = self.reader(path)
        self.assertEqual(r.hello["pid"], int(pid))
        snap = r.read()
        held = self.one(r, "held")
        self.assertEqual(held.state, client.IDLE)
        self.assertEqual(held.polls, 11)
        self.assertTrue(r.stack_text(held.stack)[-1].startswith("workload:case_fork.[locals].child_main:"))
        self.assertTrue(snap.end["flags"] & client.END_FIRST)
        self.assertTrue(os.path.exists(c.path), "the child must not remove the parent's socket")
        c.send("child-exit")
        truth = c.until_done()
        self.assertEqual(truth["child_pid"], int(pid))
        self.assertEqual(parent_reader.read().end["gen"], 2)

    def test_agent_fault_disables_and_app_is_unaffected(self):
        c = Child(self, "fault")
        r = self.reader(c.path)
        r.read()
        c.send("go")
        truth = c.until_done()
        self.assertEqual(truth["result"], 3 * sum(range(1000)))
        self.assertTrue(truth["restored"])
        self.assertFalse(truth["enabled"])
        snap = r.read()
        self.assertTrue(snap.end["flags"] & 8)
        code, err = c.finish()
        self.assertEqual(code, 0)
        lines = [ln for ln in err.splitlines() if "asynctop agent" in ln]
        self.assertEqual(len(lines), 1, err)
        self.assertIn("injected agent bug", lines[0])


class Endpoint(AgentCase):
    def raw(self, path):
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.settimeout(5)
        s.connect(path)
        self.addCleanup(s.close)
        return s

    def expect_error_then_close(self, s, code):
        hdr = b""
        while len(hdr) < 16:
            chunk = s.recv(16 - len(hdr))
            self.assertTrue(chunk, "closed without an ERROR frame")
            hdr += chunk
        magic, ver, typ, length, seq = struct.unpack("<4sHHII", hdr)
        self.assertEqual((magic, ver, typ), (b"ATOP", client.VERSION, 0xFF))
        body = b""
        while len(body) < length:
            body += s.recv(length - len(body))
        self.assertEqual(struct.unpack_from("<I", body)[0], code, body)
        self.assertEqual(s.recv(1), b"")

    def test_hostile_requests_close_only_that_connection(self):
        c = Child(self, "idle")
        good = self.reader(c.path)
        good.read()
        hdr = struct.Struct("<4sHHII")
        cases = [
            (b"GARBAGE!" * 2, 3),
            (hdr.pack(b"ATOP", 4, 2, 1 << 20, 1), 3),  # oversized
            (hdr.pack(b"ATOP", 4, 0x77, 0, 1), 3),  # unknown type
            (hdr.pack(b"ATOP", 4, 2, 0, 1), 3),  # READ before HELLO
            (hdr.pack(b"ATOP", 9, 1, 8, 1) + b"\0" * 8, 4),  # wrong version
            (hdr.pack(b"ATOP", 3, 1, 8, 1) + struct.pack("<HHI", 3, 3, 0), 4),  # a version 3 reader
            (hdr.pack(b"ATOP", 4, 1, 8, 1) + struct.pack("<HHI", 5, 6, 0), 4),  # no common version
        ]
        for data, code in cases:
            s = self.raw(c.path)
            s.sendall(data)
            self.expect_error_then_close(s, code)
        s = self.raw(c.path)
        s.sendall(bytes(range(256)) * 4)
        self.expect_error_then_close(s, 3)
        snap = good.read()
        self.assertEqual(snap.end["gen"], 2)
        other = self.reader(c.path)
        self.assertEqual(other.read().end["gen"], 1)
        c.send("go")
        c.until_done(on_mark=lambda _: None)
        c.finish()

    def test_connections_closed_back_to_back(self):
        """A connection closing followed at once by another (discovery's probe, every retry)
        reuses the departed one's fd: the endpoint must keep answering."""
        c = Child(self, "idle")
        for i in range(40):
            s = self.raw(c.path)
            if i % 2:
                s.sendall(struct.pack("<4sHHII", b"ATOP", 2, 1, 8, 1) + struct.pack("<HHI", 2, 2, 0))
            s.close()
            r = Reader(c.path)
            r.do_hello()
            r.close()
        last = self.reader(c.path)
        self.assertEqual(last.read().end["gen"], 1)
        c.send("go")
        c.until_done(on_mark=lambda _: None)
        c.finish()

    def test_idle_connections_give_way(self):
        c = Child(self, "idle", env={"ASYNCTOP_IDLE_GIVE_WAY": "0"})
        idle = [self.reader(c.path) for _ in range(8)]
        for r in idle[1:]:
            r.read()  # the first connection is the one idle the longest
        ninth = self.reader(c.path)
        self.assertEqual(ninth.read().end["gen"], 1)
        with self.assertRaises(client.AgentError) as e:
            idle[0].recv_frame()
        self.assertEqual(e.exception.code, 2)
        self.assertEqual(idle[1].read().end["gen"], 2)
        c.send("go")
        c.until_done(on_mark=lambda _: None)
        c.finish()

    def test_active_connections_are_not_displaced(self):
        c = Child(self, "idle")
        full = [self.reader(c.path) for _ in range(8)]
        with self.assertRaises(client.AgentError) as e:
            self.reader(c.path)
        self.assertEqual(e.exception.code, 2)
        for r in full:
            self.assertEqual(r.read().end["gen"], 1)
        c.send("go")
        c.until_done(on_mark=lambda _: None)
        c.finish()

    def test_other_uid_refused(self):
        if os.geteuid() != 0:
            self.skipTest("needs root to drop a child to nobody")
        base = tempfile.mkdtemp(prefix="atest-uid-")
        self.addCleanup(shutil.rmtree, base, True)
        os.chmod(base, 0o755)
        c = Child(self, "idle", env={"XDG_RUNTIME_DIR": base, "ASYNCTOP_TEST_SOCKET_MODE": "0666"})
        self.assertEqual(stat.S_IMODE(os.stat(c.path).st_mode), 0o666)
        rfd, wfd = os.pipe()
        pid = os.fork()
        if pid == 0:
            try:
                os.close(rfd)
                os.setgroups([])
                os.setgid(65534)
                os.setuid(65534)
                s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                s.settimeout(5)
                s.connect(c.path)
                s.sendall(struct.pack("<4sHHII", b"ATOP", 2, 1, 8, 1) + struct.pack("<HHI", 2, 2, 0))
                data = b""
                while True:
                    b = s.recv(4096)
                    if not b:
                        break
                    data += b
                os.write(wfd, data)
            except BaseException as e:
                os.write(wfd, ("EXC %r" % e).encode())
            finally:
                os._exit(0)
        os.close(wfd)
        with os.fdopen(rfd, "rb") as f:
            data = f.read()
        os.waitpid(pid, 0)
        self.assertGreaterEqual(len(data), 20, data)
        self.assertFalse(data.startswith(b"EXC"), data)
        self.assertEqual(struct.unpack_from("<4sHHII", data)[2], 0xFF)
        self.assertEqual(struct.unpack_from("<I", data, 16)[0], 1)
        self.assertIn(b"uid 65534 refused", data)
        c.send("go")
        c.until_done(on_mark=lambda _: None)
        c.finish()

    def start_in(self, xdg, extra=""):
        env = dict(os.environ, XDG_RUNTIME_DIR=xdg, PYTHONPATH=PKG_DIR)
        env.pop("ASYNCTOP_SOCKET", None)
        code = "import asynctop_agent as a, sys; p = a.start(); print(p)" + extra
        return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                              timeout=TIMEOUT)

    def test_planted_directory_or_symlink_refused(self):
        base = tempfile.mkdtemp(prefix="atest-")
        self.addCleanup(shutil.rmtree, base, True)
        target = os.path.join(base, "elsewhere")
        os.mkdir(target, 0o700)
        os.symlink(target, os.path.join(base, "asynctop"))
        r = self.start_in(base)
        self.assertEqual(r.stdout.strip(), "None")
        self.assertIn("refusing", r.stderr)
        self.assertEqual(os.listdir(target), [])
        os.unlink(os.path.join(base, "asynctop"))
        os.mkdir(os.path.join(base, "asynctop"), 0o755)
        os.chmod(os.path.join(base, "asynctop"), 0o755)
        r = self.start_in(base)
        self.assertEqual(r.stdout.strip(), "None")
        self.assertIn("expected 0700", r.stderr)

    def test_explicit_socket_path(self):
        base = tempfile.mkdtemp(prefix="atest-")
        self.addCleanup(shutil.rmtree, base, True)
        path = os.path.join(base, "app.sock")
        env = dict(os.environ, ASYNCTOP_SOCKET=path, PYTHONPATH=PKG_DIR)
        code = ("import asynctop_agent as a, os; p = a.start(); "
                "print(p, oct(os.stat(p).st_mode & 0o777))")
        r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=TIMEOUT)
        self.assertEqual(r.stdout.split(), [path, "0o600"], r.stderr)
        self.assertFalse(os.path.exists(path), "removed at exit")

    def test_stale_sockets_removed(self):
        base = tempfile.mkdtemp(prefix="atest-")
        self.addCleanup(shutil.rmtree, base, True)
        d = os.path.join(base, "asynctop")
        os.mkdir(d, 0o700)
        dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True,
                              text=True).stdout.strip()
        stale = os.path.join(d, "%s.sock" % dead)
        s = socket.socket(socket.AF_UNIX)
        s.bind(stale)
        s.close()
        live = os.path.join(d, "1.sock")  # pid 1 is alive: left alone
        s = socket.socket(socket.AF_UNIX)
        s.bind(live)
        s.close()
        r = self.start_in(base)
        self.assertTrue(r.stdout.strip().endswith(".sock"), r.stderr)
        self.assertFalse(os.path.exists(stale))
        self.assertTrue(os.path.exists(live))


class Launcher(unittest.TestCase):
    def test_module_entry_points(self):
        tmp = tempfile.mkdtemp(prefix="atest-")
        self.addCleanup(shutil.rmtree, tmp, True)
        app = ("import asyncio, sys, asynctop_agent\n"
               "async def main(): print(asynctop_agent.is_enabled(), sys.argv[1:])\n"
               "asyncio.run(main())\n")
        with open(os.path.join(tmp, "app.py"), "w") as f:
            f.write(app)
        os.mkdir(os.path.join(tmp, "pkg"))
        with open(os.path.join(tmp, "pkg", "__init__.py"), "w") as f:
            f.write("")
        with open(os.path.join(tmp, "pkg", "__main__.py"), "w") as f:
            f.write(app)
        env = dict(os.environ, XDG_RUNTIME_DIR=tmp, PYTHONPATH=PKG_DIR)
        r = subprocess.run([sys.executable, "-m", "asynctop_agent", os.path.join(tmp, "app.py"), "x", "-y"],
                           capture_output=True, text=True, env=env, cwd=tmp, timeout=TIMEOUT)
        self.assertEqual(r.stdout.strip(), "True ['x', '-y']", r.stderr)
        r = subprocess.run([sys.executable, "-m", "asynctop_agent", "-m", "pkg", "z"],
                           capture_output=True, text=True, env=env, cwd=tmp, timeout=TIMEOUT)
        self.assertEqual(r.stdout.strip(), "True ['z']", r.stderr)
        r = subprocess.run([sys.executable, os.path.join(tmp, "app.py")], capture_output=True, text=True,
                           env=env, timeout=TIMEOUT)
        self.assertEqual(r.stdout.strip(), "False []", "nothing is measured without opting in")


if __name__ == "__main__":
    unittest.main()
