"""The Redis cache backend shares one client per process (tabletop/serving/redis_cache.py):
Django made one per socket and per request, each with its own pool and connection to Redis,
and a new ``redis.Redis`` per call. Against a ``redis-server`` of the test's own."""

from __future__ import annotations

import os
import shutil
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis

from tabletop.serving.redis_cache import RedisCache
from tests.conftest import PRODUCTION
from tests.test_outages import OwnRedis


@pytest.fixture
def own_redis(tmp_path: Path) -> Iterator[OwnRedis]:
    if shutil.which("redis-server") is None:
        # CI has Redis installed: there the test must run, not skip.
        (pytest.fail if PRODUCTION or os.environ.get("CI") else pytest.skip)("needs redis-server")
    server = OwnRedis(tmp_path)
    server.start()
    try:
        yield server
    finally:
        server.stop()


def backend(url: str) -> RedisCache:
    return RedisCache(url, {"OPTIONS": {"socket_timeout": 3}})


def test_backends_of_one_configuration_share_one_client_and_pool(own_redis: OwnRedis) -> None:
    first, second = backend(own_redis.url), backend(own_redis.url)
    first.set("greeting", "hej")
    assert second.get("greeting") == "hej"
    assert isinstance(first.client, redis.Redis)
    assert second.client is first.client  # one client and pool, not one per backend or call
    assert first.client.connection_pool is second.client.connection_pool


def test_another_server_gets_a_client_of_its_own(own_redis: OwnRedis, tmp_path: Path) -> None:
    other = OwnRedis(tmp_path / "other")
    (tmp_path / "other").mkdir()
    other.start()
    try:
        mine, theirs = backend(own_redis.url), backend(other.url)
        mine.set("where", "mine")
        assert theirs.get("where") is None
        assert mine.client is not theirs.client
    finally:
        other.stop()


def test_threads_share_the_client_safely(own_redis: OwnRedis) -> None:
    failures: list[str] = []

    def work(n: int) -> None:
        cache = backend(own_redis.url)  # as each thread's ``caches[alias]`` would be
        for i in range(50):
            cache.set(f"k{n}:{i}", i)
            if cache.get(f"k{n}:{i}") != i:
                failures.append(f"{n}:{i}")

    threads = [threading.Thread(target=work, args=(n,)) for n in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert failures == []


def test_the_shared_client_comes_back_with_redis(own_redis: OwnRedis) -> None:
    cache = backend(own_redis.url)
    cache.set("before", 1)
    own_redis.stop()
    with pytest.raises(redis.RedisError):
        cache.get("before")
    own_redis.start()  # empty: a Redis that lost its memory
    assert cache.get("before") is None
    cache.set("after", 2)
    assert backend(own_redis.url).get("after") == 2


def test_every_socket_and_request_reads_sessions_through_one_backend() -> None:
    """``caches[alias]`` is one per asyncio task: a socket's connect made a backend (for Redis a
    pool and a connection) of its own. The sessions' is one per process."""
    import asyncio

    from tabletop.sessions import SessionStore

    async def backends() -> set[int]:
        async def one() -> int:
            return id(SessionStore().cache.cache)

        return set(await asyncio.gather(*(one() for _ in range(3))))

    assert len(asyncio.run(backends())) == 1
