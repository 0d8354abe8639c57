"""Table adapters: what each dice system needs from a character sheet.

The rules engine (``rolls.systems``) knows dice; an adapter knows the sheet. It builds the
engine's request from the sheet and the roll form, tells the engine what the character has
(``resources``) and spends what a follow-up costs. One module per system at the table, each
with the same names, so views and services never ask which system they serve:

Forms and templates
    ``SheetForm``            the character sheet (``to_sheet()``, ``initial_from(name, sheet)``)
    ``SHEET_FORM_TEMPLATE``  the sheet form's fields, included by tabletop/character_form.html
    ``SHEET_TEMPLATE``       the sheet read-only, included by tabletop/sheet.html
    ``RESOURCES_TEMPLATE``   the resources line at the top of the roll screen
    ``RollForm``             the roll form (``RollForm(data, character=...)``, ``engine_data()``;
                             an optional ``helper`` field names a helping Character)
    ``ROLL_INITIAL``         the roll form's first values
    ``ROLL_FORM_TEMPLATE``   the roll form's fields, included by tabletop/character.html
    ``ODDS_TEMPLATE``        the odds partial, rendered by ``odds_context``'s dict

Rules at the table
    ``pool(character, data)``          -> (engine request dict, label such as "Mind + Comprehend")
    ``odds_context(system, request, label)`` -> dict for ``ODDS_TEMPLATE``
    ``check_can_roll(character)``      raises RulesError when the character may not roll now
    ``resources(character, latest=)``  what the engine may spend (Luck, Pride, Endurance...)
    ``spend(character, costs)``        spends ``Applied.costs``; returns the changed fields
    ``new_character(character)``       fills resources on creation
    ``on_new_session(character)``      what a new play session refills
    ``on_sheet_change(character, before, by_gm=)`` guards an edited sheet; changed fields
    ``STORY``                          the GM's "new Mystery/Adventure" Clock
    ``STORY_NAME``                     what the story clock counts ("Mystery"), optional
    ``SESSION_NOTE``                   what a new play session refills, for the log, optional
    ``REST``                           the GM's "long rest" Clock, or None
    ``CORRECTIONS``                    resources the GM may set directly: (field, label, maximum)
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from importlib import import_module
from pathlib import Path
from types import ModuleType
from typing import Any

from rolls.systems import SLUGS, RulesError

# The systems playable at the table: those with an adapter module here. The others have their
# rules engine and rules page, and the campaign form says they are not at the table yet.
AT_THE_TABLE: tuple[str, ...] = tuple(
    slug for slug in SLUGS if (Path(__file__).parent / f"{slug}.py").exists()
)


def adapter_for(slug: str) -> ModuleType:
    if slug not in AT_THE_TABLE:
        raise RulesError(
            "This dice system is not at the table yet: its rules and odds are on the rules page."
        )
    return import_module(f"{__name__}.{slug}")


@dataclass(frozen=True)
class Clock:
    """A GM control that moves a system's clock for every character (a new Mystery, a long
    rest...). ``apply`` changes one locked character and returns the fields it changed;
    ``event`` is what the log says, with ``{n}`` for the campaign's story counter."""

    label: str
    event: str
    apply: Callable[[Any], list[str]]


def unchanged(character: Any) -> list[str]:
    """A clock that changes nothing on the sheet (Pride reads the campaign's counter)."""
    return []


def story_name(slug: str) -> str:
    """What a campaign's story counter counts: "Mystery" in sixes, "Adventure" elsewhere."""
    return str(getattr(adapter_for(slug), "STORY_NAME", "Adventure"))
