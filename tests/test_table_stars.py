"""`stars` at the table, through the views: the campaign, the sheet (Stats, Skills with their
training, Edges), rolls with scripted dice and what their cards say, the exact odds, Luck
spent on rerolls under the row lock, and the GM's clocks (new Adventure, long rest)."""

from __future__ import annotations

import random
import threading
from collections import Counter
from typing import Any

import pytest
from django.db import connection
from django.http import HttpResponse
from django.test import Client
from django.urls import reverse

from rolls import registry
from rolls.campaigns import services
from rolls.models import LogEntry, Roll
from rolls.play import services as roll_services
from rolls.systems import RulesError
from rolls.systems.stars import EDGES, SKILLS, STATS
from rolls.tables.stars.forms import key_of
from tabletop.models import Campaign, Character
from tests import factories
from tests.factories import ScriptedDice, Table, logged_in
from tests.test_rolls import (
    assert_refused,
    dice_now,
    everything,
    latest_roll,
    latest_state,
    text,
    visible_text,
)


def stars_sheet(
    stats: dict[str, int] | None = None,
    skills: dict[str, str] | None = None,
    edges: dict[str, str] | None = None,
) -> dict[str, Any]:
    return {
        "stats": {stat: 2 for stat in STATS} | (stats or {}),
        "skills": {skill: "untrained" for skill in SKILLS} | (skills or {}),
        "edges": edges or {},
    }


def sheet_form(character: str = "Dave", **overrides: Any) -> dict[str, Any]:
    """The POST data of the stars sheet form, with the defaults."""
    data: dict[str, Any] = {"name": character}
    data |= {stat.lower(): 2 for stat in STATS}
    data |= {f"skill_{key_of(skill)}": "untrained" for skill in SKILLS}
    data |= {f"edge_{key_of(edge)}": "" for edge in EDGES}
    data.update(overrides)
    return data


# The tests here call the shared table by the name of its system.
StarsTable = Table


def stars_table() -> StarsTable:
    """A stars campaign with a GM, a player whose hero is Dave, an outsider; session open."""
    return factories.table(
        "stars",
        campaign_name="Stick it to the Man",
        character_name="Dave",
        sheet=stars_sheet(
            {"Vigor": 5, "Agility": 3},
            {"Athletics": "novice", "Stealth": "adept", "Melee": "professional"},
        ),
    )


@pytest.fixture
def stars(db: None) -> StarsTable:
    return stars_table()


def roll(
    client: Client, table: StarsTable, stat: str = "Agility", skill: str = "", **extra: Any
) -> HttpResponse:
    data = {"stat": stat, "skill": skill, "advantage": "none", **extra}
    path = reverse("rolls:roll-create", args=[table.campaign.pk, table.character.pk])
    return client.post(path, data, HTTP_HX_REQUEST="true")


def follow(client: Client, table: StarsTable, roll_id: int, action: str) -> HttpResponse:
    path = reverse("rolls:follow-up", args=[table.campaign.pk, roll_id])
    return client.post(path, {"action": action}, HTTP_HX_REQUEST="true")


def odds(
    client: Client, table: StarsTable, stat: str = "Agility", skill: str = "", **query: Any
) -> HttpResponse:
    data = {"stat": stat, "skill": skill, "advantage": "none", **query}
    return client.get(reverse("rolls:odds", args=[table.campaign.pk, table.character.pk]), data)


def luck_of(character: Character) -> int:
    character.refresh_from_db()
    return character.luck


def set_luck(character: Character, luck: int) -> None:
    Character.objects.filter(pk=character.pk).update(luck=luck)


# -- the campaign --------------------------------------------------------------------------------


def test_a_gm_creates_a_stars_campaign_with_a_new_adventure_and_a_long_rest(db: None) -> None:
    gm = factories.user("gunilla")
    client = logged_in(gm)

    response = client.post(
        reverse("rolls:campaign-new"), {"name": "Stick it", "system": "stars", "display_name": "GM"}
    )

    campaign = Campaign.objects.get()
    assert response.status_code == 302
    assert (campaign.system, campaign.gm) == ("stars", gm)
    page = text(client.get(response["Location"]))
    assert ">New Adventure</button>" in page
    assert ">Long rest</button>" in page


# -- the sheet -----------------------------------------------------------------------------------


def test_str_13_the_new_sheet_lists_the_stats_skills_and_edges_with_editable_defaults(
    stars: StarsTable,
) -> None:
    page = text(logged_in(stars.player).get(reverse("rolls:character-new", args=[stars.campaign.pk])))

    for stat in STATS:
        assert f'name="{stat.lower()}" value="2" min="1" max="5"' in page
    for skill in SKILLS:
        assert f'<select name="skill_{key_of(skill)}"' in page
    assert '<option value="untrained" selected>Untrained</option>' in page
    assert '<option value="professional">Professional</option>' in page
    for edge in EDGES:
        assert f'<select name="edge_{key_of(edge)}"' in page
    assert '<option value="advanced">Advanced</option>' in page
    assert 'name="luck"' not in page


