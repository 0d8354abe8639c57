"""The feed as server-sent events: every public entry after a cursor, then each new one as it
is written, for as long as the client listens and its key works.

One stream is one async generator, served by Django's own ASGI handler (``tabletop/asgi.py``
sends ``/api/feed/`` there, so a stream never holds one of the request threads). It joins two
groups on the channel layer: the table's (``rolls.live.publish``, which announces each
committed entry with its number) and its key's (``rolls.bridges.tokens``, which says it was
revoked). The layer only wakes it: what it sends is read from the log, the entries after the
last one it scanned, in order, so an announcement lost on the way (Redis gone a moment) loses
nothing, and an entry is never sent twice. Between entries it sends a comment every
``FEED_KEEPALIVE`` seconds, which also reads its key and the log again: a revoked key stops
there at the latest, and a missed announcement is caught up.

Each read runs on the request's thread and closes its database connection after it: a stream
may stay open for an evening, and should not hold a connection (PostgreSQL's pool) for it.
A process holds at most ``FEED_STREAMS`` streams, ``FEED_STREAMS_PER_TOKEN`` per key; the
count is given back when the stream ends, whether the client left or the key was revoked.
"""

from __future__ import annotations

import asyncio
import json
import logging
import threading
from collections import Counter
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from asgiref.sync import sync_to_async
from channels.layers import get_channel_layer
from django.conf import settings
from django.db import connections, transaction
from django.utils import translation

from rolls.bridges import tokens
from rolls.bridges.events import event_of, included
from rolls.live.publish import table_group
from rolls.models import FeedToken, LogEntry
from tabletop.errors import SERVICE_ERRORS
from tabletop.models import Membership

logger = logging.getLogger(__name__)

# Entries read at a time: a client that resumes from far back gets them in pages.
PAGE = 100
# How long a client waits before it reconnects after the stream ends (the SSE ``retry:`` field).
RETRY_MS = 3000

_open: Counter[int] = Counter()  # open streams of this process, by key
_counting = threading.Lock()  # a stream's place is given back on the loop or on a thread


class Place:
    """A stream's place among those ``admit`` lets open; given back once, whichever of the
    stream's end and its response's close comes first."""

    def __init__(self, token_id: int) -> None:
        self.token_id = token_id
        self.held = True

    def release(self) -> None:
        with _counting:
            if not self.held:
                return
            self.held = False
            _open[self.token_id] -= 1
            if _open[self.token_id] <= 0:
                del _open[self.token_id]


def admit(token_id: int) -> Place | None:
    """A place for a stream of key ``token_id``; None when the process or the key has as many
    open as the settings allow."""
    with _counting:
        if sum(_open.values()) >= settings.FEED_STREAMS or _open[token_id] >= settings.FEED_STREAMS_PER_TOKEN:
            return None
        _open[token_id] += 1
    return Place(token_id)


def open_streams(token_id: int | None = None) -> int:
    """How many streams this process holds open: of one key, or in all."""
    return sum(_open.values()) if token_id is None else _open[token_id]


