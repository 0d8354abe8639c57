"""The live side of the log: group names and the broadcasts sent after a write commits."""

from __future__ import annotations

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.db import transaction


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
    transaction.on_commit(lambda: _send(campaign_id, {"type": "table.entry", "seq": seq}))


def broadcast_presence(campaign_id: int) -> None:
    _send(campaign_id, {"type": "table.presence"})
