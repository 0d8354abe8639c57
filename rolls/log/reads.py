"""Reads of the log that several parts share: a play session's stretch of it (its time and its
sequence numbers) and each roll's newest state. The history's filters, the contests, the
statistics, the export and the import all ask these questions; they live with the log so
that none of those has to import another's page."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.db.models import Q

from rolls.models import LogEntry
from tabletop.models import Campaign, PlaySession


@dataclass(frozen=True)
class SessionTimes:
    """A play session's part of the campaign's time: from its start until the next session
    starts (``until`` None: it is the newest). What the GM did between two evenings belongs to
    the one before; what came before the first session goes with the first."""

    started: datetime
    until: datetime | None
    first: bool

    @classmethod
    def of(cls, session: PlaySession) -> SessionTimes:
        """Read with the session's neighbours (numbers may have gaps: an imported campaign)."""
        around = PlaySession.objects.filter(campaign_id=session.campaign_id)
        later = around.filter(number__gt=session.number).order_by("number").values_list("started", flat=True)
        return cls(session.started, later.first(), not around.filter(number__lt=session.number).exists())

    @classmethod
    def among(cls, rows: list[tuple[int, int, datetime]], session_id: int) -> SessionTimes:
        """From the campaign's sessions as (pk, number, started), newest first (what the
        filter form reads for its choices): no query."""
        index = next(i for i, (pk, _, _) in enumerate(rows) if pk == session_id)
        return cls(rows[index][2], rows[index - 1][2] if index else None, index == len(rows) - 1)


def session_events(times: SessionTimes) -> Q:
    """The events of a play session, by their time."""
    where = Q(created__gte=times.started)
    if times.until is not None:
        where &= Q(created__lt=times.until)
    return where


def first_at_or_after(campaign: Campaign, moment: datetime) -> int | None:
    """The sequence number of the campaign's first entry written at or after ``moment``. By
    the index on ``created``, which follows ``seq`` (both are taken under the campaign row's
    lock): the first entry of the index's range, where an order by ``seq`` would walk the log
    from its start."""
    return (
        LogEntry.objects.filter(campaign=campaign, created__gte=moment)
        .order_by("created", "seq")
        .values_list("seq", flat=True)
        .first()
    )


def session_seqs(campaign: Campaign, times: SessionTimes) -> tuple[int, int]:
    """The first and last sequence numbers of a play session's part of the log (first > last:
    nothing)."""
    start = first_at_or_after(campaign, times.started)
    if start is None:
        return 1, 0
    if times.first:
        start = 1
    end = campaign.last_seq
    if times.until is not None:
        end = min(end, (first_at_or_after(campaign, times.until) or end + 1) - 1)
    return start, end


def newest_states(roll_ids: list[int]) -> dict[int, tuple[dict[str, Any], int]]:
    """Each roll's newest state and its sequence number, in one query."""
    newest: dict[int, tuple[dict[str, Any], int]] = {}
    rows = (
        LogEntry.objects.filter(roll_id__in=roll_ids, state__isnull=False)
        .order_by("roll_id", "-seq")
        .values_list("roll_id", "state", "seq")
    )
    for roll_id, state, seq in rows:
        newest.setdefault(roll_id, (state or {}, seq))
    return newest
