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

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.utils.translation import gettext as _

from rolls.log.events import TableEvent
from rolls.models import LogEntry, Roll, RollNote, Visibility
from rolls.play import void
from rolls.stats import tally as stats_tally
from rolls.systems import RulesError

NOTE_LENGTH = 2000


def roll_void(*, roll: Roll, gm: AbstractBaseUser) -> LogEntry:
    """Strike a roll made by mistake: it stays in the log, struck through everywhere."""
    return void.roll_void(
        roll=roll, actor=gm, text=_("The GM voided %(roll)s.") % {"roll": void.described(roll)}
    )


def roll_reveal(*, roll: Roll, gm: AbstractBaseUser) -> LogEntry:
    """Show a secret or blind roll to the whole table, from now on."""
    with transaction.atomic():
        locked = Roll.objects.select_for_update(no_key=True).get(pk=roll.pk)
        if locked.visibility == Visibility.PUBLIC:
            raise RulesError(_("Everyone sees this roll already."))
        if locked.revealed:
            raise RulesError(_("This roll is revealed already."))
        text = _("The GM revealed %(roll)s.") % {"roll": void.described(roll)}
        tally = stats_tally.Change(roll.campaign_id, [roll.pk])
        Roll.objects.filter(pk=roll.pk).update(revealed=True)
        roll.revealed = True
        # The roll's own dice seed goes public with it: its dice can be checked from now on.
        dice = {"roll": roll.pk, "seed": locked.seed} if locked.seed else None
        entry = void.mark(roll=roll, actor=gm, event=TableEvent.ROLL_REVEAL, text=text, dice=dice)
        tally.record()  # the table's statistics count it from now on
        return entry


def note_save(*, roll: Roll, text: str) -> RollNote:
    """Keep the GM's note on a roll (an empty text keeps an empty note)."""
    text = text.strip()
    if len(text) > NOTE_LENGTH:
        raise RulesError(_("A note holds at most %(max)s characters.") % {"max": NOTE_LENGTH})
    # Lines and tabs are a note's own; any other control character (a NUL, which PostgreSQL
    # refuses to store at all) is not something a GM types.
    if any(unicodedata.category(char) == "Cc" and char not in "\n\r\t" for char in text):
        raise RulesError(_("A note cannot hold control characters."))
    note, _created = RollNote.objects.update_or_create(roll=roll, defaults={"text": text})
    return note
