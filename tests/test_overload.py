"""When the server cannot take a request (too many at once, the database overloaded or down),
the answer is a clear 503 that says to retry, never a 500, and nothing changes."""

from __future__ import annotations

import sqlite3
import threading

import pytest
from django.db import OperationalError, connection
from django.http import HttpRequest, HttpResponse
from django.test import Client, RequestFactory
from django.urls import reverse
from pytest_django.fixtures import Settings

from rolls.models import LogEntry, Roll
from tabletop.admission import WriteCapMiddleware
from tests.conftest import build_table

pytestmark = pytest.mark.usefixtures("fast_passwords")


def client_for(user: object, **headers: str) -> Client:
    # Like a server: an exception anywhere in the request goes to the error handlers.
    client = Client(raise_request_exception=False, headers=headers)
    client.force_login(user)  # type: ignore[arg-type]
    return client


@pytest.mark.django_db(transaction=True)
@pytest.mark.skipif(connection.vendor != "sqlite", reason="SQLite's write lock")
def test_a_roll_that_waits_too_long_for_sqlites_write_lock_gets_a_503_and_changes_nothing() -> None:
    table = build_table()
    url = reverse("rolls:roll-create", args=[table.campaign.pk, table.character.pk])
    player = client_for(table.player, HX_Request="true")
    # Another writer holds the lock for longer than this connection waits.
    connection.ensure_connection()
    with connection.cursor() as cursor:
        cursor.execute("PRAGMA busy_timeout = 50")
    other = sqlite3.connect(connection.settings_dict["NAME"], timeout=1)
    other.execute("BEGIN IMMEDIATE")
    try:
        response = player.post(url, {"trait": "Body", "need": "1"})
    finally:
        other.rollback()
        other.close()
        connection.close()  # back to the settings' timeout for the next test

    assert response.status_code == 503
    assert response["Retry-After"] == "5"
    assert response["HX-Retarget"] == "#notice"
    assert "very busy right now" in response.content.decode()
    assert Roll.objects.count() == 0
    assert not LogEntry.objects.filter(kind=LogEntry.Kind.ROLL).exists()


@pytest.mark.django_db
def test_any_database_error_anywhere_in_a_request_is_a_503_page(monkeypatch: pytest.MonkeyPatch) -> None:
    # PostgreSQL's pool timing out, or the database down, raise OperationalError too.
    table = build_table()
    gm = client_for(table.gm)

    def down(*args: object, **kwargs: object) -> None:
        raise OperationalError("connection pool timed out")

    monkeypatch.setattr("tabletop.views.render", down)
    response = gm.get(reverse("tabletop:campaign", args=[table.campaign.pk]))

    assert response.status_code == 503
    assert "Too busy" in response.content.decode()
    assert "Nothing changed" in response.content.decode()


def test_a_post_over_the_cap_is_refused_at_once_and_the_others_are_served(settings: Settings) -> None:
    settings.MAX_CONCURRENT_WRITES = 1
    inside = threading.Event()
    release = threading.Event()

    def slow_view(request: HttpRequest) -> HttpResponse:
        inside.set()
        release.wait(10)
        return HttpResponse("done")

    middleware = WriteCapMiddleware(slow_view)
    factory = RequestFactory()
    first: list[HttpResponse] = []
    worker = threading.Thread(target=lambda: first.append(middleware(factory.post("/roll/"))))
    worker.start()
    assert inside.wait(10)

    refused = middleware(factory.post("/roll/", headers={"HX-Request": "true"}))
    read = middleware(factory.get("/"))  # reads are not capped
    release.set()
    worker.join(10)

    assert refused.status_code == 503
    assert refused["Retry-After"] == "5"
    assert refused["HX-Retarget"] == "#notice"
    assert read.status_code == 200
    assert first[0].status_code == 200
    assert middleware(factory.post("/roll/")).status_code == 200  # the slot is free again


@pytest.mark.django_db
def test_a_roll_refused_for_load_changes_nothing(settings: Settings) -> None:
    settings.MAX_CONCURRENT_WRITES = 0  # every POST is over the cap
    table = build_table()
    url = reverse("rolls:roll-create", args=[table.campaign.pk, table.character.pk])
    response = client_for(table.player, HX_Request="true").post(url, {"trait": "Body", "need": "1"})

    assert response.status_code == 503
    assert "very busy right now" in response.content.decode()
    assert Roll.objects.count() == 0
