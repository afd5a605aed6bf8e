"""The workloads of test_reads.py and bench_agent.py: tasks that come and go, many tasks, tasks
that keep waking while reads are timed, a read's garbage.  Run through workload.py (`python3
workload.py CASE` finds these cases too)."""

import asyncio
import os
import threading
import time

from workload_base import now, say, wait_line, mark, truth


def case_churn():
    """Tasks spawned as fast as the loop can (each yields once, then ends) until the test says
    "ok" to the mark: reads must answer while tasks come and go."""
    async def short():
        await asyncio.sleep(0)

    async def main():
        stop = []
        keep = set()
        going = asyncio.Event()  # set once 5 000 tasks came and went: churn is under way

        async def spawner():
            n = 0
            while not stop:
                if n >= 5000:
                    going.set()
                for _ in range(200):
                    t = asyncio.create_task(short())
                    keep.add(t)
                    t.add_done_callback(keep.discard)
                n += 200
                await asyncio.sleep(0)
            truth["spawned"] = n

        sp = asyncio.create_task(spawner(), name="spawner")
        await going.wait()
        await mark("churning")
        stop.append(1)
        await sp

    asyncio.run(main())


def case_many():
    """MANY_TASKS tasks (default 50 000) parked on one event while the test reads."""
    async def main():
        ev = asyncio.Event()
        made = [asyncio.create_task(ev.wait()) for _ in range(int(os.environ.get("MANY_TASKS", "50000")))]
        await asyncio.sleep(0)
        truth["tasks"] = len(made)
        await mark("many")
        ev.set()
        await asyncio.gather(*made)

    asyncio.run(main())


CHUNKS = []  # per read: (start ns, the agent thread's CPU ns of each stretch between two yields)
GC_CPU = [0]  # CPU ns of the collections that ran on the agent's thread


def _time_chunks():
    """Time, in the agent thread's CPU time, each stretch of a read between two of its yields
    (the short sleeps between chunks): how long a read holds the interpreter, a figure that a
    loaded machine does not stretch as it stretches wall time (a preempted thread uses no CPU).
    A garbage collection that the read's allocations happen to start runs on the agent's thread
    for the whole application (the loop's own garbage): it is left out of the stretch and
    counted apart, in GC_CPU.  Test instrumentation: replaces _reply's view of the time module
    and wraps _serve_read.  A stretch also counts the socket send that ends it, which releases
    the interpreter too, so it is an upper bound; the first one counts the journal's drain
    before the first chunk."""
    import gc

    from asynctop_agent import _reply

    cpu = time.thread_time_ns
    at = []  # (CPU ns, GC_CPU) when the current stretch began
    began = [0]

    def on_gc(phase, info):
        if threading.current_thread() is not threading.main_thread():
            if phase == "start":
                began[0] = cpu()
            else:
                GC_CPU[0] += cpu() - began[0]

    def stretch():
        c0, g0 = at.pop()
        CHUNKS[-1][1].append(cpu() - c0 - (GC_CPU[0] - g0))

    class Clock:
        monotonic_ns = staticmethod(time.monotonic_ns)
        time_ns = staticmethod(time.time_ns)

        @staticmethod
        def sleep(s):
            if at:
                stretch()
            time.sleep(s)
            at.append((cpu(), GC_CPU[0]))

    serve = _reply.Reply._serve_read

    def timed(self, c, seq, final):
        CHUNKS.append((now(), []))
        at[:] = [(cpu(), GC_CPU[0])]
        try:
            return serve(self, c, seq, final)
        finally:
            stretch()

    gc.callbacks.append(on_gc)
    _reply.time = Clock
    _reply.Reply._serve_read = timed


