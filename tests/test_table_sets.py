"""`sets` at the table, through the views: the campaign, the sheet of derived stats, rolls
against a Bar or opposed with scripted dice, the exact odds, bids and criticals, and the GM's
clock. Every refusal gives a clear message and changes nothing."""

from __future__ import annotations

import html
import re
from typing import Any

import pytest
from django.http import HttpResponse
from django.test import Client
from django.urls import reverse

from rolls import registry
from rolls.models import LogEntry, Roll
from tabletop.models import Campaign, Character
from tests import factories
from tests.factories import Script, Table, logged_in

STATS = [("Might", 4), ("Finesse", 3), ("Insight", 3), ("Resolve", 2), ("Presence", 1)]


def sets_sheet() -> dict[str, Any]:
    return {"stats": [{"name": name, "dice": dice} for name, dice in STATS], "notes": "Sorcery: Ember Sight"}


def sheet_form(character_name: str = "Wilcott", **overrides: Any) -> dict[str, Any]:
    """The POST data of the sets sheet form."""
    data: dict[str, Any] = {"name": character_name, "notes": "Sorcery: Ember Sight"}
    for i, (name, dice) in enumerate(STATS):
        data[f"stat_{i}_name"], data[f"stat_{i}_dice"] = name, dice
    data.update(overrides)
    return data


@pytest.fixture
def table(db: None) -> Table:
    """A sets campaign with a GM, a player with a character, an outsider, a session open."""
    return factories.table("sets", character_name="Wilcott", sheet=sets_sheet())


def text(response: Any) -> str:
    return html.unescape(response.content.decode())


def visible_text(response: Any) -> str:
    """The words a reader sees: tags dropped, entities decoded, whitespace collapsed."""
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", response.content.decode())).split())


def roll(client: Client, table: Table, **data: Any) -> HttpResponse:
    data = {"stat": "Insight", "bar": "2", "face": "3", **data}
    path = reverse("rolls:roll-create", args=[table.campaign.pk, table.character.pk])
    return client.post(path, data, HTTP_HX_REQUEST="true")


def follow(client: Client, table: Table, roll_id: int, action: str, **params: Any) -> HttpResponse:
    return client.post(
        reverse("rolls:follow-up", args=[table.campaign.pk, roll_id]),
        {"action": action, **params},
        HTTP_HX_REQUEST="true",
    )


def odds(client: Client, table: Table, **query: Any) -> HttpResponse:
    return client.get(reverse("rolls:odds", args=[table.campaign.pk, table.character.pk]), query)


def latest_roll() -> Roll:
    found = Roll.objects.order_by("-id").first()
    assert found is not None
    return found


def latest_state(roll_id: int) -> dict[str, Any]:
    entry = LogEntry.objects.filter(roll_id=roll_id).order_by("-seq").first()
    assert entry is not None and entry.state is not None
    return entry.state


def everything(campaign: Campaign) -> tuple[object, ...]:
    """All that a roll, a follow-up or a sheet edit could change, to compare around a refusal."""
    campaign.refresh_from_db()
    return (
        Roll.objects.count(),
        LogEntry.objects.count(),
        campaign.last_seq,
        campaign.mystery,
        list(Character.objects.order_by("pk").values_list("pk", "name", "sheet", "luck", "endurance")),
    )


def assert_refused(response: Any, status: int, message: str) -> None:
    assert response.status_code == status, text(response)
    assert message in text(response)


def rolled(client: Client, table: Table, dice: Script, faces: tuple[int, ...], **data: Any) -> Roll:
    dice(*faces)
    response = roll(client, table, **data)
    assert response.status_code == 200, text(response)
    return latest_roll()


# -- the campaign --------------------------------------------------------------------------------


def test_sets_is_at_the_table() -> None:
    assert "sets" in registry.slugs()


