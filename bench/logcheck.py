"""Checking a long log while another table rolls, in this process (issue 44).

A campaign of some 50,000 log entries (``history_fill``: played through the services, then
copied), and another table whose player rolls back to back through Django's whole handler on
a thread of its own, as a second table served by the same process. The figures:

- ``verify_log`` (the command: the whole log, every roll's row) at that length;
- each press of the history page's "Check the log" on the never-checked log: a piece of at most
  ``rolls.history.verify.BUDGET`` seconds a press (its rolls' rows checked within it), then a press that finds nothing new;
- the other table's roll time (median, p95) with nobody pressing, and while one member presses
  as fast as the answers come for the same seconds (the rate limit refuses what passes its count).

    .venv/bin/python bench/logcheck.py                    # SQLite, 50,000 entries
    .venv/bin/python bench/logcheck.py --entries 20000 --seconds 5
"""

from __future__ import annotations

import argparse
import statistics
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import harness


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--entries", type=int, default=50_000, help="log entries at least (default 50,000)")
    parser.add_argument(
        "--seconds", type=float, default=10, help="each phase of the other table (default 10)"
    )
    parser.add_argument("--config", choices=("embedded", "production"), default="embedded")
    args = parser.parse_args()
    environment = harness.prepare(args.config)
    try:
        run(args)
    finally:
        harness.cleanup(environment)


def run(args: argparse.Namespace) -> None:
    from django.test import Client
    from django.urls import reverse

    from bench import history_fill
    from rolls.apps import LIVE_RECEIVER
    from rolls.history.verify import verify_log
    from rolls.log.append import entry_committed
    from rolls.models import LogCheck

    entry_committed.disconnect(dispatch_uid=LIVE_RECEIVER)  # nobody listens: no broadcast
    started = time.perf_counter()
    # About 1.45 entries a roll in the demo's play: enough rolls for the entries asked.
    rolls = -(-int(args.entries / 1.4) // 600) * 600
    big = history_fill.fill(rolls=rolls, sessions=60, characters=4, played_sessions=2, seed=1)
    big.refresh_from_db()
    print(f"filled campaign {big.pk}: {big.last_seq} entries in {time.perf_counter() - started:.0f} s")

    started = time.perf_counter()
    assert verify_log(big) is None
    print(f"verify_log {big.pk} (the command's check, whole): {time.perf_counter() - started:.2f} s")

    member = Client()
    member.force_login(big.gm)
    check_url = reverse("rolls:verify-log", args=[big.pk])

    def press() -> tuple[float, int]:
        began = time.perf_counter()
        status = member.post(check_url, HTTP_HX_REQUEST="true", SERVER_NAME="127.0.0.1").status_code
        return (time.perf_counter() - began) * 1000, status

    presses = []
    while True:
        took, status = press()
        presses.append(took)
        mark = LogCheck.objects.filter(campaign=big).values_list("seq", flat=True).first() or 0
        if mark >= big.last_seq or status != 200:
            break
    print(
        f"presses on the never-checked log: {len(presses)}, each {', '.join(f'{t:.0f}' for t in presses)} ms"
    )
    took, _ = press()
    print(f"a press with nothing new since: {took:.1f} ms")

    from django.conf import settings

    # The other table rolls as fast as it can, past the limit a phone has: what is measured is
    # what the presses cost it, not its own limit.
    settings.RATE_LIMITS["rolls:roll-create"] = (10**9, 60)
    other = harness.build_tables(1, 2)[0]
    roller = Client(enforce_csrf_checks=True, headers=other.rollers[0].post_headers("127.0.0.1"))
    roll_url = reverse("rolls:roll-create", args=[other.campaign_id, other.rollers[0].character_id])

    def rolling(stop: threading.Event, times: list[float]) -> None:
        while not stop.is_set():
            began = time.perf_counter()
            response = roller.post(
                roll_url,
                "trait=skill-0&need=1",
                content_type="application/x-www-form-urlencoded",
                SERVER_NAME="127.0.0.1",
            )
            assert response.status_code == 200, response.status_code
            times.append((time.perf_counter() - began) * 1000)

    def phase(pressing: bool) -> tuple[list[float], list[tuple[float, int]]]:
        from django.core.cache import cache

        cache.clear()  # the rate limit's counts of the phase before
        # Each press starts on a log never checked: the costliest press there is.
        LogCheck.objects.filter(campaign=big).delete()
        stop, times = threading.Event(), []
        thread = threading.Thread(target=rolling, args=(stop, times))
        thread.start()
        pressed = []
        end = time.perf_counter() + args.seconds
        while time.perf_counter() < end:
            if pressing:
                pressed.append(press())
                LogCheck.objects.filter(campaign=big).delete()
            else:
                time.sleep(0.05)
        stop.set()
        thread.join()
        return times, pressed

    for pressing in (False, True):
        times, pressed = phase(pressing)
        line = (
            f"other table's rolls {'while one member presses' if pressing else 'alone'}: {len(times)} rolls, "
            f"median {statistics.median(times):.1f} ms, p95 {harness.percentile(times, 95):.1f} ms"
        )
        if pressing:
            answered = [t for t, status in pressed if status == 200]
            refused = sum(status == 429 for _, status in pressed)
            line += f"; {len(answered)} presses answered (median {statistics.median(answered):.0f} ms), {refused} refused 429"
        print(line)


if __name__ == "__main__":
    main()
