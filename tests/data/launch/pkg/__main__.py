"""`python3 -m pkg`: the same small asyncio program as app.py, as a package's main module."""
import asyncio


async def idle():
    await asyncio.sleep(3600)


async def main():
    await asyncio.gather(*(asyncio.create_task(idle(), name="pkg-idle") for _ in range(2)))


asyncio.run(main())
