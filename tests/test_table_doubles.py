"""`doubles` at the table, through the views: the campaign, the sheet, rolls with scripted dice,
the exact odds, drama dice and miracles, Endurance and the GM's clocks. Every refusal gives a
clear message and changes nothing."""

from __future__ import annotations

import html
import random
import re
import threading
from collections import Counter
from typing import Any

import pytest
from django.db import connection
from django.http import HttpResponse
from django.test import Client
from django.urls import reverse

from rolls import registry
from rolls.campaigns import services as table_services
from rolls.models import LogEntry, Roll
from rolls.play import services
from rolls.systems import RulesError
from rolls.systems.base import percent
from tabletop.models import Campaign, Character
from tests import factories
from tests.factories import Script, ScriptedDice, Table, logged_in


def doubles_sheet(**overrides: Any) -> dict[str, Any]:
    sheet: dict[str, Any] = {
        "endurance_max": 30,
        "abilities": [
            {"name": "Fighting", "level": 2},
            {"name": "Athletics", "level": 1},
            {"name": "Notice", "level": 1},
        ],
        "weaknesses": [{"name": "Reckless", "level": 1}, {"name": "Slow", "level": 2}],
    }
    sheet.update(overrides)
    return sheet


def sheet_form(character_name: str = "Mara", **overrides: Any) -> dict[str, Any]:
    """The POST data of the doubles sheet form: two Abilities, one Weakness, empty rows."""
    data: dict[str, Any] = {"name": character_name, "endurance_max": 30}
    for i in range(5):
        data[f"ability_{i}_name"], data[f"ability_{i}_level"] = "", 0
    for i in range(3):
        data[f"weakness_{i}_name"], data[f"weakness_{i}_level"] = "", 0
    data.update(ability_0_name="Fighting", ability_0_level=2, ability_1_name="Wealth", ability_1_level=3)
    data.update(weakness_0_name="Reckless", weakness_0_level=1)
    data.update(overrides)
    return data


@pytest.fixture
def table(db: None) -> Table:
    """A doubles campaign with a GM, a player with a character (Endurance 30), an outsider,
    and a session open."""
    return factories.table("doubles", character_name="Mara", sheet=doubles_sheet())


def text(response: Any) -> str:
    return html.unescape(response.content.decode())


def visible_text(response: Any) -> str:
    """The words a reader sees: tags dropped, entities decoded, whitespace collapsed."""
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", response.content.decode())).split())


def roll(client: Client, table: Table, character: Character | None = None, **data: Any) -> HttpResponse:
    data.setdefault("dn", "6")
    path = reverse("rolls:roll-create", args=[table.campaign.pk, (character or table.character).pk])
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


def endurance(character: Character) -> tuple[int, int]:
    character.refresh_from_db()
    return character.endurance, character.drama_spent


def set_endurance(character: Character, now: int, drama_spent: int = 0) -> None:
    Character.objects.filter(pk=character.pk).update(endurance=now, drama_spent=drama_spent)


def everything(campaign: Campaign) -> tuple[object, ...]:
    """All that a roll, a follow-up or a sheet edit could change, to compare around a refusal."""
    campaign.refresh_from_db()
    return (
        Roll.objects.count(),
        LogEntry.objects.count(),
        campaign.last_seq,
        campaign.mystery,
        list(Character.objects.order_by("pk").values_list("pk", "name", "sheet", "endurance", "drama_spent")),
    )


def assert_refused(response: Any, status: int, message: str) -> None:
    assert response.status_code == status, text(response)
    assert message in text(response)


# -- the campaign --------------------------------------------------------------------------------


def test_doubles_is_at_the_table() -> None:
    assert "doubles" in registry.slugs()


def test_the_gm_creates_a_doubles_campaign_with_adventures_and_long_rests(db: None) -> None:
    gm = factories.user("gunilla")
    client = logged_in(gm)

    response = client.post(
        reverse("rolls:campaign-new"), {"name": "Hard Road", "system": "doubles", "display_name": "Gun"}
    )

    campaign = Campaign.objects.get()
    assert response.status_code == 302
    assert response["Location"] == reverse("rolls:session", args=[campaign.pk])
    assert (campaign.system, campaign.gm) == ("doubles", gm)
    page = text(client.get(response["Location"]))
    assert ">New Adventure</button>" in page
    assert ">Long rest</button>" in page


# -- the sheet -----------------------------------------------------------------------------------


def new_path(table: Table) -> str:
    return reverse("rolls:character-new", args=[table.campaign.pk])


def edit_path(table: Table) -> str:
    return reverse("rolls:character-edit", args=[table.campaign.pk, table.character.pk])


