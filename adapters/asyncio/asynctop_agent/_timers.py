"""The timer-due hook on stdlib loops: call_at wraps each timer callback so that a wake issued
from inside it (asyncio.sleep's set_result, say) is dated at the timer's due time.  A timer that
fires late because the loop was busy then counts its lateness as scheduled, not idle: that is
what a user means (docs/asyncio-agent.md, "Timer lateness")."""

from ._core import S, fault


def make_call_at(orig):
    def call_at(self, when, callback, *args, context=None):
        if S.enabled:
            try:
                callback = timer(callback, (self, int(when * 1e9)))
            except BaseException:
                fault()
        return orig(self, when, callback, *args, context=context)

    call_at._asynctop = True
    return call_at


def timer(cb, due):
    """cb, run with S.due = due, (loop, due time in ns).  One slot for every loop thread, read
    only with the loop's identity checked: a timer of another thread's loop never dates a wake on
    this one, and when two threads' timers overlap the wakes of the one that lost the slot are
    dated as they happen (the timer's lateness then counts as idle, as without this hook)."""

    def timer(*args):
        S.due = due
        try:
            return cb(*args)
        finally:
            S.due = None

    return timer
