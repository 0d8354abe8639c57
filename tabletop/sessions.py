"""Sessions in the database, with the cache in front of them as a shortcut only.

Django's ``cached_db`` engine reads a session from the cache and writes it to both, but a
cache that is gone (Redis stopped) makes some of its calls raise (a lookup, a delete): every
signed-in page could answer 500. Here the database is the source of truth and the cache an
optimisation: a cache that fails is a cache that missed, and the session is read from (and
written to) the database alone until the cache answers again.

A delete the cache missed (a logout while Redis was unreachable but not emptied, say) could
leave the old copy there for when it comes back, so a copy is kept in the cache for
``CACHED_FOR`` seconds at most, not the session's year: a stale copy outlives an outage by a
few minutes at worst, and a phone reads its session from the database every few minutes.

The store extends Django's database store as its documentation describes ("Extending
database-backed session engines": ``load()``, ``exists()``, ``save()``, ``delete()``), with
the cache as an attribute of its own; what it reads of the session is the session's public
dict interface.

The read from the database is compiled once (``tabletop.serving``'s ``compiled_queries``):
after a restart every phone's socket and first request read their session there, and building
the ORM's SQL was most of that read (0.37 -> 0.10 ms). Its "not expired" compares with the
database's clock (``Now()``), where Django's sends the process's: the two agree to the
millisecond, and a query whose SQL takes the time as a parameter could not be compiled once.
A key that finds no session is left to Django's own ``load()``, which drops it (a cookie's
key is never taken for a new session).
"""

from __future__ import annotations

import logging
from typing import Any

from asgiref.sync import sync_to_async
from django.conf import settings
from django.contrib.sessions.backends import db
from django.contrib.sessions.models import Session
from django.core.cache.backends.base import BaseCache
from django.core.signals import setting_changed
from django.db.models.functions import Now
from django.dispatch import receiver
from django.utils.module_loading import import_string

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


# Where a session's copy is kept in the cache: a prefix of our own, not cached_db's.
KEY_PREFIX = "tabletop.sessions."


class SessionStore(db.SessionStore):
    def __init__(self, session_key: str | None = None) -> None:
        super().__init__(session_key)
        self.cache = ForgivingCache(session_cache())

    def load(self) -> dict[str, Any]:
        key = self.session_key
        if key:
            data = self.cache.get(KEY_PREFIX + key)
            if data is not None:
                return data  # what save() put there: a dict
            if enabled("compiled_queries"):
                session = _UNEXPIRED.get_or_none(key=key)
                if session is not None:
                    data = self.decode(session.session_data)
                    self.cache.set(KEY_PREFIX + key, data)
                    return data
        # Django's own read: it drops a key that finds no session.
        data = super().load()
        if self.session_key and data:
            self.cache.set(KEY_PREFIX + self.session_key, data)
        return data

    def exists(self, session_key: str) -> bool:
        return (bool(session_key) and (KEY_PREFIX + session_key) in self.cache) or super().exists(session_key)

    def save(self, must_create: bool = False) -> None:
        super().save(must_create)
        if self.session_key:
            self.cache.set(KEY_PREFIX + self.session_key, dict(self.items()))

    def delete(self, session_key: str | None = None) -> None:
        super().delete(session_key)
        key = session_key if session_key is not None else self.session_key
        if key:
            self.cache.delete(KEY_PREFIX + key)

    # The async API as the sync one, on a thread (nothing here calls it; Django's base would
    # otherwise bypass the cache and leave a stale copy in it).
    async def aload(self) -> dict[str, Any]:
        return await sync_to_async(self.load)()

    async def aexists(self, session_key: str) -> bool:
        return await sync_to_async(self.exists)(session_key)

    async def asave(self, must_create: bool = False) -> None:
        await sync_to_async(self.save)(must_create)

    async def adelete(self, session_key: str | None = None) -> None:
        await sync_to_async(self.delete)(session_key)


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
        # Made as Django makes each backend of ``CACHES``: its class, with its location and
        # the rest of its settings (the documented constructor of a cache backend).
        params = dict(settings.CACHES[alias])
        backend_class = import_string(params.pop("BACKEND"))
        backend = _backends[alias] = backend_class(params.pop("LOCATION", ""), params)
    return backend


@receiver(setting_changed)
def _forget_backends(*, setting: str, **kwargs: Any) -> None:
    if setting in ("CACHES", "SESSION_CACHE_ALIAS"):
        _backends.clear()
