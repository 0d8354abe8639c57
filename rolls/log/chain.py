"""The log's hash chain, from plain values (no Django): what ``docs/verify.md`` tells anyone to
recompute from a JSON export with the standard library.

Each entry's *content* is a small JSON object written canonically (keys sorted, no spaces,
ASCII): its campaign, sequence number, kind, action, roll, actor, state, text and time, and
where its dice came from when it drew any (``dice``). Its
*digest* is the SHA-256 of those bytes, and its *hash* the SHA-256 of the previous entry's hash
followed by its digest, both as hex text. The first entry of a campaign follows ``GENESIS``.

Chaining the digest rather than the content lets an export withhold a secret roll's content
from a player and still be checked: the player's file carries the hidden entry's digest.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

GENESIS = "0" * 64


def timestamp(moment: datetime) -> str:
    """An entry's time as the chain writes it: UTC, microseconds always shown."""
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def content(
    *,
    campaign: int,
    seq: int,
    kind: str,
    action: str,
    roll: int | None,
    actor: int | None,
    state: Any,
    text: str,
    created: str,
    dice: Any = None,
) -> dict[str, Any]:
    """An entry's hashed content, as the JSON export shows it. ``dice`` (where an entry's dice
    came from, ``rolls/log/fairdice.py``) is there only on the entries that have it, so the
    entries written before it existed keep their hashes."""
    written = {
        "campaign": campaign,
        "seq": seq,
        "kind": kind,
        "action": action,
        "roll": roll,
        "actor": actor,
        "state": state,
        "text": text,
        "created": created,
    }
    if dice is not None:
        written["dice"] = dice
    return written


def digest(entry_content: dict[str, Any]) -> str:
    canonical = json.dumps(entry_content, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(canonical.encode("ascii")).hexdigest()


def link(previous: str, entry_digest: str) -> str:
    """The entry's hash: its place after ``previous`` and its content, together."""
    return hashlib.sha256((previous + entry_digest).encode("ascii")).hexdigest()


@dataclass(frozen=True)
class Link:
    """One entry as the check reads it: its sequence number, its digest recomputed from its
    content (or, for a withheld entry, as given), and the hash it claims."""

    seq: int
    digest: str
    hash: str


@dataclass(frozen=True)
class Break:
    seq: int
    reason: str

    def __str__(self) -> str:
        return f"Entry {self.seq} does not match: {self.reason}"


def check(
    links: Iterable[Link], *, first_seq: int = 1, previous: str = GENESIS, head: tuple[int, str] | None = None
) -> Break | None:
    """The first entry that breaks the chain, or None. Entries come in the order stored; a
    gap in the sequence is a deletion, a hash that does not follow is a change or a move.
    ``head``: the last sequence number and hash the campaign handed out, so that deleting
    the newest entries shows too."""
    expected = first_seq
    for each in links:
        if each.seq > expected:
            return Break(expected, f"it is missing (the next entry is {each.seq}): an entry was deleted")
        if each.seq < expected:
            return Break(each.seq, f"it comes again after entry {expected - 1}: entries were moved")
        if link(previous, each.digest) != each.hash:
            return Break(each.seq, "its content or its place was changed since it was written")
        previous = each.hash
        expected += 1
    if head is not None:
        last_seq, last_hash = head
        if last_seq >= expected:
            return Break(expected, f"it is missing (the log was written up to entry {last_seq}): deleted")
        if last_seq < expected - 1:
            return Break(last_seq + 1, "the log never wrote it: it was added")
        if last_seq > 0 and last_hash != previous:
            return Break(last_seq, "it is not the entry the log last wrote: replaced")
    return None