def test_the_new_character_form_offers_editable_defaults(table: Table) -> None:
    page = text(logged_in(table.player).get(new_path(table)))

    for ability in ("Athletics", "Fighting", "Notice", "Persuasion", "Connected"):
        assert f'value="{ability}"' in page
    assert 'value="Reckless"' in page
    assert 'name="endurance_max" value="30"' in page
    assert "Endurance pays for drama dice (5 a die) and miracles (30)." in page


def test_a_new_character_from_the_defaults_has_five_abilities_one_weakness_and_full_endurance(
    table: Table,
) -> None:
    client = logged_in(table.player)
    form = client.get(new_path(table)).context["form"]
    data = {name: field.initial for name, field in form.fields.items()} | {"name": "Kim"}

    response = client.post(new_path(table), data)

    kim = Character.objects.get(name="Kim")
    assert response.status_code == 302
    assert [(a["name"], a["level"]) for a in kim.sheet["abilities"]] == [
        ("Athletics", 1),
        ("Fighting", 1),
        ("Notice", 1),
        ("Persuasion", 1),
        ("Connected", 1),
    ]
    assert kim.sheet["weaknesses"] == [{"name": "Reckless", "level": 1}]
    assert (kim.endurance, kim.drama_spent, kim.sheet["endurance_max"]) == (30, 0, 30)


def test_a_player_creates_a_character_and_empty_rows_are_dropped(table: Table) -> None:
    client = logged_in(table.player)

    response = client.post(new_path(table), sheet_form("Kim", endurance_max=25))

    kim = Character.objects.get(name="Kim")
    assert response.status_code == 302
    assert response["Location"] == kim.get_absolute_url()
    assert kim.sheet == {
        "endurance_max": 25,
        "abilities": [{"name": "Fighting", "level": 2}, {"name": "Wealth", "level": 3}],
        "weaknesses": [{"name": "Reckless", "level": 1}],
    }
    assert (kim.endurance, kim.drama_spent) == (25, 0)
    page = text(client.get(response["Location"]))
    assert "Endurance 25/25" in page
    assert 'value="Wealth"' in page


BAD_SHEETS = [
    pytest.param({"ability_0_level": 7}, "Ensure this value is less than or equal to 6.", id="level-7"),
    pytest.param(
        {"weakness_0_level": -1}, "Ensure this value is greater than or equal to 0.", id="level-neg"
    ),
    pytest.param({"ability_0_level": "two"}, "Enter a whole number.", id="level-junk"),
    pytest.param({"ability_2_level": 2}, "Give this Ability a name, or set its level to 0.", id="no-name"),
    pytest.param(
        {"weakness_1_level": 1}, "Give this Weakness a name, or set its level to 0.", id="no-name-w"
    ),
    pytest.param({"ability_1_name": "fighting"}, "Two Ability rows are called fighting.", id="twice"),
    pytest.param({"endurance_max": 201}, "Ensure this value is less than or equal to 200.", id="endurance"),
    pytest.param({"endurance_max": ""}, "This field is required.", id="endurance-empty"),
    pytest.param({"name": ""}, "This field is required.", id="no-name-at-all"),
]


@pytest.mark.parametrize(("data", "message"), BAD_SHEETS)
def test_a_new_sheet_with_a_bad_value_is_refused_with_a_message(
    table: Table, data: dict[str, Any], message: str
) -> None:
    before = everything(table.campaign)

    response = logged_in(table.player).post(new_path(table), sheet_form("Kim", **data))

    assert response.status_code == 200
    assert message in text(response)
    assert everything(table.campaign) == before


@pytest.mark.parametrize(("data", "message"), BAD_SHEETS)
def test_an_edited_sheet_with_a_bad_value_changes_nothing(
    table: Table, data: dict[str, Any], message: str
) -> None:
    before = everything(table.campaign)

    response = logged_in(table.player).post(edit_path(table), sheet_form("Mara", **data))

    assert response.status_code == 200
    assert message in text(response)
    assert everything(table.campaign) == before


def test_the_edit_form_shows_the_sheet_as_it_is_and_leaves_empty_rows_empty(table: Table) -> None:
    set_endurance(table.character, 12, drama_spent=10)

    response = logged_in(table.player).get(edit_path(table))

    form = response.context["form"]
    assert [form[f"ability_{i}_name"].value() for i in range(5)] == [
        "Fighting",
        "Athletics",
        "Notice",
        "",
        "",
    ]
    assert [form[f"ability_{i}_level"].value() for i in range(5)] == [2, 1, 1, 0, 0]
    assert [form[f"weakness_{i}_name"].value() for i in range(3)] == ["Reckless", "Slow", ""]
    page = text(response)
    assert "Endurance now 12" in page
    assert "Spent on drama 10" in page


def test_a_player_edits_their_own_sheet(table: Table) -> None:
    response = logged_in(table.player).post(edit_path(table), sheet_form("Mara Vell"))

    assert response.status_code == 302
    table.character.refresh_from_db()
    assert table.character.name == "Mara Vell"
    assert table.character.sheet["abilities"][1] == {"name": "Wealth", "level": 3}


