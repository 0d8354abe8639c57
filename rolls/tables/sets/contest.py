"""A contested `sets` roll at the table (SET-4, SET-10): sealed bids, revealed together.

The order of play, on top of ``rolls.contests`` (which seals the rolls):

1. Each side rolls, sealed: its player (the GM for a side without a sheet) and the GM see its
   dice, nobody else.
2. Each side bids from its own dice (``sealed_bid``): a step of the contest, kept in
   ``ContestSide.extra`` and shown only to that side and the GM. A side whose dice hold no set
   is offered only "no set" (the server reads the dice; nobody can claim no set while holding
   one, nor bid dice they did not roll). The log says that a side has bid, never what.
3. When both have bid, the dice and the bids are revealed at the same moment: one entry says
   both bids and who won (Size, then Face, then the attacker: the first side, SET-4), and each
   roll's card gets its bid and the other side's written in (``sealed_bid_state``).
4. Then the criticals go on the rolls' cards as on any opposed roll: the winner's card offers
   the successes' criticals, the loser's the failures' (SET-8, SET-10). The GM settles it.

So neither side sees the other's dice before both have bid: seeing them would tell how small a
bid still wins, and the sets held back for criticals would no longer be a secret.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from rolls.systems import RulesError
from rolls.systems.base import Param, percent
from rolls.systems.sets import (
    Bid,
    best_bid,
    bid_win_chance,
    extra_bid,
    score_bid,
    sealed_bid,
    sealed_bid_state,
    settle_bids,
)
from rolls.tables.base import ContestStep, ContestStepDone

if TYPE_CHECKING:
    from rolls.models import Contest, ContestSide

BID = "bid"
NO_SET = "no_set"


def faces_of(side: ContestSide) -> list[int]:
    assert side.roll is not None
    return [int(face) for face in side.roll.current_state()["steps"][0]["dice"]]


def steps(contest: Contest, side: ContestSide) -> list[ContestStep]:
    """SET-4: once its dice are rolled, a side bids once, before the reveal: dice of a set
    when it has one, else only "no set"."""
    if contest.state != contest.State.OPEN or side.roll is None or "bid" in side.extra:
        return []
    faces = faces_of(side)
    if best_bid(faces) is None:
        return [ContestStep(NO_SET, "No set: bid nothing", note="any set on the other side wins")]
    choices = tuple(str(i) for i, face in enumerate(faces) if faces.count(face) >= 2)
    return [
        ContestStep(BID, "Bid these dice, sealed", (Param("dice", "Dice to bid", choices, multiple=True),))
    ]


def take(side: ContestSide, step: ContestStep, params: Mapping[str, Any]) -> ContestStepDone:
    """A sealed bid: the step goes in the side's ``extra``; the log only says it was made."""
    assert side.roll is not None
    if step.action == NO_SET:
        if best_bid(faces_of(side)) is not None:
            raise RulesError("Your dice hold a set: bid it.")
        bid: dict[str, Any] = {"action": "bid", "size": 0, "bid": "none"}
    else:
        bid = sealed_bid(side.roll.current_state(), params.get("dice"))
    return ContestStepDone({**side.extra, "bid": bid}, [], f"{side.name} has bid, sealed.")


def ready(sides: Sequence[ContestSide]) -> bool:
    return all("bid" in side.extra for side in sides)


def revealed(sides: Sequence[ContestSide]) -> tuple[dict[int, dict[str, Any]], str]:
    """SET-4: both bids at once, written into both rolls, and one line for the log."""
    if len(sides) != 2:
        return {}, ""
    bids = [extra_bid(side.extra) for side in sides]
    verdict = settle_bids(bids[0], bids[1])
    winner = 0 if verdict.winner == "attacker" else 1
    states = {}
    for side in sides:
        if side.roll is None:
            continue
        theirs = bids[1 - side.position]
        bid = side.extra.get("bid") if bids[side.position] is not None else None
        states[side.position] = sealed_bid_state(
            side.roll.current_state(), bid, theirs, won=side.position == winner
        )
    return states, "Bids revealed: " + words(sides, bids)


def words(sides: Sequence[ContestSide], bids: Sequence[Bid | None]) -> str:
    """Who bid what and who wins, in the table's words: "Ada (attacking) bid 3x4, the guard no
    set. Ada wins: any set beats no set." """
    verdict = settle_bids(bids[0], bids[1])
    winner = sides[0] if verdict.winner == "attacker" else sides[1]
    said = ", ".join(
        f"{side.name}{' (attacking)' if side.position == 0 else ''} "
        f"{'bid ' + str(bid) if bid is not None else 'no set'}"
        for side, bid in zip(sides, bids, strict=True)
    )
    why = verdict.note.split(": ", 1)[-1]
    return f"{said}. {winner.name} wins: {why}"


@dataclass(frozen=True)
class BidOption:
    """A bid a phone offers in one tap: its label, the dice it spends, its chance to win."""

    label: str
    indices: list[str]
    chance: str


def options(
    contest: Contest, side: ContestSide, sides: Sequence[ContestSide], request_of: Any
) -> list[BidOption]:
    """The bids worth one tap (every set together, then each set alone, strongest first),
    each with the exact chance it wins against the other side's dice, still sealed, when
    that side bids its best set (SET-4; ties go to the attacker)."""
    faces = faces_of(side)
    groups: dict[int, list[str]] = {}
    for index, face in enumerate(faces):
        groups.setdefault(face, []).append(str(index))
    sets = {face: indices for face, indices in groups.items() if len(indices) >= 2}
    picks: list[tuple[Bid, list[str]]] = [(score_bid([face] * len(ix)), ix) for face, ix in sets.items()]
    picks.sort(key=lambda pick: pick[0], reverse=True)
    if len(sets) > 1:
        together = sorted((i for ix in sets.values() for i in ix), key=int)
        picks.insert(0, (score_bid(faces[int(i)] for i in together), together))
    other = next((each for each in sides if each.pk != side.pk), None)
    dice = None
    if other is not None:
        try:
            dice = request_of(contest, other).dice
        except RulesError:
            dice = None
    return [
        BidOption(
            str(bid),
            indices,
            "" if dice is None else percent(bid_win_chance(bid, dice, attacker=side.position == 0)),
        )
        for bid, indices in picks
    ]


def no_set_chance(contest: Contest, side: ContestSide, sides: Sequence[ContestSide], request_of: Any) -> str:
    other = next((each for each in sides if each.pk != side.pk), None)
    if other is None:
        return ""
    try:
        dice = request_of(contest, other).dice
    except RulesError:
        return ""
    chance: Fraction = bid_win_chance(None, dice, attacker=side.position == 0)
    return percent(chance)
