"""The GM's marks on a roll made earlier: void it (made by mistake), reveal it (a secret or
blind roll the table may now see), and the GM's own note on it.

Voiding and revealing are table events in the log (``TableEvent.ROLL_VOID``/``ROLL_REVEAL``):
nothing already written changes. Their entry names the roll and carries its state as it is,
so the live side sends the roll's card again (struck through, or with its dice) in place of
the old one. The ``Roll`` row is not the log: its ``voided``/``revealed`` flags say what the
log says, for the pages and the audience, and are set in the transaction that appends the
event, so the two never disagree.

The note is the GM's alone: not a log entry (the GM may rewrite it), never shown to a player.
"""

from __future__ import annotations

import unicodedata
from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction

from rolls.log.append import append_entry
from rolls.log.events import TableEvent
from rolls.models import LogEntry, Roll, RollNote, Visibility
from rolls.stats import tally as stats_tally
from rolls.systems import RulesError

NOTE_LENGTH = 2000


def _described(roll: Roll) -> str:
    """The roll as an event's line names it: nothing a player may not see (a secret roll's
    name is the GM's, and a blind roll's dice stay out of it)."""
    if roll.visibility == Visibility.SECRET:
        return "a secret GM roll"
    if roll.visibility == Visibility.BLIND:
        return f"{roll.character_name}'s blind roll"
    return f"{roll.character_name}'s roll" + (f" ({roll.trait})" if roll.trait else "")


def _mark(
    *, roll: Roll, gm: AbstractBaseUser, event: TableEvent, text: str, dice: dict[str, Any] | None = None
) -> LogEntry:
    return append_entry(
        campaign_id=roll.campaign_id,
        kind=LogEntry.Kind.EVENT,
        action=event,
        actor=gm,
        roll=roll,
        state=roll.current_state(),
        text=text[:300],
        dice=dice,
    )


def roll_void(*, roll: Roll, gm: AbstractBaseUser) -> LogEntry:
    """Strike a roll made by mistake: it stays in the log, struck through everywhere."""
    with transaction.atomic():
        locked = Roll.objects.select_for_update(no_key=True).get(pk=roll.pk)
        if locked.voided:
            raise RulesError("This roll is voided already.")
        tally = stats_tally.Change(roll.campaign_id, [roll.pk])
        Roll.objects.filter(pk=roll.pk).update(voided=True)
        roll.voided = True
        entry = _mark(roll=roll, gm=gm, event=TableEvent.ROLL_VOID, text=f"The GM voided {_described(roll)}.")
        tally.record()  # it counts nowhere now
        return entry


def roll_reveal(*, roll: Roll, gm: AbstractBaseUser) -> LogEntry:
    """Show a secret or blind roll to the whole table, from now on."""
    with transaction.atomic():
        locked = Roll.objects.select_for_update(no_key=True).get(pk=roll.pk)
        if locked.visibility == Visibility.PUBLIC:
            raise RulesError("Everyone sees this roll already.")
        if locked.revealed:
            raise RulesError("This roll is revealed already.")
        text = f"The GM revealed {_described(roll)}."
        tally = stats_tally.Change(roll.campaign_id, [roll.pk])
        Roll.objects.filter(pk=roll.pk).update(revealed=True)
        roll.revealed = True
        # The roll's own dice seed goes public with it: its dice can be checked from now on.
        dice = {"roll": roll.pk, "seed": locked.seed} if locked.seed else None
        entry = _mark(roll=roll, gm=gm, event=TableEvent.ROLL_REVEAL, text=text, dice=dice)
        tally.record()  # the table's statistics count it from now on
        return entry


def note_save(*, roll: Roll, text: str) -> RollNote:
    """Keep the GM's note on a roll (an empty text keeps an empty note)."""
    text = text.strip()
    if len(text) > NOTE_LENGTH:
        raise RulesError(f"A note holds at most {NOTE_LENGTH} characters.")
    # Lines and tabs are a note's own; any other control character (a NUL, which PostgreSQL
    # refuses to store at all) is not something a GM types.
    if any(unicodedata.category(char) == "Cc" and char not in "\n\r\t" for char in text):
        raise RulesError("A note cannot hold control characters.")
    note, _ = RollNote.objects.update_or_create(roll=roll, defaults={"text": text})
    return note
