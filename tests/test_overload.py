"""When the database cannot take a request (overload, or down), the answer is a clear 503 that
says to retry, never a 500, and nothing changes."""

from __future__ import annotations

import sqlite3

import pytest
from django.db import OperationalError, connection
from django.test import Client
from django.urls import reverse

from rolls.models import LogEntry, Roll
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
