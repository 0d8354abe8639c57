"""Scripted dice for every test. No Django here: the engine tests under tests/systems use
these too, and they must run without a settings module or a database."""

from __future__ import annotations

import random
from collections.abc import Callable


class ScriptedDice(random.Random):
    """A random source that rolls the faces it is given, in order: a test knows every die in
    advance. Rolling more than it scripted fails the test, unless ``then`` names the face to
    roll once the script has run out (``then=1``: ones, for tests that only count rolls).

    A ``random.Random`` so that it goes wherever the code takes one; but only ``randint(1, 6)``
    is scripted, and drawing in any other way fails rather than roll a seeded number that
    the test never chose."""

    def __init__(self, *faces: int, then: int | None = None) -> None:
        # No super().__init__(): seeding a Mersenne Twister that is never drawn from costs
        # twenty microseconds, and the exhaustive engine tests make tens of thousands of these.
        self.faces = list(faces)
        self.then = then

    def randint(self, a: int, b: int) -> int:
        assert (a, b) == (1, 6), f"the code rolled randint({a}, {b}); the script only has d6 faces"
        if self.faces:
            return self.faces.pop(0)
        assert self.then is not None, "the code rolled more dice than the test scripted"
        return self.then

    def random(self) -> float:
        raise AssertionError("the code drew random() from scripted dice; only randint(1, 6) is scripted")

    def getrandbits(self, k: int) -> int:
        raise AssertionError("the code drew random bits from scripted dice; only randint(1, 6) is scripted")


# What the ``dice`` fixture hands a test: ``dice(6, 2, 3)`` scripts the views' next rolls.
Script = Callable[..., ScriptedDice]
