"""Restart: every phone of a busy server comes back after the server restarts, nothing lost.

    .venv/bin/python bench/restart.py                          # 200 tables x 6 = 1,200 phones
    .venv/bin/python bench/restart.py --config production      # PostgreSQL + Redis, 2 workers

Opens T tables x C sockets, posts rolls for a few seconds, then stops the server (uvicorn's
own shutdown, as a deploy does) and starts it again on the same port. Every phone's socket
closes; each page then reconnects as ``static/js/live.js`` and htmx do: after a random delay
(htmx's "full jitter": up to 1 s for the first try, twice as long for each try that fails)
with ``{"since": N}``, the last sequence number it had. Rolls go on at ``--rate`` from the
moment the server is back.

Timed from the moment the restarted server accepts connections (its start-up, some 2 s of
loading Django and warming the odds, is the deploy's, not the phones'): until every socket
is open again (each has sent its ``since`` on opening). Then every socket must get every
entry of its campaign, the rolls posted while the phones came back included. The targets
(issue 18): all 1,200 back in under 5 s, none refused for good, none lost, duplicated or out
of order.
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
from bench.harness import Server, Table
from bench.load import ROLL_DATA, app_target
from bench.soak import Page, open_pages

TARGET_SECONDS = 5.0


async def reconnect(page: Page, base: str, rng: random.Random, tries: list[int]) -> float:
    """Open the page's socket again the way the page does; when it is open (monotonic)."""
    attempt = 0
    while True:
        await asyncio.sleep(rng.random() * 1.0 * 2 ** min(attempt, 6))
        try:
            await page.open(base)
            tries.append(attempt + 1)
            return time.monotonic()
        except Exception:  # refused, reset, a 503, a timeout: the page tries again
            attempt += 1


