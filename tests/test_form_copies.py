"""A roll form's fields are copied field by field (tabletop/serving/fields.py), and the forms
come out as Django's deep copy makes them: the same markup, the same checks, and each form's
fields its own."""

from __future__ import annotations

import copy

import pytest
from django import forms
from pytest_django.fixtures import Settings

from rolls import registry
from rolls.play.npc import NpcRollForm
from tabletop.serving.fields import CopiedFields, CopiedFieldsMetaclass, copied_field
from tests import factories
from tests.factories import sheet_of

SYSTEMS = ["sixes", "kinds", "doubles", "sets", "stars"]


def _fast(settings: Settings, on: bool) -> None:
    settings.FAST_PATH = {**settings.FAST_PATH, "form_copies": on}


@pytest.mark.django_db
@pytest.mark.parametrize("system", SYSTEMS)
def test_a_roll_form_draws_and_checks_as_with_djangos_copy(settings: Settings, system: str) -> None:
    sheet = None if system == "sixes" else sheet_of(system)
    table = factories.table(system, sheet=sheet)
    adapter = registry.table(system)
    assert isinstance(adapter.roll_form.base_fields, CopiedFields)
    data = factories.roll_data(system, table.character)
    drawn = {}
    for on in (True, False):
        _fast(settings, on)
        blank = adapter.roll_form(character=table.character, initial=adapter.roll_initial)
        sent = adapter.roll_form(factories.posted(data), character=table.character)
        wrong = adapter.roll_form(factories.posted({**data, "intent": "x" * 201}), character=table.character)
        assert sent.is_valid(), sent.errors
        assert not wrong.is_valid()
        drawn[on] = (str(blank), sent.engine_data(), wrong.errors_text())
    assert drawn[True] == drawn[False]


@pytest.mark.django_db
def test_the_gms_roll_form_draws_as_with_djangos_copy(settings: Settings) -> None:
    table = factories.table()
    drawn = {}
    for on in (True, False):
        _fast(settings, on)
        drawn[on] = str(NpcRollForm(campaign=table.campaign))
    assert drawn[True] == drawn[False]


def test_each_form_changes_only_its_own_fields(settings: Settings) -> None:
    _fast(settings, True)

    class Asked(forms.Form, metaclass=CopiedFieldsMetaclass):
        pick = forms.ChoiceField(
            choices=[("a", "A"), ("b", "B")], widget=forms.RadioSelect(attrs={"class": "x"})
        )
        count = forms.IntegerField(min_value=1, label="How many")

    one, two = Asked(), Asked()
    one.fields["pick"].choices = [("c", "C")]
    one.fields["pick"].widget.attrs["class"] = "y"
    one.fields["count"].label = "Mine"
    one.fields["count"].error_messages["required"] = "Mine too"
    one.fields["count"].validators.append(lambda value: None)
    for untouched in (two.fields, Asked.base_fields):
        assert untouched["pick"].choices == [("a", "A"), ("b", "B")]
        assert untouched["pick"].widget.choices == [("a", "A"), ("b", "B")]
        assert untouched["pick"].widget.attrs == {"class": "x"}
        assert untouched["count"].label == "How many"
        assert untouched["count"].error_messages["required"] == "This field is required."
        assert len(untouched["count"].validators) == 1  # the minimum's
    assert one.fields["pick"].widget.choices == [("c", "C")]


def test_a_field_of_another_kind_is_deep_copied() -> None:
    """A field whose class brings its own deep copy (a multi-value field, a multi-widget) is
    copied as Django copies it: its parts are the copy's own too."""
    field = forms.SplitDateTimeField()
    copied = copied_field(field)
    assert copied is not field
    assert all(a is not b for a, b in zip(copied.fields, field.fields, strict=True))
    assert all(a is not b for a, b in zip(copied.widget.widgets, field.widget.widgets, strict=True))


@pytest.mark.django_db
def test_a_model_choice_field_gets_a_queryset_of_its_own() -> None:
    from tabletop.models import Character

    field = forms.ModelChoiceField(queryset=Character.objects.all())
    copied = copied_field(field)
    assert copied.queryset is not field.queryset
    assert copied.widget.choices.field is copied  # the widget lists the copy's own choices
    assert copy.deepcopy(field).queryset is not field.queryset  # as Django's copy does
