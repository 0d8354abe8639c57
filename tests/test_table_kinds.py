"""`kinds` at the table, through the views: the campaign, the sheet in Fields, Skills and
Diamonds, rolls with scripted dice and what their cards say, the exact odds with the
Advantage/Disadvantage stepper, the follow-ups it does not have, and the GM's clocks."""

from __future__ import annotations

from typing import Any

import pytest
from django.http import HttpResponse
from django.test import Client
from django.urls import reverse

from rolls.models import LogEntry
from rolls.tables.kinds.forms import DEFAULT_SKILLS, FIELDS, SKILLS_PER_FIELD
from tabletop.models import Campaign, Character
from tests import factories
from tests.factories import Table, logged_in
from tests.test_rolls import (
    assert_refused,
    dice_now,
    everything,
    latest_roll,
    latest_state,
    text,
    visible_text,
)


def kinds_sheet(
    fields: dict[str, int] | None = None, diamonds: dict[str, int] | None = None
) -> dict[str, Any]:
    """A sheet with every Field at 2 and every Skill at 1, but for ``fields`` and ``diamonds``."""
    return {
        "fields": {field: 2 for field in FIELDS} | (fields or {}),
        "skills": [
            {"name": name, "field": field, "diamonds": (diamonds or {}).get(name, 1)}
            for field in FIELDS
            for name in DEFAULT_SKILLS[field]
        ],
    }


def sheet_form(character: str = "Indy", **overrides: Any) -> dict[str, Any]:
    """The POST data of the kinds sheet form, with the defaults."""
    data: dict[str, Any] = {"name": character}
    for field in FIELDS:
        data[field.lower()] = 2
        for index, skill in enumerate(DEFAULT_SKILLS[field]):
            data[f"skill_{field.lower()}_{index}_name"] = skill
            data[f"skill_{field.lower()}_{index}_diamonds"] = 1
    data.update(overrides)
    return data


def skill_index(name: str) -> int:
    """A default Skill's place on the sheet: the roll form names Skills by it."""
    return [skill for field in FIELDS for skill in DEFAULT_SKILLS[field]].index(name)


# The tests here call the shared table by the name of its system.
KindsTable = Table


@pytest.fixture
def kinds(db: None) -> KindsTable:
    """A kinds campaign with a GM, a player whose Adventurer is Indy, an outsider; session open."""
    return factories.table(
        "kinds",
        campaign_name="Temple Run",
        character_name="Indy",
        sheet=kinds_sheet({"Knowledge": 3, "Social": 1}, {"First Aid": 2, "Charm": 0}),
    )


def roll(client: Client, table: KindsTable, skill: str = "First Aid", **extra: Any) -> HttpResponse:
    data = {"trait": f"skill-{skill_index(skill)}", "level": "basic", "net": 0, **extra}
    path = reverse("rolls:roll-create", args=[table.campaign.pk, table.character.pk])
    return client.post(path, data, HTTP_HX_REQUEST="true")


def odds(client: Client, table: KindsTable, skill: str = "First Aid", **query: Any) -> HttpResponse:
    data = {"trait": f"skill-{skill_index(skill)}", "level": "basic", "net": 0, **query}
    return client.get(reverse("rolls:odds", args=[table.campaign.pk, table.character.pk]), data)


def set_sheet(character: Character, sheet: dict[str, Any]) -> None:
    character.sheet = sheet
    character.save(update_fields=["sheet"])


# -- the campaign --------------------------------------------------------------------------------


def test_a_gm_creates_a_kinds_campaign_with_a_new_adventure_and_no_long_rest(db: None) -> None:
    gm = factories.user("gunilla")
    client = logged_in(gm)

    response = client.post(
        reverse("rolls:campaign-new"), {"name": "Temple Run", "system": "kinds", "display_name": "FM"}
    )

    campaign = Campaign.objects.get()
    assert response.status_code == 302
    assert (campaign.system, campaign.gm) == ("kinds", gm)
    page = text(client.get(response["Location"]))
    assert ">New Adventure</button>" in page
    assert "Long rest" not in page


