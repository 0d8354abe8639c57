"""The join link and its QR code, pointing at an address the phones can reach."""

from __future__ import annotations

import re
from functools import lru_cache

import segno
from django.conf import settings
from django.http import HttpRequest
from django.urls import reverse
from django.utils.safestring import SafeString, mark_safe

from tabletop.models import Campaign
from tabletop.network import is_loopback, lan_address, loopback_only

# What a join token is made of (``secrets.token_urlsafe``, at most the column's 64 characters).
TOKEN = re.compile(r"[A-Za-z0-9_-]{1,64}")


def looks_like_token(value: str) -> bool:
    """Whether ``value`` could be a join token. The URL takes any text, and PostgreSQL
    refuses a query holding a NUL byte: anything else is no link, asked of no database."""
    return TOKEN.fullmatch(value) is not None


def public_base(request: HttpRequest) -> str:
    """PUBLIC_URL when set; else the host the GM's browser used; else, when that host is a
    loopback one (a phone cannot open "localhost"), this machine's network address, unless
    the server listens on loopback only (``serve --host 127.0.0.1``): that address would not
    answer, and the link stays what the browser used."""
    if settings.PUBLIC_URL:
        return str(settings.PUBLIC_URL)
    host = request.get_host()
    if is_loopback(host) and not loopback_only():
        lan = lan_address()
        if lan:
            port = request.get_port()
            default = "443" if request.is_secure() else "80"
            host = lan if port == default else f"{lan}:{port}"
    return f"{request.scheme}://{host}"


def join_url(request: HttpRequest, campaign: Campaign) -> str:
    return public_base(request) + reverse("rolls:join", args=[campaign.join_token])


# The console draws the join link's code on every load, and a join link changes only when the
# GM renews it: some 10 ms of segno's work (its mask scores) a page, kept per link instead.
@lru_cache(maxsize=256)
def qr_svg(url: str) -> SafeString:
    # segno escapes nothing it is not given; the URL is ours (base + token of [A-Za-z0-9_-]).
    svg = segno.make(url, error="m").svg_inline(scale=6, border=2, dark="#111", light="#fff", omitsize=True)
    return mark_safe(svg)
