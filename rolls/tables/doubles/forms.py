"""The `doubles` character sheet and roll form.

The sheet keeps Abilities and Weaknesses as named levels (rows left without a name are
dropped) and the maximum Endurance; the current Endurance and the part spent on drama dice are
columns on ``Character``, changed only by the rules and the GM's controls. The roll form
ticks the Abilities and Weaknesses that apply by name, so a GM's call for a roll means the
same trait on every sheet that has it.
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.utils.text import format_lazy
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from rolls.systems.doubles import DIFFICULTIES, MAX_HELPERS, MAX_LEVEL, MAX_SITUATIONAL
from rolls.systems.words import N_
from rolls.tables.forms import RollFormBase, SheetFormBase
from tabletop.models import Character

ABILITY_ROWS = 5
WEAKNESS_ROWS = 3
# A new sheet's traits, named in the table's language when the form is drawn.
DEFAULT_ABILITIES = [
    (N_("Athletics"), 1),
    (N_("Fighting"), 1),
    (N_("Notice"), 1),
    (N_("Persuasion"), 1),
    (N_("Connected"), 1),
]
DEFAULT_WEAKNESSES = [(N_("Reckless"), 1)]
DEFAULT_ENDURANCE = 30  # one miracle, or six drama dice
MAX_ENDURANCE = 200
OPPOSED = "opposed"
DN_CHOICES: list[tuple[str, Any]] = [
    (str(dn), format_lazy("{} ({})", gettext_lazy(name), dn)) for name, dn in DIFFICULTIES.items()
]
DN_CHOICES.append((OPPOSED, gettext_lazy("Opposed roll")))

# The two kinds of rows: (form prefix, label, sheet key, rows, defaults).
KINDS = (
    ("ability", N_("Ability"), "abilities", ABILITY_ROWS, DEFAULT_ABILITIES),
    ("weakness", N_("Weakness"), "weaknesses", WEAKNESS_ROWS, DEFAULT_WEAKNESSES),
)
# What the sheet form says of a row, by kind: whole sentences (a trait's gender differs).
ROW_TEXTS = {
    "ability": {
        "row": N_("Ability %(number)d"),
        "level": N_("Ability %(number)d level"),
        "unnamed": N_("Give this Ability a name, or set its level to 0."),
        "twice": N_("Two Ability rows are called %(name)s."),
    },
    "weakness": {
        "row": N_("Weakness %(number)d"),
        "level": N_("Weakness %(number)d level"),
        "unnamed": N_("Give this Weakness a name, or set its level to 0."),
        "twice": N_("Two Weakness rows are called %(name)s."),
    },
}


def endurance_max(sheet: dict[str, Any]) -> int:
    return int(sheet.get("endurance_max", DEFAULT_ENDURANCE))


class DoublesSheetForm(SheetFormBase):
    endurance_max = forms.IntegerField(
        label=gettext_lazy("Endurance"),
        min_value=0,
        max_value=MAX_ENDURANCE,
        initial=DEFAULT_ENDURANCE,
        help_text=format_lazy(gettext_lazy("0 to {}: the most the character can have"), MAX_ENDURANCE),
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        for prefix, _label, _key, rows, defaults in KINDS:
            texts = ROW_TEXTS[prefix]
            for i in range(rows):
                default_name, default_level = defaults[i] if i < len(defaults) else ("", 0)
                self.fields[f"{prefix}_{i}_name"] = forms.CharField(
                    label=_(texts["row"]) % {"number": i + 1},
                    max_length=40,
                    required=False,
                    initial=_(default_name) if default_name else "",
                )
                # "Level" on screen, beside its name; the whole name for a screen reader.
                self.fields[f"{prefix}_{i}_level"] = forms.IntegerField(
                    label=_("Level"),
                    min_value=0,
                    max_value=MAX_LEVEL,
                    initial=default_level,
                    widget=forms.NumberInput(attrs={"aria-label": _(texts["level"]) % {"number": i + 1}}),
                )

    # Rows for the template, so it can lay the sheet out without knowing the field names.
    def _rows(self, prefix: str, rows: int) -> list[tuple[forms.BoundField, forms.BoundField]]:
        return [(self[f"{prefix}_{i}_name"], self[f"{prefix}_{i}_level"]) for i in range(rows)]

    def ability_rows(self) -> list[tuple[forms.BoundField, forms.BoundField]]:
        return self._rows("ability", ABILITY_ROWS)

    def weakness_rows(self) -> list[tuple[forms.BoundField, forms.BoundField]]:
        return self._rows("weakness", WEAKNESS_ROWS)

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        for prefix, _label, _key, rows, _defaults in KINDS:
            texts = ROW_TEXTS[prefix]
            seen: set[str] = set()
            for i in range(rows):
                name = (data.get(f"{prefix}_{i}_name") or "").strip()
                level = data.get(f"{prefix}_{i}_level")
                if not name and level:
                    self.add_error(f"{prefix}_{i}_name", _(texts["unnamed"]))
                elif name and name.lower() in seen:
                    self.add_error(f"{prefix}_{i}_name", _(texts["twice"]) % {"name": name})
                seen.add(name.lower())
        return data

    def to_sheet(self) -> dict[str, Any]:
        data = self.cleaned_data
        sheet: dict[str, Any] = {"endurance_max": data["endurance_max"]}
        for prefix, _label, key, rows, _defaults in KINDS:
            sheet[key] = [
                {"name": data[f"{prefix}_{i}_name"].strip(), "level": data[f"{prefix}_{i}_level"]}
                for i in range(rows)
                if data[f"{prefix}_{i}_name"].strip()
            ]
        return sheet

    @classmethod
    def initial_from(cls, name: str, sheet: dict[str, Any]) -> dict[str, Any]:
        initial: dict[str, Any] = {"name": name, "endurance_max": endurance_max(sheet)}
        for prefix, _label, key, rows, _defaults in KINDS:
            traits = sheet.get(key, [])
            for i in range(rows):
                # Empty rows stay empty: the defaults are for a new sheet only.
                trait = traits[i] if i < len(traits) else {"name": "", "level": 0}
                initial[f"{prefix}_{i}_name"] = trait["name"]
                initial[f"{prefix}_{i}_level"] = trait["level"]
        return initial


def teammates(character: Any) -> list[tuple[int, str]]:
    """(id, name) of the other characters at the character's table: who may team up with it."""
    others = Character.objects.filter(campaign_id=character.campaign_id).exclude(pk=character.pk)
    return list(others.order_by("name", "pk").values_list("pk", "name"))


