"""The one sentence a screen reader hears for each entry the socket sends (issue 45).

Every page holds one announcer (``templates/_announcer.html``): a quiet live region whose
text the socket replaces, out of band, with one short sentence per entry, "Ana rolled 5 dice:
Success: 2 of 2 needed." A batch of several entries sends one sentence each, in order, so the
page is left saying the last. The other regions of the page change without speaking.

The sentence is built from what its audience sees of the entry: from the card drawn for that
audience (``rolls.sight.cards.build_card``, which asks ``rolls.sight.audience.sight``), or from
an event's line, which every member reads in the feed. A hidden card (a secret or blind roll,
a sealed side, seen by anyone but the GM) gives its roller's name and how it was rolled,
never its dice, intent or outcome, and the same sentence for the roll and for each follow-up
on it: the card the table gets again is the same card, and the sentence must not tell more.
It is drawn in the language active while the entry is drawn, the table's.
"""

from __future__ import annotations

import re

from django.utils.html import format_html
from django.utils.safestring import SafeString
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from rolls.log.events import TableEvent
from rolls.models import LogEntry, Visibility
from rolls.sight.cards import Card

# Where the sentence goes: the element of templates/_announcer.html.
ANNOUNCER = "announcer"
# What ends a sentence: a line that already ends with one is not given another.
_ENDS = ".!?…"
# Where one sentence of a line ends and the next begins.
_BETWEEN = re.compile(r"(?<=[.!?…])\s+")
# Reveals of a roll, whose card now shows the table its dice.
_REVEALS = frozenset({TableEvent.ROLL_REVEAL, TableEvent.CONTEST_REVEAL})


def markup(sentence: str) -> SafeString:
    """The out-of-band swap that puts ``sentence`` in the page's announcer, in place of what it
    said before (its node stays: a screen reader watches that node). Nothing for no sentence."""
    if not sentence:
        return SafeString("")
    return format_html('<div id="{}" hx-swap-oob="innerHTML">{}</div>', ANNOUNCER, sentence)


def for_entry(entry: LogEntry, card: Card | None = None) -> str:
    """The sentence for ``entry`` as the audience of ``card`` sees it (``card``: the entry's
    roll drawn for that audience; None for an event without a roll)."""
    if card is None:
        return event_sentence(entry)
    if entry.kind == LogEntry.Kind.EVENT:
        if entry.action in _REVEALS and not card.hidden:
            result = clause(card.outcome.headline)
            if result:
                return _("%(name)s's roll revealed: %(result)s.") % {
                    "name": card.roll.character_name,
                    "result": result,
                }
        return event_sentence(entry)
    return card_sentence(card, followed_up=entry.kind == LogEntry.Kind.FOLLOW_UP)


def card_sentence(card: Card, *, followed_up: bool = False) -> str:
    """What a roll's card says in one sentence: who rolled how many dice and what came of it;
    for a follow-up, who did what and what came of it."""
    roll = card.roll
    if card.hidden:
        return hidden_sentence(roll.visibility, roll.character_name)
    name = roll.character_name
    result = clause(card.outcome.headline)
    if followed_up and card.steps:
        step = clause(card.steps[-1].title)
        # Translators: a follow-up on a roll, e.g. "Ana, Pushed, checking Scared: Success: 2 of 2 needed."
        return _("%(name)s, %(step)s: %(result)s.") % {"name": name, "step": step, "result": result}
    count = len(card.steps[0].dice) if card.steps else 0
    if not count:
        return _("%(name)s rolled: %(result)s.") % {"name": name, "result": result}
    return ngettext(
        "%(name)s rolled %(count)d die: %(result)s.",
        "%(name)s rolled %(count)d dice: %(result)s.",
        count,
    ) % {"name": name, "count": count, "result": result}


def hidden_sentence(visibility: str, name: str) -> str:
    """A hidden roll's sentence, for the roll and each follow-up alike: only what its card
    shows everyone (the roller's name for a blind roll or a sealed side, none for a secret)."""
    if visibility == Visibility.BLIND:
        return _("%(name)s rolled blind.") % {"name": name}
    if visibility == Visibility.SEALED:
        return _("%(name)s rolled for the contest, sealed.") % {"name": name}
    return _("The GM rolled in secret.")


def event_sentence(entry: LogEntry) -> str:
    """An event's line as one sentence (every member reads the line in the feed); a contest's
    verdict says that the contest is settled."""
    text = clause(entry.text or "")
    if not text:
        return ""
    if entry.action == TableEvent.CONTEST_END:
        return _("Contest settled: %(verdict)s.") % {"verdict": text}
    return f"{text}."


def clause(text: str) -> str:
    """``text`` as a clause to stand inside one sentence: without the stop that ends it, its
    sentences (a verdict says who bid what, then who wins) joined by semicolons."""
    parts = [part.strip().rstrip(_ENDS).strip() for part in _BETWEEN.split(text.strip())]
    return "; ".join(part for part in parts if part)