def test_str_12_a_new_hero_starts_with_full_luck(stars: StarsTable) -> None:
    client = logged_in(stars.player)

    response = client.post(
        reverse("rolls:character-new", args=[stars.campaign.pk]),
        sheet_form("Ann", smarts=4, skill_bookworm="adept", edge_dodge="basic"),
    )

    ann = Character.objects.get(name="Ann")
    assert response.status_code == 302
    assert ann.sheet["stats"] == {"Vigor": 2, "Agility": 2, "Smarts": 4, "Presence": 2}
    assert ann.sheet["skills"]["Bookworm"] == "adept"
    assert ann.sheet["skills"]["Aim"] == "untrained"
    assert ann.sheet["edges"] == {"Dodge!": "basic"}
    assert ann.luck == 3
    sheet = text(client.get(reverse("rolls:character-sheet", args=[stars.campaign.pk, ann.pk])))
    assert "Luck 3 of 3" in sheet
    assert "<dt>Smarts</dt><dd>4 <small" in sheet
    assert "Superb" in sheet
    assert "Bookworm <b>Adept</b>" in sheet
    assert "Dodge! · Basic" in sheet


@pytest.mark.parametrize(("rating", "luck"), [("basic", 4), ("advanced", 5)])
def test_str_12_charmed_life_raises_the_luck_a_new_hero_starts_with(
    stars: StarsTable, rating: str, luck: int
) -> None:
    logged_in(stars.player).post(
        reverse("rolls:character-new", args=[stars.campaign.pk]),
        sheet_form("Lucky", edge_charmed_life=rating),
    )

    assert Character.objects.get(name="Lucky").luck == luck


BAD_SHEETS = [
    pytest.param({"vigor": 0}, "Ensure this value is greater than or equal to 1.", id="stat-0"),
    pytest.param({"vigor": 6}, "Ensure this value is less than or equal to 5.", id="stat-6"),
    pytest.param({"agility": ""}, "This field is required.", id="stat-missing"),
    pytest.param(
        {"skill_aim": "expert"},
        "Select a valid choice. expert is not one of the available choices.",
        id="training",
    ),
    pytest.param(
        {"edge_allure": "legendary"},
        "Select a valid choice. legendary is not one of the available choices.",
        id="edge-rating",
    ),
    pytest.param({"name": ""}, "This field is required.", id="no-name"),
]


@pytest.mark.parametrize(("overrides", "message"), BAD_SHEETS)
def test_str_13_a_sheet_out_of_the_lists_is_refused_and_nothing_is_created(
    stars: StarsTable, overrides: dict[str, Any], message: str
) -> None:
    before = everything(stars.campaign)

    response = logged_in(stars.player).post(
        reverse("rolls:character-new", args=[stars.campaign.pk]), sheet_form("Ann", **overrides)
    )

    assert response.status_code == 200
    assert message in text(response)
    assert everything(stars.campaign) == before


def test_editing_the_sheet_shows_it_as_saved_and_changes_it(stars: StarsTable) -> None:
    client = logged_in(stars.player)
    path = reverse("rolls:character-edit", args=[stars.campaign.pk, stars.character.pk])
    page = text(client.get(path))
    assert 'name="vigor" value="5"' in page
    assert '<option value="adept" selected>Adept</option>' in page

    response = client.post(path, sheet_form("Dave", vigor=4, skill_stealth="professional"))

    assert response.status_code == 302
    stars.character.refresh_from_db()
    assert stars.character.sheet["stats"]["Vigor"] == 4
    assert stars.character.sheet["skills"]["Stealth"] == "professional"
    assert stars.character.sheet["skills"]["Melee"] == "untrained"


def test_a_refused_edit_changes_nothing(stars: StarsTable) -> None:
    before = everything(stars.campaign)
    path = reverse("rolls:character-edit", args=[stars.campaign.pk, stars.character.pk])

    response = logged_in(stars.player).post(path, sheet_form("Dave", presence=9))

    assert response.status_code == 200
    assert "Ensure this value is less than or equal to 5." in text(response)
    assert everything(stars.campaign) == before


def test_str_12_the_sheet_form_cannot_set_luck(stars: StarsTable) -> None:
    set_luck(stars.character, 1)
    path = reverse("rolls:character-edit", args=[stars.campaign.pk, stars.character.pk])

    response = logged_in(stars.player).post(path, sheet_form("Dave", luck=3, edge_charmed_life="advanced"))

    assert response.status_code == 302
    # A bigger maximum gives nothing now: Luck comes back with rests and Adventures.
    assert luck_of(stars.character) == 1


