"""Everything a roll card shows, computed once, for the one partial that draws a card in the
feed, the result panel, the history and the socket."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from rolls.models import Roll
from rolls.services import is_latest
from rolls.systems import get_system
from rolls.systems.base import FollowUp, Outcome, StepView, percent
from rolls.tables import adapter_for
from tabletop.access import may_act_for
from tabletop.models import Membership


@dataclass
class FollowUpButton:
    follow_up: FollowUp
    odds: str  # "0% -> 35%" or ""

    @property
    def action(self) -> str:
        return self.follow_up.action


@dataclass
class Card:
    roll: Roll
    state: dict[str, Any]
    seq: int
    outcome: Outcome
    steps: tuple[StepView, ...]
    place: str  # "feed", "result" or "history": part of the element id
    follow_ups: list[FollowUpButton] = field(default_factory=list)

    @property
    def dom_id(self) -> str:
        return f"{self.place}-roll-{self.roll.pk}"

    @property
    def need(self) -> Any:
        return self.state["request"].get("need")


def build_card(
    roll: Roll,
    state: dict[str, Any],
    seq: int,
    *,
    place: str,
    membership: Membership | None = None,
) -> Card:
    """A card for ``roll`` as of ``state``. Follow-up buttons are listed only in the result
    panel, for someone who may act for the character, and only when the state shown is the
    roll's latest (a stale card never offers a button)."""
    system = get_system(roll.system)
    card = Card(roll, state, seq, system.evaluate(state), system.view(state), place)
    if place == "result" and membership is not None and roll.character is not None:
        if may_act_for(membership, roll.character):
            adapter = adapter_for(roll.system)
            resources = adapter.resources(roll.character, latest=is_latest(roll))
            for follow_up in system.follow_ups(state, resources):
                odds = ""
                if follow_up.chance_after is not None:
                    odds = f"{percent(follow_up.chance_before)} -> {percent(follow_up.chance_after)}"
                card.follow_ups.append(FollowUpButton(follow_up, odds))
    return card


def latest_card(roll: Roll, *, place: str, membership: Membership | None = None) -> Card:
    entry = roll.entries.order_by("-seq").first()
    assert entry is not None
    return build_card(roll, entry.state or {}, entry.seq, place=place, membership=membership)
