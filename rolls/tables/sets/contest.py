"""A contested `sets` roll at the table (SET-4, SET-10): sealed bids, revealed together.

The order of play, on top of ``rolls.contests.services`` (which seals the rolls):

1. Each side rolls, sealed: its player (the GM for a side without a sheet) and the GM see its
   dice, nobody else.
2. Each side bids from its own dice (``sealed_bid``): a step of the contest, kept in
   ``ContestSide.extra`` and shown only to that side and the GM. A side whose dice hold no set
   is offered only "no set" (the server reads the dice; nobody can claim no set while holding
   one, nor bid dice they did not roll). The log says that a side has bid, never what.
3. When both have bid, the dice and the bids are revealed at the same moment: one entry says
   both bids and who won (Size, then Face, then the attacker the GM named, SET-4), and each
   roll's card gets its bid and the other side's written in (``sealed_bid_state``).
4. Then the critical hits, compared set against set, in turn (SET-8, SET-10;
   ``critical_steps``): the winner, when it attacked, spends sets as critical hits first (a
   defender who wins only says when it is done with its other criticals), one step each, from
   dice not spent yet, and says when done; then the loser answers each in order, with a set
   of their own or none. Each set spent goes into its roll (its card shows the dice spent).
   Once all are answered, each critical hit that beats its answer (ties to the attacker) or
   meets none deals one more damage (``compare_critical_hits``), said in the log, on the
   panel and the TV. The other criticals (effects, flinch...) stay on the rolls' cards. The
   GM settles it.

So neither side sees the other's dice before both have bid: seeing them would tell how small a
bid still wins, and the sets held back for criticals would no longer be a secret.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from django.utils.translation import gettext as _

from rolls.systems import RulesError
from rolls.systems.base import Param, percent
from rolls.systems.sets import (
    Bid,
    attacker_position,
    best_bid,
    bid_win_chance,
    compare_critical_hits,
    extra_bid,
    score_bid,
    sealed_bid,
    sealed_bid_state,
    settle_bids,
    spend_set,
    unspent_set_dice,
)
from rolls.tables.base import ContestStep, ContestStepDone

if TYPE_CHECKING:
    from rolls.models import Contest, ContestSide

BID = "bid"
NO_SET = "no_set"
CRITICAL_HIT = "critical_hit"
HITS_DONE = "hits_done"
ANSWER = "critical_answer"
LET_THROUGH = "let_through"


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
        return [ContestStep(NO_SET, _("No set: bid nothing"), note=_("any set on the other side wins"))]
    choices = tuple(str(i) for i, face in enumerate(faces) if faces.count(face) >= 2)
    return [
        ContestStep(
            BID, _("Bid these dice, sealed"), (Param("dice", _("Dice to bid"), choices, multiple=True),)
        )
    ]


def take(
    side: ContestSide, sides: Sequence[ContestSide], step: ContestStep, params: Mapping[str, Any]
) -> ContestStepDone:
    """A sealed bid: the step goes in the side's ``extra``; the log only says it was made.
    After the reveal, a critical hit or an answer to one (``critical_take``)."""
    assert side.roll is not None
    if step.action in (CRITICAL_HIT, HITS_DONE, ANSWER, LET_THROUGH):
        return critical_take(side, sides, step, params)
    if step.action == NO_SET:
        if best_bid(faces_of(side)) is not None:
            raise RulesError(_("Your dice hold a set: bid it."))
        bid: dict[str, Any] = {"action": "bid", "size": 0, "bid": "none"}
    else:
        bid = sealed_bid(side.roll.current_state(), params.get("dice"))
    return ContestStepDone(
        {**side.extra, "bid": bid}, [], _("%(name)s has bid, sealed.") % {"name": side.name}
    )


def ready(sides: Sequence[ContestSide]) -> bool:
    """Both sides have bid and the GM has named the attacker (SET-4)."""
    return all("bid" in side.extra for side in sides) and attacker_of(sides) is not None


def attacker_of(sides: Sequence[Any]) -> int | None:
    """SET-4: the position of the side the GM named the attacker, None while nobody is."""
    return attacker_position([side.extra for side in sides])


def winner_by_role(sides: Sequence[Any], bids: Sequence[Bid | None]) -> int | None:
    """SET-4: the position whose bid wins, ties to the attacker by role (None: not named)."""
    attacker = attacker_of(sides)
    if attacker is None:
        return None
    won = settle_bids(bids[attacker], bids[1 - attacker]).winner == "attacker"
    return attacker if won else 1 - attacker


def revealed(sides: Sequence[ContestSide]) -> tuple[dict[int, dict[str, Any]], str]:
    """SET-4: both bids at once, written into both rolls, and one line for the log. Nothing
    while the GM has not named the attacker (a contest called off then reveals only dice)."""
    if len(sides) != 2:
        return {}, ""
    bids = [extra_bid(side.extra) for side in sides]
    winner = winner_by_role(sides, bids)
    if winner is None:
        return {}, ""
    states = {}
    for side in sides:
        if side.roll is None:
            continue
        theirs = bids[1 - side.position]
        bid = side.extra.get("bid") if bids[side.position] is not None else None
        states[side.position] = sealed_bid_state(
            side.roll.current_state(), bid, theirs, won=side.position == winner
        )
    return states, _("Bids revealed: %(words)s") % {"words": words(sides, bids)}


def words(sides: Sequence[ContestSide], bids: Sequence[Bid | None]) -> str:
    """Who bid what and who wins, in the table's words: "Ada (attacking) bid 3x4, the guard no
    set. Ada wins: any set beats no set." """
    attacker = attacker_of(sides)
    if attacker is None:
        return _("Bids are in; the GM has not named the attacker yet.")
    verdict = settle_bids(bids[attacker], bids[1 - attacker])
    winner = sides[attacker] if verdict.winner == "attacker" else sides[1 - attacker]
    said = ", ".join(
        _bid_said(side.name, bid, attacking=side.position == attacker)
        for side, bid in zip(sides, bids, strict=True)
    )
    return _("%(said)s. %(winner)s wins: %(why)s.") % {
        "said": said,
        "winner": winner.name,
        "why": verdict.why,
    }


