"""A Redis cache backend with one client per process, instead of one per task and per call.

Django keeps a cache backend per thread and per asyncio task (asgiref's ``Local`` behind
``caches``), and its Redis backend gives each backend a client of its own: a connection pool,
a TCP connection to Redis, and a ``DriverInfo`` that reads the redis package's metadata from
disk. Each call then builds a new ``redis.Redis``, whose event dispatcher and its seven
listeners sit in reference cycles. So each socket's connect opened a connection to Redis
(1,200 phones, 1,200 connections), and each request and socket left some 40 to 90 objects in
cycles for the collector (``bench/load.py --config production``).

This backend is written on Django's documented cache backend interface (``BaseCache``: keys
made and checked by ``make_and_validate_key``, timeouts by ``get_backend_timeout``) and
redis-py's public client: every backend of one configuration (its server and options) shares
one ``redis.Redis`` and its pool, which redis-py makes safe to share between threads (a command
takes a connection from the pool and gives it back). Values are stored as Django's Redis
backend stores them: an ``int`` as itself (so ``incr`` is Redis's own, atomic), anything else
pickled. ``OPTIONS`` are the pool's (``socket_timeout``, ``retry``...), as for
``redis.ConnectionPool.from_url``. Off (``FAST_PATH``'s ``redis_cache``): Django's backend.
"""

from __future__ import annotations

import pickle
import threading
from typing import Any

import redis
from django.core.cache.backends.base import DEFAULT_TIMEOUT, BaseCache
from django.core.exceptions import ImproperlyConfigured

_lock = threading.Lock()
_shared: dict[str, redis.Redis] = {}


def shared_client(server: str, options: dict[str, Any]) -> redis.Redis:
    """The process's client of this server with these options."""
    key = repr((server, sorted(options.items(), key=lambda item: item[0])))
    with _lock:
        client = _shared.get(key)
        if client is None:
            pool = redis.ConnectionPool.from_url(server, **options)
            client = _shared[key] = redis.Redis(connection_pool=pool)
    return client


def _dumps(value: Any) -> Any:
    return value if type(value) is int else pickle.dumps(value, pickle.HIGHEST_PROTOCOL)


def _loads(data: Any) -> Any:
    if data is None:
        return None
    try:
        return int(data)
    except ValueError:
        return pickle.loads(data)


class RedisCache(BaseCache):
    def __init__(self, server: str | list[str], params: dict[str, Any]) -> None:
        super().__init__(params)
        servers = [server] if isinstance(server, str) else list(server)
        if len(servers) != 1:
            raise ImproperlyConfigured("tabletop.serving.redis_cache takes one Redis server")
        self.server = servers[0]
        self.options = dict(params.get("OPTIONS") or {})
        self.client = shared_client(self.server, self.options)

    def _key(self, key: str, version: int | None) -> str:
        return self.make_and_validate_key(key, version=version)

    def _seconds(self, timeout: float | None) -> int | None:
        seconds = self.get_backend_timeout(timeout)
        return None if seconds is None else max(0, int(seconds))

    def add(
        self, key: str, value: Any, timeout: float | None = DEFAULT_TIMEOUT, version: int | None = None
    ) -> bool:
        key, seconds = self._key(key, version), self._seconds(timeout)
        if seconds == 0:  # stored and gone at once: only whether it was free
            return bool(self.client.set(key, _dumps(value), nx=True)) and bool(self.client.delete(key))
        return bool(self.client.set(key, _dumps(value), ex=seconds, nx=True))

    def get(self, key: str, default: Any = None, version: int | None = None) -> Any:
        data = self.client.get(self._key(key, version))
        return default if data is None else _loads(data)

    def set(
        self, key: str, value: Any, timeout: float | None = DEFAULT_TIMEOUT, version: int | None = None
    ) -> None:
        key, seconds = self._key(key, version), self._seconds(timeout)
        if seconds == 0:
            self.client.delete(key)
        else:
            self.client.set(key, _dumps(value), ex=seconds)

    def touch(self, key: str, timeout: float | None = DEFAULT_TIMEOUT, version: int | None = None) -> bool:
        key, seconds = self._key(key, version), self._seconds(timeout)
        if seconds is None:
            return bool(self.client.persist(key))
        return bool(self.client.expire(key, seconds))

    def delete(self, key: str, version: int | None = None) -> bool:
        return bool(self.client.delete(self._key(key, version)))

    def has_key(self, key: str, version: int | None = None) -> bool:
        return bool(self.client.exists(self._key(key, version)))

    def incr(self, key: str, delta: int = 1, version: int | None = None) -> int:
        key = self._key(key, version)
        if not self.client.exists(key):
            raise ValueError(f"Key '{key}' not found.")
        return int(self.client.incr(key, delta))

    def clear(self) -> None:
        self.client.flushdb()
