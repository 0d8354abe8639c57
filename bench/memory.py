"""Memory: the server's resident memory with 600 sockets open, then after 10,000 sockets more
have connected and disconnected.

    .venv/bin/python bench/memory.py                         # embedded default
    .venv/bin/python bench/memory.py --cycles 2000           # shorter
    .venv/bin/python bench/memory.py --config production     # PostgreSQL + Redis (1 worker)

Opens T tables x C sockets (100 x 6 = 600) and keeps them open, with ``--rate`` rolls a second
flowing (default 0: idle). Reads the server's RSS, then runs ``--cycles`` connect/disconnect
cycles, ``--parallel`` at a time: a member's second socket (another tab, a phone waking up)
connects, says where it is, waits for its answer (the presence list), and closes. RSS is read
every thousand cycles. Target 5: under 200 MB at 600 sockets, growing less than 10% over the
cycles. With ``--config production`` it measures one worker (the memory of one process).
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import harness
from bench.harness import Server, Table
from bench.load import Driver, app_target, baseline_target

LIMIT_MB = 200.0
GROWTH = 0.10


async def measure(server: Server, tables: list[Table], args: argparse.Namespace) -> bool:
    target = baseline_target(server) if args.baseline else app_target(server)
    driver = Driver(target, tables)
    start = time.perf_counter()
    await driver.connect()
    print(f"{len(driver.listeners)} sockets open in {time.perf_counter() - start:.1f} s", flush=True)
    await asyncio.sleep(5)  # let the connect storm's presence updates settle
    rolls: asyncio.Task[object] | None = None
    if args.rate > 0:
        # Rolls flow for the whole measurement (a phase as long as the cycles may take).
        rolls = asyncio.create_task(driver.phase(args.rate, 3600, drain=0))
        await asyncio.sleep(5)
    before = server.rss_mb()
    print(f"RSS with {len(driver.listeners)} sockets: {before:.1f} MB", flush=True)

    phones = [(table, phone) for table in tables for phone in table.phones]
    done = 0
    failures = 0
    samples = [(0, before)]
    next_report = 1000
    lock = asyncio.Lock()
    began = time.perf_counter()

    async def cycles(worker: int) -> None:
        nonlocal done, failures, next_report
        import websockets

        i = worker
        while True:
            async with lock:
                if done >= args.cycles:
                    return
                done += 1
                count = done
            table, phone = phones[i % len(phones)]
            i += args.parallel
            try:
                socket = await harness.open_socket(
                    server.base, target.ws_path(table, phone), phone, table.last_seq
                )
                if args.baseline:
                    await asyncio.sleep(0.05)  # the baseline answers nothing
                else:
                    # The presence list that says this phone came in is the answer to wait for.
                    await asyncio.wait_for(socket.recv(), timeout=30)
                await socket.close()
            except (OSError, TimeoutError, websockets.WebSocketException):
                failures += 1
            if count >= next_report:
                async with lock:
                    if count >= next_report:
                        next_report += 1000
                        rss = server.rss_mb()
                        samples.append((count, rss))
                        rate = count / (time.perf_counter() - began)
                        print(f"  {count:6d} cycles: RSS {rss:.1f} MB ({rate:.0f} cycles/s)", flush=True)

    await asyncio.gather(*(cycles(w) for w in range(args.parallel)))
    await asyncio.sleep(5)  # the last disconnects are handled
    after = server.rss_mb()
    present = None if args.baseline else await asyncio.to_thread(presence_rows)
    if rolls is not None:
        rolls.cancel()
        await asyncio.gather(rolls, return_exceptions=True)
    await driver.close()

    growth = (after - before) / before if before else float("inf")
    print()
    print(
        f"{'Baseline' if args.baseline else 'Tabletop'} memory: {args.config}, {len(driver.listeners)} sockets open"
        f" ({args.tables} tables x {args.sockets}), {args.cycles} connect/disconnect cycles"
        f" ({args.parallel} at a time), {args.rate:g} rolls/s"
    )
    print(f"  RSS at {len(driver.listeners)} sockets      {before:.1f} MB (limit {LIMIT_MB:.0f} MB)")
    print(f"  RSS after the cycles     {after:.1f} MB")
    print(f"  growth                   {growth:+.1%} (limit {GROWTH:.0%})")
    print(f"  failed cycles            {failures}")
    if present is not None:
        # Every socket that left must have left the table too (no ghost "at the table").
        print(f"  presence rows            {present} (sockets open: {len(driver.listeners)})")
    print(f"  server log errors        {len(server.errors())}")
    ok_size = before < LIMIT_MB
    ok_growth = growth < GROWTH and failures == 0 and present in (None, len(driver.listeners))
    print(f"  target 5: under {LIMIT_MB:.0f} MB at 600 sockets: {'PASS' if ok_size else 'FAIL'}")
    print(f"  target 5: growth under {GROWTH:.0%} over the cycles: {'PASS' if ok_growth else 'FAIL'}")
    return ok_size and ok_growth


def presence_rows() -> int:
    from django.db import connection

    from tabletop.models import Presence

    try:
        return Presence.objects.count()
    finally:
        connection.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=100)
    parser.add_argument("--sockets", type=int, default=6)
    parser.add_argument("--cycles", type=int, default=10_000)
    parser.add_argument("--parallel", type=int, default=20, help="cycles under way at once")
    parser.add_argument("--rate", type=float, default=0, help="rolls per second meanwhile")
    parser.add_argument("--config", choices=["embedded", "production"], default="embedded")
    parser.add_argument("--baseline", action="store_true", help="measure bench/baseline.py instead")
    args = parser.parse_args(argv)

    environment = harness.prepare(args.config)
    try:
        tables = harness.build_tables(args.tables, args.sockets)
        from django.db import connections

        connections.close_all()
        app = "bench.baseline:application" if args.baseline else "tabletop.asgi:application"
        layer = {"BENCH_CHANNEL_LAYER": harness.channel_layer_backend()}
        with Server(environment, app, 1, extra_env=layer) as server:
            ok = asyncio.run(measure(server, tables, args))
    finally:
        harness.cleanup(environment)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