def _bid_said(name: str, bid: Bid | None, *, attacking: bool) -> str:
    """One side's bid in the verdict: "Ada (attacking) bid 3x4", "the guard no set"."""
    if bid is None:
        return (_("%(name)s (attacking) no set") if attacking else _("%(name)s no set")) % {"name": name}
    said = _("%(name)s (attacking) bid %(bid)s") if attacking else _("%(name)s bid %(bid)s")
    return said % {"name": name, "bid": str(bid)}


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
    attacker = attacker_of(sides)
    if other is not None and attacker is not None:
        try:
            dice = request_of(contest, other).dice
        except RulesError:
            dice = None
    return [
        BidOption(
            str(bid),
            indices,
            "" if dice is None else percent(bid_win_chance(bid, dice, attacker=side.position == attacker)),
        )
        for bid, indices in picks
    ]


def no_set_chance(contest: Contest, side: ContestSide, sides: Sequence[ContestSide], request_of: Any) -> str:
    other = next((each for each in sides if each.pk != side.pk), None)
    attacker = attacker_of(sides)
    if other is None or attacker is None:
        return ""
    try:
        dice = request_of(contest, other).dice
    except RulesError:
        return ""
    chance: Fraction = bid_win_chance(None, dice, attacker=side.position == attacker)
    return percent(chance)


# -- critical hits, set against set (SET-8, SET-10) ------------------------------------------


def winner_of(sides: Sequence[ContestSide]) -> int | None:
    """The position whose bid won, once both bids are in (None before)."""
    if len(sides) != 2 or not all("bid" in side.extra for side in sides):
        return None
    return winner_by_role(sides, [extra_bid(side.extra) for side in sides])