def test_the_gm_creates_a_sets_campaign_with_adventures_and_no_long_rest(db: None) -> None:
    gm = factories.user("gunilla")
    client = logged_in(gm)

    response = client.post(
        reverse("rolls:campaign-new"), {"name": "Red Moon", "system": "sets", "display_name": "Judge"}
    )

    campaign = Campaign.objects.get()
    assert response.status_code == 302
    assert (campaign.system, campaign.gm) == ("sets", gm)
    page = text(client.get(response["Location"]))
    assert ">New Adventure</button>" in page
    assert "Long rest" not in page


# -- the sheet -----------------------------------------------------------------------------------


def new_path(table: Table) -> str:
    return reverse("rolls:character-new", args=[table.campaign.pk])


def edit_path(table: Table) -> str:
    return reverse("rolls:character-edit", args=[table.campaign.pk, table.character.pk])


def test_the_new_character_form_offers_five_derived_stats_of_three_dice(table: Table) -> None:
    form = logged_in(table.player).get(new_path(table)).context["form"]

    assert [(name.value(), dice.value()) for name, dice in form.stat_rows()] == [
        ("Might", 3),
        ("Finesse", 3),
        ("Insight", 3),
        ("Resolve", 3),
        ("Presence", 3),
    ]


def test_a_player_creates_a_character_with_renamed_stats(table: Table) -> None:
    client = logged_in(table.player)

    response = client.post(new_path(table), sheet_form("Ysolde", stat_4_name="Sorcery", stat_4_dice=5))

    ysolde = Character.objects.get(name="Ysolde")
    assert response.status_code == 302
    assert response["Location"] == ysolde.get_absolute_url()
    assert ysolde.sheet["stats"][4] == {"name": "Sorcery", "dice": 5}
    assert ysolde.sheet["notes"] == "Sorcery: Ember Sight"
    assert (ysolde.luck, ysolde.endurance) == (0, 0)  # nothing to spend in this system
    page = text(client.get(response["Location"]))
    assert 'value="Sorcery"' in page


BAD_SHEETS = [
    pytest.param({"stat_0_dice": 0}, "Ensure this value is greater than or equal to 1.", id="dice-0"),
    pytest.param({"stat_1_dice": 11}, "Ensure this value is less than or equal to 10.", id="dice-11"),
    pytest.param({"stat_2_dice": "three"}, "Enter a whole number.", id="dice-junk"),
    pytest.param({"stat_3_name": ""}, "This field is required.", id="no-stat-name"),
    pytest.param({"stat_3_name": "might"}, "Two stats are called might; give each its own name.", id="twice"),
    pytest.param(
        {"notes": "x" * 301}, "Ensure this value has at most 300 characters (it has 301).", id="notes"
    ),
    pytest.param({"name": ""}, "This field is required.", id="no-name"),
]


@pytest.mark.parametrize(("data", "message"), BAD_SHEETS)
def test_a_new_sheet_with_a_bad_value_is_refused_with_a_message(
    table: Table, data: dict[str, Any], message: str
) -> None:
    before = everything(table.campaign)

    response = logged_in(table.player).post(new_path(table), sheet_form("Ysolde", **data))

    assert response.status_code == 200
    assert message in text(response)
    assert everything(table.campaign) == before


@pytest.mark.parametrize(("data", "message"), BAD_SHEETS)
def test_an_edited_sheet_with_a_bad_value_changes_nothing(
    table: Table, data: dict[str, Any], message: str
) -> None:
    before = everything(table.campaign)

    response = logged_in(table.player).post(edit_path(table), sheet_form("Wilcott", **data))

    assert response.status_code == 200
    assert message in text(response)
    assert everything(table.campaign) == before


def test_the_edit_form_shows_the_sheet_as_it_is(table: Table) -> None:
    form = logged_in(table.player).get(edit_path(table)).context["form"]

    assert [(name.value(), dice.value()) for name, dice in form.stat_rows()] == STATS
    assert form["notes"].value() == "Sorcery: Ember Sight"


