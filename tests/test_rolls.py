"""Rolling and following up through the views, with scripted dice: what a success answers, the
exact odds, and every refusal (a clear message, a 4xx status, and nothing changed)."""

from __future__ import annotations

import html
import re
from typing import Any

import pytest
from django.http import HttpResponse
from django.test import Client
from django.urls import reverse

from rolls.campaigns import services as table_services
from rolls.models import LogEntry, Roll
from rolls.play import services
from rolls.systems import RulesError
from rolls.views import play
from tabletop.models import Campaign, Character
from tests import factories
from tests.factories import Script, ScriptedDice, Table, logged_in


def text(response: Any) -> str:
    return response.content.decode()


def visible_text(markup: str) -> str:
    """The words a reader sees: tags dropped, entities decoded, whitespace collapsed."""
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", markup)).split())


def roll(
    client: Client, table: Table, trait: str = "Body", character: Character | None = None, **extra: Any
) -> HttpResponse:
    data = {"trait": trait, "need": 1, **extra}
    path = reverse("rolls:roll-create", args=[table.campaign.pk, (character or table.character).pk])
    return client.post(path, data, HTTP_HX_REQUEST="true")


SAID = "Olle grits his teeth and pedals harder"  # what the kid does to push (SIX-23)


def follow(client: Client, table: Table, roll_id: int, action: str, **params: Any) -> HttpResponse:
    path = reverse("rolls:follow-up", args=[table.campaign.pk, roll_id])
    return client.post(path, {"action": action, **params}, HTTP_HX_REQUEST="true")


def latest_roll() -> Roll:
    found = Roll.objects.order_by("-id").first()
    assert found is not None
    return found


def latest_state(roll_id: int) -> dict[str, Any]:
    entry = LogEntry.objects.filter(roll_id=roll_id).order_by("-seq").first()
    assert entry is not None and entry.state is not None
    return entry.state


def dice_now(roll_id: int) -> list[int]:
    for step in reversed(latest_state(roll_id)["steps"]):
        if "dice" in step:
            return list(step["dice"])
    raise AssertionError("no dice")


def everything(campaign: Campaign) -> tuple[object, ...]:
    """All that a roll or follow-up could change, to compare before and after a refusal."""
    campaign.refresh_from_db()
    return (
        Roll.objects.count(),
        LogEntry.objects.count(),
        campaign.last_seq,
        campaign.mystery,
        list(Character.objects.order_by("pk").values_list("pk", "luck", "sheet", "pride_used_in")),
    )


def assert_refused(response: Any, status: int, message: str) -> None:
    assert 400 <= response.status_code < 500
    assert response.status_code == status, text(response)
    assert message in html.unescape(text(response))


def set_conditions(character: Character, **conditions: bool) -> None:
    character.refresh_from_db()
    character.sheet = {**character.sheet, "conditions": {**character.sheet["conditions"], **conditions}}
    character.save(update_fields=["sheet"])


# -- a roll --------------------------------------------------------------------------------------


def test_a_roll_answers_with_its_card_logs_it_and_numbers_it(table: Table, dice: Script) -> None:
    dice(6, 2, 3)

    response = roll(logged_in(table.player), table, "Body", intent="I climb the fence")

    made = latest_roll()
    entry = LogEntry.objects.get(roll=made)
    table.campaign.refresh_from_db()
    page = text(response)
    assert response.status_code == 200
    assert page.lstrip().startswith('<section id="result"')
    assert f'id="result-roll-{made.pk}"' in page
    assert f'data-seq="{entry.seq}"' in page
    assert f"#{entry.seq}" in page
    assert "Success: 1 of 1 needed" in page
    assert "I climb the fence" in page
    assert (entry.kind, entry.action, entry.actor) == ("roll", "roll", table.player)
    assert entry.seq == table.campaign.last_seq
    assert entry.state["steps"] == [{"action": "roll", "dice": [6, 2, 3]}]
    assert (made.character, made.character_name, made.trait, made.roller) == (
        table.character,
        "Olle",
        "Body",
        table.player,
    )
    assert made.session == table.campaign.open_session()


def test_six_1_a_skill_adds_its_level_to_the_attribute(table: Table, dice: Script) -> None:
    dice(1, 2, 3, 4)

    response = roll(logged_in(table.player), table, "skill-0")

    assert response.status_code == 200
    assert dice_now(latest_roll().pk) == [1, 2, 3, 4]
    assert latest_roll().trait == "Body + Sneak"


def test_six_1_without_a_skill_the_attribute_rolls_alone(table: Table, dice: Script) -> None:
    dice(1, 2, 3)

    roll(logged_in(table.player), table, "Mind")

    assert dice_now(latest_roll().pk) == [1, 2, 3]
    assert latest_roll().trait == "Mind"


