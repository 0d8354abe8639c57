"""A follow-up's answer as its player's roll screen shows it, drawn once.

A player who taps a follow-up on their roll screen gets the roll's new card, with their
buttons, and their character's resources line: in the answer to the tap, and again from every
socket of theirs on that roll screen (the same page, whose copy changes nothing there, and any
other tab). Both are the same markup, drawn for the same member from the same state. So the
writer draws it once, as it publishes the entry and before any socket hears of it; the answer
sends it, and so do those sockets, from the markup kept here or carried by the broadcast, where
each used to read the entry back and draw both again (a fifth of a follow-up's CPU in
``bench/mix.py``).

Only a follow-up asked by the player of the roll's character is drawn so: theirs is the one
screen with a result panel and buttons on it (the GM acts from the console, a target from the
panel of rolls against them). With ``FAST_PATH`` "shared_markup" off nothing is kept, and the
answer and the sockets draw for themselves (``rolls.sight.kept.sharing``).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any

from django.template.loader import render_to_string

from rolls import registry
from rolls.models import LogEntry
from rolls.sight.audience import Delivery, Panel
from rolls.sight.cards import build_card
from rolls.sight.kept import Kept, sharing
from tabletop.access import membership_or_none

if TYPE_CHECKING:
    from rolls.models import Roll
    from tabletop.models import Membership

# Answers kept per process: a follow-up's sockets ask within moments of its commit.
ANSWERS = 1024


@dataclass(frozen=True)
class Answer:
    """The result card and resources line of a follow-up, as its asker's roll screen shows them."""

    user_id: int  # the asker, the player of the roll's character: whose buttons the card has
    character_id: int  # the roll's character: whose roll screen holds this result card
    card: str  # ``rolls/_card.html`` at the place "result"
    resources: str  # ``rolls/_resources_oob.html``: the character's line, swapped out of band

    @property
    def html(self) -> str:
        return self.card + self.resources

    def covers(self, sent: Delivery) -> bool:
        """Whether it is all a socket's ``delivery`` asks beyond the shared markup: the result
        card and the resources line, nothing drawn for its member alone besides."""
        return sent.result_card and not sent.own_card and not sent.panels & ~Panel.RESOURCES


_kept: Kept[tuple[int, int], Answer] = Kept(ANSWERS)


def draw(roll: Roll, entry: LogEntry, membership: Membership) -> Answer:
    """The answer to ``membership``'s follow-up ``entry`` on ``roll``'s card in their result panel."""
    assert roll.character is not None
    card = build_card(roll, entry.state or {}, entry.seq, place="result", membership=membership)
    resources = {
        "character": roll.character,
        "resources_template": registry.table(roll.system).resources_template,
    }
    return Answer(
        user_id=membership.user_id,
        character_id=roll.character.pk,
        card=card.markup,
        resources=render_to_string("rolls/_resources_oob.html", resources),
    )


def prepare(entry: LogEntry) -> dict[str, Any] | None:
    """Draw and keep the answer of a follow-up just written, from the objects the writer holds
    (the roll with its character as the follow-up left it), when its roll's player asked for it;
    as plain data for the broadcast, so the sockets of other processes send it too. None for
    any other entry, and when nothing is kept."""
    roll = entry.roll
    if (
        not sharing()
        or entry.kind != LogEntry.Kind.FOLLOW_UP
        or roll is None
        or roll.character is None
        or entry.actor is None
        or entry.actor_id != roll.character.owner_id
    ):
        return None
    membership = membership_or_none(entry.actor, entry.campaign_id)
    if membership is None:
        return None
    answer = draw(roll, entry, membership)
    _kept.put((entry.campaign_id, entry.seq), answer)
    return asdict(answer)


def receive(campaign_id: int, seq: int, data: dict[str, Any]) -> None:
    """Keep the answer a broadcast carried (drawn by the writer's process)."""
    if sharing() and (campaign_id, seq) not in _kept:
        _kept.put((campaign_id, seq), Answer(**data))


def kept(campaign_id: int, seq: int, user_id: int, character_id: int | None) -> Answer | None:
    """The answer to entry ``seq`` kept for ``user_id``'s roll screen of ``character_id``, if any."""
    answer = _kept.get((campaign_id, seq))
    if answer is None or answer.user_id != user_id or answer.character_id != character_id:
        return None
    return answer


def forget_all() -> None:
    _kept.clear()
