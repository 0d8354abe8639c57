"""The live side of the log: group names and the broadcasts sent after a write commits."""

from __future__ import annotations

import itertools
import logging
import os

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.db import transaction

logger = logging.getLogger(__name__)
_presence_ids = itertools.count(1)


def table_group(campaign_id: int) -> str:
    return f"table-{campaign_id}"


def _send(campaign_id: int, message: dict[str, object]) -> None:
    layer = get_channel_layer()
    if layer is not None:
        async_to_sync(layer.group_send)(table_group(campaign_id), message)


def broadcast_entry(campaign_id: int, seq: int) -> None:
    """Tell every socket of the table that entry ``seq`` exists, once it is committed.

    Only the number travels: each socket reads the entry and renders it for its own user, so
    a secret roll never leaves the server for a player."""
    transaction.on_commit(lambda: _announce(campaign_id, seq))


def _announce(campaign_id: int, seq: int) -> None:
    # The writer has the database at hand: it renders the markup most sockets of the table
    # will send, once, before they ask for it (in this process; another reads its own).
    from rolls.feed import prepare_shared

    try:
        prepare_shared(campaign_id, seq - 1, seq)
    except Exception:  # the sockets render it themselves; the broadcast must go out
        logger.exception("could not prepare entry %s of campaign %s", seq, campaign_id)
    _send(campaign_id, {"type": "table.entry", "seq": seq})


def presence_message() -> dict[str, object]:
    """Someone came or went. The id lets the sockets of one process render the list once."""
    return {"type": "table.presence", "id": f"{os.getpid()}-{next(_presence_ids)}"}


def broadcast_presence(campaign_id: int) -> None:
    _send(campaign_id, presence_message())
