"""A part of the system goes away: Redis stops, PostgreSQL stops. Each test runs a real server
process against a Redis of its own (a ``redis-server`` on a port of the test's, stopped and
started again mid-test) or against PostgreSQL through a small TCP proxy that the test cuts and
restores: the machine's shared services are never touched.

What a person sees is asserted: the page still answers where it can, the clear 503 "try again"
page where it cannot, a socket's close frame (so the page reconnects by itself), and everything
back by itself once the service returns, without a restart of the app.
"""

from __future__ import annotations

import asyncio
import json
import re
import select
import shutil
import socket
import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
import websockets
from django.db import connection
from django.test import Client
from django.urls import reverse
from websockets.exceptions import ConnectionClosed

from rolls.models import Roll
from tests.conftest import PRODUCTION
from tests.factories import Table
from tests.servers import database_url, free_port, server_process

SEQ = re.compile(r'data-seq="(\d+)"')
TRY_AGAIN = "try again"


# -- a Redis of the test's own ----------------------------------------------------------------------


class OwnRedis:
    """``redis-server`` on a free port, without persistence: stopped, it comes back empty, as a
    Redis that lost its memory does."""

    def __init__(self, tmp: Path) -> None:
        self.port = free_port()
        self.tmp = tmp
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        self.process = subprocess.Popen(
            [
                "redis-server",
                "--port",
                str(self.port),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no",
            ],
            cwd=self.tmp,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 10
        while True:
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.5) as sock:
                    sock.sendall(b"PING\r\n")
                    if sock.recv(16).startswith(b"+PONG"):
                        return
            except OSError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError(f"redis-server on {self.port} did not start")
            time.sleep(0.05)

    def stop(self) -> None:
        if self.process is not None:
            self.process.terminate()
            self.process.wait(timeout=10)
            self.process = None


@pytest.fixture
def own_redis(tmp_path: Path) -> Iterator[OwnRedis]:
    if shutil.which("redis-server") is None:
        # The production run (CI) has Redis installed: there the test must run, not skip.
        (pytest.fail if PRODUCTION else pytest.skip)("needs redis-server")
    redis = OwnRedis(tmp_path)
    redis.start()
    try:
        yield redis
    finally:
        redis.stop()


# -- a proxy in front of PostgreSQL that the test cuts ------------------------------------------------


class Proxy:
    """A TCP proxy from a port of its own to ``upstream``. ``cut()`` closes every connection and
    stops accepting (the server is gone: new connections are refused); ``restore()`` listens
    again on the same port."""

    def __init__(self, upstream: tuple[str, int]) -> None:
        self.upstream = upstream
        self.port = free_port()
        self.listener: socket.socket | None = None
        self.open: set[socket.socket] = set()
        self.lock = threading.Lock()

    def restore(self) -> None:
        listener = socket.socket()
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(("127.0.0.1", self.port))
        listener.listen(64)
        self.listener = listener
        threading.Thread(target=self._accept, args=(listener,), daemon=True).start()

    def cut(self) -> None:
        with self.lock:
            listener, self.listener = self.listener, None
            sockets, self.open = self.open, set()
        if listener is not None:
            listener.close()
        for sock in sockets:
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            sock.close()

    def _accept(self, listener: socket.socket) -> None:
        while True:
            try:
                client, _ = listener.accept()
            except OSError:  # cut
                return
            try:
                server = socket.create_connection(self.upstream)
            except OSError:
                client.close()
                continue
            with self.lock:
                if self.listener is not listener:  # cut while this one connected
                    client.close()
                    server.close()
                    return
                self.open |= {client, server}
            threading.Thread(target=self._pump, args=(client, server), daemon=True).start()

    def _pump(self, client: socket.socket, server: socket.socket) -> None:
        pair = {client: server, server: client}
        try:
            while True:
                readable, _, _ = select.select(list(pair), [], [], 1)
                for sock in readable:
                    data = sock.recv(65536)
                    if not data:
                        return
                    pair[sock].sendall(data)
        except (OSError, ValueError):  # cut under it
            return
        finally:
            with self.lock:
                self.open -= {client, server}
            for sock in (client, server):
                sock.close()


# -- what a phone does ---------------------------------------------------------------------------------


def _cookies(table: Table) -> dict[str, str]:
    client = Client()
    client.force_login(table.player)
    return {"sessionid": client.cookies["sessionid"].value}


def _page(base: str, table: Table, cookies: dict[str, str]) -> httpx.Response:
    with httpx.Client(base_url=f"http://{base}", cookies=cookies, timeout=10) as http:
        return http.get(reverse("rolls:character", args=[table.campaign.pk, table.character.pk]))


def _roll(base: str, table: Table, cookies: dict[str, str]) -> httpx.Response:
    with httpx.Client(base_url=f"http://{base}", cookies=cookies, timeout=30) as http:
        page = http.get(reverse("rolls:character", args=[table.campaign.pk, table.character.pk]))
        assert page.status_code == 200, page.text
        return http.post(
            reverse("rolls:roll-create", args=[table.campaign.pk, table.character.pk]),
            data={"trait": "skill-0", "need": 3},
            headers={
                "X-CSRFToken": http.cookies["csrftoken"],
                "HX-Request": "true",
                "Referer": f"http://{base}/",
            },
        )


def _log_in(base: str) -> httpx.Response:
    with httpx.Client(base_url=f"http://{base}", timeout=30) as http:
        page = http.get(reverse("tabletop:login"))
        assert page.status_code == 200, page.text
        return http.post(
            reverse("tabletop:login"),
            data={"username": "nobody", "password": "wrong"},
            headers={"X-CSRFToken": http.cookies["csrftoken"], "Referer": f"http://{base}/"},
        )


