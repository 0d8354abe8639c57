"""Checking a campaign's stored log against its hash chain (``rolls/log/chain.py``): what
``manage.py verify_log`` and the history page's button run.

Two checks, one for each place:

- ``verify_log`` (the command) reads the whole log: every entry's content, with each version
  2 roll entry's facts read from the roll's row, chained from the first; then each roll's
  row against what the log derives for it (its outcome from its newest state, voided and
  revealed from the GM's and the contests' events).
- ``check_since`` (the button, on the request thread, any member) reads only what was written
  since the last press that found the log intact (``LogCheck``): it confirms the entry
  checked last still carries the hash it had, and chains on from it. A press costs the
  entries written since, not the whole log. A change to an entry checked before is the
  command's to find.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from rolls import registry
from rolls.log import chain
from rolls.log.content import abouts
from rolls.log.events import TableEvent
from rolls.log.reads import newest_states
from rolls.models import LogCheck, LogEntry, Roll
from tabletop.models import Campaign

CHUNK = 2000  # rows read at a time
# The request thread's time one press of the button spends at most (seconds): a long log that
# was never checked takes several presses (the page sends the next by itself), each a short
# piece that a roll of another table waits behind at most (bench/logcheck.py measures it).
BUDGET = 0.2
# Of that budget, the share that reads and chains entries, a batch at a time (checked between
# batches); the rest is for the rows of the rolls those entries touch, which cost about as much
# as the entries that named them. A fifth of a second a press keeps the first check of 50,000
# entries within the presses the rate limit allows in a minute.
READING = 0.5
BATCH = 100

_VOIDS = (TableEvent.ROLL_VOID,)
_REVEALS = (TableEvent.ROLL_REVEAL, TableEvent.CONTEST_REVEAL)


@dataclass(frozen=True)
class Outcome:
    """A check's answer: the first entry that does not match (or None), the entries read, and
    the newest entry of the log (``last < head``: more to check on the next press)."""

    found: chain.Break | None
    first: int
    last: int
    head: int

    @property
    def intact(self) -> bool:
        return self.found is None

    @property
    def finished(self) -> bool:
        return self.last >= self.head


def verify_log(campaign: Campaign) -> chain.Break | None:
    """The first entry that does not match, or None when the whole log is intact."""
    return _check(campaign, start=1, previous=chain.GENESIS)[0].found


def check_since(campaign: Campaign) -> Outcome:
    """The button's check: the entries written since the last check that found the log intact,
    and the rolls they touch, for at most ``BUDGET`` seconds. Remembers how far it got when it
    finds nothing wrong."""
    mark = LogCheck.objects.filter(campaign=campaign).first()
    start, previous = 1, chain.GENESIS
    if mark is not None and mark.seq > 0:
        stored = (
            LogEntry.objects.filter(campaign=campaign, seq=mark.seq).values_list("hash", flat=True).first()
        )
        if stored != mark.hash:
            found = chain.Break(
                mark.seq, _("it is not the entry checked before: it was changed or deleted since")
            )
            return Outcome(found, mark.seq, mark.seq, mark.seq)
        start, previous = mark.seq + 1, mark.hash
    outcome, last_hash = _check(campaign, start=start, previous=previous, budget=BUDGET * READING)
    if outcome.intact and outcome.last >= start:
        with transaction.atomic():
            LogCheck.objects.update_or_create(
                campaign=campaign,
                defaults={"seq": outcome.last, "hash": last_hash, "checked": timezone.now()},
            )
    return outcome


def _check(
    campaign: Campaign, *, start: int, previous: str, budget: float | None = None
) -> tuple[Outcome, str]:
    """The entries from ``start`` on (for ``budget`` seconds at most), then each roll they
    touch against its row; the outcome and the hash of the last entry read."""
    # The head first: entries written while the check reads belong to the next check.
    head = Campaign.objects.filter(pk=campaign.pk).values_list("last_seq", "last_hash").get()
    reader = _Reader(campaign, start, head[0], budget)
    found = chain.check(reader.links(), first_seq=start, previous=previous)
    if found is None and not reader.stopped:
        # Read to the end: the last entry must be the one the log last wrote.
        found = chain.check([], first_seq=reader.last + 1, previous=reader.last_hash or previous, head=head)
    if found is None:
        whole = start == 1 and not reader.stopped
        found = _rows_against_log(campaign, reader.touched, whole=whole)
    return Outcome(found, start, reader.last, head[0]), reader.last_hash or previous


# An entry's columns, in the order ``_Reader`` reads them: plain values, no model built per entry.
_COLUMNS = (
    "seq",
    "kind",
    "action",
    "roll_id",
    "actor_id",
    "state",
    "text",
    "created",
    "dice",
    "salt",
    "hash",
)


class _Reader:
    """The entries from ``start`` to ``last`` as chain links, a batch at a time, until the
    budget is spent (``stopped``); what it read: the last entry, its hash, the rolls touched."""

    def __init__(self, campaign: Campaign, start: int, last: int, budget: float | None) -> None:
        self.campaign, self.start, self.end, self.budget = campaign, start, last, budget
        self.last, self.last_hash, self.stopped = start - 1, "", False
        self.touched: dict[int, int] = {}  # roll id -> the seq of its first entry read

    def links(self) -> Iterator[chain.Link]:
        began = time.perf_counter()
        rows = (
            LogEntry.objects.filter(campaign=self.campaign, seq__gte=self.start, seq__lte=self.end)
            .order_by("seq")
            .values_list(*_COLUMNS)
            .iterator(chunk_size=BATCH)
        )
        for batch in _batches(rows, BATCH):
            yield from self._batch(batch)
            if self.budget is not None and time.perf_counter() - began > self.budget and self.last < self.end:
                self.stopped = True
                return

    def _batch(self, batch: list[tuple[Any, ...]]) -> Iterator[chain.Link]:
        # Each version 2 roll entry's content holds its roll's facts: read for the batch at once.
        facts = abouts([row[3] for row in batch if row[9] and row[1] == LogEntry.Kind.ROLL and row[3]])
        for seq, kind, action, roll, actor, state, text, created, dice, salt, hash_ in batch:
            if roll is not None:
                self.touched.setdefault(roll, seq)
            content = chain.content(
                campaign=self.campaign.pk,
                seq=seq,
                kind=kind,
                action=action,
                roll=roll,
                actor=actor,
                state=state,
                text=text,
                created=chain.timestamp(created),
                dice=dice,
                salt=salt,
                about=facts.get(roll) if salt and kind == LogEntry.Kind.ROLL else None,
            )
            self.last, self.last_hash = seq, hash_
            yield chain.Link(seq=seq, digest=chain.digest(content), hash=hash_)


def _rows_against_log(campaign: Campaign, touched: dict[int, int], *, whole: bool) -> chain.Break | None:
    """What each roll's row repeats of the log (``outcome``, ``voided``, ``revealed``), against
    the log. ``whole``: every roll of the campaign, else the rolls in ``touched``."""
    marks = LogEntry.objects.filter(campaign=campaign, roll__isnull=False)
    if not whole:
        marks = marks.filter(roll_id__in=list(touched))
    voided = set(marks.filter(action__in=_VOIDS).values_list("roll_id", flat=True))
    revealed = set(marks.filter(action__in=_REVEALS).values_list("roll_id", flat=True))
    rows = Roll.objects.filter(campaign=campaign)
    if not whole:
        rows = rows.filter(pk__in=list(touched))
    columns = rows.order_by("pk").values_list("pk", "system", "outcome", "voided", "revealed")
    for batch in _batches(columns.iterator(chunk_size=CHUNK)):
        newest = newest_states([row[0] for row in batch])
        for pk, system, outcome, is_voided, is_revealed in batch:
            state, seq = newest.get(pk, ({}, touched.get(pk, 0)))
            first = touched.get(pk, seq)
            if is_voided != (pk in voided):
                said = (
                    _("roll %(pk)s reads voided, which its log does not say")
                    if is_voided
                    else _("roll %(pk)s reads not voided, which its log does not say")
                )
                return chain.Break(first, said % {"pk": pk})
            if is_revealed != (pk in revealed):
                said = (
                    _("roll %(pk)s reads revealed, which its log does not say")
                    if is_revealed
                    else _("roll %(pk)s reads not revealed, which its log does not say")
                )
                return chain.Break(first, said % {"pk": pk})
            try:
                derived = registry.engine(system).evaluate(state).tone if state else ""
            except (KeyError, TypeError, ValueError, IndexError, AttributeError):
                return chain.Break(
                    seq, _("roll %(pk)s's newest state is not one its dice system reads") % {"pk": pk}
                )
            if outcome != derived:
                return chain.Break(
                    seq,
                    _("roll %(pk)s reads %(outcome)s, its newest state says %(derived)s")
                    % {"pk": pk, "outcome": repr(outcome), "derived": repr(derived)},
                )
    return None


def _batches[T](rows: Iterable[T], size: int = CHUNK) -> Iterator[list[T]]:
    batch: list[T] = []
    for row in rows:
        batch.append(row)
        if len(batch) == size:
            yield batch
            batch = []
    if batch:
        yield batch


def said(outcome: Outcome, campaign: Campaign) -> str:
    """The button's answer in words."""
    if outcome.intact and not outcome.finished:
        return _(
            "Entries 1 to %(last)s of the log of %(name)s match their hashes; "
            "%(more)s more to check: press again to go on."
        ) % {"last": outcome.last, "name": campaign.name, "more": outcome.head - outcome.last}
    return verdict(outcome.found, campaign)


def verdict(found: chain.Break | None, campaign: Campaign) -> str:
    """The check's answer in words."""
    if found is None:
        return ngettext(
            "The log of %(name)s is intact: its %(count)s entries match their hashes.",
            "The log of %(name)s is intact: its %(count)s entries match their hashes.",
            campaign.last_seq,
        ) % {"name": campaign.name, "count": campaign.last_seq}
    return _("The log of %(name)s was changed. %(found)s.") % {"name": campaign.name, "found": found}
