"""The GM's controls that change every sheet or end the evening ask once for confirmation:
the page's dialog (htmx's hx-confirm) sends ``confirmed``, and a post without it (no script)
answers with a page that asks, changing nothing until its Confirm button is pressed."""

from __future__ import annotations

import html

import pytest
from django.urls import reverse

from rolls.models import LogEntry
from tabletop.models import Character
from tests import factories
from tests.factories import Table, logged_in
from tests.test_table_stars import stars_sheet

CONTROLS = {"rolls:session-end": "end", "rolls:mystery-start": "mystery", "rolls:long-rest": "rest"}


@pytest.fixture
def stars(db: None) -> Table:
    return factories.table("stars", character_name="Dave", sheet=stars_sheet())


def state(table: Table) -> tuple[object, ...]:
    table.campaign.refresh_from_db()
    return (
        LogEntry.objects.count(),
        table.campaign.mystery,
        table.campaign.open_session() is not None,
        list(Character.objects.values_list("pk", "luck")),
    )


@pytest.mark.parametrize("name", CONTROLS)
def test_without_confirmation_a_control_asks_and_changes_nothing(stars: Table, name: str) -> None:
    Character.objects.filter(pk=stars.character.pk).update(luck=1)
    before = state(stars)
    url = reverse(name, args=[stars.campaign.pk])
    response = logged_in(stars.gm).post(url)
    assert response.status_code == 200
    page = html.unescape(response.content.decode())
    assert "Are you sure?" in page
    assert f'action="{url}"' in page and 'name="confirmed" value="yes"' in page
    assert state(stars) == before


def test_the_confirmation_page_names_what_happens(stars: Table) -> None:
    gm = logged_in(stars.gm)
    page = html.unescape(gm.post(reverse("rolls:long-rest", args=[stars.campaign.pk])).content.decode())
    assert "Long rest for everyone? A long rest: everyone gets one point of Luck back" in page
    page = html.unescape(gm.post(reverse("rolls:mystery-start", args=[stars.campaign.pk])).content.decode())
    assert "New Adventure? Adventure 2 begins. Everyone's Luck is full again." in page
    page = html.unescape(gm.post(reverse("rolls:session-end", args=[stars.campaign.pk])).content.decode())
    assert "End session 1 for the whole table?" in page


def test_confirmed_from_the_page_without_script_the_long_rest_happens_STR_12(stars: Table) -> None:
    Character.objects.filter(pk=stars.character.pk).update(luck=1)
    response = logged_in(stars.gm).post(
        reverse("rolls:long-rest", args=[stars.campaign.pk]), {"confirmed": "yes"}, follow=True
    )
    assert "Everyone takes a long rest." in response.content.decode()
    stars.character.refresh_from_db()
    assert stars.character.luck == 2


def test_the_htmx_path_confirmed_by_the_dialog_ends_the_session(stars: Table) -> None:
    response = logged_in(stars.gm).post(
        reverse("rolls:session-end", args=[stars.campaign.pk]), {"confirmed": "yes"}, HTTP_HX_REQUEST="true"
    )
    assert response.status_code == 200
    assert response["HX-Redirect"] == reverse("rolls:session", args=[stars.campaign.pk])
    assert stars.campaign.open_session() is None


def test_the_htmx_path_without_confirmation_changes_nothing(stars: Table) -> None:
    before = state(stars)
    response = logged_in(stars.gm).post(
        reverse("rolls:mystery-start", args=[stars.campaign.pk]), HTTP_HX_REQUEST="true"
    )
    assert "Are you sure?" in response.content.decode()
    assert state(stars) == before


def test_the_session_page_asks_once_in_a_dialog_for_each_control(stars: Table) -> None:
    page = html.unescape(
        logged_in(stars.gm).get(reverse("rolls:session", args=[stars.campaign.pk])).content.decode()
    )
    assert page.count("hx-confirm=") == 3
    assert 'hx-confirm="End session 1 for the whole table?"' in page
    assert page.count("""hx-vals='{"confirmed": "yes"}'""") == 3


def test_a_player_is_refused_before_any_question(stars: Table) -> None:
    for name in CONTROLS:
        assert logged_in(stars.player).post(reverse(name, args=[stars.campaign.pk])).status_code == 403
