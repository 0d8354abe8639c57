"""Fill the rules engine's odds caches when a server starts, so that the first player to
open a roll form gets the odds as fast as the hundredth (the cold computation of the largest
pools takes tens of milliseconds; a cached answer, well under one).

Runs in a background thread: a server answers at once and the caches fill within a second
or two. ``bench/odds.py`` measures both cases.
"""

from __future__ import annotations

import logging
import threading

from rolls.systems import SLUGS, RulesError, get_system

logger = logging.getLogger(__name__)

# Every pool size a roll form can ask for, per system, with the difficulties the forms offer.
REQUESTS: dict[str, list[dict[str, object]]] = {
    "sixes": [{"dice": n, "need": k} for n in range(1, 14) for k in (1, 2, 3)],
    "kinds": [
        {"dice": n, "level": level}
        for n in range(1, 10)
        for level in ("none", "basic", "critical", "extreme", "impossible")
    ],
    "doubles": [{"dice": n, "dn": dn} for n in range(-8, 21) for dn in (2, 4, 6, 8, 10, 12)],
    "sets": [{"dice": n, "bar_size": size, "bar_face": 1} for n in range(1, 16) for size in (2, 3, 4)],
    "stars": [
        {"dice": n, "training": training, **extra}
        for n in range(1, 6)
        for training in ("untrained", "novice", "adept", "professional")
        for extra in ({}, {"advantage": True}, {"disadvantage": True})
    ],
}


def warm() -> None:
    for slug in SLUGS:
        system = get_system(slug)
        for data in REQUESTS.get(slug, []):
            try:
                request = system.parse_request(data)
                system.outcomes(request)
                system.chance(request)
                system.cli_extra_odds(request)
            except RulesError:
                logger.debug("warm-up skipped %s %s", slug, data)


def warm_and_freeze() -> None:
    warm()
    # The filled caches live as long as the process: out of the garbage collector's sight
    # too, like the rest of the startup heap (tabletop.serving.gc).
    from tabletop.serving.gc import freeze_startup_heap

    freeze_startup_heap()


def warm_in_background() -> None:
    threading.Thread(target=warm_and_freeze, name="odds-warmup", daemon=True).start()
