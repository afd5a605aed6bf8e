"""How a read shares the interpreter with the loop threads (docs/asyncio-agent.md, "Costs").

A read is copied in chunks of CHUNK_NS.  Between two chunks the server thread releases the
interpreter, and it starts the next chunk only when no loop it knows has work waiting: callbacks
ready to run, or a timer already due.  A loop that has something to do therefore gets the
interpreter first, the read runs in the loops' idle time, and a loop waits for a read at most one
chunk (an I/O event, or a timer, that falls due during it).  Waiting also for timers due before
the chunk would end starved the read: 10 000 tasks waking every 0.2-1.2 s always have one due
within 0.25 ms, and each reply then carried a few hundred records in its 250 ms.

The interpreter's switch interval is left as the application set it: a loop thread that holds the
interpreter gives it up to this thread only after that interval.  Once it has (the loop had its
turn, and the switch is paid), the next chunk may take LONG_CHUNK_NS: a saturated loop gives a read
a sixth of the interpreter at the default 5 ms, and the read ends in reasonable time (with 0.25 ms
after each switch, a read of 10 000 changed records on a loop short of CPU took seconds, in slices
of a few hundred records).  Loops without a
visible ready queue and timer heap (uvloop) cannot be looked at: for them only the pause between
chunks applies.
"""

import threading
import time
import weakref

CHUNK_NS = 250_000  # copying one chunk holds the interpreter this long at most
LONG_CHUNK_NS = 1_000_000  # ... or this long right after a loop thread had the interpreter
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

    def busy(self):
        """True while a running loop of another thread has callbacks ready or a timer due: it
        wants the interpreter now."""
        me = threading.get_ident()
        for loop in list(self.loops):
            if getattr(loop, "_thread_id", None) in (None, me):  # not running, or ours (stop())
                continue
            if getattr(loop, "_ready", None):
                return True
            try:
                head = loop._scheduled[0]
                if head._when <= loop.time():
                    return True
            except (AttributeError, IndexError, TypeError):
                pass
        return False

    def pause(self, sent_ns):
        """Between two chunks: give the loops the interpreter, then return when the next chunk
        may start, with its length in ns.  sent_ns: when the chunk's send began (0: none).

        When this thread was without the interpreter for GAVE_NS or more (a loop thread held it
        until the switch interval made it hand over, or the OS ran others), a loop had its turn:
        go on, with a long chunk.  Else the interpreter came back at once, which means no loop
        wanted it, or one that wants it has not been given a CPU yet: hold back while a loop has
        work ready or a timer due, napping a little longer each time (each look takes the
        interpreter back), at most HOLD_BACK_NS, then go on with a short chunk."""
        now = time.monotonic_ns()
        if sent_ns and now - sent_ns >= GAVE_NS:
            return LONG_CHUNK_NS  # the send released the interpreter long enough
        time.sleep(PAUSE_S)
        t = time.monotonic_ns()
        if t - now >= GAVE_NS:
            return LONG_CHUNK_NS
        until = t + HOLD_BACK_NS
        nap = PAUSE_S
        while self.busy() and t < until:
            time.sleep(nap)
            t2 = time.monotonic_ns()
            if t2 - t >= GAVE_NS:
                return LONG_CHUNK_NS
            t = t2
            nap = min(2 * nap, 0.001)
        return CHUNK_NS