def test_a_lower_maximum_cuts_endurance_at_once_and_a_higher_one_gives_nothing(table: Table) -> None:
    """Endurance changes only through the rules and the GM's controls: a sheet edit never
    raises it, and a lower maximum leaves room for what went on drama dice."""
    set_endurance(table.character, 20, drama_spent=5)
    client = logged_in(table.player)

    client.post(edit_path(table), sheet_form("Mara", endurance_max=40))
    assert endurance(table.character) == (20, 5)

    client.post(edit_path(table), sheet_form("Mara", endurance_max=15))
    assert endurance(table.character) == (10, 5)


def test_another_player_may_read_but_not_edit_the_sheet(table: Table) -> None:
    kim = factories.member(table.campaign, name="Kim").user
    set_endurance(table.character, 20, drama_spent=10)
    before = everything(table.campaign)
    client = logged_in(kim)

    page = text(client.get(reverse("rolls:character-sheet", args=[table.campaign.pk, table.character.pk])))
    refused = client.post(edit_path(table), sheet_form("Stolen"))

    assert "Endurance 20 of 30 · 10 spent on drama, back with a new Adventure" in page
    assert "Fighting <b>2</b>" in page
    assert "Slow <b>2</b>" in page
    assert refused.status_code == 403
    assert everything(table.campaign) == before


# -- rolling -------------------------------------------------------------------------------------


def test_the_roll_screen_offers_the_sheets_traits_and_the_difficulty_numbers(table: Table) -> None:
    page = text(logged_in(table.player).get(table.character.get_absolute_url()))

    assert "Endurance 30/30" in page
    for name, level in (
        ("Fighting", "+2"),
        ("Athletics", "+1"),
        ("Reckless", "\N{MINUS SIGN}1"),
        ("Slow", "\N{MINUS SIGN}2"),
    ):
        assert f'value="{name}"' in page
        assert f"{name} <b>{level}</b>" in page
    # The Difficulty Number is a short list, Moderate chosen.
    assert '<select name="dn" id="roll-dn">' in page
    for label in ('value="2">Easy 2<', 'value="10">Very Difficult 10<', ">Opposed roll<"):
        assert label in page
    assert '<option value="4" selected>Moderate 4</option>' in page
    assert 'name="bonus" id="id_bonus" value="0" min="0" max="10"' in page
    assert "/static/js/stepper." in page


def test_dbl_2_dbl_4_the_abilities_ticked_add_their_levels_and_a_pair_adds_up(
    table: Table, dice: Script
) -> None:
    dice(6, 6, 2, 3, 1)

    response = roll(
        logged_in(table.player), table, abilities=["Fighting", "Athletics"], intent="I vault the wall"
    )

    made = latest_roll()
    page = text(response)
    assert response.status_code == 200
    assert latest_state(made.pk)["steps"] == [{"action": "roll", "net": 5, "dice": [6, 6, 2, 3, 1]}]
    assert made.trait == "Fighting + Athletics"
    assert f'id="result-roll-{made.pk}"' in page
    assert "Rolled 5 dice" in page
    assert "2 + Abilities 3 = 5" in page
    assert "Result 12 beats Challenging (6)" in page
    assert "I vault the wall" in page


def test_dbl_1_without_abilities_two_dice_roll_and_the_highest_counts(table: Table, dice: Script) -> None:
    dice(5, 2)

    page = text(roll(logged_in(table.player), table, dn="4"))

    assert latest_roll().trait == "Two dice"
    assert "Result 5 beats Moderate (4)" in page


def test_dbl_3_weaknesses_and_penalty_dice_remove_dice(table: Table, dice: Script) -> None:
    dice(4)

    page = text(roll(logged_in(table.player), table, abilities=["Fighting"], weaknesses=["Slow"], penalty=1))

    assert latest_state(latest_roll().pk)["steps"][0]["dice"] == [4]
    assert latest_roll().trait == "Fighting - Slow"
    assert "2 + Abilities 2 - Weaknesses 2 - penalty 1 = 1" in page
    assert "Result 4 does not beat Challenging (6)" in page


def test_dbl_2_bonus_dice_from_the_gm_add_dice(table: Table, dice: Script) -> None:
    dice(1, 2, 3, 4, 5)

    page = text(roll(logged_in(table.player), table, bonus=3))

    assert "2 + bonus 3 = 5" in page


def test_dbl_6_dbl_16_below_one_die_the_lowest_of_more_dice_counts(table: Table, dice: Script) -> None:
    dice(5, 3, 4)

    page = text(roll(logged_in(table.player), table, weaknesses=["Reckless", "Slow"], dn="2"))

    assert latest_roll().trait == "Two dice - Reckless - Slow"
    assert "Rolled 3 negative dice (-1), keeping the lowest" in page
    assert "Result 3 beats Easy (2)" in page