def test_six_2_only_sixes_are_successes(table: Table, dice: Script) -> None:
    dice(5, 5, 5)

    response = roll(logged_in(table.player), table)

    assert "Failure: 0 of 1 needed" in text(response)


def test_six_3_the_gm_may_demand_two_or_three_successes(table: Table, dice: Script) -> None:
    dice(6, 5, 1)

    response = roll(logged_in(table.player), table, need=2)

    assert "Failure: 1 of 2 needed" in text(response)
    assert "needs 2" in text(response)


def test_six_4_the_iconic_item_adds_two_dice(table: Table, dice: Script) -> None:
    dice(1, 2, 3, 4, 5)

    roll(logged_in(table.player), table, "Body", item="on")

    assert dice_now(latest_roll().pk) == [1, 2, 3, 4, 5]
    assert latest_roll().trait == "Body + Walkie-talkie"


def test_six_15_a_friend_helps_with_one_die(table: Table, dice: Script) -> None:
    bea = factories.character(table.campaign, table.gm, name="Bea")
    dice(6, 2, 3, 4)

    response = roll(logged_in(table.player), table, "Body", helper=bea.pk)

    assert dice_now(latest_roll().pk) == [6, 2, 3, 4]
    assert (latest_roll().helper, latest_roll().helper_name) == (bea, "Bea")
    assert "Helped by Bea, who shares the outcome." in text(response)


def test_six_16_a_failed_roll_with_help_says_the_helper_shares_it(table: Table, dice: Script) -> None:
    bea = factories.character(table.campaign, table.gm, name="Bea")
    dice(1, 2, 3, 4)

    response = roll(logged_in(table.player), table, "Body", helper=bea.pk)

    assert "The helper suffers the same effects." in text(response)


def test_six_9_a_failed_roll_prompts_the_gm_for_a_consequence(table: Table, dice: Script) -> None:
    dice(1, 2, 3)

    response = roll(logged_in(table.player), table)

    assert "The situation changes: the GM picks a Condition, new Trouble or a Complication." in text(response)


def test_six_21_successes_beyond_those_needed_buy_effects(table: Table, dice: Script) -> None:
    dice(6, 6, 6)

    response = roll(logged_in(table.player), table)

    assert "Success: 3 of 1 needed" in text(response)
    assert "2 extra successes to buy effects." in text(response)


def test_the_gm_may_roll_for_a_players_character(table: Table, dice: Script) -> None:
    dice(1, 2, 3)

    response = roll(logged_in(table.gm), table)

    assert response.status_code == 200
    assert latest_roll().roller == table.gm
    assert 'class="follow-ups"' in text(response)


def test_a_failed_roll_offers_push_luck_and_pride_to_its_player(table: Table, dice: Script) -> None:
    dice(1, 2, 3)

    page = text(roll(logged_in(table.player), table))

    for action in ("push", "luck", "pride"):
        assert f"follow-up-{action}" in page
    # The exact chances: no six yet; a push or Luck rerolls all three dice.
    assert "0% -&gt; 42%" in page
    assert "0% -&gt; 100%" in page


def test_the_character_page_shows_the_latest_roll_with_its_follow_ups(table: Table, dice: Script) -> None:
    dice(1, 2, 3)
    client = logged_in(table.player)
    roll(client, table)

    page = text(client.get(table.character.get_absolute_url()))

    assert f'id="result-roll-{latest_roll().pk}"' in page
    assert "follow-up-push" in page


def test_a_refusal_to_an_htmx_request_goes_next_to_the_form_that_sent_it(table: Table) -> None:
    table_services.session_end(campaign=table.campaign, actor=table.gm)
    path = reverse("rolls:roll-create", args=[table.campaign.pk, table.character.pk])

    response = logged_in(table.player).post(path, {"trait": "Body", "need": 1}, HTTP_HX_REQUEST="true")

    assert_refused(response, 422, "The GM has not started a play session yet.")
    # The form's own refusal slot first; the page's message area where a form has none.
    assert response["HX-Retarget"] == "find [data-refusal], #roll-form [data-refusal], #notice"
    assert response["HX-Reswap"] == "innerHTML"


# -- the odds ------------------------------------------------------------------------------------


def odds(client: Client, table: Table, **query: Any) -> HttpResponse:
    return client.get(reverse("rolls:odds", args=[table.campaign.pk, table.character.pk]), query)