# -- the sheet -----------------------------------------------------------------------------------


def test_the_new_sheet_offers_four_fields_with_their_skills_and_editable_defaults(kinds: KindsTable) -> None:
    page = text(logged_in(kinds.player).get(reverse("rolls:character-new", args=[kinds.campaign.pk])))

    for field in FIELDS:
        assert f"<legend>{field}</legend>" in page
        assert f'name="{field.lower()}" value="2"' in page
    assert 'name="skill_knowledge_0_name" value="First Aid"' in page
    assert 'name="skill_knowledge_0_diamonds" value="1"' in page
    assert 'name="skill_survival_3_name" value="Track"' in page


def test_kin_1_creating_an_adventurer_stores_fields_and_skills_in_diamonds(kinds: KindsTable) -> None:
    client = logged_in(kinds.player)

    response = client.post(
        reverse("rolls:character-new", args=[kinds.campaign.pk]),
        sheet_form("Marion", action=4, skill_action_3_name="Whip", skill_action_3_diamonds=3),
    )

    marion = Character.objects.get(name="Marion")
    assert response.status_code == 302
    assert response["Location"] == marion.get_absolute_url()
    assert marion.sheet["fields"] == {"Action": 4, "Knowledge": 2, "Social": 2, "Survival": 2}
    assert marion.sheet["skills"][3] == {"name": "Whip", "field": "Action", "diamonds": 3}
    assert len(marion.sheet["skills"]) == len(FIELDS) * SKILLS_PER_FIELD
    assert marion.luck == 0
    sheet = text(client.get(reverse("rolls:character-sheet", args=[kinds.campaign.pk, marion.pk])))
    assert "<dt>Action</dt><dd>4</dd>" in sheet
    assert "Whip <b>3</b>" in sheet


BAD_SHEETS = [
    pytest.param({"action": 0}, "Ensure this value is greater than or equal to 1.", id="field-0"),
    pytest.param({"action": 6}, "Ensure this value is less than or equal to 5.", id="field-6"),
    pytest.param(
        {"skill_action_0_diamonds": 5}, "Ensure this value is less than or equal to 4.", id="skill-5"
    ),
    pytest.param({"skill_action_0_diamonds": -1}, "greater than or equal to 0.", id="skill-negative"),
    pytest.param({"skill_action_0_diamonds": "lots"}, "Enter a whole number.", id="skill-junk"),
    pytest.param({"skill_action_0_name": ""}, "This field is required.", id="skill-unnamed"),
    pytest.param(
        {"skill_social_0_name": "first aid"},
        "Two Skills have the same name; give each Skill its own.",
        id="skill-twice",
    ),
    pytest.param({"name": ""}, "This field is required.", id="no-name"),
]


@pytest.mark.parametrize(("overrides", "message"), BAD_SHEETS)
def test_kin_2_a_sheet_out_of_bounds_is_refused_and_nothing_is_created(
    kinds: KindsTable, overrides: dict[str, Any], message: str
) -> None:
    """KIN-2: a Field (1-5) and a Skill (0-4) never make more than nine dice together."""
    before = everything(kinds.campaign)

    response = logged_in(kinds.player).post(
        reverse("rolls:character-new", args=[kinds.campaign.pk]), sheet_form("Marion", **overrides)
    )

    assert response.status_code == 200
    assert message in text(response)
    assert everything(kinds.campaign) == before


def test_editing_the_sheet_shows_it_as_saved_and_changes_it(kinds: KindsTable) -> None:
    client = logged_in(kinds.player)
    path = reverse("rolls:character-edit", args=[kinds.campaign.pk, kinds.character.pk])
    page = text(client.get(path))
    assert 'name="knowledge" value="3"' in page
    assert 'name="skill_knowledge_0_diamonds" value="2"' in page

    response = client.post(path, sheet_form("Indiana", knowledge=4, skill_knowledge_0_name="Medicine"))

    assert response.status_code == 302
    kinds.character.refresh_from_db()
    assert kinds.character.name == "Indiana"
    assert kinds.character.sheet["fields"]["Knowledge"] == 4
    assert kinds.character.sheet["skills"][skill_index("First Aid")]["name"] == "Medicine"


