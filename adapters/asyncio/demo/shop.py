"""asynctop's demo workload: a small fake web shop whose task families each answer one of
asynctop's questions (idle, busy, scheduled, polls, wakes) differently.  Standard library only;
runs until SIGINT or SIGTERM, then cancels its tasks and exits with status 0.

    python3 adapters/asyncio/demo/shop.py [--seed N]

The families (README.md next to this file says what to look at in the viewer):

    main                          the root task (asyncio.run); waits for the stop signal
    ├─ db-worker      x24 named   queries a slow inventory database      -> most IDLE
    ├─ cache-poller       named   busy-waits on a flag with sleep(0)     -> most POLLS and WAKES
    ├─ report_metrics x8 unnamed  a sample every 10 ms, late behind the
    │                             checkouts' CPU step                      -> most SCHEDULED
    └─ storefront         named   takes an order every 60-120 ms
        └─ checkout-N         named   one per order (TaskGroup), short-lived;
            │                         signs the order for 25 ms of CPU     -> most BUSY
            └─ reserve_stock, charge_card   (gather, unnamed, short-lived: 3 levels below main)

Randomness comes from per-task generators seeded from --seed, so every run has the same shape.
CPU use is about a third of one core: the 25 ms signing step per ~90 ms order, the poller's
bursts and the metrics ticks.
"""

import argparse
import asyncio
import hashlib
import os
import random
import signal
import sys
import time

DB_WORKERS = 24  # size of the database pool (one row, TASKS 24)
METRICS_TASKS = 8  # metrics reporters starved behind the pricing step (one row, TASKS 8)
METRICS_PERIOD = 0.010  # seconds between two metrics samples
POLL_BURST = 100  # sleep(0) checks per poller burst
POLL_BACKOFF = 0.010  # seconds the poller rests between bursts
ORDER_GAP = (0.060, 0.120)  # seconds between two orders (uniform)
PRICING_CPU = 0.025  # seconds of CPU per order, holding the event loop


class Shop:
    """State shared by the shop's tasks (one event loop, so no locks are needed)."""

    def __init__(self, seed):
        self.seed = seed
        self.orders = 0  # orders completed
        self.queries = 0  # database queries answered
        self.samples = 0  # metrics samples pushed
        self.polls = 0  # flag checks made by the cache poller
        self.cache_dirty = False  # set by each checkout, cleared by the cache poller

    def rng(self, *key):
        """A random generator of its own for one task: the same sequence on every run, whatever
        order the tasks happen to run in (seeding with a str is stable across processes)."""
        return random.Random("%d/%s" % (self.seed, "/".join(str(k) for k in key)))


# -- idle: a pool waiting on a slow backend ------------------------------------------------


async def db_worker(shop, index):
    """One connection of the database pool: each query takes 150-600 ms of backend latency,
    during which the task waits (idle) for the reply."""
    rng = shop.rng("db-worker", index)
    while True:
        await asyncio.sleep(rng.uniform(0.150, 0.600))
        await write_ledger(shop)  # one lock for the pool: the workers queue on it


# -- polls and wakes: a busy-waiting poller --------------------------------------------------


async def cache_poller(shop):
    """Waits for cache invalidations the wrong way: checks a flag, yields with sleep(0), checks
    again.  Every check is a poll and a wake; after a burst it backs off for 10 ms."""
    while True:
        for _ in range(POLL_BURST):
            shop.polls += 1
            if shop.cache_dirty:
                shop.cache_dirty = False  # "invalidate" the price cache
            await asyncio.sleep(0)
        await asyncio.sleep(POLL_BACKOFF)


# -- scheduled: tasks starved behind a CPU-heavy step ----------------------------------------


async def report_metrics(shop, index):
    """Pushes a metrics sample every 10 ms.  Its timer falls due while a checkout holds the
    loop, so it waits ready-to-run (scheduled) until that step ends."""
    rng = shop.rng("metrics", index)
    await asyncio.sleep(rng.uniform(0, METRICS_PERIOD))  # spread the reporters' phases
    while True:
        await asyncio.sleep(METRICS_PERIOD)
        shop.samples += 1


# -- busy: the order pipeline, spawned three levels deep ------------------------------------


