"""Sessions in the database, with the cache in front of them as a shortcut only.

Django's ``cached_db`` engine reads a session from the cache and writes it to both, but a
cache that is gone (Redis stopped) makes its reads, its refills and its deletes raise: every
signed-in page answered 500. Here the database is the source of truth and the cache an
optimisation: a cache that fails is a cache that missed, and the session is read from (and
written to) the database alone until the cache answers again.

A delete the cache missed (a logout while Redis was unreachable but not emptied, say) could
leave the old copy there for when it comes back, so a copy is kept in the cache for
``CACHED_FOR`` seconds at most, not the session's year: a stale copy outlives an outage by a
few minutes at worst, and a phone reads its session from the database every few minutes.

The forgiving cache goes where Django's store keeps its own (``_cache``, a private
attribute): the Django pin in pyproject.toml names this module, and a test in
tests/test_outages.py fails if Django moves it.

The read from the database is compiled once (``tabletop.serving``'s ``compiled_queries``):
after a restart every phone's socket and first request read their session there, and building
the ORM's SQL was most of that read. Its "not expired" compares with the database's clock
(``Now()``), where Django's sends the process's: the two agree to the millisecond, and a
query whose SQL takes the time as a parameter could not be compiled once.
"""

from __future__ import annotations

import logging
from typing import Any

from django.conf import settings
from django.contrib.sessions.backends import cached_db
from django.contrib.sessions.models import Session
from django.core.cache import caches
from django.core.cache.backends.base import BaseCache
from django.core.signals import setting_changed
from django.db.models.functions import Now
from django.dispatch import receiver

from tabletop.errors import SERVICE_ERRORS
from tabletop.serving import enabled
from tabletop.serving.compiled_query import CompiledQuery

logger = logging.getLogger(__name__)

CACHED_FOR = 300


class ForgivingCache:
    """The few calls ``cached_db`` makes of its cache, with a failure taken as a miss."""

    def __init__(self, cache: BaseCache) -> None:
        self.cache = cache

    def _failed(self, call: str, error: Exception) -> None:
        logger.warning("session cache %s failed, using the database: %s", call, error)

    def get(self, key: str, default: Any = None) -> Any:
        try:
            return self.cache.get(key, default)
        except SERVICE_ERRORS as error:
            self._failed("get", error)
            return default

    def set(self, key: str, value: Any, timeout: float | None = None) -> None:
        timeout = CACHED_FOR if timeout is None else min(timeout, CACHED_FOR)
        try:
            self.cache.set(key, value, timeout)
        except SERVICE_ERRORS as error:
            self._failed("set", error)

    def delete(self, key: str) -> None:
        try:
            self.cache.delete(key)
        except SERVICE_ERRORS as error:
            self._failed("delete", error)

    def __contains__(self, key: str) -> bool:
        try:
            return key in self.cache
        except SERVICE_ERRORS as error:
            self._failed("lookup", error)
            return False  # ``exists`` then asks the database

    async def aget(self, key: str, default: Any = None) -> Any:
        try:
            return await self.cache.aget(key, default)
        except SERVICE_ERRORS as error:
            self._failed("get", error)
            return default

    async def aset(self, key: str, value: Any, timeout: float | None = None) -> None:
        timeout = CACHED_FOR if timeout is None else min(timeout, CACHED_FOR)
        try:
            await self.cache.aset(key, value, timeout)
        except SERVICE_ERRORS as error:
            self._failed("set", error)

    async def adelete(self, key: str) -> None:
        try:
            await self.cache.adelete(key)
        except SERVICE_ERRORS as error:
            self._failed("delete", error)

    def __str__(self) -> str:
        return str(self.cache)


_UNEXPIRED: CompiledQuery[Session] = CompiledQuery(
    lambda key: Session.objects.filter(session_key=key, expire_date__gt=Now()), key=str
)


class SessionStore(cached_db.SessionStore):
    def __init__(self, session_key: str | None = None) -> None:
        super().__init__(session_key)
        self._cache = ForgivingCache(session_cache())

    def _get_session_from_db(self) -> Session | None:
        key = self.session_key
        if not enabled("compiled_queries") or key is None:
            return super()._get_session_from_db()  # type: ignore[misc]  # private to Django: not in its stubs
        session = _UNEXPIRED.get_or_none(key=key)
        if session is None:
            self._session_key = None  # as Django's: a key that finds nothing is dropped
        return session


_backends: dict[str, BaseCache] = {}


def session_cache() -> BaseCache:
    """The sessions' cache backend, one per process. ``caches[alias]`` keeps one per thread and
    per asyncio task (asgiref's ``Local``), so each socket's connect built its own: for Redis a
    client with its own connection pool and connection to Redis (1,200 phones, 1,200 Redis
    connections), and some 90 objects left in reference cycles when the socket went. The two
    backends Tabletop runs on are safe to share between threads: locmem holds a lock,
    redis-py's pool hands each caller its own connection."""
    alias = settings.SESSION_CACHE_ALIAS
    backend = _backends.get(alias)
    if backend is None:
        backend = _backends[alias] = caches.create_connection(alias)
    return backend


@receiver(setting_changed)
def _forget_backends(*, setting: str, **kwargs: Any) -> None:
    if setting in ("CACHES", "SESSION_CACHE_ALIAS"):
        _backends.clear()