def test_a_refused_edit_changes_nothing(kinds: KindsTable) -> None:
    before = everything(kinds.campaign)
    path = reverse("rolls:character-edit", args=[kinds.campaign.pk, kinds.character.pk])

    response = logged_in(kinds.player).post(path, sheet_form("Indiana", knowledge=9))

    assert response.status_code == 200
    assert "Ensure this value is less than or equal to 5." in text(response)
    assert everything(kinds.campaign) == before
    kinds.character.refresh_from_db()
    assert kinds.character.name == "Indy"


def test_another_player_cannot_edit_the_sheet(kinds: KindsTable) -> None:
    kim = factories.member(kinds.campaign, name="Kim").user
    before = everything(kinds.campaign)
    path = reverse("rolls:character-edit", args=[kinds.campaign.pk, kinds.character.pk])

    response = logged_in(kim).post(path, sheet_form("Mine now"))

    assert_refused(response, 403, "Only this character's player or the GM can do that.")
    assert everything(kinds.campaign) == before


# -- the roll screen -----------------------------------------------------------------------------


def test_the_roll_screen_offers_each_skill_with_its_dice_the_challenge_and_the_stepper(
    kinds: KindsTable,
) -> None:
    page = text(logged_in(kinds.player).get(kinds.character.get_absolute_url()))

    assert '<p class="field-head">Knowledge <b>3</b></p>' in page
    # First Aid: 2 Diamonds + Knowledge's 3.
    assert f'value="skill-{skill_index("First Aid")}"' in page
    assert "First Aid <small><b>2</b> · 5 dice</small>" in page
    assert 'name="trait" value="skill-0" checked' in page
    # The Challenge is a short list, the Basic one chosen.
    assert '<select name="level" id="roll-level">' in page
    for level in ("critical", "extreme", "impossible"):
        assert f'<option value="{level}">' in page
    assert '<option value="basic" selected>' in page
    for net in range(-3, 4):
        assert f'name="net" value="{net}"' in page
    assert 'name="net" value="0" aria-label="Neither" checked' in page
    assert '<span class="pill">Knowledge 3</span>' in page


# -- rolling -------------------------------------------------------------------------------------


def test_kin_1_a_skill_rolls_its_diamonds_plus_its_fields(kinds: KindsTable, dice: Any) -> None:
    dice(1, 2, 3, 4, 4)

    response = roll(logged_in(kinds.player), kinds, "First Aid", intent="I patch up Marion")

    made = latest_roll()
    page = text(response)
    assert response.status_code == 200
    assert dice_now(made.pk) == [1, 2, 3, 4, 4]
    assert made.trait == "Knowledge + First Aid"
    assert latest_state(made.pk)["request"] == {
        "dice": 5,
        "skill": 2,
        "field": 3,
        "advantage": 0,
        "disadvantage": 0,
        "level": "basic",
        "danger": False,
    }
    assert "I patch up Marion" in page
    assert "Rolled 5 dice" in page
    assert "Basic Success: passes the Basic Challenge" in page
    assert "Basic Success (two 4s): passes a Basic Challenge." in page


def test_kin_1_the_fortune_master_may_name_another_field(kinds: KindsTable, dice: Any) -> None:
    dice(1, 2, 3)

    roll(logged_in(kinds.player), kinds, "First Aid", other_field="Social")

    # First Aid's 2 Diamonds + Social's 1.
    assert dice_now(latest_roll().pk) == [1, 2, 3]
    assert latest_roll().trait == "Social + First Aid"


