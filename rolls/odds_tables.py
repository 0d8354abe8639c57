"""Tables of the chance of success by pool size and difficulty, computed by the engine for the
rules pages. One function per system; each returns a ``Table``."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction

from rolls.systems import get_system
from rolls.systems.base import percent


@dataclass(frozen=True)
class Table:
    caption: str
    row_label: str  # what each row varies: "Dice"
    columns: tuple[str, ...]  # what each column is: "1 six", "2 sixes", ...
    rows: tuple[tuple[str, tuple[str, ...]], ...]  # (row heading, one percentage per column)


def _grid(
    caption: str,
    row_label: str,
    rows: list[tuple[str, object]],
    columns: list[tuple[str, object]],
    chance: Callable[[object, object], Fraction | None],
) -> Table:
    return Table(
        caption,
        row_label,
        tuple(label for label, _ in columns),
        tuple((label, tuple(percent(chance(row, column)) for _, column in columns)) for label, row in rows),
    )


def sixes_table() -> Table:
    system = get_system("sixes")
    return _grid(
        "Chance of success by number of dice and successes needed (without push or Luck)",
        "Dice",
        [(str(n), n) for n in range(1, 14)],
        [(f"{k} six{'es' if k > 1 else ''}", k) for k in (1, 2, 3)],
        lambda n, k: system.chance(system.parse_request({"dice": n, "need": k})),
    )


def sixes_push_table() -> Table:
    system = get_system("sixes")
    sixes = system  # the extra odds are sixes-only
    return _grid(
        "One six needed: plain, with a push, with a push and a Luck point",
        "Dice",
        [(str(n), n) for n in range(1, 14)],
        [("plain", (False, False)), ("push", (True, False)), ("push + Luck", (True, True))],
        lambda n, how: sixes.chance_with(  # type: ignore[attr-defined]
            system.parse_request({"dice": n, "need": 1}),
            push=how[0],
            luck=how[1],  # type: ignore[index]
        ),
    )


TABLES: dict[str, Callable[[], list[Table]]] = {
    "sixes": lambda: [sixes_table(), sixes_push_table()],
}


def tables_for(slug: str) -> list[Table]:
    return TABLES[slug]() if slug in TABLES else []
