"""The `sixes` character sheet and roll form.

The sheet form validates every trait against the rules' bounds, so a sheet in the database
is always one the rules engine can roll from. The roll form picks the trait in one tap.
"""

from __future__ import annotations

from typing import Any, cast

from django import forms
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from rolls.systems.sixes import ATTRIBUTES, CONDITIONS, DEFAULT_SKILLS, MAX_AGE, MIN_AGE, luck_max
from rolls.tables.forms import RollFormBase, SheetFormBase
from tabletop.models import Character

SKILL_SLOTS = [(attribute, i) for attribute in ATTRIBUTES for i in range(3)]


def skill_field(attribute: str, index: int) -> str:
    return f"skill_{attribute.lower()}_{index}"


class SixesSheetForm(SheetFormBase):
    age = forms.IntegerField(
        label=gettext_lazy("Age"),
        min_value=MIN_AGE,
        max_value=MAX_AGE,
        initial=12,
        help_text=gettext_lazy("10 to 15"),
    )
    item = forms.CharField(label=gettext_lazy("Iconic item"), max_length=80, required=False)
    pride = forms.CharField(label=gettext_lazy("Pride"), max_length=120, required=False)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        for attribute in ATTRIBUTES:
            self.fields[attribute.lower()] = forms.IntegerField(
                label=_(attribute), min_value=1, max_value=5, initial=2
            )
        for attribute, index in SKILL_SLOTS:
            field = skill_field(attribute, index)
            self.fields[f"{field}_name"] = forms.CharField(
                label=_("%(attribute)s skill %(number)d") % {"attribute": _(attribute), "number": index + 1},
                max_length=40,
                # A new sheet's skills are named in the table's language.
                initial=_(DEFAULT_SKILLS[attribute][index]),
            )
            self.fields[f"{field}_level"] = forms.IntegerField(
                label=_("%(skill)s level") % {"skill": _(DEFAULT_SKILLS[attribute][index])},
                min_value=0,
                max_value=5,
                initial=0,
            )
        for condition in CONDITIONS:
            self.fields[f"condition_{condition.lower()}"] = forms.BooleanField(
                label=_(condition), required=False
            )

    # Groups for the template, so it can lay the sheet out without knowing the field names.
    def attribute_rows(self) -> list[dict[str, Any]]:
        rows = []
        for attribute in ATTRIBUTES:
            skills = [
                (self[f"{skill_field(attribute, i)}_name"], self[f"{skill_field(attribute, i)}_level"])
                for i in range(3)
            ]
            rows.append({"field": self[attribute.lower()], "skills": skills})
        return rows

    def condition_fields(self) -> list[forms.BoundField]:
        return [self[f"condition_{condition.lower()}"] for condition in CONDITIONS]

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        names = [data.get(f"{skill_field(a, i)}_name", "").strip().lower() for a, i in SKILL_SLOTS]
        if len([n for n in names if n]) != len(set(n for n in names if n)):
            raise forms.ValidationError(_("Two skills have the same name; give each skill its own."))
        return data

    def to_sheet(self) -> dict[str, Any]:
        data = self.cleaned_data
        return {
            "age": data["age"],
            "attributes": {a: data[a.lower()] for a in ATTRIBUTES},
            "skills": [
                {
                    "name": data[f"{skill_field(a, i)}_name"].strip(),
                    "attribute": a,
                    "level": data[f"{skill_field(a, i)}_level"],
                }
                for a, i in SKILL_SLOTS
            ],
            "item": data["item"].strip(),
            "pride": data["pride"].strip(),
            "conditions": {c: bool(data[f"condition_{c.lower()}"]) for c in CONDITIONS},
        }

    @classmethod
    def initial_from(cls, name: str, sheet: dict[str, Any]) -> dict[str, Any]:
        initial: dict[str, Any] = {
            "name": name,
            "age": sheet.get("age"),
            "item": sheet.get("item", ""),
            "pride": sheet.get("pride", ""),
        }
        for attribute in ATTRIBUTES:
            initial[attribute.lower()] = sheet.get("attributes", {}).get(attribute)
        by_attribute: dict[str, list[dict[str, Any]]] = {}
        for skill in sheet.get("skills", []):
            by_attribute.setdefault(skill["attribute"], []).append(skill)
        for attribute, index in SKILL_SLOTS:
            skills = by_attribute.get(attribute, [])
            if index < len(skills):
                initial[f"{skill_field(attribute, index)}_name"] = skills[index]["name"]
                initial[f"{skill_field(attribute, index)}_level"] = skills[index]["level"]
        for condition, checked in sheet.get("conditions", {}).items():
            initial[f"condition_{condition.lower()}"] = checked
        return initial


