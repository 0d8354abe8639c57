"""Django's Redis cache with one client per process, instead of one per task and per call.

Django keeps a cache backend per thread and per asyncio task (asgiref's ``Local`` behind
``caches``), and its Redis backend gives each backend a client of its own: a connection pool,
a TCP connection to Redis, and a ``DriverInfo`` that reads the redis package's metadata from
disk. Each call then builds a new ``redis.Redis``, whose event dispatcher and its seven
listeners sit in reference cycles. So each socket's connect opened a connection to Redis
(1,200 phones, 1,200 connections), and each request and socket left some 40 to 90 objects in
cycles for the collector (``bench/load.py --config production``).

Here every backend of one configuration shares one client, and the client keeps one
``redis.Redis`` per pool. Both are safe to share between threads: a ``redis.Redis`` takes a
connection from its pool for each command and gives it back. Private: Django's
``RedisCacheClient`` attributes ``_pools``, ``_pool_class``, ``_pool_options``, ``_client``,
``_servers``, ``_get_connection_pool_index`` and ``RedisCache``'s ``_class``, ``_servers``,
``_options``. Off (``FAST_PATH``'s ``redis_cache``): Django's own backend.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from django.core.cache.backends import redis as django_redis
from django.utils.functional import cached_property

_lock = threading.Lock()
_shared: dict[str, RedisCacheClient] = {}


class RedisCacheClient(django_redis.RedisCacheClient):
    """Django's client, keeping its ``redis.Redis`` per pool instead of making one per call."""

    # Django's private attributes, set by its __init__ (not in its type stubs).
    _servers: list[str]
    _pools: dict[int, Any]
    _pool_class: Any
    _pool_options: dict[str, Any]
    _client: Any
    _get_connection_pool_index: Callable[[bool], int]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._clients: dict[int, Any] = {}

    def get_client(self, key: Any = None, *, write: bool = False) -> Any:
        index = self._get_connection_pool_index(write)
        client = self._clients.get(index)
        if client is None:
            with _lock:
                if index not in self._pools:
                    self._pools[index] = self._pool_class.from_url(self._servers[index], **self._pool_options)
                client = self._clients.setdefault(index, self._client(connection_pool=self._pools[index]))
        return client


class RedisCache(django_redis.RedisCache):
    """Django's Redis backend, whose instances of one configuration share one client."""

    _servers: list[str]
    _options: dict[str, Any]

    def __init__(self, server: Any, params: dict[str, Any]) -> None:
        super().__init__(server, params)
        self._class = RedisCacheClient

    @cached_property
    def _cache(self) -> RedisCacheClient:
        # The servers and options name the configuration: a test's own redis-server on
        # another port gets a client of its own.
        key = repr((self._servers, sorted(self._options.items(), key=lambda item: item[0])))
        with _lock:
            client = _shared.get(key)
            if client is None:
                client = _shared[key] = self._class(self._servers, **self._options)
        return client
