"""The GM's corrections of a resource stay within the rules' limits (SIX-8, STR-12, DBL-10):
a refusal names the limit and changes nothing, and the clocks bring a pool above its maximum
down to it."""

from __future__ import annotations

import html

from django.test import Client
from django.urls import reverse

from rolls.campaigns import services
from rolls.models import LogEntry
from tabletop.models import Character
from tests import factories
from tests.factories import Table, logged_in
from tests.test_table_doubles import doubles_sheet
from tests.test_table_stars import stars_sheet


def correct(client: Client, table: Table, **values: int) -> str:
    path = reverse("rolls:character-correct", args=[table.campaign.pk, table.character.pk])
    response = client.post(path, values, follow=True)
    assert response.status_code == 200
    return html.unescape(response.content.decode())


def corrections_logged(table: Table) -> int:
    return LogEntry.objects.filter(campaign=table.campaign, action="gm-correction").count()


def test_sixes_luck_above_15_minus_age_is_refused_SIX_8(db: None) -> None:
    table = factories.table("sixes", sheet=factories.sixes_sheet(age=14))
    page = correct(logged_in(table.gm), table, luck=9)
    assert "Olle holds at most 1 Luck points (15 - age 14, SIX-8); 9 is too many." in page
    table.character.refresh_from_db()
    assert table.character.luck == 1
    assert corrections_logged(table) == 0


def test_sixes_luck_up_to_15_minus_age_is_taken_and_logged_SIX_8(db: None) -> None:
    table = factories.table("sixes", sheet=factories.sixes_sheet(age=10))
    Character.objects.filter(pk=table.character.pk).update(luck=0)
    page = correct(logged_in(table.gm), table, luck=5)
    assert "Corrected: Luck points 0 → 5." in page
    assert corrections_logged(table) == 1


def test_stars_luck_above_the_maximum_is_refused_STR_12(db: None) -> None:
    table = factories.table("stars", character_name="Dave", sheet=stars_sheet())
    page = correct(logged_in(table.gm), table, luck=4)
    assert "Dave holds at most 3 Luck points" in page and "STR-12" in page
    table.character.refresh_from_db()
    assert table.character.luck == 3
    assert corrections_logged(table) == 0


def test_stars_luck_up_to_a_charmed_life_maximum_is_taken_STR_12(db: None) -> None:
    table = factories.table(
        "stars", character_name="Dave", sheet=stars_sheet(edges={"Charmed Life": "advanced"})
    )
    page = correct(logged_in(table.gm), table, luck=5)
    assert "Corrected: Luck points 5 → 5" not in page  # full already: nothing to change
    assert "Nothing changed." in page
    assert "too many" in correct(logged_in(table.gm), table, luck=6)


def test_a_long_rest_brings_luck_above_the_maximum_down_to_it_STR_12(db: None) -> None:
    table = factories.table("stars", character_name="Dave", sheet=stars_sheet())
    Character.objects.filter(pk=table.character.pk).update(luck=7)
    services.long_rest(campaign=table.campaign, actor=table.gm)
    table.character.refresh_from_db()
    assert table.character.luck == 3


def test_a_new_session_brings_sixes_luck_down_to_15_minus_age_SIX_8(db: None) -> None:
    table = factories.table("sixes", sheet=factories.sixes_sheet(age=14))
    Character.objects.filter(pk=table.character.pk).update(luck=9)
    services.session_end(campaign=table.campaign, actor=table.gm)
    services.session_start(campaign=table.campaign, actor=table.gm)
    table.character.refresh_from_db()
    assert table.character.luck == 1


def test_doubles_endurance_above_the_sheet_is_refused_DBL_10(db: None) -> None:
    table = factories.table("doubles", character_name="Mara", sheet=doubles_sheet())
    table.character.refresh_from_db()
    most = table.character.sheet["endurance_max"]
    page = correct(logged_in(table.gm), table, endurance=most + 1, drama_spent=0)
    assert f"Mara holds at most {most} Endurance now (the Endurance on the sheet, DBL-10)" in page
    table.character.refresh_from_db()
    assert table.character.endurance == most
    assert corrections_logged(table) == 0
    page = correct(logged_in(table.gm), table, endurance=most - 5, drama_spent=5)
    assert f"Endurance now {most} → {most - 5}" in page


def test_a_doubles_long_rest_brings_endurance_above_the_sheet_down_to_it_DBL_10(db: None) -> None:
    table = factories.table("doubles", character_name="Mara", sheet=doubles_sheet())
    most = table.character.sheet["endurance_max"]
    Character.objects.filter(pk=table.character.pk).update(endurance=most + 20)
    services.long_rest(campaign=table.campaign, actor=table.gm)
    table.character.refresh_from_db()
    assert table.character.endurance == most


def test_the_sheet_shows_the_gm_the_characters_own_limit_SIX_8(db: None) -> None:
    table = factories.table("sixes", sheet=factories.sixes_sheet(age=13))
    path = reverse("rolls:character-sheet", args=[table.campaign.pk, table.character.pk])
    page = html.unescape(logged_in(table.gm).get(path).content.decode())
    assert 'name="luck" value="2" max="2"' in page or ('name="luck"' in page and 'max="2"' in page)
    assert "At most 2 (15 - age 13, SIX-8)." in page
