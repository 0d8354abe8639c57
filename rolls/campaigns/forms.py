"""Forms of the table that are the same for every dice system: a new campaign, and the GM's
corrections of a character's resources."""

from __future__ import annotations

from typing import Any, cast

from django import forms

from rolls import registry
from rolls.tables.base import Correction
from tabletop.models import Character, DiceMode
from tabletop.text import visible_name


class CampaignForm(forms.Form):
    name = forms.CharField(label="Campaign name", max_length=80, validators=[visible_name])
    system = forms.ChoiceField(label="Dice system", widget=forms.RadioSelect)
    dice = forms.ChoiceField(
        label="Who rolls the dice",
        choices=DiceMode.choices,
        initial=DiceMode.DIGITAL,
        required=False,  # a form sent without it (an older page, a script): the app rolls
        widget=forms.RadioSelect,
        help_text="You can change it later from the session page.",
    )
    display_name = forms.CharField(
        label="Your name as GM", max_length=40, initial="GM", validators=[visible_name]
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # Validated against the registry: a new system needs no migration.
        cast(forms.ChoiceField, self.fields["system"]).choices = [
            (system.slug, f"{system.name}: {system.summary}") for system in registry.all_systems()
        ]
        self.fields["system"].initial = registry.slugs()[0]


class CorrectionForm(forms.Form):
    """The GM's direct corrections of a character's resources, one field per adapter entry."""

    def __init__(
        self,
        *args: Any,
        corrections: tuple[Correction, ...],
        character: Character | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(*args, **kwargs)
        for correction in corrections:
            field = forms.IntegerField(label=correction.label, min_value=0, max_value=correction.maximum)
            if character is not None and correction.limit is not None:
                # The page shows this character's own limit; the service enforces it, by name.
                most, why = correction.limit(character)
                field.widget.attrs["max"] = str(most)
                field.help_text = f"At most {most} ({why})."
            self.fields[correction.field] = field


class LuckForAbilityForm(forms.Form):
    """STR-14: which ability of an item or a power the point of Luck fuels, in a few words."""

    ability = forms.CharField(
        label="Which ability?",
        max_length=80,
        validators=[visible_name],
        help_text="The item's or power's ability",
    )