def test_the_odds_of_body_and_sneak_are_exact(table: Table) -> None:
    response = odds(logged_in(table.player), table, trait="skill-0", need=1)

    assert response.status_code == 200
    # 4 dice: 1 - (5/6)^4 = 671/1296; with one reroll of the failures 77%, with two 89%.
    assert visible_text(text(response)) == (
        "Body + Sneak: 4 dice 52% to get 1 six With a push 77% · push and Luck 89%"
    )


def test_the_odds_count_the_item_and_the_helper(table: Table) -> None:
    bea = factories.character(table.campaign, table.gm, name="Bea")

    response = odds(logged_in(table.player), table, trait="skill-0", need=3, item="on", helper=bea.pk)

    assert visible_text(text(response)) == (
        "Body + Sneak + Walkie-talkie: 7 dice 10% to get 3 sixes With a push 37% · push and Luck 63%"
    )


def test_the_odds_explain_a_choice_that_does_not_exist(table: Table) -> None:
    response = odds(logged_in(table.player), table, trait="skill-99", need=1)

    assert response.status_code == 200
    assert visible_text(text(response)) == (
        "Select a valid choice. skill-99 is not one of the available choices."
    )


def test_the_odds_write_nothing(table: Table) -> None:
    before = everything(table.campaign)

    odds(logged_in(table.player), table, trait="Body", need=1)

    assert everything(table.campaign) == before


# -- follow-ups ----------------------------------------------------------------------------------


def test_six_11_a_push_checks_a_condition_and_rerolls_every_die_but_the_sixes(
    table: Table, dice: Script
) -> None:
    client = logged_in(table.player)
    dice(6, 1, 2)
    roll(client, table)
    made = latest_roll()
    dice(6, 4)

    response = follow(client, table, made.pk, "push", condition="Scared", description=SAID)

    entry = LogEntry.objects.filter(roll=made).order_by("-seq")[0]
    page = text(response)
    assert response.status_code == 200
    assert (entry.kind, entry.action, entry.actor) == ("follow-up", "push", table.player)
    assert entry.state["steps"][-1] == {
        "action": "push",
        "dice": [6, 6, 4],
        "rerolled": [1, 2],
        "condition": "Scared",
        "description": SAID,
    }
    assert f'id="result-roll-{made.pk}"' in page
    assert f'data-seq="{entry.seq}"' in page
    assert "Pushed, checking Scared" in page
    assert "Success: 2 of 1 needed" in page
    table.character.refresh_from_db()
    assert table.character.sheet["conditions"]["Scared"] is True


def test_six_23_a_push_that_succeeds_prompts_the_gm_to_describe_it(table: Table, dice: Script) -> None:
    """SIX-23: the player says what the push was; once it works, the card (the table's feed
    and the roll's page, the GM's too) prompts the GM to say what it did. A push that fails
    prompts nothing of the kind."""
    client = logged_in(table.player)
    dice(1, 1, 2)
    roll(client, table)
    made = latest_roll()
    dice(6, 1, 1)
    pushed = visible_text(text(follow(client, table, made.pk, "push", condition="Scared", description=SAID)))
    assert "Success: 1 of 1 needed" in pushed
    assert "The push worked: GM, describe what it did" in pushed and SAID in pushed
    gm_page = visible_text(
        text(logged_in(table.gm).get(reverse("rolls:roll", args=[table.campaign.pk, made.pk])))
    )
    assert "The push worked: GM, describe what it did" in gm_page
    dice(1, 1, 2)
    roll(client, table)
    dice(1, 1, 1)
    failed = visible_text(
        text(follow(client, table, latest_roll().pk, "push", condition="Upset", description=SAID))
    )
    assert "Failure: 0 of 1 needed" in failed and "The push worked" not in failed


def test_six_10_a_success_may_be_pushed_for_more_effects(table: Table, dice: Script) -> None:
    client = logged_in(table.player)
    dice(6, 1, 2)
    page = text(roll(client, table))
    assert "follow-up-push" in page
    dice(1, 1)

    response = follow(client, table, latest_roll().pk, "push", condition="Upset", description=SAID)

    assert response.status_code == 200
    assert "Success: 1 of 1 needed" in text(response)


def test_six_10_a_roll_is_pushed_only_once(table: Table, dice: Script) -> None:
    client = logged_in(table.player)
    dice(1, 2, 3)
    roll(client, table)
    dice(1, 2, 3)
    follow(client, table, latest_roll().pk, "push", condition="Scared", description=SAID)
    before = everything(table.campaign)
    dice()

    response = follow(client, table, latest_roll().pk, "push", condition="Upset", description=SAID)

    assert_refused(response, 422, "This roll has been pushed already; a roll is pushed once.")
    assert everything(table.campaign) == before