class DoublesRollForm(RollFormBase):
    """Tick what applies; steppers for the situation; the Difficulty Number in one tap."""

    # What the character brings to its rolls; the Difficulty, the situation and help are one roll's.
    standing = ("abilities", "weaknesses")

    abilities = forms.MultipleChoiceField(
        label=gettext_lazy("Abilities that apply"), required=False, widget=forms.CheckboxSelectMultiple
    )
    weaknesses = forms.MultipleChoiceField(
        label=gettext_lazy("Weaknesses in the way"), required=False, widget=forms.CheckboxSelectMultiple
    )
    bonus = forms.IntegerField(
        label=gettext_lazy("Bonus dice"), min_value=0, max_value=MAX_SITUATIONAL, required=False, initial=0
    )
    penalty = forms.IntegerField(
        label=gettext_lazy("Penalty dice"), min_value=0, max_value=MAX_SITUATIONAL, required=False, initial=0
    )
    # DBL-14: the helpers are named, among the other characters at this table (``pool``
    # counts them and the card names them); the engine's bare count stays for the GM's quick
    # roll and the command line, where nobody has a sheet.
    helpers = forms.MultipleChoiceField(
        label=gettext_lazy("Teaming up: who helps"), required=False, widget=forms.CheckboxSelectMultiple
    )
    dn = forms.ChoiceField(
        label=gettext_lazy("Difficulty"), choices=DN_CHOICES, widget=forms.RadioSelect, initial="4"
    )
    degree_matters = forms.BooleanField(
        label=gettext_lazy("The degree of success matters (an attack...)"), required=False
    )
    declaration = forms.BooleanField(
        label=gettext_lazy("A declaration: success makes it something the character can do"), required=False
    )

    def __init__(self, *args: Any, character: Any, **kwargs: Any) -> None:
        super().__init__(*args, character=character, **kwargs)
        sheet = character.sheet
        for key in ("abilities", "weaknesses"):
            self.fields[key].choices = [(t["name"], t["name"]) for t in sheet.get(key, [])]  # type: ignore[attr-defined]
        # The query only when the choices are drawn or a helper is sent: most rolls send none.
        if not self.is_bound or self.data.get(self.add_prefix("helpers")):
            self.fields["helpers"].choices = [  # type: ignore[attr-defined]
                (str(pk), name) for pk, name in teammates(character)
            ]

    def clean_helpers(self) -> list[str]:
        helpers = list(self.cleaned_data.get("helpers") or [])
        if len(helpers) > MAX_HELPERS:
            raise forms.ValidationError(
                _("At most %(count)d characters help one leader (DBL-14).") % {"count": MAX_HELPERS}
            )
        return helpers

    def helper_ticks(self) -> list[tuple[str, str, bool]]:
        """(value, name, ticked) for each character who could help, for one-tap chips."""
        ticked = {str(value) for value in (self["helpers"].value() or [])}
        return [(value, str(name), value in ticked) for value, name in self.fields["helpers"].choices]  # type: ignore[attr-defined]

    def _ticks(self, key: str) -> list[tuple[str, int, bool]]:
        """(name, level, ticked) for each trait of the sheet, for a grid of one-tap choices."""
        ticked = {str(value) for value in (self[key].value() or [])}
        return [(t["name"], t["level"], t["name"] in ticked) for t in self.character.sheet.get(key, [])]

    def ability_ticks(self) -> list[tuple[str, int, bool]]:
        return self._ticks("abilities")

    def weakness_ticks(self) -> list[tuple[str, int, bool]]:
        return self._ticks("weaknesses")

    def dn_options(self) -> list[tuple[str, str, str, bool]]:
        """(value, name, number, picked) for each Difficulty Number and the opposed roll."""
        picked = str(self["dn"].value() or "")
        options = [(str(dn), _(name), str(dn), str(dn) == picked) for name, dn in DIFFICULTIES.items()]
        options.append((OPPOSED, _("Opposed roll"), "", picked == OPPOSED))
        return options

    def engine_data(self) -> dict[str, Any]:
        data = self.cleaned_data
        return {
            "abilities": list(data.get("abilities") or []),
            "weaknesses": list(data.get("weaknesses") or []),
            "bonus": data.get("bonus") or 0,
            "penalty": data.get("penalty") or 0,
            "helpers": [int(pk) for pk in data.get("helpers") or []],
            "dn": data["dn"],
            "degree_matters": bool(data.get("degree_matters")),
            "declaration": bool(data.get("declaration")),
        }
