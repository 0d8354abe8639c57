"""What ``manage.py serve`` does before it serves."""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from datetime import timedelta
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
from django.conf import settings
from django.urls import reverse
from django.utils import timezone

from bench.harness import child_pids
from tabletop.joinlink import qr_svg
from tabletop.management.commands.serve import KEEP_ALIVE, TASKS_KEPT_DAYS, addresses, prepare
from tabletop.models import Presence
from tabletop.network import LISTEN_HOST, is_loopback, lan_address
from tests.factories import Table, logged_in
from tests.servers import ROOT, free_port, server_process


def _left_behind(table: Table) -> None:
    # Rows of sockets that a server which stopped without closing them never removed.
    Presence.objects.create(campaign=table.campaign, user=table.player, channel_name="gone.1")
    Presence.objects.create(campaign=table.campaign, user=table.gm, channel_name="gone.2")


@pytest.fixture
def own_static_root(settings: Any, tmp_path: Path) -> Path:
    """``prepare`` collects the static files: into a folder of this test's, so the suite's
    other worker, serving pages from the checkout's folder meanwhile, never sees a file of it
    rewritten under its feet."""
    settings.STATIC_ROOT = tmp_path / "static"
    return settings.STATIC_ROOT


@pytest.mark.django_db
@pytest.mark.usefixtures("own_static_root")
def test_the_embedded_default_starts_with_nobody_at_the_table(table: Table) -> None:
    _left_behind(table)

    prepare(embedded=True)

    assert not Presence.objects.exists()


@pytest.mark.django_db
@pytest.mark.usefixtures("own_static_root")
def test_with_several_servers_the_others_presence_stays(table: Table) -> None:
    _left_behind(table)

    prepare(embedded=False)

    assert Presence.objects.count() == 2


@pytest.mark.django_db
@pytest.mark.usefixtures("own_static_root")
def test_a_start_clears_the_rows_of_old_finished_tasks_and_keeps_the_rest(table: Table) -> None:
    from django_tasks_db.models import DBTaskResult

    from rolls.discord.tasks import flush_campaign

    for _ in range(4):
        flush_campaign.enqueue(table.campaign.pk)
    old, recent, failed, waiting = DBTaskResult.objects.order_by("enqueued_at")
    now = timezone.now()
    long_ago = now - timedelta(days=TASKS_KEPT_DAYS + 1)
    DBTaskResult.objects.filter(pk=old.pk).update(status="SUCCESSFUL", finished_at=long_ago)
    DBTaskResult.objects.filter(pk=failed.pk).update(status="FAILED", finished_at=long_ago)
    DBTaskResult.objects.filter(pk=recent.pk).update(status="SUCCESSFUL", finished_at=now - timedelta(days=1))
    DBTaskResult.objects.filter(pk=waiting.pk).update(enqueued_at=long_ago)  # still to run

    prepare(embedded=True)

    assert set(DBTaskResult.objects.values_list("pk", flat=True)) == {recent.pk, waiting.pk}


@pytest.mark.django_db(transaction=True)
def test_a_phones_connection_stays_open_between_rolls(tmp_path: Path) -> None:
    """A phone rolls every minute or so; its next request reuses the connection instead of
    opening another (uvicorn's own default closes it after 5 idle seconds)."""
    port = free_port()
    request = b"GET /rules/ HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: keep-alive\r\n\r\n"
    with server_process(port, tmp_path), socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(request)
        first = _read_response(sock)
        time.sleep(KEEP_ALIVE_CHECKED)
        sock.sendall(request)
        second = _read_response(sock)

    assert first.startswith(b"HTTP/1.1 200")
    assert second.startswith(b"HTTP/1.1 200")


KEEP_ALIVE_CHECKED = 6  # seconds idle: past uvicorn's default, well within ours
assert KEEP_ALIVE > KEEP_ALIVE_CHECKED


