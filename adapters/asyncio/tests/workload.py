"""Workloads for the agent's tests, run in a child interpreter: `python3 workload.py CASE`.

Talks to the test over stdin/stdout, one line each way, so the test can place window boundaries:
  child: "ready PATH"          test: reads (boundary A), then "go"
  child: "mark NAME"           test: reads, then "ok"        (only some cases)
  child: "done JSON"           test: reads (boundary B), then "exit"
JSON is the ground truth the workload measured itself with time.monotonic_ns() (busy is wall time).
"""

import asyncio
import json
import os
import sys
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import asynctop_agent  # noqa: E402

now = time.monotonic_ns
SRC = open(__file__).read().splitlines()


def line_of(tag):
    """Line number of the line ending with the comment `# TAG`."""
    for i, text in enumerate(SRC, 1):
        if text.rstrip().endswith("# " + tag):
            return i
    raise LookupError(tag)


def say(*parts):
    sys.stdout.write(" ".join(str(p) for p in parts) + "\n")
    sys.stdout.flush()


def wait_line(expected):
    got = sys.stdin.readline().strip()
    if got != expected:
        raise SystemExit("workload: expected %r, got %r" % (expected, got))


async def mark(name):
    """Pause at a boundary the test places; the loop keeps running meanwhile."""
    say("mark", name)
    await asyncio.get_running_loop().run_in_executor(None, wait_line, "ok")


def burn(ns):
    end = now() + ns
    while now() < end:
        pass


truth = {}


# -- cases ------------------------------------------------------------------------------------

async def spinner():
    for _ in range(10000):
        await asyncio.sleep(0)


def case_sleep0():
    asyncio.run(spinner())


async def sleeper():
    total = 0
    for _ in range(5):
        t0 = now()
        await asyncio.sleep(0.2)
        total += now() - t0
    truth["slept"] = total


def case_sleeper():
    asyncio.run(sleeper())


async def burner():
    total = 0
    for _ in range(10):
        t0 = now()
        burn(50_000_000)
        total += now() - t0
        await asyncio.sleep(0)
    truth["burned"] = total


def case_burner():
    asyncio.run(burner())


async def hog_main():
    stop = []

    async def polite():
        while not stop:
            await asyncio.sleep(0)

    ps = [asyncio.create_task(polite(), name="polite%d" % i) for i in range(3)]
    await asyncio.sleep(0)
    await burner()
    stop.append(1)
    await asyncio.gather(*ps)


def case_hog():
    asyncio.run(hog_main())


async def leaf():
    await asyncio.sleep(0)


async def fan_out():
    await asyncio.gather(leaf(), leaf())  # L1


async def serve():
    async with asyncio.TaskGroup() as tg:
        tg.create_task(fan_out(), name="fan")  # L2


async def start():
    t = asyncio.create_task(serve(), name="serve")  # L3
    await t


def case_nested():
    truth["lines"] = [line_of(t) for t in ("L4", "L3", "L2", "L1")]
    asyncio.run(start())  # L4


def ch_spawn(name):
    return asyncio.create_task(asyncio.sleep(0), name=name)  # LS


def ch_via_a(name):
    return ch_spawn(name)  # LA


def ch_via_b(name):
    return ch_spawn(name)  # LB


def case_chains():
    """The same spawning line reached through two callers, each three times, and from two
    parent tasks: the agent's stacks are cached by the whole chain of frames, never by a part."""
    async def parent(tag):
        for i in range(3):
            await ch_via_a("a-%s-%d" % (tag, i))  # LPA
            await ch_via_b("b-%s-%d" % (tag, i))  # LPB

    async def main():
        await asyncio.create_task(parent("p"), name="p")  # LP
        await asyncio.create_task(parent("q"), name="q")  # LQ

    truth["lines"] = {t: line_of(t) for t in ("LS", "LA", "LB", "LP", "LQ", "LPA", "LPB")}
    asyncio.run(main())