def test_str_12_losing_charmed_life_takes_the_luck_above_the_new_maximum(stars: StarsTable) -> None:
    path = reverse("rolls:character-edit", args=[stars.campaign.pk, stars.character.pk])
    client = logged_in(stars.player)
    client.post(path, sheet_form("Dave", edge_charmed_life="advanced"))
    logged_in(stars.gm).post(reverse("rolls:mystery-start", args=[stars.campaign.pk]), {"confirmed": "yes"})
    assert luck_of(stars.character) == 5

    client.post(path, sheet_form("Dave"))

    assert luck_of(stars.character) == 3


# -- the roll screen -----------------------------------------------------------------------------


def test_the_roll_screen_offers_the_stats_the_trained_skills_first_advantage_and_a_d3(
    stars: StarsTable,
) -> None:
    page = text(logged_in(stars.player).get(stars.character.get_absolute_url()))

    assert '<span class="pill">Luck 3 of 3</span>' in page
    assert 'name="stat" value="Vigor" checked' in page
    assert 'Vigor <b>5</b> <small class="muted">World Class</small>' in page
    assert 'name="skill" value="" checked' in page
    trained = [page.index(f'name="skill" value="{skill}"') for skill in ("Melee", "Stealth", "Athletics")]
    assert trained == sorted(trained)
    assert (
        trained[-1] < page.index("Untrained Skills (difficulty 5)") < page.index('name="skill" value="Aim"')
    )
    assert 'Stealth <small class="muted">Adept · 3+</small>' in page
    for value in ("disadvantage", "none", "advantage"):
        assert f'name="advantage" value="{value}"' in page
    assert 'hx-vals=\'{"kind": "d3"}\'' in page
    assert ">Roll a d3</button>" in page


# -- rolling -------------------------------------------------------------------------------------


def test_str_1_str_3_str_4_a_test_rolls_the_stat_and_counts_stars(stars: StarsTable, dice: Any) -> None:
    dice(6, 5, 2)

    response = roll(logged_in(stars.player), stars, "Agility", intent="I sneak past the guard")

    made = latest_roll()
    page = visible_text(text(response))
    assert response.status_code == 200
    assert dice_now(made.pk) == [6, 5, 2]
    assert made.trait == "Agility"
    assert latest_state(made.pk)["request"] == {
        "dice": 3,
        "training": "untrained",
        "difficulty": None,
        "advantage": False,
        "disadvantage": False,
        "kind": "test",
    }
    assert "I sneak past the guard" in page
    assert "Rolled 3 dice at difficulty 5" in page
    # The six is worth two Stars, the five one.
    assert "Success: 3 Stars" in page


def test_str_5_a_five_star_card_says_the_task_took_half_the_time(stars: StarsTable, dice: Any) -> None:
    """STR-5: five Stars (two sixes and a five) is done in half the time: the card says so, for
    the GM to narrate; four Stars says nothing of it."""
    dice(6, 6, 5)
    five = visible_text(text(roll(logged_in(stars.player), stars)))
    assert "Breathtaking: 5 Stars" in five and "in half the usual time" in five
    dice(6, 6, 2)
    four = visible_text(text(roll(logged_in(stars.player), stars)))
    assert "Success: 4 Stars" in four and "half the usual time" not in four


def test_str_5_no_star_is_a_failure(stars: StarsTable, dice: Any) -> None:
    dice(4, 3, 2)

    response = roll(logged_in(stars.player), stars)

    assert "Failure: no Stars" in text(response)
    assert "tone-failure" in text(response)


def test_str_6_training_lowers_the_difficulty(stars: StarsTable, dice: Any) -> None:
    dice(3, 3, 2)

    response = roll(logged_in(stars.player), stars, "Agility", "Stealth")

    page = visible_text(text(response))
    assert latest_roll().trait == "Agility (Stealth)"
    assert "Rolled 3 dice at difficulty 3" in page
    assert "Success: 2 Stars" in page


def test_str_6_novice_training_is_difficulty_four(stars: StarsTable, dice: Any) -> None:
    dice(4, 1, 1, 2, 3)

    response = roll(logged_in(stars.player), stars, "Vigor", "Athletics")

    assert "Rolled 5 dice at difficulty 4" in visible_text(text(response))
    assert "Success: 1 Star" in visible_text(text(response))


def test_str_6_an_untrained_skill_only_names_the_roll(stars: StarsTable, dice: Any) -> None:
    dice(4, 4, 4)

    response = roll(logged_in(stars.player), stars, "Agility", "Aim")

    assert latest_roll().trait == "Agility (Aim)"
    assert "Rolled 3 dice at difficulty 5" in visible_text(text(response))


def test_str_8_more_than_half_ones_is_a_botch(stars: StarsTable, dice: Any) -> None:
    dice(1, 1, 6)

    response = roll(logged_in(stars.player), stars)

    assert "Botch: the worst possible result" in text(response)
    assert "tone-catastrophe" in text(response)


