"""A contest in the history: one entry where it opened, its sides and their rolls inside it,
and a page of its own with every part in the order it happened.

The parts are found from the log itself: the contest's events name it in their state (under
the entry's hash, ``rolls.contests.services.contest_event``), and its rolls are its sides'. Each roll
is drawn for whoever looks, as everywhere (``rolls.sight.audience``): a side still sealed shows its
dice to its roller and the GM only.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from django.db.models import Q
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from rolls.contests import services
from rolls.log.events import TableEvent
from rolls.log.reads import newest_states
from rolls.models import Contest, ContestSide, LogEntry
from rolls.sight.cards import Card, build_card
from tabletop.models import Membership

STATES = {
    Contest.State.ASKED: gettext_lazy("waiting for an answer"),
    Contest.State.OPEN: gettext_lazy("being rolled"),
    Contest.State.REVEALED: gettext_lazy("revealed, not settled yet"),
    Contest.State.REFUSED: gettext_lazy("refused"),
    Contest.State.CANCELLED: gettext_lazy("called off"),
}


@dataclass
class ContestEntry:
    """The history's entry for one contest (``contest_entry`` tells the template so)."""

    entry: LogEntry
    contest: Contest
    sides: list[tuple[ContestSide, Card | None]] = field(default_factory=list)
    contest_entry: bool = True

    @property
    def status(self) -> str:
        return contest_status(self.contest)

    @property
    def title(self) -> str:
        # Sides against one another, or side by side in a flow of another kind (one Danger).
        joint = _(" against ") if self.contest.kind == Contest.Kind.CONTEST else _(", ")
        return joint.join(side.name for side, _card in self.sides)


def contest_status(contest: Contest) -> str:
    """How a contest ended (its verdict), or where it stands."""
    if contest.state == Contest.State.CLOSED:
        return contest.verdict
    return str(STATES.get(Contest.State(contest.state), ""))


def contest_entries(entries: list[LogEntry], membership: Membership) -> dict[int, ContestEntry]:
    """The contests opened by ``entries`` (their CONTEST_OPEN events), by the entry's seq,
    each with its sides' rolls drawn for ``membership``: a few queries for the whole page."""
    opened = {
        entry.state["contest"]: entry
        for entry in entries
        if entry.action == TableEvent.CONTEST_OPEN
        and isinstance(entry.state, dict)
        and "contest" in entry.state
    }
    if not opened:
        return {}
    found = (
        Contest.objects.filter(pk__in=list(opened), campaign_id=membership.campaign_id)
        .select_related("campaign", "session")  # the history groups the entry under its session
        .prefetch_related("sides__roll__character", "sides__roll__target", "sides__roll__session")
    )
    made = {contest.pk: ContestEntry(opened[contest.pk], contest) for contest in found}
    rolls = [
        side.roll for item in made.values() for side in item.contest.sides.all() if side.roll is not None
    ]
    states = newest_states([roll.pk for roll in rolls])
    for item in made.values():
        for side in item.contest.sides.all():
            card = None
            if side.roll is not None:
                state, seq = states.get(side.roll.pk, ({}, item.entry.seq))
                card = build_card(side.roll, state, seq, place="history", membership=membership)
            item.sides.append((side, card))
    return {item.entry.seq: item for item in made.values()}


def contest_parts(contest: Contest, membership: Membership) -> list[Card | LogEntry]:
    """Every part of the contest in the order it happened: its events, each roll and each
    follow-up (a roll's card as it stood after that entry), each reveal."""
    roll_ids = list(contest.sides.exclude(roll=None).values_list("roll_id", flat=True))
    entries = (
        LogEntry.objects.filter(campaign_id=contest.campaign_id)
        .filter(Q(kind=LogEntry.Kind.EVENT, state__contest=contest.pk) | Q(roll_id__in=roll_ids))
        .select_related("roll", "roll__character", "roll__target", "actor")
        .order_by("seq")
    )
    parts: list[Card | LogEntry] = []
    for entry in entries:
        if entry.roll is not None and entry.kind != LogEntry.Kind.EVENT:
            parts.append(
                build_card(entry.roll, entry.state or {}, entry.seq, place="history", membership=membership)
            )
        else:
            parts.append(entry)
    return parts


def standing_line(contest: Contest) -> str:
    """Who is winning as the rolls stand, for a contest revealed but not settled."""
    if contest.state != Contest.State.REVEALED:
        return ""
    return services.verdict(contest)
