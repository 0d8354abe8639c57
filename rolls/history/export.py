"""A campaign's log, or one play session's part of it, as CSV and as JSON, read in chunks so
that a campaign of years streams in little memory.

What a member may see decides what is written (``rolls.sight.audience.sight``, as on every page): a
player's file shows a secret or blind roll as "rolled in secret", without its dice, intent,
trait or outcome. Its JSON still carries each withheld entry's digest and hash, so anyone can
check the whole chain (``rolls/log/chain.py``, ``docs/verify.md``); the digest is salted
(version 2), so it says nothing of the dice. A version 1 entry's digest is left out.

A play session's part is the run of entries from its start to the last before the next session
starts (events between two sessions belong to the earlier one, and those before the first
session to the first): a contiguous slice of the chain, which the JSON opens with the hash of
the entry before it.
"""

from __future__ import annotations

import csv
import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from django.db import connection, models

from rolls import registry
from rolls.log import chain
from rolls.log.content import entry_content
from rolls.log.reads import SessionTimes, session_seqs
from rolls.models import LogEntry, Roll
from rolls.sight.audience import Facts, Viewer, sight
from tabletop.models import Campaign, Character, Membership, PlaySession

CHUNK = 2000  # rows read from the database at a time
FORMAT = "tabletop-log"
VERSION = 1
WITHHELD = "Rolled in secret: withheld from this export."


@dataclass(frozen=True)
class Scope:
    campaign: Campaign
    viewer: Viewer
    session: PlaySession | None = None

    @cached_property
    def seq_range(self) -> tuple[int, int]:
        """The first and last sequence numbers exported (first > last: nothing)."""
        if self.session is None:
            return 1, self.campaign.last_seq
        return session_seqs(self.campaign, SessionTimes.of(self.session))

    def previous_hash(self, start: int) -> str:
        if start <= 1:
            return chain.GENESIS
        found = LogEntry.objects.filter(campaign=self.campaign, seq=start - 1).values_list("hash", flat=True)
        return found.first() or chain.GENESIS

    def entries(self) -> Iterator[LogEntry]:
        start, end = self.seq_range
        query = (
            LogEntry.objects.filter(campaign=self.campaign, seq__gte=start, seq__lte=end)
            .select_related("roll__character", "roll__target", "roll__session")
            .order_by("seq")
        )
        return query.iterator(chunk_size=CHUNK)

    def rolls(self) -> Iterator[Roll]:
        query = Roll.objects.filter(campaign=self.campaign).select_related("character", "target", "session")
        if self.session is not None:
            start, end = self.seq_range
            ids = LogEntry.objects.filter(
                campaign=self.campaign, seq__gte=start, seq__lte=end, roll__isnull=False
            ).values("roll_id")
            query = query.filter(pk__in=ids)
        return query.order_by("pk").iterator(chunk_size=CHUNK)

    def sees(self, roll: Roll | None) -> bool:
        return roll is None or sight(Facts.of_roll(roll), self.viewer).dice


def filename(scope: Scope, extension: str) -> str:
    part = f"-session-{scope.session.number}" if scope.session is not None else ""
    return f"campaign-{scope.campaign.pk}{part}.{extension}"


# -- CSV -----------------------------------------------------------------------------------------

CSV_HEADER = (
    "seq",
    "time",
    "session",
    "character",
    "roll",
    "action",
    "die",
    "face",
    "hit",
    "new",
    "dropped",
    "note",
    "by_hand",  # 1: faces a player entered from real dice (rolls/systems/hand.py), not the app's
    "player",  # who rolled: their name at the table
    "trait",
    "difficulty",  # what the roll had to meet, in its system's words
    "outcome",  # what the roll came to after this step: success, failure, amazing...
)

# A cell a spreadsheet would read as a formula starts with one of these (OWASP's list):
# such a cell is written with a leading apostrophe, which the spreadsheet shows as text.
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def cell(value: object) -> object:
    """A CSV cell as written: text that a spreadsheet would run as a formula, neutralised."""
    if isinstance(value, str) and value.startswith(FORMULA_STARTS):
        return "'" + value
    return value


def difficulty(request: dict[str, Any]) -> str:
    """What a roll had to meet, from its engine's request, in its system's words."""
    if request.get("dn") is not None:
        return f"DN {request['dn']}"
    if request.get("bar_size") and not request.get("opposed"):
        return f"Bar {request['bar_size']}x{request.get('bar_face') or '?'}"
    if request.get("difficulty") is not None:
        return f"Difficulty {request['difficulty']}"
    if request.get("need"):
        return f"{request['need']} six{'es' if request['need'] > 1 else ''}"
    if request.get("level") not in (None, "", "none"):
        return str(request["level"]).capitalize()
    return ""


