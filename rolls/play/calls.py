"""The GM's call for a roll from the session page: tick the characters, pick each one's trait
from that character's own sheet, say what is needed once for everyone, and why.

Each table's roll form does the checking: a character's values are that character's roll
form bound to the shared fields and its own, prefixed ones (``c12-trait``), so a trait that
is not on that sheet is refused as the roll screen refuses it, and the engine checks the
pool before anyone is asked. Which fields are whose is the adapter's ``call_traits`` and
``call_needs``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from django import forms
from django.http import QueryDict
from django.utils.translation import gettext as _

from rolls import registry
from rolls.systems import RulesError
from tabletop.access import MAX_ID
from tabletop.models import Campaign, Character

INTENT_MAX = 200


def prefix_of(character: Character) -> str:
    return f"c{character.pk}"


@dataclass(frozen=True)
class CallRow:
    """One character on the call form: its tick box and its own trait fields."""

    character: Character
    traits: list[forms.BoundField]


class CallBuilder:
    """The session page's call form (unbound, for the page) and its parsing (``parse``)."""

    def __init__(self, campaign: Campaign) -> None:
        self.campaign = campaign
        self.adapter = registry.table(campaign.system)
        self.characters = list(campaign.characters.order_by("name", "pk"))

    def rows(self) -> list[CallRow]:
        rows = []
        for character in self.characters:
            form = self.adapter.roll_form(
                character=character, initial=self.adapter.roll_initial, prefix=prefix_of(character)
            ).compacted()
            traits = [name for name in self.adapter.call_traits if name in form.fields]
            for name in traits:
                # Read out alone, "Roll" would not say whose: "Ada's roll".
                form.fields[name].label = _("%(name)s's %(field)s") % {
                    "name": character.name,
                    "field": str(form.fields[name].label).lower(),
                }
            rows.append(CallRow(character, [form[name] for name in traits]))
        return rows

    def needs(self) -> list[forms.BoundField]:
        """The fields that say what is needed, the same for everyone asked."""
        if not self.characters:
            return []
        form = self.adapter.roll_form(
            character=self.characters[0], initial=self.adapter.roll_initial
        ).compacted()
        return [form[name] for name in self.adapter.call_needs if name in form.fields]

    def parse(self, post: QueryDict) -> Parsed:
        """The characters ticked, each one's roll form values and label, the shared values and
        the intent; RulesError names the character and what is wrong, and nothing is asked."""
        ids = {int(v) for v in post.getlist("ask") if v.isdecimal() and 0 < int(v) <= MAX_ID}
        asked = [c for c in self.characters if c.pk in ids]
        if not asked:
            raise RulesError(_("Tick at least one character to ask."))
        intent = post.get("intent", "").strip()
        if len(intent) > INTENT_MAX:
            raise RulesError(_("Say what they try in at most %(max)s characters.") % {"max": INTENT_MAX})
        shared = _values(post, self.adapter.call_needs, "")
        per_character: dict[int, tuple[dict[str, Any], str]] = {}
        system = registry.engine(self.campaign.system)
        for character in asked:
            data = {**shared, **_values(post, self.adapter.call_traits, f"{prefix_of(character)}-")}
            form = self.adapter.roll_form(as_query(data), character=character)
            if not form.is_valid():
                raise RulesError(
                    _("For %(name)s: %(errors)s") % {"name": character.name, "errors": form.errors_text()}
                )
            request_data, label = self.adapter.pool(character, {**form.engine_data(), "helper": False})
            try:
                system.parse_request(request_data)
            except RulesError as error:
                raise RulesError(
                    _("For %(name)s: %(errors)s") % {"name": character.name, "errors": error}
                ) from error
            per_character[character.pk] = (data, label)
        return Parsed(asked, per_character, shared, intent)


@dataclass(frozen=True)
class Parsed:
    characters: list[Character]
    per_character: dict[int, tuple[dict[str, Any], str]]
    shared: dict[str, Any]
    intent: str

    def label(self) -> str:
        """The call's label for the log and the status panel: each different roll once."""
        labels = list(dict.fromkeys(label for _, label in self.per_character.values()))
        return " / ".join(labels)


def _values(post: QueryDict, names: tuple[str, ...], prefix: str) -> dict[str, Any]:
    """The posted values of ``names`` (under ``prefix``): a list where a name came several
    times (ticked Abilities), one value otherwise."""
    values: dict[str, Any] = {}
    for name in names:
        got = post.getlist(prefix + name)
        if len(got) > 1:
            values[name] = got
        elif got:
            values[name] = got[0]
    return values


def as_query(data: Mapping[str, Any]) -> QueryDict:
    """Stored roll form values as a form receives them: a list is a name sent once per value."""
    query = QueryDict(mutable=True)
    for key, value in data.items():
        query.setlist(key, value if isinstance(value, list) else [value])
    return query
