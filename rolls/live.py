"""The live side of the log: group names and the broadcasts sent after a write commits."""

from __future__ import annotations

import asyncio
import itertools
import logging
import os
from typing import TYPE_CHECKING

from asgiref.sync import async_to_sync
from channels.layers import BaseChannelLayer, get_channel_layer
from django.db import transaction

from tabletop.request_threads import serving_loop

if TYPE_CHECKING:
    from rolls.models import LogEntry

logger = logging.getLogger(__name__)
_presence_ids = itertools.count(1)


def table_group(campaign_id: int) -> str:
    return f"table-{campaign_id}"


def _send(campaign_id: int, message: dict[str, object]) -> None:
    layer = get_channel_layer()
    if layer is None:
        return
    group = table_group(campaign_id)
    loop = serving_loop()
    if loop is None:
        async_to_sync(layer.group_send)(group, message)
        return
    # On a request thread: the serving loop sends it while the thread goes on with the
    # response. Waiting cost the thread a trip to the loop, and at times a wait behind the
    # loop's other work. A send that lands after a later one loses nothing: sockets catch up
    # by sequence number.
    loop.call_soon_threadsafe(_start_sending, layer, group, message)


_sending: set[asyncio.Task[None]] = set()


def _start_sending(layer: BaseChannelLayer, group: str, message: dict[str, object]) -> None:
    task = asyncio.ensure_future(layer.group_send(group, message))
    _sending.add(task)  # held until done: the loop keeps only a weak reference
    task.add_done_callback(_sent)


def _sent(task: asyncio.Task[None]) -> None:
    _sending.discard(task)
    if not task.cancelled() and (error := task.exception()) is not None:
        logger.error("a broadcast could not be sent", exc_info=error)


def broadcast_entry(entry: LogEntry) -> None:
    """Tell every socket of the table that ``entry`` exists, once it is committed.

    The number travels, with the markup that anyone who may not act on the entry sees (a
    secret roll's without its dice); each socket sends that, or renders the entry for its own
    user, so a secret roll never leaves the server for a player."""
    transaction.on_commit(lambda: _announce(entry))


def _announce(entry: LogEntry) -> None:
    # The writer holds the entry: it renders the markup most sockets of the table will send,
    # once, before they ask for it.
    from rolls.feed import prepare_entry

    message: dict[str, object] = {"type": "table.entry", "seq": entry.seq}
    try:
        shared = prepare_entry(entry)
    except Exception:  # the sockets render it themselves; the broadcast must go out
        logger.exception("could not prepare entry %s of campaign %s", entry.seq, entry.campaign_id)
    else:
        if shared is not None:
            # What every member who may not act on it sees, so the sockets of every process
            # (several workers, over Redis) send it without reading and rendering it again.
            message["shared"] = shared
    _send(entry.campaign_id, message)


def presence_message() -> dict[str, object]:
    """Someone came or went. The id lets the sockets of one process render the list once."""
    return {"type": "table.presence", "id": f"{os.getpid()}-{next(_presence_ids)}"}


def broadcast_presence(campaign_id: int) -> None:
    _send(campaign_id, presence_message())
