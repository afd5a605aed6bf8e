"""How a read shares the interpreter with the loop threads (docs/asyncio-agent.md, "Costs").

A read is copied in chunks of CHUNK_NS.  Between two chunks the server thread releases the
interpreter, and it starts the next chunk only when no loop it knows has work waiting: callbacks
ready to run, or a timer due before the chunk would end.  A loop that has something to do therefore
gets the interpreter first, the read runs in the loops' idle time, and a loop waits for a read at
most one chunk (an I/O event that arrives during it).

The interpreter's switch interval is left as the application set it: a loop thread that holds the
interpreter gives it up to this thread only after that interval, so a saturated loop loses at most
one chunk per interval (5 % with the default 5 ms), and a read still ends.  Loops without a
visible ready queue and timer heap (uvloop) cannot be looked at: for them only the pause between
chunks applies.
"""

import threading
import time
import weakref

CHUNK_NS = 250_000  # copying one chunk holds the interpreter this long at most
# The interpreter is released at least this long between chunks: a bare sleep(0) retakes it
# before a loop thread waiting for it wakes, which then waits for the switch interval.
PAUSE_S = 0.0001
HOLD_BACK_NS = 5_000_000  # a chunk waits at most this long for a busy loop to go idle
GAVE_NS = 1_000_000  # without the interpreter this long between chunks: a loop had its turn
MAX_LOOPS = 64  # loops watched at once (a read learns them from the tasks it copies)


class Pacer:
    def __init__(self):
        self.loops = weakref.WeakSet()
        self.last = 0  # id() of the loop learnt last: most records share one loop

    def learn(self, task):
        """Watch the loop of a task the read copies (called once a chunk, not per record)."""
        loop = getattr(task, "_loop", None)
        if loop is None or id(loop) == self.last:
            return
        self.last = id(loop)
        if len(self.loops) < MAX_LOOPS:
            try:
                self.loops.add(loop)
            except TypeError:  # a loop that cannot be weakly referenced: only the pause applies
                pass

    def busy(self, horizon_ns):
        """True while a running loop of another thread has callbacks ready or a timer due within
        horizon_ns: it wants the interpreter now or before a chunk would end."""
        me = threading.get_ident()
        for loop in list(self.loops):
            if getattr(loop, "_thread_id", None) in (None, me):  # not running, or ours (stop())
                continue
            if getattr(loop, "_ready", None):
                return True
            try:
                head = loop._scheduled[0]
                if head._when <= loop.time() + horizon_ns / 1e9:
                    return True
            except (AttributeError, IndexError, TypeError):
                pass
        return False

    def pause(self, sent_ns):
        """Between two chunks: give the loops the interpreter, then return when the next chunk
        may start.  sent_ns: when the chunk's send began (0: nothing was sent).

        When this thread was without the interpreter for GAVE_NS or more (a loop thread held it
        until the switch interval made it hand over, or the OS ran others), a loop had its turn:
        go on.  Else the interpreter came back at once, which means no loop wanted it, or one
        that wants it has not been given a CPU yet: hold back while a loop has work ready or a
        timer due before the chunk would end, napping a little longer each time (each look
        takes the interpreter back), at most HOLD_BACK_NS."""
        now = time.monotonic_ns()
        if sent_ns and now - sent_ns >= GAVE_NS:
            return  # the send released the interpreter long enough
        time.sleep(PAUSE_S)
        t = time.monotonic_ns()
        if t - now >= GAVE_NS:
            return
        until = t + HOLD_BACK_NS
        nap = PAUSE_S
        while self.busy(CHUNK_NS) and t < until:
            time.sleep(nap)
            t2 = time.monotonic_ns()
            if t2 - t >= GAVE_NS:
                return
            t = t2
            nap = min(2 * nap, 0.001)
