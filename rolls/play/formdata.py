"""A form's values as POST data: what a form sends as it starts, so that code outside a browser
(the demo campaign, the tests) makes the same requests a phone makes and the same forms check
them."""

from __future__ import annotations

from typing import Any

from django import forms
from django.http import QueryDict
from django.utils.translation import gettext as _

from rolls.play.npc import NpcRollForm
from rolls.systems import RulesError
from tabletop.models import Campaign


def form_baseline(form: forms.Form) -> dict[str, Any]:
    """An unbound form's initial values as POST data: a request the form accepts, so a caller
    can change one field of it and see that field's own refusal (or get past the form)."""
    data: dict[str, Any] = {}
    for name, each in form.fields.items():
        value = form[name].value()
        if isinstance(each, forms.BooleanField):
            if value:
                data[name] = "on"
            continue
        if isinstance(each, forms.MultipleChoiceField):
            if value:
                data[name] = [str(v) for v in value]
            continue
        if value in (None, "") and isinstance(each, forms.ChoiceField):
            value = next((choice for choice, _ in each.choices if choice not in (None, "")), "")  # type: ignore[misc,union-attr]
        if value is None:
            continue
        data[name] = [str(v) for v in value] if isinstance(value, list | tuple) else str(value)
    return data


def posted(data: dict[str, Any]) -> QueryDict:
    """``data`` as a view receives it: a list is a name sent once per value."""
    query = QueryDict(mutable=True)
    for name, value in data.items():
        query.setlist(name, value if isinstance(value, list) else [value])
    return query


def npc_baseline(campaign: Campaign) -> dict[str, Any]:
    """The GM's quick roll as its form starts, with a small number in each flag that has no
    default, one after another, until the engine takes the request (the dice to roll)."""
    form = NpcRollForm(campaign=campaign)
    data = form_baseline(form)
    empty = [
        name
        for name in form.flag_names
        if name not in data and not isinstance(form.fields[name], forms.BooleanField)
    ]
    while True:
        bound = NpcRollForm(posted(data), campaign=campaign)
        if bound.is_valid():
            try:
                bound.engine_request()
            except RulesError:
                pass
            else:
                return data
        if not empty:
            raise RulesError(
                _("No quick roll of %(system)s is accepted: %(errors)s")
                % {"system": campaign.system, "errors": bound.errors_text()}
            )
        data[empty.pop(0)] = "2"