def case_threads():
    async def worker(n):
        async def w():
            for _ in range(n):
                await asyncio.sleep(0)

        await asyncio.gather(*(asyncio.create_task(w(), name="w") for _ in range(3)))

    ths = [threading.Thread(target=asyncio.run, args=(worker(200),), name=nm) for nm in ("loopA", "loopB")]
    for t in ths:
        t.start()
    for t in ths:
        t.join()


def case_threads_in_turn():
    """Two loop threads, the second started after the first ended: the system often gives the
    second the first one's ident, and they must still count as two loop threads."""
    async def one():
        await asyncio.gather(*(asyncio.create_task(asyncio.sleep(0), name="w") for _ in range(3)))

    for nm in ("loopA", "loopB"):
        t = threading.Thread(target=asyncio.run, args=(one(),), name=nm)
        t.start()
        t.join()


def case_eager():
    async def quick():
        return 1

    async def grandchild():
        await asyncio.sleep(0)

    async def child():
        t0 = now()
        burn(50_000_000)
        b = now() - t0
        g = asyncio.create_task(grandchild(), name="grandchild")  # an eager task inside an eager step
        await asyncio.sleep(0.01)
        await g
        t0 = now()
        burn(30_000_000)
        truth["child_burn"] = b + now() - t0

    async def parent():
        asyncio.get_running_loop().set_task_factory(asyncio.eager_task_factory)
        t0 = now()
        burn(10_000_000)
        b = now() - t0
        c = asyncio.create_task(child(), name="child")
        await asyncio.create_task(quick(), name="quick")  # finishes inside create_task
        t0 = now()
        burn(10_000_000)
        truth["parent_burn"] = b + now() - t0
        await c

    asyncio.run(parent())


def case_aggregate():
    async def waiter(ev):
        await ev.wait()

    async def short():
        pass

    async def main():
        ev = asyncio.Event()
        ws = [asyncio.create_task(waiter(ev), name="waiter") for _ in range(50)]
        await asyncio.sleep(0)
        await mark("waiting")
        ev.set()
        await asyncio.gather(*ws)
        for _ in range(10):
            await asyncio.gather(*(asyncio.create_task(short(), name="short") for _ in range(100)))

    asyncio.run(main())


def case_fork():
    async def before():
        await asyncio.sleep(0)

    asyncio.run(before())
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(r)

        async def child_main():
            ev = asyncio.Event()

            async def held():
                for _ in range(10):
                    await asyncio.sleep(0)
                await ev.wait()

            h = asyncio.create_task(held(), name="held")
            await asyncio.sleep(0.01)
            os.write(w, ("%s\n" % asynctop_agent.socket_path()).encode())
            await asyncio.get_running_loop().run_in_executor(None, wait_line, "child-exit")
            ev.set()
            await h

        try:
            asyncio.run(child_main())
        finally:
            os._exit(0)
    os.close(w)
    with os.fdopen(r) as f:
        truth["child_path"] = f.readline().strip()
    truth["child_pid"] = pid
    say("child", pid, truth["child_path"])
    os.waitpid(pid, 0)


def case_fault():
    from asynctop_agent import _core

    calls = [0]
    orig = _core._on_wake

    def broken(loop, task):
        calls[0] += 1
        if calls[0] == 100:
            raise RuntimeError("injected agent bug")
        return orig(loop, task)

    _core._on_wake = broken

    async def work():
        acc = 0
        for i in range(1000):
            await asyncio.sleep(0)
            acc += i
        return acc

    async def main():
        return sum(await asyncio.gather(*(work() for _ in range(3))))

    truth["result"] = asyncio.run(main())
    import asyncio.base_events as be
    truth["restored"] = not getattr(be.BaseEventLoop.call_soon, "_asynctop", False)
    truth["enabled"] = asynctop_agent.is_enabled()


