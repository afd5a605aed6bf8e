"""The timer-due hook on stdlib loops: call_at wraps each timer callback so that a wake issued
from inside it (asyncio.sleep's set_result, say) is dated at the timer's due time.  A timer that
fires late because the loop was busy then counts its lateness as scheduled, not idle: that is
what a user means (docs/asyncio-agent.md, "Timer lateness")."""

from ._core import S, fault

_new = object.__new__


class Timer:
    """A timer's callback, run with S.due = this wrapper (its loop and due time in ns).  One slot
    for every loop thread, read only with the loop's identity checked: a timer of another
    thread's loop never dates a wake on this one, and when two threads' timers overlap the wakes
    of the one that lost the slot are dated as they happen (the timer's lateness then counts as
    idle, as without this hook).  One object with slots, not a closure: a closure over the
    callback and a (loop, due) pair is four containers for the garbage collector, and a loop
    holds one wrapper per pending sleep, thousands of them, in every collection it makes."""

    __slots__ = ("cb", "loop", "due")

    def __call__(self, *args):
        S.due = self
        try:
            return self.cb(*args)
        finally:
            S.due = None


def make_call_at(orig):
    def call_at(self, when, callback, *args, context=None):
        if S.enabled:
            try:
                t = _new(Timer)
                t.cb = callback
                t.loop = self
                t.due = int(when * 1e9)
                callback = t
            except BaseException:
                fault()
        return orig(self, when, callback, *args, context=context)

    call_at._asynctop = True
    return call_at
