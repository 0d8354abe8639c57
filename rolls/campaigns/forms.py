"""Forms of the table that are the same for every dice system: a new campaign, and the GM's
corrections of a character's resources."""

from __future__ import annotations

from typing import Any, cast

from django import forms
from django.conf import settings
from django.utils import translation
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from rolls import registry
from rolls.tables.base import Correction
from tabletop import language as languages
from tabletop.models import Character, DiceMode
from tabletop.text import visible_name


class CampaignForm(forms.Form):
    name = forms.CharField(label=gettext_lazy("Campaign name"), max_length=80, validators=[visible_name])
    system = forms.ChoiceField(label=gettext_lazy("Dice system"), widget=forms.RadioSelect)
    dice = forms.ChoiceField(
        label=gettext_lazy("Who rolls the dice"),
        choices=DiceMode.choices,
        initial=DiceMode.DIGITAL,
        required=False,  # a form sent without it (an older page, a script): the app rolls
        widget=forms.RadioSelect,
        help_text=gettext_lazy("You can change it later from the session page."),
    )
    # Each language in its own words; the GM's own (the browser's) first chosen.
    language = forms.ChoiceField(
        label=gettext_lazy("The table's language"),
        choices=settings.LANGUAGES,
        required=False,  # a form sent without it (an older page, a script): English
        help_text=gettext_lazy(
            "Every page, card and log text of the table is in it. You can change it later."
        ),
    )
    display_name = forms.CharField(
        # Translators: "GM" is the game master's title at the table (the glossary's GM).
        label=gettext_lazy("Your name as GM"),
        max_length=40,
        initial=gettext_lazy("GM"),
        validators=[visible_name],
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # Validated against the registry: a new system needs no migration.
        cast(forms.ChoiceField, self.fields["system"]).choices = [
            (system.slug, f"{system.name}: {system.summary}") for system in registry.all_systems()
        ]
        self.fields["system"].initial = registry.slugs()[0]
        current = translation.get_language()
        self.fields["language"].initial = current if languages.shipped(current) else settings.LANGUAGE_CODE

    def clean_language(self) -> str:
        return self.cleaned_data["language"] or settings.LANGUAGE_CODE


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
                field.help_text = _("At most %(most)s (%(why)s).") % {"most": most, "why": why}
            self.fields[correction.field] = field


class LuckForAbilityForm(forms.Form):
    """STR-14: which ability of an item or a power the point of Luck fuels, in a few words."""

    ability = forms.CharField(
        label=gettext_lazy("Which ability?"),
        max_length=80,
        validators=[visible_name],
        help_text=gettext_lazy("The item's or power's ability"),
    )
