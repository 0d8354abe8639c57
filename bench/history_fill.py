"""A campaign of 100,000 rolls for ``bench/history.py``: played through the real services for
its first sessions, then those sessions written again, in bulk, until it is big enough.

Why not all through the services: on this 2-core machine, shared, ``rolls.demo`` plays some 30
rolls a second (forms, row locks, a transaction per roll), so 100,000 rolls would take about
an hour; the copies take a minute or two.

The copies are the rows the services wrote, identical in shape: every column of each
``PlaySession``, ``RollCall`` (and its characters), ``Roll`` and ``LogEntry`` is copied from the
played original, with only what must differ changed: new ids (and the foreign keys to them),
the session numbers (and the "Session N started/ended." lines that name them), the Mystery or
Adventure counter, the times (moved later by the length of the played part, so the log stays
in time order and a session's entries stay between its start and the next one's), and the
sequence numbers and hashes. Each copied entry is chained exactly as ``rolls.log.append.append_entry``
chains it (``rolls.log.chain.content`` / ``digest`` / ``link``, the campaign's ``last_seq`` and
``last_hash`` kept in step), so ``verify_log`` checks the whole campaign, and the bench runs
it at the end of a fill.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterator
from datetime import timedelta

from django.db import models, transaction

from rolls import demo
from rolls.history.verify import verify_log
from rolls.log import chain
from rolls.log.content import covers_roll, roll_about
from rolls.models import FollowUpUse, LogEntry, Roll, RollCall
from rolls.stats import tally
from tabletop.models import Campaign, PlaySession

BATCH = 2000
SESSION_LINE = re.compile(r"^Session (\d+)\b")


def _about(roll: Roll, numbers: int, mysteries: int) -> dict[str, object]:
    return {**roll_about(roll), "session": roll.session.number + numbers, "mystery": roll.mystery + mysteries}


def fill(*, rolls: int, sessions: int, characters: int, played_sessions: int, seed: int) -> Campaign:
    """A new campaign of ``rolls`` rolls over ``sessions`` sessions: ``played_sessions`` of them
    played through the services, the rest copied from those, in order."""
    if sessions % played_sessions or rolls % (sessions // played_sessions):
        raise SystemExit(
            "--sessions must be a multiple of the sessions played, and the rolls share out evenly"
        )
    copies = sessions // played_sessions
    plan = demo.Plan(
        rolls=rolls // copies,
        sessions=played_sessions,
        characters=characters,
        seed=seed,
        name="History bench",
        passwords=False,
    )
    played = demo.create(plan)
    campaign = played.campaign
    template = _Template(campaign)
    for copy in range(1, copies):
        with transaction.atomic():
            template.write_copy(copy)
        print(f"  copied {copy + 1}/{copies} ({(copy + 1) * plan.rolls} rolls)", flush=True)
    # The copies' rows went in without the services: their statistics' tallies are counted
    # again from the rows, as the migration that added them did.
    tally.rebuild(campaign.pk)
    campaign.refresh_from_db()
    found = verify_log(campaign)
    if found is not None:
        raise SystemExit(f"the filled log does not verify: {found}")
    return campaign


@contextlib.contextmanager
def _times_as_given(*fields: models.DateTimeField) -> Iterator[None]:
    """``auto_now_add`` would stamp each copy with the time of the copy: it keeps the time of
    its original, moved, as the log's own entries do."""
    for each in fields:
        each.auto_now_add = False
    try:
        yield
    finally:
        for each in fields:
            each.auto_now_add = True


def _columns(row: models.Model, **changed: object) -> dict[str, object]:
    """A row's columns (foreign keys by id), without its id, with ``changed`` instead."""
    columns = {
        each.attname: getattr(row, each.attname)
        for each in type(row)._meta.concrete_fields
        if not each.primary_key
    }
    return {**columns, **changed}


