"""A signed-in phone's session read from the database (the cache missed: after a restart, or
Redis gone) holds what Django's own store reads, compiled or not, and an expired or unknown
session reads as empty, its key dropped, so the phone is signed out."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.contrib.sessions.backends.db import SessionStore as DatabaseStore
from django.contrib.sessions.models import Session
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone
from pytest_django.fixtures import Settings

from tabletop.sessions import SessionStore, session_cache

pytestmark = pytest.mark.django_db


@pytest.fixture(params=[True, False], ids=["compiled", "orm"])
def compiled(request: pytest.FixtureRequest, settings: Settings) -> bool:
    settings.FAST_PATH = {**settings.FAST_PATH, "compiled_queries": request.param}
    return bool(request.param)


def _saved(**data: object) -> str:
    store = SessionStore()
    store.update(data)
    store.create()
    session_cache().clear()  # what a restarted process finds: nothing cached
    assert store.session_key is not None
    return store.session_key


def test_a_session_the_cache_lost_is_read_from_the_database_as_djangos_store_reads_it(compiled: bool) -> None:
    key = _saved(_auth_user_id="7", seat="north")
    store = SessionStore(key)
    with CaptureQueriesContext(connection) as read:
        assert store["seat"] == "north"
    assert len(read) == 1
    assert store.load() == DatabaseStore(key).load() == {"_auth_user_id": "7", "seat": "north"}
    assert store.session_key == key
    # Compiled, read through tabletop.sessions' own read (the database's clock).
    by_database_clock = any(now in read[0]["sql"] for now in ("STRFTIME", "STATEMENT_TIMESTAMP"))
    assert by_database_clock == compiled
    # Read once, it is cached: the next request of this phone reads no database.
    with CaptureQueriesContext(connection) as queries:
        assert SessionStore(key)["seat"] == "north"
    assert not queries


def test_an_expired_or_unknown_session_reads_as_empty_and_drops_its_key(compiled: bool) -> None:
    key = _saved(_auth_user_id="7")
    Session.objects.filter(session_key=key).update(expire_date=timezone.now() - timedelta(seconds=1))
    expired = SessionStore(key)
    assert expired.load() == {}
    assert expired.session_key is None
    unknown = SessionStore("x" * 32)
    assert unknown.load() == {}
    assert unknown.session_key is None