def test_kin_2_each_advantage_adds_a_die(kinds: KindsTable, dice: Any) -> None:
    dice(1, 2, 3, 4, 5, 6, 1)

    response = roll(logged_in(kinds.player), kinds, "First Aid", net=2)

    assert dice_now(latest_roll().pk) == [1, 2, 3, 4, 5, 6, 1]
    assert "5 dice, +2 for Advantage/Disadvantage" in text(response)


def test_kin_2_advantage_never_goes_past_nine_dice(kinds: KindsTable, dice: Any) -> None:
    set_sheet(kinds.character, kinds_sheet({"Knowledge": 5}, {"First Aid": 3}))
    dice(1, 2, 3, 4, 5, 6, 1, 2, 3)

    roll(logged_in(kinds.player), kinds, "First Aid", net=3)

    assert len(dice_now(latest_roll().pk)) == 9


def test_kin_3_disadvantage_never_leaves_fewer_than_two_dice(kinds: KindsTable, dice: Any) -> None:
    dice(5, 5)

    response = roll(logged_in(kinds.player), kinds, "Athletics", net=-3)

    # Athletics 1 + Action 2 = 3 dice; three Disadvantages leave two.
    assert dice_now(latest_roll().pk) == [5, 5]
    assert "3 dice, -1 for Advantage/Disadvantage" in text(response)
    assert "Basic Success" in text(response)


def test_kin_4_kin_7_the_card_lists_every_success_with_its_grade_and_the_challenges_it_passes(
    kinds: KindsTable, dice: Any
) -> None:
    dice(5, 2, 5, 2, 5)

    page = visible_text(text(roll(logged_in(kinds.player), kinds, "First Aid")))

    assert "Critical Success: passes the Basic Challenge" in page
    assert "Critical Success (three 5s): passes Basic and Critical Challenges." in page
    assert "Basic Success (two 2s): passes a Basic Challenge." in page
    assert "2 Successes in one roll: each may accomplish its own task." in page


def test_kin_5_four_of_a_kind_is_one_extreme_success_not_two_basic_ones(kinds: KindsTable, dice: Any) -> None:
    dice(3, 3, 3, 3, 1)

    page = visible_text(text(roll(logged_in(kinds.player), kinds, "First Aid", level="extreme")))

    assert "Extreme Success: passes the Extreme Challenge" in page
    assert "Extreme Success (four 3s): passes Basic, Critical and Extreme Challenges." in page
    assert "Successes in one roll" not in page


def test_kin_6_a_success_below_the_challenge_does_not_pass_it(kinds: KindsTable, dice: Any) -> None:
    dice(6, 6, 1, 2, 3)

    response = roll(logged_in(kinds.player), kinds, "First Aid", level="critical")

    page = visible_text(text(response))
    assert "Basic Success falls short of the Critical Challenge: an Accident" in page
    assert "Basic Success (two 6s): passes a Basic Challenge." in page
    assert "tone-failure" in text(response)


def test_kin_8_no_success_is_an_accident_and_a_danger_can_hurt(kinds: KindsTable, dice: Any) -> None:
    dice(1, 2, 3, 4, 5)

    page = visible_text(text(roll(logged_in(kinds.player), kinds, "First Aid", danger="on")))

    assert "No Success: an Accident" in page
    assert "The Fortune Master describes a consequence other than the one hoped for." in page
    assert "This Challenge is a Danger: the Accident can hurt the Adventurer." in page


def test_kin_9_a_success_above_the_challenge_may_earn_an_advantage(kinds: KindsTable, dice: Any) -> None:
    dice(4, 4, 4, 1, 2)

    page = visible_text(text(roll(logged_in(kinds.player), kinds, "First Aid")))

    assert "Higher than the Challenge needed: the Fortune Master may grant an advantage." in page


def test_the_gm_may_roll_for_a_players_adventurer(kinds: KindsTable, dice: Any) -> None:
    dice(1, 1, 2, 3, 4)

    response = roll(logged_in(kinds.gm), kinds)

    assert response.status_code == 200
    assert latest_roll().roller == kinds.gm


