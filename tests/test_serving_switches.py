"""FAST_PATH switches the serving room's pieces: read from the environment when the settings
load, refused by name when it names no piece, and with a piece off the app is built on the
stock piece. Each case starts a fresh interpreter, since the settings are read once."""

from __future__ import annotations

import asyncio
import inspect
import json
import os
import subprocess
import sys
from typing import Any

import channels.consumer
import pytest
from channels.consumer import AsyncConsumer
from pytest_django.fixtures import Settings

from tabletop.serving import PIECES, consumer, enabled, switches

PROBE = """
import asyncio
import inspect
import json, sys
import django
from django.conf import settings
settings.FAST_PATH  # load the settings alone first
loaded_at_settings = sorted(m for m in sys.modules if m.startswith(("django.contrib.auth.models",
    "django.db.models.base", "tabletop.models", "tabletop.serving.")))
import tabletop.asgi
print(json.dumps({
    "fast_path": settings.FAST_PATH,
    "backends": settings.AUTHENTICATION_BACKENDS,
    "layer": settings.CHANNEL_LAYERS["default"]["BACKEND"],
    "conn_max_age": settings.DATABASES["default"].get("CONN_MAX_AGE"),
    "http": type(tabletop.asgi.django_asgi_app).__module__ + "." + type(tabletop.asgi.django_asgi_app).__name__,
    "loaded_at_settings": loaded_at_settings,
}))
"""


def _probe(**env: str) -> subprocess.CompletedProcess[str]:
    environment = {**os.environ, "DJANGO_SETTINGS_MODULE": "tabletop.settings", "TABLETOP_NO_BOOTSTRAP": "1"}
    for name in ("FAST_PATH", "FAST_PATH_OFF"):
        environment.pop(name, None)
    environment.update(env)
    return subprocess.run(
        [sys.executable, "-c", PROBE], env=environment, capture_output=True, text=True, timeout=120
    )


def _app(**env: str) -> dict[str, Any]:
    done = _probe(**env)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.splitlines()[-1])


def test_every_piece_is_on_by_default() -> None:
    app = _app()
    assert app["fast_path"] == dict.fromkeys(PIECES, True)
    assert app["backends"] == ["tabletop.serving.auth_backend.ModelBackend"]
    assert app["http"] == "tabletop.serving.request_threads.RequestThreadsHandler"
    if "REDIS_URL" not in os.environ:
        assert app["layer"] == "tabletop.serving.channel_layer.IndexedInMemoryChannelLayer"


def test_fast_path_off_builds_the_app_on_the_stock_pieces() -> None:
    app = _app(FAST_PATH="off")
    assert app["fast_path"] == dict.fromkeys(PIECES, False)
    assert app["backends"] == ["django.contrib.auth.backends.ModelBackend"]
    assert app["http"] == "django.core.handlers.asgi.ASGIHandler"
    if "REDIS_URL" not in os.environ:
        assert app["layer"] == "channels.layers.InMemoryChannelLayer"
    if "DATABASE_URL" not in os.environ:
        assert app["conn_max_age"] == 0  # Django's handler: a new thread for every request
    # Deciding at settings time loads no model and no piece. The PostgreSQL pool's check
    # (tabletop/serving/pool_check.py) is named there: it is no piece and reads no model.
    assert [name for name in app["loaded_at_settings"] if name != "tabletop.serving.pool_check"] == []


def test_fast_path_off_lists_the_pieces_to_turn_off() -> None:
    app = _app(FAST_PATH_OFF="gc, compiled_queries")
    assert [piece for piece, on in app["fast_path"].items() if not on] == ["compiled_queries", "gc"]
    assert app["backends"] == ["django.contrib.auth.backends.ModelBackend"]
    assert app["http"] == "tabletop.serving.request_threads.RequestThreadsHandler"


@pytest.mark.parametrize(
    ("env", "message"),
    [
        ({"FAST_PATH_OFF": "gc,turbo"}, "FAST_PATH_OFF names no piece turbo"),
        ({"FAST_PATH": "sometimes"}, "FAST_PATH must be true or false"),
    ],
)
def test_a_bad_value_stops_the_settings_by_name(env: dict[str, str], message: str) -> None:
    done = _probe(**env)
    assert done.returncode != 0
    assert "ValueError" in done.stderr and message in done.stderr


def test_a_switch_names_a_known_piece() -> None:
    with pytest.raises(ValueError, match="no serving piece 'fast'"):
        enabled("fast")
    with pytest.raises(ValueError, match="FAST_PATH_OFF names no piece gcc"):
        switches(on=True, off=["gc", "gcc"])


