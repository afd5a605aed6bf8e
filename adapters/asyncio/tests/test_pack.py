"""A task record packed while the loop thread changes it: what the reader is sent stays valid.

Importing the agent's modules installs nothing (only start() does), so the packing is tested here
on a stand-in record whose state moves between two reads, as the loop thread can move it."""

import os
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from asynctop_agent import _server, _wire  # noqa: E402
from asynctop_agent._core import DONE, IDLE, RUNNING  # noqa: E402

import client  # noqa: E402


class Moving:
    """A record that was IDLE, parked at stack 7, when _pack first looked, and is `later` after."""

    def __init__(self, later):
        self.looks = 0
        self.later = later
        self.tid, self.parent, self.stack, self.loop_id, self.thread_name = 5, 0, 3, 1, 0
        self.flags = 0
        self.created, self.ended, self.t_mark = 10, 20 if later == DONE else 0, 30
        self.polls, self.wakes, self.self_wakes = 2, 2, 0
        self.busy = self.sched = self.idle = 1
        self.max_step = 0
        self.parked, self.walked, self.no_waker = 7, 2, True
        self.name_id = 0
        self.fin_name = None

    @property
    def state(self):
        self.looks += 1
        return IDLE if self.looks == 1 else self.later

    def ref(self):
        return None


class Conn:
    def __init__(self):
        self.sent_stack = {3, 7}
        self.sent_str = {0}
        self.named, self.name_refs = {}, {}
        self.alive_ids, self.done_ids, self.unnamed = set(), set(), set()


class Pack(unittest.TestCase):
    def packed(self, later):
        srv = _server.Server.__new__(_server.Server)
        parts, out = [], []
        srv._pack(Conn(), Moving(later), False, parts, out)
        self.assertEqual(len(parts), 1)
        return client.Task(_wire.TASK.unpack(parts[0]))

    def test_a_task_that_ran_meanwhile_is_parked_nowhere(self):
        for later in (RUNNING, DONE):
            t = self.packed(later)
            self.assertEqual(t.state, later)
            self.assertEqual(t.parked, 0)
            self.assertEqual(t.flags & _wire.F_NO_WAKER, 0)

    def test_a_task_still_parked_keeps_its_stack(self):
        t = self.packed(IDLE)
        self.assertEqual((t.state, t.parked), (IDLE, 7))
        self.assertEqual(t.flags & _wire.F_NO_WAKER, _wire.F_NO_WAKER)


if __name__ == "__main__":
    unittest.main()