def test_six_10_a_push_is_refused_once_the_character_has_rolled_again(table: Table, dice: Script) -> None:
    client = logged_in(table.player)
    dice(1, 2, 3)
    roll(client, table)
    first = latest_roll()
    dice(1, 2, 3)
    roll(client, table)
    before = everything(table.campaign)
    dice()

    response = follow(client, table, first.pk, "push", condition="Scared", description=SAID)

    assert_refused(response, 422, "Only the character's latest roll can be pushed.")
    assert everything(table.campaign) == before


def test_six_10_another_characters_roll_does_not_spoil_a_push(table: Table, dice: Script) -> None:
    bea = factories.character(table.campaign, table.gm, name="Bea")
    dice(1, 2, 3)
    roll(logged_in(table.player), table)
    mine = latest_roll()
    dice(1, 2, 3)
    roll(logged_in(table.gm), table, character=bea)
    dice(6, 6, 6)

    response = follow(logged_in(table.player), table, mine.pk, "push", condition="Scared", description=SAID)

    assert response.status_code == 200


def test_six_6_a_luck_point_rerolls_the_failed_dice(table: Table, dice: Script) -> None:
    client = logged_in(table.player)
    dice(1, 2, 3)
    roll(client, table)
    dice(6, 2, 2)

    response = follow(client, table, latest_roll().pk, "luck")

    assert response.status_code == 200
    assert "Luck point: rerolled the failed dice" in text(response)
    assert "Success: 1 of 1 needed" in text(response)
    assert dice_now(latest_roll().pk) == [6, 2, 2]
    table.character.refresh_from_db()
    assert table.character.luck == 2
    # Luck is not a push: no Condition is checked.
    assert not any(table.character.sheet["conditions"].values())


def test_six_6_luck_on_a_successful_roll_is_refused(table: Table, dice: Script) -> None:
    client = logged_in(table.player)
    dice(6, 2, 3)
    page = text(roll(client, table))
    assert "follow-up-luck" not in page
    before = everything(table.campaign)
    dice()

    response = follow(client, table, latest_roll().pk, "luck")

    assert_refused(response, 422, "Luck is spent after a failed roll, and this one succeeded.")
    assert everything(table.campaign) == before


def test_six_7_a_second_luck_point_on_one_roll_is_refused(table: Table, dice: Script) -> None:
    client = logged_in(table.player)
    dice(1, 2, 3)
    roll(client, table)
    dice(1, 2, 3)
    page = text(follow(client, table, latest_roll().pk, "luck"))
    assert "follow-up-luck" not in page
    before = everything(table.campaign)
    dice()

    response = follow(client, table, latest_roll().pk, "luck")

    assert_refused(response, 422, "A Luck point has been spent on this roll already; one per roll.")
    assert everything(table.campaign) == before


def test_six_8_luck_with_no_points_left_is_refused(table: Table, dice: Script) -> None:
    Character.objects.filter(pk=table.character.pk).update(luck=0)
    client = logged_in(table.player)
    dice(1, 2, 3)
    page = text(roll(client, table))
    assert "follow-up-luck" not in page
    before = everything(table.campaign)
    dice()

    response = follow(client, table, latest_roll().pk, "luck")

    assert_refused(response, 422, "No Luck points left.")
    assert everything(table.campaign) == before


def test_six_14_a_push_may_come_after_the_luck_point(table: Table, dice: Script) -> None:
    client = logged_in(table.player)
    dice(1, 2, 3)
    roll(client, table)
    dice(1, 2, 3)
    follow(client, table, latest_roll().pk, "luck")
    dice(6, 1, 1)

    response = follow(client, table, latest_roll().pk, "push", condition="Exhausted", description=SAID)

    assert response.status_code == 200
    assert [step["action"] for step in latest_state(latest_roll().pk)["steps"]] == ["roll", "luck", "push"]


def test_six_12_a_failed_push_cannot_be_pushed_again_but_luck_and_pride_remain(
    table: Table, dice: Script
) -> None:
    client = logged_in(table.player)
    dice(1, 2, 3)
    roll(client, table)
    dice(1, 2, 3)
    page = text(follow(client, table, latest_roll().pk, "push", condition="Scared", description=SAID))
    assert "Failure" in page
    assert "follow-up-push" not in page
    assert "follow-up-luck" in page
    assert "follow-up-pride" in page
    dice(1, 1, 1)

    luck = follow(client, table, latest_roll().pk, "luck")
    pride = follow(client, table, latest_roll().pk, "pride")

    assert luck.status_code == 200
    assert pride.status_code == 200
    assert "Success: 1 of 1 needed" in text(pride)


