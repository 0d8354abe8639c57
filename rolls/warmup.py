"""Fill the rules engine's odds caches when a server starts, so that the first player to
open a roll form gets the odds as fast as the hundredth (the cold computation of the largest
pools takes tens of milliseconds; a cached answer, well under one).

Each engine names the requests its roll forms can make (``DiceSystem.typical_requests``).
Runs in a background thread: a server answers at once and the caches fill within a second
or two. ``bench/odds.py`` measures both cases.
"""

from __future__ import annotations

import logging
import threading

from rolls import registry
from rolls.systems import RulesError

logger = logging.getLogger(__name__)


def warm() -> int:
    """Compute the odds of every typical request of every system; returns how many."""
    count = 0
    for system in registry.all_systems():
        engine = system.engine
        for data in engine.typical_requests():
            try:
                request = engine.parse_request(data)
                engine.outcomes(request)
                engine.chance(request)
                engine.cli_extra_odds(request)
            except RulesError:
                logger.warning("warm-up skipped %s %s: no form asks for it", system.slug, data)
            else:
                count += 1
    return count


def warm_and_freeze() -> None:
    warm()
    # The filled caches live as long as the process: out of the garbage collector's sight
    # too, like the rest of the startup heap (tabletop.serving.gc).
    from tabletop.serving.gc import freeze_startup_heap

    freeze_startup_heap()


def warm_in_background() -> None:
    threading.Thread(target=warm_and_freeze, name="odds-warmup", daemon=True).start()
