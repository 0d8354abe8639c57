"""An entry's hashed content read from the database (``rolls.log.chain.content``): what the log
writes, the export shows and the check recomputes, built in one place so the three agree."""

from __future__ import annotations

from typing import Any

from rolls.log import chain
from rolls.models import LogEntry, Roll


def roll_about(roll: Roll) -> dict[str, Any]:
    """What the pages show of ``roll`` beyond its dice, as its first entry's content keeps it.
    Reads ``roll.session`` (a service has it at hand; a reader selects it with the roll)."""
    return chain.roll_facts(
        session=roll.session.number,
        system=roll.system,
        character_name=roll.character_name,
        helper_name=roll.helper_name,
        target_name=roll.target_name,
        intent=roll.intent,
        trait=roll.trait,
        visibility=roll.visibility,
        npc=roll.npc,
        mystery=roll.mystery,
        by_hand=roll.by_hand,
    )


def covers_roll(entry: LogEntry) -> bool:
    """Whether the entry's content holds its roll's facts: a version 2 roll entry."""
    return bool(entry.salt) and entry.kind == LogEntry.Kind.ROLL and entry.roll_id is not None


def entry_content(entry: LogEntry) -> dict[str, Any]:
    """The entry's hashed content from the row (and, for a roll's first entry, the roll's row:
    select ``roll__session`` with the entries)."""
    return chain.content(
        campaign=entry.campaign_id,
        seq=entry.seq,
        kind=entry.kind,
        action=entry.action,
        roll=entry.roll_id,
        actor=entry.actor_id,
        state=entry.state,
        text=entry.text,
        created=chain.timestamp(entry.created),
        dice=entry.dice,
        salt=entry.salt,
        about=roll_about(entry.roll) if covers_roll(entry) and entry.roll is not None else None,
    )


# The columns ``roll_about`` reads, as a query names them.
_FACT_COLUMNS = tuple("session__number" if key == "session" else key for key in chain.ROLL_FACTS)


def abouts(roll_ids: list[int]) -> dict[int, dict[str, Any]]:
    """``roll_about`` of many rolls in one query, without building their rows (a check of a
    long log reads thousands)."""
    rows = Roll.objects.filter(pk__in=roll_ids).values_list("pk", *_FACT_COLUMNS)
    return {row[0]: dict(zip(chain.ROLL_FACTS, row[1:], strict=True)) for row in rows}