def case_uvloop():
    import uvloop

    async def main():
        truth["loop"] = type(asyncio.get_running_loop()).__module__
        truth["patched"] = getattr(uvloop.Loop.call_soon, "_asynctop", False)
        await asyncio.gather(asyncio.create_task(spinner(), name="spin"),
                             asyncio.create_task(burner(), name="burn"))

    loop = uvloop.new_event_loop()
    try:
        loop.run_until_complete(main())
    finally:
        loop.close()


def case_predate():
    """Tasks created before the agent starts (start() is called inside the running loop)."""

    go = []

    async def old():
        for _ in range(5):
            await asyncio.sleep(0)
        while not go:  # stays alive until the test's reader has seen it
            await asyncio.sleep(0.001)

        async def young():
            await asyncio.sleep(0)

        await asyncio.create_task(young(), name="young")  # Y1

    async def main():
        asynctop_agent.stop(final=False)  # the agent is off while "old" is created
        t = asyncio.create_task(old(), name="old")
        asynctop_agent.start()  # inside the running loop: existing tasks are adopted
        await mark("restarted")
        go.append(1)
        await t

    truth["line"] = line_of("Y1")
    asyncio.run(main())


def case_late_timer():
    """A timer due before a boundary fires after it: the loop is held (a blocking wait for the
    test's "ok", the interpreter released) from before the sleep's due time until the test has
    read, so the wake comes late and must not be dated before that read's boundary."""

    async def sleeper():
        await asyncio.sleep(0.002)

    async def main():
        t = asyncio.create_task(sleeper(), name="sleeper")
        await asyncio.sleep(0)  # the sleeper's timer is armed
        time.sleep(0.005)  # now due, and the loop has not run it
        say("mark", "overdue")
        wait_line("ok")  # the test reads here, the loop blocked
        await t

    asyncio.run(main())


def case_orphans():
    """Tasks left pending in a closed loop are retired by the weak-reference finaliser."""
    import gc
    from asynctop_agent import _core

    async def forever(fut):
        await fut

    async def spawn():
        fut = asyncio.get_running_loop().create_future()
        for _ in range(1000):
            asyncio.create_task(forever(fut))
        await asyncio.sleep(0)

    loop = asyncio.new_event_loop()
    loop.run_until_complete(spawn())
    truth["live_before"] = len(_core.S.live)
    loop.close()
    del loop
    gc.collect()
    _core.reap_dead()
    truth["live_after"] = len(_core.S.live)


def case_overflow():
    """Capped intern tables: past the cap, names read [other]."""
    from asynctop_agent import _core, _state

    _core.MAX_INTERN = _state.MAX_INTERN = 40

    async def nothing():
        pass

    async def main():
        await asyncio.gather(*(asyncio.create_task(nothing(), name="n%d" % i) for i in range(100)))

    asyncio.run(main())


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


# Tasks parked on each primitive; the test reads at the mark, then everything is cancelled.
HELD = []  # keeps the "held" future referenced (not a lost waker)


async def p_lock(lock):
    async with lock:  # P_lock
        pass


async def p_event(ev):
    await ev.wait()  # P_event


async def p_queue(q):
    await q.get()  # P_queue


async def p_sem(sem):
    async with sem:  # P_sem
        pass


async def p_sleep():
    await asyncio.sleep(3600)  # P_sleep


async def p_await_task(t):
    await t  # P_task


async def p_gather(ev):
    await asyncio.gather(ev.wait(), ev.wait())  # P_gather


async def p_middle(ev):
    await ev.wait()  # P_middle


async def p_outer(ev):
    await p_middle(ev)  # P_outer


async def p_agen(ev):
    while True:
        await ev.wait()  # P_agen
        yield 1


async def p_consumer(ev):
    async for _ in p_agen(ev):  # P_consumer
        pass


async def p_taskgroup(ev):
    async with asyncio.TaskGroup() as tg:  # P_tg
        tg.create_task(p_event(ev), name="tg-child")


async def p_read(reader):
    await reader.read(100)  # P_read