def test_the_gm_edits_a_players_sheet(table: Table) -> None:
    response = logged_in(table.gm).post(edit_path(table), sheet_form("Wilcott", stat_2_dice=5))

    assert response.status_code == 302
    table.character.refresh_from_db()
    assert table.character.sheet["stats"][2] == {"name": "Insight", "dice": 5}


def test_any_member_reads_the_sheet(table: Table) -> None:
    kim = factories.member(table.campaign, name="Kim").user

    page = text(
        logged_in(kim).get(reverse("rolls:character-sheet", args=[table.campaign.pk, table.character.pk]))
    )

    assert "<dt>Might</dt><dd>4</dd>" in page
    assert "<dt>Presence</dt><dd>1</dd>" in page
    assert "Sorcery: Ember Sight" in page


# -- rolling -------------------------------------------------------------------------------------


def test_the_roll_screen_offers_the_stats_and_the_bars(table: Table) -> None:
    page = text(logged_in(table.player).get(table.character.get_absolute_url()))

    assert 'name="stat" value="Might" checked' in page
    assert "Might <small><b>4</b> dice</small>" in page
    for name, needs in (
        ("Apprentice", "Size 2"),
        ("Journeyman", "Size 3"),
        ("Master", "Size 4"),
        ("Opposed", "no Bar"),
    ):
        assert f'{name} <small class="muted">{needs}</small>' in page
    assert 'name="bar" value="2" checked' in page
    assert 'name="face" value="rolled" checked' in page
    assert "Rolled by the server" in page
    assert 'name="lesser_assists" id="id_lesser_assists" value="0" min="0" max="15"' in page


def test_set_1_set_5_a_stat_with_bonus_dice_against_an_apprentice_bar(table: Table, dice: Script) -> None:
    dice(4, 4, 2, 1)

    response = roll(logged_in(table.player), table, bonus=1, intent="I search the scene for clues")

    made = latest_roll()
    page = text(response)
    assert response.status_code == 200
    assert made.trait == "Insight"
    assert latest_state(made.pk)["steps"] == [{"action": "roll", "dice": [4, 4, 2, 1]}]
    assert "Rolled 4 dice against the Apprentice Bar 2x3" in page
    assert "Best bid 2x4 against the Apprentice Bar 2x3" in page
    assert "I search the scene for clues" in page
    # The bid picks dice of a set: the two 4s, by their place on the card.
    assert "follow-up-bid" in page
    assert 'name="dice" value="0"' in page
    assert 'name="dice" value="1"' in page
    assert 'name="dice" value="2"' not in page
    assert "0% -> 100%" in page


def test_set_5_the_server_rolls_the_bars_face(table: Table, dice: Script) -> None:
    dice(5, 5, 1, 6)  # three dice of Insight, then the Bar's Face

    page = text(roll(logged_in(table.player), table, face="rolled"))

    assert latest_state(latest_roll().pk)["steps"][0] == {"action": "roll", "dice": [5, 5, 1], "bar_face": 6}
    assert "The Bar's Face was rolled: 6." in page
    assert "Best bid 2x5 against the Apprentice Bar 2x6" in page


def test_set_1_penalty_dice_remove_dice(table: Table, dice: Script) -> None:
    dice(3, 3, 3)

    roll(logged_in(table.player), table, stat="Might", penalty=1)

    assert latest_state(latest_roll().pk)["steps"][0]["dice"] == [3, 3, 3]


def test_set_11_helpers_add_dice_three_lesser_ones_count_as_one(table: Table, dice: Script) -> None:
    dice(1, 2, 3, 4)

    roll(logged_in(table.player), table, stat="Resolve", assists=1, lesser_assists=4)

    request = latest_state(latest_roll().pk)["request"]
    assert (request["dice"], request["assists"], request["lesser_assists"]) == (4, 1, 4)


def test_set_3_a_roll_without_a_set_fails_against_a_bar_and_offers_no_bid(table: Table, dice: Script) -> None:
    dice(1, 2, 3)

    page = text(roll(logged_in(table.player), table))

    assert "No set against the Apprentice Bar 2x3" in page
    assert "tone-failure" in page
    assert "follow-up-" not in page