def test_str_7_professional_training_turns_a_botch_into_a_failure(stars: StarsTable, dice: Any) -> None:
    dice(1, 1, 1, 6, 6)

    response = roll(logged_in(stars.player), stars, "Vigor", "Melee")

    page = visible_text(text(response))
    assert "Failure: no Stars" in page
    assert "A botch, but Professional training makes it a plain failure." in page
    assert "Botch:" not in page


def test_str_10_advantage_rolls_twice_and_keeps_more_stars(stars: StarsTable, dice: Any) -> None:
    dice(2, 3, 4, 6, 1, 2)

    response = roll(logged_in(stars.player), stars, advantage="advantage")

    page = visible_text(text(response))
    assert latest_state(latest_roll().pk)["steps"][0]["rolls"] == [[2, 3, 4], [6, 1, 2]]
    assert "Rolled 3 dice twice (advantage) at difficulty 5" in page
    assert "Kept 2 Stars; dropped 0 Stars." in page
    assert "Success: 2 Stars" in page
    assert "Rolled twice, kept the roll with more Stars." in page


def test_str_10_disadvantage_rolls_twice_and_keeps_fewer_stars(stars: StarsTable, dice: Any) -> None:
    dice(6, 6, 6, 5, 2, 2)

    response = roll(logged_in(stars.player), stars, advantage="disadvantage")

    page = visible_text(text(response))
    assert "Rolled 3 dice twice (disadvantage) at difficulty 5" in page
    assert "Success: 1 Star" in page
    assert "Rolled twice, kept the roll with fewer Stars." in page


@pytest.mark.parametrize(("face", "value"), [(1, 1), (2, 1), (3, 2), (4, 2), (5, 3), (6, 3)])
def test_str_2_a_d3_is_a_d6_halved(stars: StarsTable, dice: Any, face: int, value: int) -> None:
    dice(face)

    # The d3 button sends the whole form with kind=d3: the Stat, Skill and advantage do not matter.
    response = roll(logged_in(stars.player), stars, "Vigor", "Melee", advantage="advantage", kind="d3")

    assert response.status_code == 200
    assert latest_roll().trait == "d3"
    assert latest_state(latest_roll().pk)["request"]["kind"] == "d3"
    assert f"d3: {value}" in visible_text(text(response))


def test_str_2_a_d3_needs_no_stat(stars: StarsTable, dice: Any) -> None:
    dice(6)
    path = reverse("rolls:roll-create", args=[stars.campaign.pk, stars.character.pk])

    response = logged_in(stars.player).post(path, {"kind": "d3"}, HTTP_HX_REQUEST="true")

    assert response.status_code == 200
    assert "d3: 3" in visible_text(text(response))


BAD_ROLLS = [
    pytest.param(
        {"stat": "Strength"}, "Select a valid choice. Strength is not one of the available choices."
    ),
    pytest.param({"stat": ""}, "Choose a Stat to roll."),
    pytest.param(
        {"skill": "Juggling"}, "Select a valid choice. Juggling is not one of the available choices."
    ),
    pytest.param({"advantage": "both"}, "Select a valid choice. both is not one of the available choices."),
    pytest.param({"kind": "d4"}, "Select a valid choice. d4 is not one of the available choices."),
    pytest.param({"intent": "x" * 201}, "Ensure this value has at most 200 characters (it has 201)."),
]


@pytest.mark.parametrize(("data", "message"), BAD_ROLLS)
def test_a_roll_with_a_bad_value_is_refused_and_changes_nothing(
    stars: StarsTable, dice: Any, data: dict[str, str], message: str
) -> None:
    before = everything(stars.campaign)
    dice()

    response = roll(logged_in(stars.player), stars, **data)

    assert_refused(response, 422, message)
    assert everything(stars.campaign) == before


# -- the odds ------------------------------------------------------------------------------------


def test_str_3_the_odds_of_a_stat_alone_are_exact(stars: StarsTable) -> None:
    response = odds(logged_in(stars.player), stars, "Agility")

    # 3 dice at 5+: 1 - (4/6)^3, less the botches (two ones) that hold a Star: 68%.
    assert response.status_code == 200
    assert visible_text(text(response)) == (
        "Agility: 3 dice at difficulty 5 68% to earn a Star Botch 7% · With Luck after a failure 89%"
    )


def test_str_6_str_7_the_odds_follow_the_skill(stars: StarsTable) -> None:
    client = logged_in(stars.player)

    stealth = visible_text(text(odds(client, stars, "Agility", "Stealth")))
    melee = visible_text(text(odds(client, stars, "Agility", "Melee")))

    assert stealth == (
        "Agility (Stealth): 3 dice at difficulty 3 91% to earn a Star Botch 7% · With Luck after a failure >99%"
    )
    assert melee == (
        "Agility (Melee): 3 dice at difficulty 3 91% to earn a Star No botch: Professional · "
        "With Luck after a failure >99%"
    )


