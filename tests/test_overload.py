"""When the server cannot take a request (too many at once, the database overloaded or down),
the answer is a clear 503 that says to retry, never a 500, and nothing changes."""

from __future__ import annotations

import asyncio
import sqlite3
import threading
from typing import Any

import httpx
import pytest
from django.db import OperationalError, connection, connections
from django.http import HttpRequest, HttpResponse
from django.test import Client
from django.urls import path, reverse
from django.views.decorators.csrf import csrf_exempt
from pytest_django.fixtures import Settings

from rolls.models import LogEntry, Roll
from tabletop.serving.request_threads import RequestThreadsHandler
from tests import factories


def client_for(user: object, **headers: str) -> Client:
    # Like a server: an exception anywhere in the request goes to the error handlers.
    client = Client(raise_request_exception=False, headers=headers)
    client.force_login(user)  # type: ignore[arg-type]
    return client


@pytest.mark.django_db(transaction=True)
@pytest.mark.skipif(connection.vendor != "sqlite", reason="SQLite's write lock")
def test_a_roll_that_waits_too_long_for_sqlites_write_lock_gets_a_503_and_changes_nothing() -> None:
    table = factories.table()
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
    table = factories.table()
    gm = client_for(table.gm)

    def down(*args: object, **kwargs: object) -> None:
        raise OperationalError("connection pool timed out")

    monkeypatch.setattr("rolls.views.pages.render", down)
    response = gm.get(reverse("rolls:campaign", args=[table.campaign.pk]))

    assert response.status_code == 503
    assert "Too busy" in response.content.decode()
    assert "Nothing changed" in response.content.decode()


# -- the cap on writes, counted by the ASGI handler where requests queue for a thread ------------

inside = threading.Event()
release = threading.Event()


@csrf_exempt
def slow(request: HttpRequest) -> HttpResponse:
    """Holds its request thread until the test releases it."""
    inside.set()
    release.wait(10)
    return HttpResponse("done")


@csrf_exempt
def which(request: HttpRequest) -> HttpResponse:
    """The request thread's name and its database connection."""
    connection.ensure_connection()
    return HttpResponse(f"{threading.current_thread().name} {id(connection.connection)}")


urlpatterns = [path("slow/", slow), path("which/", which)]


async def serve(
    handler: RequestThreadsHandler,
    *requests: tuple[str, str],
    cookies: dict[str, str] | None = None,
    **each: Any,
) -> list[httpx.Response]:
    """The requests, all at once, through ``handler`` as a server would call it; ``each``
    goes with every request (data, headers)."""
    transport = httpx.ASGITransport(app=handler)
    async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1", cookies=cookies) as client:
        return await asyncio.gather(*(client.request(method, url, **each) for method, url in requests))


@pytest.mark.django_db(transaction=True)
def test_a_post_over_the_cap_is_refused_at_once_and_the_others_are_served(settings: Settings) -> None:
    settings.ROOT_URLCONF = __name__
    inside.clear()
    release.clear()
    handler = RequestThreadsHandler(threads=2, max_writes=1)

    async def scenario() -> tuple[list[httpx.Response], list[httpx.Response], httpx.Response]:
        first = asyncio.create_task(serve(handler, ("POST", "/slow/")))
        await asyncio.to_thread(inside.wait, 10)
        # The write slot is taken: a second POST is refused without waiting for the first.
        during = await serve(handler, ("POST", "/slow/"), ("GET", "/which/"))
        release.set()
        done = await first
        after = await serve(handler, ("POST", "/which/"))  # the slot is free again
        return during, done, after[0]

    during, first, after = asyncio.run(scenario())

    refused, read = during
    assert refused.status_code == 503
    assert refused.headers["Retry-After"] == "5"
    assert "very busy right now" in refused.text
    assert read.status_code == 200  # reads are not capped
    assert first[0].status_code == 200
    assert first[0].text == "done"
    assert after.status_code == 200


@pytest.mark.django_db(transaction=True)
def test_a_roll_refused_for_load_changes_nothing(settings: Settings) -> None:
    table = factories.table()
    url = reverse("rolls:roll-create", args=[table.campaign.pk, table.character.pk])
    player = client_for(table.player)
    handler = RequestThreadsHandler(max_writes=0)  # every POST is over the cap

    [response] = asyncio.run(
        serve(
            handler,
            ("POST", url),
            cookies={"sessionid": player.cookies["sessionid"].value},
            data={"trait": "Body", "need": "1"},
            headers={"HX-Request": "true"},
        )
    )

    assert response.status_code == 503
    assert response.headers["HX-Retarget"] == "#notice"
    assert "very busy right now" in response.text
    assert Roll.objects.count() == 0


@pytest.mark.django_db(transaction=True)
@pytest.mark.skipif(connection.vendor != "sqlite", reason="PostgreSQL lends connections from its pool")
def test_a_request_thread_keeps_its_database_connection_from_one_request_to_the_next(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings.ROOT_URLCONF = __name__
    # What the settings give the request threads when they serve (FAST_PATH off closes each
    # request's connection, for Django's own handler).
    monkeypatch.setitem(connections.settings["default"], "CONN_MAX_AGE", None)
    handler = RequestThreadsHandler(threads=1)

    async def twice() -> list[str]:
        first = await serve(handler, ("GET", "/which/"))
        second = await serve(handler, ("POST", "/which/"))
        return [first[0].text, second[0].text]

    first, second = asyncio.run(twice())

    assert first.startswith("request-0")
    assert first == second
