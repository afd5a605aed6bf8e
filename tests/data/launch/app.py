"""A small asyncio program for the launcher tests: a few tasks wait and tick until stopped."""
import asyncio
import os
import sys


async def waiter():
    await asyncio.sleep(3600)


async def ticker():
    while True:
        await asyncio.sleep(0.01)


async def main():
    tasks = [asyncio.create_task(waiter(), name="waiter") for _ in range(3)]
    tasks.append(asyncio.create_task(ticker(), name="ticker"))
    print("app %d started" % os.getpid(), flush=True)
    await asyncio.gather(*tasks)


if __name__ == "__main__":
    asyncio.run(main())
