"""Character sheets through the views: creating, editing, validation, who may edit, and the log."""

from __future__ import annotations

from typing import Any

import pytest
from django.urls import reverse

from rolls.models import LogEntry
from tabletop.models import Character
from tests import factories
from tests.factories import Table, logged_in


def text(response: Any) -> str:
    return response.content.decode()


def new_path(table: Table) -> str:
    return reverse("rolls:character-new", args=[table.campaign.pk])


def edit_path(table: Table, character: Character | None = None) -> str:
    return reverse("rolls:character-edit", args=[table.campaign.pk, (character or table.character).pk])


def snapshot(character: Character) -> tuple[object, ...]:
    character.refresh_from_db()
    return (character.name, character.sheet, character.luck, character.pride_used_in)


# -- creating ------------------------------------------------------------------------------------


def test_a_player_creates_a_character_and_lands_on_its_roll_page(table: Table) -> None:
    client = logged_in(table.player)

    response = client.post(new_path(table), factories.sixes_sheet_form("Kim", body=4, skill_body_1_level=2))

    character = Character.objects.get(name="Kim")
    assert response.status_code == 302
    assert response["Location"] == character.get_absolute_url()
    assert character.owner == table.player
    assert character.sheet["attributes"]["Body"] == 4
    assert character.sheet["skills"][1] == {"name": "Force", "attribute": "Body", "level": 2}
    assert character.sheet["item"] == "Walkie-talkie"
    assert character.sheet["conditions"] == {
        c: False for c in ("Upset", "Scared", "Exhausted", "Injured", "Broken")
    }
    assert client.get(response["Location"]).status_code == 200


@pytest.mark.parametrize(("age", "luck"), [(10, 5), (12, 3), (15, 0)])
def test_six_8_a_new_character_holds_15_minus_age_luck_points(table: Table, age: int, luck: int) -> None:
    logged_in(table.player).post(new_path(table), factories.sixes_sheet_form("Kim", age=age))

    assert Character.objects.get(name="Kim").luck == luck


def test_creating_a_character_tells_the_table(table: Table) -> None:
    logged_in(table.player).post(new_path(table), factories.sixes_sheet_form("Kim"))

    last = LogEntry.objects.filter(campaign=table.campaign).order_by("-seq")[0]
    assert (last.kind, last.action, last.text) == ("event", "character-new", "Kim joins the story.")


def test_the_new_character_form_offers_the_default_skills(table: Table) -> None:
    page = text(logged_in(table.player).get(new_path(table)))

    for skill in ("Sneak", "Force", "Move", "Tinker", "Program", "Calculate"):
        assert f'value="{skill}"' in page


BAD_SHEETS = [
    pytest.param({"age": 9}, "Ensure this value is greater than or equal to 10.", id="age-9"),
    pytest.param({"age": 16}, "Ensure this value is less than or equal to 15.", id="age-16"),
    pytest.param({"age": "twelve"}, "Enter a whole number.", id="age-junk"),
    pytest.param({"body": 0}, "Ensure this value is greater than or equal to 1.", id="attribute-0"),
    pytest.param({"mind": 6}, "Ensure this value is less than or equal to 5.", id="attribute-6"),
    pytest.param({"skill_tech_2_level": 6}, "Ensure this value is less than or equal to 5.", id="skill-6"),
    pytest.param(
        {"skill_heart_0_level": -1}, "Ensure this value is greater than or equal to 0.", id="skill--1"
    ),
    pytest.param({"name": "   "}, "This field is required.", id="no-name"),
    pytest.param({"skill_mind_0_name": ""}, "This field is required.", id="no-skill-name"),
    pytest.param(
        {"skill_mind_2_name": "Sneak"},
        "Two skills have the same name; give each skill its own.",
        id="duplicate-skill",
    ),
    pytest.param(
        {"skill_tech_0_name": " FORCE "},
        "Two skills have the same name; give each skill its own.",
        id="duplicate-skill-in-another-case",
    ),
]


