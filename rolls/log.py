"""The roll log, append-only: every entry gets the campaign's next sequence number, and is
published to the table once its transaction commits.

The log does not draw: ``rolls.live.publish`` hands the committed entry to the live side,
which renders it for each audience and sends it to the sockets.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from django.db import connection, transaction

from rolls import live
from rolls.events import TableEvent
from rolls.models import LogEntry, Roll
from tabletop.models import Campaign
from tabletop.serving.compiled_query import CompiledInsert

# Written on every roll and follow-up: compiled once (tabletop/serving/compiled_query.py).
_NEW_ENTRY = CompiledInsert(LogEntry)


def append_entry(
    *,
    campaign_id: int,
    kind: str,
    action: str,
    actor: AbstractBaseUser | None,
    roll: Roll | None = None,
    state: dict[str, Any] | None = None,
    text: str = "",
) -> LogEntry:
    """Append one entry with the next sequence number. Call inside a transaction: the UPDATE
    locks the campaign row until commit, so sequence numbers never repeat or skip."""
    seq = _next_seq(campaign_id)
    entry = _NEW_ENTRY.create(
        campaign_id=campaign_id,
        seq=seq,
        kind=kind,
        action=action,
        actor=actor,
        roll=roll,
        state=state,
        text=text,
    )
    if roll is not None:
        roll.last_entry = entry
    transaction.on_commit(lambda: live.publish(entry))
    return entry


def _next_seq(campaign_id: int) -> int:
    """Take the campaign's next sequence number: one UPDATE ... RETURNING (SQLite 3.35+ and
    PostgreSQL), where the ORM would need an UPDATE and a SELECT on every roll."""
    table = connection.ops.quote_name(Campaign._meta.db_table)
    with connection.cursor() as cursor:
        cursor.execute(
            f"UPDATE {table} SET last_seq = last_seq + 1 WHERE id = %s RETURNING last_seq",
            [campaign_id],
        )
        row = cursor.fetchone()
    if row is None:
        raise Campaign.DoesNotExist(f"No campaign {campaign_id}.")
    return int(row[0])


def append_event(
    *, campaign_id: int, event: TableEvent, actor: AbstractBaseUser | None, text: str
) -> LogEntry:
    """Append a table event (call inside a transaction)."""
    return append_entry(
        campaign_id=campaign_id, kind=LogEntry.Kind.EVENT, action=event, actor=actor, text=text
    )
