"""Workload for tests/test_asyncio_live.c: phases on command, each printing its own ground truth.

Runs on the stdlib loop, or on uvloop with --uvloop (prints "NO UVLOOP" and exits when it cannot be
imported).  Reads one command per line on stdin ("1".."5", "q"), runs that phase to completion, then prints
"PHASE N key=value ..." (times from time.monotonic_ns(), the agent's clock).  Prints "READY" once
the agent serves its socket and the loop runs.
"""

import asyncio
import sys
import time

import asynctop_agent


async def spin():
    for _ in range(10000):
        await asyncio.sleep(0)


async def sleeper():
    slept = 0
    for _ in range(5):
        t0 = time.monotonic_ns()
        await asyncio.sleep(0.2)
        slept += time.monotonic_ns() - t0
    return slept


def burn(ns):
    t0 = time.monotonic_ns()
    while time.monotonic_ns() - t0 < ns:
        pass
    return time.monotonic_ns() - t0


async def burner():
    burned = 0
    for _ in range(10):
        burned += burn(50_000_000)
        await asyncio.sleep(0)
    return burned


async def leaf():
    await asyncio.sleep(0)


async def inner():
    await asyncio.create_task(leaf(), name="leaf")


async def outer():
    await asyncio.create_task(inner(), name="inner")


async def hog():
    return burn(200_000_000)


async def queued():
    await asyncio.sleep(0)


def say(text):
    sys.stdout.write(text + "\n")
    sys.stdout.flush()


async def main():
    loop = asyncio.get_running_loop()
    say("READY %s" % asynctop_agent.socket_path())
    while True:
        cmd = (await loop.run_in_executor(None, sys.stdin.readline)).strip()
        if cmd == "1":
            await asyncio.create_task(spin(), name="spinner")
            say("PHASE 1")
        elif cmd == "2":
            slept = await asyncio.create_task(sleeper(), name="sleeper")
            say("PHASE 2 slept=%d" % slept)
        elif cmd == "3":
            burned = await asyncio.create_task(burner(), name="burner")
            say("PHASE 3 burned=%d" % burned)
        elif cmd == "4":
            await asyncio.create_task(outer(), name="outer")
            say("PHASE 4")
        elif cmd == "5":
            h = asyncio.create_task(hog(), name="hog")
            waiting = [asyncio.create_task(queued(), name="queued") for _ in range(3)]
            burned = await h
            await asyncio.gather(*waiting)
            say("PHASE 5 burned=%d" % burned)
        else:
            return


if __name__ == "__main__":
    asynctop_agent.start()
    if "--uvloop" in sys.argv[1:]:
        try:
            import uvloop
        except ImportError:
            say("NO UVLOOP")
            sys.exit(0)
        asyncio.set_event_loop_policy(uvloop.EventLoopPolicy())
    asyncio.run(main())