def _set_choices(side: ContestSide) -> tuple[str, ...]:
    assert side.roll is not None
    return tuple(str(i) for i in unspent_set_dice(side.roll.current_state()))


def critical_steps(contest: Contest, side: ContestSide, sides: Sequence[ContestSide]) -> list[ContestStep]:
    """SET-10: whose turn it is after the reveal. The winner first: a critical hit per set
    (while an unspent set is left) until they say they are done; then the loser, one answer
    per critical hit, in the order spent. Nobody else, and nothing once all are answered."""
    win = winner_of(sides)
    if contest.state != contest.State.REVEALED or win is None or side.roll is None:
        return []
    winner, loser = sides[win], sides[1 - win]
    if side.pk == winner.pk:
        if winner.extra.get("hits_done"):
            return []
        steps = []
        # SET-8: critical hits only for the attacker; a defender who wins says when it is
        # done with its other criticals (on its card), and then the loser answers (SET-10).
        if win != attacker_of(sides):
            return [
                ContestStep(HITS_DONE, _("Done with criticals"), note=_("a defender deals no critical hit"))
            ]
        choices = _set_choices(side)
        if choices:
            dice = Param("dice", _("Dice of one set"), choices, multiple=True)
            steps.append(
                ContestStep(CRITICAL_HIT, _("Spend a critical hit"), (dice,), _("one more damage if it wins"))
            )
        steps.append(ContestStep(HITS_DONE, _("No more critical hits")))
        return steps
    hits = winner.extra.get("hits", [])
    answers = loser.extra.get("answers", [])
    if side.pk != loser.pk or not winner.extra.get("hits_done") or len(answers) >= len(hits):
        return []
    against = hits[len(answers)]["bid"]
    steps = []
    choices = _set_choices(side)
    if choices:
        dice = Param("dice", _("Dice of one set"), choices, multiple=True)
        steps.append(
            ContestStep(
                ANSWER,
                _("Answer the critical hit %(hit)s") % {"hit": against},
                (dice,),
                _("it deals no damage if yours wins"),
            )
        )
    steps.append(
        ContestStep(LET_THROUGH, _("No set against %(hit)s") % {"hit": against}, note=_("one more damage"))
    )
    return steps


def critical_take(
    side: ContestSide, sides: Sequence[ContestSide], step: ContestStep, params: Mapping[str, Any]
) -> ContestStepDone:
    """A critical hit spent, the winner done, or one answer: kept in the side's ``extra`` (and
    the dice in the roll). The last answer's line says the extra damage."""
    assert side.roll is not None
    if step.action == HITS_DONE:
        hits = side.extra.get("hits", [])
        if side.position != attacker_of(sides):
            return ContestStepDone(
                {**side.extra, "hits_done": True},
                [],
                _("%(name)s is done with criticals.") % {"name": side.name},
            )
        if hits:
            text = _("%(name)s spends no more critical hits (%(count)d to answer).") % {
                "name": side.name,
                "count": len(hits),
            }
        else:
            text = _("%(name)s spends no more critical hits: no extra damage.") % {"name": side.name}
        return ContestStepDone({**side.extra, "hits_done": True}, [], text)
    if step.action == LET_THROUGH:
        answers = [*side.extra.get("answers", []), {"bid": "none"}]
        extra = {**side.extra, "answers": answers}
        return ContestStepDone(extra, [], _answer_text(side, sides, extra, _("no set")))
    state, bid = spend_set(side.roll.current_state(), step.action, params.get("dice"))
    if step.action == CRITICAL_HIT:
        hits = [*side.extra.get("hits", []), {"bid": str(bid), "size": bid.size, "face": bid.face}]
        return ContestStepDone(
            {**side.extra, "hits": hits},
            [],
            _("%(name)s spends a critical hit: %(bid)s.") % {"name": side.name, "bid": str(bid)},
            state,
        )
    answers = [*side.extra.get("answers", []), {"bid": str(bid), "size": bid.size, "face": bid.face}]
    extra = {**side.extra, "answers": answers}
    return ContestStepDone(extra, [], _answer_text(side, sides, extra, str(bid)), state)


