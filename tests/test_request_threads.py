"""The ASGI front's one trip to the request thread (Django's WSGI handler): Django's signals once each, on that
thread; streams sent whole, then closed; and a roll's broadcast handed to the serving loop
without waiting, still reaching the table's sockets, sends going out in the order given."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator
from typing import Any

import pytest
from channels.db import database_sync_to_async
from django.core import signals
from django.core.handlers.wsgi import WSGIHandler
from django.http import HttpRequest, HttpResponse, StreamingHttpResponse
from django.test import Client
from django.urls import path, reverse
from django.views.decorators.csrf import csrf_exempt
from pytest_django.fixtures import Settings

from rolls.live import publish
from tabletop.serving.request_threads import RequestThreadsHandler, serving_loop
from tests import factories
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
pytestmark = pytest.mark.django_db(transaction=True)


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
    """Each request_started and request_finished, with the thread it was sent on; both name
    Django's WSGI handler, which serves the request, as their sender."""
    seen: list[tuple[str, str]] = []

    def started(sender: object, **kwargs: Any) -> None:
        assert sender is WSGIHandler
        seen.append(("started", threading.current_thread().name))

    def finished(sender: object, **kwargs: Any) -> None:
        assert sender is WSGIHandler
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
        "query_string": b"",
        "headers": [(b"host", b"not a host!")],  # Django answers 400 before any view
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
    table = await database_sync_to_async(factories.table)()
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


class UnevenLayer:
    """A channel layer whose sends take longer for even numbers, and fail for 3: what a
    network layer can do (the real ones do not let a test choose their delays)."""

    def __init__(self) -> None:
        self.sent: list[int] = []

    async def group_send(self, group: str, message: dict[str, Any]) -> None:
        await asyncio.sleep(0.02 if message["n"] % 2 == 0 else 0)
        if message["n"] == 3:
            raise ConnectionError("Redis went away")
        self.sent.append(message["n"])


async def test_sends_handed_to_the_loop_go_out_in_the_order_given(caplog: pytest.LogCaptureFixture) -> None:
    loop = asyncio.get_running_loop()
    layer = UnevenLayer()
    for n in range(6):
        publish._send_in_turn(loop, layer, "table-1", {"n": n})  # type: ignore[arg-type]
    last = publish._last_send[loop]
    await asyncio.wait([last])

    assert layer.sent == [0, 1, 2, 4, 5]  # in order; a failed send holds up none after it
    assert "a broadcast could not be sent" in caplog.text
    assert loop not in publish._last_send  # nothing kept once all are out


def test_a_receiver_of_request_finished_that_fails_does_not_spoil_the_answer(
    settings: Settings, caplog: pytest.LogCaptureFixture
) -> None:
    # Stock Django closes a response after sending it, so such a failure only reaches the log.
    settings.ROOT_URLCONF = __name__

    def broken(**kwargs: Any) -> None:
        raise RuntimeError("a receiver's bug")

    signals.request_finished.connect(broken)
    try:
        [response] = asyncio.run(serve(RequestThreadsHandler(threads=1), ("GET", "/where/")))
    finally:
        signals.request_finished.disconnect(broken)

    assert response.status_code == 200
    assert "closing the response to /where/ failed" in caplog.text
