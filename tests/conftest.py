"""Fixtures shared by every test: a table ready to roll, the views' scripted dice, fast password
hashing for the session, and a fresh channel layer and cache for each test. The helpers they
build with live in tests/factories.py."""

from __future__ import annotations

import os
import random
from collections.abc import Iterator

import pytest
from django.conf import settings as django_settings
from django.test.utils import override_settings
from pytest_django.fixtures import Settings

from tests import factories
from tests.factories import Script, ScriptedDice, Table

# With TEST_PRODUCTION=1 (set by `manage.py runtests` under CI=true) the suite runs on
# PostgreSQL + Redis, and the tests marked `production` must run there, never skip.
PRODUCTION = os.environ.get("TEST_PRODUCTION") == "1"


@pytest.fixture
def table(db: None) -> Table:
    return factories.table()


# Where the views take their random source from. The ``dice`` fixture patches it here and
# nowhere else, so moving the source is a change of this one line.
VIEWS_RNG = "rolls.log.randomness.RNG"


@pytest.fixture
def dice(monkeypatch: pytest.MonkeyPatch) -> Script:
    """``dice(6, 2, 3)``: the faces the next dice the views roll will show; ``dice()``: the
    views must roll none; ``dice(6, then=1)``: a six, then ones for as long as they roll."""

    def script(*faces: int, then: int | None = None) -> ScriptedDice:
        source = ScriptedDice(*faces, then=then)
        monkeypatch.setattr(VIEWS_RNG, source)
        return source

    return script


@pytest.fixture(scope="session", autouse=True)
def _static_files() -> None:
    """Pages name their static files through the manifest (``{% static %}`` with debug off):
    a fresh clone has none until the files are collected."""
    from django.core.management import call_command

    call_command("collectstatic", interactive=False, verbosity=0)


@pytest.fixture(autouse=True)
def _fresh_channel_layer(request: pytest.FixtureRequest) -> None:
    """Each async test runs on an event loop of its own, and the Redis layer binds its locks to
    the loop that first used it: every test gets a new layer. (Not the browser tests: their
    server thread keeps one loop and one layer for the whole package.)"""
    if request.node.get_closest_marker("browser") is None:
        from channels.layers import channel_layers

        channel_layers.backends.clear()


@pytest.fixture(autouse=True)
def _fresh_shared_markup() -> None:
    """The markup kept per process is keyed by campaign and sequence number, which never repeat
    in production; a test rolled back leaves its ids to the next one (SQLite reuses them), so
    each test starts with nothing kept, browser tests' server included (same process)."""
    from rolls.live import feed

    feed._forget_all()


@pytest.fixture(autouse=True)
def _fresh_rate_limits() -> None:
    """Rate-limit counters live in the cache; user ids repeat between tests, so each test
    starts with none."""
    from django.core.cache import cache

    cache.clear()


@pytest.fixture
def rng() -> random.Random:
    return random.Random(1234)


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "real_passwords: hash passwords with the project's own hashers (a test of passwords)"
    )


@pytest.fixture(scope="session", autouse=True)
def _fast_passwords() -> Iterator[list[str]]:
    """Django's PBKDF2 costs about half a second a password, and the tests make thousands of
    users: the whole session hashes with MD5. For the whole process, so the browser tests'
    server (a thread of this process) verifies what their sign-ups hashed. Yields the
    project's own hashers, for the tests marked ``real_passwords``."""
    real = list(django_settings.PASSWORD_HASHERS)
    with override_settings(PASSWORD_HASHERS=["django.contrib.auth.hashers.MD5PasswordHasher"]):
        yield real


@pytest.fixture(autouse=True)
def _real_passwords(request: pytest.FixtureRequest, _fast_passwords: list[str]) -> None:
    """``@pytest.mark.real_passwords``: this test checks passwords themselves, with the hashers
    the project runs with. Autouse, so it applies before any fixture makes a user."""
    if request.node.get_closest_marker("real_passwords") is not None:
        settings: Settings = request.getfixturevalue("settings")
        settings.PASSWORD_HASHERS = _fast_passwords