def test_set_4_an_opposed_roll_has_no_bar(table: Table, dice: Script) -> None:
    dice(4, 4, 6, 6)

    page = text(roll(logged_in(table.player), table, stat="Might", bar="opposed", face="3"))

    request = latest_state(latest_roll().pk)["request"]
    assert (request["opposed"], request["bar_size"], request["attacker"]) == (True, None, True)
    assert "Rolled 4 dice</span>" in page
    assert "Best bid 3x4" in page  # every set together, as an upgrade


BAD_ROLLS = [
    pytest.param({"stat": "Luck"}, "Select a valid choice. Luck is not one of the available choices."),
    pytest.param({"stat": ""}, "This field is required."),
    pytest.param({"bar": "5"}, "Select a valid choice. 5 is not one of the available choices."),
    pytest.param({"face": "7"}, "Select a valid choice. 7 is not one of the available choices."),
    pytest.param({"side": "judge"}, "Select a valid choice. judge is not one of the available choices."),
    pytest.param({"bonus": "11"}, "Ensure this value is less than or equal to 10."),
    pytest.param({"assists": "6"}, "Ensure this value is less than or equal to 5."),
    pytest.param({"penalty": "x"}, "Enter a whole number."),
    pytest.param(
        {"stat": "Presence", "penalty": "1"},
        "The penalties leave no dice to roll, so no set can be made: the action fails.",
    ),
    pytest.param(
        {"stat": "Might", "bonus": "10", "assists": "5"},
        "That makes 19 dice; the most the table rolls is 15.",
    ),
]


@pytest.mark.parametrize(("data", "message"), BAD_ROLLS)
def test_a_roll_with_a_bad_value_is_refused_and_changes_nothing(
    table: Table, dice: Script, data: dict[str, Any], message: str
) -> None:
    before = everything(table.campaign)
    dice()

    response = roll(logged_in(table.player), table, **data)

    assert_refused(response, 422, message)
    assert everything(table.campaign) == before


# -- the odds ------------------------------------------------------------------------------------


def test_set_5_the_odds_against_a_bar_with_a_rolled_face_are_exact(table: Table) -> None:
    response = odds(logged_in(table.player), table, stat="Insight", bar="2", face="rolled")

    assert response.status_code == 200
    # Three dice: 13/48 against a pair with a Face from 1 to 6 rolled; 1 - 5/9 for any set.
    assert visible_text(response) == (
        "Insight: 3 dice 27% to meet the Apprentice Bar (Size 2, Face rolled) "
        "Any set 44% · Journeyman 2% · Master 0%"
    )


def test_set_6_the_odds_against_a_chosen_face_count_upgrades(table: Table) -> None:
    response = odds(logged_in(table.player), table, stat="Insight", bonus=1, bar="3", face="4")

    # Four dice reach 3x4: three or four of 4, 5 or 6, or two pairs at 4 or above: 7/108.
    assert visible_text(response) == (
        "Insight: 4 dice 6% to meet the Journeyman Bar (3x4) Any set 72% · Apprentice 44% · Master <1%"
    )


def test_set_4_the_odds_of_an_opposed_roll(table: Table) -> None:
    client = logged_in(table.player)

    attacker = visible_text(odds(client, table, stat="Might", bar="opposed", side="attacker"))
    defender = visible_text(odds(client, table, stat="Might", bar="opposed", side="defender"))

    assert attacker == "Might: 4 dice Opposed, as the attacker (ties are yours) Any set 72%"
    assert defender == "Might: 4 dice Opposed, as the defender (ties go to the attacker) Any set 72%"


def test_set_11_the_odds_count_the_helpers(table: Table) -> None:
    response = odds(
        logged_in(table.player), table, stat="Resolve", assists=1, lesser_assists=4, bar="2", face="1"
    )

    assert visible_text(response).startswith("Resolve: 4 dice 72% to meet the Apprentice Bar (2x1)")