def test_dbl_16_any_one_on_negative_dice_is_a_catastrophe(table: Table, dice: Script) -> None:
    dice(6, 1, 6)

    page = text(roll(logged_in(table.player), table, weaknesses=["Reckless", "Slow"], dn="2"))

    assert "Catastrophe! Result 1" in page
    assert "tone-catastrophe" in page


def test_dbl_7_a_tie_does_not_beat_the_difficulty_number(table: Table, dice: Script) -> None:
    dice(3, 3)

    page = text(roll(logged_in(table.player), table, dn="6"))

    assert "Result 6 does not beat Challenging (6)" in page


def test_dbl_5_dbl_15_ones_never_add_and_all_ones_is_a_catastrophe(table: Table, dice: Script) -> None:
    dice(1, 1)

    page = text(roll(logged_in(table.player), table, dn="2"))

    assert "Catastrophe! Result 1" in page
    assert "Every die that counts shows 1: a catastrophic failure." in page


def test_dbl_8_above_twelve_is_an_amazing_success(table: Table, dice: Script) -> None:
    dice(5, 5, 5, 2, 1)

    page = text(roll(logged_in(table.player), table, abilities=["Fighting", "Athletics"], dn="12"))

    assert "Amazing Success! Result 15 against Nigh Impossible (12)" in page
    assert "tone-amazing" in page


def test_dbl_7_dbl_9_an_opposed_roll_waits_for_the_other_side(table: Table, dice: Script) -> None:
    dice(4, 2)

    page = text(roll(logged_in(table.player), table, dn="opposed"))

    assert "Result 4: compare with the other side's roll" in page
    assert latest_state(latest_roll().pk)["request"]["dn"] is None


def test_dbl_12_a_declaration_that_succeeds_becomes_something_the_character_can_do(
    table: Table, dice: Script
) -> None:
    dice(6, 2)

    page = text(roll(logged_in(table.player), table, dn="4", declaration="on"))

    assert "Declaration: it is now something the character can explicitly do." in page


