"""The CPU one socket costs to connect, measured in this process, against the bare baseline's.

Each cycle opens a phone's socket through the whole ASGI application (origin check, session and
user, routing, the consumer) with Channels' ``WebsocketCommunicator``, sends ``{"since": N}``
with the table's last sequence number as a page that reconnects does, waits for the answer and
closes (what the app sends meanwhile, the presence list, is not waited for). The same for ``bench.baseline``'s consumer (join the group, accept). The figure is the
cheapest batch's CPU time per cycle; the ratio is the one issue 18 sets a target for (at most
3). No HTTP and no uvicorn here: this is the part a connect costs the app itself.

    .venv/bin/python bench/connect_cpu.py                 # ms of CPU per connect, and the ratio
    .venv/bin/python bench/connect_cpu.py --profile 40    # and where the app's goes (cProfile)
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import pstats
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import harness

HOST = "127.0.0.1"
# The baseline's tables are numbered from here, far from any campaign id of the app's.
BASELINE_TABLES = 1_000_000


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--connects", type=int, default=1000, help="connects measured (default 1000)")
    parser.add_argument("--batches", type=int, default=5, help="batches to take the cheapest of (default 5)")
    parser.add_argument(
        "--profile", type=int, metavar="N", help="then profile the app's: N costliest functions"
    )
    args = parser.parse_args()
    environment = harness.prepare("embedded")
    try:
        asyncio.run(run(args.connects, args.batches, args.profile))
    finally:
        harness.cleanup(environment)


async def run(count: int, batches: int, profile: int | None) -> None:
    from channels.testing import WebsocketCommunicator

    from bench.baseline import application as baseline
    from tabletop.asgi import application

    tables = await asyncio.to_thread(harness.build_tables, 20, 6)
    # One table after another: a table's presence list goes out at once, not at the end of
    # an interval (``rolls.live.coalesce``), as after a quiet spell.
    phones = [(table, phone) for n in range(6) for table in tables for phone in table.phones[n : n + 1]]

    async def app_cycle(n: int) -> None:
        table, phone = phones[n % len(phones)]
        headers = [(b"host", HOST.encode()), (b"origin", f"http://{HOST}".encode())]
        headers.append((b"cookie", phone.cookie.encode()))
        communicator = WebsocketCommunicator(application, f"/ws/c/{table.campaign_id}/", headers=headers)
        connected, _ = await communicator.connect(timeout=10)
        assert connected
        await communicator.send_json_to({"since": table.last_seq})
        # Handled in order: the page's "since", then the close (as the baseline's).
        await communicator.disconnect()

    async def baseline_cycle(n: int) -> None:
        # Tables the app's campaigns are not: both run on this process's one channel layer, and
        # a presence list the app tells its table at the end of an interval (``rolls.live.coalesce``)
        # would reach a baseline socket in a group of the same name, which has no handler for it.
        communicator = WebsocketCommunicator(baseline, f"/ws/t/{BASELINE_TABLES + n % 20}/")
        connected, _ = await communicator.connect(timeout=10)
        assert connected
        await communicator.send_json_to({"since": 0})
        await communicator.disconnect()

    app = await cheapest(app_cycle, count, batches)
    bare = await cheapest(baseline_cycle, count, batches)
    print(
        f"app: {app:.3f} ms of CPU per connect; baseline: {bare:.3f} ms; ratio {app / bare:.2f} (target <= 3)"
    )
    if profile:
        profiler = cProfile.Profile()
        profiler.enable()
        for n in range(count // batches):
            await app_cycle(n)
        profiler.disable()
        pstats.Stats(profiler).sort_stats("cumulative").print_stats(profile)


async def cheapest(cycle: Callable[[int], Awaitable[Any]], count: int, batches: int) -> float:
    for n in range(50):  # warm up: templates, queries, the first session of each phone
        await cycle(n)
    per_batch = max(1, count // batches)
    best = float("inf")
    for b in range(batches):
        start = time.process_time()
        for n in range(per_batch):
            await cycle(b * per_batch + n)
        best = min(best, (time.process_time() - start) / per_batch)
    return best * 1000


if __name__ == "__main__":
    main()
