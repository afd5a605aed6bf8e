"""Task names that retire (docs/asyncio-protocol.md §4.7): a name is sent once per connection, and
retired once no task the reader keeps bears it, so neither the reader's table nor the agent's own
grows with every name ever seen."""

import os
import sys
import unittest

from agentcase import AgentCase, Child

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from asynctop_agent import _state  # noqa: E402


class Names(AgentCase):
    def test_names_retire_once_their_tasks_ended(self):
        # A ring of 16: the finished tasks are pinned for the reader, which saw them alive.
        c = Child(self, "names", env={"ASYNCTOP_RING": "16"})
        r = self.reader(c.path)
        r.read()
        c.send("go")
        alive = []  # names of the live tasks at each batch's mark

        def at_mark(what):
            snap = r.read()
            if what == "alive":
                alive.append({r.name(t) for t in snap.tasks.values() if t.state != 4 and r.name(t).startswith("n-")})

        truth = c.until_done(on_mark=at_mark)
        r.read()
        c.finish()
        self.assertEqual(len(alive), 8)
        for batch, names in enumerate(alive):
            self.assertEqual(names, {"n-%d-%d" % (batch, i) for i in range(2000)})
        # Every batch's names retired once its tasks were delivered DONE: the reader keeps the
        # names of nothing but the threads, frames and labels.
        self.assertEqual(sum(1 for s in r.retired.values() if s.startswith("n-")), 16000)
        self.assertFalse([s for s in r.strings.values() if s.startswith("n-")])
        # The agent forgets names no record bears once they outnumber its records.
        self.assertLess(truth["name_ids"], 8000)


class Clip(unittest.TestCase):
    def test_texts_and_names_are_cut_and_capped_alike(self):
        # A fresh State, not the agent's: importing the agent installs nothing.
        st = _state.State()
        st.init_sentinels()
        long = "a" + "é" * _state.MAX_NAME  # 2 bytes a character: the cut falls inside one
        for intern in (st.intern_str, st.intern_name):
            self.assertEqual(st.strings[intern(long)], "a" + "é" * (_state.MAX_NAME // 2 - 1))
        # Two names that differ only past the cut are one name.
        self.assertEqual(st.intern_name(long + "a"), st.intern_name(long + "b"))
        while len(st.strings) < _state.MAX_INTERN:
            st.strings[-len(st.strings)] = "filler"
        self.assertEqual(st.intern_str("new text"), st.other_id)
        self.assertEqual(st.intern_name("new name"), st.other_id)
        self.assertTrue(st.overflow)


if __name__ == "__main__":
    unittest.main()
