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


@pytest.mark.skipif(not PRODUCTION, reason="needs PostgreSQL (TEST_PRODUCTION=1)")
def test_the_pool_checks_a_connection_before_handing_it_out() -> None:
    from psycopg_pool import ConnectionPool

    pool = settings.DATABASES["default"]["OPTIONS"]["pool"]
    assert pool["check"] == ConnectionPool.check_connection


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
            proxy.cut()  # the pooled connections die with the blip
            time.sleep(1)
            proxy.restore()

            statuses = [_page(base, table, cookies).status_code for _ in range(3)]

            # The pool's connections are checked before they are handed out; the request
            # thread's own kept connection (tabletop/serving) may still cost the first one.
            assert statuses[1:] == [200, 200] and statuses[0] in (200, 503)
            proxy.cut()
            page = _page(base, table, cookies)
            assert page.status_code == 503 and OUTAGE_MESSAGE in html.unescape(page.text)
    finally:
        proxy.cut()