def _answer_text(side: ContestSide, sides: Sequence[ContestSide], extra: dict[str, Any], said: str) -> str:
    shown: list[Any] = list(sides)
    shown[side.position] = Shown(side.name, extra)
    last = exchanges_of(shown)[len(extra["answers"]) - 1]
    words = {"name": side.name, "hit": last.winner_set, "said": said}
    if last.hit:
        line = _("%(name)s answers the critical hit %(hit)s with %(said)s: one more damage.") % words
    else:
        line = _("%(name)s answers the critical hit %(hit)s with %(said)s: no damage from it.") % words
    damage = damage_words(shown)
    return f"{line} {damage}" if damage else line


@dataclass(frozen=True)
class Shown:
    """A side as it is about to be saved (its ``extra`` after the step), for the log's line."""

    name: str
    extra: dict[str, Any]


def _bid_of(entry: Mapping[str, Any]) -> Bid | None:
    return Bid(int(entry["size"]), int(entry["face"])) if entry.get("size") else None


@dataclass(frozen=True)
class Exchange:
    """One critical hit and its answer as the panel shows it ("" while unanswered)."""

    winner_set: str
    loser_set: str
    hit: bool | None


def exchanges_of(sides: Sequence[Any]) -> list[Exchange]:
    """SET-10: the winner's critical hits, in order, each with the loser's answer and whether
    it deals one more damage (None while not answered yet)."""
    win = winner_of(sides)
    if win is None:
        return []
    winner, loser = sides[win], sides[1 - win]
    hits = winner.extra.get("hits", [])
    answers = loser.extra.get("answers", [])
    exchanges = []
    for index, hit in enumerate(hits):
        mine = _bid_of(hit)
        assert mine is not None
        if index >= len(answers):
            exchanges.append(Exchange(str(mine), "", None))
            continue
        theirs = _bid_of(answers[index])
        attacks = win == attacker_of(sides)
        done = compare_critical_hits([mine], [] if theirs is None else [theirs], winner_attacks=attacks)[0]
        exchanges.append(Exchange(str(mine), _("no set") if theirs is None else str(theirs), done.hit))
    return exchanges


def damage_words(sides: Sequence[Any]) -> str:
    """The critical hits' extra damage in words, once every one is answered ("" before)."""
    win = winner_of(sides)
    if win is None or not sides[win].extra.get("hits_done"):
        return ""
    exchanges = exchanges_of(sides)
    if any(exchange.hit is None for exchange in exchanges):
        return ""
    if not exchanges:
        return ""
    damage = sum(1 for exchange in exchanges if exchange.hit)
    words = {"damage": damage, "count": len(exchanges)}
    if damage == 0:
        return _("Critical hits: no extra damage (%(damage)d of %(count)d got through).") % words
    return _("Critical hits: %(damage)d more damage (%(damage)d of %(count)d got through).") % words


def turn_words(contest: Contest, side: ContestSide, sides: Sequence[ContestSide]) -> str:
    """What this side may do now in the critical hits, for everyone's panel ("" if nothing)."""
    steps = critical_steps(contest, side, sides)
    if not steps:
        return ""
    if steps[-1].action == HITS_DONE:
        if winner_of(sides) != attacker_of(sides):
            return _(
                "Won as the defender: spends criticals first (no critical hit), then the other side answers."
            )
        return _("Won: spends critical hits first, one set at a time.")
    # The loser answers the winner's first critical hit not answered yet (``critical_steps``).
    win = winner_of(sides)
    assert win is not None
    hits = sides[win].extra.get("hits", [])
    against = hits[len(side.extra.get("answers", []))]["bid"]
    return _("Answers the critical hit %(hit)s with a set, or none.") % {"hit": against}
