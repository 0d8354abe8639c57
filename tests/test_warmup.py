"""The odds warm-up a serving process runs at start covers every system's forms with pools
the forms allow (bench/odds.py measures what it saves)."""

from __future__ import annotations

from rolls.systems import SLUGS, get_system
from rolls.warmup import REQUESTS, warm


def test_the_warm_up_covers_every_system_with_valid_requests() -> None:
    assert set(REQUESTS) == set(SLUGS)
    for slug, requests in REQUESTS.items():
        system = get_system(slug)
        for data in requests:
            system.parse_request(data)  # raises if the warm-up asked for a pool no form allows


def test_the_warm_up_runs_through() -> None:
    warm()
