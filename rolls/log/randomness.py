"""Where the table's dice come from.

Views hand ``RNG`` to the services (which take any ``rolls.systems.base.Rng``), so tests
script the dice by replacing this one name. Given ``RNG``, a service draws each entry's dice
from a committed seed (``rolls/log/fairdice.py``): the play session's, or a secret or blind roll's
own, with the entry's sequence number and the roller's random value. Given anything else (a
seeded ``random.Random`` in a test), it rolls with that, and the entry records no seed.
"""

from __future__ import annotations

import random
from typing import Any

from rolls.log import fairdice
from rolls.systems.base import Rng

_OS = random.SystemRandom()


class AppDice:
    """The app's dice. A service draws them per entry (``EntryDice``); asked for a die
    directly (nothing in the app does), it answers from the operating system."""

    def randint(self, a: int, b: int) -> int:
        return _OS.randint(a, b)


RNG = AppDice()

# Where an entry's dice came from, as its ``dice`` record says (docs/verify.md).
SESSION_SEED = "session"
ROLL_SEED = "roll"


def wants_own_seed(rng: Rng, *, hidden: bool, by_hand: bool) -> bool:
    """Whether a roll takes a seed of its own: a secret or blind one that the app rolls. The
    session's seed is revealed when the session ends, this one only with the roll."""
    return hidden and not by_hand and isinstance(rng, AppDice)


class EntryDice:
    """The random source of one log entry: ``rng`` as given, unless it is the app's own and
    there is a seed, in which case the entry's dice come from the seed, its sequence number
    and the roller's value (or one the server draws when none came)."""

    def __init__(self, rng: Rng, *, seed: str, source: str, seq: int, client: str | None) -> None:
        self.source = source
        self.client_from = "browser" if client else "server"
        self.fair: fairdice.FairDice | None = None
        self.rng: Rng = rng
        if seed and isinstance(rng, AppDice):
            self.fair = fairdice.FairDice(bytes.fromhex(seed), seq, client or fairdice.new_client_value())
            self.rng = self.fair

    def record(self, **extra: Any) -> dict[str, Any] | None:
        """What the entry keeps of its dice: which seed, the value mixed in and who chose it,
        and the faces drawn in order; None when it drew none from a seed."""
        if self.fair is None or not self.fair.drawn:
            return None
        return {
            "seed": self.source,
            "client": self.fair.client,
            "client_from": self.client_from,
            "drawn": list(self.fair.drawn),
            **extra,
        }
