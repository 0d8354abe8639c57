"""Whatever a socket sends, its consumer answers or closes cleanly, and the member leaves the
table when the socket goes: over the whole ASGI application with the real channel layer and
database, as tests/test_consumers.py opens sockets."""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import websockets
from channels.db import database_sync_to_async
from channels.layers import get_channel_layer
from channels.testing import WebsocketCommunicator
from django.contrib.auth.models import AbstractBaseUser

from rolls.live.publish import presence_message, table_group
from tabletop import presence
from tabletop.asgi import application
from tabletop.management.commands.serve import WS_MAX_SIZE
from tabletop.models import Presence
from tests.factories import Table
from tests.servers import free_port, server_process
from tests.test_consumers import (  # noqa: F401  (fixture)
    ORIGIN,
    _cookie,
    assert_quiet,
    empty_channel_layer,
    last_seq,
    roll_for,
    seqs,
    sync,
)

pytestmark = pytest.mark.django_db(transaction=True)

TOO_BIG = 1009
INTERNAL_ERROR = 1011


@pytest.fixture(autouse=True)
def no_sockets_left() -> Iterator[None]:
    """This process's register of open sockets starts and ends empty, whatever a test did."""
    presence._open.clear()
    yield
    presence._open.clear()


async def _connect(table: Table, app: Any = application) -> WebsocketCommunicator:
    cookie = await database_sync_to_async(_cookie)(table.player)
    communicator = WebsocketCommunicator(
        app,
        f"/ws/c/{table.campaign.pk}/",
        headers=[(b"host", b"testserver"), (b"origin", ORIGIN), (b"cookie", cookie)],
    )
    connected, _ = await communicator.connect()
    assert connected
    return communicator


@database_sync_to_async
def _at_the_table(table: Table) -> bool:
    return Presence.objects.filter(campaign=table.campaign, user_id=table.player.pk).exists()


async def _assert_left(table: Table) -> None:
    assert not await _at_the_table(table)
    assert not presence._open  # the heartbeat would write the row back


async def _closed_with(communicator: WebsocketCommunicator, code: int) -> None:
    """The next message that is not a presence list closes the socket with ``code``; raises
    what the consumer raised if it died instead."""
    while True:
        message = await communicator.receive_output(timeout=3)
        if message["type"] == "websocket.send":
            continue
        assert (message["type"], message.get("code")) == ("websocket.close", code)
        return


TOO_LONG = [
    # json.loads raises RecursionError on this one, which nothing caught.
    pytest.param({"text": "[" * 100_000 + "]" * 100_000}, id="nested-brackets"),
    pytest.param({"text": '{"since": 1, "x": "' + "x" * 15_000_000 + '"}'}, id="huge"),
    pytest.param({"text": '{"since": ' + "9" * 300 + "}"}, id="a-long-number"),
    pytest.param({"bytes": b"\xff" * 100_000}, id="huge-binary"),
]


@pytest.mark.parametrize("frame", TOO_LONG)
async def test_a_frame_too_long_to_be_a_since_closes_the_socket_and_the_member_leaves(
    table: Table, frame: dict[str, Any]
) -> None:
    communicator = await _connect(table)
    assert await _at_the_table(table)

    await communicator.send_input({"type": "websocket.receive", **frame})
    await _closed_with(communicator, TOO_BIG)

    await communicator.disconnect()
    await _assert_left(table)


ODD = [
    pytest.param({"bytes": b'{"since": 0}'}, id="binary-since"),
    pytest.param({"bytes": b"\xc3\x28\xa0\xa1 not utf-8"}, id="invalid-utf-8"),
    pytest.param({"text": "\ud800"}, id="lone-surrogate"),
    pytest.param({"text": '"\\ud800"'}, id="escaped-surrogate"),
    pytest.param({"text": "[" * 120 + "]" * 120}, id="short-nested-brackets"),
    pytest.param({"text": '{"since": {"since": 0}}'}, id="an-object"),
    pytest.param({"text": '{"since": [0]}'}, id="a-list-inside"),
    pytest.param({"text": '{"since": NaN}'}, id="nan"),
    pytest.param({"text": '"since"'}, id="a-string"),
    pytest.param({"text": "null"}, id="null"),
    pytest.param({"text": ""}, id="empty"),
    pytest.param({"text": '{"since": 0'}, id="cut-short"),
]


@pytest.mark.parametrize("frame", ODD)
async def test_an_odd_frame_is_ignored_or_answered_and_the_member_leaves_on_close(
    table: Table, frame: dict[str, Any]
) -> None:
    await roll_for(table, 1, 2, 3)
    communicator = await _connect(table)
    last = await last_seq(table)

    await communicator.send_input({"type": "websocket.receive", **frame})
    await assert_quiet(communicator)
    # Still open: a good frame afterwards is answered.
    assert seqs(await sync(communicator, 0, last)) == list(range(1, last + 1))

    await communicator.disconnect()
    await _assert_left(table)


class ClosingServer:
    """The server's side of a socket as uvicorn keeps it: once the socket is closed (by the
    app's ``websocket.close``, or by the server itself, ``close()``, as uvicorn does for a
    frame over its cap or a ping left unanswered), any further send raises RuntimeError; the
    disconnect reaches the app a moment later."""

    def __init__(self, app: Any) -> None:
        self.app = app
        self.closed = False

    def close(self) -> None:
        self.closed = True

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        async def refusing_send(message: dict[str, Any]) -> None:
            if self.closed:
                raise RuntimeError(
                    f"Unexpected ASGI message '{message['type']}', after sending 'websocket.close'."
                )
            if message["type"] == "websocket.close":
                self.closed = True
            await send(message)

        await self.app(scope, receive, refusing_send)