async def p_lost():
    await asyncio.get_running_loop().create_future()  # P_lost


async def p_lost_timed():
    async with asyncio.timeout(3600):
        await asyncio.get_running_loop().create_future()  # P_timed


async def p_held():
    fut = asyncio.get_running_loop().create_future()
    HELD.append(fut)
    await fut  # P_held


def case_parked():
    async def main():
        loop = asyncio.get_running_loop()
        if os.environ.get("WORKLOAD_EAGER"):
            loop.set_task_factory(asyncio.eager_task_factory)
        lock, ev, q, sem = asyncio.Lock(), asyncio.Event(), asyncio.Queue(), asyncio.Semaphore(0)
        await lock.acquire()
        a, b = __import__("socket").socketpair()
        reader, writer = await asyncio.open_connection(sock=a)
        target = asyncio.create_task(p_event(ev), name="target")
        made = [
            asyncio.create_task(p_lock(lock), name="lock"),
            asyncio.create_task(p_event(ev), name="event"),
            asyncio.create_task(p_queue(q), name="queue"),
            asyncio.create_task(p_sem(sem), name="sem"),
            asyncio.create_task(p_sleep(), name="sleep"),
            asyncio.create_task(p_await_task(target), name="awaits-task"),
            asyncio.create_task(p_gather(ev), name="gather"),
            asyncio.create_task(p_outer(ev), name="nested"),
            asyncio.create_task(p_consumer(ev), name="agen"),
            asyncio.create_task(p_taskgroup(ev), name="taskgroup"),
            asyncio.create_task(p_read(reader), name="read"),
            asyncio.create_task(p_lost(), name="lost"),
            asyncio.create_task(p_lost_timed(), name="lost-timed"),
            asyncio.create_task(p_held(), name="held"),
            target,
        ]
        for _ in range(5):
            await asyncio.sleep(0)  # every task reaches its first suspension point
        truth["lines"] = {tag: line_of("P_" + tag) for tag in (
            "lock", "event", "queue", "sem", "sleep", "task", "gather", "middle", "outer", "agen",
            "consumer", "tg", "read", "lost", "timed", "held")}
        truth["python"] = list(sys.version_info[:2])
        await mark("parked")
        for t in made:
            t.cancel()
        await asyncio.gather(*made, return_exceptions=True)
        writer.close()
        b.close()
        HELD.clear()

    if os.environ.get("WORKLOAD_UVLOOP"):
        import uvloop
        uvloop.install()
    asyncio.run(main())


DEEP_SPAWN = 10000  # frames of recursion above the spawn
DEEP_AWAIT = 300  # coroutines awaiting each other down to where the task waits


async def d_wait(ev, n):
    if n > 1:
        await d_wait(ev, n - 1)
    else:
        await ev.wait()


def d_spawn(ev, n):
    if n > 1:
        return d_spawn(ev, n - 1)
    return asyncio.create_task(d_wait(ev, DEEP_AWAIT), name="deep")


def case_deep():
    """A task spawned under DEEP_SPAWN recursive calls, parked DEEP_AWAIT coroutines down."""
    async def main():
        ev = asyncio.Event()
        t = d_spawn(ev, DEEP_SPAWN)
        await asyncio.sleep(0)
        truth["own"] = DEEP_SPAWN + 1  # the recursion, and main's frame that started it
        truth["parked"] = DEEP_AWAIT + 2  # the chain, Event.wait, and its [awaits Event] label
        await mark("deep")
        ev.set()
        await t

    sys.setrecursionlimit(DEEP_SPAWN + 1000)
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


def case_idle():
    async def main():
        await mark("started")

    asyncio.run(main())


def main():
    case = sys.argv[1]
    path = asynctop_agent.start()
    say("ready", path)
    wait_line("go")
    t0 = now()
    globals()["case_" + case]()
    truth["wall"] = now() - t0
    say("done", json.dumps(truth))
    wait_line("exit")


if __name__ == "__main__":
    main()
