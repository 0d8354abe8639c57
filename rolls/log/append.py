"""The roll log, append-only: every entry gets the campaign's next sequence number, and is
published to the table once its transaction commits.

The log does not draw: it announces each committed entry (``entry_committed``), and the live
side, which listens from start-up (``RollsConfig.ready``), renders it for each audience and
sends it to the sockets. Importing a write never loads the renderer.
"""

from __future__ import annotations

from functools import cache
from typing import Any, NamedTuple

from django.contrib.auth.models import AbstractBaseUser
from django.db import DEFAULT_DB_ALIAS, connection, transaction
from django.dispatch import Signal
from django.utils import timezone

from rolls.log import chain
from rolls.log.content import roll_about
from rolls.log.events import TableEvent
from rolls.models import LogEntry, Roll
from tabletop.models import Campaign
from tabletop.serving import driver
from tabletop.serving.compiled_query import CompiledInsert

# Sent with ``entry`` once the transaction that wrote it has committed, never before: a socket
# must not hear of an entry that a rollback could still take away.
entry_committed = Signal(use_caching=True)

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
    dice: dict[str, Any] | None = None,
    place: Place | None = None,
    key: str | None = None,
) -> LogEntry:
    """Append one entry with the next sequence number, chained to the one before. Call inside
    a transaction: the UPDATE locks the campaign row until commit, so sequence numbers never
    repeat or skip and each entry chains to the one written just before it. ``place``: the
    number taken by ``reserve`` in this transaction, when the dice needed it first. ``key``:
    the one-time key of the request that wrote it (``rolls.log.resent``)."""
    seq, previous, posts = place if place is not None else reserve(campaign_id)
    created = timezone.now()
    # Every entry gets its salt (a hidden one is not told apart by having one), and a roll's
    # first entry the roll's facts, so what a page shows of the roll is chained with it.
    salt = chain.new_salt()
    about = roll_about(roll) if roll is not None and kind == LogEntry.Kind.ROLL else None
    digest = chain.digest(
        chain.content(
            campaign=campaign_id,
            seq=seq,
            kind=kind,
            action=action,
            roll=roll.pk if roll is not None else None,
            actor=actor.pk if actor is not None else None,
            state=state,
            text=text,
            created=chain.timestamp(created),
            dice=dice,
            salt=salt,
            about=about,
        )
    )
    entry = _NEW_ENTRY.create(
        campaign_id=campaign_id,
        seq=seq,
        kind=kind,
        action=action,
        actor=actor,
        roll=roll,
        state=state,
        text=text,
        created=created,
        dice=dice,
        salt=salt,
        key=key,
        hash=chain.link(previous, digest),
    )
    _set_last_hash(campaign_id, entry.hash)
    entry.posts = posts
    if roll is not None:
        roll.last_entry = entry
    transaction.on_commit(lambda: entry_committed.send(sender=LogEntry, entry=entry))
    return entry


class Place(NamedTuple):
    """A sequence number taken for an entry not written yet, and the hash it will follow."""

    seq: int
    previous: str
    # The campaign posts its entries to Discord (``Campaign.discord``): read by the same
    # statement, so the poster is woken on commit (rolls/discord/) at no cost to a table
    # without a webhook.
    posts: bool = False


def reserve(campaign_id: int) -> Place:
    """Take the campaign's next sequence number now, for an entry appended later in this
    transaction: the app's dice are drawn from it (``rolls/log/fairdice.py``), so a roll takes it
    just before rolling. It locks the campaign row until commit, so call it after every other
    lock the write takes (the campaign comes last) and keep what follows short."""
    return Place(*_next_seq(campaign_id))


def _next_seq(campaign_id: int) -> tuple[int, str, bool]:
    """Take the campaign's next sequence number and the hash of the entry before it: one
    UPDATE ... RETURNING (SQLite 3.35+ and PostgreSQL), where the ORM would need an UPDATE
    and a SELECT on every roll. The hash comes from the campaign row this UPDATE locks, not
    from the previous entry: under PostgreSQL's READ COMMITTED a subquery would read the
    snapshot taken before the lock was granted, and miss an entry committed meanwhile."""
    row = driver.run(DEFAULT_DB_ALIAS, _next_seq_sql(), [campaign_id], driver.one)
    if row is None:
        raise Campaign.DoesNotExist(f"No campaign {campaign_id}.")
    return int(row[0]), str(row[1]), bool(row[2])


def _set_last_hash(campaign_id: int, entry_hash: str) -> None:
    # A second statement on the row already locked: the new hash needs the entry's time and
    # sequence number, which only exist once the first statement has answered.
    driver.run(DEFAULT_DB_ALIAS, _last_hash_sql(), [entry_hash, campaign_id], driver.nothing)


# The two statements on the campaign's row, written once per process: sent on every entry,
# each as the same string (its driver's form is kept per string: tabletop/serving/driver.py).
@cache
def _next_seq_sql() -> str:
    table = connection.ops.quote_name(Campaign._meta.db_table)
    return f"UPDATE {table} SET last_seq = last_seq + 1 WHERE id = %s RETURNING last_seq, last_hash, discord"


@cache
def _last_hash_sql() -> str:
    table = connection.ops.quote_name(Campaign._meta.db_table)
    return f"UPDATE {table} SET last_hash = %s WHERE id = %s"


def append_event(
    *,
    campaign_id: int,
    event: TableEvent,
    actor: AbstractBaseUser | None,
    text: str,
    dice: dict[str, Any] | None = None,
) -> LogEntry:
    """Append a table event (call inside a transaction)."""
    return append_entry(
        campaign_id=campaign_id, kind=LogEntry.Kind.EVENT, action=event, actor=actor, text=text, dice=dice
    )
