"""Rate limits: login, sign-up, join, roll and follow-up answer 429 with a clear page past the
limit, and change nothing."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse

from rolls.models import LogEntry
from tabletop import ratelimit
from tests.factories import Table


@pytest.fixture(autouse=True)
def still_clock(monkeypatch: pytest.MonkeyPatch) -> None:
    """Twenty seconds into a window, for the whole test: a window that ended halfway through
    would split the count (and the test would fail now and then)."""
    monkeypatch.setattr(ratelimit, "now", lambda: 1_800_000_000.0 + 20)


@pytest.mark.django_db
def test_login_is_limited_per_address(client: Client, settings: object) -> None:
    settings.RATE_LIMITS = {**settings.RATE_LIMITS, "tabletop:login": (3, 60)}  # type: ignore[attr-defined]
    url = reverse("tabletop:login")
    for _ in range(3):
        assert client.post(url, {"username": "x", "password": "y"}).status_code == 200
    response = client.post(url, {"username": "x", "password": "y"})
    assert response.status_code == 429
    assert int(response["Retry-After"]) > 0
    assert b"Slow down" in response.content


@pytest.mark.django_db
def test_rolls_are_limited_per_user_and_the_refused_roll_changes_nothing(
    table: Table, settings: object
) -> None:
    settings.RATE_LIMITS = {**settings.RATE_LIMITS, "rolls:roll-create": (2, 60)}  # type: ignore[attr-defined]
    client = Client()
    client.force_login(table.player)
    url = reverse("rolls:roll-create", args=[table.campaign.pk, table.character.pk])
    for _ in range(2):
        assert client.post(url, {"trait": "Body", "need": 1}, HTTP_HX_REQUEST="true").status_code == 200
    before = LogEntry.objects.count()
    response = client.post(url, {"trait": "Body", "need": 1}, HTTP_HX_REQUEST="true")
    assert response.status_code == 429
    assert response["HX-Retarget"] == "#notice"
    assert b"Wait" in response.content
    assert LogEntry.objects.count() == before


@pytest.mark.django_db
def test_get_requests_are_not_counted(client: Client, settings: object) -> None:
    settings.RATE_LIMITS = {**settings.RATE_LIMITS, "tabletop:login": (1, 60)}  # type: ignore[attr-defined]
    for _ in range(5):
        assert client.get(reverse("tabletop:login")).status_code == 200


@pytest.mark.django_db
def test_posts_refused_by_the_csrf_check_are_not_counted(settings: object) -> None:
    """The count is taken after the CSRF check: forged posts get their 403 and spend nothing
    of the visitor's limit."""
    settings.RATE_LIMITS = {**settings.RATE_LIMITS, "tabletop:login": (2, 60)}  # type: ignore[attr-defined]
    client = Client(enforce_csrf_checks=True)
    url = reverse("tabletop:login")
    for _ in range(5):
        assert client.post(url, {"username": "x", "password": "y"}).status_code == 403
    token = client.get(url).cookies["csrftoken"].value
    for _ in range(2):
        response = client.post(url, {"username": "x", "password": "y"}, HTTP_X_CSRFTOKEN=token)
        assert response.status_code == 200
    assert client.post(url, {"username": "x", "password": "y"}, HTTP_X_CSRFTOKEN=token).status_code == 429
