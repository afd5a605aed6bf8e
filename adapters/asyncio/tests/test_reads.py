"""Reads under load: slices of a large backlog, reads while tasks come and go, how a read makes
way for a loop that has work, and what reads cost the event loop.

Shared helpers: agentcase.py."""

import asyncio
import os
import select
import sys
import time
import unittest

from agentcase import client, Child, AgentCase
from client import DONE, Reader

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from asynctop_agent import _pace  # noqa: E402  (importing installs nothing; only start() does)


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


class Pace(unittest.TestCase):
    """Between two chunks of a read, the agent holds back while a loop has work waiting.  The
    loops here are real stdlib loops that are not run: one marked as running in another thread
    shows exactly what the test queued on it, with no thread to race."""

    def loop_elsewhere(self):
        loop = asyncio.new_event_loop()
        loop._thread_id = -1  # as if run_forever ran in another thread

        def close():
            loop._thread_id = None
            loop.close()
        self.addCleanup(close)
        return loop

    def pacer_for(self, loop):
        class T:
            pass
        t = T()
        t._loop = loop
        p = _pace.Pacer()
        p.learn(t)
        return p

    def test_a_loop_with_work_waiting_is_busy(self):
        loop = self.loop_elsewhere()
        p = self.pacer_for(loop)
        self.assertFalse(p.busy(), "an idle loop")
        far = loop.call_later(3600, lambda: None)
        self.assertFalse(p.busy(), "a timer due in an hour")
        due = loop.call_at(loop.time(), lambda: None)
        self.assertTrue(p.busy(), "a timer due now")
        due.cancel()
        loop._scheduled.remove(due)
        self.assertFalse(p.busy())
        loop.call_soon(lambda: None)
        self.assertTrue(p.busy(), "a callback ready")
        far.cancel()

    def test_a_held_back_chunk_still_goes(self):
        # A loop that never goes idle lets a chunk through after HOLD_BACK_NS: a read ends,
        # however slowly, on a saturated loop.
        loop = self.loop_elsewhere()
        p = self.pacer_for(loop)
        loop.call_soon(lambda: None)
        self.assertTrue(p.busy())
        t0 = time.monotonic()
        p.pause(0)
        self.assertLess(time.monotonic() - t0, 2.0)

    def test_loops_it_cannot_look_at(self):
        # The loop of the pausing thread itself (stop() called from a coroutine) is never waited
        # for, nor a loop that does not run, nor one without a visible ready queue (uvloop), nor
        # one it cannot reference weakly.
        async def inside():
            p = self.pacer_for(asyncio.get_running_loop())
            asyncio.get_running_loop().call_soon(lambda: None)
            return p.busy()

        self.assertFalse(asyncio.run(inside()))
        loop = self.loop_elsewhere()
        loop.call_soon(lambda: None)
        loop._thread_id = None
        self.assertFalse(self.pacer_for(loop).busy(), "not running")
        loop._thread_id = -1

        class Opaque:
            __slots__ = ("_thread_id", "_ready")

        o = Opaque()
        o._thread_id, o._ready = -1, [1]
        self.assertFalse(self.pacer_for(o).busy(), "not weakly referable: not watched")

        class Uv:
            _thread_id = -1

        self.assertFalse(self.pacer_for(Uv()).busy(), "no ready queue")


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


if __name__ == "__main__":
    unittest.main()