def case_stall():
    """STALL_TASKS tasks (default 10 000) that keep waking, each every 0.2-1.2 s (STALL_SLOW
    times that when set); after a warm-up of STALL_WARMUP s (default 1.3: every task woke at
    least once), a ticker measures for STALL_SECONDS (default 3) how
    late a 2 ms sleep wakes.  The test reads the agent meanwhile, or not, and compares.  With
    STALL_SECONDS=0 the ticker says "mark ticking" when it starts and runs until a "stop" line.
    With STALL_GC set, the truth lists every garbage collection (the bench prints them by phase);
    with STALL_CHUNKS set, how long each read held the interpreter (see _time_chunks)."""
    import gc
    import random

    if os.environ.get("STALL_CHUNKS"):
        _time_chunks()

    # With STALL_GC set, each collection: (start ns, wall ns, generation, on the loop thread, CPU ns).
    gcs = []
    began = [0, 0]

    def on_gc(phase, info):
        if phase == "start":
            began[0], began[1] = now(), time.thread_time_ns()
        else:
            on_loop = threading.current_thread() is threading.main_thread()
            gcs.append((began[0], now() - began[0], info["generation"], on_loop, time.thread_time_ns() - began[1]))

    if os.environ.get("STALL_GC"):
        gc.callbacks.append(on_gc)

    async def main():
        n = int(os.environ.get("STALL_TASKS", "10000"))
        secs = float(os.environ.get("STALL_SECONDS", "3"))
        stop = []

        slow = float(os.environ.get("STALL_SLOW", "1"))

        async def waker(i):
            rnd = random.Random(i)
            await asyncio.sleep(slow * rnd.random())  # spread: the wakes are steady from the start
            while not stop:
                await asyncio.sleep(slow * (0.2 + rnd.random()))

        ws = [asyncio.create_task(waker(i)) for i in range(n)]
        await asyncio.sleep(float(os.environ.get("STALL_WARMUP", "1.3")))
        late = []
        at = []  # when each tick began, for a reader that alternates reading and quiet phases
        end = now() + int(secs * 1e9)
        stopped = []
        if secs <= 0:  # until the test says stop: its phases are counted in reads, not seconds
            asyncio.get_running_loop().run_in_executor(None, lambda: (wait_line("stop"), stopped.append(1)))
            say("mark", "ticking")
        while (not stopped) if secs <= 0 else now() < end:
            t0 = now()
            await asyncio.sleep(0.002)
            late.append(now() - t0 - 2_000_000)
            at.append(t0)
        if os.environ.get("STALL_SAMPLES"):
            truth["samples"] = list(zip(at, late))
        if os.environ.get("STALL_GC"):
            truth["gc"] = list(gcs)
        if os.environ.get("STALL_CHUNKS"):
            truth["chunks"] = list(CHUNKS)
            truth["agent_gc_cpu"] = GC_CPU[0]
        late.sort()
        truth["late_max"] = late[-1]
        truth["late_p99"] = late[len(late) * 99 // 100]
        truth["late_p50"] = late[len(late) // 2]
        truth["ticks"] = len(late)
        stop.append(1)
        for w in ws:
            w.cancel()
        await asyncio.gather(*ws, return_exceptions=True)

    asyncio.run(main())


def case_gcread():
    """2 000 tasks that keep waking (every 20-60 ms); three times, once every task has woken since
    the last read, the loop stops (blocked on stdin, so nothing of the application allocates) while the
    test reads: how far each read moved the collector's youngest-generation count, and the
    collections it triggered on the agent's thread."""
    import gc
    import random

    agent_gcs = []

    def on_gc(phase, info):
        if phase == "stop" and threading.current_thread() is not threading.main_thread():
            agent_gcs.append(info["generation"])

    async def main():
        stop = []
        woke = set()  # tasks that woke since the last read
        all_woke = asyncio.Event()

        async def waker(i):
            rnd = random.Random(i)
            while not stop:
                await asyncio.sleep(0.02 + 0.04 * rnd.random())
                woke.add(i)
                if len(woke) == 2000:
                    all_woke.set()

        ws = [asyncio.create_task(waker(i)) for i in range(2000)]
        truth["reads"] = []
        gc.callbacks.append(on_gc)
        for _ in range(3):
            woke.clear()
            all_woke.clear()
            await all_woke.wait()
            gc.collect()
            del agent_gcs[:]
            c0 = gc.get_count()[0]
            say("mark", "blocked")
            wait_line("ok")  # on the loop thread: the loop stands still while the test reads
            truth["reads"].append((gc.get_count()[0] - c0, list(agent_gcs)))
        gc.callbacks.remove(on_gc)
        stop.append(1)
        for w in ws:
            w.cancel()
        await asyncio.gather(*ws, return_exceptions=True)

    asyncio.run(main())


def case_names():
    """NAMES_BATCHES batches (default 8) of 2 000 tasks, each with a name never seen before, that
    wait at a mark (the test reads them alive) and then finish: a reader that kept every name it
    was ever sent would grow with each batch.  Reports the agent's own names table at the end."""
    from asynctop_agent import _core

    async def main():
        for batch in range(int(os.environ.get("NAMES_BATCHES", "8"))):
            ev = asyncio.Event()
            ts = [asyncio.create_task(ev.wait(), name="n-%d-%d" % (batch, i)) for i in range(2000)]
            await asyncio.sleep(0)
            await mark("alive")
            ev.set()
            await asyncio.gather(*ts)
        await mark("finished")
        truth["name_ids"] = len(_core.S.name_ids)

    asyncio.run(main())


def case_switch():
    """The interpreter's switch interval as the application sees it, at marks: while a reader is
    connected; once it left; with the application's own interval set while a reader is connected,
    once that one left; and the application's own interval below the agent's, with a reader."""
    import sys

    import asynctop_agent

    srv = asynctop_agent._srv

    async def alone():
        # Until the endpoint thread has dropped the last reader and settled the interval.
        while True:
            with srv.serve_lock:
                if not srv.clients and srv.app_switch is None:
                    return
            await asyncio.sleep(0.005)

    async def main():
        await mark("connected %r" % sys.getswitchinterval())  # the test reads, then leaves
        await alone()
        await mark("left %r" % sys.getswitchinterval())  # the test connects and reads
        sys.setswitchinterval(0.01)
        await mark("own")  # the test leaves
        await alone()
        await mark("own-left %r" % sys.getswitchinterval())
        sys.setswitchinterval(0.001)
        await mark("low")  # the test connects and reads
        await mark("low-connected %r" % sys.getswitchinterval())

    asyncio.run(main())
