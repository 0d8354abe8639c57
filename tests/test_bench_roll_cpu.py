"""The parts bench/roll_cpu.py takes away from a roll, to show what a change could save at most:
``--floor`` posts to a view that does only what the roll's request does before it rolls (it
must still check the member and the character, or the floor would be too low), and
``--no-drawing`` leaves the roll its work and takes only its drawing. Nothing here times
anything."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from django.template.backends import django as django_backend
from django.urls import clear_url_caches, reverse
from pytest_django.fixtures import Settings

from bench import roll_cpu
from rolls.models import LogEntry, Roll
from tabletop import urls
from tabletop.serving import cycles
from tests import factories
from tests.factories import Script


@pytest.fixture
def floor(monkeypatch: pytest.MonkeyPatch, settings: Settings) -> Iterator[None]:
    """The floor's view installed, and gone again after the test."""
    monkeypatch.setattr(urls, "urlpatterns", list(urls.urlpatterns))
    monkeypatch.setattr(roll_cpu, "_roll_url_name", roll_cpu._roll_url_name)
    settings.RATE_LIMITS = dict(settings.RATE_LIMITS)
    roll_cpu.post_to_floor()
    yield
    clear_url_caches()


@pytest.fixture
def no_drawing(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every template drawn as nothing for this test, Django's own drawing back after it."""
    monkeypatch.setattr(django_backend.Template, "render", django_backend.Template.render)
    monkeypatch.setattr(cycles.Template, "render", cycles.Template.render)
    roll_cpu.draw_nothing()


def test_the_floor_reads_the_players_character(db: None, floor: None) -> None:
    table = factories.table()
    path = reverse(roll_cpu._roll_url_name, args=[table.campaign.pk, table.character.pk])
    response = factories.logged_in(table.player).post(path, HTTP_HX_REQUEST="true")
    assert response.status_code == 200
    assert response.content.decode() == str(table.character.pk)
    assert not Roll.objects.exists()


def test_the_floor_refuses_whom_the_roll_refuses(db: None, floor: None) -> None:
    table = factories.table()
    path = reverse(roll_cpu._roll_url_name, args=[table.campaign.pk, table.character.pk])
    assert factories.logged_in(table.outsider).post(path).status_code == 404
    someone = factories.user("someone")
    factories.member(table.campaign, someone, name="Someone")
    assert factories.logged_in(someone).post(path).status_code == 403
    assert factories.logged_in(table.player).get(path).status_code == 405


def test_the_floor_counts_the_rolls_rate_limit(db: None, floor: None, settings: Settings) -> None:
    assert settings.RATE_LIMITS["bench-floor"] == settings.RATE_LIMITS["rolls:roll-create"]
    settings.RATE_LIMITS["bench-floor"] = (2, 60)  # the same count, reached in three posts
    table = factories.table()
    path = reverse(roll_cpu._roll_url_name, args=[table.campaign.pk, table.character.pk])
    client = factories.logged_in(table.player)
    assert [client.post(path).status_code for _ in range(3)] == [200, 200, 429]


def test_a_roll_without_drawing_still_rolls_and_writes(db: None, dice: Script, no_drawing: None) -> None:
    # SIX-2: every six a success; the roll is written and chained as ever, only not drawn.
    table = factories.table()
    dice(6, 6, 2, then=1)
    path = reverse("rolls:roll-create", args=[table.campaign.pk, table.character.pk])
    data = {**factories.roll_data("sixes", table.character), **roll_cpu.client_random()}
    response = factories.logged_in(table.player).post(path, data, HTTP_HX_REQUEST="true")
    assert response.status_code == 200
    assert response.content == b""
    roll = Roll.objects.get()
    assert roll.character == table.character and roll.face6 == 2 and roll.first_success
    assert LogEntry.objects.get(roll=roll).hash
