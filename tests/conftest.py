"""Fixtures shared by every test: a table ready to roll, the views' scripted dice, fast password
hashing for the session, and a fresh channel layer and cache for each test. The helpers they
build with live in tests/factories.py."""

from __future__ import annotations

import asyncio
import os
import random
from collections.abc import Iterator
from pathlib import Path

import pytest
from django.conf import settings as django_settings
from django.test.utils import override_settings
from django.utils import translation
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


@pytest.hookimpl(tryfirst=True)  # before pytest-xdist starts its workers in this same hook
def pytest_sessionstart(session: pytest.Session) -> None:
    """Pages name their static files through the manifest (``{% static %}`` with debug off):
    a fresh clone has none until the files are collected. Once, by the process that starts
    the run: workers collecting at the same time overwrite each other's manifest."""
    if hasattr(session.config, "workerinput"):  # a pytest-xdist worker: the controller did it
        return
    from django.core.management import call_command

    call_command("collectstatic", interactive=False, verbosity=0)


@pytest.fixture(autouse=True)
def _default_language() -> Iterator[None]:
    """Each test starts and ends in the site's language. A request the test client sends runs
    in the test's own thread, and the language it activated (the browser's, or its campaign's:
    tabletop/language.py) stays active there after it: the next test on that worker would
    read a service's messages in French."""
    translation.activate(django_settings.LANGUAGE_CODE)
    yield
    translation.activate(django_settings.LANGUAGE_CODE)


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


# -- which pass runs which test ----------------------------------------------------------------
# `manage.py runtests` under CI=true runs every test once on the embedded default, then
# `-m production` on PostgreSQL + Redis and `-m serving` with FAST_PATH=off. The markers are
# given here, at collection, so a new test lands in the right passes without anyone
# remembering to mark it.

# The fixtures through which a test commits to the database (pytest-django blocks every other
# way in): what it commits runs its on-commit work (the broadcast), takes and waits on real
# locks, and is what the two engines answer differently; the live servers commit too.
COMMITTING_FIXTURES = frozenset(
    {
        "transactional_db",
        "django_db_reset_sequences",
        "django_db_serialized_rollback",
        "live_server",
        "asgi_server",
        "live_url",
    }
)

# The parts that speak to the database, the cache or the channel layer in their own words:
# SQL written by hand, locks, keyset and date queries, aggregates and upserts, the session
# store and the rate limits, and the hostile ids and values the engines refuse differently.
# Their own tests run on PostgreSQL + Redis too. A view test that only reads and writes
# through these parts runs once, on the embedded default: what it checks does not depend on
# the engine, and these files check what does.
ENGINE_TESTS = frozenset(
    {
        "test_rolls.py",  # the roll's transaction: row locks, the log's UPDATE ... RETURNING
        "test_compiled_query.py",
        "test_driver.py",
        "test_log_chain.py",
        "test_concurrency.py",
        "test_outages.py",
        "test_production.py",
        "test_history.py",  # keyset pages, dates in the site's time zone
        "test_export.py",
        "test_stats.py",  # aggregates, the cached figures
        "test_stats_tally.py",  # upserts
        "test_sessions.py",
        "test_ratelimit.py",
        "test_redis_cache.py",
        "test_presence.py",
        "test_answers.py",  # an answer broadcast to the sockets of another process
        "test_void_reveal.py",
        "test_campaigns.py",  # a session's start and end lock every sheet
        "test_contests.py",  # the contest row locked first
        "test_demo.py",  # every system played through the services
        "test_fuzz.py",  # out-of-range ids and values
        "test_import_hostile.py",  # hostile files: values PostgreSQL refuses and SQLite keeps
        "test_trust_outages.py",
    }
)

# What each serving piece replaces, as the test files that exercise that stock part: with
# FAST_PATH=off those tests run on the stock pieces. A piece that leaves
# `tabletop.serving.PIECES` takes its files out of that pass with it.
SERVING_TESTS: dict[str, tuple[str, ...]] = {
    # Django's ASGIHandler: the request path over the ASGI application, the write cap.
    "request_threads": ("test_request_threads.py", "test_overload.py", "test_origin.py", "test_outages.py"),
    # The ORM's get/create/delete/save on the roll path and a socket's connect, the session
    # store's read, the auth backend.
    "compiled_queries": (
        "test_compiled_query.py",
        "test_driver.py",
        "test_sessions.py",
        "test_rolls.py",
        "test_presence.py",
        "test_answers.py",  # an answer broadcast to the sockets of another process
        "test_access.py",
        "test_concurrency.py",
    ),
    # Channels' in-memory layer.
    "channel_layer": ("test_channel_layer.py", "test_consumers.py", "test_presence.py"),
    # Python's collector as it ships.
    "gc": ("test_gc.py",),
    # Channels' database_sync_to_async and dispatch.
    "consumer": ("test_consumers.py", "test_hostile_sockets.py", "test_presence.py", "test_origin.py"),
    # Each socket and request drawing its own markup.
    "shared_markup": ("test_kept.py", "test_card_body.py", "test_answers.py"),
    # Django's Redis cache backend.
    "redis_cache": ("test_redis_cache.py", "test_ratelimit.py"),
    # Django's deep copy of a form's fields: the roll forms.
    "form_copies": ("test_form_copies.py", "test_phone.py"),
}
# The switches themselves and the internals the pieces read, whichever pieces are left.
SERVING_ALWAYS = ("test_serving_public_ground.py", "test_serving_switches.py")