def test_the_odds_explain_an_empty_pool_and_write_nothing(table: Table) -> None:
    before = everything(table.campaign)

    response = odds(logged_in(table.player), table, stat="Presence", penalty=1, bar="2", face="1")

    assert (
        visible_text(response)
        == "The penalties leave no dice to roll, so no set can be made: the action fails."
    )
    assert everything(table.campaign) == before


# -- bids and criticals --------------------------------------------------------------------------


def test_set_3_set_5_a_bid_pair_meets_the_apprentice_bar(table: Table, dice: Script) -> None:
    client = logged_in(table.player)
    made = rolled(client, table, dice, (4, 4, 2, 1), bonus=1)
    dice()

    response = follow(client, table, made.pk, "bid", dice=["0", "1"])

    page = text(response)
    entry = LogEntry.objects.filter(roll=made).order_by("-seq")[0]
    assert response.status_code == 200
    assert (entry.kind, entry.action, entry.actor) == ("follow-up", "bid", table.player)
    assert entry.state["steps"][-1] == {
        "action": "bid",
        "dice": [0, 1],
        "faces": [4, 4],
        "bid": "2x4",
        "size": 2,
        "face": 4,
    }
    assert "Bid 2x4 meets the Apprentice Bar 2x3" in page
    assert "tone-success" in page
    assert "follow-up-" not in page  # no set left for a critical


def test_set_6_two_pairs_bid_together_count_as_a_trio_of_the_lower_face(table: Table, dice: Script) -> None:
    client = logged_in(table.player)
    made = rolled(client, table, dice, (3, 5, 3, 5, 2), stat="Might", bonus=1, bar="3", face="3")

    page = text(follow(client, table, made.pk, "bid", dice=["0", "1", "2", "3"]))

    assert "Bid 3x3 meets the Journeyman Bar 3x3" in page


def test_set_7_set_8_part_of_a_set_is_bid_and_the_rest_buys_a_critical_effect_never_a_hit_against_a_bar(
    table: Table, dice: Script
) -> None:
    """SET-7, SET-8: the rest of the four buys a critical effect; a roll against a Bar attacks
    nobody, so no critical hit is offered, and one sent anyway is refused."""
    client = logged_in(table.player)
    made = rolled(client, table, dice, (4, 4, 4, 4, 1), stat="Might", bonus=1)
    bid = text(follow(client, table, made.pk, "bid", dice=["0", "1"]))
    assert "Bid 2x4 meets the Apprentice Bar 2x3" in bid
    assert "follow-up-critical_hit" not in bid
    assert "follow-up-critical_effect" in bid
    assert "follow-up-flinch" not in bid  # a success is improved, not softened
    before = everything(table.campaign)
    dice()
    assert_refused(follow(client, table, made.pk, "critical_hit", dice=["2", "3"]), 422, "Bar attacks nobody")
    assert everything(table.campaign) == before

    response = follow(client, table, made.pk, "critical_effect", dice=["2", "3"], effect="none")

    page = text(response)
    assert response.status_code == 200
    assert "Critical effect: spent 2x4" in page
    assert "Critical effect with 2x4." in page


def test_set_8_a_critical_effect_may_give_a_one_die_bonus(table: Table, dice: Script) -> None:
    client = logged_in(table.player)
    made = rolled(client, table, dice, (4, 4, 6, 6), stat="Might")
    follow(client, table, made.pk, "bid", dice=["0", "1"])

    page = text(follow(client, table, made.pk, "critical_effect", dice=["2", "3"], effect="bonus"))

    assert "Critical effect with 2x6 (a one-die bonus on a later roll)." in page


