"""Roll forms: which trait, what the character tries, and the choices that change the pool.

``RollFormBase`` holds what every system's roll form asks; each table adapter's form adds
its own system's choices and turns them into ``engine_data()`` for the adapter's ``pool``.
"""

from __future__ import annotations

from typing import Any

from django import forms

from rolls.systems.sixes import ATTRIBUTES
from tabletop.models import Character


class RollFormBase(forms.Form):
    intent = forms.CharField(label="What do you try?", max_length=200, required=False)
    blind = forms.BooleanField(label="Roll blind: only the GM sees the result", required=False)
    call = forms.IntegerField(required=False, min_value=1, max_value=2**63 - 1, widget=forms.HiddenInput)

    def __init__(self, *args: Any, character: Character, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.character = character

    # Each system's form adds ``engine_data() -> dict``: its choices in the adapter's terms.

    def errors_text(self) -> str:
        return " ".join(str(error) for errors in self.errors.values() for error in errors)


class SixesRollForm(RollFormBase):
    """One tap picks the trait: an attribute alone, or a skill (which brings its attribute)."""

    trait = forms.ChoiceField(label="Roll", widget=forms.RadioSelect)
    item = forms.BooleanField(label="Iconic item (+2 dice)", required=False)
    # Its queryset is set in __init__, and only when it is needed (see there).
    helper = forms.ModelChoiceField(queryset=None, required=False, label="A friend helps (+1 die)")
    need = forms.TypedChoiceField(
        label="Successes needed", coerce=int, choices=[(1, "1"), (2, "2"), (3, "3")], initial=1
    )
    threat = forms.BooleanField(label="The Trouble threatens a Condition", required=False)

    def __init__(self, *args: Any, character: Character, **kwargs: Any) -> None:
        super().__init__(*args, character=character, **kwargs)
        sheet = character.sheet
        choices = [(a, f"{a} alone") for a in ATTRIBUTES]
        choices += [(f"skill-{i}", s["name"]) for i, s in enumerate(sheet.get("skills", []))]
        self.fields["trait"].choices = choices
        # The other characters at the table: listed when the form is shown, looked up when a
        # helper is sent. Most rolls send none, and building the query was a quarter of the
        # form's cost on the roll path (bench/load.py, profiled); unbuilt, the field has no
        # queryset to copy, and an empty choice cleans to None without one.
        if not self.is_bound or self.data.get(self.add_prefix("helper")):
            self.fields["helper"].queryset = Character.objects.filter(
                campaign_id=character.campaign_id
            ).exclude(pk=character.pk)
        self.fields["helper"].empty_label = "Nobody"
        if sheet.get("item"):
            self.fields["item"].label = f"{sheet['item']} (+2 dice)"
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
            rows.append({"attribute": attribute, "score": score, "skills": skills})
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
        }
