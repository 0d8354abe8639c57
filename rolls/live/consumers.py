"""The live table: one socket per open campaign page.

The page says which sequence number it has seen last (``{"since": N}``, sent on every
(re)connect); the consumer answers with every entry after it, in order, then forwards each
new entry once. Entries are rendered here, for this socket's user, so a roll only reaches
the people allowed to see it and follow-up buttons only the people allowed to press them.

A roll reaches every socket of its table at once, and for a plain roll all of them send the
same markup: the sockets of one process share one rendering of it (``rolls.live.feed.shared_since``)
and one of each presence list, so a plain roll costs the sockets no database read at all; only
those a follow-up or a panel concerns read and render for themselves.
"""

from __future__ import annotations

import asyncio
import json
import logging
import weakref
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Any, cast
from urllib.parse import parse_qs

from asgiref.typing import ASGISendEvent
from channels.generic.websocket import AsyncWebsocketConsumer
from channels.layers import get_channel_layer
from django.conf import settings
from django.contrib.auth.models import User
from django.template.loader import render_to_string
from django.utils import translation
from redis.exceptions import RedisError

from rolls.live.coalesce import Throttle, told
from rolls.live.feed import Drawn, is_stored, prepare_shared, receive_shared, render_since, shared_since
from rolls.live.publish import presence_message, table_group
from rolls.sight import answers
from tabletop import presence
from tabletop.access import MAX_ID, membership_or_none
from tabletop.errors import SERVICE_ERRORS
from tabletop.models import Membership
from tabletop.serving.consumer import KeptConnectionDispatch, database

logger = logging.getLogger(__name__)

# Close codes the page knows: do not reconnect on these.
NOT_A_MEMBER = 4403
# A service the socket needs is gone (Redis, the database): the page reconnects.
TRY_AGAIN_LATER = 1013
# The page reconnects after these (static/js/table.js).
TOO_BIG = 1009
INTERNAL_ERROR = 1011
# The page sends nothing but ``{"since": N}`` (static/js/table.js): a frame longer than this is
# not one, and is refused before it is parsed at all (a frame of nested brackets makes
# json.loads raise RecursionError; a long one only costs time).
MAX_FRAME = 256


