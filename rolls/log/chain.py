"""The log's hash chain, from plain values (no Django): what ``docs/verify.md`` tells anyone to
recompute from a JSON export with the standard library.

Each entry's *content* is a small JSON object written canonically (keys sorted, no spaces,
ASCII): its campaign, sequence number, kind, action, roll, actor, state, text and time, and
where its dice came from when it drew any (``dice``). Its
*digest* is the SHA-256 of those bytes, and its *hash* the SHA-256 of the previous entry's hash
followed by its digest, both as hex text. The first entry of a campaign follows ``GENESIS``.

Chaining the digest rather than the content lets an export withhold a secret roll's content
from a player and still be checked: the player's file carries the hidden entry's digest.

Two versions of the content live in one chain, and each entry says which it is:

- **Version 1** (entries written before 2026-12): the keys above. A hidden roll entered by
  hand had nothing unguessable in it, so its digest gave its dice away to anyone who tried
  every face; a player's export now leaves such an entry's digest out.
- **Version 2** (every entry since): also ``v`` (2), ``salt`` (16 random bytes the server
  drew for the entry, as hex: a withheld entry's digest cannot be guessed from the dice it
  might hold) and, on a roll's first entry, ``about``: what the pages show of the roll beyond
  its dice (``roll_facts``). What else a page shows of a roll is derived from the chain: its
  outcome from its newest state, voided and revealed from the GM's events.

An entry's version is not a column anyone could flip: writing the content without its salt
gives another digest, and the chain breaks there.
"""

from __future__ import annotations

import hashlib
import json
import secrets
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from django.utils.translation import gettext as _

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
    salt: str = "",
    about: Any = None,
) -> dict[str, Any]:
    """An entry's hashed content, as the JSON export shows it. ``dice`` (where an entry's dice
    came from, ``rolls/log/fairdice.py``) is there only on the entries that have it, so the
    entries written before it existed keep their hashes. ``salt``: a version 2 entry's (with
    ``v``), and ``about`` its roll's facts when it is the roll's first entry."""
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
    if salt:
        written["v"] = VERSION
        written["salt"] = salt
        if about is not None:
            written["about"] = about
    return written


VERSION = 2
SALT_BYTES = 16


def new_salt() -> str:
    return secrets.token_hex(SALT_BYTES)


# What the pages show of a roll beyond its dice, in the order the content lists them. Ids of
# people and characters are left out: a deleted account or character empties them, and the
# names are kept as written at the time.
ROLL_FACTS = (
    "session",
    "system",
    "character_name",
    "helper_name",
    "target_name",
    "intent",
    "trait",
    "visibility",
    "npc",
    "mystery",
    "by_hand",
)


def roll_facts(**facts: Any) -> dict[str, Any]:
    """A roll's ``about``: exactly the ``ROLL_FACTS``, each as given."""
    return {key: facts[key] for key in ROLL_FACTS}


def digest(entry_content: dict[str, Any]) -> str:
    canonical = json.dumps(entry_content, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(canonical.encode("ascii")).hexdigest()


def link(previous: str, entry_digest: str) -> str:
    """The entry's hash: its place after ``previous`` and its content, together."""
    return hashlib.sha256((previous + entry_digest).encode("ascii")).hexdigest()


@dataclass(frozen=True)
class Link:
    """One entry as the check reads it: its sequence number, its digest recomputed from its
    content (or, for a withheld entry, as given; None where an export leaves it out, and then
    the check takes the entry's hash as given), and the hash it claims."""

    seq: int
    digest: str | None
    hash: str


@dataclass(frozen=True)
class Break:
    seq: int
    reason: str

    def __str__(self) -> str:
        return _("Entry %(seq)s does not match: %(reason)s") % {"seq": self.seq, "reason": self.reason}


def check(
    links: Iterable[Link],
    *,
    first_seq: int = 1,
    previous: str = GENESIS,
    head: tuple[int, str | None] | None = None,
) -> Break | None:
    """The first entry that breaks the chain, or None. Entries come in the order stored; a
    gap in the sequence is a deletion, a hash that does not follow is a change or a move.
    ``head``: the last sequence number and hash the campaign handed out, so that deleting
    the newest entries shows too (its hash None: a piece of the log, checked up to there)."""
    expected = first_seq
    for each in links:
        if each.seq > expected:
            return Break(
                expected,
                _("it is missing (the next entry is %(seq)s): an entry was deleted") % {"seq": each.seq},
            )
        if each.seq < expected:
            return Break(
                each.seq, _("it comes again after entry %(seq)s: entries were moved") % {"seq": expected - 1}
            )
        if each.digest is not None and link(previous, each.digest) != each.hash:
            return Break(each.seq, _("its content or its place was changed since it was written"))
        previous = each.hash
        expected += 1
    if head is not None:
        last_seq, last_hash = head
        if last_seq >= expected:
            return Break(
                expected,
                _("it is missing (the log was written up to entry %(seq)s): deleted") % {"seq": last_seq},
            )
        if last_seq < expected - 1:
            return Break(last_seq + 1, _("the log never wrote it: it was added"))
        if last_seq > 0 and last_hash is not None and last_hash != previous:
            return Break(last_seq, _("it is not the entry the log last wrote: replaced"))
    return None
