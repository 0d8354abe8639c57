"""Tables of the chance of success by pool size and difficulty, computed by the engine for the
rules pages. Functions per system, each returning a ``Table``; ``TABLES`` lists them by slug.

The odds never change, so each table is computed once per process and cached: every rules
page after the first renders from memory.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from functools import cache

from rolls.systems import get_system
from rolls.systems.base import percent
from rolls.systems.doubles import DN_NAMES
from rolls.systems.kinds import LEVELS
from rolls.systems.sets import BAR_LEVELS
from rolls.systems.stars import RATINGS, TRAININGS, botch_chance, success_chance


@dataclass(frozen=True)
class Table:
    caption: str
    row_label: str  # what each row varies: "Dice"
    columns: tuple[str, ...]  # what each column is: "1 six", "2 sixes", ...
    rows: tuple[tuple[str, tuple[str, ...]], ...]  # (row heading, one percentage per column)


def _grid[R, C](
    caption: str,
    row_label: str,
    rows: list[tuple[str, R]],
    columns: list[tuple[str, C]],
    chance: Callable[[R, C], Fraction | None],
) -> Table:
    return Table(
        caption,
        row_label,
        tuple(label for label, _ in columns),
        tuple((label, tuple(percent(chance(row, column)) for _, column in columns)) for label, row in rows),
    )


@cache
def sixes_table() -> Table:
    system = get_system("sixes")
    return _grid(
        "Chance of success by number of dice and successes needed (without push or Luck)",
        "Dice",
        [(str(n), n) for n in range(1, 14)],
        [(f"{k} six{'es' if k > 1 else ''}", k) for k in (1, 2, 3)],
        lambda n, k: system.chance(system.parse_request({"dice": n, "need": k})),
    )


@cache
def sixes_push_table() -> Table:
    system = get_system("sixes")
    sixes = system  # the extra odds are sixes-only
    return _grid(
        "One six needed: plain, with a push, with a push and a Luck point",
        "Dice",
        [(str(n), n) for n in range(1, 14)],
        [("plain", (False, False)), ("push", (True, False)), ("push + Luck", (True, True))],
        lambda n, how: sixes.chance_with(  # type: ignore[attr-defined]
            system.parse_request({"dice": n, "need": 1}), push=how[0], luck=how[1]
        ),
    )


@cache
def kinds_table() -> Table:
    system = get_system("kinds")
    return _grid(
        "Chance of passing a Challenge by number of dice (after Advantage and Disadvantage)",
        "Dice",
        [(str(n), n) for n in range(2, 10)],
        [(level.capitalize(), level) for level in LEVELS[1:]],
        lambda n, level: system.chance(system.parse_request({"dice": n, "level": level})),
    )


def _net_pool(net: int) -> str:
    """A net pool as a row heading: "3", or "-1 (3 dice)" for negative dice."""
    return str(net) if net >= 1 else f"{net} ({2 - net} dice)"


@cache
def doubles_table() -> Table:
    system = get_system("doubles")
    return _grid(
        "Chance of beating each Difficulty Number, from Easy (2) to Nigh Impossible (12), by net pool "
        "(0 or less: negative dice, keep the lowest)",
        "Net pool",
        [(_net_pool(net), net) for net in range(-3, 9)],
        [(str(dn), dn) for dn in DN_NAMES],
        lambda net, dn: system.chance(system.parse_request({"dice": net, "dn": dn})),
    )


DRAMA_EXAMPLES = ((0, 4), (2, 6), (2, 8), (4, 8), (4, 10))  # (net pool, Difficulty Number)


@cache
def doubles_drama_table() -> Table:
    system = get_system("doubles")
    return _grid(
        "Chance of beating the Difficulty Number with drama dice added to the roll (5 Endurance each); "
        "0 or less: negative dice",
        "Net pool, Difficulty",
        [(f"{_net_pool(net)}, {DN_NAMES[dn]} ({dn})", (net, dn)) for net, dn in DRAMA_EXAMPLES],
        [
            ("none" if count == 0 else f"+{count} {'die' if count == 1 else 'dice'}", count)
            for count in range(4)
        ],
        lambda example, count: system.chance_with_drama(  # type: ignore[attr-defined]
            system.parse_request({"dice": example[0], "dn": example[1]}), count
        ),
    )


def _sets_bar_table(size: int) -> Table:
    system = get_system("sets")
    return _grid(
        f"Chance of meeting the {BAR_LEVELS[size]} Bar (Size {size}) with the best bid, by pool",
        "Dice",
        [(str(n), n) for n in range(1, 13)],
        [("Face 1", 1), ("Face 3", 3), ("Face 6", 6), ("rolled Face", "rolled")],
        lambda n, face: system.chance(system.parse_request({"dice": n, "bar_size": size, "bar_face": face})),
    )


@cache
def sets_tables() -> tuple[Table, ...]:
    return tuple(_sets_bar_table(size) for size in BAR_LEVELS)


def _stat(n: int) -> str:
    return f"{n} ({RATINGS[n]})"


def _stars(measure: str, **data: object) -> Fraction:
    """The chance of at least one Star ("star") or of a botch ("botch") for a stars request."""
    request = get_system("stars").parse_request(data)
    return success_chance(request) if measure == "star" else botch_chance(request)


@cache
def stars_success_table() -> Table:
    return _grid(
        "Chance of at least one Star by Stat and training",
        "Stat",
        [(_stat(n), n) for n in range(1, 6)],
        [(training.capitalize(), training) for training in TRAININGS],
        lambda n, training: _stars("star", dice=n, training=training),
    )


@cache
def stars_botch_table() -> Table:
    return _grid(
        "Chance of a botch by Stat and training",
        "Stat",
        [(_stat(n), n) for n in range(1, 6)],
        [(training.capitalize(), training) for training in TRAININGS],
        lambda n, training: _stars("botch", dice=n, training=training),
    )


@cache
def stars_advantage_table() -> Table:
    return _grid(
        "Untrained (difficulty 5), rolled twice: advantage keeps the better roll, disadvantage the worse",
        "Stat",
        [(_stat(n), n) for n in range(1, 6)],
        [
            ("a Star, advantage", ("star", "advantage")),
            ("a Star, disadvantage", ("star", "disadvantage")),
            ("botch, advantage", ("botch", "advantage")),
            ("botch, disadvantage", ("botch", "disadvantage")),
        ],
        lambda n, how: _stars(how[0], dice=n, **{how[1]: True}),
    )


TABLES: dict[str, Callable[[], list[Table]]] = {
    "sixes": lambda: [sixes_table(), sixes_push_table()],
    "kinds": lambda: [kinds_table()],
    "doubles": lambda: [doubles_table(), doubles_drama_table()],
    "sets": lambda: list(sets_tables()),
    "stars": lambda: [stars_success_table(), stars_botch_table(), stars_advantage_table()],
}


def tables_for(slug: str) -> list[Table]:
    return TABLES[slug]() if slug in TABLES else []