class TableConsumer(KeptConnectionDispatch, AsyncWebsocketConsumer):
    membership: Membership | None = None
    result_for: int | None = None  # the character whose roll screen this is (its result panel)
    roster: bool = False  # the campaign page: it lists the member's characters and their resources
    last_sent: int = -1  # -1: the page has not said where it is yet
    removed: bool = False  # the GM removed this member: closed, and nothing more is sent
    left: bool = False  # out of the group and the presence list (once, however it closed)
    newest_at_connect: int | None = None  # the campaign's last seq when this socket joined its group
    heard: int = 0  # the newest entry broadcast to it before the page said where it stands
    presence_id: str | None = None  # the latest presence broadcast this socket heard of
    presence_sends: Throttle | None = None  # its page gets a list at most once an interval
    drawn: Drawn  # what its page shows, as the batches sent drew it (set on connect)
    # The table's language when the socket joined, which everything it draws is drawn in; once
    # the GM changes it, the page is told to draw itself again (``_read_since``).
    language: str = settings.LANGUAGE_CODE

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        closed = False

        async def send_unless_gone(message: ASGISendEvent) -> None:
            nonlocal closed
            # Once this socket is closed, the server refuses anything more (uvicorn raises
            # RuntimeError), and a broadcast can still be handled after our own close, before
            # the disconnect arrives: it has nobody to go to.
            if closed:
                return
            if message["type"] == "websocket.close":
                closed = True
            try:
                await send(message)
            except OSError:
                # A phone that leaves while something is being sent to it makes the server
                # raise (uvicorn: ClientDisconnected, an OSError). The disconnect that follows
                # cleans up.
                logger.debug("dropped %s for a socket that is gone", message["type"])
            except RuntimeError:
                # The server closed the socket itself (a frame over its cap, a ping left
                # unanswered) and refuses what comes after its close; its disconnect follows.
                logger.debug("dropped %s for a socket the server closed", message["type"])
            else:
                sent.add(message["type"])

        sent: set[str] = set()
        try:
            await super().__call__(scope, receive, send_unless_gone)
        except SERVICE_ERRORS as error:
            # Redis (the channel layer) or the database went away under this socket. Close it
            # with "try again later", which the page reconnects on by itself, rather than die
            # without a close frame (or, before the handshake, with an HTTP 500); the new
            # socket joins its group again once the service is back, and catches up.
            logger.warning("socket closed, a service is gone: %s", error)
            if isinstance(error, RedisError):
                _close_all_open(but=self)
            if "websocket.close" not in sent:
                if "websocket.accept" not in sent:
                    await send_unless_gone({"type": "websocket.accept", "subprotocol": None, "headers": []})
                await send_unless_gone({"type": "websocket.close", "code": TRY_AGAIN_LATER, "reason": ""})
            try:
                await self._leave()
            except SERVICE_ERRORS as again:  # the database too: the heartbeat tidies up later
                logger.warning("could not leave the table: %s", again)
        except Exception:
            # Left alone, a failure in a handler ends the consumer before disconnect() runs:
            # the member stays "at the table" (this process's heartbeat keeps the row) and the
            # socket in its group. Close it (the page reconnects) and leave the table.
            logger.exception("a socket of campaign %s failed", getattr(self, "campaign_id", "?"))
            await send_unless_gone({"type": "websocket.close", "code": INTERNAL_ERROR, "reason": None})
            await self._leave()

    async def connect(self) -> None:
        self.campaign_id = int(self.scope["url_route"]["kwargs"]["campaign_id"])
        self.result_for = _result_for(self.scope.get("query_string", b""))
        self.roster = _roster(self.scope.get("query_string", b""))
        self.drawn = Drawn()
        # In the group before the membership (and the campaign's last seq) is read: an entry
        # committed after that read is heard here (``table_entry``), one before it is counted.
        self.group = table_group(self.campaign_id)
        await self.channel_layer.group_add(self.group, self.channel_name)
        # The membership and, for a member, the presence row, in one trip to the database
        # thread: each trip costs the loop a future, a thread switch and a wake-up
        # (bench/connect_cpu.py, with the compiled read below: 3.7 -> 2.3 ms of CPU a connect).
        membership = await database(self._arrive)()
        if membership is None:
            await self.channel_layer.group_discard(self.group, self.channel_name)
            await self.close(code=NOT_A_MEMBER)
            return
        self.membership = membership
        self.newest_at_connect = membership.campaign.last_seq
        self.language = membership.campaign.language
        await self.accept()
        _open_sockets.add(self)
        _keep_beating()
        # Told with this interval's other comings and goings: one list for a table that fills.
        told(self.campaign_id, _tell_presence)

    async def disconnect(self, code: int) -> None:
        await self._leave()

    async def _leave(self) -> None:
        if self.membership is None or self.left:
            return
        self.left = True
        _open_sockets.discard(self)
        if self.presence_sends is not None:
            self.presence_sends.cancel()
        try:
            await self.channel_layer.group_discard(self.group, self.channel_name)
        except SERVICE_ERRORS as error:  # Redis gone: the group went with it, or expires
            logger.warning("could not leave the table's group: %s", error)
        finally:
            # Whatever failed above, the member leaves the table.
            await self._absent()
        # The embedded default's layer (tabletop.serving.channel_layer) can drop what was sent
        # to this socket while it closed, rather than keep it until it expires.
        discard = getattr(self.channel_layer, "discard_channel", None)
        if discard is not None:
            await discard(self.channel_name)

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        """Only ``{"since": N}`` is understood; a frame too long to be one closes the socket,
        anything else is ignored."""
        if len(text_data or bytes_data or "") > MAX_FRAME:
            await self.close(code=TOO_BIG)
            return
        if text_data is None:
            return
        try:
            message = json.loads(text_data)
            since = message["since"]
        except (ValueError, TypeError, KeyError, RecursionError):
            return
        if not isinstance(since, int) or isinstance(since, bool) or not 0 <= since <= MAX_ID:
            return
        if self.removed:
            return
        newest = self.newest_at_connect
        if self.last_sent < 0 and not self.heard and newest is not None and since >= newest:
            # A page that has everything (the usual reconnect): nothing to read or send.
            self.last_sent = since
            return
        # Two reconnects racing can make a page say "since" twice on one socket: what this
        # socket has sent already is not sent again (the page would show it twice).
        await self._send_since(max(since, self.last_sent))

    async def table_entry(self, event: dict[str, Any]) -> None:
        if self.removed:
            return
        if self.last_sent < 0:
            # Not synced yet: the page's "since" answer will include this committed entry.
            self.heard = max(self.heard, event["seq"])
            return
        if "shared" in event:
            receive_shared(self.campaign_id, event["seq"], event["shared"])
        if "answer" in event:
            answers.receive(self.campaign_id, event["seq"], event["answer"])
        if event["seq"] <= self.last_sent:
            return
        # Read from where this socket stands, so a lost message leaves no gap.
        await self._send_since(self.last_sent, until=event["seq"])

    async def table_presence(self, event: dict[str, Any]) -> None:
        """Someone came or went: the list goes to the page at once after a quiet spell,
        otherwise once at the end of the interval (``rolls.live.coalesce``), as it is then."""
        if self.removed:
            return
        self.presence_id = event.get("id")
        if self.presence_sends is None:
            self.presence_sends = Throttle(self._send_presence_later)
        if self.presence_sends.poke():
            await self._send_presence()

    async def _send_presence_later(self) -> None:
        """The same, at the end of an interval: outside any handler, so a failure closes the
        socket here as ``__call__`` would (the page reconnects) and the member leaves."""
        try:
            await self._send_presence()
        except SERVICE_ERRORS as error:
            logger.warning("socket closed, a service is gone: %s", error)
            await self.close(code=TRY_AGAIN_LATER)
            await self._leave()
        except Exception:
            logger.exception("a socket of campaign %s failed", self.campaign_id)
            await self.close(code=INTERNAL_ERROR)
            await self._leave()

    async def _send_presence(self) -> None:
        if self.removed or self.left:
            return
        if self.presence_id is not None:
            # Rendered once for every socket of this process that heard of this change.
            key = ("presence", self.campaign_id, self.presence_id)
            html = await _once(key, _render_presence, self.campaign_id, self.language, keep=True)
        else:
            html = await database(_render_presence)(self.campaign_id, self.language)
        await self.send(text_data=html)

    async def _send_since(self, since: int, until: int | None = None) -> None:
        if until is not None:
            batch = await self._shared_since(since, until)
            if batch is not None:
                html, last = batch
                self.last_sent = max(last, since)
                await self.send(text_data=html)
                return
        # Read afresh for every batch: a member the GM removed gets nothing more, and the
        # campaign (its Mystery, for the status line) is as it is now, not as it was at connect.
        batch = await database(self._read_since)(since)
        if batch is None:
            self.removed = True  # nothing more is sent, whatever is still on its way
            await self._turned_away()
            return
        html, last = batch
        self.last_sent = max(last, since)
        if html:
            await self.send(text_data=html)

    async def _turned_away(self) -> None:
        """Removed by the GM: leave the table's group and close, once."""
        await self.channel_layer.group_discard(self.group, self.channel_name)
        await self.close(code=NOT_A_MEMBER)

    def _stored(self, since: int, until: int) -> tuple[str, int] | None:
        """The batch from the shared markup alone, when stored and all this socket needs."""
        assert self.membership is not None
        return shared_since(self.membership, since, until, self.result_for, self.roster, self.drawn)

    def _may_share(self) -> bool:
        return self.membership is not None

    async def _shared_since(self, since: int, until: int) -> tuple[str, int] | None:
        """The batch from the markup this process's sockets share, when it is all this
        socket needs (``_stored``); None when it must read for itself."""
        if not self._may_share():
            return None
        batch = self._stored(since, until)
        if batch is None and not is_stored(self.campaign_id, since, until):
            # Usually rendered already by the writer, when it runs in this process.
            try:
                await _once(
                    ("entries", self.campaign_id, until),
                    _prepare_shared,
                    self.language,
                    self.campaign_id,
                    since,
                    until,
                )
            except Exception:  # the long way below reads and renders it all again
                logger.exception(
                    "could not prepare entries %s-%s of campaign %s", since, until, self.campaign_id
                )
                return None
            batch = self._stored(since, until)
        return batch

    def _find_membership(self) -> Membership | None:
        user = self.scope.get("user")
        if user is None:
            return None
        # The pages' compiled read (tabletop.access): the ORM's compiling of this query was
        # two thirds of a connect's read of its membership. The user is Channels' lazy one,
        # resolved by its AuthMiddleware before the consumer runs.
        return membership_or_none(cast(User, user), self.campaign_id)

    def _arrive(self) -> Membership | None:
        """The membership, and for a member the presence row written (the table is told
        after the accept); None for anyone else, who is written nowhere."""
        membership = self._find_membership()
        if membership is not None:
            # Known before the row is written: should the INSERT fail (the database gone), the
            # socket leaves its group and the table (``_leave``) as it did when the two were
            # separate trips, and the heartbeat does not write back a row for it.
            self.membership = membership
            presence.arrive(
                channel_name=self.channel_name, campaign_id=self.campaign_id, user_id=membership.user_id
            )
        return membership

    def _read_since(self, since: int) -> tuple[str, int] | None:
        """This member's batch after ``since``, read with the membership in one trip to the
        database; None when they are no longer a member."""
        membership = self._find_membership()
        if membership is None:
            return None
        if membership.campaign.language != self.language:
            return language_changed(since)
        with translation.override(self.language):
            return render_since(membership, since, self.result_for, self.roster, self.drawn)

    async def _absent(self) -> None:
        assert self.membership is not None
        await database(presence.leave)(channel_name=self.channel_name)
        # Told with this interval's other comings and goings: one list for a table that fills.
        told(self.campaign_id, _tell_presence)


