"""A sixth system is one engine module, one table package and one line in the registry
(docs/architecture.md, "One system, one place"). The made-up "Fives" of tests/madeup is built
from exactly those pieces, and here a GM and a player play it through the real views: the
campaign form offers it, its sheet and roll form and odds come from its package, its rules
page shows its own odds table, its follow-up spends from the sheet, and the command line
knows it."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from django.core.management import call_command
from django.urls import reverse

from rolls import registry
from rolls.models import LogEntry, Roll
from tabletop.models import Campaign, Character
from tests import factories
from tests.factories import Script
from tests.madeup import FivesTable
from tests.madeup.engine import system as fives


@pytest.fixture
def registered() -> Iterator[None]:
    registry.register(fives, FivesTable())  # the one line a new system adds to the registry
    yield
    registry.unregister("fives")


@pytest.mark.usefixtures("registered")
def test_a_made_up_system_plays_at_the_table_from_its_own_pieces(db: None, dice: Script, capsys) -> None:
    gm = factories.user("gm")
    gm_client = factories.logged_in(gm)
    form = gm_client.get(reverse("rolls:campaign-new")).content.decode()
    assert "Fives: Fives and sixes succeed" in form
    response = gm_client.post(
        reverse("rolls:campaign-new"), {"name": "Dusk", "system": "fives", "display_name": "GM"}
    )
    campaign = Campaign.objects.get(name="Dusk")
    assert campaign.system == "fives"
    assert response.status_code == 302
    gm_client.post(reverse("rolls:session-start", args=[campaign.pk]))
    assert "New Tale" in gm_client.get(reverse("rolls:session", args=[campaign.pk])).content.decode()

    player = factories.user("player")
    player_client = factories.logged_in(player)
    player_client.post(reverse("rolls:join", args=[campaign.join_token]), {"display_name": "Ash"})
    sheet_form = player_client.get(reverse("rolls:character-new", args=[campaign.pk])).content.decode()
    assert "Knack" in sheet_form
    player_client.post(reverse("rolls:character-new", args=[campaign.pk]), {"name": "Wren", "knack": 3})
    wren = Character.objects.get(campaign=campaign, name="Wren")
    assert (wren.sheet, wren.luck) == ({"knack": 3}, 3)  # the adapter filled its Grit

    screen = player_client.get(reverse("rolls:character", args=[campaign.pk, wren.pk])).content.decode()
    assert "Bonus" in screen and "Grit 3" in screen
    odds = player_client.get(
        reverse("rolls:odds", args=[campaign.pk, wren.pk]), {"bonus": 1}
    ).content.decode()
    assert "Knack: 4 dice, 80%" in odds  # 1 - (2/3)^4 = 65/81

    dice(1, 2, 3, 4)
    # A plain POST, as without JavaScript: the roll screen again, the result on it.
    path = reverse("rolls:roll-create", args=[campaign.pk, wren.pk])
    rolled = player_client.post(path, {"bonus": 1}, follow=True)
    assert rolled.status_code == 200
    assert "No success" in rolled.content.decode() and "Reroll" in rolled.content.decode()
    roll = Roll.objects.get(character=wren)

    dice(5, 1, 1, 1)
    rerolled = player_client.post(
        reverse("rolls:follow-up", args=[campaign.pk, roll.pk]), {"action": "reroll"}, follow=True
    )
    assert rerolled.status_code == 200
    assert "1 success" in rerolled.content.decode()
    wren.refresh_from_db()
    assert wren.luck == 2
    assert list(LogEntry.objects.filter(roll=roll).values_list("action", flat=True)) == ["roll", "reroll"]

    rules = player_client.get(reverse("rolls:rules-system", args=["fives"])).content.decode()
    assert "<h1>Fives</h1>" in rules and "Chance of a success" in rules
    call_command("odds", "fives", "--dice", "2")
    assert "56%" in capsys.readouterr().out  # 1 - (2/3)^2 = 5/9


def test_a_system_is_not_at_the_table_until_it_is_registered(db: None) -> None:
    gm_client = factories.logged_in(factories.user("gm"))
    response = gm_client.post(
        reverse("rolls:campaign-new"), {"name": "Dusk", "system": "fives", "display_name": "GM"}
    )
    assert response.status_code == 200
    assert "Select a valid choice" in response.content.decode()
    assert not Campaign.objects.exists()


def test_the_registry_refuses_a_table_package_without_its_templates() -> None:
    class Bare(FivesTable):
        slug = "bare"

    class BareEngine(type(fives)):  # type: ignore[misc]
        slug = "bare"

    with pytest.raises(
        ValueError, match="no template for: sheet_form, sheet, resources, roll_form, odds, rules"
    ):
        registry.register(BareEngine(), Bare())
    assert "bare" not in registry.slugs()