def _read_response(sock: socket.socket) -> bytes:
    """One whole HTTP/1.1 response (by its Content-Length); b"" if the server closed."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(65536)
        if not chunk:
            return data
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    length = int(re.search(rb"(?i)content-length: *(\d+)", head).group(1))  # type: ignore[union-attr]
    while len(body) < length:
        chunk = sock.recv(65536)
        if not chunk:
            break
        body += chunk
    return head + b"\r\n\r\n" + body


# -- where it listens, and what it says about it ------------------------------------------------------

URL = re.compile(r"https?://[^\s/]+/?")


def printed_hosts(lines: list[str]) -> list[str]:
    return [urlsplit(url).hostname or "" for url in URL.findall("\n".join(lines))]


@pytest.mark.parametrize("host", ["127.0.0.1", "localhost", "::1"])
def test_on_loopback_it_prints_only_this_machines_address_and_how_phones_get_in(host: str) -> None:
    lines = addresses(host=host, port=8123, public_url="")

    assert printed_hosts(lines) and all(is_loopback(each) for each in printed_hosts(lines))
    assert any(":8123/" in line for line in lines)
    assert any("--host 0.0.0.0" in line for line in lines)


def test_on_every_interface_it_prints_the_network_address_phones_open() -> None:
    lines = addresses(host="0.0.0.0", port=8000, public_url="")

    lan = lan_address()
    assert "localhost" in printed_hosts(lines)
    if lan is not None:  # a machine on a network
        assert f"Phones on this network open: http://{lan}:8000/" in lines
    assert not any("--host" in line for line in lines)


def test_on_one_address_it_prints_that_address_and_no_other() -> None:
    """localhost does not answer a server that listens on one network address."""
    assert addresses(host="192.0.2.7", port=8000, public_url="") == [
        "Phones on this network open: http://192.0.2.7:8000/"
    ]


def test_behind_a_proxy_phones_open_the_public_url_even_on_loopback() -> None:
    lines = addresses(host="127.0.0.1", port=8000, public_url="https://dice.example.org")

    assert lines == ["Phones open: https://dice.example.org/"]


def join_link_on_the_session_page(table: Table, host: str) -> str:
    """The join link the session page shows, checked to be the one its QR code holds."""
    url = reverse("rolls:session", args=[table.campaign.pk])
    # The host and the port as uvicorn passes them on.
    page = logged_in(table.gm).get(url, HTTP_HOST=host, SERVER_PORT=host.rsplit(":", 1)[1])
    assert page.status_code == 200
    found = re.search(r'id="join-url" href="([^"]+)"', page.content.decode())
    assert found is not None
    assert str(qr_svg(found.group(1))) in page.content.decode()
    return found.group(1)


@pytest.mark.django_db
def test_on_loopback_the_join_link_and_its_qr_code_keep_the_browsers_host(
    table: Table, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No phone reaches a loopback-only server, and a network address in the link would not
    answer: the link is the one the GM's browser used."""
    monkeypatch.setenv(LISTEN_HOST, "127.0.0.1")

    link = join_link_on_the_session_page(table, "localhost:8123")

    assert link == f"http://localhost:8123/join/{table.campaign.join_token}/"


@pytest.mark.django_db
def test_on_every_interface_the_join_link_of_a_loopback_browser_is_the_network_address(
    table: Table, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(LISTEN_HOST, "0.0.0.0")

    link = join_link_on_the_session_page(table, "localhost:8123")

    lan = lan_address()
    assert urlsplit(link).hostname == (lan.strip("[]") if lan else "localhost")
    assert urlsplit(link).port == 8123


@pytest.mark.django_db(transaction=True)
def test_serve_on_loopback_prints_addresses_that_answer(tmp_path: Path) -> None:
    """``manage.py serve --host 127.0.0.1 --port N`` as a person runs it: every address it
    prints answers (each is a loopback one: nothing else is asked here)."""
    port = free_port()
    env = {
        **os.environ,
        "SECRET_KEY": settings.SECRET_KEY,
        "TABLETOP_DATA_DIR": str(tmp_path),
        "SQLITE_PATH": str(tmp_path / "serve.sqlite3"),
        "STATIC_ROOT": str(tmp_path / "static"),  # as own_static_root, for the server it starts
        "TABLETOP_NO_BOOTSTRAP": "1",
        "PYTHONUNBUFFERED": "1",
    }
    for name in ("DATABASE_URL", "REDIS_URL", "PUBLIC_URL", "ALLOWED_HOSTS"):
        env.pop(name, None)
    command = [sys.executable, "manage.py", "serve", "--host", "127.0.0.1", "--port", str(port)]
    process = subprocess.Popen(
        command, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )
    try:
        lines: list[str] = []
        assert process.stdout is not None
        deadline = time.monotonic() + 120
        while "Stop with Ctrl+C" not in "".join(lines):
            assert time.monotonic() < deadline and process.poll() is None, "".join(lines)
            lines.append(process.stdout.readline())
        urls = URL.findall("".join(lines))
        hosts = [urlsplit(url).hostname or "" for url in urls]
        assert urls and all(is_loopback(host) for host in hosts), lines
        assert "--host 0.0.0.0" in "".join(lines)
        for url in urls:
            answered = _get_when_up(url)
            assert answered == 200, (url, answered)
        # A deploy's stop (SIGTERM) ends the tasks' worker it runs beside the server too.
        children = child_pids(process.pid)
        assert children, "serve started no worker of the background tasks"
        process.terminate()
        assert process.wait(timeout=30) == 128 + signal.SIGTERM
        left = [pid for pid in children if _alive(pid)]
        assert not left, f"still running after serve stopped: {left}"
    finally:
        if process.poll() is None:
            process.terminate()
            process.wait(timeout=30)
        if process.stdout is not None:
            process.stdout.close()


def _alive(pid: int) -> bool:
    """Whether ``pid`` still runs (a zombie, which its parent has not yet reaped, does not)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except FileNotFoundError:
        return False
    return "State:\tZ" not in status


def _get_when_up(url: str) -> int:
    """The status of a GET of ``url`` (a loopback address), once the server listens."""
    deadline = time.monotonic() + 30
    while True:
        try:
            with urllib.request.urlopen(url, timeout=5) as response:
                return int(response.status)
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.2)