def test_set_9_after_a_failure_sets_soften_it(table: Table, dice: Script) -> None:
    client = logged_in(table.player)
    made = rolled(client, table, dice, (2, 2, 3, 3, 6, 6), stat="Might", bonus=2, bar="4", face="6")
    bid = text(follow(client, table, made.pk, "bid", dice=["0", "1"]))
    assert "Bid 2x2 falls short of the Master Bar 4x6" in bid
    for action in ("defy_death", "flinch", "clean_break"):
        assert f"follow-up-{action}" in bid
    assert "follow-up-critical_hit" not in bid

    follow(client, table, made.pk, "clean_break", dice=["2", "3"])
    before = everything(table.campaign)
    dice()
    again = follow(client, table, made.pk, "clean_break", dice=["4", "5"])
    assert_refused(again, 422, "Clean break has been chosen already on this roll.")
    assert everything(table.campaign) == before

    page = text(follow(client, table, made.pk, "flinch", dice=["4", "5"]))

    assert "Clean break with 2x3." in page
    assert "Flinch with 2x6." in page
    assert "Incoming damage reduced by 1." in page


def test_set_4_set_10_an_opposed_bid_waits_for_the_other_side_and_ties_go_to_the_attacker(
    table: Table, dice: Script
) -> None:
    client = logged_in(table.player)
    made = rolled(client, table, dice, (4, 4, 6, 6), stat="Might", bar="opposed")
    waiting = text(follow(client, table, made.pk, "bid", dice=["0", "1"]))
    assert "Bid 2x4: waiting for the other side's bid" in waiting
    assert "follow-up-opposition" in waiting
    before = everything(table.campaign)
    dice()
    early = follow(client, table, made.pk, "critical_hit", dice=["2", "3"])
    assert_refused(early, 422, "Record the other side's bid first: criticals depend on who won.")
    assert everything(table.campaign) == before

    page = text(follow(client, table, made.pk, "opposition", size="2", face="4"))

    assert "The other side bid 2x4" in page
    assert "Bid 2x4 wins against 2x4" in page
    assert "You spend further sets first." in page
    assert "follow-up-critical_hit" in page


def test_set_4_the_defender_loses_a_tie(table: Table, dice: Script) -> None:
    client = logged_in(table.player)
    made = rolled(client, table, dice, (4, 4, 6, 6), stat="Might", bar="opposed", side="defender")
    follow(client, table, made.pk, "bid", dice=["0", "1"])

    page = text(follow(client, table, made.pk, "opposition", size="2", face="4"))

    assert "Bid 2x4 loses to 2x4" in page
    assert "The other side spends further sets first." in page
    assert "follow-up-flinch" in page


BAD_FOLLOW_UPS = [
    pytest.param(
        "bid", {"dice": ["2"]}, "A set needs two or more matching dice; the 2 has no match in this bid."
    ),
    pytest.param("bid", {"dice": ["0", "2"]}, "A set needs two or more matching dice; the 2 has no match"),
    pytest.param("bid", {}, "Choose the dice of a set to spend."),
    pytest.param("bid", {"dice": ["0", "0"]}, "Each die can be chosen only once."),
    pytest.param("bid", {"dice": ["0", "9"]}, "There are 4 dice on the card; choose among them."),
    pytest.param("bid", {"dice": ["a", "b"]}, "Choose dice by their numbers on the card."),
    pytest.param("critical_hit", {"dice": ["0", "1"]}, "Bid a set first."),
    pytest.param("opposition", {"size": "2", "face": "4"}, "Bid a set first."),
    pytest.param("push", {}, "'push' is not a follow-up in this system."),
]


@pytest.mark.parametrize(("action", "params", "message"), BAD_FOLLOW_UPS)
def test_a_bad_bid_is_refused_and_changes_nothing(
    table: Table, dice: Script, action: str, params: dict[str, Any], message: str
) -> None:
    client = logged_in(table.player)
    made = rolled(client, table, dice, (4, 4, 2, 1), bonus=1)
    before = everything(table.campaign)
    dice()

    assert_refused(follow(client, table, made.pk, action, **params), 422, message)
    assert everything(table.campaign) == before


