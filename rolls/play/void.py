"""Voiding a roll: the GM's mark on a roll made by mistake, and the roller's own take-back of
a stray tap. One service writes both, with one log event (``TableEvent.ROLL_VOID``) whose actor
says who struck it; ``rolls.history.marks`` offers it to the GM, ``rolls.play.takeback`` to the
roller, within its window.

The roll stays in the log, struck through everywhere; its ``voided`` flag repeats what the log
says and is set in the transaction that appends the event. A voided roll no longer counts as its
character's latest (``Roll.is_latest``), so voiding the newest roll gives the roll before it back
the follow-ups that only go on a character's latest roll (a push, drama dice).
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.utils.translation import gettext as _

from rolls.log.append import append_entry
from rolls.log.events import TableEvent
from rolls.models import LogEntry, Roll, Visibility
from rolls.stats import tally as stats_tally
from rolls.systems import RulesError


def described(roll: Roll) -> str:
    """The roll as an event's line names it: nothing a player may not see (a secret roll's
    name is the GM's, and a blind roll's dice stay out of it)."""
    if roll.visibility == Visibility.SECRET:
        return _("a secret GM roll")
    if roll.visibility == Visibility.BLIND:
        return _("%(name)s's blind roll") % {"name": roll.character_name}
    if roll.trait:
        return _("%(name)s's roll (%(trait)s)") % {"name": roll.character_name, "trait": roll.trait}
    return _("%(name)s's roll") % {"name": roll.character_name}


def mark(
    *, roll: Roll, actor: AbstractBaseUser, event: TableEvent, text: str, dice: dict[str, Any] | None = None
) -> LogEntry:
    """Append ``event`` naming ``roll`` and carrying its state as it is."""
    return append_entry(
        campaign_id=roll.campaign_id,
        kind=LogEntry.Kind.EVENT,
        action=event,
        actor=actor,
        roll=roll,
        state=roll.current_state(),
        text=text[:300],
        dice=dice,
    )


def roll_void(*, roll: Roll, actor: AbstractBaseUser, text: str, check: Any = None) -> LogEntry:
    """Strike ``roll``: it stays in the log, struck through everywhere, and counts nowhere.
    ``check(locked)``, when given, runs under the roll's lock and raises RulesError to refuse
    (the take-back's conditions); then nothing is written."""
    with transaction.atomic():
        locked = Roll.objects.select_for_update(no_key=True).get(pk=roll.pk)
        if locked.voided:
            raise RulesError(_("This roll is voided already."))
        if check is not None:
            check(locked)
        tally = stats_tally.Change(roll.campaign_id, [roll.pk])
        Roll.objects.filter(pk=roll.pk).update(voided=True)
        roll.voided = True
        entry = mark(roll=roll, actor=actor, event=TableEvent.ROLL_VOID, text=text)
        tally.record()  # it counts nowhere now
        return entry
