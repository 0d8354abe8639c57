"""The CPU one roll costs the server's request thread, measured in this process.

Rolls go through Django's whole handler (every middleware, the view, the service, the shared
markup the broadcast carries) with the test client's handler, as signed-in phones of
``harness.build_tables`` post them, in ``--batches`` batches; the figure is the cheapest
batch's CPU time per roll (the others carry whatever else the machine did). There are no
sockets, no HTTP and no event loop here: this is the part of a roll that the app adds over the
bare baseline, and a change to it shows here in a minute, where ``load.py --sweep`` takes ten
and varies with the machine. Run it before and after a change, alternately.

    .venv/bin/python bench/roll_cpu.py                 # ms of CPU per roll
    .venv/bin/python bench/roll_cpu.py --profile 40    # and where it goes (cProfile, slower)
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import harness

ROLL = "trait=skill-0&need=1"


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--rolls", type=int, default=3000, help="rolls measured (default 3000)")
    parser.add_argument("--batches", type=int, default=5, help="batches to take the cheapest of (default 5)")
    parser.add_argument(
        "--profile", type=int, metavar="N", help="then profile the rolls: the N costliest functions"
    )
    args = parser.parse_args()

    environment = harness.prepare("embedded")
    try:
        print(f"{measure(args.rolls, args.batches, args.profile):.3f} ms of CPU per roll (cheapest batch)")
    finally:
        harness.cleanup(environment)


def measure(count: int, batches: int, profile: int | None) -> float:
    from django.test import Client
    from django.urls import reverse

    from rolls import live

    # No socket listens: the broadcast is rendered (prepare_entry) but not sent.
    live._send = lambda *args, **kwargs: None  # type: ignore[assignment]
    tables = harness.build_tables(100, 6)
    phones = []
    for table in tables:
        for phone in table.rollers:
            # The phone's session and CSRF cookies, token header and htmx header, as load.py sends.
            client = Client(enforce_csrf_checks=True, headers=phone.post_headers("127.0.0.1"))
            url = reverse("rolls:roll-create", args=[table.campaign_id, phone.character_id])
            phones.append((client, url))

    def roll(n: int) -> None:
        client, url = phones[n % len(phones)]
        response = client.post(
            url, ROLL, content_type="application/x-www-form-urlencoded", SERVER_NAME="127.0.0.1"
        )
        if response.status_code != 200:
            raise SystemExit(f"a roll answered {response.status_code}: {response.content[:200]!r}")

    for n in range(len(phones)):  # warm up: each phone's first request, templates, queries
        roll(n)
    per_batch = max(1, count // batches)
    cheapest = float("inf")
    for b in range(batches):
        start = time.process_time()
        for n in range(per_batch):
            roll(b * per_batch + n)
        cheapest = min(cheapest, (time.process_time() - start) / per_batch)
    if profile:
        profiler = cProfile.Profile()
        profiler.runcall(lambda: [roll(n) for n in range(per_batch)])
        pstats.Stats(profiler).sort_stats("cumulative").print_stats(profile)
    return cheapest * 1000


if __name__ == "__main__":
    main()
