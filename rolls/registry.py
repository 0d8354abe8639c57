"""Every dice system at the table: its rules engine and its table package, by slug.

A system is one engine module (``rolls/systems/<slug>.py``, pure Python), one table package
(``rolls/tables/<slug>/``: the adapter, its forms and templates) and one line at the bottom of
this module. A campaign stores the slug; everything else asks this registry for the engine
and the adapter, so no module lists the systems again.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.utils.translation import gettext as _

from rolls.systems import RulesError

__all__ = [
    "GameSystem",
    "RulesError",
    "all_systems",
    "engine",
    "get",
    "register",
    "slugs",
    "table",
    "unregister",
]
from rolls.systems import doubles, kinds, sets, sixes, stars
from rolls.systems.base import DiceSystem
from rolls.tables.base import TEMPLATES, TableAdapter
from rolls.tables.doubles import DoublesTable
from rolls.tables.forms import RollFormBase, SheetFormBase
from rolls.tables.kinds import KindsTable
from rolls.tables.sets import SetsTable
from rolls.tables.sixes import SixesTable
from rolls.tables.stars import StarsTable


@dataclass(frozen=True)
class GameSystem:
    """A dice system as the table plays it."""

    engine: DiceSystem
    table: TableAdapter[Any, Any]

    @property
    def slug(self) -> str:
        return self.engine.slug

    @property
    def name(self) -> str:
        return self.engine.name

    @property
    def summary(self) -> str:
        return self.engine.summary


# In the order the campaign form and the rules pages list them.
_systems: dict[str, GameSystem] = {}


def register(engine: DiceSystem, table: TableAdapter[Any, Any]) -> GameSystem:
    """Put a system at the table. Fails loudly, at start-up, when the two halves do not fit
    together or the table package lacks a template or the roll form's ``engine_data``."""
    if engine.slug != table.slug:
        raise ValueError(f"The engine {engine.slug!r} and the table {table.slug!r} are two systems.")
    if engine.slug in _systems:
        raise ValueError(f"The dice system {engine.slug!r} is registered already.")
    missing = [name for name in TEMPLATES if not (table.templates_dir / table.template(name)).is_file()]
    if missing:
        raise ValueError(f"The {engine.slug} table package has no template for: {', '.join(missing)}.")
    # The form bases raise NotImplementedError in these: a table package must define them.
    if table.roll_form.engine_data is RollFormBase.engine_data:
        raise ValueError(f"The {engine.slug} roll form does not define engine_data().")
    if table.sheet_form.to_sheet is SheetFormBase.to_sheet or (
        table.sheet_form.initial_from.__func__ is SheetFormBase.initial_from.__func__  # type: ignore[attr-defined]
    ):
        raise ValueError(f"The {engine.slug} sheet form does not define to_sheet() and initial_from().")
    system = GameSystem(engine, table)
    _systems[engine.slug] = system
    return system


def unregister(slug: str) -> None:
    """Take a system off the table (tests that register a made-up one)."""
    _systems.pop(slug, None)


def get(slug: str) -> GameSystem:
    try:
        return _systems[slug]
    except KeyError:
        raise RulesError(
            _("Unknown dice system %(slug)s; choose one of %(slugs)s.")
            % {"slug": repr(slug), "slugs": ", ".join(_systems)}
        ) from None


def engine(slug: str) -> DiceSystem:
    return get(slug).engine


def table(slug: str) -> TableAdapter[Any, Any]:
    return get(slug).table


def slugs() -> tuple[str, ...]:
    return tuple(_systems)


def all_systems() -> list[GameSystem]:
    return list(_systems.values())


register(sixes.system, SixesTable())
register(kinds.system, KindsTable())
register(doubles.system, DoublesTable())
register(sets.system, SetsTable())
register(stars.system, StarsTable())