def test_six_13_a_pushed_roll_that_still_fails_against_a_threat_asks_for_a_second_condition(
    table: Table,
    dice: Script,
) -> None:
    client = logged_in(table.player)
    dice(1, 2, 3)
    roll(client, table, threat="on")
    dice(1, 2, 3)

    response = follow(client, table, latest_roll().pk, "push", condition="Scared", description=SAID)

    assert "Pushed and still failed against a threat: check a second Condition." in text(response)


def test_six_5_pride_adds_one_success_after_a_failure(table: Table, dice: Script) -> None:
    client = logged_in(table.player)
    dice(1, 2, 3)
    roll(client, table)

    response = follow(client, table, latest_roll().pk, "pride")

    assert response.status_code == 200
    assert "Pride: one automatic success" in text(response)
    assert "Success: 1 of 1 needed" in text(response)
    table.character.refresh_from_db()
    assert table.character.pride_used_in == table.campaign.mystery
    assert not table.character.pride_available


def test_six_5_pride_may_follow_a_success(table: Table, dice: Script) -> None:
    client = logged_in(table.player)
    dice(6, 2, 3)
    roll(client, table)

    response = follow(client, table, latest_roll().pk, "pride")

    assert "Success: 2 of 1 needed" in text(response)


def test_six_5_pride_twice_in_one_mystery_is_refused(table: Table, dice: Script) -> None:
    client = logged_in(table.player)
    dice(1, 2, 3)
    roll(client, table)
    follow(client, table, latest_roll().pk, "pride")
    dice(1, 2, 3)
    page = text(roll(client, table))
    assert "follow-up-pride" not in page
    before = everything(table.campaign)

    response = follow(client, table, latest_roll().pk, "pride")

    assert_refused(response, 422, "Pride has been used already in this Mystery.")
    assert everything(table.campaign) == before


def test_six_5_pride_is_available_again_after_a_new_mystery(table: Table, dice: Script) -> None:
    client = logged_in(table.player)
    dice(1, 2, 3)
    roll(client, table)
    follow(client, table, latest_roll().pk, "pride")
    logged_in(table.gm).post(reverse("rolls:mystery-start", args=[table.campaign.pk]), {"confirmed": "yes"})
    dice(1, 2, 3)
    page = text(roll(client, table))
    assert "follow-up-pride" in page

    response = follow(client, table, latest_roll().pk, "pride")

    assert response.status_code == 200
    table.character.refresh_from_db()
    assert table.character.pride_used_in == 2


def test_six_8_luck_refills_at_a_new_session_and_does_not_carry_over(table: Table, dice: Script) -> None:
    kim = factories.member(table.campaign, name="Kim").user
    full = factories.character(table.campaign, kim, name="Kim", age=13)
    client = logged_in(table.player)
    for _ in range(2):
        dice(1, 2, 3)
        roll(client, table)
        dice(1, 2, 3)
        follow(client, table, latest_roll().pk, "luck")
    table.character.refresh_from_db()
    assert table.character.luck == 1
    gm = logged_in(table.gm)

    gm.post(reverse("rolls:session-end", args=[table.campaign.pk]), {"confirmed": "yes"})
    gm.post(reverse("rolls:session-start", args=[table.campaign.pk]))

    table.character.refresh_from_db()
    full.refresh_from_db()
    assert table.character.luck == 3
    assert full.luck == 2


def test_six_22_a_push_may_check_broken_and_then_the_kid_cannot_roll(table: Table, dice: Script) -> None:
    client = logged_in(table.player)
    dice(1, 2, 3)
    roll(client, table)
    dice(6, 1, 1)
    pushed = follow(client, table, latest_roll().pk, "push", condition="Broken", description=SAID)
    assert "Success: 1 of 1 needed" in text(pushed)
    before = everything(table.campaign)
    dice()

    response = roll(client, table)

    assert_refused(response, 422, "Olle is Broken and cannot roll until the GM clears it.")
    assert everything(table.campaign) == before


# -- refusals ------------------------------------------------------------------------------------


def test_six_22_a_broken_kid_cannot_roll(table: Table, dice: Script) -> None:
    set_conditions(table.character, Broken=True)
    before = everything(table.campaign)
    dice()

    response = roll(logged_in(table.player), table)

    assert_refused(response, 422, "Olle is Broken and cannot roll until the GM clears it.")
    assert everything(table.campaign) == before


def test_six_22_the_other_conditions_do_not_stop_a_roll(table: Table, dice: Script) -> None:
    set_conditions(table.character, Upset=True, Scared=True, Exhausted=True, Injured=True)
    dice(1, 2, 3)

    assert roll(logged_in(table.player), table).status_code == 200