def test_str_10_the_odds_follow_advantage_and_disadvantage(stars: StarsTable) -> None:
    client = logged_in(stars.player)
    stars.character.sheet["stats"]["Presence"] = 1
    stars.character.save(update_fields=["sheet"])

    better = visible_text(text(odds(client, stars, "Presence", advantage="advantage")))
    worse = visible_text(text(odds(client, stars, "Presence", advantage="disadvantage")))

    assert better == (
        "Presence: 1 die at difficulty 5 56% to earn a Star "
        "Rolled twice, keeping the more Stars · Botch 3% · With Luck after a failure 80%"
    )
    assert worse == (
        "Presence: 1 die at difficulty 5 11% to earn a Star "
        "Rolled twice, keeping the fewer Stars · Botch 31% · With Luck after a failure 21%"
    )


def test_str_11_the_odds_leave_out_luck_when_there_is_none(stars: StarsTable) -> None:
    set_luck(stars.character, 0)

    response = odds(logged_in(stars.player), stars, "Agility")

    assert visible_text(text(response)) == "Agility: 3 dice at difficulty 5 68% to earn a Star Botch 7%"


def test_the_odds_explain_a_missing_stat(stars: StarsTable) -> None:
    response = odds(logged_in(stars.player), stars, "")

    assert response.status_code == 200
    assert visible_text(text(response)) == "Choose a Stat to roll."


def test_the_odds_write_nothing(stars: StarsTable) -> None:
    before = everything(stars.campaign)

    odds(logged_in(stars.player), stars, advantage="advantage")

    assert everything(stars.campaign) == before


# -- Luck ----------------------------------------------------------------------------------------


def test_str_11_a_failed_roll_offers_luck_with_its_odds(stars: StarsTable, dice: Any) -> None:
    dice(4, 3, 2)

    page = text(roll(logged_in(stars.player), stars))

    assert "follow-up-luck" in page
    assert "follow-up-luck_against" not in page
    assert "Spend Luck: reroll, keep the better" in page
    assert "0% -&gt; 68%" in page
    assert "costs 1 Luck" in page


def test_str_11_luck_rerolls_keeps_the_better_and_spends_a_point(stars: StarsTable, dice: Any) -> None:
    client = logged_in(stars.player)
    dice(4, 3, 2)
    roll(client, stars)
    made = latest_roll()
    dice(6, 1, 2)

    response = follow(client, stars, made.pk, "luck")

    entry = LogEntry.objects.filter(roll=made).order_by("-seq")[0]
    page = visible_text(text(response))
    assert response.status_code == 200
    assert (entry.kind, entry.action, entry.actor) == ("follow-up", "luck", stars.player)
    assert entry.state["steps"][-1] == {
        "action": "luck",
        "rolls": [[6, 1, 2]],
        "kept": 0,
        "dice": [6, 1, 2],
        "keep": "new",
    }
    assert "Luck: rerolled, keeping the better" in page
    assert "Success: 2 Stars" in page
    assert "Luck: kept the new result." in page
    assert luck_of(stars.character) == 2


def test_str_11_a_worse_luck_reroll_keeps_the_earlier_result_and_still_costs_a_point(
    stars: StarsTable, dice: Any
) -> None:
    client = logged_in(stars.player)
    dice(5, 3, 2)
    roll(client, stars)
    dice(4, 3, 2)

    response = follow(client, stars, latest_roll().pk, "luck")

    page = visible_text(text(response))
    assert "Success: 1 Star" in page
    assert "Luck: kept the earlier result." in page
    assert luck_of(stars.character) == 2


def test_str_11_luck_is_spent_once_on_a_roll(stars: StarsTable, dice: Any) -> None:
    client = logged_in(stars.player)
    dice(4, 3, 2)
    roll(client, stars)
    dice(4, 3, 2)
    page = text(follow(client, stars, latest_roll().pk, "luck"))
    assert "follow-up-luck" not in page
    before = everything(stars.campaign)
    dice()

    response = follow(client, stars, latest_roll().pk, "luck")

    assert_refused(response, 422, "Luck has been spent on this roll already; one reroll per roll.")
    assert everything(stars.campaign) == before


def test_str_12_luck_runs_out(stars: StarsTable, dice: Any) -> None:
    set_luck(stars.character, 0)
    client = logged_in(stars.player)
    dice(4, 3, 2)
    page = text(roll(client, stars))
    assert "follow-up-luck" not in page
    before = everything(stars.campaign)
    dice()

    response = follow(client, stars, latest_roll().pk, "luck")

    assert_refused(response, 422, "No Luck points left.")
    assert everything(stars.campaign) == before


