"""What ``manage.py serve`` does before it serves."""

from __future__ import annotations

import re
import socket
import time
from pathlib import Path

import pytest

from tabletop.management.commands.serve import KEEP_ALIVE, prepare
from tabletop.models import Presence
from tests.factories import Table
from tests.servers import free_port, server_process


def _left_behind(table: Table) -> None:
    # Rows of sockets that a server which stopped without closing them never removed.
    Presence.objects.create(campaign=table.campaign, user=table.player, channel_name="gone.1")
    Presence.objects.create(campaign=table.campaign, user=table.gm, channel_name="gone.2")


@pytest.mark.django_db
def test_the_embedded_default_starts_with_nobody_at_the_table(table: Table) -> None:
    _left_behind(table)

    prepare(embedded=True)

    assert not Presence.objects.exists()


@pytest.mark.django_db
def test_with_several_servers_the_others_presence_stays(table: Table) -> None:
    _left_behind(table)

    prepare(embedded=False)

    assert Presence.objects.count() == 2


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