def test_a_push_with_every_condition_checked_is_refused(table: Table, dice: Script) -> None:
    client = logged_in(table.player)
    dice(1, 2, 3)
    roll(client, table)
    set_conditions(table.character, Upset=True, Scared=True, Exhausted=True, Injured=True, Broken=True)
    before = everything(table.campaign)
    dice()

    response = follow(client, table, latest_roll().pk, "push", condition="Scared", description=SAID)

    assert_refused(response, 422, "Every Condition is checked already: there is none left to push with.")
    assert everything(table.campaign) == before


def test_a_push_on_a_condition_already_checked_is_refused(table: Table, dice: Script) -> None:
    client = logged_in(table.player)
    dice(1, 2, 3)
    roll(client, table)
    set_conditions(table.character, Scared=True)
    before = everything(table.campaign)
    dice()

    response = follow(client, table, latest_roll().pk, "push", condition="Scared", description=SAID)

    assert_refused(response, 422, "Choose a Condition that is not checked yet to push the roll.")
    assert everything(table.campaign) == before


def test_rolling_without_an_open_session_is_refused(table: Table, dice: Script) -> None:
    table_services.session_end(campaign=table.campaign, actor=table.gm)
    before = everything(table.campaign)
    dice()

    response = roll(logged_in(table.player), table)

    assert_refused(response, 422, "The GM has not started a play session yet.")
    assert everything(table.campaign) == before


def test_rolling_another_players_character_is_forbidden(table: Table, dice: Script) -> None:
    kim = factories.member(table.campaign, name="Kim").user
    before = everything(table.campaign)
    dice()

    response = roll(logged_in(kim), table)

    assert_refused(response, 403, "Only this character's player or the GM can do that.")
    assert everything(table.campaign) == before


def test_following_up_another_players_roll_is_forbidden(table: Table, dice: Script) -> None:
    kim = factories.member(table.campaign, name="Kim").user
    dice(1, 2, 3)
    roll(logged_in(table.player), table)
    before = everything(table.campaign)

    for action, params in (("push", {"condition": "Scared"}), ("luck", {}), ("pride", {})):
        response = follow(logged_in(kim), table, latest_roll().pk, action, **params)
        assert_refused(response, 403, "Only this character's player or the GM can do that.")

    assert everything(table.campaign) == before


def test_the_odds_of_another_players_character_are_forbidden(table: Table) -> None:
    kim = factories.member(table.campaign, name="Kim").user

    assert odds(logged_in(kim), table, trait="Body", need=1).status_code == 403


def test_an_outsider_cannot_roll_follow_up_or_see_the_odds(table: Table, dice: Script) -> None:
    dice(1, 2, 3)
    roll(logged_in(table.player), table)
    before = everything(table.campaign)
    client = logged_in(table.outsider)
    dice()

    assert_refused(roll(client, table), 404, "There is nothing here for you.")
    assert_refused(follow(client, table, latest_roll().pk, "pride"), 404, "There is nothing here for you.")
    assert odds(client, table, trait="Body", need=1).status_code == 404
    assert everything(table.campaign) == before


def test_an_anonymous_visitor_cannot_roll_follow_up_or_see_the_odds(table: Table, dice: Script) -> None:
    dice(1, 2, 3)
    roll(logged_in(table.player), table)
    before = everything(table.campaign)
    client = Client()
    dice()

    # Signed out: sent to sign in (an htmx request by the HX-Redirect header).
    login = reverse("tabletop:login")
    assert roll(client, table)["HX-Redirect"].startswith(login)
    assert follow(client, table, latest_roll().pk, "pride")["HX-Redirect"].startswith(login)
    asked = odds(client, table, trait="Body", need=1)
    assert asked.status_code == 302 and asked["Location"].startswith(login)
    assert everything(table.campaign) == before


def test_a_roll_of_another_campaign_is_not_found_through_this_one(table: Table, dice: Script) -> None:
    elsewhere = factories.campaign(table.outsider, name="Elsewhere")
    stranger = factories.character(elsewhere, table.outsider, name="Stranger")
    table_services.session_start(campaign=elsewhere, actor=table.outsider)
    theirs = services.roll_create(
        character=stranger,
        roller=table.outsider,
        data={"attribute": "Body"},
        helper=None,
        intent="",
        rng=ScriptedDice(1, 2, 3),
    )
    before = everything(table.campaign)
    dice()

    # The GM of this campaign, through this campaign's address, at the other campaign's roll.
    response = follow(logged_in(table.gm), table, theirs.pk, "pride")
    character = logged_in(table.gm).post(
        reverse("rolls:roll-create", args=[table.campaign.pk, stranger.pk]), {"trait": "Body", "need": 1}
    )

    assert_refused(response, 404, "There is nothing here for you.")
    assert_refused(character, 404, "There is nothing here for you.")
    assert everything(table.campaign) == before