async def restart(server: Server, tables: list[Table], args: argparse.Namespace) -> bool:
    import httpx

    target = app_target(server)
    rng = random.Random(args.seed)  # noqa: S311 - reconnect jitter, not dice
    pages = await open_pages(server, target, tables)

    rollers = [(table, phone) for table in tables for phone in table.rollers]
    paths = {id(phone): target.roll_path(table, phone) for table, phone in rollers}
    statuses: dict[int, int] = {}

    async def post_rolls(http: httpx.AsyncClient, seconds: float, offset: int) -> None:
        tasks = []
        start = time.perf_counter()
        for n in range(round(args.rate * seconds)):
            delay = start + n / args.rate - time.perf_counter()
            if delay > 0:
                await asyncio.sleep(delay)
            _, phone = rollers[(offset + n) % len(rollers)]

            async def fire(phone: harness.Phone = phone) -> None:
                try:
                    response = await http.post(
                        paths[id(phone)], data=ROLL_DATA, headers=phone.post_headers(server.base)
                    )
                    statuses[response.status_code] = statuses.get(response.status_code, 0) + 1
                except httpx.HTTPError:
                    statuses[0] = statuses.get(0, 0) + 1

            tasks.append(asyncio.create_task(fire()))
        await asyncio.gather(*tasks)

    limits = httpx.Limits(max_connections=256, max_keepalive_connections=256)

    def client() -> httpx.AsyncClient:
        return httpx.AsyncClient(
            base_url=f"http://{server.base}", cookies=harness.no_cookies(), limits=limits, timeout=60
        )

    async with client() as http:
        await post_rolls(http, args.before, 0)
    await asyncio.sleep(1.0)

    # The deploy: uvicorn shuts down (every socket closes), then starts again on the port.
    stopped = time.monotonic()
    await asyncio.to_thread(server.stop)
    await asyncio.gather(*(p.listener.task for p in pages if p.listener.task), return_exceptions=True)
    server.log_path = server.log_path.with_name(server.log_path.stem + "-restarted.log")
    await asyncio.to_thread(server.start)
    back = time.monotonic()
    print(f"server down {back - stopped:.1f} s (its shutdown and start-up)", flush=True)

    tries: list[int] = []
    async with client() as http:
        rolling = asyncio.create_task(post_rolls(http, args.after, 7))
        opened = await asyncio.gather(*(reconnect(p, server.base, rng, tries) for p in pages))
        all_open = max(opened) - back
        await rolling

    final = await asyncio.to_thread(harness.last_seqs, [t.campaign_id for t in tables])
    deadline = time.monotonic() + args.drain
    caught_up = None
    while time.monotonic() < deadline:
        if all(max(p.listener.highest, p.start) >= final[p.table.campaign_id] for p in pages):
            caught_up = time.monotonic() - back
            break
        await asyncio.sleep(0.05)

    behind = [p for p in pages if max(p.listener.highest, p.start) < final[p.table.campaign_id]]
    for page in behind[:5]:
        print(
            f"  behind: socket {page.index}: highest {page.listener.highest} of {final[page.table.campaign_id]}"
        )
    lost = duplicates = out_of_order = 0
    for page in pages:
        wanted = set(range(page.start + 1, final[page.table.campaign_id] + 1))
        lost += len(wanted - set(page.listener.first_seen))
        duplicates += page.listener.duplicates
        out_of_order += page.listener.out_of_order
    for page in pages:
        await page.listener.socket.close()
    await asyncio.gather(*(p.listener.task for p in pages if p.listener.task), return_exceptions=True)

    errors = sum(n for status, n in statuses.items() if status != 200)
    retried = sum(1 for n in tries if n > 1)
    caught = f"{caught_up:.1f} s" if caught_up is not None else f"not within {args.drain:g} s"
    print()
    print(
        f"Tabletop restart: {args.config}, {args.workers} worker(s), {len(tables)} tables x {args.sockets}"
        f" sockets = {len(pages)} phones, {args.rate:g} rolls/s before and after"
    )
    print(f"  every socket open again     {all_open:.1f} s after the server was back")
    print(f"  every entry on every socket {caught} (rolls went on for {args.after:g} s)")
    print(f"  sockets that needed a retry {retried} (most tries {max(tries, default=0)})")
    print(f"  rolls posted                {sum(statuses.values())} (errors {errors}: {statuses})")
    print(f"  lost / duplicated / out of order  {lost} / {duplicates} / {out_of_order}")
    print(f"  server log errors           {len(server.errors())}")
    ok = (
        caught_up is not None
        and all_open < TARGET_SECONDS
        and lost == duplicates == out_of_order == errors == 0
    )
    print(
        f"  target: {len(pages)} phones back in under {TARGET_SECONDS:g} s, nothing lost:"
        f" {'PASS' if ok else 'FAIL'}"
    )
    return ok


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=200)
    parser.add_argument("--sockets", type=int, default=6)
    parser.add_argument("--rate", type=float, default=20, help="rolls per second before and after")
    parser.add_argument("--before", type=float, default=5, help="seconds of rolls before the restart")
    parser.add_argument("--after", type=float, default=5, help="seconds of rolls after it")
    parser.add_argument("--drain", type=float, default=60, help="seconds to wait for every socket")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--profile", metavar="DIR", help="run bench/sampler.py in the server, write to DIR")
    parser.add_argument(
        "--profile-mode", choices=["samples", "sections"], default="samples", help="see bench/README.md"
    )
    harness.add_server_arguments(parser)
    args = parser.parse_args(argv)
    harness.check_server_arguments(parser, args)

    environment = harness.prepare(args.config)
    try:
        tables = harness.build_tables(args.tables, args.sockets)
        from django.db import connections

        connections.close_all()
        server = Server(
            environment,
            "tabletop.asgi:application",
            args.workers,
            profile=args.profile,
            profile_mode=args.profile_mode,
        )
        server.start()
        try:
            ok = asyncio.run(restart(server, tables, args))
        finally:
            server.stop()
    finally:
        harness.cleanup(environment)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
