"""The asyncio soak's workload (tests/soak.sh): a task with a name never seen before every
millisecond, each living 0-50 ms (about 25 alive at once), until killed.  Prints its socket path
once the agent listens, then every second "blocks N", the interpreter's allocated blocks: the
agent is pure Python, so a table of it that grows shows there, where the resident size also moves
with the allocator's fragmentation."""

import asyncio
import os
import random
import sys
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import asynctop_agent  # noqa: E402


async def visit(rng_value):
    await asyncio.sleep(rng_value)


async def main():
    rng = random.Random(1)
    loop = asyncio.get_running_loop()
    start = loop.time()
    made = 0
    while True:
        # as many tasks as milliseconds went by: the rate holds when the loop is late
        due = int((loop.time() - start) * 1000)
        while made < due:
            asyncio.create_task(visit(rng.random() * 0.05), name="request-%d" % made)
            made += 1
        await asyncio.sleep(0.001)


def report_blocks():
    while True:
        print("blocks", sys.getallocatedblocks(), flush=True)
        time.sleep(1)


if __name__ == "__main__":
    print(asynctop_agent.start(), flush=True)
    threading.Thread(target=report_blocks, daemon=True).start()
    asyncio.run(main())
