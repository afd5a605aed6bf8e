"""Announces first, then forks a child that runs asyncio too: the parent is attached, the fork is
listed.  The parent waits until the child has created its first task (so it has announced)."""
import asyncio
import os


async def idle():
    await asyncio.sleep(3600)


def child(w):
    async def main():
        t = asyncio.create_task(idle(), name="fork-idle")
        os.write(w, b"x")  # our first task exists: we have announced
        os.close(w)
        await t

    asyncio.run(main())


async def main():
    t = asyncio.create_task(idle(), name="parent-idle")  # the parent announces here
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        try:
            child(w)
        finally:
            os._exit(0)
    os.close(w)
    os.read(r, 1)  # blocks the loop only until the child has announced
    os.close(r)
    print("forked %d" % pid, flush=True)
    await t


asyncio.run(main())
