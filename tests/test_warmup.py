"""The odds warm-up a serving process runs at start covers every system's forms with pools
the forms allow (bench/odds.py measures what it saves)."""

from __future__ import annotations

import sys
from typing import Any

from rolls import registry
from rolls.warmup import warm


def engine_caches() -> dict[str, Any]:
    """Every functools cache of the rules engine, found in the loaded modules of rolls.systems
    rather than named one by one: the test keeps up when the engine moves or adds a cache."""
    found = {}
    for name, module in list(sys.modules.items()):
        if name == "rolls.systems" or name.startswith("rolls.systems."):
            for attribute, value in vars(module).items():
                if callable(value) and hasattr(value, "cache_info") and hasattr(value, "__wrapped__"):
                    found[f"{name}.{attribute}"] = value
    return found


def cache_infos(caches: dict[str, Any]) -> dict[str, Any]:
    return {name: cached.cache_info() for name, cached in caches.items()}


def test_the_warm_up_covers_every_system_with_valid_requests() -> None:
    for system in registry.all_systems():
        requests = system.engine.typical_requests()
        assert requests, f"{system.slug} names no request to warm"
        for data in requests:
            system.engine.parse_request(data)  # raises if the warm-up asked for a pool no form allows


def test_the_warm_up_leaves_the_odds_of_every_request_in_the_caches() -> None:
    expected = sum(len(system.engine.typical_requests()) for system in registry.all_systems())
    assert warm() == expected

    caches = engine_caches()
    assert caches, "the engine caches no odds: the warm-up has nothing to fill"
    for slug in registry.slugs():
        system = registry.engine(slug)
        for data in system.typical_requests():
            request = system.parse_request(data)
            before = cache_infos(caches)
            system.chance(request)
            after = cache_infos(caches)
            hits = sum(after[name].hits - before[name].hits for name in caches)
            misses = sum(after[name].misses - before[name].misses for name in caches)
            stored = sum(after[name].currsize - before[name].currsize for name in caches)
            # Answered from the caches, and nothing the warm-up should have left was missing.
            assert (misses, stored) == (0, 0), f"{slug} {data}: not warmed up"
            assert hits > 0, f"{slug} {data}: the odds went through no cache"
