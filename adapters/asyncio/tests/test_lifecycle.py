"""The agent's life: start and stop, fork, faults, the final snapshot, tasks of closed loops.

Shared helpers: agentcase.py."""

import os
import socket
import stat
import time
import unittest

from agentcase import client, TIMEOUT, Child, AgentCase
from client import DONE


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
        self.assertEqual(truth["child_switch"], 0.005, "the parent's reader held 2 ms; the child has none")
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


if __name__ == "__main__":
    unittest.main()