def test_the_switches_turn_all_or_some_pieces_off() -> None:
    assert switches(on=True) == dict.fromkeys(PIECES, True)
    assert switches(on=False, off=["gc"]) == dict.fromkeys(PIECES, False)
    some = switches(on=True, off=["gc", "compiled_queries"])
    assert [piece for piece, on in some.items() if not on] == ["compiled_queries", "gc"]


def test_a_switch_follows_an_override_of_the_setting(settings: Settings) -> None:
    settings.FAST_PATH = {**settings.FAST_PATH, "gc": True}
    assert enabled("gc") is True
    settings.FAST_PATH = {**settings.FAST_PATH, "gc": False}
    assert enabled("gc") is False


@pytest.mark.parametrize("on", [True, False])
def test_the_consumers_dispatch_follows_the_consumer_switch(
    settings: Settings, monkeypatch: pytest.MonkeyPatch, on: bool
) -> None:
    settings.FAST_PATH = {**settings.FAST_PATH, "consumer": on}
    closed: list[bool] = []

    async def close_old_connections() -> None:
        closed.append(True)

    monkeypatch.setattr(channels.consumer, "aclose_old_connections", close_old_connections)

    class Consumer(consumer.KeptConnectionDispatch, AsyncConsumer):
        async def table_entry(self, message: dict[str, Any]) -> None:
            self.seen = message["seq"]

    handled = Consumer()
    asyncio.run(handled.dispatch({"type": "table.entry", "seq": 4}))
    assert handled.seen == 4
    assert closed == ([] if on else [True])
    with pytest.raises(ValueError, match="No handler for message type"):
        asyncio.run(handled.dispatch({"type": "table.nothing"}))


@pytest.mark.parametrize("on", [True, False])
def test_a_sockets_disconnect_follows_the_consumer_switch(
    settings: Settings, monkeypatch: pytest.MonkeyPatch, on: bool
) -> None:
    """Channels' closes old connections once more after ``disconnect()``; the mixin's keeps
    them (a trip to the database thread per closing socket), and does the rest the same."""
    import channels.generic.websocket
    from channels.exceptions import StopConsumer
    from channels.generic.websocket import AsyncWebsocketConsumer

    settings.FAST_PATH = {**settings.FAST_PATH, "consumer": on}
    closed: list[bool] = []

    async def close_old_connections() -> None:
        closed.append(True)

    monkeypatch.setattr(channels.generic.websocket, "aclose_old_connections", close_old_connections)

    class Layer:
        left: list[tuple[str, str]] = []

        async def group_discard(self, group: str, channel: str) -> None:
            self.left.append((group, channel))

    class Consumer(consumer.KeptConnectionDispatch, AsyncWebsocketConsumer):
        groups = ["a-group"]

        async def disconnect(self, code: int) -> None:
            self.code = code

    handled = Consumer()
    handled.channel_layer = Layer()
    handled.channel_name = "socket.1"
    with pytest.raises(StopConsumer):
        asyncio.run(handled.websocket_disconnect({"type": "websocket.disconnect", "code": 1001}))
    assert handled.code == 1001
    assert Layer.left == [("a-group", "socket.1")]
    assert closed == ([] if on else [True])


def test_channels_dispatch_does_what_the_consumer_mixin_replaces() -> None:
    """The app's one private reliance (tabletop/serving/consumer.py): fails on the Channels
    whose dispatch does anything but find the handler, close old connections and call it."""
    revisit = "Channels' AsyncConsumer.dispatch changed: revisit tabletop/serving/consumer.py"
    from channels.consumer import get_handler_name

    assert get_handler_name({"type": "table.entry"}) == "table_entry", revisit
    source = inspect.getsource(AsyncConsumer.dispatch)
    assert "get_handler_name" in source and "aclose_old_connections" in source, revisit
    assert source.count("await ") == 2, revisit


def test_channels_websocket_disconnect_does_what_the_consumer_mixin_replaces() -> None:
    revisit = (
        "Channels' AsyncWebsocketConsumer.websocket_disconnect changed: revisit tabletop/serving/consumer.py"
    )
    from channels.generic.websocket import AsyncWebsocketConsumer

    source = inspect.getsource(AsyncWebsocketConsumer.websocket_disconnect)
    for step in (
        "self.groups",
        "group_discard",
        "self.disconnect(",
        "aclose_old_connections",
        "StopConsumer",
    ):
        assert step in source, revisit
    # Nothing else: these steps and their comments, no call the mixin would leave out.
    assert source.count("await ") == 3, revisit
