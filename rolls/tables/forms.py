"""Roll forms: which trait, what the character tries, and the choices that change the pool.

``RollFormBase`` holds what every system's roll form asks; each table adapter's form adds
its own system's choices and turns them into ``engine_data()`` for the adapter's ``pool``.
"""

from __future__ import annotations

from typing import Any, cast

from django import forms
from django.utils.translation import gettext, gettext_lazy

from tabletop.models import Character
from tabletop.serving.fields import CopiedFieldsMetaclass
from tabletop.text import visible_name


class SheetFormBase(forms.Form):
    """What every system's sheet form offers the character views, and the character's name,
    the same in each: the whole table sees it."""

    name = forms.CharField(label=gettext_lazy("Name"), max_length=60, validators=[visible_name])

    def to_sheet(self) -> dict[str, Any]:
        """The cleaned form as the character's ``sheet``."""
        raise NotImplementedError(f"{type(self).__name__} does not say how it fills a sheet.")

    @classmethod
    def initial_from(cls, name: str, sheet: dict[str, Any]) -> dict[str, Any]:
        """The form's initial values for a character's ``name`` and ``sheet``."""
        raise NotImplementedError(f"{cls.__name__} does not say how it reads a sheet.")


class RollFormBase(forms.Form, metaclass=CopiedFieldsMetaclass):
    """Built on every roll: each form copies its class's fields one by one, not by ``deepcopy``
    (tabletop/serving/fields.py)."""

    intent = forms.CharField(label=gettext_lazy("What do you try?"), max_length=200, required=False)
    blind = forms.BooleanField(label=gettext_lazy("Roll blind: only the GM sees the result"), required=False)
    call = forms.IntegerField(required=False, min_value=1, max_value=2**63 - 1, widget=forms.HiddenInput)

    # The choices that describe the character rather than this roll (what it rolls with: a
    # trait, a stat, a skill): they stay on the phone's form after a roll, since the next roll
    # is often the same. Every other choice belongs to one roll (what it needs, an advantage,
    # the side of an opposed roll, help, a bonus, rolling blind, the intent) and starts afresh
    # after it (static/js/table.js resets them; the form names these in data-standing).
    standing: tuple[str, ...] = ()

    def __init__(self, *args: Any, character: Character, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.character = character

    def engine_data(self) -> dict[str, Any]:
        """The form's choices in its adapter's terms, for ``TableAdapter.pool`` (each system's
        form defines it; ``rolls.registry.register`` checks that it does)."""
        raise NotImplementedError(f"{type(self).__name__} does not say what it asks the engine for.")

    def errors_text(self) -> str:
        return " ".join(str(error) for errors in self.errors.values() for error in errors)

    def compacted(self) -> RollFormBase:
        """This form drawn for a line per character where a form of several characters stands
        on a phone (the GM's call, a contest's sides, an extended action's roll), able to send
        every choice the character's own form can.

        A single choice drawn as radio buttons becomes a select; an optional one gets a blank
        first option, so "none" stays a choice. A field of several choices (Abilities that
        apply) keeps its tick boxes, drawn in a row (``compact-ticks``): a select would send
        exactly one, and the pool would not be the one the character's own form builds."""
        for field in self.fields.values():
            if isinstance(field.widget, forms.CheckboxSelectMultiple):
                css = field.widget.attrs.get("class", "")
                field.widget.attrs["class"] = f"{css} compact-ticks".strip()
            elif isinstance(field, forms.ChoiceField) and isinstance(field.widget, forms.RadioSelect):
                # Normalised to a list of pairs by the field's setter.
                choices: list[Any] = list(cast("list[tuple[Any, Any]]", field.choices))
                if not field.required and not any(value in ("", None) for value, _ in choices):
                    choices.insert(0, ("", gettext("None")))
                field.widget = forms.Select()
                field.choices = choices  # the setter hands the choices to the new widget
        return self