def test_str_11_luck_works_on_a_d3(stars: StarsTable, dice: Any) -> None:
    client = logged_in(stars.player)
    dice(1)
    roll(client, stars, kind="d3")
    dice(6)

    response = follow(client, stars, latest_roll().pk, "luck")

    assert "d3: 3" in visible_text(text(response))
    assert luck_of(stars.character) == 2


def test_str_11_luck_against_ones_own_roll_is_refused(stars: StarsTable, dice: Any) -> None:
    client = logged_in(stars.player)
    dice(6, 6, 6)
    roll(client, stars)
    before = everything(stars.campaign)
    dice()

    response = follow(client, stars, latest_roll().pk, "luck_against")

    assert_refused(response, 422, "This roll was not made against anyone.")
    assert everything(stars.campaign) == before


def _gm_roll_against(table: StarsTable, faces: tuple[int, ...]) -> Roll:
    stars_system = registry.engine("stars")
    return roll_services.npc_roll_create(
        campaign=table.campaign,
        gm=table.gm,
        name="The guard",
        request=stars_system.parse_request({"dice": 3}),
        secret=False,
        target=table.character,
        intent="spots Dave",
        rng=ScriptedDice(*faces),
    )


def test_str_11_luck_against_a_roll_rerolls_it_keeping_the_worse_paid_by_its_target(
    stars: StarsTable, dice: Any
) -> None:
    guard = _gm_roll_against(stars, (6, 5, 1))
    dice(2, 3, 4)

    response = follow(logged_in(stars.player), stars, guard.pk, "luck_against")

    page = visible_text(text(response))
    assert response.status_code == 200
    assert "Luck against the roll: rerolled, keeping the worse" in page
    assert "Failure: no Stars" in page
    assert luck_of(stars.character) == 2


def test_str_11_luck_against_a_roll_is_spent_once(stars: StarsTable, dice: Any) -> None:
    guard = _gm_roll_against(stars, (6, 5, 1))
    client = logged_in(stars.player)
    dice(6, 6, 6)
    follow(client, stars, guard.pk, "luck_against")
    before = everything(stars.campaign)
    dice()

    response = follow(client, stars, guard.pk, "luck_against")

    assert_refused(response, 422, "Luck has been spent against this roll already; one reroll per roll.")
    assert everything(stars.campaign) == before


def test_str_11_another_player_cannot_spend_luck_on_someone_elses_roll(stars: StarsTable, dice: Any) -> None:
    kim = factories.member(stars.campaign, name="Kim").user
    dice(4, 3, 2)
    roll(logged_in(stars.player), stars)
    daves = latest_roll()
    guard = _gm_roll_against(stars, (6, 5, 1))
    before = everything(stars.campaign)
    dice()

    mine = follow(logged_in(kim), stars, daves.pk, "luck")
    against = follow(logged_in(kim), stars, guard.pk, "luck_against")

    assert_refused(mine, 403, "Only this character's player or the GM can do that.")
    assert_refused(against, 403, "Only this character's player or the GM can do that.")
    assert everything(stars.campaign) == before


@pytest.mark.django_db(transaction=True)
def test_str_12_the_last_luck_point_is_spent_once_under_the_row_lock() -> None:
    """Ten rolls at once, one Luck point: the row lock lets exactly one reroll through."""
    table = stars_table()
    set_luck(table.character, 1)
    made = [
        roll_services.roll_create(
            character=table.character,
            roller=table.player,
            data={"stat": "Agility"},
            helper=None,
            intent="",
            rng=ScriptedDice(4, 3, 2),
        )
        for _ in range(10)
    ]
    barrier = threading.Barrier(len(made))
    outcomes: Counter[str] = Counter()
    lock = threading.Lock()

    def attempt(each: Roll) -> None:
        try:
            barrier.wait()
            roll_services.follow_up_apply(
                roll=each, actor=table.player, action="luck", params={}, rng=random.Random(7)
            )
            result = "applied"
        except RulesError as error:
            result = str(error)
        except Exception as error:  # the failure this test exists to catch, reported by name
            result = f"error: {error}"
        finally:
            connection.close()
        with lock:
            outcomes[result] += 1

    threads = [threading.Thread(target=attempt, args=(each,)) for each in made]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)

    assert outcomes == Counter({"applied": 1, "No Luck points left.": len(made) - 1})
    assert luck_of(table.character) == 0
    assert LogEntry.objects.filter(action="luck").count() == 1


# -- the GM's clocks -----------------------------------------------------------------------------


def test_str_12_a_new_adventure_fills_everyones_luck(stars: StarsTable) -> None:
    kim = factories.member(stars.campaign, name="Kim").user
    lucky = services.character_create(
        campaign=stars.campaign,
        owner=kim,
        name="Lucky",
        sheet=stars_sheet(edges={"Charmed Life": "advanced"}),
    )
    set_luck(stars.character, 0)
    set_luck(lucky, 1)

    response = logged_in(stars.gm).post(
        reverse("rolls:mystery-start", args=[stars.campaign.pk]), {"confirmed": "yes"}, follow=True
    )

    assert "New Adventure: done." in text(response)
    assert (luck_of(stars.character), luck_of(lucky)) == (3, 5)
    event = LogEntry.objects.filter(campaign=stars.campaign, action="mystery-start").get()
    assert event.text == "Adventure 2 begins. Everyone's Luck is full again."