def unchecked_conditions(sheet: dict[str, Any]) -> list[str]:
    conditions = sheet.get("conditions", {})
    return [c for c in CONDITIONS if not conditions.get(c)]


def sixes_luck_max(sheet: dict[str, Any]) -> int:
    return luck_max(int(sheet["age"]))


class HelperField(forms.ModelChoiceField):
    """Each friend as "Kim helps": the closed list says what it chose without a label beside it
    (the phone has no room for one; a screen reader hears the field's own label)."""

    def label_from_instance(self, obj: Character) -> str:
        return _("%(name)s helps") % {"name": obj.name}


class SixesRollForm(RollFormBase):
    """One tap picks the trait: an attribute alone, or a skill (which brings its attribute)."""

    standing = ("trait",)

    trait = forms.ChoiceField(label=gettext_lazy("Roll"), widget=forms.RadioSelect)
    item = forms.BooleanField(label=gettext_lazy("Iconic item (+2 dice)"), required=False)
    # Its queryset is set in __init__, and only when it is needed (see there).
    helper: forms.ModelChoiceField[Character] = HelperField(
        queryset=None,
        required=False,
        label=gettext_lazy("A friend helps (+1 die)"),
        widget=forms.Select(attrs={"aria-describedby": "helper-hint"}),
    )
    need = forms.TypedChoiceField(
        label=gettext_lazy("Successes needed"), coerce=int, choices=[(1, "1"), (2, "2"), (3, "3")], initial=1
    )
    threat = forms.BooleanField(label=gettext_lazy("The Trouble threatens a Condition"), required=False)
    group = forms.BooleanField(
        label=gettext_lazy("Group Trouble: every kid faces it, nobody helps"), required=False
    )

    def __init__(self, *args: Any, character: Character, **kwargs: Any) -> None:
        super().__init__(*args, character=character, **kwargs)
        sheet = character.sheet
        choices = [(a, _("%(attribute)s alone") % {"attribute": _(a)}) for a in ATTRIBUTES]
        choices += [(f"skill-{i}", s["name"]) for i, s in enumerate(sheet.get("skills", []))]
        cast(forms.ChoiceField, self.fields["trait"]).choices = choices
        # The other characters at the table: listed when the form is shown, looked up when a
        # helper is sent. Most rolls send none, and building the query was a quarter of the
        # form's cost on the roll path (bench/load.py, profiled); unbuilt, the field has no
        # queryset to copy, and an empty choice cleans to None without one.
        helper = cast("forms.ModelChoiceField[Character]", self.fields["helper"])
        if not self.is_bound or self.data.get(self.add_prefix("helper")):
            helper.queryset = Character.objects.filter(campaign_id=character.campaign_id).exclude(
                pk=character.pk
            )
        helper.empty_label = _("Nobody helps")
        if sheet.get("item"):
            self.fields["item"].label = _("%(item)s (+2 dice)") % {"item": sheet["item"]}
        else:
            del self.fields["item"]

    def trait_rows(self) -> list[dict[str, Any]]:
        """Per attribute: its score and its skills, as (value, name, level, pool), for a grid of
        one-tap choices."""
        sheet = self.character.sheet
        rows = []
        for attribute in ATTRIBUTES:
            score = sheet["attributes"][attribute]
            skills = [
                (f"skill-{i}", s["name"], s["level"], score + s["level"])
                for i, s in enumerate(sheet.get("skills", []))
                if s["attribute"] == attribute
            ]
            # ``name``: the attribute in the table's language (``attribute`` is the sheet's key).
            rows.append({"attribute": attribute, "name": _(attribute), "score": score, "skills": skills})
        return rows

    def engine_data(self) -> dict[str, Any]:
        data = self.cleaned_data
        trait: str = data["trait"]
        skill = ""
        attribute = trait
        if trait.startswith("skill-"):
            skill = trait.removeprefix("skill-")
            attribute = self.character.sheet["skills"][int(skill)]["attribute"]
        return {
            "attribute": attribute,
            "skill": skill,
            "item": bool(data.get("item")),
            "need": data["need"],
            "threat": bool(data.get("threat")),
            "group": bool(data.get("group")),
        }