def test_a_follow_up_on_a_roll_whose_character_is_gone_is_refused(table: Table, dice: Script) -> None:
    dice(1, 2, 3)
    roll(logged_in(table.player), table)
    made = latest_roll()
    Character.objects.filter(pk=table.character.pk).delete()
    before = everything(table.campaign)

    response = follow(logged_in(table.gm), table, made.pk, "pride")

    assert_refused(response, 422, "This roll's character is gone; it can no longer be followed up.")
    assert everything(table.campaign) == before


def test_six_15_a_helper_from_another_campaign_is_refused(table: Table, dice: Script) -> None:
    elsewhere = factories.campaign(table.outsider, name="Elsewhere")
    stranger = factories.character(elsewhere, table.outsider, name="Stranger")
    before = everything(table.campaign)
    dice()

    response = roll(logged_in(table.player), table, helper=stranger.pk)

    assert_refused(response, 422, "Select a valid choice. That choice is not one of the available choices.")
    assert everything(table.campaign) == before
    with pytest.raises(RulesError, match="choose another character at this table"):
        services.roll_create(
            character=table.character,
            roller=table.player,
            data={"attribute": "Body"},
            helper=stranger,
            intent="",
            rng=ScriptedDice(),
        )
    assert everything(table.campaign) == before


def test_six_15_a_character_cannot_help_themself(table: Table, dice: Script) -> None:
    before = everything(table.campaign)
    dice()

    response = roll(logged_in(table.player), table, helper=table.character.pk)

    assert_refused(response, 422, "Select a valid choice. That choice is not one of the available choices.")
    with pytest.raises(RulesError, match="A character cannot help themself"):
        services.roll_create(
            character=table.character,
            roller=table.player,
            data={"attribute": "Body"},
            helper=table.character,
            intent="",
            rng=ScriptedDice(),
        )
    assert everything(table.campaign) == before


BAD_ROLLS = [
    pytest.param(
        {"trait": "skill-99"},
        "Select a valid choice. skill-99 is not one of the available choices.",
        id="trait-skill-99",
    ),
    pytest.param(
        {"trait": "Strength"},
        "Select a valid choice. Strength is not one of the available choices.",
        id="trait-unknown",
    ),
    pytest.param({"trait": ""}, "This field is required.", id="trait-empty"),
    pytest.param({"trait": "Body\x00"}, "Select a valid choice.", id="trait-null-byte"),
    pytest.param({"need": "4"}, "Select a valid choice. 4 is not one of the available choices.", id="need-4"),
    pytest.param({"need": "0"}, "Select a valid choice. 0 is not one of the available choices.", id="need-0"),
    pytest.param(
        {"need": "junk"}, "Select a valid choice. junk is not one of the available choices.", id="need-junk"
    ),
    pytest.param(
        {"helper": "abc"},
        "Select a valid choice. That choice is not one of the available choices.",
        id="helper-junk",
    ),
    pytest.param(
        {"helper": "-1"},
        "Select a valid choice. That choice is not one of the available choices.",
        id="helper-negative",
    ),
    pytest.param(
        {"helper": "99999999999999999999999"},
        "Select a valid choice. That choice is not one of the available choices.",
        id="helper-huge",
    ),
    pytest.param(
        {"intent": "x" * 201},
        "Ensure this value has at most 200 characters (it has 201).",
        id="intent-too-long",
    ),
]


@pytest.mark.parametrize(("data", "message"), BAD_ROLLS)
def test_a_roll_with_a_bad_value_is_refused_with_a_message_and_changes_nothing(
    table: Table,
    dice: Script,
    data: dict[str, str],
    message: str,
) -> None:
    before = everything(table.campaign)
    dice()
    path = reverse("rolls:roll-create", args=[table.campaign.pk, table.character.pk])

    response = logged_in(table.player).post(path, {"trait": "Body", "need": "1", **data})

    assert_refused(response, 422, message)
    assert everything(table.campaign) == before


def test_a_roll_with_no_fields_at_all_is_refused(table: Table, dice: Script) -> None:
    before = everything(table.campaign)
    dice()
    path = reverse("rolls:roll-create", args=[table.campaign.pk, table.character.pk])

    response = logged_in(table.player).post(path, {})

    assert_refused(response, 422, "This field is required.")
    assert everything(table.campaign) == before


