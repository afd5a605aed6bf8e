"""The entry point of the console-script wrapper (wrapper.sh): a function that runs asyncio."""
import asyncio


async def serve():
    await asyncio.sleep(3600)


def main():
    async def run():
        await asyncio.gather(asyncio.create_task(serve(), name="entry-serve"))

    asyncio.run(run())
    return 0
