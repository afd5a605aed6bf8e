"""Reads under load: slices of a large backlog, reads while tasks come and go, and what reads cost
the event loop.

Shared helpers: agentcase.py."""

import os
import select
import struct
import sys
import time
import unittest

from agentcase import client, Child, AgentCase
from client import DONE, Reader


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


class SwitchInterval(AgentCase):
    def test_held_while_a_reader_is_connected(self):
        """While a reader is connected the agent holds the switch interval at 2 ms at most, so
        that a busy loop thread cannot keep the interpreter from the endpoint thread for seconds
        (the churn above, at the default 5 ms); the application gets its own back, and an
        interval it set itself is left alone."""
        c = Child(self, "switch")
        readers = [self.reader(c.path)]
        readers[0].read()
        c.send("go")
        seen = {}

        def on_mark(rest):
            word, _, value = rest.partition(" ")
            seen[word] = float(value) if value else None
            if word in ("connected", "own"):
                readers.pop().bye()
            elif word in ("left", "low"):
                readers.append(self.reader(c.path))
                readers[-1].read()

        c.until_done(on_mark=on_mark)
        c.finish()
        self.assertEqual(seen["connected"], 0.002)
        self.assertEqual(seen["left"], 0.005)  # the interpreter's default, the workload's own
        self.assertEqual(seen["own-left"], 0.01)
        self.assertEqual(seen["low-connected"], 0.001)


class Collector(AgentCase):
    def test_a_steady_read_makes_nothing_for_the_collector(self):
        """A read of tasks that stepped since the last one allocates no container that outlives
        it.  Reading each new sleep()'s frame object (one per walked task, alive until the sleep
        ends) brought the application's garbage collections forward, and a collection over a
        loop's thousands of pending timers holds it for tens of ms.  The loop stands still during
        each read, so the count moves only by what the read made."""
        c = Child(self, "gcread")
        r = self.reader(c.path)
        r.read()
        c.send("go")
        sent = []
        truth = c.until_done(on_mark=lambda _: sent.append(r.read().end["task_records"]))
        c.finish()
        self.assertEqual(len(truth["reads"]), 3)
        # The first read of a task makes its own coroutine's frame object, which then lasts as
        # long as the task; the later ones make none.
        for (moved, collections), n in list(zip(truth["reads"], sent))[1:]:
            self.assertGreaterEqual(n, 2000, "every task stepped since the last read")
            self.assertLess(moved, 200, "a read of %d records left %d new containers" % (n, moved))
            self.assertEqual(collections, [], "collections on the agent's thread")
        print("\n  containers left by each read: %s" % [m for m, _ in truth["reads"]], file=sys.stderr)


class Drain(Reader):
    """A reader that checks the frames' headers and the END but parses nothing else: the test's
    reader shares the machine's cores with the application, and parsing thousands of records a
    read (the reference reader's checks) took up to a second of CPU at 10 000 tasks."""

    class _Reply:
        def __init__(self, end):
            self.end = end

    def collect(self, seq):
        n = 0
        while True:
            typ, rseq, p = self.recv_frame()
            if rseq != seq and rseq != 0:
                raise client.ProtocolError("reply seq %d, expected %d" % (rseq, seq))
            if typ == client.TASKS:
                n += struct.unpack_from("<I", p)[0]
            elif typ == client.END:
                e = client.ENDS.unpack(p)
                return self._Reply(dict(flags=e[6], task_records=e[8], received=n))