BAD_ROLLS = [
    pytest.param(
        {"trait": "skill-99"}, "Select a valid choice. skill-99 is not one of the available choices."
    ),
    pytest.param({"trait": ""}, "This field is required."),
    pytest.param(
        {"level": "legendary"}, "Select a valid choice. legendary is not one of the available choices."
    ),
    pytest.param({"level": "none"}, "Select a valid choice. none is not one of the available choices."),
    pytest.param({"net": "4"}, "Select a valid choice. 4 is not one of the available choices."),
    pytest.param({"net": "-4"}, "Select a valid choice. -4 is not one of the available choices."),
    pytest.param({"net": "one"}, "Select a valid choice. one is not one of the available choices."),
    pytest.param(
        {"other_field": "Magic"}, "Select a valid choice. Magic is not one of the available choices."
    ),
    pytest.param({"intent": "x" * 201}, "Ensure this value has at most 200 characters (it has 201)."),
]


@pytest.mark.parametrize(("data", "message"), BAD_ROLLS)
def test_a_roll_with_a_bad_value_is_refused_and_changes_nothing(
    kinds: KindsTable, dice: Any, data: dict[str, str], message: str
) -> None:
    before = everything(kinds.campaign)
    dice()

    response = roll(logged_in(kinds.player), kinds, **data)

    assert_refused(response, 422, message)
    assert everything(kinds.campaign) == before


def test_another_player_cannot_roll_the_adventurer(kinds: KindsTable, dice: Any) -> None:
    kim = factories.member(kinds.campaign, name="Kim").user
    before = everything(kinds.campaign)
    dice()

    assert_refused(roll(logged_in(kim), kinds), 403, "Only this character's player or the GM can do that.")
    assert everything(kinds.campaign) == before


# -- the odds ------------------------------------------------------------------------------------


def test_kin_2_kin_3_the_odds_show_the_chance_now_and_at_every_step(kinds: KindsTable) -> None:
    response = odds(logged_in(kinds.player), kinds, "Athletics")

    # Three dice: a pair or better 1 - 6*5*4/6^3 = 44%; two dice 1/6; four 72%, five 91%, six 98%.
    assert response.status_code == 200
    assert visible_text(text(response)) == (
        "Action + Athletics: 3 dice 44% to pass a Basic Challenge "
        "Skill and Field give 3 dice. "
        "-3 2d 17% -2 2d 17% -1 2d 17% 0 3d 44% +1 4d 72% +2 5d 91% +3 6d 98%"
    )
    assert '<li class="current" aria-current="true"><span>0</span>' in text(response)


def test_kin_6_the_odds_follow_the_challenge_and_the_step(kinds: KindsTable) -> None:
    response = odds(logged_in(kinds.player), kinds, "Athletics", level="critical", net=1)

    assert visible_text(text(response)) == (
        "Action + Athletics: 4 dice 10% to pass a Critical Challenge "
        "Skill and Field give 3 dice; 1 Advantage makes 4. "
        "-3 2d 0% -2 2d 0% -1 2d 0% 0 3d 3% +1 4d 10% +2 5d 21% +3 6d 37%"
    )
    assert '<li class="current" aria-current="true"><span>+1</span>' in text(response)


def test_kin_2_the_odds_say_when_advantage_hits_nine_dice(kinds: KindsTable) -> None:
    set_sheet(kinds.character, kinds_sheet({"Knowledge": 5}, {"First Aid": 3}))

    response = odds(logged_in(kinds.player), kinds, "First Aid", level="impossible", net=2)

    assert visible_text(text(response)).startswith(
        "Knowledge + First Aid: 9 dice 5% to pass an Impossible Challenge "
        "Skill and Field give 8 dice; 2 Advantages make 9, the most a roll can have. "
    )


def test_kin_3_the_odds_say_when_disadvantage_stops_at_two_dice(kinds: KindsTable) -> None:
    response = odds(logged_in(kinds.player), kinds, "Athletics", net=-3)

    assert "Skill and Field give 3 dice; 3 Disadvantages make 2, the fewest Disadvantage leaves." in (
        visible_text(text(response))
    )


