"""Which pages may open the table's websocket: the site's own, by scheme, host and port.

A browser sends the session cookie with any websocket it opens to this server, whichever page
opens it, and says which page that is in ``Origin``. Channels' ``AllowedHostsOriginValidator``
compares the origin's host alone with ``ALLOWED_HOSTS``: with ``PUBLIC_URL`` on
``https://example.com``, a page at ``http://example.com:1234`` (another server on that
machine, a plain-HTTP page an attacker on the network injects into) was let in. Here the
origin must be the site's exactly:

- with ``PUBLIC_URL`` set, that address (what phones open; the join link names it);
- without it, the address the socket itself came to: its ``Host`` (which must be one of
  ``ALLOWED_HOSTS``, so a page on a rebound DNS name gets nothing) with ``http`` for ``ws`` and
  ``https`` for ``wss``. A phone on the LAN opens ``http://192.168.1.20:8000/``, and its
  socket goes to ``ws://192.168.1.20:8000/`` with that origin.

A socket without an ``Origin`` (or with ``null``) is refused: every browser sends one, and a
client that does not is no page of this site.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from django.conf import settings
from django.http.request import split_domain_port, validate_host

DEFAULT_PORTS = {"http": 80, "https": 443}

Origin = tuple[str, str, int]


def parse_origin(value: str) -> Origin | None:
    """``(scheme, host, port)`` of an http(s) origin, host lowercased and the default port
    filled in; None for anything else (a path, credentials, another scheme, no host)."""
    try:
        parts = urlsplit(value.strip())
        port = parts.port
    except ValueError:  # a port out of range or not a number
        return None
    scheme = parts.scheme.lower()
    if (
        scheme not in DEFAULT_PORTS
        or not parts.hostname
        or parts.username is not None
        or parts.path not in ("", "/")
        or parts.query
        or parts.fragment
    ):
        return None
    return scheme, parts.hostname, port or DEFAULT_PORTS[scheme]


def _header(scope: dict[str, Any], name: bytes) -> str | None:
    values = [value for key, value in scope.get("headers", []) if key.lower() == name]
    if len(values) != 1:  # none, or two that might disagree
        return None
    return bytes(values[0]).decode("latin-1")


def site_origin(scope: dict[str, Any]) -> Origin | None:
    """The origin of this site's pages, for a socket's scope; None when it has none that
    may be served (a Host not in ``ALLOWED_HOSTS``, none at all)."""
    if settings.PUBLIC_URL:
        return parse_origin(settings.PUBLIC_URL)
    host = _header(scope, b"host")
    if host is None:
        return None
    domain, _ = split_domain_port(host)
    if not domain or not validate_host(domain, settings.ALLOWED_HOSTS):
        return None
    scheme = "https" if scope.get("scheme") == "wss" else "http"
    return parse_origin(f"{scheme}://{host}")


def allowed(scope: dict[str, Any]) -> bool:
    origin = _header(scope, b"origin")
    if origin is None:
        return False
    site = site_origin(scope)
    return site is not None and parse_origin(origin) == site


class SameOriginValidator:
    """ASGI middleware for websockets: a socket whose ``Origin`` is not the site's is refused
    (403 on the handshake) before anything else runs."""

    def __init__(self, application: Any) -> None:
        self.application = application

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "websocket" and not allowed(scope):
            # Refused before the handshake (the server answers 403), with nothing else asked
            # of the server: no channel, no session, no database.
            if (await receive())["type"] == "websocket.connect":
                await send({"type": "websocket.close", "code": 1008})
            return
        await self.application(scope, receive, send)