def off_the_loop[**P, R](function: Callable[P, R]) -> Callable[P, Awaitable[R]]:
    """``function`` run on the request's thread, its database connection closed after it: a
    stream may stay open for an evening, and holds no connection (PostgreSQL's pool) for it."""

    def closing(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return function(*args, **kwargs)
        finally:
            for connection in connections.all(initialized_only=True):
                # Not one inside a transaction it was called in (a test's): that one's owner closes it.
                if transaction.get_autocommit(using=connection.alias):
                    connection.close()

    return sync_to_async(closing, thread_sensitive=True)


@dataclass
class Page:
    """What one read found: the events to send (seq, JSON), how far it read, whether there may
    be more right away, and whether the key still works."""

    events: list[tuple[int, str]] = field(default_factory=list)
    cursor: int = 0
    more: bool = False
    revoked: bool = False


def read_page(token_id: int, campaign_id: int, after: int, base_url: str) -> Page:
    """The events after ``after``, at most ``PAGE`` entries read, as the table display shows
    them, in the table's language; and whether key ``token_id`` was revoked meanwhile."""
    token = FeedToken.objects.select_related("campaign").filter(pk=token_id).first()
    if token is None or not token.active or token.campaign_id != campaign_id:
        return Page(cursor=after, revoked=True)
    campaign = token.campaign
    entries = list(
        LogEntry.objects.filter(campaign_id=campaign_id, seq__gt=after)
        .select_related("roll", "roll__character", "roll__character__campaign", "roll__target")
        .order_by("seq")[:PAGE]
    )
    if not entries:
        return Page(cursor=after)
    players = dict(Membership.objects.filter(campaign_id=campaign_id).values_list("user_id", "display_name"))
    events = []
    with translation.override(campaign.language):
        for entry in entries:
            if included(entry):
                event = event_of(entry, campaign, players, base_url)
                events.append((entry.seq, json.dumps(event, ensure_ascii=False, separators=(",", ":"))))
    return Page(events=events, cursor=entries[-1].seq, more=len(entries) == PAGE)


def frame(seq: int, data: str) -> bytes:
    """One event as SSE sends it: its number for ``Last-Event-ID``, then its JSON (one line)."""
    return f"id: {seq}\ndata: {data}\n\n".encode()


REVOKED = b'event: revoked\ndata: {"version":1}\n\n'
KEEP_ALIVE = b": keep-alive\n\n"


async def events(place: Place, campaign_id: int, after: int, base_url: str) -> AsyncIterator[bytes]:
    """The stream of the key that holds ``place`` on campaign ``campaign_id``, from the entry
    after ``after``. Ends when the key is revoked; the client leaving ends it too (Django
    cancels it), and the place is given back either way."""
    token_id = place.token_id
    read = off_the_loop(read_page)
    layer = get_channel_layer()
    channel = ""
    groups = (table_group(campaign_id), tokens.revoked_group(token_id))
    joined: list[str] = []
    receiving: asyncio.Future[dict[str, Any]] | None = None
    try:
        if layer is not None:
            try:
                channel = await layer.new_channel()
                for group in groups:
                    await layer.group_add(group, channel)
                    joined.append(group)
            except SERVICE_ERRORS as error:
                # Redis gone: the stream still works, from the log, a keep-alive late at worst.
                logger.warning("a feed stream reads the log without the layer: %s", error)
                channel = ""
        yield f"retry: {RETRY_MS}\n\n".encode()
        cursor = after
        while True:
            page = await read(token_id, campaign_id, cursor, base_url)
            if page.revoked:
                yield REVOKED
                return
            for seq, data in page.events:
                yield frame(seq, data)
            cursor = page.cursor
            if page.more:
                continue
            # Wait for the next entry, the key's revocation, or the keep-alive's time (which
            # messages the feed ignores do not put off).
            loop = asyncio.get_running_loop()
            deadline = loop.time() + settings.FEED_KEEPALIVE
            while True:
                if channel and receiving is None:
                    assert layer is not None
                    receiving = asyncio.ensure_future(layer.receive(channel))
                left = max(0.0, deadline - loop.time())
                if receiving is None:
                    await asyncio.sleep(left)
                    done: set[asyncio.Future[dict[str, Any]]] = set()
                else:
                    done, _pending = await asyncio.wait({receiving}, timeout=left)
                if not done:
                    yield KEEP_ALIVE
                    break  # and read: a lost announcement, a revocation not heard
                assert receiving is not None
                message = _taken(receiving)
                receiving = None
                if message is None:
                    channel = ""  # the layer failed: read the log at each keep-alive from now
                    break
                if message.get("type") == "feed.revoked":
                    yield REVOKED
                    return
                if message.get("type") == "table.entry":
                    break
                # Anything else the table's group carries (who is here) is not the feed's.
    finally:
        place.release()
        if receiving is not None:
            receiving.cancel()
        if layer is not None and channel:
            await _leave(layer, channel, joined)


def _taken(receiving: asyncio.Future[dict[str, Any]]) -> dict[str, Any] | None:
    try:
        return receiving.result()
    except SERVICE_ERRORS as error:
        logger.warning("a feed stream lost the layer: %s", error)
        return None


async def _leave(layer: Any, channel: str, groups: list[str]) -> None:
    try:
        for group in groups:
            await layer.group_discard(group, channel)
        discard = getattr(layer, "discard_channel", None)
        if discard is not None:
            await discard(channel)
    except SERVICE_ERRORS as error:  # Redis gone: the memberships expire on their own
        logger.warning("a feed stream could not leave its groups: %s", error)
