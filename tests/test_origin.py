"""Only the site's own pages open the table's websocket: the Origin must match the site's
scheme, host and port (tabletop/origin.py), over the whole ASGI application."""

from __future__ import annotations

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from pytest_django.fixtures import Settings

from tabletop.asgi import application
from tabletop.models import Presence
from tabletop.origin import parse_origin
from tests.factories import Table
from tests.test_consumers import _cookie, empty_channel_layer  # noqa: F401  (fixture)

pytestmark = pytest.mark.django_db(transaction=True)

LAN = "192.168.1.20:8000"


async def _opens(table: Table, *, origin: str | None, host: str | None, scheme: str = "ws") -> bool:
    """Whether the player's socket to ``host`` over ``scheme``, from a page of ``origin``, is
    accepted; it is closed again, and nobody is left at the table."""
    headers = [(b"cookie", await database_sync_to_async(_cookie)(table.player))]
    if origin is not None:
        headers.append((b"origin", origin.encode()))
    if host is not None:
        headers.append((b"host", host.encode()))
    communicator = WebsocketCommunicator(application, f"/ws/c/{table.campaign.pk}/", headers=headers)
    communicator.scope["scheme"] = scheme
    connected, _ = await communicator.connect()
    await communicator.disconnect()
    assert not await database_sync_to_async(Presence.objects.exists)()
    return connected


@pytest.fixture
def public(settings: Settings) -> None:
    settings.PUBLIC_URL = "https://example.com"
    settings.ALLOWED_HOSTS = ["example.com"]


@pytest.mark.parametrize(
    "origin",
    ["https://example.com", "https://example.com:443", "https://EXAMPLE.com", "https://example.com/"],
)
@pytest.mark.usefixtures("public")
async def test_with_a_public_url_its_pages_connect(table: Table, origin: str) -> None:
    # Behind a proxy that ends TLS, the socket may reach the server as plain ws.
    assert await _opens(table, origin=origin, host="example.com", scheme="ws")
    assert await _opens(table, origin=origin, host="example.com", scheme="wss")


@pytest.mark.parametrize(
    "origin",
    [
        pytest.param("http://example.com:1234", id="other-scheme-and-port"),
        pytest.param("http://example.com", id="other-scheme"),
        pytest.param("https://example.com:8443", id="other-port"),
        pytest.param("https://evil.example", id="other-host"),
        pytest.param("https://example.com.evil.example", id="a-longer-host"),
        pytest.param("https://sub.example.com", id="a-subdomain"),
        pytest.param("https://example.com:99999", id="a-port-out-of-range"),
        pytest.param("https://user@example.com", id="credentials"),
        pytest.param("https://example.com/page", id="a-path"),
        pytest.param("wss://example.com", id="a-socket-scheme"),
        pytest.param("null", id="null"),
        pytest.param("", id="empty"),
        pytest.param(None, id="none"),
    ],
)
@pytest.mark.usefixtures("public")
async def test_with_a_public_url_no_other_page_connects(table: Table, origin: str | None) -> None:
    assert not await _opens(table, origin=origin, host="example.com", scheme="wss")


async def test_without_a_public_url_a_phone_on_the_lan_connects(table: Table, settings: Settings) -> None:
    settings.ALLOWED_HOSTS = ["192.168.1.20", "localhost"]

    assert await _opens(table, origin=f"http://{LAN}", host=LAN)
    assert await _opens(table, origin="http://localhost", host="localhost")
    assert await _opens(table, origin="https://localhost", host="localhost", scheme="wss")


@pytest.mark.parametrize(
    ("origin", "host", "scheme"),
    [
        pytest.param("http://192.168.1.20:8001", LAN, "ws", id="other-port"),
        pytest.param("http://192.168.1.20", LAN, "ws", id="no-port"),
        pytest.param(f"https://{LAN}", LAN, "ws", id="https-page-on-ws"),
        pytest.param(f"http://{LAN}", LAN, "wss", id="http-page-on-wss"),
        pytest.param("http://192.168.1.21:8000", LAN, "ws", id="other-host"),
        # A page on a DNS name rebound to this machine: same origin as its Host, not ours.
        pytest.param("http://evil.example:8000", "evil.example:8000", "ws", id="rebound-dns"),
        pytest.param(f"http://{LAN}", None, "ws", id="no-host"),
        pytest.param(None, LAN, "ws", id="no-origin"),
    ],
)
async def test_without_a_public_url_only_the_sockets_own_origin_connects(
    table: Table, settings: Settings, origin: str | None, host: str | None, scheme: str
) -> None:
    settings.ALLOWED_HOSTS = ["192.168.1.20"]

    assert not await _opens(table, origin=origin, host=host, scheme=scheme)


def test_an_origin_is_its_scheme_host_and_port() -> None:
    assert parse_origin("HTTP://Example.COM") == ("http", "example.com", 80)
    assert parse_origin("https://[::1]:8443") == ("https", "::1", 8443)
    assert parse_origin("ftp://example.com") is None
    assert parse_origin("http://example.com:port") is None
