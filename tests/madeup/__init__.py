"""A made-up dice system, built from the pieces ``docs/architecture.md`` says a new system
needs and nothing else: an engine module (``engine.py``), a table package (this one: the
adapter, its forms, its templates) and one registration. ``tests/test_new_system.py`` plays
it at the table.

"Fives": roll as many dice as the Knack on the sheet; each 5 or 6 is a success; a failed
roll may be rerolled once for one Grit point."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django import forms

from rolls.systems import RulesError
from rolls.systems.base import get_int, percent
from rolls.tables.base import Clock, Correction, TableAdapter, unchanged
from rolls.tables.forms import RollFormBase
from tabletop.models import Character
from tests.madeup.engine import Fives, FivesRequest


class FivesSheetForm(forms.Form):
    name = forms.CharField(max_length=60)
    knack = forms.IntegerField(min_value=1, max_value=6, initial=3)

    def to_sheet(self) -> dict[str, Any]:
        return {"knack": self.cleaned_data["knack"]}

    @classmethod
    def initial_from(cls, name: str, sheet: dict[str, Any]) -> dict[str, Any]:
        return {"name": name, "knack": sheet.get("knack")}


class FivesRollForm(RollFormBase):
    bonus = forms.IntegerField(min_value=0, max_value=3, initial=0, required=False)

    def engine_data(self) -> dict[str, Any]:
        return {"bonus": self.cleaned_data.get("bonus") or 0}


class FivesTable(TableAdapter[Fives, FivesRequest]):
    slug = "fives"
    sheet_form = FivesSheetForm
    roll_form = FivesRollForm
    roll_initial = {"bonus": 0}
    story = Clock("New Tale", "Tale {n} begins.", unchanged)
    # Grit lives in the luck column: a new system may use the columns the table has.
    corrections = (Correction("luck", "Grit", 3),)

    def pool(self, character: Character, data: Mapping[str, Any]) -> tuple[dict[str, Any], str]:
        bonus = get_int(data, "bonus", "The bonus", 0, 3, default=0)
        return {"dice": character.sheet["knack"] + bonus}, "Knack"

    def resources(self, character: Character, *, latest: bool) -> dict[str, Any]:
        return {"grit": character.luck}

    def spend(self, character: Character, costs: Mapping[str, Any]) -> list[str]:
        if "grit" not in costs:
            return super().spend(character, costs)
        if character.luck < costs["grit"]:
            raise RulesError("No Grit left.")
        character.luck -= costs["grit"]
        return ["luck"]

    def new_character(self, character: Character) -> None:
        character.luck = 3

    def odds_context(self, system: Fives, request: FivesRequest, label: str) -> dict[str, Any]:
        return {"trait": label, "dice": request.dice, "chance": percent(system.chance(request))}
