"""Names the table shows to everyone (a player's, the GM's, a campaign's, a character's, an NPC
roller's) refuse the characters that are not seen: bidirectional overrides, zero-width and
other format characters, controls, private-use and unassigned code points, line separators."""

from __future__ import annotations

import pytest
from django.core.exceptions import ValidationError
from django.test import Client
from django.urls import reverse

from rolls import registry
from rolls.models import Roll
from tabletop.models import Campaign, Character, Membership
from tabletop.text import visible_name
from tests.factories import Table, form_baseline, logged_in, npc_baseline, posted, sixes_sheet_form

INVISIBLE = [
    "\u202eevil",  # right-to-left override: "evil joined the table" drawn backwards
    "ev\u202dil",  # left-to-right override
    "e\u2066vil\u2069",  # isolates
    "ev\u200bil",  # zero-width space
    "ev\u200fil",  # right-to-left mark
    "ev\ufeffil",  # zero-width no-break space
    "ev\u0007il",  # a control character
    "ev\u2028il",  # line separator
    "ev\u2029il",  # paragraph separator
    "ev\ue000il",  # private use
    "ev\u0378il",  # unassigned
]
VISIBLE = ["Åsa Ölund", "李小龍", "O'Brien-Smith", "Dr. No", "Ragnar 🐉", "Zoë"]


@pytest.mark.parametrize("name", INVISIBLE)
def test_visible_name_refuses_characters_nobody_sees_and_says_which(name: str) -> None:
    with pytest.raises(ValidationError) as refused:
        visible_name(name)
    assert "U+" in str(refused.value)


@pytest.mark.parametrize("name", VISIBLE)
def test_visible_name_takes_the_names_people_have(name: str) -> None:
    visible_name(name)


def test_joining_with_a_reversed_name_is_refused_and_joins_nobody(table: Table, client: Client) -> None:
    before = Membership.objects.count()

    response = client.post(
        reverse("rolls:join", args=[table.campaign.join_token]), {"display_name": "\u202eevil"}
    )

    assert response.status_code == 200
    assert "invisible" in response.content.decode()
    assert Membership.objects.count() == before


def test_a_new_campaign_refuses_an_invisible_gm_name_or_campaign_name(table: Table) -> None:
    client = logged_in(table.gm)
    before = Campaign.objects.count()
    for data in (
        {"name": "Night", "system": "sixes", "display_name": "G\u200bM"},
        {"name": "\u202eNight", "system": "sixes", "display_name": "GM"},
    ):
        response = client.post(reverse("rolls:campaign-new"), data)
        assert response.status_code == 200
        assert "invisible" in response.content.decode()
    assert Campaign.objects.count() == before


@pytest.mark.parametrize("system", registry.slugs())
def test_every_sheet_form_refuses_an_invisible_character_name(system: str) -> None:
    form_class = registry.table(system).sheet_form
    form = form_class(posted({**form_baseline(form_class()), "name": "\u202eOlle"}))

    assert not form.is_valid()
    assert "invisible" in str(form.errors["name"])
    assert form_class(posted({**form_baseline(form_class()), "name": "Olle"})).is_valid()


def test_a_character_with_an_invisible_name_is_not_made(table: Table) -> None:
    before = Character.objects.count()
    response = logged_in(table.player).post(
        reverse("rolls:character-new", args=[table.campaign.pk]), sixes_sheet_form(name="Ol\u202ele")
    )

    assert response.status_code == 200
    assert Character.objects.count() == before


def test_the_gms_quick_roll_refuses_an_invisible_roller_name(table: Table) -> None:
    before = Roll.objects.count()
    data = {**npc_baseline(table.campaign), "name": "\u202eGoon"}

    response = logged_in(table.gm).post(reverse("rolls:npc-roll", args=[table.campaign.pk]), data)

    assert response.status_code == 422
    assert "invisible" in response.content.decode()
    assert Roll.objects.count() == before