class _Line:
    """csv.writer's file: hands back the line it was given."""

    def write(self, line: str) -> str:
        return line


class _SafeWriter:
    """csv.writer whose every text cell goes through ``cell``: a name, an intent or an event's
    words a player typed never reach a spreadsheet as a formula."""

    def __init__(self) -> None:
        self._writer = csv.writer(_Line())

    def writerow(self, row: Iterable[object]) -> str:
        return str(self._writer.writerow([cell(value) for value in row]))


def csv_lines(scope: Scope) -> Iterator[str]:
    """One line per die of each roll and follow-up (the dice of the step it added, each with
    whether it counts, was rolled in that step, or was dropped), one line per table event and
    per withheld entry, with the die columns empty."""
    writer = _SafeWriter()
    yield writer.writerow(CSV_HEADER)
    players = _player_names(scope.campaign)
    for entry in scope.entries():
        roll = entry.roll
        time = chain.timestamp(entry.created)
        if roll is None:
            yield writer.writerow(
                (
                    entry.seq,
                    time,
                    "",
                    "",
                    "",
                    entry.action,
                    "",
                    "",
                    "",
                    "",
                    "",
                    entry.text,
                    "",
                    "",
                    "",
                    "",
                    "",
                )
            )
            continue
        if not scope.sees(roll):
            yield writer.writerow(
                (
                    entry.seq,
                    time,
                    roll.session.number,
                    "",
                    roll.pk,
                    "secret",
                    "",
                    "",
                    "",
                    "",
                    "",
                    WITHHELD,
                    "",
                    "",
                    "",
                    "",
                    "",
                )
            )
            continue
        head = (entry.seq, time, roll.session.number, roll.character_name, roll.pk)
        engine = registry.engine(roll.system)
        state = entry.state or {}
        steps = engine.view(state)
        dice = steps[-1].dice if steps else ()
        tail = (
            players.get(roll.roller_id, "") if roll.roller_id is not None else "",
            roll.trait,
            difficulty(state.get("request") or {}),
            engine.evaluate(state).tone if state else "",
        )
        if not dice:
            title = steps[-1].title if steps else ""
            yield writer.writerow((*head, entry.action, "", "", "", "", "", title, int(roll.by_hand), *tail))
        for index, die in enumerate(dice, start=1):
            yield writer.writerow(
                (
                    *head,
                    entry.action,
                    index,
                    die.face,
                    int(die.hit),
                    int(die.new),
                    int(die.dropped),
                    die.label,
                    int(roll.by_hand),
                    *tail,
                )
            )


# -- JSON ----------------------------------------------------------------------------------------


