"""Soak: catch-up by sequence number under churn, counted entry by entry.

    .venv/bin/python bench/soak.py                       # 10 minutes, embedded default
    .venv/bin/python bench/soak.py --minutes 1           # a quick check
    .venv/bin/python bench/soak.py --config production   # PostgreSQL + Redis, 2 workers

Keeps T tables with C sockets each (100 x 6) while rolls flow through the real roll endpoint
at ``--rate`` rolls a second. Every minute it drops 10% of the sockets, each at a random
moment of that minute, half of them with a clean close and half by cutting the connection, and
reconnects each a few seconds later the way the page does: a new socket that says
``{"since": N}`` with the last sequence number it had. At the end it waits for every socket to
catch up and checks, for each socket (the same page across its reconnects), every entry of its
campaign after the one it started from: zero lost, zero duplicated (an entry delivered by two
messages), zero out of order.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import harness
from bench.harness import Listener, Server, Table
from bench.load import ROLL_DATA, Target, app_target


class Page:
    """One phone's page: a socket that comes and goes, and everything it received."""

    def __init__(self, index: int, table: Table, listener: Listener, path: str):
        self.index = index
        self.table = table
        self.listener = listener
        self.path = path
        self.start = table.last_seq
        self.reconnects = 0
        self.aborted = 0

    async def open(self, base: str) -> None:
        since = max(self.start, self.listener.highest)
        self.listener.socket = await harness.open_socket(base, self.path, self.listener.phone, since)
        self.listener.task = asyncio.create_task(harness.listen(self.listener, self.listener.socket))

    async def drop(self, abort: bool) -> None:
        socket = self.listener.socket
        if abort:
            socket.transport.abort()  # the phone lost its network: no closing handshake
            self.aborted += 1
        else:
            await socket.close()
        if self.listener.task is not None:
            await asyncio.gather(self.listener.task, return_exceptions=True)


async def open_pages(server: Server, target: Target, tables: list[Table]) -> list[Page]:
    """A page for every phone of every table, its socket opened (20 at a time, as phones
    arriving at a table would not all knock at once)."""
    pages = [
        Page(i, table, Listener(t, phone), target.ws_path(table, phone))
        for i, (t, table, phone) in enumerate(
            (t, table, p) for t, table in enumerate(tables) for p in table.phones
        )
    ]
    gate = asyncio.Semaphore(20)

    async def first_open(page: Page) -> None:
        async with gate:
            await page.open(server.base)

    await asyncio.gather(*(first_open(p) for p in pages))
    print(f"{len(pages)} sockets open on {server.base}", flush=True)
    return pages