def test_the_odds_explain_a_choice_that_does_not_exist(kinds: KindsTable) -> None:
    response = odds(logged_in(kinds.player), kinds, net=5)

    assert response.status_code == 200
    assert visible_text(text(response)) == "Select a valid choice. 5 is not one of the available choices."


def test_the_odds_write_nothing(kinds: KindsTable) -> None:
    before = everything(kinds.campaign)

    odds(logged_in(kinds.player), kinds, net=2)

    assert everything(kinds.campaign) == before


# -- follow-ups ----------------------------------------------------------------------------------


def test_a_kinds_card_offers_no_follow_up(kinds: KindsTable, dice: Any) -> None:
    client = logged_in(kinds.player)
    dice(1, 2, 3, 4, 5)
    roll(client, kinds)

    page = text(client.get(kinds.character.get_absolute_url()))

    assert f'id="result-roll-{latest_roll().pk}"' in page
    assert 'class="follow-ups"' not in page


@pytest.mark.parametrize("action", ["luck", "push", "reroll", ""])
def test_every_follow_up_is_refused_and_changes_nothing(kinds: KindsTable, dice: Any, action: str) -> None:
    """The document has no follow-ups: the roll stands as it fell."""
    client = logged_in(kinds.player)
    dice(1, 2, 3, 4, 5)
    roll(client, kinds)
    before = everything(kinds.campaign)
    dice()

    response = client.post(
        reverse("rolls:follow-up", args=[kinds.campaign.pk, latest_roll().pk]), {"action": action}
    )

    assert_refused(response, 422, "This system has no follow-ups: the roll stands as it fell.")
    assert everything(kinds.campaign) == before


# -- the GM's clocks -----------------------------------------------------------------------------


def test_a_new_adventure_is_logged_and_changes_no_sheet(kinds: KindsTable) -> None:
    sheets = list(Character.objects.values_list("pk", "luck", "sheet"))

    response = logged_in(kinds.gm).post(
        reverse("rolls:mystery-start", args=[kinds.campaign.pk]), {"confirmed": "yes"}, follow=True
    )

    kinds.campaign.refresh_from_db()
    assert kinds.campaign.mystery == 2
    assert "New Adventure: done." in text(response)
    event = LogEntry.objects.filter(campaign=kinds.campaign, action="mystery-start").get()
    assert event.text == "Adventure 2 begins."
    assert list(Character.objects.values_list("pk", "luck", "sheet")) == sheets


def test_a_long_rest_is_refused_and_changes_nothing(kinds: KindsTable) -> None:
    before = everything(kinds.campaign)

    response = logged_in(kinds.gm).post(
        reverse("rolls:long-rest", args=[kinds.campaign.pk]), {"confirmed": "yes"}, follow=True
    )

    assert "This dice system has no long rest." in text(response)
    assert everything(kinds.campaign) == before


def test_only_the_gm_starts_an_adventure(kinds: KindsTable) -> None:
    before = everything(kinds.campaign)

    response = logged_in(kinds.player).post(
        reverse("rolls:mystery-start", args=[kinds.campaign.pk]), {"confirmed": "yes"}
    )

    assert response.status_code == 403
    assert everything(kinds.campaign) == before


def test_a_new_play_session_changes_no_sheet(kinds: KindsTable) -> None:
    sheets = list(Character.objects.values_list("pk", "luck", "sheet"))
    gm = logged_in(kinds.gm)

    gm.post(reverse("rolls:session-end", args=[kinds.campaign.pk]), {"confirmed": "yes"})
    gm.post(reverse("rolls:session-start", args=[kinds.campaign.pk]))

    assert kinds.campaign.open_session().number == 2  # type: ignore[union-attr]
    assert list(Character.objects.values_list("pk", "luck", "sheet")) == sheets