def _dumps(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


def _time(value: Any) -> str | None:
    return chain.timestamp(value) if value is not None else None


def json_parts(scope: Scope) -> Iterator[str]:
    """The export as JSON text, in parts: the campaign and who and what its entries name, then
    the rolls, then the entries with their digests and hashes, then the head of the chain."""
    campaign = scope.campaign
    start, _ = scope.seq_range
    header = {
        "format": FORMAT,
        "version": VERSION,
        "viewer": "gm" if scope.viewer.is_gm else "player",
        "campaign": {
            "id": campaign.pk,
            "name": campaign.name,
            "system": campaign.system,
            "mystery": campaign.mystery,
        },
        "session": scope.session.number if scope.session is not None else None,
        "first_seq": start,
        "previous": scope.previous_hash(start),
        "members": _members(campaign),
        "sessions": _sessions(scope),
        "characters": _characters(campaign),
    }
    yield _dumps(header)[:-1]  # the object stays open for the streamed lists
    yield ',"rolls":['
    for index, roll in enumerate(scope.rolls()):
        yield ("," if index else "") + _dumps(_roll(roll, scope))
    yield '],"entries":['
    last = {"seq": start - 1, "hash": header["previous"]}
    for index, entry in enumerate(scope.entries()):
        yield ("," if index else "") + _dumps(_entry(entry, scope))
        last = {"seq": entry.seq, "hash": entry.hash}
    yield '],"head":' + _dumps(last) + "}\n"


def _entry(entry: LogEntry, scope: Scope) -> dict[str, Any]:
    content = entry_content(entry)
    digest = chain.digest(content)
    if not scope.sees(entry.roll):
        if not entry.salt:
            # A version 1 entry has nothing unguessable in it: its digest would give away dice
            # entered by hand to anyone trying every face. The check takes its hash as given.
            return {"seq": entry.seq, "withheld": WITHHELD, "hash": entry.hash}
        return {"seq": entry.seq, "withheld": WITHHELD, "digest": digest, "hash": entry.hash}
    return {**content, "digest": digest, "hash": entry.hash}


def _roll(roll: Roll, scope: Scope) -> dict[str, Any]:
    # A secret or blind roll's own dice seed: its hash for anyone (it says nothing of the
    # dice), the seed itself only once the GM has revealed the roll.
    seal = {"seed_hash": roll.seed_hash, "seed": roll.revealed_seed or None} if roll.seed else {}
    if not scope.sees(roll):
        return {"id": roll.pk, "session": roll.session.number, "withheld": WITHHELD, **seal}
    return {
        "id": roll.pk,
        "session": roll.session.number,
        "character": roll.character_id,
        "character_name": roll.character_name,
        "roller": roll.roller_id,
        "helper": roll.helper_id,
        "helper_name": roll.helper_name,
        "target": roll.target_id,
        "target_name": roll.target_name,
        "system": roll.system,
        "intent": roll.intent,
        "trait": roll.trait,
        "visibility": roll.visibility,
        "npc": roll.npc,
        "mystery": roll.mystery,
        # Faces entered from real dice: statistics of the dice's fairness leave these out.
        "by_hand": roll.by_hand,
        "created": _time(roll.created),
        **seal,
    }


def _player_names(campaign: Campaign) -> dict[int, str]:
    """Each person the log names by the name the JSON's ``members`` gives them."""
    return {member["id"]: member["name"] for member in _members(campaign)}


def _members(campaign: Campaign) -> list[dict[str, Any]]:
    """Everyone the log names: the members, and by id alone whoever has left since."""
    members = [
        {"id": m.user_id, "name": m.display_name, "gm": m.is_gm}
        for m in Membership.objects.filter(campaign=campaign).order_by("user_id")
    ]
    known = {m["id"] for m in members}
    named = _distinct_ids(LogEntry, "actor_id", campaign) | _distinct_ids(Roll, "roller_id", campaign)
    named |= set(Character.objects.filter(campaign=campaign).values_list("owner_id", flat=True))
    former = sorted(user_id for user_id in named - known if user_id is not None)
    return members + [
        {"id": user_id, "name": f"Former member {n}", "gm": False, "left": True}
        for n, user_id in enumerate(former, 1)
    ]


def _distinct_ids(model: type[models.Model], column: str, campaign: Campaign) -> set[int]:
    """The distinct non-null values of ``column`` in the campaign's rows of ``model``, by a
    skip through its index on ``(campaign, column)``: each step the next greater value, one
    index probe each, a few steps for a campaign's handful of people. A ``DISTINCT`` reads
    every entry of the index instead (PostgreSQL aggregates all 145,666 entries of a 100,000
    rolls campaign: 100 ms before an export's first byte). Both databases run this SQL."""
    table = connection.ops.quote_name(model._meta.db_table)
    name = connection.ops.quote_name(column)
    # Table and column names from the models, quoted; the campaign's id as a parameter.
    sql = (
        f"WITH RECURSIVE found(id) AS ("
        f" SELECT MIN({name}) FROM {table} WHERE campaign_id = %s"
        f" UNION ALL SELECT (SELECT MIN({name}) FROM {table} WHERE campaign_id = %s AND {name} > found.id)"
        f" FROM found WHERE found.id IS NOT NULL"
        f") SELECT id FROM found WHERE id IS NOT NULL"
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, [campaign.pk, campaign.pk])
        return {row[0] for row in cursor.fetchall()}


def _sessions(scope: Scope) -> list[dict[str, Any]]:
    sessions = PlaySession.objects.filter(campaign=scope.campaign).order_by("number")
    if scope.session is not None:
        sessions = sessions.filter(pk=scope.session.pk)
    # The dice seal: the seed's hash from the start, the seed once the session has ended.
    return [
        {
            "number": s.number,
            "started": _time(s.started),
            "ended": _time(s.ended),
            "seed_hash": s.seed_hash or None,
            "seed": s.revealed_seed or None,
        }
        for s in sessions
    ]


def _characters(campaign: Campaign) -> list[dict[str, Any]]:
    return [
        {
            "id": c.pk,
            "name": c.name,
            "owner": c.owner_id,
            "sheet": c.sheet,
            "luck": c.luck,
            "endurance": c.endurance,
            "drama_spent": c.drama_spent,
            "pride_used_in": c.pride_used_in,
            "created": _time(c.created),
        }
        for c in Character.objects.filter(campaign=campaign).order_by("pk")
    ]
