"""Where the table's dice come from: the operating system's random source, and only there.

Views hand ``RNG`` to the services (which take any ``rolls.systems.base.Rng``), so tests
script the dice by replacing this one name."""

from __future__ import annotations

import random

RNG = random.SystemRandom()
