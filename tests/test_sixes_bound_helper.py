"""A helper bound to a failed roll (SIX-16): the card tells the helper's phone that they share
the failure, and the GM checks the same Condition for both from the roll's own page, one
sheet-change entry per kid; refused for a roll that did not fail, had no helper, or a kid who
has that Condition already."""

from __future__ import annotations

import html
from typing import Any

import pytest
from channels.db import database_sync_to_async
from django.urls import reverse

from rolls.models import LogEntry, Roll, Visibility
from rolls.play import bound_helper, services
from rolls.systems import RulesError
from tabletop.models import Character
from tests.dice import ScriptedDice
from tests.factories import logged_in
from tests.test_consumers import frames_until, open_socket, sync, up_to
from tests.test_sixes_contests import BODY, Kids


@pytest.fixture
def kids(db: None) -> Kids:
    return Kids()


def helped_roll(kids: Kids, *faces: int, helper: Character | None = None, blind: bool = False) -> Roll:
    """Olle rolls Body (three dice) with Kim's help: four dice."""
    return services.roll_create(
        character=kids.olle,
        roller=kids.table.player,
        data=BODY,
        helper=kids.kim if helper is None else helper,
        intent="lift the beam",
        rng=ScriptedDice(*faces),
        blind=blind,
    )


def conditions(character: Character) -> dict[str, bool]:
    return Character.objects.get(pk=character.pk).sheet["conditions"]


def page(client: Any, name: str, *args: Any) -> str:
    response = client.get(reverse(name, args=args))
    assert response.status_code == 200
    return html.unescape(response.content.decode())


def test_six_16_the_helpers_phone_shows_they_share_the_failure(kids: Kids) -> None:
    failed = helped_roll(kids, 1, 2, 3, 4)
    kim = logged_in(kids.second)
    for name, args in (
        ("rolls:campaign", (kids.table.campaign.pk,)),
        ("rolls:character", (kids.table.campaign.pk, kids.kim.pk)),
    ):
        text = page(kim, name, *args)
        assert "The roll failed: Kim, who helped, shares the failure" in text, name
    assert failed.helper_name == "Kim"


def test_six_16_a_roll_that_succeeds_binds_the_helper_to_nothing(kids: Kids) -> None:
    helped_roll(kids, 6, 2, 3, 4)
    text = page(logged_in(kids.second), "rolls:campaign", kids.table.campaign.pk)
    assert "Helped by Kim, who shares the outcome." in text and "shares the failure" not in text


def test_six_16_the_gm_checks_the_same_condition_for_both_in_one_step(kids: Kids) -> None:
    roll = helped_roll(kids, 1, 2, 3, 4)
    before = LogEntry.objects.count()
    both = bound_helper.check_for_both(roll=roll, gm=kids.table.gm, condition="Scared")
    assert sorted(c.name for c in both) == ["Kim", "Olle"]
    assert conditions(kids.olle)["Scared"] and conditions(kids.kim)["Scared"]
    entries = list(LogEntry.objects.filter(seq__gt=before).order_by("seq"))
    assert [e.action for e in entries] == ["sheet-change", "sheet-change"]
    assert {e.text for e in entries} == {
        "Olle: checked Scared.",
        "Kim: checked Scared (bound to a failed roll they helped).",
    }
    with pytest.raises(RulesError, match="has Scared checked already"):
        bound_helper.check_for_both(roll=roll, gm=kids.table.gm, condition="Scared")


def test_six_16_refused_when_it_did_not_fail_had_no_helper_or_one_has_it(kids: Kids) -> None:
    won = helped_roll(kids, 6, 1, 1, 1)
    with pytest.raises(RulesError, match="did not fail"):
        bound_helper.check_for_both(roll=won, gm=kids.table.gm, condition="Upset")
    alone = services.roll_create(
        character=kids.olle,
        roller=kids.table.player,
        data=BODY,
        helper=None,
        intent="",
        rng=ScriptedDice(1, 1, 1),
    )
    with pytest.raises(RulesError, match="Nobody helped"):
        bound_helper.check_for_both(roll=alone, gm=kids.table.gm, condition="Upset")
    failed = helped_roll(kids, 1, 1, 1, 1)
    with pytest.raises(RulesError, match="Only the GM"):
        bound_helper.check_for_both(roll=failed, gm=kids.table.player, condition="Upset")
    with pytest.raises(RulesError, match="Choose one of the Conditions"):
        bound_helper.check_for_both(roll=failed, gm=kids.table.gm, condition="Sleepy")
    kim = Character.objects.get(pk=kids.kim.pk)
    kim.sheet = {**kim.sheet, "conditions": {**kim.sheet["conditions"], "Upset": True}}
    kim.save()
    with pytest.raises(RulesError, match="Kim has Upset checked already"):
        bound_helper.check_for_both(roll=failed, gm=kids.table.gm, condition="Upset")
    assert not conditions(kids.olle)["Upset"]
    assert not LogEntry.objects.filter(action="sheet-change").exists()


def test_six_16_a_push_that_succeeds_frees_the_helper(kids: Kids) -> None:
    roll = helped_roll(kids, 1, 2, 3, 4)
    services.follow_up_apply(
        roll=roll,
        actor=kids.table.player,
        action="push",
        params={"condition": "Upset", "description": "I heave with everything"},
        rng=ScriptedDice(6, 1, 1, 1),
        by_gm=False,
    )
    with pytest.raises(RulesError, match="did not fail"):
        bound_helper.check_for_both(roll=roll, gm=kids.table.gm, condition="Scared")