@pytest.mark.parametrize(("overrides", "message"), BAD_SHEETS)
def test_a_new_sheet_with_a_bad_value_is_refused_with_a_message(
    table: Table, overrides: dict[str, Any], message: str
) -> None:
    characters_before = Character.objects.count()
    entries_before = LogEntry.objects.count()

    data = {**factories.sixes_sheet_form("Kim"), **overrides}

    response = logged_in(table.player).post(new_path(table), data)

    assert response.status_code == 200
    assert message in text(response)
    assert Character.objects.count() == characters_before
    assert LogEntry.objects.count() == entries_before


@pytest.mark.parametrize(("overrides", "message"), BAD_SHEETS)
def test_an_edited_sheet_with_a_bad_value_changes_nothing(
    table: Table, overrides: dict[str, Any], message: str
) -> None:
    before = snapshot(table.character)
    entries_before = LogEntry.objects.count()

    data = {**factories.sixes_sheet_form("Olle", condition_scared="on"), **overrides}

    response = logged_in(table.player).post(edit_path(table), data)

    assert response.status_code == 200
    assert message in text(response)
    assert snapshot(table.character) == before
    assert LogEntry.objects.count() == entries_before


# -- editing -------------------------------------------------------------------------------------


def test_the_edit_form_shows_the_sheet_as_it_is(table: Table) -> None:
    page = text(logged_in(table.player).get(edit_path(table)))

    assert 'value="Olle"' in page
    assert 'value="Walkie-talkie"' in page
    assert 'value="I never give up"' in page


def test_a_player_edits_their_own_sheet(table: Table) -> None:
    response = logged_in(table.player).post(
        edit_path(table), factories.sixes_sheet_form("Olle the Brave", heart=5, skill_heart_1_name="Sing")
    )

    assert response.status_code == 302
    table.character.refresh_from_db()
    assert table.character.name == "Olle the Brave"
    assert table.character.sheet["attributes"]["Heart"] == 5
    assert table.character.sheet["skills"][7]["name"] == "Sing"


def test_the_gm_can_edit_any_sheet(table: Table) -> None:
    response = logged_in(table.gm).post(edit_path(table), factories.sixes_sheet_form("Olle", tech=1))

    assert response.status_code == 302
    table.character.refresh_from_db()
    assert table.character.sheet["attributes"]["Tech"] == 1
    assert table.character.owner == table.player


def test_another_player_may_read_but_not_edit_a_sheet(table: Table) -> None:
    kim = factories.member(table.campaign, name="Kim").user
    client = logged_in(kim)
    before = snapshot(table.character)

    sheet = client.get(reverse("rolls:character-sheet", args=[table.campaign.pk, table.character.pk]))
    form = client.get(edit_path(table))
    post = client.post(edit_path(table), factories.sixes_sheet_form("Stolen", condition_broken="on"))

    assert sheet.status_code == 200
    assert "Olle" in text(sheet)
    assert edit_path(table) not in text(sheet)
    assert form.status_code == 403
    assert post.status_code == 403
    assert snapshot(table.character) == before


def test_the_sheet_page_offers_editing_to_the_player_and_the_gm(table: Table) -> None:
    path = reverse("rolls:character-sheet", args=[table.campaign.pk, table.character.pk])

    assert edit_path(table) in text(logged_in(table.player).get(path))
    assert edit_path(table) in text(logged_in(table.gm).get(path))


def test_an_outsider_cannot_see_or_edit_a_sheet(table: Table) -> None:
    client = logged_in(table.outsider)
    before = snapshot(table.character)

    assert client.get(edit_path(table)).status_code == 404
    assert client.post(edit_path(table), factories.sixes_sheet_form("Stolen")).status_code == 404
    assert client.post(new_path(table), factories.sixes_sheet_form("Intruder")).status_code == 404
    assert snapshot(table.character) == before
    assert not Character.objects.filter(name="Intruder").exists()


