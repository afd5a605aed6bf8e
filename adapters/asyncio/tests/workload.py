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
import workload_reads  # noqa: E402
from workload_base import now, say, wait_line, mark, burn, truth  # noqa: E402,F401

SRC = open(__file__).read().splitlines()


def line_of(tag):
    """Line number of the line ending with the comment `# TAG`."""
    for i, text in enumerate(SRC, 1):
        if text.rstrip().endswith("# " + tag):
            return i
    raise LookupError(tag)

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
            # and the interval the parent's reader held, given back
            os.write(w, ("%s %r\n" % (asynctop_agent.socket_path(), sys.getswitchinterval())).encode())
            await asyncio.get_running_loop().run_in_executor(None, wait_line, "child-exit")
            ev.set()
            await h

        try:
            asyncio.run(child_main())
        finally:
            os._exit(0)
    os.close(w)
    with os.fdopen(r) as f:
        truth["child_path"], switch = f.readline().split()
    truth["child_switch"] = float(switch)
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
    run = globals().get("case_" + case) or getattr(workload_reads, "case_" + case)
    run()
    truth["wall"] = now() - t0
    say("done", json.dumps(truth))
    wait_line("exit")


if __name__ == "__main__":
    main()
