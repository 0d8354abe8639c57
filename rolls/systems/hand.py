"""Dice rolled by hand: faces a player read off physical dice, handed to the engine as its
random source.

Every system draws its dice one at a time through ``Rng.randint(1, 6)``, so a physical roll
needs no rule of its own: the engine rolls as always, from ``EnteredDice`` instead of the
operating system. What it rerolls on a follow-up (the non-sixes of a push, the failed dice of
a Luck point, the dice bought with drama, a second whole roll) is what it asks for, and only
that; what it keeps stays as it was. The same pure code therefore answers "how many dice
must the player enter now?" (``dice_needed``: run the step on dice that count themselves)
and checks an entry against it (``entered_step``), for the five systems and any later one.

A step's number of dice never depends on the faces it draws in these rules (no system here
explodes or rerolls on a face it has just rolled), which is what makes counting by a dry run
exact; ``entered_step`` still refuses an entry that is too long or too short afterwards, so a
future rule that broke this would be refused rather than guessed.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from .base import RulesError, dice_count
from .words import _

MAX_ENTERED = 60  # more faces than any pool of these rules can need; a longer entry is noise
FACES = range(1, 7)


class _Counting:
    """A random source that counts the dice asked of it, each showing a one."""

    def __init__(self) -> None:
        self.count = 0

    def randint(self, a: int, b: int) -> int:
        self.count += 1
        return a


class EnteredDice:
    """The faces a player entered, drawn in the order they were entered."""

    def __init__(self, faces: Iterable[int]) -> None:
        self.faces = list(faces)
        self.drawn = 0

    def randint(self, a: int, b: int) -> int:
        if (a, b) != (1, 6):  # every draw of these rules is a d6
            raise RulesError(_("Dice entered by hand are six-sided dice."))
        if self.drawn >= len(self.faces):
            raise RulesError(_count_message(self.drawn + 1, len(self.faces)))
        face = self.faces[self.drawn]
        self.drawn += 1
        return face


def dice_needed(step: Callable[[Any], object]) -> int:
    """How many dice ``step(rng)`` draws: the number of faces a player enters for it."""
    counter = _Counting()
    step(counter)
    return counter.count


def parse_faces(raw: str | Iterable[object]) -> list[int]:
    """Faces from a form: ``"6 3 1"``, ``"6,3,1"``, ``"631"`` or a list of values. Raises a
    RulesError a player understands for anything that is not a face of a d6."""
    if isinstance(raw, str):
        text = raw.replace(",", " ").split()
        items: list[object] = (
            [ch for word in text for ch in word] if all(w.isdecimal() for w in text) else list(text)
        )
    else:
        items = list(raw)
    if len(items) > MAX_ENTERED:
        raise RulesError(
            _("That is more dice than any roll here uses (at most %(maximum)d).") % {"maximum": MAX_ENTERED}
        )
    faces = []
    for item in items:
        value = str(item).strip()
        if not (value.isdecimal() and len(value) == 1 and int(value) in FACES):
            raise RulesError(
                _("“%(value)s” is not a face of a die: each die shows 1 to 6.") % {"value": value[:6]}
            )
        faces.append(int(value))
    return faces


def entered_step[T](step: Callable[[Any], T], faces: list[int]) -> T:
    """Run ``step`` on the entered faces; refused unless it uses exactly all of them."""
    needed = dice_needed(step)
    if len(faces) != needed:
        raise RulesError(_count_message(needed, len(faces)))
    source = EnteredDice(faces)
    result = step(source)
    if source.drawn != len(faces):  # the step drew fewer dice on these faces than on ones
        raise RulesError(_count_message(source.drawn, len(faces)))
    return result


def _count_message(needed: int, entered: int) -> str:
    if needed == 0:
        return _("This step rolls no dice: enter none.")
    return _("Enter exactly %(dice)s; you entered %(entered)d.") % {
        "dice": dice_count(needed),
        "entered": entered,
    }