class Stall(AgentCase):
    def test_reads_of_10000_waking_tasks_do_not_stall_the_loop(self):
        """Issue 12's bound at 10 000 tasks that keep waking, on a loaded machine too: one process
        alternates reading phases (a catch-up read, whose ticks are not counted, then reads at
        least 0.5 s apart) and quiet phases as long as the reading phase before, so both see the
        same load.  Phases are counted in reads, never in seconds.  Bounded: how long each read
        holds the interpreter between two yields, in the agent thread's CPU time (a preempted
        thread uses none, so load does not stretch it), and the ticker's median lateness while
        read against the quiet phases': a ratio and a difference, never an absolute time.  The
        tasks wake every 1-6 s (SLOW), not 0.2-1.2 s as in the bench: at that rate, with four busy
        loops on two cores, the loop alone fell seconds behind in quiet phases too, and a bound on
        lateness says nothing about reads then; a chunk's CPU does not depend on the rate."""
        c = Child(self, "stall", env={"STALL_TASKS": "10000", "STALL_SECONDS": "0", "STALL_SAMPLES": "1",
                                      "STALL_CHUNKS": "1", "STALL_SLOW": SLOW, "STALL_WARMUP": "0"})
        r = Drain(c.path, timeout=120)
        self.addCleanup(r.close)
        r.do_hello()
        r.read()
        c.send("go")
        self.assertEqual(c.line(), ("mark", "ticking"))
        r.read()  # owes every task created since the last: larger than any later read
        phases = []  # (counted from, end, reading)
        records = []
        fd = c.p.stdout.fileno()
        for _ in range(PHASES):
            start = time.monotonic_ns()
            r.read()  # catches up with the quiet phase: its ticks are not counted
            counted = t = time.monotonic_ns()
            for _ in range(READS):
                select.select([fd], [], [], max(0.0, 0.5 - (time.monotonic_ns() - t) / 1e9))  # spacing
                t = time.monotonic_ns()
                records.append(r.read().end["task_records"])
            end = time.monotonic_ns()
            phases.append((counted, end, True))
            select.select([fd], [], [], (end - start) / 1e9)  # the quiet phase, not a sync
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
        chunks = sorted(x for _, xs in truth["chunks"] for x in xs)
        q, w = quiet[len(quiet) // 2], reading[len(reading) // 2]
        print("\n  10 000 tasks, %d reads of %d-%d records, load %.1f: %d chunks, agent CPU per chunk median "
              "%.2f ms, p99 %.2f ms, max %.2f ms (collections on the agent thread: %.0f ms); ticker median "
              "%.2f ms read, %.2f ms quiet (%d, %d ticks)"
              % (len(records), min(records), max(records), os.getloadavg()[0], len(chunks),
                 chunks[len(chunks) // 2] / 1e6, chunks[len(chunks) * 99 // 100] / 1e6, chunks[-1] / 1e6,
                 truth["agent_gc_cpu"] / 1e6, w / 1e6, q / 1e6, len(reading), len(quiet)), file=sys.stderr)
        self.assertGreaterEqual(min(records), 500, "a steady read carries the tasks that woke since the last")
        self.assertGreaterEqual(len(quiet), 20, "ticks in the quiet phases")
        self.assertGreaterEqual(len(reading), 20, "ticks in the reading phases")
        # A chunk packs for 1 ms of wall time (its CPU can only be less), then sends; the deadline
        # is looked at every 64 records, and a read's last pass packs up to 200 without one.
        self.assertLess(chunks[len(chunks) // 2], 2_000_000, "median chunk: the aim is 2 ms added")
        # CPU time is not stretched by preemption, but it is by caches shared with busy loops: the
        # p99 was 2.0-4.8 ms in runs on a quiet machine and once 5.01 ms at a load of 3.6.  A read
        # that held the interpreter for a whole drain, what this guards against, takes tens of ms.
        self.assertLess(chunks[len(chunks) * 99 // 100], 8_000_000, "a read's longest hold of the interpreter")
        # The reads' CPU (the agent's thread, this reader) shares the two cores with the loop,
        # which then waits longer for one: with four busy loops the median rose from 0.8 to 5.2 ms
        # and from 2.1 to 4.3 ms in two runs of ten, by under a millisecond in the others.  The
        # interpreter's share is bounded above, by the chunks.
        self.assertLess(w, 3 * q + 10_000_000, "median lateness %.2f ms while read, %.2f ms quiet" % (w / 1e6, q / 1e6))


PHASES = 2  # reading phases, each followed by a quiet one as long
READS = 3  # steady reads per reading phase, 0.5 s apart
SLOW = "5"  # times the bench's wake periods: about 2 900 wakes a second, which a loaded loop sustains


if __name__ == "__main__":
    unittest.main()
