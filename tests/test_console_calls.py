"""Calls for a roll from the GM's console: tick characters, pick each one's trait from their
own sheet, what is needed and why; each phone sees its own roll with the exact odds and
answers in one tap, still able to add what the rules let a player add."""

from __future__ import annotations

import html
from typing import Any

import pytest
from django.urls import reverse

from rolls import registry
from rolls.models import LogEntry, Roll, RollCall
from rolls.play.calls import CallBuilder
from rolls.systems.base import percent
from tabletop.models import Character
from tests import factories
from tests.factories import Table, logged_in
from tests.test_rolls import visible_text
from tests.test_table_doubles import doubles_sheet
from tests.test_table_stars import stars_sheet


@pytest.fixture
def two(db: None) -> tuple[Table, Character, Any]:
    """A sixes table: Olle (the player's) and Bo (a second player's), with different skills."""
    table = factories.table("sixes")
    second = factories.user("second")
    factories.member(table.campaign, second, name="Second")
    skills = factories.sixes_sheet()["skills"]
    skills[0] = {**skills[0], "name": "Climb", "level": 2}
    bo = factories.character(table.campaign, second, name="Bo", skills=skills)
    return table, bo, second


def call(table: Table, data: dict[str, Any], *, user: Any = None, htmx: bool = True) -> Any:
    extra = {"HTTP_HX_REQUEST": "true"} if htmx else {}
    path = reverse("rolls:calls-create", args=[table.campaign.pk])
    return logged_in(user or table.gm).post(path, data, **extra)


def page(client: Any, path: str) -> str:
    response = client.get(path)
    assert response.status_code == 200
    return html.unescape(response.content.decode())


def test_the_console_lists_each_characters_own_traits(two: tuple[Table, Character, Any]) -> None:
    table, bo, _ = two
    text = page(logged_in(table.gm), reverse("rolls:session", args=[table.campaign.pk]))
    assert f'<input type="checkbox" name="ask" value="{bo.pk}">' in text
    assert f'name="c{bo.pk}-trait"' in text and f'name="c{table.character.pk}-trait"' in text
    # Bo's first skill is Climb, Olle's is the default: each select lists its own sheet.
    bo_select = text.split(f'name="c{bo.pk}-trait"')[1].split("</select>")[0]
    olle_select = text.split(f'name="c{table.character.pk}-trait"')[1].split("</select>")[0]
    assert ">Climb</option>" in bo_select and ">Climb</option>" not in olle_select
    assert '<select name="need"' in text


def test_a_call_for_two_characters_with_different_traits(two: tuple[Table, Character, Any]) -> None:
    table, bo, _ = two
    olle = table.character
    response = call(
        table,
        {
            "ask": [str(olle.pk), str(bo.pk)],
            f"c{olle.pk}-trait": "Mind",
            f"c{bo.pk}-trait": "skill-0",
            "need": "2",
            "intent": "Get over the fence",
        },
    )
    assert response.status_code == 200
    assert "Asked Bo (Body + Climb), Olle (Mind)." in html.unescape(response.content.decode())
    made = RollCall.objects.get()
    assert made.intent == "Get over the fence"
    assert made.label_for(olle.pk) == "Mind" and made.label_for(bo.pk) == "Body + Climb"
    assert made.data_for(bo.pk) == {"need": "2", "trait": "skill-0"}
    event = LogEntry.objects.filter(action="call").get()
    assert event.text == "The GM asks Bo (Body + Climb), Olle (Mind) for a roll: Get over the fence."


def test_each_phone_sees_its_own_roll_with_its_exact_odds(two: tuple[Table, Character, Any]) -> None:
    table, bo, second = two
    olle = table.character
    call(
        table,
        {
            "ask": [str(olle.pk), str(bo.pk)],
            f"c{olle.pk}-trait": "Mind",
            f"c{bo.pk}-trait": "skill-0",
            "need": "2",
            "intent": "Fence",
        },
    )
    engine = registry.engine("sixes")
    bo_page = page(logged_in(second), reverse("rolls:character", args=[table.campaign.pk, bo.pk]))
    assert "The GM asks Bo to roll Body + Climb. Fence" in visible_text(bo_page)
    bo_chance = percent(engine.chance(engine.parse_request({"attribute": 3, "skill": 2, "need": 2})))
    assert f"<b>{bo_chance}</b> to get 2 sixes" in bo_page
    olle_page = page(logged_in(table.player), reverse("rolls:character", args=[table.campaign.pk, olle.pk]))
    assert "The GM asks Olle to roll Mind. Fence" in visible_text(olle_page)
    assert "Body + Climb" not in olle_page.split('id="calls-panel"')[1].split("</section>")[0]
    olle_chance = percent(engine.chance(engine.parse_request({"attribute": 3, "skill": 0, "need": 2})))
    assert f"<b>{olle_chance}</b> to get 2 sixes" in olle_page
    # The player may still add the Iconic Item (+2 dice) and a helper.
    assert "Walkie-talkie (+2 dice)" in olle_page and "A friend helps" in olle_page