class _Template:
    """The played part of the campaign, read once, and written again as each copy."""

    def __init__(self, campaign: Campaign) -> None:
        self.campaign = campaign
        self.sessions = list(PlaySession.objects.filter(campaign=campaign).order_by("number"))
        self.calls = list(RollCall.objects.filter(campaign=campaign).order_by("pk"))
        self.asked = {call.pk: list(call.characters.values_list("pk", flat=True)) for call in self.calls}
        self.rolls = list(Roll.objects.filter(campaign=campaign).select_related("session").order_by("pk"))
        self.uses = list(FollowUpUse.objects.filter(roll__campaign=campaign).order_by("pk"))
        first = self.sessions[0]
        # What came before the first session (members joining, characters made) is not copied.
        self.entries = list(
            LogEntry.objects.filter(campaign=campaign, created__gte=first.started).order_by("seq")
        )
        self.first_seq = self.entries[0].seq
        end = max(e.created for e in self.entries)
        self.span = end - first.started + timedelta(minutes=1)
        self.stories = sum(1 for e in self.entries if e.action == "mystery-start")
        self.mystery = Campaign.objects.get(pk=campaign.pk).mystery

    def write_copy(self, copy: int) -> None:
        moved = self.span * copy
        numbers = len(self.sessions) * copy
        mysteries = self.stories * copy
        # Where this copy's entries go in the log (as ``_entries`` places them): a follow-up's
        # row keeps its entry's sequence number.
        shift = Campaign.objects.get(pk=self.campaign.pk).last_seq - self.first_seq + 1
        with _times_as_given(
            PlaySession._meta.get_field("started"),
            RollCall._meta.get_field("created"),
            Roll._meta.get_field("created"),
        ):
            sessions = PlaySession.objects.bulk_create(
                PlaySession(
                    campaign_id=s.campaign_id,
                    number=s.number + numbers,
                    started=s.started + moved,
                    ended=s.ended + moved if s.ended else None,
                )
                for s in self.sessions
            )
            session_of = {old.pk: new.pk for old, new in zip(self.sessions, sessions, strict=True)}
            calls = RollCall.objects.bulk_create(
                RollCall(
                    campaign_id=c.campaign_id,
                    session_id=session_of[c.session_id],
                    trait=c.trait,
                    label=c.label,
                    data=c.data,
                    per_character=c.per_character,
                    intent=c.intent,
                    created=c.created + moved,
                    closed=c.closed,
                )
                for c in self.calls
            )
            call_of = {old.pk: new.pk for old, new in zip(self.calls, calls, strict=True)}
            through = RollCall.characters.through
            through.objects.bulk_create(
                through(rollcall_id=call_of[old], character_id=character)
                for old, asked in self.asked.items()
                for character in asked
            )
            roll_of: dict[int, int] = {}
            for start in range(0, len(self.rolls), BATCH):
                batch = self.rolls[start : start + BATCH]
                made = Roll.objects.bulk_create(
                    self._roll(r, session_of, call_of, moved, mysteries) for r in batch
                )
                roll_of.update((old.pk, new.pk) for old, new in zip(batch, made, strict=True))
            FollowUpUse.objects.bulk_create(
                FollowUpUse(**_columns(u, roll_id=roll_of[u.roll_id], seq=u.seq + shift)) for u in self.uses
            )
        self._entries(roll_of, moved, numbers, mysteries)
        Campaign.objects.filter(pk=self.campaign.pk).update(mystery=self.mystery + mysteries)

    @staticmethod
    def _roll(
        r: Roll, session_of: dict[int, int], call_of: dict[int, int], moved: timedelta, mysteries: int
    ) -> Roll:
        # Every column as the services wrote it (the statistics' columns and the seeds too),
        # then what a copy changes.
        return Roll(
            **_columns(
                r,
                session_id=session_of[r.session_id],
                mystery=r.mystery + mysteries,
                call_id=call_of[r.call_id] if r.call_id else None,
                created=r.created + moved,
            )
        )

    def _entries(self, roll_of: dict[int, int], moved: timedelta, numbers: int, mysteries: int) -> None:
        originals = {r.pk: r for r in self.rolls}
        campaign = Campaign.objects.select_for_update().get(pk=self.campaign.pk)
        seq, previous = campaign.last_seq, campaign.last_hash
        shift = seq - self.first_seq + 1
        batch: list[LogEntry] = []
        for e in self.entries:
            seq = e.seq + shift
            roll_id = roll_of[e.roll_id] if e.roll_id else None
            created = e.created + moved
            text = e.text
            if e.action in ("session-start", "session-end"):
                text = SESSION_LINE.sub(lambda m: f"Session {int(m[1]) + numbers}", text)
            content = chain.content(
                campaign=e.campaign_id,
                seq=seq,
                kind=e.kind,
                action=e.action,
                roll=roll_id,
                actor=e.actor_id,
                state=e.state,
                text=text,
                created=chain.timestamp(created),
                dice=e.dice,
                salt=e.salt,
                # A copied roll's facts: its own session and Mystery numbers (as ``_roll`` moves them).
                about=_about(originals[e.roll_id], numbers, mysteries) if covers_roll(e) else None,
            )
            previous = chain.link(previous, chain.digest(content))
            batch.append(
                LogEntry(
                    campaign_id=e.campaign_id,
                    seq=seq,
                    kind=e.kind,
                    roll_id=roll_id,
                    action=e.action,
                    actor_id=e.actor_id,
                    state=e.state,
                    text=text,
                    created=created,
                    dice=e.dice,
                    salt=e.salt,
                    hash=previous,
                )
            )
            if len(batch) >= BATCH:
                LogEntry.objects.bulk_create(batch)
                batch = []
        LogEntry.objects.bulk_create(batch)
        Campaign.objects.filter(pk=campaign.pk).update(last_seq=seq, last_hash=previous)
