"""Who is at the table: one row per open socket, kept alive by its server's heartbeat.

A socket's row is written when it connects and removed when it closes. A server that stops
without closing its sockets (a crash, a killed worker, a laptop lid shut) cannot remove its
rows, and with several workers the others cannot tell its rows from live ones. So each
serving process marks its rows as seen every ``BEAT_SECONDS`` (one UPDATE), and a row not seen
for ``STALE_SECONDS`` belongs to a server that is gone: it is not counted, and the next
heartbeat of any live server deletes it and tells the tables concerned.
"""

from __future__ import annotations

import os
import secrets
import socket
import threading
from datetime import datetime, timedelta

from django.db import models
from django.db.models import OuterRef, Subquery
from django.utils import timezone

from tabletop.models import Membership, Presence
from tabletop.serving.compiled_query import CompiledDelete, CompiledInsert, CompiledList

# This process, as its presence rows name it.
SERVER = f"{socket.gethostname()}-{os.getpid()}-{secrets.token_hex(3)}"[:100]
BEAT_SECONDS = 20.0
# A table hears who is at it at most once in this many seconds (``rolls.live.coalesce``).
COALESCE_SECONDS = 1.0
# Three heartbeats missed: the server is gone (a busy one still beats: it is one UPDATE).
STALE_SECONDS = 3 * BEAT_SECONDS


def _fresh_since() -> datetime:
    return timezone.now() - timedelta(seconds=STALE_SECONDS)


# This process's open sockets: channel name -> (campaign, user). A server whose heartbeat was
# late enough for another to delete its rows writes them again on its next beat.
_open: dict[str, tuple[int, int]] = {}
_lock = threading.Lock()


def arrive(*, channel_name: str, campaign_id: int, user_id: int) -> None:
    with _lock:
        _open[channel_name] = (campaign_id, user_id)
    # One INSERT: a channel name is new with each socket. This server's heartbeat may have
    # written the row already (it writes back what ``_open`` holds), with these same values.
    _ARRIVE.create(
        channel_name=channel_name,
        campaign_id=campaign_id,
        user_id=user_id,
        server=SERVER,
        seen=timezone.now(),
    )


def leave(*, channel_name: str) -> None:
    with _lock:
        _open.pop(channel_name, None)
    _LEAVE.delete(channel_name=channel_name)


# Written and deleted with every socket: compiled once (tabletop/serving/compiled_query.py).
# Through the ORM, bulk_create's transaction and delete()'s collector cost more than the
# statements (bench/connect_cpu.py, 2026-12-02: a connect's CPU 2.0 -> 1.7 ms).
_ARRIVE = CompiledInsert(Presence, ignore_conflicts=True)
_LEAVE = CompiledDelete(
    lambda channel_name: Presence.objects.filter(channel_name=channel_name), channel_name=str
)


# Read for every change of who is at a table, which a restart makes for every table at once
# (1,200 arrivals, bench/restart.py): the campaign's members, each with the newest heartbeat of
# their sockets on it (None: none open), in one compiled read with one instance a member. Two
# reads (the sockets, then the members) made twice the instances: 0.44-0.51 ms against 0.17.
# The freshness is compared here: a compiled read takes ids and strings, not a time (one ORM
# query with the time in it took 0.86 ms).
_MEMBERS_SEEN = CompiledList(
    lambda campaign_id: Membership.objects.filter(campaign_id=campaign_id).annotate(
        last_seen=Subquery(
            Presence.objects.filter(campaign_id=OuterRef("campaign_id"), user_id=OuterRef("user_id"))
            .order_by("-seen")
            .values("seen")[:1]
        )
    ),
    "campaign_id",
    annotations={"last_seen": models.DateTimeField()},
)


def present(campaign_id: int) -> list[Membership]:
    """The members with a page open on the campaign now, GM first."""
    fresh = _fresh_since()
    return [
        member
        for member in _MEMBERS_SEEN.all(campaign_id=campaign_id)
        if member.last_seen is not None and member.last_seen >= fresh  # type: ignore[attr-defined]
    ]


def beat() -> set[int]:
    """Mark this server's rows as seen (writing again any that another server deleted), and
    delete the rows of servers that stopped beating. Returns the campaigns whose list of who
    is at the table changed."""
    now = timezone.now()
    with _lock:
        mine = dict(_open)
    Presence.objects.filter(server=SERVER).update(seen=now)
    kept = set(Presence.objects.filter(server=SERVER).values_list("channel_name", flat=True))
    missing = [
        Presence(channel_name=name, campaign_id=campaign_id, user_id=user_id, server=SERVER, seen=now)
        for name, (campaign_id, user_id) in mine.items()
        if name not in kept
    ]
    Presence.objects.bulk_create(missing, ignore_conflicts=True)
    stale = Presence.objects.filter(seen__lt=_fresh_since())
    changed = set(stale.values_list("campaign_id", flat=True))
    if changed:
        stale.delete()
    return changed | {row.campaign_id for row in missing}