BAD_ROLLS = [
    pytest.param(
        {"abilities": ["Flying"]}, "Select a valid choice. Flying is not one of the available choices."
    ),
    pytest.param({"weaknesses": ["Fighting"]}, "Select a valid choice. Fighting is not one of the available"),
    pytest.param({"dn": "7"}, "Select a valid choice. 7 is not one of the available choices."),
    pytest.param({"dn": ""}, "This field is required."),
    pytest.param({"bonus": "11"}, "Ensure this value is less than or equal to 10."),
    pytest.param({"penalty": "-1"}, "Ensure this value is greater than or equal to 0."),
    pytest.param(
        {"helpers": ["999999"]}, "Select a valid choice. 999999 is not one of the available choices."
    ),
    pytest.param({"bonus": "lots"}, "Enter a whole number."),
    pytest.param(
        {"weaknesses": ["Reckless", "Slow"], "penalty": "8"},
        "The penalties bring the pool to -9; the table stops at -8 (10 dice, keep the lowest).",
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


def test_rolling_another_players_character_is_forbidden(table: Table, dice: Script) -> None:
    kim = factories.member(table.campaign, name="Kim").user
    before = everything(table.campaign)
    dice()

    assert_refused(roll(logged_in(kim), table), 403, "Only this character's player or the GM can do that.")
    assert everything(table.campaign) == before


# -- the odds ------------------------------------------------------------------------------------


def test_the_odds_of_two_abilities_are_exact_with_drama_dice(table: Table) -> None:
    response = odds(logged_in(table.player), table, abilities=["Fighting", "Athletics"], dn="6")

    assert response.status_code == 200
    # 5 dice beat 6 with 2215/3888; each drama die joins them before the result is read.
    assert visible_text(response) == (
        "Fighting + Athletics: 5 dice 57% to beat Challenging (6) "
        "With drama dice: 1 72% · 2 83% · 3 91% Catastrophe <1% · Amazing Success 7%"
    )


def test_the_odds_of_the_basic_pool(table: Table) -> None:
    response = odds(logged_in(table.player), table, dn="4")

    # Two dice beat 4 with 22/36: a 5 or a 6, or 3-3, or 4-4.
    assert visible_text(response) == (
        "Two dice: 2 dice 61% to beat Moderate (4) "
        "With drama dice: 1 80% · 2 91% · 3 97% Catastrophe 3% · Amazing Success 0%"
    )


def test_dbl_6_the_odds_show_a_negative_pool_as_such(table: Table) -> None:
    response = odds(logged_in(table.player), table, weaknesses=["Reckless", "Slow"], dn="2")

    # Three dice, keep the lowest: it beats 2 when all three show 3 or more, (4/6)^3 = 8/27;
    # any 1 among them is a catastrophe, 1 - (5/6)^3.
    assert visible_text(response) == (
        "Two dice - Reckless - Slow: \N{MINUS SIGN}1 die: roll 3, keep the lowest 30% to beat Easy (2) "
        "With drama dice: 1 59% · 2 79% · 3 90% Catastrophe 42% · Amazing Success 0%"
    )


def test_dbl_6_at_zero_dice_two_roll_and_the_lowest_counts(table: Table) -> None:
    response = odds(logged_in(table.player), table, weaknesses=["Slow"], dn="2")

    # Two dice, keep the lowest, beats 2 with (4/6)^2 = 4/9.
    assert visible_text(response).startswith("Two dice - Slow: 0 dice: roll 2, keep the lowest 44% to beat")


def test_the_odds_of_an_opposed_roll_have_nothing_to_beat(table: Table) -> None:
    response = odds(logged_in(table.player), table, abilities=["Fighting"], dn="opposed")

    assert visible_text(response) == (
        "Fighting: 4 dice Opposed: the higher result wins Catastrophe <1% · Amazing Success 3%"
    )


def test_the_odds_follow_every_choice(table: Table) -> None:
    client = logged_in(table.player)
    plain = visible_text(odds(client, table, dn="6"))
    more = visible_text(odds(client, table, dn="6", bonus=3))

    assert plain.startswith("Two dice: 2 dice 8% to beat Challenging (6)")  # 4-4, 5-5, 6-6
    assert more.startswith("Two dice: 5 dice 57% to beat Challenging (6)")


def test_the_odds_explain_an_impossible_pool_and_write_nothing(table: Table) -> None:
    before = everything(table.campaign)

    response = odds(logged_in(table.player), table, weaknesses=["Reckless", "Slow"], penalty=8, dn="4")

    assert response.status_code == 200
    assert visible_text(response) == (
        "The penalties bring the pool to -9; the table stops at -8 (10 dice, keep the lowest)."
    )
    assert everything(table.campaign) == before


# -- drama dice ----------------------------------------------------------------------------------


def failed_roll(client: Client, table: Table, dice: Script, **data: Any) -> Roll:
    dice(2, 3)
    response = roll(client, table, dn="6", **data)
    assert "does not beat" in text(response), text(response)
    return latest_roll()


def test_dbl_10_a_failed_roll_offers_drama_dice_with_their_odds_and_a_miracle(
    table: Table, dice: Script
) -> None:
    dice(5, 3)

    page = text(roll(logged_in(table.player), table))

    assert "follow-up-drama" in page
    # DBL-10: each count on offer (30 Endurance: six dice) carries its own exact chance.
    made = Roll.objects.get()
    chances = registry.engine("doubles").drama_chances(made.current_state(), 6)
    assert '<option value="1">1 die: 0% -> 17%</option>' in page  # a second 5
    for count in range(2, 7):
        assert f'<option value="{count}">{count} dice: 0% -> {percent(chances[count])}</option>' in page
    assert chances[2] > chances[1]
    assert '<option value="7">' not in page
    assert "costs 5 Endurance per die" in page
    assert "follow-up-miracle" in page
    assert "costs 30 Endurance if the GM approves" in page
    # The GM's decisions are not the player's to take.
    assert "follow-up-miracle_approve" not in page


def test_dbl_10_drama_dice_bought_after_the_roll_cost_five_endurance_each(table: Table, dice: Script) -> None:
    client = logged_in(table.player)
    made = failed_roll(client, table, dice)
    dice(3, 6)

    response = follow(client, table, made.pk, "drama", count=2)

    page = text(response)
    entry = LogEntry.objects.filter(roll=made).order_by("-seq")[0]
    assert response.status_code == 200
    assert (entry.kind, entry.action, entry.actor) == ("follow-up", "drama", table.player)
    assert entry.state["steps"][-1] == {"action": "drama", "dice": [3, 6]}
    assert "Drama: 2 more dice for 10 Endurance" in page
    assert "Result 6 does not beat Challenging (6)" in page  # 3-3 adds up to 6: still a tie
    assert "2 drama dice bought." in page
    assert endurance(table.character) == (20, 10)


def test_dbl_10_drama_dice_may_be_bought_again_while_endurance_lasts(table: Table, dice: Script) -> None:
    client = logged_in(table.player)
    made = failed_roll(client, table, dice)
    set_endurance(table.character, 10)
    dice(1)
    follow(client, table, made.pk, "drama", count=1)
    dice(5)

    response = follow(client, table, made.pk, "drama", count=1)

    assert "Result 5 does not beat Challenging (6)" in text(response)
    assert endurance(table.character) == (0, 10)
    assert "follow-up-drama" not in text(response)  # nothing left to pay with
    before = everything(table.campaign)
    dice()
    assert_refused(
        follow(client, table, made.pk, "drama", count=1),
        422,
        "A drama die costs 5 Endurance, and there is not enough left.",
    )
    assert everything(table.campaign) == before


def test_dbl_10_drama_dice_can_turn_a_failure_into_a_success(table: Table, dice: Script) -> None:
    client = logged_in(table.player)
    made = failed_roll(client, table, dice)
    dice(3, 3)

    page = text(follow(client, table, made.pk, "drama", count=2))

    assert "Result 9 beats Challenging (6)" in page
    assert "tone-success" in page


@pytest.mark.parametrize(
    ("count", "message"),
    [
        ("7", "The number of drama dice must be between 1 and 6 (got 7)."),
        ("0", "The number of drama dice must be between 1 and 6 (got 0)."),
        ("two", "The number of drama dice must be a whole number."),
    ],
)
def test_dbl_10_more_drama_dice_than_endurance_pays_for_are_refused(
    table: Table, dice: Script, count: str, message: str
) -> None:
    client = logged_in(table.player)
    made = failed_roll(client, table, dice)
    before = everything(table.campaign)
    dice()

    assert_refused(follow(client, table, made.pk, "drama", count=count), 422, message)
    assert everything(table.campaign) == before


def test_dbl_10_no_drama_dice_on_an_earlier_roll(table: Table, dice: Script) -> None:
    """DBL-10 (decided): once the character has rolled again, the earlier action is over."""
    client = logged_in(table.player)
    first = failed_roll(client, table, dice)
    failed_roll(client, table, dice)
    before = everything(table.campaign)
    dice()

    for action, params in (("drama", {"count": 1}), ("miracle", {})):
        response = follow(client, table, first.pk, action, **params)
        assert_refused(response, 422, "Drama dice and miracles go on the character's latest roll only.")
    assert everything(table.campaign) == before


def test_another_player_cannot_buy_drama_dice_for_someone_elses_character(table: Table, dice: Script) -> None:
    kim = factories.member(table.campaign, name="Kim").user
    made = failed_roll(logged_in(table.player), table, dice)
    before = everything(table.campaign)
    dice()

    for action, params in (("drama", {"count": 1}), ("miracle", {})):
        response = follow(logged_in(kim), table, made.pk, action, **params)
        assert_refused(response, 403, "Only this character's player or the GM can do that.")
    assert everything(table.campaign) == before


def test_an_unknown_follow_up_is_refused(table: Table, dice: Script) -> None:
    client = logged_in(table.player)
    made = failed_roll(client, table, dice)
    before = everything(table.campaign)
    dice()

    assert_refused(follow(client, table, made.pk, "push"), 422, "'push' is not a follow-up in this system.")
    assert everything(table.campaign) == before


@pytest.mark.django_db(transaction=True)
def test_dbl_10_endurance_is_spent_once_when_many_buy_the_last_drama_die_at_once(table: Table) -> None:
    """Twenty taps at the same moment on the last 5 Endurance: one drama die, paid once."""
    made = services.roll_create(
        character=table.character,
        roller=table.player,
        data={"dn": "6"},
        helper=None,
        intent="",
        rng=ScriptedDice(2, 3),
    )
    set_endurance(table.character, 5)
    requests = 20
    barrier = threading.Barrier(requests)
    outcomes: Counter[str] = Counter()
    lock = threading.Lock()

    def attempt() -> None:
        try:
            barrier.wait()
            services.follow_up_apply(
                roll=made, actor=table.player, action="drama", params={"count": 1}, rng=random.Random()
            )
            result = "applied"
        except RulesError:
            result = "refused"
        except Exception as error:
            result = f"error: {error}"
        finally:
            connection.close()
        with lock:
            outcomes[result] += 1

    threads = [threading.Thread(target=attempt) for _ in range(requests)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)

    assert outcomes == Counter({"applied": 1, "refused": requests - 1})
    assert endurance(table.character) == (0, 5)
    assert LogEntry.objects.filter(roll=made, action="drama").count() == 1


# -- miracles ------------------------------------------------------------------------------------


def test_dbl_11_a_miracle_asked_for_waits_for_the_gm_and_costs_nothing_yet(
    table: Table, dice: Script
) -> None:
    client = logged_in(table.player)
    made = failed_roll(client, table, dice)
    dice()

    response = follow(client, table, made.pk, "miracle")

    page = text(response)
    assert response.status_code == 200
    assert "Asked for a miracle" in page
    assert "A miracle is asked for: the GM approves or refuses it." in page
    assert "follow-up-drama" not in page  # not while the GM decides
    assert "follow-up-miracle_approve" not in page
    assert endurance(table.character) == (30, 0)
    # The GM sees the decision to take on the character's card.
    gm_page = text(logged_in(table.gm).get(table.character.get_absolute_url()))
    assert "follow-up-miracle_approve" in gm_page
    assert "follow-up-miracle_refuse" in gm_page


def test_dbl_11_the_gm_approves_a_miracle_which_costs_thirty_endurance_and_succeeds(
    table: Table, dice: Script
) -> None:
    client = logged_in(table.player)
    made = failed_roll(client, table, dice)
    follow(client, table, made.pk, "miracle")
    dice()

    response = follow(logged_in(table.gm), table, made.pk, "miracle_approve")

    page = text(response)
    entry = LogEntry.objects.filter(roll=made).order_by("-seq")[0]
    assert response.status_code == 200
    assert (entry.action, entry.actor) == ("miracle_approve", table.gm)
    assert "Miracle approved: 30 Endurance" in page
    assert "Result 7 beats Challenging (6)" in page
    assert "The dice showed 3; the miracle makes it 7." in page
    assert endurance(table.character) == (0, 0)  # DBL-11: not held for the Adventure


def test_dbl_11_when_the_degree_matters_six_dice_join_the_approved_miracle(
    table: Table, dice: Script
) -> None:
    client = logged_in(table.player)
    made = failed_roll(client, table, dice, degree_matters="on")
    follow(client, table, made.pk, "miracle")
    dice(4, 4, 4, 1, 2, 5)

    page = text(follow(logged_in(table.gm), table, made.pk, "miracle_approve"))

    assert "Six dice join the roll: the degree matters." in page
    assert "Result 12 beats Challenging (6)" in page


def test_dbl_11_the_gm_refuses_a_miracle_and_the_roll_stands(table: Table, dice: Script) -> None:
    client = logged_in(table.player)
    made = failed_roll(client, table, dice)
    follow(client, table, made.pk, "miracle")
    dice()

    page = text(follow(logged_in(table.gm), table, made.pk, "miracle_refuse"))

    assert "The GM refused the miracle" in page
    assert "Result 3 does not beat Challenging (6)" in page
    assert endurance(table.character) == (30, 0)
    before = everything(table.campaign)
    assert_refused(
        follow(client, table, made.pk, "miracle"), 422, "A miracle has been asked for on this roll already."
    )
    assert everything(table.campaign) == before


def test_dbl_11_a_player_cannot_approve_or_refuse_their_own_miracle(table: Table, dice: Script) -> None:
    client = logged_in(table.player)
    made = failed_roll(client, table, dice)
    follow(client, table, made.pk, "miracle")
    before = everything(table.campaign)
    dice()

    assert_refused(follow(client, table, made.pk, "miracle_approve"), 422, "Only the GM can do that")
    assert_refused(follow(client, table, made.pk, "miracle_refuse"), 422, "Only the GM can do that")
    assert everything(table.campaign) == before


def test_dbl_11_a_miracle_is_approved_once_and_paid_once(table: Table, dice: Script) -> None:
    client = logged_in(table.player)
    made = failed_roll(client, table, dice)
    set_endurance(table.character, 40)
    follow(client, table, made.pk, "miracle")
    gm = logged_in(table.gm)
    follow(gm, table, made.pk, "miracle_approve")
    before = everything(table.campaign)
    dice()

    assert_refused(follow(gm, table, made.pk, "miracle_approve"), 422, "No miracle is waiting for the GM")
    assert everything(table.campaign) == before
    assert endurance(table.character) == (10, 0)


def test_dbl_11_a_miracle_needs_thirty_endurance(table: Table, dice: Script) -> None:
    client = logged_in(table.player)
    made = failed_roll(client, table, dice)
    set_endurance(table.character, 29)
    before = everything(table.campaign)
    dice()

    page = text(client.get(table.character.get_absolute_url()))
    response = follow(client, table, made.pk, "miracle")

    assert "follow-up-miracle" not in page
    assert_refused(response, 422, "A miracle costs 30 Endurance, and there is not enough left.")
    assert everything(table.campaign) == before


def test_dbl_11_the_gm_cannot_approve_a_miracle_the_character_can_no_longer_pay(
    table: Table, dice: Script
) -> None:
    client = logged_in(table.player)
    made = failed_roll(client, table, dice)
    follow(client, table, made.pk, "miracle")
    set_endurance(table.character, 20, drama_spent=10)
    before = everything(table.campaign)
    dice()

    response = follow(logged_in(table.gm), table, made.pk, "miracle_approve")

    assert_refused(response, 422, "A miracle costs 30 Endurance, and there is not enough left.")
    assert everything(table.campaign) == before


def test_dbl_11_no_miracle_for_a_roll_that_succeeds_already(table: Table, dice: Script) -> None:
    client = logged_in(table.player)
    dice(6, 5)
    page = text(roll(client, table, dn="4"))
    before = everything(table.campaign)
    dice()

    response = follow(client, table, latest_roll().pk, "miracle")

    assert "follow-up-miracle" not in page
    assert_refused(response, 422, "This roll succeeds already; a miracle would change nothing.")
    assert everything(table.campaign) == before


# -- the GM's clocks -----------------------------------------------------------------------------


def test_a_long_rest_brings_endurance_back_except_what_went_on_drama(table: Table) -> None:
    """DBL-10: Endurance spent on drama dice is not regained the usual way."""
    bo = table_services.character_create(
        campaign=table.campaign, owner=table.gm, name="Bo", sheet=doubles_sheet(endurance_max=20)
    )
    set_endurance(table.character, 3, drama_spent=15)
    set_endurance(bo, 2)

    response = logged_in(table.gm).post(
        reverse("rolls:long-rest", args=[table.campaign.pk]), {"confirmed": "yes"}, follow=True
    )

    assert "Everyone takes a long rest." in text(response)
    assert endurance(table.character) == (15, 15)
    assert endurance(bo) == (20, 0)
    last = LogEntry.objects.filter(campaign=table.campaign).order_by("-seq")[0]
    assert (last.action, last.text) == (
        "long-rest",
        "A long rest: Endurance comes back, except what went on drama dice.",
    )


def test_dbl_11_a_miracles_endurance_comes_back_with_a_long_rest_drama_waits(
    table: Table, dice: Script
) -> None:
    """DBL-10, DBL-11: only drama Endurance waits for the next Adventure; the 30 a miracle
    cost come back with the next long rest, as the rules page says."""
    client = logged_in(table.player)
    made = failed_roll(client, table, dice)
    set_endurance(table.character, 40)
    dice(1)
    follow(client, table, made.pk, "drama", count=1)
    follow(client, table, made.pk, "miracle")
    gm = logged_in(table.gm)
    follow(gm, table, made.pk, "miracle_approve")
    assert endurance(table.character) == (5, 5)

    gm.post(reverse("rolls:long-rest", args=[table.campaign.pk]), {"confirmed": "yes"})

    assert endurance(table.character) == (25, 5)  # the sheet's 30, less the drama die's 5
    rules = text(client.get(reverse("rolls:rules-system", args=["doubles"])))
    assert "The 30 a miracle costs returns the ordinary way, with the next long rest" in rules


def test_a_long_rest_never_lowers_endurance(table: Table) -> None:
    set_endurance(table.character, 30)

    logged_in(table.gm).post(reverse("rolls:long-rest", args=[table.campaign.pk]), {"confirmed": "yes"})

    assert endurance(table.character) == (30, 0)


def test_dbl_10_a_new_adventure_brings_back_what_went_on_drama(table: Table) -> None:
    set_endurance(table.character, 3, drama_spent=15)

    response = logged_in(table.gm).post(
        reverse("rolls:mystery-start", args=[table.campaign.pk]), {"confirmed": "yes"}, follow=True
    )

    table.campaign.refresh_from_db()
    assert "New Adventure: done." in text(response)
    assert table.campaign.mystery == 2
    assert endurance(table.character) == (30, 0)
    last = LogEntry.objects.filter(campaign=table.campaign).order_by("-seq")[0]
    assert (last.action, last.text) == (
        "mystery-start",
        "Adventure 2 begins. Endurance is full again, and what went on drama dice is back.",
    )


def test_a_new_play_session_does_not_refill_endurance(table: Table) -> None:
    set_endurance(table.character, 3, drama_spent=15)
    gm = logged_in(table.gm)

    gm.post(reverse("rolls:session-end", args=[table.campaign.pk]), {"confirmed": "yes"})
    gm.post(reverse("rolls:session-start", args=[table.campaign.pk]))

    assert endurance(table.character) == (3, 15)


@pytest.mark.parametrize("control", ["rolls:long-rest", "rolls:mystery-start"])
def test_a_player_may_not_move_the_clocks(table: Table, control: str) -> None:
    set_endurance(table.character, 3, drama_spent=15)
    before = everything(table.campaign)

    response = logged_in(table.player).post(reverse(control, args=[table.campaign.pk]))

    assert response.status_code == 403
    assert everything(table.campaign) == before


def test_dbl_10_the_odds_show_only_the_drama_dice_the_endurance_pays_for(table: Table) -> None:
    """DBL-10: each drama die costs 5 Endurance; with 10 left the form offers the odds of one
    or two drama dice, with 4 left none."""
    table.character.endurance = 10
    table.character.save(update_fields=["endurance"])
    response = odds(logged_in(table.player), table, abilities=["Fighting", "Athletics"], dn="6")
    assert "With drama dice: 1 72% · 2 83% Catastrophe" in visible_text(response)
    table.character.endurance = 4
    table.character.save(update_fields=["endurance"])
    response = odds(logged_in(table.player), table, abilities=["Fighting", "Athletics"], dn="6")
    assert "drama" not in visible_text(response)
