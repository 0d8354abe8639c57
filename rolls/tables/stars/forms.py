"""`stars` forms: the sheet (Stats, Skills with their training, Edges) and the roll form.

The sheet is stored as ``{"stats": {"Vigor": 2, ...}, "skills": {"Aim": "untrained", ...},
"edges": {"Charmed Life": "basic", ...}}`` (only the Edges the hero has). Luck is not on the
sheet: it is the character's ``luck`` column, changed only by the rules and the GM's clocks.
"""

from __future__ import annotations

import re
from typing import Any

from django import forms
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from rolls.systems.stars import (
    EDGE_RATING_NAMES,
    EDGE_RATINGS,
    EDGES,
    MAX_DICE,
    MIN_DICE,
    RATINGS,
    SKILLS,
    STATS,
    TRAINING_DIFFICULTY,
    TRAINING_NAMES,
    TRAININGS,
)
from rolls.tables.forms import RollFormBase, SheetFormBase

DEFAULT_STAT = 2  # Average
DEFAULT_TRAINING = "untrained"
ADVANTAGES = (
    ("disadvantage", gettext_lazy("Disadvantage")),
    ("none", gettext_lazy("Neither")),
    ("advantage", gettext_lazy("Advantage")),
)


def key_of(name: str) -> str:
    """A form field's name for a Skill or an Edge: "Dodge!" -> "dodge", "Tough as Nails" ->
    "tough_as_nails"."""
    return re.sub(r"[^a-z]+", "_", name.lower()).strip("_")


class StarsSheetForm(SheetFormBase):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        for stat in STATS:
            self.fields[stat.lower()] = forms.IntegerField(
                label=_(stat), min_value=MIN_DICE, max_value=MAX_DICE, initial=DEFAULT_STAT
            )
        for skill in SKILLS:
            self.fields[f"skill_{key_of(skill)}"] = forms.ChoiceField(
                label=_(skill),
                choices=[(training, _(TRAINING_NAMES[training])) for training in TRAININGS],
                initial=DEFAULT_TRAINING,
            )
        for edge in EDGES:
            self.fields[f"edge_{key_of(edge)}"] = forms.ChoiceField(
                label=_(edge),
                choices=[("", "—"), *((rating, _(EDGE_RATING_NAMES[rating])) for rating in EDGE_RATINGS)],
                required=False,
            )

    def stat_fields(self) -> list[forms.BoundField]:
        return [self[stat.lower()] for stat in STATS]

    def skill_fields(self) -> list[forms.BoundField]:
        return [self[f"skill_{key_of(skill)}"] for skill in SKILLS]

    def edge_fields(self) -> list[forms.BoundField]:
        return [self[f"edge_{key_of(edge)}"] for edge in EDGES]

    def to_sheet(self) -> dict[str, Any]:
        data = self.cleaned_data
        return {
            "stats": {stat: data[stat.lower()] for stat in STATS},
            "skills": {skill: data[f"skill_{key_of(skill)}"] for skill in SKILLS},
            "edges": {edge: data[f"edge_{key_of(edge)}"] for edge in EDGES if data[f"edge_{key_of(edge)}"]},
        }

    @classmethod
    def initial_from(cls, name: str, sheet: dict[str, Any]) -> dict[str, Any]:
        initial: dict[str, Any] = {"name": name}
        for stat in STATS:
            initial[stat.lower()] = sheet.get("stats", {}).get(stat)
        for skill in SKILLS:
            initial[f"skill_{key_of(skill)}"] = sheet.get("skills", {}).get(skill, DEFAULT_TRAINING)
        for edge in EDGES:
            initial[f"edge_{key_of(edge)}"] = sheet.get("edges", {}).get(edge, "")
        return initial


class StarsRollForm(RollFormBase):
    """One tap picks the Stat, one more a Skill that helps (its training sets the difficulty);
    a d3 has its own button and needs neither."""

    standing = ("stat", "skill")

    stat = forms.ChoiceField(
        label=gettext_lazy("Stat"),
        choices=[(stat, gettext_lazy(stat)) for stat in STATS],
        required=False,
    )
    skill = forms.ChoiceField(label=gettext_lazy("Skill"), required=False)
    advantage = forms.ChoiceField(
        label=gettext_lazy("Advantage or disadvantage"), choices=ADVANTAGES, initial="none", required=False
    )
    # Sent by the d3 button only; the Roll button rolls a test.
    kind = forms.ChoiceField(
        label=gettext_lazy("Kind"),
        choices=[("test", gettext_lazy("A test")), ("d3", gettext_lazy("A d3"))],
        required=False,
    )

    def __init__(self, *args: Any, character: Any, **kwargs: Any) -> None:
        super().__init__(*args, character=character, **kwargs)
        skill = self.fields["skill"]
        assert isinstance(skill, forms.ChoiceField)
        skill.choices = [("", _("No skill")), *((name, _(name)) for name in SKILLS)]

    def stat_rows(self) -> list[tuple[str, int, str]]:
        """(Stat, rating, the rating's word) for one-tap choices."""
        stats = self.character.sheet["stats"]
        return [(stat, stats[stat], _(RATINGS[stats[stat]])) for stat in STATS]

    def skill_rows(self) -> dict[str, list[tuple[str, str, int]]]:
        """(Skill, training, difficulty): the trained Skills, most trained first, and the rest."""
        trainings = self.character.sheet.get("skills", {})
        rows: dict[str, list[tuple[str, str, int]]] = {"trained": [], "untrained": []}
        for skill in sorted(SKILLS, key=lambda s: -TRAININGS.index(trainings.get(s, DEFAULT_TRAINING))):
            training = trainings.get(skill, DEFAULT_TRAINING)
            group = "untrained" if training == DEFAULT_TRAINING else "trained"
            rows[group].append((skill, _(TRAINING_NAMES[training]), TRAINING_DIFFICULTY[training]))
        return rows

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        if data.get("kind") != "d3" and not data.get("stat") and "stat" not in self.errors:
            raise forms.ValidationError(_("Choose a Stat to roll."))
        return data

    def engine_data(self) -> dict[str, Any]:
        data = self.cleaned_data
        if data.get("kind") == "d3":
            return {"kind": "d3"}
        return {
            "kind": "test",
            "stat": data["stat"],
            "skill": data.get("skill") or "",
            "advantage": data.get("advantage") or "none",
        }