BAD_FOLLOW_UPS = [
    pytest.param({"action": "explode"}, "'explode' is not a follow-up in this system.", id="unknown-action"),
    pytest.param({"action": ""}, "'' is not a follow-up in this system.", id="empty-action"),
    pytest.param({}, "'' is not a follow-up in this system.", id="no-action"),
    pytest.param(
        {"action": "push"},
        "Choose the Condition the push checks: none is chosen for you.",
        id="push-without-condition",
    ),
    pytest.param(
        {"action": "push", "condition": "Hungry"},
        "Choose a Condition that is not checked yet to push the roll.",
        id="push-unknown-condition",
    ),
    pytest.param({"action": "PRIDE"}, "'PRIDE' is not a follow-up in this system.", id="action-in-capitals"),
]


@pytest.mark.parametrize(("data", "message"), BAD_FOLLOW_UPS)
def test_a_follow_up_with_a_bad_value_is_refused_with_a_message_and_changes_nothing(
    table: Table,
    dice: Script,
    data: dict[str, str],
    message: str,
) -> None:
    client = logged_in(table.player)
    dice(1, 2, 3)
    roll(client, table)
    before = everything(table.campaign)
    dice()

    response = client.post(reverse("rolls:follow-up", args=[table.campaign.pk, latest_roll().pk]), data)

    assert_refused(response, 422, message)
    assert everything(table.campaign) == before


def test_a_follow_up_on_a_roll_that_does_not_exist_is_not_found(table: Table) -> None:
    before = everything(table.campaign)

    for roll_id in (999, 99999999999999999999999):
        response = follow(logged_in(table.player), table, roll_id, "pride")
        assert_refused(response, 404, "There is nothing here for you.")

    assert everything(table.campaign) == before


@pytest.mark.parametrize("name", ["rolls:roll-create", "rolls:follow-up"])
def test_roll_views_refuse_get(table: Table, name: str) -> None:
    before = everything(table.campaign)

    response = logged_in(table.player).get(reverse(name, args=[table.campaign.pk, table.character.pk]))

    assert response.status_code == 405
    assert everything(table.campaign) == before


def test_a_rolls_answer_leaves_the_resources_line_to_the_socket(table: Table, dice: Script) -> None:
    """A roll spends nothing: its answer is the result panel alone. The line on the page
    stands; whatever changes it reaches the page over the table's socket."""
    dice(1, 2, 3)

    answer = text(roll(logged_in(table.player), table))

    assert '<section id="result"' in answer
    assert f'id="result-roll-{latest_roll().pk}"' in answer
    assert "resources-" not in answer


def test_a_rolls_answer_redraws_the_resources_line_when_the_sheet_changed_meanwhile(table: Table) -> None:
    """Between the read the roll form is checked against and the roll's locked read, a
    follow-up from another device or the GM may have spent from the sheet: then the answer
    redraws the line (play._changed compares the two reads)."""
    before = Character.objects.get(pk=table.character.pk)
    same = Character.objects.get(pk=table.character.pk)
    spent = Character.objects.get(pk=table.character.pk)
    spent.luck -= 1

    assert not play._changed(before, same)
    assert play._changed(before, spent)


def test_the_roll_screens_header_shows_what_a_follow_up_spent(table: Table, dice: Script) -> None:
    client = logged_in(table.player)
    dice(1, 2, 3)
    roll(client, table)
    dice(6, 2, 2)

    response = follow(client, table, latest_roll().pk, "luck")

    swap = text(response).split(
        f'<div id="resources-{table.character.pk}" class="resources-line" hx-swap-oob="true">', 1
    )[1]
    assert "Luck 2" in swap.split("</div>", 1)[0]


def test_six_8_a_kid_with_no_luck_left_is_shown_no_luck_odds(table: Table) -> None:
    """SIX-7, SIX-8: the odds shown are what the kid can still do: with no Luck point left, the
    roll form says so instead of a chance with Luck."""
    table.character.luck = 0
    table.character.save(update_fields=["luck"])

    response = odds(logged_in(table.player), table, trait="skill-0", need=1)

    assert (
        visible_text(text(response)) == "Body + Sneak: 4 dice 52% to get 1 six With a push 77% · no Luck left"
    )


def test_six_10_six_11_a_kid_with_every_condition_checked_is_shown_no_push_odds_and_why(table: Table) -> None:
    """SIX-10, SIX-11: a push first checks a Condition; with every one checked there is none to
    push with, so the form shows no push odds, says why, and keeps the Luck odds (SIX-6)."""
    sheet = table.character.sheet
    sheet["conditions"] = {name: True for name in sheet["conditions"]}
    table.character.save(update_fields=["sheet"])

    response = odds(logged_in(table.player), table, trait="skill-0", need=1)

    assert visible_text(text(response)) == (
        "Body + Sneak: 4 dice 52% to get 1 six No push: every Condition is checked. · With Luck 77%"
    )