def test_a_character_of_another_campaign_is_not_found_through_this_one(table: Table) -> None:
    elsewhere = factories.campaign(table.outsider, name="Elsewhere")
    stranger = factories.character(elsewhere, table.outsider, name="Stranger")

    response = logged_in(table.gm).get(reverse("rolls:character-edit", args=[table.campaign.pk, stranger.pk]))

    assert response.status_code == 404


# -- Conditions and the log ----------------------------------------------------------------------


def test_a_condition_change_is_logged_as_an_event(table: Table) -> None:
    logged_in(table.player).post(
        edit_path(table), factories.sixes_sheet_form("Olle", condition_scared="on", condition_injured="on")
    )

    table.character.refresh_from_db()
    assert table.character.sheet["conditions"]["Scared"] is True
    last = LogEntry.objects.filter(campaign=table.campaign).order_by("-seq")[0]
    assert (last.kind, last.action) == ("event", "sheet-change")
    assert last.text == "Olle: checked Scared, checked Injured."
    assert last.actor == table.player


def test_clearing_a_condition_is_logged_as_an_event(table: Table) -> None:
    client = logged_in(table.gm)
    client.post(edit_path(table), factories.sixes_sheet_form("Olle", condition_upset="on"))

    client.post(edit_path(table), factories.sixes_sheet_form("Olle"))

    last = LogEntry.objects.filter(campaign=table.campaign).order_by("-seq")[0]
    assert last.text == "Olle: cleared Upset."
    assert last.actor == table.gm


def test_a_sheet_edit_without_a_condition_change_logs_nothing(table: Table) -> None:
    entries_before = LogEntry.objects.count()

    logged_in(table.player).post(edit_path(table), factories.sixes_sheet_form("Olle", body=2))

    assert LogEntry.objects.count() == entries_before


def test_six_22_the_gm_checks_and_clears_broken(table: Table) -> None:
    client = logged_in(table.gm)

    client.post(edit_path(table), factories.sixes_sheet_form("Olle", condition_broken="on"))
    table.character.refresh_from_db()
    assert table.character.sheet["conditions"]["Broken"] is True

    client.post(edit_path(table), factories.sixes_sheet_form("Olle"))
    table.character.refresh_from_db()
    assert table.character.sheet["conditions"]["Broken"] is False


def test_six_22_a_player_cannot_clear_broken_on_their_own_sheet(table: Table) -> None:
    """Our reading of SIX-22: a Broken kid is out of the action until the GM clears Broken."""
    logged_in(table.gm).post(edit_path(table), factories.sixes_sheet_form("Olle", condition_broken="on"))
    before = snapshot(table.character)
    entries_before = LogEntry.objects.count()

    response = logged_in(table.player).post(edit_path(table), factories.sixes_sheet_form("Olle"))

    assert response.status_code == 200
    assert "Only the GM can clear Broken." in text(response)
    assert snapshot(table.character) == before
    assert LogEntry.objects.count() == entries_before


def test_six_22_a_player_may_check_broken_themself(table: Table) -> None:
    logged_in(table.player).post(edit_path(table), factories.sixes_sheet_form("Olle", condition_broken="on"))

    table.character.refresh_from_db()
    assert table.character.sheet["conditions"]["Broken"] is True


def test_six_8_an_older_age_lowers_luck_to_the_new_maximum(table: Table) -> None:
    assert table.character.luck == 3

    logged_in(table.player).post(edit_path(table), factories.sixes_sheet_form("Olle", age=14))

    table.character.refresh_from_db()
    assert table.character.luck == 1


def test_six_8_a_younger_age_gives_no_luck_before_the_next_session(table: Table) -> None:
    logged_in(table.player).post(edit_path(table), factories.sixes_sheet_form("Olle", age=10))

    table.character.refresh_from_db()
    assert table.character.luck == 3