def test_six_16_the_gm_does_it_from_the_rolls_page(kids: Kids) -> None:
    roll = helped_roll(kids, 1, 2, 3, 4)
    gm = logged_in(kids.table.gm)
    text = page(gm, "rolls:roll", kids.table.campaign.pk, roll.pk)
    assert "Check it for both" in text and '<option value="Broken">' in text
    player_view = page(logged_in(kids.table.player), "rolls:roll", kids.table.campaign.pk, roll.pk)
    assert "Check it for both" not in player_view
    url = reverse("rolls:roll-helper-condition", args=[kids.table.campaign.pk, roll.pk])
    assert logged_in(kids.table.player).post(url, {"condition": "Injured"}).status_code == 403
    assert gm.post(url, {"condition": "Injured"}).status_code == 302
    assert conditions(kids.olle)["Injured"] and conditions(kids.kim)["Injured"]
    refused = gm.post(url, {"condition": "Injured"})
    assert refused.status_code == 422
    assert "has Injured checked already" in html.unescape(refused.content.decode())
    for bad in ({}, {"condition": "\x00"}, {"condition": "x" * 5000}):
        assert gm.post(url, bad).status_code == 422
    text = page(gm, "rolls:roll", kids.table.campaign.pk, roll.pk)
    assert '<option value="Injured">' not in text


def test_six_16_a_blind_roll_keeps_the_failure_from_the_helper(kids: Kids) -> None:
    roll = helped_roll(kids, 1, 2, 3, 4)
    Roll.objects.filter(pk=roll.pk).update(visibility=Visibility.BLIND)
    kim = page(logged_in(kids.second), "rolls:campaign", kids.table.campaign.pk)
    assert "shares the failure" not in kim


@pytest.mark.django_db(transaction=True)
async def test_six_16_the_helpers_socket_says_it_only_of_a_roll_the_table_sees() -> None:
    kids = await database_sync_to_async(Kids)()
    campaign = kids.table.campaign
    sockets = {}
    for name, user in (("kim", kids.second), ("gm", kids.table.gm)):
        communicator, connected, _ = await open_socket(campaign.pk, user)
        assert connected
        sockets[name] = communicator
    last = await database_sync_to_async(lambda: campaign.log.order_by("-seq").first().seq)()
    for communicator in sockets.values():
        await sync(communicator, 0, last)
    await database_sync_to_async(helped_roll)(kids, 1, 2, 3, 4, blind=True)
    blind = {name: "".join(await frames_until(c, up_to(last + 1))) for name, c in sockets.items()}
    assert "shares the failure" not in blind["kim"] and "shares the failure" in blind["gm"]
    await database_sync_to_async(helped_roll)(kids, 1, 2, 3, 4)
    seen = "".join(await frames_until(sockets["kim"], up_to(last + 2)))
    assert "The roll failed: Kim, who helped, shares the failure" in seen
    for communicator in sockets.values():
        await communicator.disconnect()


def test_six_15_the_gm_strikes_the_help_from_the_rolls_page(kids: Kids) -> None:
    """SIX-15: help is the GM's call. Olle rolls with Kim's help (four dice, the last one
    Kim's); the GM's page of the roll offers to strike it, the player's does not; struck, the
    roll stands on Olle's three dice, fails, and Kim is bound to nothing (SIX-16)."""
    roll = helped_roll(kids, 1, 2, 3, 6)
    url = reverse("rolls:roll-helper-strike", args=[kids.table.campaign.pk, roll.pk])
    roll_page = ("rolls:roll", kids.table.campaign.pk, roll.pk)
    assert "Strike Kim's help" in page(logged_in(kids.table.gm), *roll_page)
    assert "Strike Kim's help" not in page(logged_in(kids.table.player), *roll_page)
    # A player cannot strike, through the page's URL or as a follow-up of their own.
    assert logged_in(kids.table.player).post(url).status_code == 403
    with pytest.raises(RulesError, match="Only the GM"):
        services.follow_up_apply(
            roll=roll, actor=kids.table.player, action="strike", params={}, rng=ScriptedDice()
        )
    assert logged_in(kids.table.gm).post(url).status_code == 302
    entry = LogEntry.objects.filter(roll=roll).order_by("-seq")[0]
    assert (entry.action, entry.actor) == ("strike", kids.table.gm)
    assert entry.state["steps"][-1]["dice"] == [1, 2, 3]
    table = page(logged_in(kids.second), "rolls:campaign", kids.table.campaign.pk)
    assert "The GM struck Kim's help: the roll stands without it." in table
    assert "shares the failure" not in table and "Failure: 0 of 1 needed" in table
    gm_page = page(logged_in(kids.table.gm), *roll_page)
    assert "Strike Kim's help" not in gm_page and "check the same Condition" not in gm_page
    # Once: a second strike is refused with the reason, nothing written.
    before = LogEntry.objects.count()
    again = logged_in(kids.table.gm).post(url)
    assert again.status_code == 422 and "struck this roll's help already" in html.unescape(
        again.content.decode()
    )
    assert LogEntry.objects.count() == before


def test_six_15_a_roll_nobody_helped_has_no_help_to_strike(kids: Kids) -> None:
    roll = services.roll_create(
        character=kids.olle,
        roller=kids.table.player,
        data=BODY,
        helper=None,
        intent="",
        rng=ScriptedDice(1, 2, 3),
    )
    url = reverse("rolls:roll-helper-strike", args=[kids.table.campaign.pk, roll.pk])
    refused = logged_in(kids.table.gm).post(url)
    assert refused.status_code == 422 and "Nobody helped this roll" in html.unescape(refused.content.decode())
    assert "Strike" not in page(logged_in(kids.table.gm), "rolls:roll", kids.table.campaign.pk, roll.pk)