def test_answering_is_one_tap_with_the_calls_values(two: tuple[Table, Character, Any], dice: Any) -> None:
    table, bo, second = two
    call(table, {"ask": [str(bo.pk)], f"c{bo.pk}-trait": "skill-0", "need": "1", "intent": "Fence"})
    made = RollCall.objects.get()
    # What the phone's call form posts: its hidden inputs and the button.
    panel = page(logged_in(second), reverse("rolls:character", args=[table.campaign.pk, bo.pk]))
    form = panel.split(f'id="call-{made.pk}-{bo.pk}"')[1].split("</form>")[0]
    assert 'name="trait" value="skill-0"' in form and 'name="need" value="1"' in form
    dice(6, 1, 1, 1, 1)
    response = logged_in(second).post(
        reverse("rolls:roll-create", args=[table.campaign.pk, bo.pk]),
        {"trait": "skill-0", "need": "1", "call": str(made.pk), "intent": "Fence"},
        HTTP_HX_REQUEST="true",
    )
    assert response.status_code == 200
    roll = Roll.objects.get()
    assert (roll.call_id, roll.trait, roll.intent) == (made.pk, "Body + Climb", "Fence")
    status = page(logged_in(table.gm), reverse("rolls:session", args=[table.campaign.pk]))
    assert "Bo Body + Climb ✓" in visible_text(status)


def test_one_player_with_two_characters_in_one_call_gets_two_forms(
    two: tuple[Table, Character, Any], dice: Any
) -> None:
    """Each form on the phone names its call and its character, so answering for one kid
    removes that kid's form only, and every id on the page stays unique."""
    table, bo, second = two
    kim = factories.character(table.campaign, second, name="Kim")
    call(
        table,
        {
            "ask": [str(bo.pk), str(kim.pk)],
            f"c{bo.pk}-trait": "skill-0",
            f"c{kim.pk}-trait": "skill-0",
            "need": "1",
        },
    )
    made = RollCall.objects.get()
    panel = page(logged_in(second), reverse("rolls:character", args=[table.campaign.pk, bo.pk]))
    assert panel.count(f'id="call-{made.pk}-{bo.pk}"') == 1
    assert panel.count(f'id="call-{made.pk}-{kim.pk}"') == 1
    dice(6, 1, 1, 1, 1)
    answer = (
        logged_in(second)
        .post(
            reverse("rolls:roll-create", args=[table.campaign.pk, bo.pk]),
            {"trait": "skill-0", "need": "1", "call": str(made.pk)},
            HTTP_HX_REQUEST="true",
        )
        .content.decode()
    )
    assert f'id="call-{made.pk}-{bo.pk}" hx-swap-oob="delete"' in answer
    assert f"call-{made.pk}-{kim.pk}" not in answer


def test_a_trait_the_character_lacks_is_refused_and_nothing_is_asked(
    two: tuple[Table, Character, Any],
) -> None:
    table, _, _ = two
    olle = table.character
    # skill-0 exists for both, but an index past Olle's sheet does not.
    response = call(table, {"ask": [str(olle.pk)], f"c{olle.pk}-trait": "skill-40", "need": "1"})
    assert response.status_code == 422
    assert "For Olle: Select a valid choice. skill-40 is not one of the available choices." in html.unescape(
        response.content.decode()
    )
    assert not RollCall.objects.exists() and not LogEntry.objects.filter(action="call").exists()


def test_doubles_an_ability_of_another_sheet_is_refused(db: None) -> None:
    table = factories.table("doubles", character_name="Mara", sheet=doubles_sheet())
    second = factories.user("second")
    factories.member(table.campaign, second)
    other = doubles_sheet(abilities=[{"name": "Sorcery", "level": 3}])
    cy = factories.services.character_create(campaign=table.campaign, owner=second, name="Cy", sheet=other)
    ok = call(table, {"ask": [str(cy.pk)], f"c{cy.pk}-abilities": "Sorcery", "dn": "6"})
    assert ok.status_code == 200
    refused = call(
        table, {"ask": [str(table.character.pk)], f"c{table.character.pk}-abilities": "Sorcery", "dn": "6"}
    )
    assert refused.status_code == 422
    assert "For Mara: Select a valid choice. Sorcery is not one of the available choices." in html.unescape(
        refused.content.decode()
    )
    assert RollCall.objects.count() == 1