async def _broadcast(table: Table) -> None:
    layer = get_channel_layer()
    assert layer is not None
    await layer.group_send(table_group(table.campaign.pk), presence_message())
    await asyncio.sleep(0.3)  # handled by the consumer before its disconnect arrives


async def test_a_broadcast_to_a_socket_the_server_closed_is_dropped_and_the_member_leaves(
    table: Table,
) -> None:
    server = ClosingServer(application)
    communicator = await _connect(table, server)
    await sync(communicator, 0, await last_seq(table))

    server.close()
    await _broadcast(table)
    await roll_for(table, 1, 2, 3)
    await asyncio.sleep(0.3)

    await communicator.disconnect()
    await _assert_left(table)


async def test_a_broadcast_after_the_consumer_closed_is_not_sent_and_the_member_leaves(
    table: Table,
) -> None:
    communicator = await _connect(table, ClosingServer(application))
    await communicator.send_to(text_data="x" * 1000)
    await _closed_with(communicator, TOO_BIG)

    await _broadcast(table)

    assert await communicator.receive_nothing(timeout=0.2)
    await communicator.disconnect()
    await _assert_left(table)


async def test_a_handler_that_fails_closes_the_socket_and_the_member_leaves(
    table: Table, monkeypatch: pytest.MonkeyPatch
) -> None:
    communicator = await _connect(table)

    def broken(*args: Any) -> str:
        raise ValueError("a template that fails to render")

    monkeypatch.setattr("rolls.live.consumers._render_presence", broken)
    await _broadcast(table)

    await _closed_with(communicator, INTERNAL_ERROR)
    await _assert_left(table)
    await communicator.disconnect()


async def test_a_database_that_fails_as_a_member_arrives_closes_the_socket_and_it_is_at_no_table(
    table: Table, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The presence row is written in the membership's trip to the database: when its INSERT
    fails, the socket is closed with "try again later" and leaves its group and the table,
    and nothing keeps it for the heartbeat to write back."""
    from django.db import OperationalError

    written = presence.arrive

    def gone(**row: Any) -> None:
        written(**row)  # the row and this process's register of it, then the failure
        raise OperationalError("the database went away")

    monkeypatch.setattr("tabletop.presence.arrive", gone)
    cookie = await database_sync_to_async(_cookie)(table.player)
    communicator = WebsocketCommunicator(
        application,
        f"/ws/c/{table.campaign.pk}/",
        headers=[(b"host", b"testserver"), (b"origin", ORIGIN), (b"cookie", cookie)],
    )
    connected, code = await communicator.connect()
    if connected:  # accepted, then closed: what the page reconnects on
        await _closed_with(communicator, 1013)
    else:
        assert code == 1013
    await communicator.disconnect()
    await _assert_left(table)
    # Out of the table's group too (the in-memory layers show their groups; Redis does not).
    groups = getattr(get_channel_layer(), "groups", None)
    assert groups is None or not groups.get(table_group(table.campaign.pk))


# -- the server's cap on frames (``manage.py serve``'s uvicorn options) --------------------------


def _session(user: AbstractBaseUser) -> str:
    return str(_cookie(user).decode())


def _roll(base: str, table: Table, cookie: str) -> int:
    """A roll through the real HTTP endpoint of the server; returns the new roll's id."""
    import httpx
    from django.urls import reverse

    name, _, value = cookie.partition("=")
    with httpx.Client(base_url=f"http://{base}", cookies={name: value}) as http:
        http.get(reverse("rolls:character", args=[table.campaign.pk, table.character.pk]))
        response = http.post(
            reverse("rolls:roll-create", args=[table.campaign.pk, table.character.pk]),
            data={"trait": "skill-0", "need": 3},
            headers={
                "X-CSRFToken": http.cookies["csrftoken"],
                "HX-Request": "true",
                "Referer": f"http://{base}/",
            },
        )
        assert response.status_code == 200, response.text
        return int(re.search(r'data-roll="(\d+)"', response.text).group(1))  # type: ignore[union-attr]


def test_the_server_caps_frames_at_a_few_kilobytes() -> None:
    assert 256 < WS_MAX_SIZE <= 16 * 1024


@pytest.mark.timeout(120)
def test_a_frame_over_the_cap_closes_that_socket_and_the_table_keeps_rolling(
    table: Table, tmp_path: Path
) -> None:
    player, gm = _session(table.player), _session(table.gm)

    async def scenario(base: str) -> Any:
        url = f"ws://{base}/ws/c/{table.campaign.pk}/"
        origin = {"Origin": f"http://{base}"}
        async with (
            websockets.connect(url, additional_headers={**origin, "Cookie": player}) as hostile,
            websockets.connect(url, additional_headers={**origin, "Cookie": gm}) as other,
        ):
            await other.send(json.dumps({"since": 0}))
            sending = asyncio.ensure_future(hostile.send("x" * 15_000_000))
            with pytest.raises(websockets.ConnectionClosed) as closed:
                while True:
                    await asyncio.wait_for(hostile.recv(), timeout=20)
            with contextlib.suppress(websockets.ConnectionClosed):
                await sending

            roll_id = await asyncio.get_running_loop().run_in_executor(None, _roll, base, table, player)
            # The other socket of the table still gets the roll.
            received = ""
            while f'id="feed-roll-{roll_id}"' not in received:
                received += str(await asyncio.wait_for(other.recv(), timeout=10))
        return closed.value.rcvd

    with server_process(free_port(), tmp_path) as base:
        rcvd = asyncio.run(scenario(base))

    assert rcvd is not None and rcvd.code == TOO_BIG
    # The server's own refusal, as soon as it read the frame's length: not the consumer's,
    # which would read all 15 MB first.
    assert str(WS_MAX_SIZE) in rcvd.reason
