"""Taking back a stray tap: the roller withdraws their own roll, a moment after making it, while
nothing has followed it.

It is the GM's void (``rolls.play.void``: the same ``ROLL_VOID`` event, struck through on every
screen, the TV and the GM's console included), with the roller as its actor, and allowed only
when striking the roll changes nothing anyone else acted on. Our reading of the rules documents,
which say nothing of mistaken taps (docs/rules.md, "Taking back a roll"):

- only the player who made the roll, and only within ``WINDOW`` of making it;
- only while the roll is its character's newest, and nothing has been written on it since
  (no follow-up by anyone, no answer against it, no mark of the GM's);
- never a side of a contest: the other side rolled knowing it (the GM may still void it).

Taking back the newest roll makes the roll before it the character's newest again, so the
follow-ups that go only on the newest roll (a push, drama dice) are offered on it again.
"""

from __future__ import annotations

from datetime import timedelta

from django.contrib.auth.models import AbstractBaseUser
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from rolls.models import ContestSide, LogEntry, Roll
from rolls.play import void
from rolls.systems import RulesError
from tabletop.models import Character, Membership

WINDOW = timedelta(seconds=30)


def seconds_left(roll: Roll, user: AbstractBaseUser) -> int:
    """How many seconds ``user`` still has to take ``roll`` back, as far as the row alone says
    (0: the page offers no button). The service checks everything again under the lock."""
    if roll.voided or roll.roller_id != user.pk or roll.character_id is None:
        return 0
    left = (roll.created + WINDOW - timezone.now()).total_seconds()
    return max(0, int(left))


def offer(roll: Roll | None, membership: Membership) -> dict[str, object] | None:
    """The take-back button of the roll screen's result panel, for its roll's roller while
    the window lasts: where it posts and how many seconds it stays (static/js/table.js
    removes it then)."""
    seconds = seconds_left(roll, membership.user) if roll is not None else 0
    if roll is None or not seconds:
        return None
    url = reverse("rolls:roll-take-back", args=[membership.campaign_id, roll.pk])
    return {"url": url, "seconds": seconds}


def newest_standing(character: Character) -> Roll | None:
    """The character's newest roll that is not voided: what its roll screen shows, and the
    roll a take-back hands the follow-ups of the newest roll back to."""
    return (
        Roll.objects.filter(character=character, voided=False)
        .select_related("character")
        .order_by("-id")
        .first()
    )


def _refusal(roll: Roll, user: AbstractBaseUser) -> str:
    """Why ``user`` may not take ``roll`` back now, or "" when they may."""
    if roll.roller_id != user.pk or roll.character_id is None:
        return _("Only the player who made a roll can take it back; the GM can void it.")
    if timezone.now() > roll.created + WINDOW:
        return ngettext(
            "A roll can be taken back only in its first %(seconds)s second; ask the GM to void it.",
            "A roll can be taken back only in its first %(seconds)s seconds; ask the GM to void it.",
            int(WINDOW.total_seconds()),
        ) % {"seconds": int(WINDOW.total_seconds())}
    if ContestSide.objects.filter(roll_id=roll.pk).exists():
        return _("A contest's roll cannot be taken back: the other side rolled knowing it. Ask the GM.")
    if LogEntry.objects.filter(roll_id=roll.pk).exclude(kind=LogEntry.Kind.ROLL).exists():
        return _("Something has followed this roll already, so it stands; ask the GM to void it.")
    newer = Roll.objects.filter(character_id=roll.character_id, voided=False, pk__gt=roll.pk).exists()
    if newer:
        return _("This character has rolled again since: only the newest roll can be taken back.")
    return ""


def roll_take_back(*, roll: Roll, roller: AbstractBaseUser) -> LogEntry:
    """Void ``roll`` at its roller's request; raises RulesError, and writes nothing, unless
    every condition of the module's docstring holds (checked under the roll's lock)."""

    def check(locked: Roll) -> None:
        reason = _refusal(locked, roller)
        if reason:
            raise RulesError(reason)

    said = void.described(roll)
    text = _("%(roll)s was taken back by its player.") % {"roll": said[:1].upper() + said[1:]}
    return void.roll_void(roll=roll, actor=roller, text=text, check=check)
