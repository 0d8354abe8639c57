"""`kinds` forms: the sheet (Fields and their Skills, in Diamonds) and the roll form.

The sheet is stored as ``{"fields": {"Action": 2, ...}, "skills": [{"name": "Athletics",
"field": "Action", "diamonds": 1}, ...]}``; the choices behind it are in ``rolls.tables.kinds``.
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from rolls.systems.kinds import GRADES, LEVELS, MAX_DICE, MAX_STEPS
from rolls.systems.words import N_
from rolls.tables.forms import RollFormBase, SheetFormBase

# The document names one Field (Knowledge) and one Skill (First Aid); the rest is ours, and
# every Skill can be renamed on the sheet.
# The Fields are the sheet's keys, kept in English and translated where drawn.
FIELDS = (N_("Action"), N_("Knowledge"), N_("Social"), N_("Survival"))
DEFAULT_SKILLS: dict[str, tuple[str, ...]] = {
    "Action": (N_("Athletics"), N_("Drive"), N_("Fight"), N_("Shoot")),
    "Knowledge": (N_("First Aid"), N_("History"), N_("Languages"), N_("Science")),
    "Social": (N_("Charm"), N_("Deceive"), N_("Insight"), N_("Intimidate")),
    "Survival": (N_("Climb"), N_("Notice"), N_("Stealth"), N_("Track")),
}
SKILLS_PER_FIELD = 4
# A Field has at least one Diamond (so every Skill rolls at least one die) and a Skill and its
# Field together never pass the nine dice a roll may have.
MIN_FIELD, MAX_FIELD = 1, 5
MAX_SKILL = MAX_DICE - MAX_FIELD
DEFAULT_FIELD, DEFAULT_SKILL = 2, 1
SLOTS = [(field, index) for field in FIELDS for index in range(SKILLS_PER_FIELD)]


def skill_key(field: str, index: int) -> str:
    return f"skill_{field.lower()}_{index}"


class KindsSheetForm(SheetFormBase):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        for field in FIELDS:
            self.fields[field.lower()] = forms.IntegerField(
                label=_("%(field)s Diamonds") % {"field": _(field)},
                min_value=MIN_FIELD,
                max_value=MAX_FIELD,
                initial=DEFAULT_FIELD,
            )
        for field, index in SLOTS:
            key = skill_key(field, index)
            # A new sheet's Skills are named in the table's language.
            default = _(DEFAULT_SKILLS[field][index])
            self.fields[f"{key}_name"] = forms.CharField(
                label=_("%(field)s Skill %(number)d") % {"field": _(field), "number": index + 1},
                max_length=40,
                initial=default,
            )
            self.fields[f"{key}_diamonds"] = forms.IntegerField(
                label=_("%(skill)s Diamonds") % {"skill": default},
                min_value=0,
                max_value=MAX_SKILL,
                initial=DEFAULT_SKILL,
            )

    def field_rows(self) -> list[dict[str, Any]]:
        """Per Field: its Diamonds and its Skills (name, Diamonds), for the template."""
        return [
            {
                "name": _(field),
                "field": self[field.lower()],
                "skills": [
                    (self[f"{skill_key(field, i)}_name"], self[f"{skill_key(field, i)}_diamonds"])
                    for i in range(SKILLS_PER_FIELD)
                ],
            }
            for field in FIELDS
        ]

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        names = [str(data.get(f"{skill_key(f, i)}_name", "")).strip().lower() for f, i in SLOTS]
        named = [name for name in names if name]
        if len(named) != len(set(named)):
            raise forms.ValidationError(_("Two Skills have the same name; give each Skill its own."))
        return data

    def to_sheet(self) -> dict[str, Any]:
        data = self.cleaned_data
        return {
            "fields": {field: data[field.lower()] for field in FIELDS},
            "skills": [
                {
                    "name": data[f"{skill_key(field, i)}_name"].strip(),
                    "field": field,
                    "diamonds": data[f"{skill_key(field, i)}_diamonds"],
                }
                for field, i in SLOTS
            ],
        }

    @classmethod
    def initial_from(cls, name: str, sheet: dict[str, Any]) -> dict[str, Any]:
        initial: dict[str, Any] = {"name": name}
        for field in FIELDS:
            initial[field.lower()] = sheet.get("fields", {}).get(field)
        by_field: dict[str, list[dict[str, Any]]] = {}
        for skill in sheet.get("skills", []):
            by_field.setdefault(skill["field"], []).append(skill)
        for field, index in SLOTS:
            skills = by_field.get(field, [])
            if index < len(skills):
                initial[f"{skill_key(field, index)}_name"] = skills[index]["name"]
                initial[f"{skill_key(field, index)}_diamonds"] = skills[index]["diamonds"]
        return initial


def step_label(net: int) -> str:
    """-2, 0, +1: how the stepper and the odds name a net Advantage."""
    return f"{net:+d}" if net else "0"


class KindsRollForm(RollFormBase):
    """One tap picks the Skill (its Field comes with it); the Challenge and the Fortune Master's
    Advantage or Disadvantage are one tap each."""

    standing = ("trait",)

    trait = forms.ChoiceField(label=gettext_lazy("Skill"), widget=forms.RadioSelect)
    level = forms.ChoiceField(
        label=gettext_lazy("Challenge"),
        choices=[(level, gettext_lazy(GRADES[grade])) for grade, level in enumerate(LEVELS) if grade],
        initial="basic",
    )
    net = forms.TypedChoiceField(
        label=gettext_lazy("Advantage or Disadvantage"),
        coerce=int,
        choices=[(net, step_label(net)) for net in range(-MAX_STEPS, MAX_STEPS + 1)],
        initial=0,
        required=False,
    )
    other_field = forms.ChoiceField(label=gettext_lazy("In another Field"), required=False)
    danger = forms.BooleanField(
        label=gettext_lazy("This Challenge is a Danger: an Accident can hurt"), required=False
    )

    def __init__(self, *args: Any, character: Any, **kwargs: Any) -> None:
        super().__init__(*args, character=character, **kwargs)
        skills = character.sheet.get("skills", [])
        trait, other_field = self.fields["trait"], self.fields["other_field"]
        assert isinstance(trait, forms.ChoiceField) and isinstance(other_field, forms.ChoiceField)
        trait.choices = [(f"skill-{i}", skill["name"]) for i, skill in enumerate(skills)]
        other_field.choices = [("", _("Own Field")), *((f, _(f)) for f in FIELDS)]

    def skill_rows(self) -> list[dict[str, Any]]:
        """Per Field: its Diamonds and its Skills as (value, name, Diamonds, dice), for a grid of
        one-tap choices."""
        sheet = self.character.sheet
        rows = []
        for field in FIELDS:
            diamonds = sheet["fields"][field]
            skills = [
                (f"skill-{i}", skill["name"], skill["diamonds"], diamonds + skill["diamonds"])
                for i, skill in enumerate(sheet.get("skills", []))
                if skill["field"] == field
            ]
            # ``name``: the Field in the table's language (``field`` is the sheet's key).
            rows.append({"field": field, "name": _(field), "diamonds": diamonds, "skills": skills})
        return rows

    def engine_data(self) -> dict[str, Any]:
        data = self.cleaned_data
        return {
            "skill": data["trait"].removeprefix("skill-"),
            "field": data.get("other_field") or "",
            "level": data["level"],
            "net": data.get("net") or 0,
            "danger": bool(data.get("danger")),
        }