def test_str_12_a_long_rest_gives_one_point_back_up_to_the_maximum(stars: StarsTable) -> None:
    kim = factories.member(stars.campaign, name="Kim").user
    full = services.character_create(campaign=stars.campaign, owner=kim, name="Full", sheet=stars_sheet())
    set_luck(stars.character, 1)
    gm = logged_in(stars.gm)

    response = gm.post(
        reverse("rolls:long-rest", args=[stars.campaign.pk]), {"confirmed": "yes"}, follow=True
    )

    assert "Everyone takes a long rest." in text(response)
    assert (luck_of(stars.character), luck_of(full)) == (2, 3)
    event = LogEntry.objects.filter(campaign=stars.campaign, action="long-rest").get()
    assert event.text == "A long rest: everyone gets one point of Luck back, up to their maximum."

    gm.post(reverse("rolls:long-rest", args=[stars.campaign.pk]), {"confirmed": "yes"})
    gm.post(reverse("rolls:long-rest", args=[stars.campaign.pk]), {"confirmed": "yes"})

    assert (luck_of(stars.character), luck_of(full)) == (3, 3)


def test_str_12_a_new_play_session_gives_no_luck_back(stars: StarsTable) -> None:
    set_luck(stars.character, 1)
    gm = logged_in(stars.gm)

    gm.post(reverse("rolls:session-end", args=[stars.campaign.pk]), {"confirmed": "yes"})
    gm.post(reverse("rolls:session-start", args=[stars.campaign.pk]))

    assert luck_of(stars.character) == 1


@pytest.mark.parametrize("name", ["rolls:mystery-start", "rolls:long-rest"])
def test_only_the_gm_moves_the_clocks(stars: StarsTable, name: str) -> None:
    set_luck(stars.character, 0)
    before = everything(stars.campaign)

    response = logged_in(stars.player).post(reverse(name, args=[stars.campaign.pk]))

    assert response.status_code == 403
    assert everything(stars.campaign) == before


# -- Luck against a roll made against one ---------------------------------------------------------


def test_str_11_luck_against_a_gm_roll_made_against_one_keeps_the_worse(stars: StarsTable, dice: Any) -> None:
    """STR-11: the GM attacks Dave; Dave's player spends Luck to make the attack be rerolled,
    keeping the worse result. Only Dave's player (or the GM) may, and it costs Dave's Luck."""
    gm = Client()
    gm.force_login(stars.gm)
    dice(6, 6, 6)
    made = gm.post(
        reverse("rolls:npc-roll", args=[stars.campaign.pk]),
        {"name": "Bouncer", "flag_dice": "3", "flag_training": "untrained", "target": stars.character.pk},
        HTTP_HX_REQUEST="true",
    )
    assert made.status_code == 200
    attack = Roll.objects.get(npc=True)
    assert attack.target == stars.character
    luck = luck_of(stars.character)

    # The player sees the attack in the panel of rolls made against their characters.
    player = Client()
    player.force_login(stars.player)
    page = player.get(
        reverse("rolls:character", args=[stars.campaign.pk, stars.character.pk])
    ).content.decode()
    assert f'id="against-roll-{attack.pk}"' in page and "follow-up-luck_against" in page

    other = factories.member(stars.campaign, name="Kim").user
    stranger = Client()
    stranger.force_login(other)
    assert follow(stranger, stars, attack.pk, "luck_against").status_code == 403
    assert luck_of(stars.character) == luck

    dice(1, 2, 3)
    response = player.post(
        reverse("rolls:follow-up", args=[stars.campaign.pk, attack.pk]),
        {"action": "luck_against", "place": "against"},
        HTTP_HX_REQUEST="true",
    )

    assert response.status_code == 200
    assert luck_of(stars.character) == luck - 1
    state = LogEntry.objects.filter(roll=attack).order_by("-seq").first().state  # type: ignore[union-attr]
    assert registry.engine("stars").evaluate(state).key == "0"  # the worse of 6,6,6 and 1,2,3
    # Once per roll: the button is gone and a second try is refused, Luck untouched.
    assert follow(player, stars, attack.pk, "luck_against").status_code == 422
    assert luck_of(stars.character) == luck - 1


def test_str_11_the_roller_cannot_spend_the_targets_luck_on_their_own_roll(
    stars: StarsTable, dice: Any
) -> None:
    """A player's own roll is not made against anyone: luck_against is refused on it."""
    player = Client()
    player.force_login(stars.player)
    dice(1, 1, 2)
    roll(player, stars)
    own = Roll.objects.get()

    response = follow(player, stars, own.pk, "luck_against")

    assert response.status_code == 422
    assert "not made against anyone" in response.content.decode()