def test_stars_each_hero_rolls_their_own_stat_and_skill(db: None) -> None:
    table = factories.table(
        "stars", character_name="Dave", sheet=stars_sheet({"Vigor": 5}, {"Melee": "adept"})
    )
    dave = table.character
    response = call(
        table,
        {
            "ask": [str(dave.pk)],
            f"c{dave.pk}-stat": "Vigor",
            f"c{dave.pk}-skill": "Melee",
            "advantage": "advantage",
        },
    )
    assert response.status_code == 200
    assert RollCall.objects.get().label_for(dave.pk) == "Vigor (Melee)"


@pytest.mark.parametrize(
    "data, message",
    [
        ({}, "Tick at least one character to ask."),
        ({"ask": "99999"}, "Tick at least one character to ask."),
        ({"ask": "abc"}, "Tick at least one character to ask."),
        ({"ask": "OLLE", "intent": "x" * 201}, "Say what they try in at most 200 characters."),
        ({"ask": "OLLE", "cOLLE-trait": "Mind", "need": "9"}, "For Olle: Select a valid choice."),
    ],
)
def test_a_bad_call_is_refused_clearly_and_asks_nobody(
    two: tuple[Table, Character, Any], data: dict[str, str], message: str
) -> None:
    table, _, _ = two
    pk = str(table.character.pk)
    data = {key.replace("OLLE", pk): value.replace("OLLE", pk) for key, value in data.items()}
    response = call(table, data)
    assert response.status_code == 422
    assert message in html.unescape(response.content.decode())
    assert not RollCall.objects.exists()


def test_without_script_a_call_redirects_to_the_console_with_a_message(
    two: tuple[Table, Character, Any],
) -> None:
    table, _, _ = two
    pk = table.character.pk
    response = call(table, {"ask": str(pk), f"c{pk}-trait": "Heart", "need": "1"}, htmx=False)
    assert response.status_code == 302 and response["Location"] == reverse(
        "rolls:session", args=[table.campaign.pk]
    )
    assert RollCall.objects.get().label_for(pk) == "Heart"


def test_only_the_gm_calls_for_a_roll(two: tuple[Table, Character, Any]) -> None:
    table, _, _ = two
    pk = table.character.pk
    data = {"ask": str(pk), f"c{pk}-trait": "Heart", "need": "1"}
    assert call(table, data, user=table.player).status_code == 403
    assert call(table, data, user=table.outsider).status_code == 404
    assert not RollCall.objects.exists()


def test_a_call_needs_a_running_session(two: tuple[Table, Character, Any]) -> None:
    table, _, _ = two
    factories.services.session_end(campaign=table.campaign, actor=table.gm)
    pk = table.character.pk
    response = call(table, {"ask": str(pk), f"c{pk}-trait": "Heart", "need": "1"})
    assert response.status_code == 422
    assert "Start a play session before calling for rolls." in response.content.decode()


@pytest.mark.parametrize("system", ["sixes", "kinds", "doubles", "sets", "stars"])
def test_every_system_calls_from_the_console_and_the_phone_shows_the_odds(db: None, system: str) -> None:
    """The console's call form as it starts, with the first trait of the sheet ticked: the
    call is made and the player's phone shows it with its odds."""
    from tests.test_console_npc import SHEETS

    table = factories.table(system, sheet=SHEETS[system])
    builder = CallBuilder(table.campaign)
    (row,) = builder.rows()
    data: dict[str, Any] = {"ask": str(table.character.pk), "intent": "Try it"}
    for field in [*row.traits, *builder.needs()]:
        choices = [value for value, _ in getattr(field.field, "choices", []) if value not in ("", None)]
        value = field.value()
        if value in (None, "", []) and choices:
            value = [choices[0]] if field.widget_type == "checkboxselectmultiple" else choices[0]
        if value not in (None, "", [], False):
            data[field.html_name] = value if not isinstance(value, bool) else "on"
    response = call(table, data)
    assert response.status_code == 200, response.content
    text = visible_text(
        page(
            logged_in(table.player), reverse("rolls:character", args=[table.campaign.pk, table.character.pk])
        )
    )
    assert f"The GM asks {table.character.name} to roll" in text
    assert "Try it" in text
    assert "%" in text.split("The GM asks", 1)[1].split("Roll", 1)[0]


@pytest.mark.parametrize("where", ["intent", "field"])
def test_a_call_holding_a_nul_character_is_refused_and_asks_nobody(
    two: tuple[Table, Character, Any], where: str
) -> None:
    """PostgreSQL keeps no NUL in text: a call that kept one answered 500 there. It is
    refused as any bad call is, on every database, and nothing is asked."""
    table, _, _ = two
    data = factories.roll_data("sixes", table.character)
    if where == "intent":
        data["intent"] = "climb\x00the wall"
    else:
        data["why"] = "a\x00b"
    path = reverse("rolls:call-create", args=[table.campaign.pk, table.character.pk])

    response = logged_in(table.gm).post(path, data, HTTP_HX_REQUEST="true")

    assert response.status_code == 422
    assert "NUL" in response.content.decode()
    assert not RollCall.objects.exists()
