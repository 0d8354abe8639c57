"""What every dice system's table package implements: ``TableAdapter``.

The rules engine (``rolls.systems``) knows dice; an adapter knows the character sheet. It
builds the engine's request from the sheet and the roll form, tells the engine what the
character has (``resources``) and spends what a follow-up costs. Views and services ask the
adapter and never which system they serve.

A table package (``rolls/tables/<slug>/``) holds the adapter, its forms and its templates,
under ``templates/tables/<slug>/``, found by ``rolls.tables.templates.Loader``:

``sheet_form.html``  the sheet form's fields, included by rolls/character_form.html
``sheet.html``       the sheet, read-only, included by rolls/sheet.html
``resources.html``   the resources line at the top of the roll screen (``character``)
``roll_form.html``   the roll form's fields, included by rolls/character.html
``odds.html``        the odds partial, rendered with ``odds_context``'s dict
``rules.html``       the system's rules page, in our own words, with the engine's odds tables

``TEMPLATES`` lists them; ``rolls.registry.register`` checks that a package has them all.
"""

from __future__ import annotations

import inspect
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from rolls.audience import ALL_WAITS, Waits
from rolls.systems import RulesError
from rolls.systems.base import DiceSystem

if TYPE_CHECKING:
    from rolls.tables.forms import RollFormBase, SheetFormBase
    from tabletop.models import Character

TEMPLATES = ("sheet_form", "sheet", "resources", "roll_form", "odds", "rules")


@dataclass(frozen=True)
class Clock:
    """A GM control that moves a system's clock for every character (a new Mystery, a long
    rest...). ``apply`` changes one locked character and returns the fields it changed;
    ``event`` is what the log says, with ``{n}`` for the campaign's story counter."""

    label: str
    event: str
    apply: Callable[[Character], list[str]]


@dataclass(frozen=True)
class Correction:
    """A resource the GM may set directly on a sheet (each change is logged).

    ``maximum`` bounds the form's field; ``limit``, when the rules set one for this character,
    gives the character's own maximum and the rule that sets it, in words ("15 - age 14, SIX-8"):
    the service refuses a value above it under the character's row lock."""

    field: str  # the Character column
    label: str
    maximum: int
    limit: Callable[[Character], tuple[int, str]] | None = None

    def check(self, character: Character, value: int) -> None:
        """Raise RulesError when ``value`` is above what the rules let this character hold."""
        if self.limit is None:
            return
        most, why = self.limit(character)
        if value > most:
            raise RulesError(
                f"{character.name} holds at most {most} {self.label} ({why}); {value} is too many."
            )


def unchanged(character: Character) -> list[str]:
    """A clock that changes nothing on the sheet (Pride reads the campaign's counter)."""
    return []


class TableAdapter[E: DiceSystem, R](ABC):
    """One dice system at the table, for its engine ``E`` and that engine's request type
    ``R``. Subclasses are stateless; the registry holds one instance of each."""

    slug: ClassVar[str]
    sheet_form: ClassVar[type[SheetFormBase]]
    roll_form: ClassVar[type[RollFormBase]]
    roll_initial: ClassVar[Mapping[str, Any]]  # the roll form's first values
    story: ClassVar[Clock]  # the GM's "new Mystery/Adventure"
    story_name: ClassVar[str] = "Adventure"  # what the story clock counts
    rest: ClassVar[Clock | None] = None  # the GM's "long rest", where the system has one
    session_note: ClassVar[str] = ""  # what a new play session refills, for the log
    corrections: ClassVar[tuple[Correction, ...]] = ()
    # What can keep a roll waiting on the GM's panel (``rolls.audience.Waits``): the entries
    # that redraw it on the GM's socket. A system that says nothing redraws it on every one.
    gm_waits: ClassVar[Waits] = ALL_WAITS
    # Whether a point of Luck may fuel an ability of an item or a power, outside a roll (stars,
    # STR-14): ``spend({"luck": 1})`` pays for it.
    luck_for_abilities: ClassVar[bool] = False
    # The GM's call for a roll from the session page, in the roll form's field names: what the
    # GM picks for each character from that character's sheet (``call_traits``), what is
    # needed, the same for everyone (``call_needs``), and what the player may still add when
    # answering (``call_extras``: an Iconic Item, a helper...).
    call_traits: ClassVar[tuple[str, ...]] = ()
    call_needs: ClassVar[tuple[str, ...]] = ()
    call_extras: ClassVar[tuple[str, ...]] = ()

    # -- where its templates are ---------------------------------------------------------------
    @property
    def templates_dir(self) -> Path:
        """``templates/`` beside the module that defines the adapter."""
        return Path(inspect.getfile(type(self))).parent / "templates"

    def template(self, name: str) -> str:
        """The name of one of its ``TEMPLATES``: "tables/sixes/odds.html"."""
        return f"tables/{self.slug}/{name}.html"

    @property
    def sheet_form_template(self) -> str:
        return self.template("sheet_form")

    @property
    def sheet_template(self) -> str:
        return self.template("sheet")

    @property
    def resources_template(self) -> str:
        return self.template("resources")

    @property
    def roll_form_template(self) -> str:
        return self.template("roll_form")

    @property
    def odds_template(self) -> str:
        return self.template("odds")

    @property
    def rules_template(self) -> str:
        return self.template("rules")

    # -- the rules at the table ------------------------------------------------------------------
    @abstractmethod
    def pool(self, character: Character, data: Mapping[str, Any]) -> tuple[dict[str, Any], str]:
        """The engine request for the roll form's ``engine_data()`` (with ``helper``: whether
        a helper was named) and a label for the card ("Mind + Comprehend")."""

    @abstractmethod
    def odds_context(self, system: E, request: R, label: str) -> dict[str, Any]:
        """The context of ``odds.html`` for a parsed request."""

    def check_can_roll(self, character: Character) -> None:
        """Raise RulesError when the character may not roll now. Anyone may, by default."""
        return None

    def resources(self, character: Character, *, latest: bool) -> dict[str, Any]:
        """What the engine may spend for this character (Luck, Pride...), and ``latest``:
        whether the roll is its character's newest. Nothing, by default."""
        return {}

    def spend(self, character: Character, costs: Mapping[str, Any]) -> list[str]:
        """Spend ``Applied.costs`` on the locked character; the caller saves. Returns the
        fields changed. A system without resources pays for nothing."""
        if costs:
            raise RulesError("Nothing on this sheet pays for that.")
        return []

    def new_character(self, character: Character) -> None:
        """Fill the resources of a character being created (not saved yet). None, by default."""
        return None

    def on_new_session(self, character: Character) -> list[str]:
        """What a new play session refills on a locked character; the fields changed."""
        return []

    def on_sheet_change(self, character: Character, before: Mapping[str, Any], *, by_gm: bool) -> list[str]:
        """Guard an edited sheet (``character.sheet`` is the new one, ``before`` the old one):
        raise RulesError to refuse it; returns the fields changed besides the sheet."""
        return []

    def sheet_view(self, character: Character) -> dict[str, Any]:
        """Values about a character that its templates show and cannot compute themselves
        (``{{ character|sheet_view }}``): the stars Luck maximum, say."""
        return {}
