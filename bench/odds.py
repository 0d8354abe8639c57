"""How fast the engine answers the roll forms' odds: every system, its largest pools.

    .venv/bin/python bench/odds.py

Prints, per system and request, the first call (cold caches, in a fresh process per system),
the first call after the warm-up every serving process runs at start (``rolls/warmup.py``),
and the median of later calls, in milliseconds. The issue's target: well under 10 ms.
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

CASES: dict[str, list[dict[str, object]]] = {
    "sixes": [{"dice": 13, "need": 3}],
    "kinds": [{"dice": 9, "level": "basic"}, {"dice": 6, "advantage": 3, "level": "impossible"}],
    "doubles": [{"dice": 20, "dn": 8}, {"dice": -8, "dn": 2}, {"dice": 12, "dn": 12, "degree_matters": True}],
    "sets": [{"dice": 15, "bar_size": 4, "bar_face": 6}, {"dice": 12, "bar_size": 2, "bar_face": "rolled"}],
    "stars": [{"dice": 5, "advantage": True}, {"dice": 5, "training": "professional", "disadvantage": True}],
}


def measure(slug: str, *, warmed: bool) -> list[tuple[str, float, float]]:
    from rolls import registry

    if warmed:
        from rolls.warmup import warm

        warm()
    system = registry.engine(slug)
    rows = []
    for data in CASES[slug]:
        request = system.parse_request(data)
        start = time.perf_counter()
        system.outcomes(request)
        system.chance(request)
        system.cli_extra_odds(request)
        first = (time.perf_counter() - start) * 1000
        later = []
        for _ in range(50):
            start = time.perf_counter()
            system.outcomes(request)
            system.chance(request)
            later.append((time.perf_counter() - start) * 1000)
        rows.append((str(data), first, statistics.median(later)))
    return rows


def main() -> None:
    if len(sys.argv) > 2:  # one system, in this fresh process
        slug, warmed = sys.argv[1], sys.argv[2] == "warmed"
        for data, first, later in measure(slug, warmed=warmed):
            print(f"{slug:8} {sys.argv[2]:6} {data:62} first {first:7.2f} ms   then {later:6.3f} ms")
        return
    print("Exact odds per request: the first call in a fresh process, cold or after the server's")
    print("warm-up, then the median of 50 later calls.")
    for slug in CASES:
        for mode in ("cold", "warmed"):
            subprocess.run([sys.executable, __file__, slug, mode], check=True)


if __name__ == "__main__":
    main()
