"""Hostile input: random and hostile values posted to every form endpoint never make the
server answer 500, and a rejected request changes nothing."""

from __future__ import annotations

import random
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rolls.models import LogEntry, Roll, RollCall
from rolls.services import roll_create
from tabletop.models import Campaign, Character, Membership
from tests.factories import Table

pytestmark = pytest.mark.django_db

HOSTILE = st.one_of(
    st.text(max_size=30),
    st.sampled_from(
        [
            "",
            "0",
            "-1",
            "1e9",
            "99999999999999999999999",
            "nan",
            "inf",
            "1.5",
            "true",
            "null",
            "[]",
            "{}",
            "<script>alert(1)</script>",
            "' OR 1=1 --",
            "\x00",
            "skill-99",
            "skill--1",
            "Body",
            "Broken",
            "2,3",
            "6 6",
        ]
    ),
    st.integers(min_value=-(2**70), max_value=2**70).map(str),
)
FIELDS = [
    "trait",
    "need",
    "item",
    "helper",
    "threat",
    "intent",
    "blind",
    "call",
    "action",
    "condition",
    "count",
    "dice",
    "name",
    "age",
    "body",
    "tech",
    "heart",
    "mind",
    "luck",
    "endurance",
    "drama_spent",
    "place",
    "flag_dice",
    "flag_need",
    "secret",
    "target",
    "also",
    "display_name",
    "system",
    "username",
    "password1",
    "password2",
    "new_password1",
    "new_password2",
    "effect",
    "size",
    "face",
    "kind",
]
FORMS = st.dictionaries(st.sampled_from(FIELDS), HOSTILE, max_size=8)
ENDPOINTS = [
    "rolls:roll-create",
    "rolls:follow-up",
    "rolls:npc-roll",
    "rolls:call-create",
    "rolls:odds",
    "rolls:character-new",
    "rolls:character-edit",
    "rolls:character-correct",
    "rolls:campaign-new",
    "tabletop:signup",
    "tabletop:account",
    "rolls:join",
]


def state() -> tuple[Any, ...]:
    """Everything a rejected request must leave as it was."""
    return (
        LogEntry.objects.count(),
        Roll.objects.count(),
        RollCall.objects.count(),
        Campaign.objects.count(),
        Membership.objects.count(),
        sorted(
            Character.objects.values_list("pk", "name", "luck", "endurance", "drama_spent", "pride_used_in")
        ),
        sorted(str(sheet) for sheet in Character.objects.values_list("sheet", flat=True)),
    )


def url_for(name: str, table: Table, roll_id: int) -> str:
    campaign, character = table.campaign.pk, table.character.pk
    args = {
        "rolls:roll-create": [campaign, character],
        "rolls:follow-up": [campaign, roll_id],
        "rolls:npc-roll": [campaign],
        "rolls:call-create": [campaign, character],
        "rolls:odds": [campaign, character],
        "rolls:character-new": [campaign],
        "rolls:character-edit": [campaign, character],
        "rolls:character-correct": [campaign, character],
        "rolls:campaign-new": [],
        "tabletop:signup": [],
        "tabletop:account": [],
        "rolls:join": [table.campaign.join_token],
    }[name]
    return reverse(name, args=args)


@pytest.mark.parametrize("name", ENDPOINTS)
@pytest.mark.parametrize("who", ["gm", "player"])
def test_hostile_values_never_crash_and_a_refusal_changes_nothing(
    table: Table, name: str, who: str, settings_override: None
) -> None:
    made = roll_create(
        character=table.character,
        roller=table.player,
        data={"attribute": "Body"},
        helper=None,
        intent="",
        rng=random.Random(3),
    )
    client = Client()
    client.force_login(table.gm if who == "gm" else table.player)
    url = url_for(name, table, made.pk)

    @settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
    @given(FORMS, st.booleans())
    def attempt(data: dict[str, str], htmx: bool) -> None:
        before = state()
        headers = {"HX-Request": "true"} if htmx else {}
        if name == "rolls:odds":
            response = client.get(url, data, headers=headers)
        else:
            response = client.post(url, data, headers=headers)
        assert response.status_code < 500, (data, response.status_code)
        if response.status_code >= 400 or (
            200 <= response.status_code < 300 and b'class="error' in response.content
        ):
            assert state() == before, data

    attempt()


@pytest.fixture
def settings_override(settings: Any) -> None:
    # Many requests from one user in a few seconds: the rate limits would answer 429 to most.
    settings.RATE_LIMITS = {}
