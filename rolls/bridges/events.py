"""A log entry as the feed's JSON event (version 1, docs/feed-schema.json): what the table
display shows of it, and nothing more.

Which entries: every roll and follow-up, the GM's marks on a roll (void, reveal, a contest's
reveal) and the table's decisions (``DECISIONS``: a session, a call, a contest's steps and
verdict...), exactly the entries the TV shows. Joins, sheets, corrections of links and other
housekeeping are left out; their sequence numbers are simply skipped.

What of them: each roll is drawn as ``build_card`` draws it for the table (no membership, so
``rolls.sight.audience.sight`` decides as for the TV): a secret or blind roll, or a contest's
side still sealed, has no dice, request, outcome or odds, only what its card says (who, for a
blind roll or a sealed side; "the GM" for a secret one). The sentence is the one the TV's
announcer says (``rolls.live.announce``), in the table's language.
"""

from __future__ import annotations

from typing import Any

from rolls.history.export import difficulty
from rolls.live import announce
from rolls.log import chain
from rolls.log.events import DECISIONS, TableEvent
from rolls.models import LogEntry, Roll, Visibility
from rolls.sight.cards import Card, build_card
from tabletop.models import Campaign

VERSION = 1

# The kinds of event: a roll's own entry, a follow-up on it, the GM's marks on it, and the
# table's decisions (contests apart, being many).
_MARKS = {
    TableEvent.ROLL_VOID.value: "void",
    TableEvent.ROLL_REVEAL.value: "reveal",
    TableEvent.CONTEST_REVEAL.value: "reveal",
}
_CONTESTS = frozenset(
    event.value
    for event in (
        TableEvent.CONTEST_OPEN,
        TableEvent.CONTEST_ANSWER,
        TableEvent.CONTEST_STEP,
        TableEvent.CONTEST_END,
        TableEvent.CONTEST_CANCEL,
    )
)
_DECISIONS = frozenset(event.value for event in DECISIONS)
# The action of every entry of a hidden roll, whatever it was.
HIDDEN_ACTION = "secret"
KINDS = ("roll", "follow-up", "void", "reveal", "contest", "table")


def included(entry: LogEntry) -> bool:
    """Whether the feed carries ``entry``: what the table display shows."""
    return entry.roll_id is not None or entry.action in _DECISIONS


def kind_of(entry: LogEntry) -> str:
    if entry.kind == LogEntry.Kind.ROLL:
        return "roll"
    if entry.kind == LogEntry.Kind.FOLLOW_UP:
        return "follow-up"
    if entry.action in _MARKS:
        return _MARKS[entry.action]
    return "contest" if entry.action in _CONTESTS else "table"


def event_of(entry: LogEntry, campaign: Campaign, players: dict[int, str], base_url: str) -> dict[str, Any]:
    """The event for ``entry`` of ``campaign``, in the active language (the table's, which the
    caller activates). ``players``: display names by user id; ``base_url``: what the roll's
    link starts with (``https://dice.example.org``)."""
    roll = entry.roll
    card = None
    if roll is not None:
        card = build_card(
            roll,
            entry.state or {},
            entry.seq,
            place="feed",
            roll_seq=entry.seq if entry.kind == LogEntry.Kind.ROLL else None,
        )
    return {
        "version": VERSION,
        "seq": entry.seq,
        "kind": kind_of(entry),
        # A hidden roll's card names no step ("push" would say its dice failed): nor does this.
        "action": HIDDEN_ACTION if card is not None and card.hidden else entry.action,
        "time": chain.timestamp(entry.created),
        "campaign": {
            "id": campaign.pk,
            "name": campaign.name,
            "system": campaign.system,
            "language": campaign.language,
        },
        "text": announce.for_entry(entry, card),
        "roll": None if card is None else _roll(card, players, base_url),
    }


def _roll(card: Card, players: dict[int, str], base_url: str) -> dict[str, Any]:
    roll = card.roll
    shown: dict[str, Any] = {
        "id": roll.pk,
        "number": card.number,
        "url": base_url + card.page_url,
        "system": roll.system,
        "visibility": roll.visibility,
        "hidden": card.hidden,
        "voided": roll.voided,
        "by_hand": roll.by_hand,
        "who": _who(roll, card.hidden, players),
    }
    if card.hidden:
        return {**shown, "what": None, "steps": [], "outcome": None, "odds": None}
    request = card.state.get("request") or {}
    outcome = card.outcome
    return {
        **shown,
        "what": {
            "trait": roll.trait,
            "intent": roll.intent,
            "difficulty": difficulty(request),
            "pool": roll.pool,
            "request": request,
        },
        "steps": [
            {
                "action": step.action,
                "title": step.title,
                "note": step.note,
                "dice": [
                    {
                        "face": die.face,
                        "hit": die.hit,
                        "new": die.new,
                        "dropped": die.dropped,
                        "label": die.label,
                    }
                    for die in step.dice
                ],
            }
            for step in card.steps
        ],
        "outcome": {
            "success": outcome.success,
            "tone": outcome.tone,
            "key": outcome.key,
            "headline": outcome.headline,
            "details": list(outcome.details),
            "margin": outcome.margin,
        },
        "odds": {"chance": roll.chance},
    }


def _who(roll: Roll, hidden: bool, players: dict[int, str]) -> dict[str, Any]:
    """Who rolled, as the card names them: a secret roll is "the GM's", no more."""
    player = players.get(roll.roller_id) if roll.roller_id is not None else None
    if hidden:
        named = roll.visibility in (Visibility.BLIND, Visibility.SEALED)
        return {
            "character": roll.character_name if named else None,
            "player": player if named else None,
            "npc": roll.npc,
            "target": None,
            "helper": None,
        }
    return {
        "character": roll.character_name,
        "player": player,
        "npc": roll.npc,
        "target": roll.target_name or None,
        "helper": roll.helper_name or None,
    }
