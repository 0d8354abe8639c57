"""A table of exact odds, as a rules page shows it: rows by pool, columns by difficulty.

Each system builds its own (``DiceSystem.build_rules_tables``) from its exact chances; the
odds never change, so ``DiceSystem.rules_tables`` computes them once per process.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction

from .base import percent


@dataclass(frozen=True)
class Table:
    caption: str
    row_label: str  # what each row varies: "Dice"
    columns: tuple[str, ...]  # what each column is: "1 six", "2 sixes", ...
    rows: tuple[tuple[str, tuple[str, ...]], ...]  # (row heading, one percentage per column)


def grid[R, C](
    caption: str,
    row_label: str,
    rows: list[tuple[str, R]],
    columns: list[tuple[str, C]],
    chance: Callable[[R, C], Fraction | None],
) -> Table:
    """A table whose every cell is ``chance(row, column)``, as a percentage."""
    return Table(
        caption,
        row_label,
        tuple(label for label, _ in columns),
        tuple((label, tuple(percent(chance(row, column)) for _, column in columns)) for label, row in rows),
    )
