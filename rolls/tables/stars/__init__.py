"""The `stars` system at the table: Stat dice, training, advantage, a d3, and Luck.

Table choices where the document leaves room (the engine's own are in rolls/systems/stars.py):

- **A new sheet (STR-13).** Every Stat at 2 (Average), every Skill untrained, no Edges; all
  editable. Edges are recorded at Basic or Advanced; only Charmed Life changes anything here
  (the Luck maximum, ``stars.luck_max``).
- **Luck (STR-11, STR-12)** is the character's ``luck`` column, never a field of the sheet: it
  starts full, a Luck reroll spends one point under the character's row lock (Luck spent
  against a roll comes from the character it is made against), a long rest gives one back up
  to the maximum, a new Adventure fills it, and a play session changes nothing. A sheet edit
  that lowers the maximum (Charmed Life taken away) takes the points above it at once; one
  that raises it gives nothing until the next rest or Adventure.
- **The roll form.** A Stat, and a Skill when one helps: the Skill's training sets the
  difficulty (an untrained Skill only names the roll). Advantage and disadvantage are one
  choice. A d3 is its own one-tap button and ignores the rest of the form. The label is the
  document's own notation: "Vigor (Melee)".
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, cast

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from rolls.systems import RulesError
from rolls.systems.base import get_choice, percent
from rolls.systems.stars import (
    RATINGS,
    SKILLS,
    STATS,
    TRAINING_DIFFICULTY,
    Stars,
    StarsRequest,
    after_long_rest,
    at_new_adventure,
    botch_chance,
    chance_with_luck,
    luck_max,
)
from rolls.tables.base import Clock, Correction, TableAdapter
from rolls.tables.stars.forms import ADVANTAGES, DEFAULT_TRAINING, StarsRollForm, StarsSheetForm
from rolls.tables.waits import Waits
from tabletop.models import Character


def maximum(character: Character) -> int:
    """STR-12: the most Luck this character holds (3, raised by Charmed Life)."""
    return luck_max(character.sheet.get("edges", {}))


def _set_luck(character: Character, luck: int) -> list[str]:
    if character.luck == luck:
        return []
    character.luck = luck
    return ["luck"]


def _new_adventure(character: Character) -> list[str]:
    """STR-12: Luck is full at the start of every Adventure."""
    return _set_luck(character, at_new_adventure(maximum(character)))


def _long_rest(character: Character) -> list[str]:
    """STR-12: a long rest gives one spent point of Luck back, up to the maximum."""
    return _set_luck(character, after_long_rest(character.luck, maximum(character)))


def _luck_limit(character: Character) -> tuple[int, str]:
    """STR-12: the most Luck the GM may set: 3, more with Charmed Life."""
    return maximum(character), _("the Luck maximum, raised only by Charmed Life, STR-12")


class StarsTable(TableAdapter[Stars, StarsRequest]):
    # A roll made against a character offers the GM its Luck against, while it has Luck.
    gm_waits = Waits.AGAINST | Waits.SHEETS
    slug = "stars"
    spent = (("luck", cast("str", gettext_lazy("Luck"))),)
    sheet_form = StarsSheetForm
    roll_form = StarsRollForm
    call_traits = ("stat", "skill")
    call_needs = ("advantage",)
    call_extras = ()
    roll_initial = {"stat": "Vigor", "skill": "", "advantage": "none"}
    story = Clock(
        gettext_lazy("New Adventure"),
        gettext_lazy("Adventure {n} begins. Everyone's Luck is full again."),
        _new_adventure,
    )
    rest = Clock(
        gettext_lazy("Long rest"),
        gettext_lazy("A long rest: everyone gets one point of Luck back, up to their maximum."),
        _long_rest,
    )
    corrections = (Correction("luck", gettext_lazy("Luck points"), 15, limit=lambda c: _luck_limit(c)),)
    luck_for_abilities = True  # STR-14

    def pool(self, character: Character, data: Mapping[str, Any]) -> tuple[dict[str, Any], str]:
        """STR-1, STR-6, STR-10: the engine request and a label ("Agility (Stealth)").

        ``data``: ``kind`` ("test" or "d3"), ``stat`` (Vigor/Agility/Smarts/Presence), ``skill``
        (a Skill's name, or empty for none) and ``advantage`` (none/advantage/disadvantage)."""
        kind = get_choice(data, "kind", _("The kind of roll"), ("test", "d3"), default="test")
        if kind == "d3":
            return {"kind": "d3"}, "d3"
        sheet = character.sheet
        stat = get_choice(data, "stat", _("The Stat"), STATS)
        label = stat
        training = DEFAULT_TRAINING
        if data.get("skill") not in (None, ""):
            skill = get_choice(data, "skill", _("The Skill"), SKILLS)
            training = sheet.get("skills", {}).get(skill, DEFAULT_TRAINING)
            label = f"{_(stat)} ({_(skill)})"
        advantage = get_choice(
            data, "advantage", _("Advantage"), [value for value, _label in ADVANTAGES], default="none"
        )
        request = {
            "kind": "test",
            "dice": sheet["stats"][stat],
            "training": training,
            "advantage": advantage == "advantage",
            "disadvantage": advantage == "disadvantage",
        }
        return request, label

    def resources(self, character: Character, *, latest: bool) -> dict[str, Any]:
        """What Luck may pay for: the roller's own reroll, or one against a roll made at them."""
        return {"luck": character.luck}

    def spend(self, character: Character, costs: Mapping[str, Any]) -> list[str]:
        """Spend what a follow-up costs (``{"luck": 1}``); the caller holds the row lock and saves.
        Returns the fields changed."""
        unknown = set(costs) - {"luck"}
        if unknown:
            raise RulesError(_("Nothing on this sheet pays for that."))
        if "luck" not in costs:
            return []
        if character.luck < costs["luck"]:
            raise RulesError(_("No Luck points left."))
        character.luck -= costs["luck"]
        return ["luck"]

    def new_character(self, character: Character) -> None:
        """A new hero starts with a full Luck pool."""
        character.luck = maximum(character)

    def on_sheet_change(self, character: Character, before: Mapping[str, Any], *, by_gm: bool) -> list[str]:
        """STR-12: Luck never exceeds the maximum, so losing Charmed Life takes the points above the
        new maximum at once. Returns the fields changed besides the sheet."""
        most = maximum(character)
        if character.luck > most:
            return _set_luck(character, most)
        return []

    def sheet_view(self, character: Character) -> dict[str, Any]:
        """STR-12, STR-13, STR-6: the Luck maximum, each Stat's word, each trained Skill's
        difficulty: what the sheet and the resources line show."""
        sheet = character.sheet
        return {
            "luck_max": maximum(character),
            "stats": [
                (name, rating, _(RATINGS[rating]) if rating in RATINGS else "")
                for name, rating in sheet.get("stats", {}).items()
            ],
            "trained": [
                (name, training, TRAINING_DIFFICULTY.get(training, ""))
                for name, training in sheet.get("skills", {}).items()
                if training != "untrained"
            ],
        }

    def odds_context(self, system: Stars, request: StarsRequest, label: str) -> dict[str, Any]:
        """The roll form's odds line: at least one Star, a botch, and Luck after a failure."""
        if request.kind == "d3":
            return {"trait": label, "d3": True}
        return {
            "trait": label,
            "dice": request.dice,
            "difficulty": request.target,
            "chance": percent(system.chance(request)),
            "twice": request.rolls == 2,
            "keep": _("more Stars") if request.keep == "better" else _("fewer Stars"),
            "immune": request.immune,
            "botch": percent(botch_chance(request)),
            "with_luck": percent(chance_with_luck(request)),
        }
