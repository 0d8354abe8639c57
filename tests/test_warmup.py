"""The odds warm-up a serving process runs at start covers every system's forms with pools
the forms allow (bench/odds.py measures what it saves)."""

from __future__ import annotations

from rolls import registry
from rolls.warmup import warm


def test_the_warm_up_covers_every_system_with_valid_requests() -> None:
    for system in registry.all_systems():
        requests = system.engine.typical_requests()
        assert requests, f"{system.slug} names no request to warm"
        for data in requests:
            system.engine.parse_request(data)  # raises if the warm-up asked for a pool no form allows


def test_the_warm_up_runs_through() -> None:
    expected = sum(len(system.engine.typical_requests()) for system in registry.all_systems())
    assert warm() == expected
