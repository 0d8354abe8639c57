"""The live side of the log: a committed entry is published here, rendered once for the
table (``rolls.live.feed``) and broadcast to every socket of its campaign, which send it or render
it for their own member (``rolls.live.consumers``)."""

from __future__ import annotations

import asyncio
import itertools
import logging
import os
from typing import TYPE_CHECKING

from asgiref.sync import async_to_sync
from channels.layers import BaseChannelLayer, get_channel_layer

from rolls.live.feed import prepare_entry
from rolls.sight import answers
from tabletop.errors import SERVICE_ERRORS
from tabletop.serving.request_threads import serving_loop

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
        # After the commit: the entry is written, and the request that wrote it is answered
        # as done. A table that missed the broadcast (Redis gone) reads it when its pages
        # reconnect, from where each stands.
        try:
            async_to_sync(layer.group_send)(group, message)
        except SERVICE_ERRORS as error:
            logger.warning("a broadcast to %s could not be sent: %s", group, error)
        return
    # On a request thread: the serving loop sends it while the thread goes on with the
    # response. Waiting cost the thread a trip to the loop, and at times a wait behind the
    # loop's other work. The loop sends them one after another, in the order the thread
    # handed them over: over Redis, sends running side by side could land out of order, and a
    # socket that sees entry N+1 before N reads and renders the gap itself.
    loop.call_soon_threadsafe(_send_in_turn, loop, layer, group, message)


# Per serving loop, the send the next one waits for (gone once it is done and no other follows).
_last_send: dict[asyncio.AbstractEventLoop, asyncio.Task[None]] = {}


def _send_in_turn(
    loop: asyncio.AbstractEventLoop, layer: BaseChannelLayer, group: str, message: dict[str, object]
) -> None:
    task = loop.create_task(_send_after(_last_send.get(loop), layer, group, message))
    _last_send[loop] = task  # also holds it until done: the loop keeps only a weak reference
    task.add_done_callback(lambda done: _sent(loop, done))


async def _send_after(
    previous: asyncio.Task[None] | None, layer: BaseChannelLayer, group: str, message: dict[str, object]
) -> None:
    if previous is not None:
        await asyncio.wait([previous])  # its turn first, however it ends
    await layer.group_send(group, message)


def _sent(loop: asyncio.AbstractEventLoop, task: asyncio.Task[None]) -> None:
    if _last_send.get(loop) is task:
        del _last_send[loop]
    if task.cancelled() or (error := task.exception()) is None:
        return
    if isinstance(error, SERVICE_ERRORS):  # Redis gone: expected, and said once per broadcast
        logger.warning("a broadcast could not be sent: %s", error)
    else:
        logger.error("a broadcast could not be sent", exc_info=error)


def publish(entry: LogEntry) -> None:
    """Tell every socket of the table that ``entry`` exists; called once it is committed.

    The number travels, with the markup the table shares (a secret roll's without its dice);
    each socket sends that, or renders the entry for its own member, so a secret roll never
    leaves the server for a player. The writer renders the shared markup once, from the
    objects it holds, before any socket asks for it."""
    message: dict[str, object] = {"type": "table.entry", "seq": entry.seq}
    # Drawn in the writer's active language, which is the table's: a request under the
    # campaign has it active (tabletop/language.py), and so do the services and commands that
    # write outside one (``rolls.campaigns.services.member_join``, the demo).
    try:
        shared = prepare_entry(entry)
        # Drawn after the shared markup, which it leaves as it is: so the asker's sockets
        # have it when they hear of the entry, as its answer does (``rolls.sight.answers``).
        answer = answers.prepare(entry) if shared is not None else None
    except Exception:  # the sockets render it themselves; the broadcast must go out
        logger.exception("could not prepare entry %s of campaign %s", entry.seq, entry.campaign_id)
    else:
        if shared is not None:
            # So the sockets of every process (several workers, over Redis) send it without
            # reading and rendering it again.
            message["shared"] = shared
        if answer is not None:
            message["answer"] = answer
    _send(entry.campaign_id, message)


def on_entry_committed(sender: object, *, entry: LogEntry, **kwargs: object) -> None:
    """The receiver of ``rolls.log.append.entry_committed``, connected by ``RollsConfig.ready``."""
    publish(entry)


def presence_message() -> dict[str, object]:
    """Someone came or went. The id lets the sockets of one process render the list once."""
    return {"type": "table.presence", "id": f"{os.getpid()}-{next(_presence_ids)}"}


def broadcast_presence(campaign_id: int) -> None:
    _send(campaign_id, presence_message())
