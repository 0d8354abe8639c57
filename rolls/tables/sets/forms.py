"""The `sets` character sheet and roll form.

The sheet holds the derived stats, each a name and a number of dice (see the adapter's
docstring for the default list), and free notes on the abilities and sorcery that give
bonus dice. The roll form picks a stat by name, so a GM's call for a roll means the same stat
on every sheet.
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.utils.text import format_lazy
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from rolls.systems.sets import BAR_LEVELS, MAX_ASSISTS, MAX_BONUS, MAX_LESSER_ASSISTS, MAX_PENALTY
from rolls.systems.words import N_
from rolls.tables.forms import RollFormBase, SheetFormBase

# A new sheet's stats, named in the table's language when the form is drawn.
DEFAULT_STATS = [
    (N_("Might"), 3),
    (N_("Finesse"), 3),
    (N_("Insight"), 3),
    (N_("Resolve"), 3),
    (N_("Presence"), 3),
]
STAT_ROWS = len(DEFAULT_STATS)
MIN_STAT = 1
MAX_STAT = 10
OPPOSED = "opposed"
ROLLED = "rolled"
BAR_CHOICES: list[tuple[str, Any]] = [
    (str(size), format_lazy(gettext_lazy("{name} (Size {size})"), name=gettext_lazy(name), size=size))
    for size, name in BAR_LEVELS.items()
]
BAR_CHOICES.append((OPPOSED, gettext_lazy("Opposed (no Bar)")))
FACE_CHOICES: list[tuple[str, Any]] = [
    (ROLLED, gettext_lazy("Rolled by the server")),
    *((str(face), str(face)) for face in range(1, 7)),
]
SIDE_CHOICES = [("attacker", gettext_lazy("Attacker")), ("defender", gettext_lazy("Defender"))]


class SetsSheetForm(SheetFormBase):
    notes = forms.CharField(
        label=gettext_lazy("Abilities and sorcery"),
        max_length=300,
        required=False,
        widget=forms.Textarea(attrs={"rows": 3}),
        help_text=gettext_lazy("What gives bonus dice when it applies; the Judge decides how many."),
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        for i, (name, dice) in enumerate(DEFAULT_STATS):
            self.fields[f"stat_{i}_name"] = forms.CharField(
                label=_("Stat %(number)d") % {"number": i + 1}, max_length=30, initial=_(name)
            )
            # "Dice" on screen, beside its name; the whole name for a screen reader.
            self.fields[f"stat_{i}_dice"] = forms.IntegerField(
                label=_("Dice"),
                min_value=MIN_STAT,
                max_value=MAX_STAT,
                initial=dice,
                widget=forms.NumberInput(attrs={"aria-label": _("Stat %(number)d dice") % {"number": i + 1}}),
            )

    def stat_rows(self) -> list[tuple[forms.BoundField, forms.BoundField]]:
        return [(self[f"stat_{i}_name"], self[f"stat_{i}_dice"]) for i in range(STAT_ROWS)]

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        seen: set[str] = set()
        for i in range(STAT_ROWS):
            name = (data.get(f"stat_{i}_name") or "").strip()
            if name and name.lower() in seen:
                self.add_error(
                    f"stat_{i}_name",
                    _("Two stats are called %(name)s; give each its own name.") % {"name": name},
                )
            seen.add(name.lower())
        return data

    def to_sheet(self) -> dict[str, Any]:
        data = self.cleaned_data
        return {
            "stats": [
                {"name": data[f"stat_{i}_name"].strip(), "dice": data[f"stat_{i}_dice"]}
                for i in range(STAT_ROWS)
            ],
            "notes": data["notes"].strip(),
        }

    @classmethod
    def initial_from(cls, name: str, sheet: dict[str, Any]) -> dict[str, Any]:
        initial: dict[str, Any] = {"name": name, "notes": sheet.get("notes", "")}
        for i, stat in enumerate(sheet.get("stats", [])[:STAT_ROWS]):
            initial[f"stat_{i}_name"] = stat["name"]
            initial[f"stat_{i}_dice"] = stat["dice"]
        return initial


class SetsRollForm(RollFormBase):
    """One tap picks the stat; steppers for bonuses, penalties and help; the Bar in one tap."""

    standing = ("stat",)

    stat = forms.ChoiceField(label=gettext_lazy("Stat"), widget=forms.RadioSelect)
    bonus = forms.IntegerField(
        label=gettext_lazy("Bonus dice"), min_value=0, max_value=MAX_BONUS, required=False, initial=0
    )
    penalty = forms.IntegerField(
        label=gettext_lazy("Penalty dice"), min_value=0, max_value=MAX_PENALTY, required=False, initial=0
    )
    assists = forms.IntegerField(
        label=gettext_lazy("Significant helpers"),
        min_value=0,
        max_value=MAX_ASSISTS,
        required=False,
        initial=0,
    )
    lesser_assists = forms.IntegerField(
        label=gettext_lazy("Lesser helpers"),
        min_value=0,
        max_value=MAX_LESSER_ASSISTS,
        required=False,
        initial=0,
    )
    bar = forms.ChoiceField(
        label=gettext_lazy("Bar"), choices=BAR_CHOICES, widget=forms.RadioSelect, initial="2"
    )
    face = forms.ChoiceField(
        label=gettext_lazy("The Bar's Face"), choices=FACE_CHOICES, initial=ROLLED, required=False
    )
    side = forms.ChoiceField(
        label=gettext_lazy("In an opposed roll"), choices=SIDE_CHOICES, initial="attacker", required=False
    )

    def __init__(self, *args: Any, character: Any, **kwargs: Any) -> None:
        super().__init__(*args, character=character, **kwargs)
        stats = character.sheet.get("stats", [])
        self.fields["stat"].choices = [(s["name"], s["name"]) for s in stats]  # type: ignore[attr-defined]
        if stats:
            self.fields["stat"].initial = stats[0]["name"]

    def stat_choices(self) -> list[tuple[str, int, bool]]:
        """(name, dice, picked) for each stat of the sheet, for a grid of one-tap choices."""
        picked = str(self["stat"].value() or "")
        return [(s["name"], s["dice"], s["name"] == picked) for s in self.character.sheet.get("stats", [])]

    def bar_options(self) -> list[tuple[str, str, str, bool]]:
        """(value, name, what it needs, picked) for each Bar and the opposed roll."""
        picked = str(self["bar"].value() or "")
        options = [
            (str(size), _(name), _("Size %(size)d") % {"size": size}, str(size) == picked)
            for size, name in BAR_LEVELS.items()
        ]
        options.append((OPPOSED, _("Opposed"), _("no Bar"), picked == OPPOSED))
        return options

    def engine_data(self) -> dict[str, Any]:
        data = self.cleaned_data
        return {
            "stat": data["stat"],
            "bonus": data.get("bonus") or 0,
            "penalty": data.get("penalty") or 0,
            "assists": data.get("assists") or 0,
            "lesser_assists": data.get("lesser_assists") or 0,
            "bar": data["bar"],
            "face": data.get("face") or ROLLED,
            "side": data.get("side") or "attacker",
        }
