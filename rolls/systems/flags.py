"""Argument types for a system's command-line flags that also say what a form may offer.

``argparse`` converts each word with the flag's ``type``; these types convert exactly as
``int`` and ``str`` do (the engine still checks every value and says what is wrong in its own
words), and they carry what the GM's quick-roll form (``rolls.play.npc``) shows: the bounds of a
number, the choices of a word. The command line and the form thus read one description.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class IntRange:
    """A whole number the rules bound to ``low``..``high``: the form offers a number input."""

    low: int
    high: int

    def __call__(self, text: str) -> int:
        return int(text)

    @property
    def __name__(self) -> str:  # argparse names the type in its own messages
        return "int"


@dataclass(frozen=True)
class OneOf:
    """A word from a short list, as (value, label) pairs: the form offers a select. The engine
    may accept more spellings (a Difficulty Number's name or its number); the list is the
    canonical one."""

    options: tuple[tuple[str, str], ...]

    def __call__(self, text: str) -> str:
        return text.strip()

    @property
    def __name__(self) -> str:
        return "str"

    @classmethod
    def of(cls, values: Sequence[object]) -> OneOf:
        """The options from plain values, each its own label."""
        return cls(tuple((str(value), str(value)) for value in values))


@dataclass(frozen=True)
class OneOfEach:
    """For a flag that takes several words (``nargs=2``): one list of (value, label) per word,
    in order. The form offers one select per word."""

    words: tuple[tuple[tuple[str, str], ...], ...]

    def __call__(self, text: str) -> str:
        return text.strip()

    @property
    def __name__(self) -> str:
        return "str"