BAD_CRITICALS = [
    pytest.param("bid", {"dice": ["2", "3"]}, "This roll has been bid already; a roll is bid once."),
    pytest.param("critical_effect", {"dice": ["0", "1"]}, "Some of those dice are spent already."),
    pytest.param(
        "critical_effect", {"dice": ["2", "3", "4", "5"]}, "A critical spends one set: dice that all show"
    ),
    pytest.param("flinch", {"dice": ["2", "3"]}, "That critical softens a failure, and this roll succeeded."),
    pytest.param(
        "critical_effect", {"dice": ["2", "3"], "effect": "fire"}, "A critical effect gives a bonus die"
    ),
    pytest.param("opposition", {"size": "2", "face": "4"}, "This roll is against a Bar, not another side."),
]


@pytest.mark.parametrize(("action", "params", "message"), BAD_CRITICALS)
def test_a_bad_critical_is_refused_and_changes_nothing(
    table: Table, dice: Script, action: str, params: dict[str, Any], message: str
) -> None:
    client = logged_in(table.player)
    made = rolled(client, table, dice, (4, 4, 5, 5, 6, 6), stat="Might", bonus=2)
    follow(client, table, made.pk, "bid", dice=["0", "1"])
    before = everything(table.campaign)
    dice()

    assert_refused(follow(client, table, made.pk, action, **params), 422, message)
    assert everything(table.campaign) == before


def test_set_8_an_improving_critical_on_a_failure_is_refused(table: Table, dice: Script) -> None:
    client = logged_in(table.player)
    made = rolled(client, table, dice, (2, 2, 3, 3), stat="Might", bar="3", face="6")
    follow(client, table, made.pk, "bid", dice=["0", "1"])
    before = everything(table.campaign)
    dice()

    response = follow(client, table, made.pk, "critical_hit", dice=["2", "3"])

    assert_refused(response, 422, "That critical improves a success, and this roll failed.")
    assert everything(table.campaign) == before


def test_set_4_the_other_sides_bid_must_be_a_set(table: Table, dice: Script) -> None:
    client = logged_in(table.player)
    made = rolled(client, table, dice, (4, 4, 6, 6), stat="Might", bar="opposed")
    follow(client, table, made.pk, "bid", dice=["0", "1"])
    before = everything(table.campaign)
    dice()

    response = follow(client, table, made.pk, "opposition", size="1", face="4")

    assert_refused(response, 422, "A set has a Size of two or more (0 when the other side has no set).")
    assert everything(table.campaign) == before


def test_another_player_cannot_bid_for_someone_elses_character(table: Table, dice: Script) -> None:
    kim = factories.member(table.campaign, name="Kim").user
    made = rolled(logged_in(table.player), table, dice, (4, 4, 2, 1), bonus=1)
    before = everything(table.campaign)
    dice()

    response = follow(logged_in(kim), table, made.pk, "bid", dice=["0", "1"])

    assert_refused(response, 403, "Only this character's player or the GM can do that.")
    assert everything(table.campaign) == before


def test_the_gm_may_bid_for_a_players_character(table: Table, dice: Script) -> None:
    made = rolled(logged_in(table.player), table, dice, (4, 4, 2, 1), bonus=1)

    response = follow(logged_in(table.gm), table, made.pk, "bid", dice=["0", "1"])

    assert response.status_code == 200
    assert "Bid 2x4 meets the Apprentice Bar 2x3" in text(response)


# -- the GM's clock ------------------------------------------------------------------------------


def test_a_new_adventure_is_counted_and_changes_no_sheet(table: Table) -> None:
    sheet = table.character.sheet

    response = logged_in(table.gm).post(
        reverse("rolls:mystery-start", args=[table.campaign.pk]), {"confirmed": "yes"}, follow=True
    )

    table.campaign.refresh_from_db()
    table.character.refresh_from_db()
    assert "New Adventure: done." in text(response)
    assert table.campaign.mystery == 2
    assert table.character.sheet == sheet
    last = LogEntry.objects.filter(campaign=table.campaign).order_by("-seq")[0]
    assert (last.action, last.text) == ("mystery-start", "Adventure 2 begins.")