def serving_test_files() -> set[str]:
    try:
        from tabletop.serving import PIECES
    except ImportError:  # no serving piece left at all
        return set()
    files = {name for piece in PIECES for name in SERVING_TESTS.get(piece, ())}
    return files | set(SERVING_ALWAYS) if files else set()


TESTS = Path(__file__).resolve().parent


def commits(item: pytest.Item) -> bool:
    marker = item.get_closest_marker("django_db")
    return bool(
        marker is not None and marker.kwargs.get("transaction")
    ) or not COMMITTING_FIXTURES.isdisjoint(getattr(item, "fixturenames", ()))


@pytest.hookimpl(tryfirst=True)  # before `-m` deselects by these markers
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """``production``: every test that commits, the tests of the parts that speak to the
    database, the cache or the layer themselves (ENGINE_TESTS), and the browser smoke tests;
    a test that uses the channel layer, or the cache beyond what those files test on Redis, is
    held to it as it runs (``_stays_in_its_passes``). The other browser tests run in
    the first pass only: their flows go through the views, sockets and layer that the tests
    marked here cover in the later passes.
    ``serving``: the tests of what a serving piece replaces (SERVING_TESTS), and the smoke
    tests."""
    serving_files = serving_test_files()
    for item in items:
        smoke = item.get_closest_marker("smoke") is not None
        browser = item.get_closest_marker("browser") is not None
        if smoke or (not browser and (commits(item) or item.path.name in ENGINE_TESTS)):
            item.add_marker(pytest.mark.production)
        if smoke or (item.path.parent == TESTS and item.path.name in serving_files):
            item.add_marker(pytest.mark.serving)


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


@pytest.fixture(scope="session")
def django_db_setup(django_db_setup: None) -> Iterator[None]:
    """pytest-django's test database, and at its end the sockets' database thread's connection
    closed before the database is dropped: the consumer keeps that thread's connection open
    between messages (tabletop/serving/consumer.py), and PostgreSQL refuses to drop a database
    a session is still connected to. That thread is asgiref's one for thread-sensitive calls
    made outside any request, which ``sync_to_async`` reaches from a fresh event loop."""
    yield
    from asgiref.sync import sync_to_async
    from django.db import connections

    asyncio.run(sync_to_async(connections.close_all)())


# Keys the cache made during the current test: Django builds one through KEY_FUNCTION (a
# documented setting) for every get, set, incr and delete, so this sees every use but a clear.
_cache_keys_made: list[str] = []


# The cache's uses whose own tests run on Redis (ENGINE_TESTS): the session store
# (test_sessions.py), the rate limits every request counts (test_ratelimit.py) and the
# statistics' figures (test_stats.py). A view test that only passes through them need not run
# twice; any other key is a use of the cache that the test itself depends on.
def keys_tested_on_redis() -> tuple[str, ...]:
    from rolls.stats.summary import CACHE_PREFIX
    from tabletop.ratelimit import CACHE_PREFIX as RATE_LIMITS
    from tabletop.sessions import KEY_PREFIX as SESSIONS

    return (SESSIONS, RATE_LIMITS, CACHE_PREFIX)


def _recording_key(key: str, key_prefix: str, version: int) -> str:
    _cache_keys_made.append(key)
    return f"{key_prefix}:{version}:{key}"  # Django's own default_key_func


@pytest.fixture(scope="session", autouse=True)
def _watched_cache() -> Iterator[None]:
    """The cache as configured, but noting each key it makes, for ``_stays_in_its_passes``."""
    watched = {
        alias: {**options, "KEY_FUNCTION": _recording_key}
        for alias, options in django_settings.CACHES.items()
    }
    with override_settings(CACHES=watched):
        yield


@pytest.fixture(autouse=True)
def _stays_in_its_passes(
    request: pytest.FixtureRequest, _fresh_channel_layer: None, _fresh_rate_limits: None
) -> Iterator[None]:
    """A test that used the cache or the channel layer behaves differently on Redis, so it
    belongs in the production pass: fails one that is not marked for it. The database needs
    no such watch: pytest-django lets only the tests the collection marks reach it."""
    _cache_keys_made.clear()
    yield
    node = request.node
    if node.get_closest_marker("production") or node.get_closest_marker("browser"):
        return
    from channels.layers import channel_layers

    used = [
        name
        for name, kept in (
            ("the channel layer", channel_layers.backends),
            ("the cache", [key for key in _cache_keys_made if not key.startswith(keys_tested_on_redis())]),
        )
        if kept
    ]
    if used:
        pytest.fail(
            f"{node.nodeid} uses {' and '.join(used)} but does not run on PostgreSQL + Redis: "
            "mark it @pytest.mark.production (tests/conftest.py, 'which pass runs which test')."
        )