def _rolls(table: Table) -> int:
    try:
        return Roll.objects.filter(character=table.character).count()
    finally:
        connection.close()  # may run on a worker thread: leave no session open on the test database


def _socket(base: str, table: Table, cookies: dict[str, str]) -> websockets.ClientConnection:
    return websockets.connect(
        f"ws://{base}/ws/c/{table.campaign.pk}/",
        additional_headers={"Cookie": f"sessionid={cookies['sessionid']}", "Origin": f"http://{base}"},
        open_timeout=10,
    )


async def _closed(socket: websockets.ClientConnection, seconds: float) -> ConnectionClosed:
    """Read until the socket closes; the close as the client saw it."""
    try:
        async with asyncio.timeout(seconds):
            while True:
                await socket.recv()
    except ConnectionClosed as closed:
        return closed
    raise AssertionError("unreachable")


def _assert_clean_close(closed: ConnectionClosed) -> None:
    # A close frame from the server, with a code the page reconnects on (static/js/table.js);
    # without one (1006), the server dropped the socket.
    assert closed.rcvd is not None, f"no close frame: {closed!r}"
    assert closed.rcvd.code in (1011, 1012, 1013), closed.rcvd


# -- Redis stops -----------------------------------------------------------------------------------------


@pytest.mark.django_db(transaction=True)
def test_when_redis_stops_pages_and_rolls_still_answer_sockets_close_cleanly_and_it_all_comes_back(
    table: Table, tmp_path: Path, own_redis: OwnRedis
) -> None:
    cookies = _cookies(table)
    with server_process(free_port(), tmp_path, {"REDIS_URL": own_redis.url}) as base:

        async def scenario() -> None:
            loop = asyncio.get_running_loop()
            async with _socket(base, table, cookies) as live:
                await live.send(json.dumps({"since": 0}))
                await asyncio.wait_for(live.recv(), timeout=10)  # the table's presence list
                await loop.run_in_executor(None, own_redis.stop)
                _assert_clean_close(await _closed(live, 10))

            # Signed in: the session reads through to the database.
            page = await loop.run_in_executor(None, _page, base, table, cookies)
            assert page.status_code == 200, page.text
            # A roll is written and answered; the table hears of it when its pages reconnect.
            before = await loop.run_in_executor(None, _rolls, table)
            rolled = await loop.run_in_executor(None, _roll, base, table, cookies)
            assert rolled.status_code == 200, rolled.text
            assert await loop.run_in_executor(None, _rolls, table) == before + 1
            # The login's rate limit counts without Redis, and does not fail.
            login = await loop.run_in_executor(None, _log_in, base)
            assert login.status_code == 200, login.text
            assert "Please enter a correct username and password" in login.text

            # A new socket is refused with a close the page reconnects on, not an HTTP 500.
            async with _socket(base, table, cookies) as refused:
                _assert_clean_close(await _closed(refused, 10))

            # Redis comes back (empty): a page that reconnects hears of the next roll.
            await loop.run_in_executor(None, own_redis.start)
            async with _socket(base, table, cookies) as live:
                await live.send(json.dumps({"since": 0}))
                rolled = await loop.run_in_executor(None, _roll, base, table, cookies)
                assert rolled.status_code == 200, rolled.text
                last = int(re.findall(r'data-roll="(\d+)"', rolled.text)[0])
                seen = ""
                async with asyncio.timeout(10):
                    while f'data-roll="{last}"' not in seen:
                        seen += str(await live.recv())

        asyncio.run(scenario())


# -- PostgreSQL stops ------------------------------------------------------------------------------------


@pytest.mark.production
@pytest.mark.skipif(not PRODUCTION, reason="needs PostgreSQL (TEST_PRODUCTION=1)")
@pytest.mark.django_db(transaction=True)
def test_when_postgresql_stops_a_request_gets_a_prompt_503_pages_without_the_database_answer_and_it_comes_back(
    table: Table, tmp_path: Path
) -> None:
    cookies = _cookies(table)
    settings_dict = connection.settings_dict
    proxy = Proxy((settings_dict.get("HOST") or "127.0.0.1", int(settings_dict.get("PORT") or 5432)))
    proxy.restore()
    through_proxy = re.sub(r"@[^/]+/", f"@127.0.0.1:{proxy.port}/", database_url())
    try:
        with server_process(free_port(), tmp_path, {"DATABASE_URL": through_proxy}) as base:
            assert _page(base, table, cookies).status_code == 200

            proxy.cut()
            for _ in range(5):  # the pool's connections, broken by the cut, then an empty pool
                started = time.monotonic()
                page = _page(base, table, cookies)
                assert page.status_code == 503, page.text
                assert TRY_AGAIN in page.text
                assert page.headers["Retry-After"]
                assert time.monotonic() - started < 6
            with httpx.Client(base_url=f"http://{base}", timeout=30) as anonymous:
                for name in ("tabletop:home", "tabletop:login", "rolls:rules"):
                    started = time.monotonic()
                    assert anonymous.get(reverse(name)).status_code == 200, name
                    assert time.monotonic() - started < 2, name

            proxy.restore()
            deadline = time.monotonic() + 10
            while (status := _page(base, table, cookies).status_code) != 200 and time.monotonic() < deadline:
                time.sleep(0.2)
            assert status == 200
    finally:
        proxy.cut()


def test_the_session_store_reads_and_writes_through_its_forgiving_cache() -> None:
    """tabletop/sessions.py's store keeps its own forgiving cache (no attribute of Django's)."""
    from tabletop.sessions import ForgivingCache, SessionStore

    assert isinstance(SessionStore().cache, ForgivingCache)
