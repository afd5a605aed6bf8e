"""Where each task is parked, per primitive, nested awaits and the no-waker hint.

Shared helpers: agentcase.py."""

import socket
import unittest

from agentcase import client, interpreter, Child, AgentCase


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


if __name__ == "__main__":
    unittest.main()
