"""Small helpers that build campaigns, members and characters for tests. No framework."""

from __future__ import annotations

import itertools
from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser

from rolls import campaigns as services
from rolls.systems.sixes import ATTRIBUTES, CONDITIONS, DEFAULT_SKILLS
from tabletop.models import Campaign, Character, Membership

_numbers = itertools.count(1)
PASSWORD = "correct-horse-battery"


def user(name: str | None = None) -> AbstractBaseUser:
    name = name or f"user{next(_numbers)}"
    return get_user_model().objects.create_user(username=name, password=PASSWORD, first_name=name.title())


def campaign(
    gm: AbstractBaseUser | None = None, *, name: str = "The Loop", system: str = "sixes"
) -> Campaign:
    return services.campaign_create(gm=gm or user(), name=name, system=system, display_name="GM")


def member(
    campaign: Campaign, player: AbstractBaseUser | None = None, *, name: str | None = None
) -> Membership:
    player = player or user()
    return services.member_join(campaign=campaign, user=player, display_name=name or player.get_username())


def sixes_sheet(**overrides: Any) -> dict[str, Any]:
    sheet: dict[str, Any] = {
        "age": 12,
        "attributes": {a: 3 for a in ATTRIBUTES},
        "skills": [
            {"name": name, "attribute": attribute, "level": 1}
            for attribute in ATTRIBUTES
            for name in DEFAULT_SKILLS[attribute]
        ],
        "item": "Walkie-talkie",
        "pride": "I never give up",
        "conditions": {c: False for c in CONDITIONS},
    }
    sheet.update(overrides)
    return sheet


def character(campaign: Campaign, owner: AbstractBaseUser, *, name: str = "Olle", **sheet: Any) -> Character:
    return services.character_create(campaign=campaign, owner=owner, name=name, sheet=sixes_sheet(**sheet))


def sixes_sheet_form(name: str = "Olle", **overrides: Any) -> dict[str, Any]:
    """The POST data of the sixes sheet form, with sensible values."""
    data: dict[str, Any] = {"name": name, "age": 12, "item": "Walkie-talkie", "pride": "I never give up"}
    for attribute in ATTRIBUTES:
        data[attribute.lower()] = 3
        for i, skill in enumerate(DEFAULT_SKILLS[attribute]):
            data[f"skill_{attribute.lower()}_{i}_name"] = skill
            data[f"skill_{attribute.lower()}_{i}_level"] = 1
    data.update(overrides)
    return data


class ScriptedDice:
    """A random source that rolls the faces it is given, in order: a test knows every die in
    advance, and rolling more than it scripted fails the test."""

    def __init__(self, *faces: int) -> None:
        self.faces = list(faces)

    def randint(self, a: int, b: int) -> int:
        assert self.faces, "the server rolled more dice than the test scripted"
        return self.faces.pop(0)
