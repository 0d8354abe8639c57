"""An outage and an overload each get their own message, and the PostgreSQL pool checks a
connection before handing it out, so a blip of the server costs no request (issue 44)."""

from __future__ import annotations

import contextlib
import html
import re
import socket
import time
from pathlib import Path

import pytest
from django.conf import settings
from django.db import OperationalError, connection
from django.http import HttpResponse
from django.test import RequestFactory
from redis.exceptions import ConnectionError as RedisConnectionError

from tabletop.errors import BUSY_MESSAGE, OUTAGE_MESSAGE, busy
from tests.conftest import PRODUCTION
from tests.factories import Table
from tests.servers import database_url, free_port, server_process
from tests.test_outages import TRY_AGAIN, Proxy, _cookies, _page


class BlipProxy(Proxy):
    """The suite's proxy, whose cut also wakes its listener's accept, so that the port is free
    to listen on again a second later (a closed socket blocked in accept keeps listening)."""

    def cut(self) -> None:
        listener = self.listener
        if listener is not None:
            with contextlib.suppress(OSError):
                listener.shutdown(socket.SHUT_RDWR)
        super().cut()


def refused_by(error: Exception | None) -> HttpResponse:
    request = RequestFactory().get("/c/1/")
    if error is None:
        return busy(request)
    try:
        raise error
    except type(error):
        return busy(request)


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("error", "message"),
    [
        (None, BUSY_MESSAGE),  # the admission limit: too many requests at once
        (OperationalError("database is locked"), BUSY_MESSAGE),
        (OperationalError("connection to server at 127.0.0.1 failed: Connection refused"), OUTAGE_MESSAGE),
        (RedisConnectionError("Error 111 connecting to 127.0.0.1:6379"), OUTAGE_MESSAGE),
    ],
)
def test_an_outage_and_an_overload_each_say_what_they_are(error: Exception | None, message: str) -> None:
    response = refused_by(error)

    assert response.status_code == 503 and response["Retry-After"]
    body = html.unescape(response.content.decode())
    assert message in body and TRY_AGAIN in body
    other = OUTAGE_MESSAGE if message == BUSY_MESSAGE else BUSY_MESSAGE
    assert other not in body


@pytest.mark.production
@pytest.mark.django_db
@pytest.mark.skipif(not PRODUCTION, reason="needs PostgreSQL (TEST_PRODUCTION=1)")
def test_the_pool_checks_a_connection_before_handing_it_out_and_after_a_broken_one_the_rest() -> None:
    """The check is ours, and the pool it checks is the one Django hands connections from.
    ``default_pool`` reads the PostgreSQL backend's ``pool`` attribute, which Django does not
    document (docs/architecture.md, "Serving pieces"): this fails on a Django without it."""
    from psycopg_pool import ConnectionPool

    from tabletop.serving.pool_check import checking_the_rest, default_pool

    check = settings.DATABASES["default"]["OPTIONS"]["pool"]["check"]
    assert check.__qualname__ == checking_the_rest(default_pool).__qualname__
    pool = default_pool()
    assert isinstance(pool, ConnectionPool)
    with connection.cursor() as cursor:
        cursor.execute("select 1")
        # The connection Django took for this test came from that very pool.
        assert pool.get_stats()["pool_size"] >= 1


@pytest.mark.production
@pytest.mark.skipif(not PRODUCTION, reason="needs PostgreSQL (TEST_PRODUCTION=1)")
def test_after_a_blip_a_pool_of_broken_connections_hands_out_a_new_one_at_once() -> None:
    """Issue 44: psycopg's pool waits 1 s, then 2 s between two broken connections it finds,
    so four broken by one blip cost a request its 3 s and a 503; checked all at once, none."""
    from psycopg_pool import ConnectionPool

    from tabletop.serving.pool_check import checking_the_rest

    settings_dict = connection.settings_dict
    proxy = BlipProxy((settings_dict.get("HOST") or "127.0.0.1", int(settings_dict.get("PORT") or 5432)))
    proxy.restore()
    pools: list[ConnectionPool] = []
    conninfo = f"host=127.0.0.1 port={proxy.port} dbname={settings_dict['NAME']} user={settings_dict['USER']}"
    pool = ConnectionPool(
        conninfo, min_size=2, max_size=10, timeout=3, check=checking_the_rest(lambda: pools[0]), open=False
    )
    pools.append(pool)
    try:
        pool.open(wait=True)
        taken = [pool.getconn() for _ in range(5)]
        for each in taken:
            each.execute("select 1")
            pool.putconn(each)
        proxy.cut()  # five idle connections break at once
        time.sleep(1)
        proxy.restore()

        started = time.monotonic()
        with pool.connection() as fresh:
            assert fresh.execute("select 1").fetchone() == (1,)
        assert time.monotonic() - started < 0.9  # psycopg's own wait alone is 1 s, then 2
    finally:
        pool.close()
        proxy.cut()


@pytest.mark.production
@pytest.mark.skipif(not PRODUCTION, reason="needs PostgreSQL (TEST_PRODUCTION=1)")
@pytest.mark.django_db(transaction=True)
def test_after_a_one_second_blip_the_next_requests_answer_and_an_outage_says_so(
    table: Table, tmp_path: Path
) -> None:
    cookies = _cookies(table)
    settings_dict = connection.settings_dict
    proxy = BlipProxy((settings_dict.get("HOST") or "127.0.0.1", int(settings_dict.get("PORT") or 5432)))
    proxy.restore()
    through_proxy = re.sub(r"@[^/]+/", f"@127.0.0.1:{proxy.port}/", database_url())
    try:
        with server_process(free_port(), tmp_path, {"DATABASE_URL": through_proxy}) as base:
            for _ in range(3):  # the pool holds connections now
                assert _page(base, table, cookies).status_code == 200
            for blip in range(3):
                proxy.cut()  # the pooled connections die with the blip
                time.sleep(1)
                proxy.restore()

                started = time.monotonic()
                statuses = [_page(base, table, cookies).status_code for _ in range(3)]
                # Issue 44: none of the three is refused, nor kept waiting for the pool.
                assert statuses == [200, 200, 200], f"blip {blip}"
                assert time.monotonic() - started < 2.5, f"blip {blip}"
            proxy.cut()
            page = _page(base, table, cookies)
            assert page.status_code == 503 and OUTAGE_MESSAGE in html.unescape(page.text)
    finally:
        proxy.cut()
