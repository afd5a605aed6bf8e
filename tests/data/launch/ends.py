"""Runs a few asyncio tasks until the file $ENDS_WHEN exists, then ends as its arguments say:
`exit N` (status N) or `signal NAME` (killed by that signal), after a last line of output."""
import asyncio
import os
import resource
import signal
import sys


async def waiter():
    await asyncio.sleep(3600)


async def main():
    tasks = [asyncio.create_task(waiter(), name="waiter") for _ in range(2)]
    print("ends %d started" % os.getpid(), flush=True)
    when = os.environ["ENDS_WHEN"]
    while not os.path.exists(when):
        await asyncio.sleep(0.01)
    print("ends: last words before %s %s" % (sys.argv[1], sys.argv[2]), flush=True)
    if sys.argv[1] == "exit":
        sys.exit(int(sys.argv[2]))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    os.kill(os.getpid(), getattr(signal, sys.argv[2]))
    await asyncio.gather(*tasks)


if __name__ == "__main__":
    asyncio.run(main())
