"""FAST_PATH switches the serving room's pieces: read from the environment when the settings
load, refused by name when it names no piece, and with a piece off the app is built on the
stock piece. Each case starts a fresh interpreter, since the settings are read once."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from typing import Any

import pytest
from pytest_django.fixtures import Settings

from tabletop.serving import PIECES, enabled, switches

PROBE = """
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
    # Deciding at settings time loads no model and no piece.
    assert app["loaded_at_settings"] == []


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
    with pytest.raises(ValueError, match="FAST_PATH_OFF names no piece consumer"):
        switches(on=True, off=["consumer"])  # gone on 2026-12-06: Channels' own serves


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
