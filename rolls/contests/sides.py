"""One side of a contest as it is chosen: a character and its roll form's values, or someone
without a sheet. The services take ``Side`` (``rolls.contests.services``); the pages draw a
character's side with its own roll fields (``side_row``) and read them back (``side_data``).

Each character's roll is chosen with that character's own roll form (its trait fields and
what the call form asks of everyone, ``call_traits`` and ``call_needs``, and what a side may add,
``side_extras``), under a prefix of
its own (``s12-stat``), so a trait that is not on the sheet is refused as the roll screen
refuses it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from django import forms
from django.http import QueryDict
from django.utils.translation import gettext as _

from rolls import registry
from rolls.models import Contest
from rolls.play.calls import as_query
from rolls.systems import RulesError
from tabletop.models import Character

CONTEST = Contest.Kind.CONTEST.value


@dataclass(frozen=True)
class Side:
    """One side as the contest is opened: a character and its roll form's values, or someone
    without a sheet (``character`` None), its name and the engine's request data."""

    character: Character | None
    data: Mapping[str, Any]
    name: str = ""


def side_prefix(character: Character) -> str:
    return f"s{character.pk}"


@dataclass(frozen=True)
class SideRow:
    """A character as a side can be chosen: its own roll fields."""

    character: Character
    fields: list[forms.BoundField]


# The attribute that names the kinds of flow a side's field does nothing in (space-separated);
# the stylesheet hides the field while the GM's form has one of them chosen.
UNUSED_IN = "data-unused-in"


def side_row(character: Character, kinds: Sequence[str] = (CONTEST,), *, place: str = "") -> SideRow:
    """``character``'s roll fields for a side of a flow of any of ``kinds`` (the form's kind
    choices): a field that every one of them fixes (``TableAdapter.contest_fixed``) is left
    out, one that only some fix is marked ``data-unused-in`` with those kinds. ``place``: a
    word for its fields' ids where one page holds several rows of the same character (the
    challenge form and an extended action's board on one phone): the names stay the same."""
    adapter = registry.table(character.campaign.system)
    form = adapter.roll_form(
        character=character,
        initial=adapter.roll_initial,
        prefix=side_prefix(character),
        auto_id=f"id_{place}-%s" if place else "id_%s",
    ).compacted()
    fixed = {kind: adapter.contest_fixed(kind) for kind in kinds}
    names = [
        name
        for name in (*adapter.call_traits, *adapter.call_needs, *adapter.side_extras)
        if name in form.fields and any(name not in values for values in fixed.values())
    ]
    for name in names:
        form.fields[name].label = _("%(name)s's %(field)s") % {
            "name": character.name,
            "field": str(form.fields[name].label).lower(),
        }
        unused = [kind for kind, values in fixed.items() if name in values]
        if unused:
            form.fields[name].widget.attrs[UNUSED_IN] = " ".join(unused)
    return SideRow(character, [form[name] for name in names])


def side_values(
    character: Character, post: QueryDict, fixed: Mapping[str, Any] | None = None
) -> dict[str, Any]:
    """A character's roll form values under its prefix, checked by its roll form, with the
    values ``fixed`` for it (a contest's); RulesError names the character and what is wrong."""
    adapter = registry.table(character.campaign.system)
    prefix = f"{side_prefix(character)}-"
    data: dict[str, Any] = {}
    for name in (*adapter.call_traits, *adapter.call_needs, *adapter.side_extras):
        got = post.getlist(prefix + name)
        if len(got) > 1:
            data[name] = got
        elif got:
            data[name] = got[0]
    data.update(fixed or {})
    form = adapter.roll_form(as_query(data), character=character)
    if not form.is_valid():
        raise RulesError(
            _("For %(name)s: %(errors)s") % {"name": character.name, "errors": form.errors_text()}
        )
    return {**form.engine_data(), "helper": False}


def side_data(character: Character, post: QueryDict, kind: str = CONTEST) -> dict[str, Any]:
    """A character's roll form values for its side of a flow of ``kind``, with what that kind
    fixes written over what was posted, checked by its roll form and the engine; RulesError
    names the character and what is wrong."""
    adapter = registry.table(character.campaign.system)
    values = side_values(character, post, adapter.contest_fixed(kind))
    system = registry.engine(character.campaign.system)
    try:
        request_data, _trait = adapter.pool(character, values)
        system.contest_request(system.parse_request(request_data))
    except RulesError as error:
        raise RulesError(_("For %(name)s: %(errors)s") % {"name": character.name, "errors": error}) from error
    return values