async def _tell_presence(campaign_id: int) -> None:
    layer = get_channel_layer()
    if layer is None:
        return
    try:
        await layer.group_send(table_group(campaign_id), presence_message())
    except SERVICE_ERRORS as error:  # the others' lists catch up when they reconnect
        logger.warning("could not tell the table who is here: %s", error)


# This process's open sockets. When Redis goes away under one, it went away under all: a
# Redis that comes back has lost the groups, and a socket that did not notice (Redis back
# before its turn to read) would stay open and hear nothing. All of them reconnect.
_open_sockets: weakref.WeakSet[TableConsumer] = weakref.WeakSet()


_closing: set[asyncio.Task[None]] = set()  # held until done: the loop keeps weak references


def _close_all_open(*, but: TableConsumer) -> None:
    for consumer in list(_open_sockets):
        if consumer is not but:
            _open_sockets.discard(consumer)
            task = asyncio.ensure_future(consumer.close(code=TRY_AGAIN_LATER))
            _closing.add(task)
            task.add_done_callback(_closing.discard)


def _result_for(query_string: bytes) -> int | None:
    """``?character=N`` from a roll screen's socket; anything else is no character."""
    values = parse_qs(query_string.decode("latin-1")).get("character", [])
    if len(values) == 1 and values[0].isdecimal() and 0 < int(values[0]) <= MAX_ID:
        return int(values[0])
    return None