async def soak(server: Server, tables: list[Table], args: argparse.Namespace) -> bool:
    import httpx

    target = app_target(server)
    pages = await open_pages(server, target, tables)
    await asyncio.sleep(2)

    rollers = [(table, phone) for table in tables for phone in table.rollers]
    paths = {id(phone): target.roll_path(table, phone) for table, phone in rollers}
    statuses: dict[int, int] = {}
    stop = asyncio.Event()
    rng = random.Random(args.seed)  # noqa: S311 - which sockets drop, not dice

    async def roll_forever(http: httpx.AsyncClient) -> None:
        n = 0
        start = time.perf_counter()
        tasks: set[asyncio.Task[None]] = set()

        async def fire(table: Table, phone: harness.Phone) -> None:
            try:
                response = await http.post(
                    paths[id(phone)],
                    data=ROLL_DATA,
                    headers=phone.post_headers(server.base),
                )
                statuses[response.status_code] = statuses.get(response.status_code, 0) + 1
            except httpx.HTTPError:
                statuses[0] = statuses.get(0, 0) + 1

        while not stop.is_set():
            delay = start + n / args.rate - time.perf_counter()
            if delay > 0:
                await asyncio.sleep(delay)
            table, phone = rollers[n % len(rollers)]
            n += 1
            task = asyncio.create_task(fire(table, phone))
            tasks.add(task)
            task.add_done_callback(tasks.discard)
        await asyncio.gather(*tasks)

    async def churn_once(page: Page, at: float) -> None:
        await asyncio.sleep(at)
        if stop.is_set():
            return
        await page.drop(abort=rng.random() < 0.5)
        await asyncio.sleep(rng.uniform(0.5, 5.0))  # offline for a moment while rolls go on
        await page.open(server.base)
        page.reconnects += 1

    limits = httpx.Limits(max_connections=256, max_keepalive_connections=256)
    async with httpx.AsyncClient(
        base_url=f"http://{server.base}", cookies=harness.no_cookies(), limits=limits, timeout=60
    ) as http:
        roller = asyncio.create_task(roll_forever(http))
        began = time.monotonic()
        churners: list[asyncio.Task[None]] = []
        for minute in range(args.minutes):
            chosen = rng.sample(pages, max(1, round(len(pages) * args.churn)))
            churners += [asyncio.create_task(churn_once(p, rng.uniform(0, 50))) for p in chosen]
            await asyncio.sleep(max(0.0, began + 60 * (minute + 1) - time.monotonic()))
            delivered = sum(len(p.listener.first_seen) for p in pages)
            print(
                f"minute {minute + 1}: {sum(statuses.values())} rolls posted {dict(statuses)},"
                f" {sum(p.reconnects for p in pages)} reconnects, {delivered} deliveries,"
                f" server RSS {server.rss_mb():.0f} MB",
                flush=True,
            )
        stop.set()
        await roller
        await asyncio.gather(*churners)

    final = await asyncio.to_thread(harness.last_seqs, [t.campaign_id for t in tables])
    # Every page catches up to its campaign's last entry, or the drain time runs out.
    deadline = time.monotonic() + args.drain
    while time.monotonic() < deadline:
        if all(p.listener.highest >= final[p.table.campaign_id] for p in pages):
            break
        await asyncio.sleep(0.2)

    lost = duplicates = out_of_order = expected = unexpected = 0
    worst: list[str] = []
    for page in pages:
        wanted = set(range(page.start + 1, final[page.table.campaign_id] + 1))
        seen = set(page.listener.first_seen)
        expected += len(wanted)
        missing = wanted - seen
        lost += len(missing)
        unexpected += len(seen - wanted)
        duplicates += page.listener.duplicates
        out_of_order += page.listener.out_of_order
        if (missing or page.listener.duplicates or page.listener.out_of_order) and len(worst) < 5:
            worst.append(
                f"  socket {page.index} (campaign {page.table.campaign_id}): missing {sorted(missing)[:10]},"
                f" duplicates {page.listener.duplicates}, out of order {page.listener.out_of_order},"
                f" reconnects {page.reconnects}"
            )
    for page in pages:
        await page.listener.socket.close()
    await asyncio.gather(*(p.listener.task for p in pages if p.listener.task), return_exceptions=True)

    errors = sum(n for status, n in statuses.items() if status != 200)
    print()
    print(
        f"Tabletop soak: {args.config}, {args.workers} worker(s), {len(tables)} tables x {args.sockets} sockets,"
        f" {args.rate:g} rolls/s, {args.minutes} min, {args.churn:.0%} of the sockets dropped each minute"
    )
    print(f"  rolls posted            {sum(statuses.values())} (errors {errors}: {statuses})")
    print(
        f"  reconnects              {sum(p.reconnects for p in pages)}"
        f" ({sum(p.aborted for p in pages)} by cutting the connection)"
    )
    print(f"  entries expected        {expected} (each entry x each socket of its table)")
    print(f"  lost                    {lost}")
    print(f"  duplicated              {duplicates}")
    print(f"  out of order            {out_of_order}")
    print(f"  not of this campaign    {unexpected}")
    print(f"  server RSS              {server.rss_mb():.0f} MB")
    print(f"  server log errors       {len(server.errors())}")
    for line in worst:
        print(line)
    ok = lost == 0 and duplicates == 0 and out_of_order == 0 and unexpected == 0 and errors == 0
    print(f"  soak: {'PASS' if ok else 'FAIL'}")
    return ok


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--minutes", type=int, default=10)
    parser.add_argument("--tables", type=int, default=100)
    parser.add_argument("--sockets", type=int, default=6)
    parser.add_argument("--rate", type=float, default=10, help="rolls per second while it runs")
    parser.add_argument("--churn", type=float, default=0.10, help="share of the sockets dropped each minute")
    harness.add_server_arguments(parser)
    parser.add_argument("--drain", type=float, default=60, help="seconds to wait for the last entries")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    harness.check_server_arguments(parser, args)

    environment = harness.prepare(args.config)
    try:
        tables = harness.build_tables(args.tables, args.sockets)
        from django.db import connections

        connections.close_all()
        with Server(environment, "tabletop.asgi:application", args.workers) as server:
            ok = asyncio.run(soak(server, tables, args))
    finally:
        harness.cleanup(environment)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