def sign_order(payload, seconds):
    """CPU-heavy work: chains SHA-256 over the order until `seconds` have passed.  Bounded by
    time rather than by rounds, so the load is the same on a fast or a slow machine."""
    digest = payload
    deadline = time.perf_counter() + seconds
    while time.perf_counter() < deadline:
        for _ in range(100):
            digest = hashlib.sha256(digest).digest()
    return digest.hex()[:16]


async def reserve_stock(order, latency):
    """Asks the warehouse to hold the items (a short backend wait)."""
    await asyncio.sleep(latency)
    return "reserved %d items" % order["items"]


async def charge_card(order, latency):
    """Asks the payment provider to charge the card (a longer backend wait)."""
    await asyncio.sleep(latency)
    return "charged %d.%02d" % divmod(order["cents"], 100)


async def checkout(shop, order, rng):
    """One order: prices and signs it (25 ms of CPU in a single step, during which nothing else
    on the loop can run), then reserves the stock and charges the card concurrently (gather
    spawns a task for each)."""
    order["signature"] = sign_order(repr(order).encode(), PRICING_CPU)
    await asyncio.gather(reserve_stock(order, rng.uniform(0.020, 0.080)),
                         charge_card(order, rng.uniform(0.050, 0.150)))
    shop.orders += 1
    shop.cache_dirty = True


async def storefront(shop):
    """Takes an order every 60-120 ms and checks each out in its own task, named after the order
    (checkout-1, checkout-2, ...), inside a TaskGroup."""
    rng = shop.rng("storefront")
    number = 0
    async with asyncio.TaskGroup() as group:
        while True:
            await asyncio.sleep(rng.uniform(*ORDER_GAP))
            number += 1
            order = {"id": number, "items": rng.randint(1, 5), "cents": rng.randint(500, 20000)}
            group.create_task(checkout(shop, order, shop.rng("checkout", number)),
                              name="checkout-%d" % number)


# -- the root --------------------------------------------------------------------------------


async def main(seed):
    """Starts every family, waits for SIGINT or SIGTERM, then cancels them all."""
    shop = Shop(seed)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)

    tasks = []
    for i in range(DB_WORKERS):
        tasks.append(asyncio.create_task(db_worker(shop, i), name="db-worker"))  # one shared name
    tasks.append(asyncio.create_task(cache_poller(shop), name="cache-poller"))
    for i in range(METRICS_TASKS):
        tasks.append(asyncio.create_task(report_metrics(shop, i)))  # unnamed: shown by qualname
    tasks.append(asyncio.create_task(storefront(shop), name="storefront"))
    tasks.append(asyncio.create_task(search_indexer(shop), name="search-indexer"))
    shop.ledger = asyncio.Lock()  # taken by the first query's end, well after this line

    sys.stderr.write("demo: shop running, pid %d\n" % os.getpid())
    sys.stderr.flush()
    started = time.monotonic()
    await stop.wait()

    for t in tasks:
        t.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    sys.stderr.write("demo: shop stopped after %.1fs: %d orders, %d queries, %d metrics samples, "
                     "%d cache checks\n" % (time.monotonic() - started, shop.orders, shop.queries,
                                            shop.samples, shop.polls))
    sys.stderr.flush()


def run():
    """Parses the command line and runs the shop; returns the exit status."""
    parser = argparse.ArgumentParser(description="asynctop's demo workload: a fake web shop")
    parser.add_argument("--seed", type=int, default=7, help="seed of the shop's randomness (default 7)")
    args = parser.parse_args()
    asyncio.run(main(args.seed))
    return 0


# -- where tasks wait, and a step that holds the loop: read with a and W in the viewer ------


LEDGER_HOLD = 0.012  # seconds a worker holds the ledger's lock, writing its query's result
INDEX_PERIOD = 1.0  # seconds between two rebuilds of the search index
INDEX_CPU = 0.070  # seconds of CPU per rebuild, in one step: longer than the 50 ms warning


async def write_ledger(shop):
    """Writes a query's result to the pool's one ledger, under its lock: 24 workers share it, so
    some queue in Lock.acquire, which grouping rows by parked-at stack (a) shows as one row."""
    async with shop.ledger:
        await asyncio.sleep(LEDGER_HOLD)
        shop.queries += 1


async def search_indexer(shop):
    """Rebuilds the search index once a second in a single 70 ms step that holds the event loop:
    the long-poll warning (W) names it."""
    while True:
        await asyncio.sleep(INDEX_PERIOD)
        sign_order(b"index", INDEX_CPU)


if __name__ == "__main__":
    sys.exit(run())