def _roster(query_string: bytes) -> bool:
    """``?roster=1`` from a campaign page's socket: the page lists the member's characters."""
    return parse_qs(query_string.decode("latin-1")).get("roster") == ["1"]


def language_changed(since: int) -> tuple[str, int]:
    """The batch of a socket whose table changed its language (an event the GM writes): the
    page draws itself again, in the new one, and its new socket catches up from there. Nothing
    is counted as sent: the reloaded page says where it stands."""
    return render_to_string("rolls/_reload.html"), since


def _prepare_shared(language: str, campaign_id: int, since: int, until: int) -> None:
    """``prepare_shared`` in the table's language: the markup every socket of it shares."""
    with translation.override(language):
        prepare_shared(campaign_id, since, until)


def _render_presence(campaign_id: int, language: str) -> str:
    with translation.override(language):
        return render_to_string("rolls/_presence.html", {"present": presence.present(campaign_id)})


# -- the heartbeat of this process's presence rows (tabletop/presence.py) ---------------------------

_heartbeats: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Task[None]] = (
    weakref.WeakKeyDictionary()
)


def _keep_beating() -> None:
    """Start this event loop's heartbeat with its first socket (a loop serves every socket of
    the process: one heartbeat each)."""
    loop = asyncio.get_running_loop()
    task = _heartbeats.get(loop)
    if task is None or task.done():
        _heartbeats[loop] = loop.create_task(_heartbeat(), name="presence heartbeat")


async def _heartbeat() -> None:
    layer = get_channel_layer()
    while True:
        await asyncio.sleep(presence.BEAT_SECONDS)
        try:
            changed = await database(presence.beat)()
            for campaign_id in changed:
                if layer is not None:
                    told(campaign_id, _tell_presence)
        except Exception:  # the next beat tries again; a missed one only delays a list
            logger.exception("presence heartbeat failed")


# -- work the sockets of one process share ---------------------------------------------------------

_running: dict[Hashable, asyncio.Future[Any]] = {}
_done: OrderedDict[Hashable, Any] = OrderedDict()
DONE_KEPT = 512


async def _once(key: Hashable, function: Callable[..., Any], *args: Any, keep: bool = False) -> Any:
    """``function(*args)`` in the database thread, run once for all the sockets of this
    process that ask with the same ``key`` while it runs (and, with ``keep``, for those that
    ask a little later: the last few results are kept)."""
    if keep and key in _done:
        return _done[key]
    loop = asyncio.get_running_loop()
    task = _running.get(key)
    if task is None or task.get_loop() is not loop:
        task = asyncio.ensure_future(database(function)(*args))
        _running[key] = task

        def finished(done: asyncio.Future[Any]) -> None:
            if _running.get(key) is done:
                del _running[key]
            if keep and not done.cancelled() and done.exception() is None:
                _done[key] = done.result()
                while len(_done) > DONE_KEPT:
                    _done.popitem(last=False)

        task.add_done_callback(finished)
    # A socket that closes while waiting must not cancel the work for the others.
    return await asyncio.shield(task)
