"""Small helpers that build users, campaigns, members, characters and whole tables for tests,
and sign them in. No framework. The scripted dice live in tests/dice.py (no Django there, for
the engine tests) and are named here too, so a view test finds every helper in one place."""

from __future__ import annotations

import itertools
import random
from dataclasses import dataclass
from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser
from django.test import Client

from rolls import registry
from rolls.campaigns import services
from rolls.models import Roll
from rolls.play import services as roll_services
from rolls.play.formdata import form_baseline as form_baseline
from rolls.play.formdata import npc_baseline as npc_baseline
from rolls.play.formdata import posted as posted
from rolls.play.npc import NpcRollForm
from rolls.systems.sixes import ATTRIBUTES, CONDITIONS, DEFAULT_SKILLS
from rolls.views import confirm
from tabletop.models import Campaign, Character, Membership
from tests.dice import Script as Script
from tests.dice import ScriptedDice as ScriptedDice

_numbers = itertools.count(1)
PASSWORD = "correct-horse-battery"
# What a control that asks first posts once the GM has answered its question (rolls.views.confirm).
CONFIRMED = {confirm.FIELD: confirm.CONFIRMED}


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


@dataclass
class Table:
    """A campaign with a GM, a player with a character, and an outsider, session open."""

    campaign: Campaign
    gm: AbstractBaseUser
    player: AbstractBaseUser
    outsider: AbstractBaseUser
    character: Character


def table(
    system: str = "sixes",
    *,
    campaign_name: str = "The Loop",
    character_name: str = "Olle",
    sheet: dict[str, Any] | None = None,
) -> Table:
    """A table of ``system`` ready to roll. ``sheet`` is the character's (the default is a
    sixes sheet, so any other system passes its own)."""
    gm = user("gm")
    player = user("player")
    outsider = user("outsider")
    made = campaign(gm, name=campaign_name, system=system)
    member(made, player, name="Player")
    if sheet is None:
        hero = character(made, player, name=character_name)
    else:
        hero = services.character_create(campaign=made, owner=player, name=character_name, sheet=sheet)
    services.session_start(campaign=made, actor=gm)
    hero.refresh_from_db()
    return Table(made, gm, player, outsider, hero)


def logged_in(user: object) -> Client:
    """A test client signed in as ``user``, without a password (nothing to hash)."""
    client = Client()
    client.force_login(user)  # type: ignore[arg-type]
    return client


# -- form data: form_baseline, posted and npc_baseline live in rolls/play/formdata.py (the demo uses them)


# -- any system: a sheet, a roll and its follow-ups --------------------------------------------------


def sheet_of(system: str, name: str = "Olle") -> dict[str, Any]:
    """A realistic sheet of ``system``: its sheet form as it starts, filled in."""
    form_class = registry.table(system).sheet_form
    form = form_class(posted({**form_baseline(form_class()), "name": name}))
    assert form.is_valid(), (system, form.errors)
    return form.to_sheet()


def roll_data(system: str, character: Character) -> dict[str, Any]:
    adapter = registry.table(system)
    return form_baseline(adapter.roll_form(character=character, initial=adapter.roll_initial))


def a_roll(system: str, character: Character, roller: AbstractBaseUser) -> Roll:
    form = registry.table(system).roll_form(posted(roll_data(system, character)), character=character)
    assert form.is_valid(), form.errors
    for seed in range(20):  # a roll whose result offers follow-ups, when some seed gives one
        roll = roll_services.roll_create(
            character=character,
            roller=roller,  # type: ignore[arg-type]
            data=form.engine_data(),
            helper=None,
            intent="",
            rng=random.Random(seed),
        )
        if offered(roll):
            break
    return roll


def an_npc_roll(campaign: Campaign, gm: AbstractBaseUser, target: Character) -> Roll:
    form = NpcRollForm(posted(npc_baseline(campaign)), campaign=campaign)
    assert form.is_valid(), form.errors
    return roll_services.npc_roll_create(
        campaign=campaign,
        gm=gm,  # type: ignore[arg-type]
        name="Goon",
        request=form.engine_request(),
        secret=False,
        target=target,
        intent="",
        rng=random.Random(1),
    )


def offered(roll: Roll) -> list[Any]:
    """The follow-ups the engine offers on a roll now, whoever may pay for them."""
    roll.refresh_from_db()
    state = roll.entries.order_by("-seq").first().state  # type: ignore[union-attr]
    resources: dict[str, Any] = {}
    if roll.character is not None:
        resources = registry.table(roll.system).resources(roll.character, latest=True)
    return list(registry.engine(roll.system).follow_ups(state, resources))