def luck_for_ability(
    client: Client, table: StarsTable, ability: str = "Heirloom sword's flame"
) -> HttpResponse:
    path = reverse("rolls:luck-ability", args=[table.campaign.pk, table.character.pk])
    return client.post(path, {"ability": ability}, follow=True)


def test_str_14_the_player_spends_a_point_of_luck_on_an_ability_and_the_table_sees_it(
    stars: StarsTable,
) -> None:
    """STR-14: a point of Luck fuels an ability of an item or a power, outside a roll."""
    dave = stars.character
    response = luck_for_ability(logged_in(stars.player), stars)
    assert "A point of Luck spent: 2 left." in visible_text(text(response))
    assert luck_of(dave) == 2
    entry = LogEntry.objects.filter(campaign=stars.campaign, action="luck-ability").get()
    assert entry.text == "Dave spends a point of Luck on Dave's Heirloom sword's flame: 2 left."
    assert entry.actor == stars.player


def test_str_14_the_gm_spends_a_point_of_luck_on_a_heros_ability(stars: StarsTable) -> None:
    luck_for_ability(logged_in(stars.gm), stars, "Warding amulet")
    assert luck_of(stars.character) == 2
    entry = LogEntry.objects.filter(campaign=stars.campaign, action="luck-ability").get()
    assert entry.text.startswith("The GM spends a point of Luck on Dave's Warding amulet")


def test_str_14_at_0_luck_the_spend_is_refused_and_nothing_changes(stars: StarsTable) -> None:
    set_luck(stars.character, 0)
    before = everything(stars.campaign)
    response = luck_for_ability(logged_in(stars.player), stars)
    assert "Dave has no Luck left to spend." in visible_text(text(response))
    assert everything(stars.campaign) == before


def test_str_14_another_player_and_an_outsider_cannot_spend_daves_luck(stars: StarsTable) -> None:
    other = factories.user("other")
    factories.member(stars.campaign, other, name="Other")
    path = reverse("rolls:luck-ability", args=[stars.campaign.pk, stars.character.pk])
    assert logged_in(other).post(path, {"ability": "Flame"}).status_code == 403
    assert logged_in(stars.outsider).post(path, {"ability": "Flame"}).status_code == 404
    assert luck_of(stars.character) == 3
    assert not LogEntry.objects.filter(action="luck-ability").exists()


@pytest.mark.parametrize("ability", ["", "   ", "x" * 81])
def test_str_14_a_spend_names_its_ability(stars: StarsTable, ability: str) -> None:
    response = luck_for_ability(logged_in(stars.player), stars, ability)
    assert response.status_code == 200
    assert luck_of(stars.character) == 3
    assert not LogEntry.objects.filter(action="luck-ability").exists()


def test_str_14_the_sheet_offers_the_spend_to_its_player_and_the_gm_only(stars: StarsTable) -> None:
    path = reverse("rolls:character-sheet", args=[stars.campaign.pk, stars.character.pk])
    assert "Spend Luck on an ability" in text(logged_in(stars.player).get(path))
    assert "Spend Luck on an ability" in text(logged_in(stars.gm).get(path))
    other = factories.user("other")
    factories.member(stars.campaign, other, name="Other")
    assert "Spend Luck on an ability" not in text(logged_in(other).get(path))


@pytest.mark.django_db(transaction=True)
def test_str_14_the_last_luck_point_fuels_one_ability_under_the_row_lock() -> None:
    """Six spends at once, one Luck point: the row lock lets exactly one through."""
    table = stars_table()
    set_luck(table.character, 1)
    barrier = threading.Barrier(6)
    outcomes: Counter[str] = Counter()
    lock = threading.Lock()

    def attempt() -> None:
        try:
            barrier.wait()
            services.luck_for_ability(character=table.character, actor=table.player, ability="Amulet")
            result = "spent"
        except RulesError as error:
            result = str(error)
        except Exception as error:  # the failure this test exists to catch, reported by name
            result = f"error: {error}"
        finally:
            connection.close()
        with lock:
            outcomes[result] += 1

    threads = [threading.Thread(target=attempt) for _ in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)

    assert outcomes == Counter({"spent": 1, "Dave has no Luck left to spend.": 5})
    assert luck_of(table.character) == 0
    assert LogEntry.objects.filter(action="luck-ability").count() == 1


def test_str_14_other_systems_have_no_luck_for_abilities(db: None) -> None:
    table = factories.table("sixes")
    with pytest.raises(RulesError, match="Luck does not fuel abilities"):
        services.luck_for_ability(character=table.character, actor=table.player, ability="Walkie-talkie")
