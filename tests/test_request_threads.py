"""The ASGI handler's one trip to the request thread: Django's signals once each, on that
thread; streams sent whole, then closed; and a roll's broadcast handed to the serving loop
without waiting, still reaching the table's sockets."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator
from typing import Any

import pytest
from channels.db import database_sync_to_async
from django.core import signals
from django.http import HttpRequest, HttpResponse, StreamingHttpResponse
from django.test import Client
from django.urls import path, reverse
from django.views.decorators.csrf import csrf_exempt
from pytest_django.fixtures import Settings

from tabletop.request_threads import RequestThreadsHandler, serving_loop
from tests.conftest import build_table
from tests.test_consumers import (  # noqa: F401  (fixture)
    empty_channel_layer,
    frames_until,
    last_seq,
    open_socket,
    sync,
    up_to,
)
from tests.test_overload import serve

CSRF_SECRET = "a1b2c3d4" * 4  # a cookie's secret, sent back in the header as htmx does
pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("fast_passwords")]


@csrf_exempt
def where(request: HttpRequest) -> HttpResponse:
    """The thread the view runs on, and whether it knows the loop that lent it the request."""
    loop = serving_loop()
    return HttpResponse(f"{threading.current_thread().name} {loop is not None and loop.is_running()}")


def chunks() -> Iterator[bytes]:
    for n in range(3):
        yield f"part {n};".encode()


def stream(request: HttpRequest) -> StreamingHttpResponse:
    return StreamingHttpResponse(chunks())


urlpatterns = [path("where/", where), path("stream/", stream)]


@pytest.fixture
def sent_signals() -> Iterator[list[tuple[str, str]]]:
    """Each request_started and request_finished, with the thread it was sent on."""
    seen: list[tuple[str, str]] = []

    def started(**kwargs: Any) -> None:
        seen.append(("started", threading.current_thread().name))

    def finished(**kwargs: Any) -> None:
        seen.append(("finished", threading.current_thread().name))

    signals.request_started.connect(started)
    signals.request_finished.connect(finished)
    yield seen
    signals.request_started.disconnect(started)
    signals.request_finished.disconnect(finished)


def test_a_request_sends_each_signal_once_on_its_thread(
    settings: Settings, sent_signals: list[tuple[str, str]]
) -> None:
    settings.ROOT_URLCONF = __name__
    [response] = asyncio.run(serve(RequestThreadsHandler(threads=1), ("GET", "/where/")))

    assert response.status_code == 200
    thread, knows_loop = response.text.split()
    assert thread.startswith("request-0")
    assert knows_loop == "True"  # the serving loop is known during the request
    assert sent_signals == [("started", thread), ("finished", thread)]
    assert serving_loop() is None  # and nowhere else


def test_a_stream_is_sent_whole_then_closed(settings: Settings, sent_signals: list[tuple[str, str]]) -> None:
    settings.ROOT_URLCONF = __name__
    [response] = asyncio.run(serve(RequestThreadsHandler(threads=1), ("GET", "/stream/")))

    assert response.text == "part 0;part 1;part 2;"
    assert [name for name, _ in sent_signals] == ["started", "finished"]
    assert all(thread.startswith("request-0") for _, thread in sent_signals)


def test_a_bad_request_is_answered_and_closed(
    settings: Settings, sent_signals: list[tuple[str, str]]
) -> None:
    settings.ROOT_URLCONF = __name__
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    scope = {
        "type": "http",
        "method": "GET",
        "path": "/where/",
        "query_string": b"q=\xff",  # not UTF-8: Django answers 400 before any view
        "headers": [(b"host", b"127.0.0.1")],
        "server": ("127.0.0.1", 80),
        "client": ("127.0.0.1", 5000),
        "scheme": "http",
        "root_path": "",
        "asgi": {"version": "3.0"},
    }
    asyncio.run(RequestThreadsHandler(threads=1)(scope, receive, send))

    assert sent[0]["status"] == 400
    assert [name for name, _ in sent_signals] == ["started", "finished"]


async def test_a_roll_posted_through_the_handler_reaches_the_tables_socket() -> None:
    table = await database_sync_to_async(build_table)()
    gm, connected, _ = await open_socket(table.campaign.pk, table.gm)
    assert connected
    await sync(gm, 0, await last_seq(table))
    client = Client()
    await database_sync_to_async(client.force_login)(table.player)
    url = reverse("rolls:roll-create", args=[table.campaign.pk, table.character.pk])

    [response] = await serve(
        RequestThreadsHandler(threads=1),
        ("POST", url),
        cookies={"sessionid": client.cookies["sessionid"].value, "csrftoken": CSRF_SECRET},
        data={"trait": "Body", "need": "1"},
        headers={"HX-Request": "true", "X-CSRFToken": CSRF_SECRET},
    )

    assert response.status_code == 200, response.text
    seq = await last_seq(table)
    assert f'data-seq="{seq}"' in response.text
    frames = await frames_until(gm, up_to(seq))
    assert any('hx-swap-oob="afterbegin:#feed"' in frame and f'data-seq="{seq}"' in frame for frame in frames)
    await gm.disconnect()