def test_there_is_no_long_rest_in_sets(table: Table) -> None:
    before = everything(table.campaign)

    response = logged_in(table.gm).post(
        reverse("rolls:long-rest", args=[table.campaign.pk]), {"confirmed": "yes"}, follow=True
    )

    assert "This dice system has no long rest." in text(response)
    assert everything(table.campaign) == before


def quick_bids(page: str) -> list[tuple[str, list[str]]]:
    """The one-tap bid buttons of a card, in order: each label and the dice it sends."""
    found = []
    for form in re.findall(r'<form[^>]*class="quick-bid".*?</form>', page, re.S):
        label = re.search(r"Bid (\d+x\d)", form)
        assert label is not None
        found.append((label.group(1), re.findall(r'name="dice" value="(\d+)"', form)))
    return found


def test_the_bid_offered_first_meets_the_bar_and_keeps_the_most_sets_for_criticals(
    table: Table, dice: Script
) -> None:
    """SET-7, SET-8: 3 3 1 1 6 5 against the Apprentice Bar 2x3: 2x3 meets it and keeps the
    pair of 1s for a critical, so it is offered first, not 3x1 (all four dice)."""
    client = logged_in(table.player)
    dice(3, 3, 1, 1, 6, 5)
    page = text(roll(client, table, stat="Insight", bonus=3, face="3"))
    assert quick_bids(page)[0] == ("2x3", ["0", "1"])
    assert ("3x1", ["0", "1", "2", "3"]) in quick_bids(page)
    made = latest_roll()
    bid = text(follow(client, table, made.pk, "bid", dice=["0", "1"]))
    assert "Bid 2x3 meets the Apprentice Bar 2x3" in bid
    assert "follow-up-critical_effect" in bid


def test_a_roll_that_fails_anyway_is_offered_one_small_set_first_not_every_die(
    table: Table, dice: Script
) -> None:
    """SET-9: against the Master Bar no bid of 3 3 1 1 6 5 succeeds; the bid offered first
    spends one pair and keeps the other for clean break, flinch or defy death."""
    client = logged_in(table.player)
    dice(3, 3, 1, 1, 6, 5)
    page = text(roll(client, table, stat="Insight", bonus=3, bar="4", face="3"))
    assert quick_bids(page)[0] == ("2x1", ["2", "3"])
    made = latest_roll()
    bid = text(follow(client, table, made.pk, "bid", dice=["2", "3"]))
    assert "follow-up-clean_break" in bid


def test_set_11_named_help_waits_for_the_gm_who_counts_it_or_strikes_it(table: Table, dice: Script) -> None:
    """SET-11: help counts at the Judge's discretion. A roll naming a helper waits: the player
    cannot bid nor rule on it, the GM's console offers the one-tap call, and a struck helper's
    die counts for nothing."""
    player, gm = logged_in(table.player), logged_in(table.gm)
    made = rolled(player, table, dice, (4, 4, 1, 6), stat="Insight", assists=1)
    card = text(follow(player, table, made.pk, "bid", dice=["0", "1"]))
    assert "whether the help counts" in card
    assert_refused(follow(player, table, made.pk, "help_counts"), 422, "Only the GM")
    assert made.entries.count() == 1
    console = text(gm.get(reverse("rolls:session", args=[table.campaign.pk])))
    assert "Help counts (+1 die)" in console and "No help: strike 1 die" in console
    assert follow(gm, table, made.pk, "help_struck").status_code == 200
    page = text(follow(player, table, made.pk, "bid", dice=["0", "1"]))
    assert "Bid 2x4 meets the Apprentice Bar 2x3" in page
    assert "The Judge strikes the help" in page
    console = text(gm.get(reverse("rolls:session", args=[table.campaign.pk])))
    assert "Help counts (+1 die)" not in console
