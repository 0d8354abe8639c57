"""`sets`: spend matching dice.

Rules choices where the document leaves room (also on the in-app rules page):

- **The pool (SET-1, SET-11).** Pool = derived stat + bonus dice - penalty dice + one die per
  significant helper + one die for every full three lesser helpers (six lesser helpers give
  two dice; one or two left over give nothing).
- **Help is the Judge's call (SET-11).** The helpers' dice are rolled last, and the roll
  offers nothing but the GM's ``help_counts`` / ``help_struck`` until the Judge says whether
  the help counts; struck, the helpers' dice are spent and count for nothing (``_counted``).
- **Caps.** At most 15 dice after every modifier (stat and penalty 0-15, bonus 0-10, five
  significant helpers, fifteen lesser ones). A pool of zero or fewer dice is refused: with no
  dice nobody can make a set, so there is nothing to roll, and the Judge narrates the failure.
  A single die may be rolled, though it can never make a set.
- **A set in a bid (SET-3, SET-6, SET-7).** The dice a bid spends are grouped by face; every
  face in the bid must show on two dice or more (one die is never a set). Each face group is
  one set: Size = the largest group + 1 for every other group, Face = the lowest die bid.
  Splitting one face into two pairs inside the same bid would only lower its Size, so we never
  read a bid that way; spending "part of a set" means leaving some of its dice unspent, for a
  later critical.
- **The best bid** (the odds and the result key) bids every set together, whole: no other bid
  reaches that Size, so it is the strongest one the roll allows.
- **The bid offered first** (``usual_bid``, the card's one-tap "best" bid) is another thing:
  against a Bar, the bid that meets it and keeps the most sets for criticals (then the fewest
  dice, then the lowest bid): with 3 3 1 1 6 5 against an Apprentice 2x3 that is 2x3, keeping
  the pair of 1s, not 3x1, which meets it too but spends four dice. A roll that meets the Bar
  with no bid is offered the same order over every bid: one small set, the rest kept for
  defy death, flinch or clean break. An opposed roll is offered every set together.
- **Meeting a Bar (SET-5).** A larger Size meets the Bar whatever the Faces; an equal Size
  needs a Face at or above the Bar's. A rolled Face is rolled by the server right after the
  pool, with the same random source, and kept in the roll step.
- **Opposed rolls (SET-4, SET-10).** No Bar (Bar fields in the request are ignored). After the
  bid the table records the other side's bid (``opposition``; Size 0 when they have no set);
  larger Size, then higher Face, then the attacker wins, and any set beats no set. Until then
  the roll has no success or failure, so no critical can be chosen. The winner spends
  further sets first (``spending_order``).
- **An opposed roll with no set (SET-3, SET-4).** It has nothing to bid, so the other side's
  bid is recorded at once: any set beats it; two sides with no set tie, and the tie goes to
  the attacker, as every tie does.
- **Blind rolls.** Only the Judge sees a blind roll's dice. Its roller may still bid from the
  phone, unseen: the strongest bid the dice allow is spent (``bid_best``), and they may
  record the other side's bid; criticals pick dice, so the Judge spends them from the
  session page, where blind rolls wait (``blind_follow_ups``).
- **Criticals (SET-8, SET-9).** Only after the bid, from dice not spent yet; each critical
  spends exactly one set (dice of one face, two or more). A success may buy critical effects,
  and critical hits only on the attacker's opposed roll (a defender who wins, or a roll
  against a Bar, which attacks nobody, deals no extra damage); a failure defy death, flinch
  and clean break. Critical hits, critical
  effects and flinches may be bought again with further sets (one more damage compared, one
  more effect, one less damage); defy death and clean break once per roll, since a second one
  changes nothing.
- **Settling an older roll.** Bids, criticals and the other side's bid spend only the roll's
  own dice, never anything on a sheet, so a roll left unsettled when a session ends can still
  be settled later.
- **Contest odds (SET-4).** ``system.contest`` has each side bid its best set (every set
  together, whole) and compares them: larger Size, then higher Face, then the attacker; a
  side with no set loses to any set, and no set against no set goes to the attacker. There
  is no tie left. The attacker is side A unless A's request says it defends; two defenders
  are refused, and so is a request with a Bar (a contest compares bids, not a Bar).
- **Who attacks (SET-4).** The Judge's call, kept on each side of a contest at the table
  (``attacker_position``), written into its request; ties and critical hits follow the
  role, never the position. Without one named no contest odds are given and
  ``contest_winner`` refuses.
- **Sealed bids (SET-4).** ``settle_bids`` compares the two bids once both are in and says
  why the winner won (Size, Face, or the tie going to the attacker).
- **Critical hits compared (SET-8, SET-10).** The winner spends further sets first; each set
  the winner spends as a critical hit is compared with the set the loser spends against it
  (the loser's first answering set against the winner's first, and so on), by the same
  order as bids, ties to the attacker. A critical set that wins its comparison, or that the
  loser leaves unanswered, deals one more damage (``compare_critical_hits``); a set the loser
  spends in answer is spent.
- **Who spends first (SET-10).** After the reveal the winner spends its criticals first and
  says when it is done; the loser's answers, on the contest or on its own card, wait for
  that (``SetsTable.contest_follow_up_wait``), and the winner spends none after.
- **Contests at the table (SET-4).** A side's request is marked ``sealed_bid``
  (``contest_request``): its roller never bids on the roll nor records the other side's bid;
  the contest seals both bids and writes them in together (``sealed_bid_state``). Who
  attacks is the GM's call, kept on each side (``attacker_position``): ties go to that role,
  never to a position. ``bid_options`` and ``bid_win_chance`` give the phone each bid's exact
  chance against the other side's best set. After the reveal the contest takes the critical
  hits in turn (the winner's, then the loser's answers, ``spend_set``): a side's card offers
  its other criticals, never a critical hit.
- **A critical effect's die (SET-8)** is data: ``carried_dice(state)`` lists each one-die
  bonus (+1) or penalty (-1) a roll's critical effects give, and ``with_carried`` applies
  them to the request of the roll they go to (whose it is, the Judge says).
"""

from __future__ import annotations

import argparse
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, replace
from fractions import Fraction
from functools import cache
from math import comb
from typing import Any

from .base import (
    Applied,
    ContestOdds,
    DiceSystem,
    Die,
    FollowUp,
    Outcome,
    Param,
    Rng,
    RulesError,
    State,
    StepView,
    Table,
    choice_labels,
    contest_odds,
    dice_count,
    get_bool,
    get_int,
    grid,
    new_state,
    roll_dice,
    steps_of,
    with_step,
)
from .dice import FACES, counts_of
from .flags import IntRange, OneOfEach
from .words import N_, Text, Texts, _, ngettext

MAX_POOL = 15
MAX_STAT = 15
MAX_BONUS = 10
MAX_PENALTY = 15
MAX_ASSISTS = 5
MAX_LESSER_ASSISTS = 15
LESSER_PER_DIE = 3  # SET-11: three lesser helpers together count as one significant helper

# Kept in English (the command line names a Bar by them) and translated where drawn.
BAR_LEVELS: dict[int, str] = {2: N_("Apprentice"), 3: N_("Journeyman"), 4: N_("Master")}
SUCCESS_CRITICALS = ("critical_hit", "critical_effect")
FAILURE_CRITICALS = ("defy_death", "flinch", "clean_break")
ONCE_PER_ROLL = ("defy_death", "clean_break")
# SET-11: the Judge's call on the help a roll names, which the roll waits for.
HELP_COUNTS, HELP_STRUCK = "help_counts", "help_struck"
HELP_ACTIONS = (HELP_COUNTS, HELP_STRUCK)
CRITICAL_LABELS = {
    "critical_hit": N_("Critical hit"),
    "critical_effect": N_("Critical effect"),
    "defy_death": N_("Defy death"),
    "flinch": N_("Flinch"),
    "clean_break": N_("Clean break"),
    # SET-10: a set the loser of a contest spends against one of the winner's critical hits.
    "critical_answer": N_("Against a critical hit"),
}  # translated where drawn: ``_(CRITICAL_LABELS[action])``
# Translators: captions under the spent dice, a word each.
SHORT_LABELS = {
    "bid": N_("bid"),
    "critical_hit": N_("hit"),
    "critical_effect": N_("effect"),
    "defy_death": N_("defy"),
}
SHORT_LABELS |= {
    "flinch": N_("flinch"),
    "clean_break": N_("break"),
    HELP_STRUCK: N_("struck"),
    "critical_answer": N_("answer"),
}  # captions under the spent dice
EFFECTS = (N_("none"), N_("bonus"), N_("penalty"))  # what a critical effect may do to a later roll


@dataclass(frozen=True, order=True)
class Bid:
    """A Size and a Face. Ordered as SET-4 compares them: Size first, then Face."""

    size: int
    face: int

    def __str__(self) -> str:
        return f"{self.size}x{self.face}"


def score_bid(faces: Iterable[int]) -> Bid:
    """SET-3/6/7: the Bid that these dice make together, or RulesError if they make none."""
    groups: dict[int, int] = defaultdict(int)
    for face in faces:
        groups[face] += 1
    if not groups:
        raise RulesError(_("Choose the dice of a set to spend."))
    single = sorted(face for face, count in groups.items() if count < 2)
    if single:
        raise RulesError(
            _("A set needs two or more matching dice; the %(face)d has no match in this bid.")
            % {"face": single[0]}
        )
    return Bid(max(groups.values()) + len(groups) - 1, min(groups))


def best_bid(faces: Iterable[int]) -> Bid | None:
    """The strongest bid a roll allows: every set together, whole (None without any set)."""
    counts = counts_of(tuple(faces))
    return _best_from_counts(counts)


def _best_from_counts(counts: Sequence[int]) -> Bid | None:
    sets = [(face, count) for face, count in zip(FACES, counts, strict=True) if count >= 2]
    if not sets:
        return None
    return Bid(max(count for _, count in sets) + len(sets) - 1, min(face for face, _ in sets))


def meets_bar(bid: Bid | None, bar: Bid) -> bool:
    """SET-5: a larger Size always meets the Bar; an equal Size needs the Face or higher."""
    return bid is not None and bid >= bar


def compare_bids(attacker: Bid | None, defender: Bid | None) -> str:
    """SET-4: "attacker" or "defender", whoever wins: Size, then Face, ties to the attacker.
    A side without a set (None) loses to any set; two sides without one tie."""
    if defender is None or (attacker is not None and attacker >= defender):
        return "attacker"
    return "defender"


def spending_order(attacker: Bid | None, defender: Bid | None) -> tuple[str, str]:
    """SET-10: who spends further sets first (the winner), then the other side."""
    winner = compare_bids(attacker, defender)
    return (winner, "defender" if winner == "attacker" else "attacker")


@dataclass(frozen=True)
class BidVerdict:
    """SET-4: two sealed bids, revealed together. ``winner`` is "attacker" or "defender";
    ``reason`` is "size", "face", "tie" (to the attacker) or "no set"."""

    winner: str
    attacker: Bid | None
    defender: Bid | None
    reason: str

    @property
    def why(self) -> str:
        """Why the winner wins, in a phrase ("the larger Size wins")."""
        why = {
            "size": N_("the larger Size wins"),
            "face": N_("equal Sizes, the higher Face wins"),
            "tie": N_("identical bids: the tie goes to the attacker"),
            "no set": N_("any set beats no set")
            if self.attacker or self.defender
            else N_("no set on either side: the tie goes to the attacker"),
        }[self.reason]
        return _(why)

    @property
    def note(self) -> str:
        def name(bid: Bid | None) -> str:
            return _("no set") if bid is None else str(bid)

        words = {"attacker": name(self.attacker), "defender": name(self.defender), "why": self.why}
        if self.winner == "attacker":
            return _("The attacker wins, %(attacker)s against %(defender)s: %(why)s.") % words
        return _("The defender wins, %(attacker)s against %(defender)s: %(why)s.") % words


def settle_bids(attacker: Bid | None, defender: Bid | None) -> BidVerdict:
    """SET-4: the sealed bids of both sides, compared once both are in: Size, then Face,
    then the attacker. None is a side with no set to bid."""
    for bid in (attacker, defender):
        if bid is not None and bid.size < 2:
            raise RulesError(_("A set has a Size of two or more."))
    if attacker is None or defender is None:
        reason = "no set"
    elif attacker.size != defender.size:
        reason = "size"
    elif attacker.face != defender.face:
        reason = "face"
    else:
        reason = "tie"
    return BidVerdict(compare_bids(attacker, defender), attacker, defender, reason)


@dataclass(frozen=True)
class CriticalExchange:
    """SET-8, SET-10: one critical hit of the winner against the loser's answering set."""

    winner_set: Bid
    loser_set: Bid | None  # None: the loser had (or spent) no set against it
    hit: bool  # True: one more damage


def compare_critical_hits(
    winner_sets: Sequence[Bid], loser_sets: Sequence[Bid], *, winner_attacks: bool
) -> tuple[CriticalExchange, ...]:
    """SET-8, SET-10: the winner's critical-hit sets, in the order spent, each compared with
    the loser's answering set at the same place (none when the loser has run out). A
    critical set that wins the comparison (Size, Face, ties to the attacker) or meets no set
    deals one more damage. ``sum(e.hit for e in ...)`` is the extra damage."""
    if len(loser_sets) > len(winner_sets):
        raise RulesError(_("The loser answers critical hits one set each, no more sets than were spent."))
    exchanges = []
    for index, mine in enumerate(winner_sets):
        theirs = loser_sets[index] if index < len(loser_sets) else None
        for bid in (mine, theirs):
            if bid is not None and bid.size < 2:
                raise RulesError(_("A set has a Size of two or more."))
        if winner_attacks:
            hit = compare_bids(mine, theirs) == "attacker"
        else:
            hit = compare_bids(theirs, mine) == "defender"
        exchanges.append(CriticalExchange(mine, theirs, hit))
    return tuple(exchanges)


def unspent_set_dice(state: State) -> list[int]:
    """Indices of the roll's dice not spent yet that still have an unspent match."""
    dice = list(state["steps"][0]["dice"])
    spent = {index for step in state["steps"][1:] for index in step.get("dice", ())}
    free = [i for i in range(len(dice)) if i not in spent]
    return [i for i in free if sum(dice[j] == dice[i] for j in free) >= 2]


def spend_set(state: State, action: str, raw: Any) -> tuple[State, Bid]:
    """SET-8, SET-10: one set of the roll's own unspent dice spent by a contest's side (a
    critical hit, or an answer to one), written into the roll. RulesError for dice it did not
    roll, dice spent already, or dice that are not one set."""
    if action not in ("critical_hit", "critical_answer"):
        raise RulesError(_("Only a critical hit or an answer to one is spent this way."))
    indices = sorted(set(_parse_indices(raw)))
    dice = list(state["steps"][0]["dice"])
    if any(not 0 <= i < len(dice) for i in indices):
        raise RulesError(
            _("There are %(dice)s on the card; choose among them.") % {"dice": dice_count(len(dice))}
        )
    free = set(unspent_set_dice(state))
    if any(i not in free for i in indices):
        raise RulesError(_("Some of those dice are spent already."))
    if len(indices) < 2 or len({dice[i] for i in indices}) != 1:
        raise RulesError(_("A set is two or more dice that all show the same face."))
    bid = score_bid(dice[i] for i in indices)
    step = {"action": action, "dice": indices, "faces": [dice[i] for i in indices], "bid": str(bid)}
    return with_step(state, step), bid


@dataclass(frozen=True)
class CarriedDie:
    """SET-8: a critical effect's one die for a later roll: +1 a bonus die, -1 a penalty die.
    ``source`` says where it came from, for the card of the roll that takes it."""

    change: int
    source: str


def carried_dice(state: State) -> tuple[CarriedDie, ...]:
    """SET-8: the one-die bonuses and penalties this roll's critical effects give a later roll."""
    carried = []
    for step in steps_of(state, "critical_effect"):
        effect = step.get("effect", "none")
        if effect in ("bonus", "penalty"):
            change = 1 if effect == "bonus" else -1
            label = (
                _("a critical effect with %(bid)s (bonus)")
                if effect == "bonus"
                else _("a critical effect with %(bid)s (penalty)")
            )
            carried.append(CarriedDie(change, label % {"bid": step["bid"]}))
    return tuple(carried)


def with_carried(request: SetsRequest, carried: Sequence[CarriedDie]) -> SetsRequest:
    """The request with the carried dice taken in: bonus and penalty dice when it has a stat,
    the pool itself otherwise. Refused (RulesError) when the pool would leave the table's
    limits."""
    bonus = sum(1 for die in carried if die.change > 0)
    penalty = sum(1 for die in carried if die.change < 0)
    data = asdict(request)
    if request.stat is None:
        data["dice"] = request.dice + bonus - penalty
        if data["dice"] < 1:
            raise RulesError(
                _("The penalty dice leave no dice to roll, so no set can be made: the action fails.")
            )
    else:
        data["bonus"] = request.bonus + bonus
        data["penalty"] = request.penalty + penalty
    if request.bar_size is not None:
        data["bar_face"] = "rolled" if request.bar_face is None else request.bar_face
    return system.parse_request(data)


# -- sealed bids at the table (rolls.tables.sets.contest) --------------------------------------


def sealed_bid(state: State, indices: Any) -> dict[str, Any]:
    """SET-3, SET-4, SET-6: the bid step for a contest's side: ``indices`` chooses dice of its
    own roll (none spent yet) that make a set; RulesError otherwise. Kept sealed by the
    contest until both sides have bid, then written into the roll (``sealed_bid_state``)."""
    dice = list(state["steps"][0]["dice"])
    chosen = sorted(_parse_indices(indices))
    if any(not 0 <= i < len(dice) for i in chosen):
        raise RulesError(
            ngettext(
                "There is %(dice)s in your roll; choose among them.",
                "There are %(dice)s in your roll; choose among them.",
                len(dice),
            )
            % {"dice": dice_count(len(dice))}
        )
    bid = score_bid(dice[i] for i in chosen)
    faces = [dice[i] for i in chosen]
    return {
        "action": "bid",
        "dice": chosen,
        "faces": faces,
        "bid": str(bid),
        "size": bid.size,
        "face": bid.face,
    }


def attacker_position(extras: Sequence[Mapping[str, Any]]) -> int | None:
    """SET-4: the position of the side the GM named the attacker (``extra["attacking"]``);
    None while nobody is named. A contest opened before sides carried a role (no side has the
    key) had its first side attacking."""
    if not any("attacking" in extra for extra in extras):
        return 0
    return next((i for i, extra in enumerate(extras) if extra.get("attacking")), None)


def extra_bid(extra: Mapping[str, Any]) -> Bid | None:
    """The Bid a side's sealed bid (``ContestSide.extra["bid"]``) makes; None: no set."""
    step = extra.get("bid")
    if not isinstance(step, Mapping) or not step.get("size"):
        return None
    return Bid(int(step["size"]), int(step["face"]))


def state_bid(state: State) -> Bid | None:
    bids = steps_of(state, "bid")
    return Bid(bids[0]["size"], bids[0]["face"]) if bids else None


def sealed_bid_state(state: State, bid: Mapping[str, Any] | None, theirs: Bid | None, won: bool) -> State:
    """SET-4: a contest's side once both bids are revealed: its own bid (none: it had no set,
    or did not bid) and the other side's, with who won, as the steps an opposed roll has.
    From then on its criticals follow as on any opposed roll (SET-8, SET-10)."""
    if steps_of(state, "opposition"):
        return state
    if bid is not None and bid.get("size"):
        state = with_step(state, dict(bid))
    step = {"action": "opposition", "bid": "none" if theirs is None else str(theirs), "won": won}
    return with_step(state, step)


def bid_options(faces: Sequence[int]) -> tuple[Bid, ...]:
    """Every Bid the dice allow (SET-6, SET-7: any sets together, whole or in part), weakest
    first. A face rolled ``n`` times gives sets of 2..n of it; a bid takes at most one set of
    each face (splitting a face only lowers the Size)."""
    counts = counts_of(tuple(faces))
    options: set[Bid] = set()
    groups = [(face, count) for face, count in zip(FACES, counts, strict=True) if count >= 2]

    def walk(index: int, largest: int, sets: int, lowest: int) -> None:
        if index == len(groups):
            if sets:
                options.add(Bid(largest + sets - 1, lowest))
            return
        walk(index + 1, largest, sets, lowest)
        face, count = groups[index]
        for size in range(2, count + 1):
            walk(index + 1, max(largest, size), sets + 1, min(lowest, face))

    walk(0, 0, 0, 7)
    return tuple(sorted(options))


def usual_bid(state: State) -> list[int]:
    """The dice a player usually bids on a roll not bid yet (the one-tap bid offered first,
    and the bid the table makes for a roll left waiting). Against a Bar: of the bids that meet
    it, the one that leaves the most sets for criticals (SET-7, SET-8), then the fewest dice,
    then the lowest bid; when none meets it, the same order over every bid, so a roll that
    fails anyway spends one small set and keeps the rest for defy death, flinch or clean
    break (SET-9). Opposed: every set together, the strongest bid (SET-6). Empty: no set."""
    dice = list(state["steps"][0]["dice"])
    struck = Sets._spent(state)  # before the bid only the helpers' dice the Judge struck
    by_face: dict[int, list[int]] = defaultdict(list)
    for index, face in enumerate(dice):
        if index not in struck:
            by_face[face].append(index)
    sets = {face: indices for face, indices in by_face.items() if len(indices) >= 2}
    strongest = sorted(index for indices in sets.values() for index in indices)
    bar = Sets._bar(state)
    if bar is None or not strongest:
        return strongest
    candidates = _candidate_bids(sets)
    meeting = [pick for pick in candidates if meets_bar(score_bid(dice[i] for i in pick), bar)]

    def keeps(pick: list[int]) -> tuple[int, int, Bid]:
        left = {
            face: len(indices) - sum(1 for i in pick if dice[i] == face) for face, indices in sets.items()
        }
        return -sum(count // 2 for count in left.values()), len(pick), score_bid(dice[i] for i in pick)

    chosen: list[int] = min(meeting or candidates, key=keeps)
    return sorted(chosen)


def _candidate_bids(sets: Mapping[int, list[int]]) -> list[list[int]]:
    """Every bid the sets allow (SET-6, SET-7): for each face none of its dice, or two or more
    of them; at least one face. Each is the list of the dice it spends."""
    picks: list[list[int]] = [[]]
    for indices in sets.values():
        picks = [pick + indices[:size] for pick in picks for size in (0, *range(2, len(indices) + 1))]
    return [pick for pick in picks if pick]


def bid_win_chance(bid: Bid | None, other_dice: int, *, attacker: bool) -> Fraction:
    """SET-4: the exact chance that ``bid`` wins against a side rolling ``other_dice`` fresh
    dice (still sealed) that bids its best set; ties go to the attacker."""
    total = Fraction(0)
    for theirs, p in _best_bid_distribution(other_dice):
        winner = compare_bids(bid, theirs) if attacker else compare_bids(theirs, bid)
        if winner == ("attacker" if attacker else "defender"):
            total += p
    return total


def best_bid_distribution(dice: int) -> dict[Bid | None, Fraction]:
    """The exact distribution of ``best_bid`` for ``dice`` d6 (a fresh dict, safe to change)."""
    return dict(_best_bid_distribution(dice))


@cache
def _best_bid_distribution(dice: int) -> tuple[tuple[Bid | None, Fraction], ...]:
    """The exact distribution of ``best_bid``, cached.

    The best bid depends only on the largest set, the number of sets and the lowest face in a
    set, so instead of enumerating every multiset (``dice.distribution``, slower for big
    pools) this walks the faces once, tracking those three and the dice placed so far, with
    integer counts of ordered rolls: 15 dice take a few milliseconds, once.
    """
    states: dict[tuple[int, int, int, int], int] = {(0, 0, 0, 0): 1}
    for face in FACES:
        nxt: dict[tuple[int, int, int, int], int] = defaultdict(int)
        for (placed, largest, sets, lowest), ways in states.items():
            free = dice - placed
            for count in range(free + 1) if face < 6 else (free,):
                if count >= 2:
                    key = (placed + count, max(largest, count), sets + 1, lowest or face)
                else:
                    key = (placed + count, largest, sets, lowest)
                nxt[key] += ways * comb(free, count)
        states = nxt
    weights: dict[Bid | None, int] = defaultdict(int)
    for (_seen, largest, sets, lowest), ways in states.items():
        weights[Bid(largest + sets - 1, lowest) if sets else None] += ways
    total = 6**dice
    return tuple((bid, Fraction(ways, total)) for bid, ways in weights.items())


@cache
def chance_against_bar(dice: int, size: int, face: int | None) -> Fraction:
    """P(the best bid of ``dice`` dice meets a Bar); ``face`` None: a rolled Face (1-6)."""
    faces = FACES if face is None else (face,)
    hits = sum(
        (
            p
            for bar_face in faces
            for bid, p in _best_bid_distribution(dice)
            if meets_bar(bid, Bid(size, bar_face))
        ),
        Fraction(0),
    )
    return hits / len(faces)


# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class SetsRequest:
    dice: int  # the pool after every modifier
    stat: int | None = None  # None: the pool was given directly
    bonus: int = 0
    penalty: int = 0
    assists: int = 0  # significant helpers the Judge accepted
    lesser_assists: int = 0
    bar_size: int | None = 2  # None: an opposed roll
    bar_face: int | None = None  # None: rolled at roll time (or no Bar at all)
    attacker: bool = True  # opposed: the attacker wins a tie
    opposed: bool = False  # against another side's bid instead of a Bar
    # A side of a contest at the table: its bid is sealed by the contest and written into the
    # roll, with the other side's, when both are in (``sealed_bid_state``): never by its roller.
    sealed_bid: bool = False


def _parse_bar_size(data: Mapping[str, Any]) -> int:
    raw = data.get("bar_size", 2)
    if isinstance(raw, str) and raw.strip().lower() in (name.lower() for name in BAR_LEVELS.values()):
        return next(size for size, name in BAR_LEVELS.items() if name.lower() == raw.strip().lower())
    try:
        return get_int(data, "bar_size", _("The Bar's Size"), 2, 4, default=2)
    except RulesError:
        raise RulesError(_("The Bar is Apprentice (Size 2), Journeyman (3) or Master (4).")) from None


def _parse_bar_face(data: Mapping[str, Any]) -> int | None:
    raw = data.get("bar_face")
    if raw is None or (isinstance(raw, str) and raw.strip().lower() in ("", "rolled", "roll", "random")):
        return None
    try:
        return get_int(data, "bar_face", _("The Bar's Face"), 1, 6)
    except RulesError:
        raise RulesError(_("The Bar's Face is a number from 1 to 6, or rolled.")) from None


def _parse_indices(raw: Any) -> list[int]:
    """Die indices from a list (of numbers or digit strings), one number, or "0,2,3"."""
    if isinstance(raw, str):
        items: list[Any] = [part.strip() for part in raw.split(",") if part.strip()]
    elif isinstance(raw, int) and not isinstance(raw, bool):
        items = [raw]
    elif isinstance(raw, (list, tuple)):
        items = list(raw)
    else:
        items = []
    indices = []
    for item in items:
        if isinstance(item, int) and not isinstance(item, bool):
            indices.append(item)
        elif isinstance(item, str) and item.strip().isdigit():
            indices.append(int(item.strip()))
        else:
            raise RulesError(_("Choose dice by their numbers on the card."))
    if not indices:
        raise RulesError(_("Choose the dice of a set to spend."))
    if len(set(indices)) != len(indices):
        raise RulesError(_("Each die can be chosen only once."))
    return indices


class Sets(DiceSystem):
    slug = "sets"
    follow_up_names = Texts(
        {
            "bid": N_("Bid"),
            "opposition": N_("Opposition recorded"),
            HELP_COUNTS: N_("The Judge counts the help"),
            HELP_STRUCK: N_("The Judge strikes the help"),
            **CRITICAL_LABELS,
        }
    )
    name = Text(N_("Sets"))
    summary = Text(
        N_("Stat plus bonus dice; bid sets of matching dice by Size and Face. Criticals spend more sets.")
    )
    result_name = "best bid"

    # -- requests -----------------------------------------------------------------------------
    def parse_request(self, data: Mapping[str, Any]) -> SetsRequest:
        if get_bool(data, "sealed_bid"):
            # A contest's side: opposed, whatever Bar the form held (``contest_request``).
            data = {**data, "opposed": True, "sealed_bid": False}
            return replace(self.parse_request(data), sealed_bid=True)
        opposed = get_bool(data, "opposed")
        attacker = get_bool(data, "attacker", default=True) or not opposed  # ties matter only when opposed
        bar_size = None if opposed else _parse_bar_size(data)
        bar_face = None if opposed else _parse_bar_face(data)
        if data.get("stat") in (None, ""):
            dice = get_int(data, "dice", _("The number of dice"), 1, MAX_POOL)
            return SetsRequest(dice, None, 0, 0, 0, 0, bar_size, bar_face, attacker, opposed)
        stat = get_int(data, "stat", _("The derived stat"), 0, MAX_STAT)
        bonus = get_int(data, "bonus", _("Bonus dice"), 0, MAX_BONUS, default=0)
        penalty = get_int(data, "penalty", _("Penalty dice"), 0, MAX_PENALTY, default=0)
        assists = get_int(data, "assists", _("Significant helpers"), 0, MAX_ASSISTS, default=0)
        lesser = get_int(data, "lesser_assists", _("Lesser helpers"), 0, MAX_LESSER_ASSISTS, default=0)
        dice = stat + bonus - penalty + assists + lesser // LESSER_PER_DIE
        if dice < 1:
            raise RulesError(
                _("The penalties leave no dice to roll, so no set can be made: the action fails.")
            )
        if dice > MAX_POOL:
            raise RulesError(
                _("That makes %(dice)d dice; the most the table rolls is %(maximum)d.")
                % {"dice": dice, "maximum": MAX_POOL}
            )
        return SetsRequest(dice, stat, bonus, penalty, assists, lesser, bar_size, bar_face, attacker, opposed)

    # -- rolling ------------------------------------------------------------------------------
    def drawn(self, step: Mapping[str, Any]) -> list[int]:
        # Only the roll draws: a bid's "dice" are the places of the dice it spends. A Bar's
        # Face left to the dice is drawn after the pool.
        if step.get("action") != "roll":
            return []
        return [int(face) for face in step["dice"]] + ([int(step["bar_face"])] if "bar_face" in step else [])

    def roll(self, request: SetsRequest, rng: Rng) -> State:
        step: dict[str, Any] = {"action": "roll", "dice": roll_dice(rng, request.dice)}
        if not request.opposed and request.bar_face is None:
            step["bar_face"] = rng.randint(1, 6)
        return new_state(self, request, step)

    @staticmethod
    def _dice(state: State) -> list[int]:
        return list(state["steps"][0]["dice"])

    @staticmethod
    def _bar(state: State) -> Bid | None:
        request = state["request"]
        if request["bar_size"] is None:
            return None
        face = request["bar_face"] or state["steps"][0]["bar_face"]
        return Bid(request["bar_size"], face)

    @staticmethod
    def _spent(state: State) -> set[int]:
        return {index for step in state["steps"][1:] for index in step.get("dice", ())}

    @staticmethod
    def _counted(state: State) -> list[int]:
        """The faces that count: every die but the helpers' when the Judge struck the help."""
        struck = {index for step in steps_of(state, HELP_STRUCK) for index in step["dice"]}
        return [face for index, face in enumerate(state["steps"][0]["dice"]) if index not in struck]

    @staticmethod
    def help_dice(state: State) -> int:
        """SET-11: the dice the roll's helpers added (the last ones rolled)."""
        request = state["request"]
        return int(request.get("assists") or 0) + int(request.get("lesser_assists") or 0) // LESSER_PER_DIE

    def help_pending(self, state: State) -> bool:
        """SET-11: the roll names help the Judge has not counted or struck yet."""
        return self.help_dice(state) > 0 and not any(steps_of(state, action) for action in HELP_ACTIONS)

    def _unspent_sets(self, state: State) -> list[int]:
        """Indices of unspent dice that still have an unspent match: what a set can use."""
        dice, spent = self._dice(state), self._spent(state)
        free = [i for i in range(len(dice)) if i not in spent]
        return [i for i in free if sum(dice[j] == dice[i] for j in free) >= 2]

    def _success(self, state: State) -> bool | None:
        """Whether the roll succeeded, or None while that is not known yet."""
        bids = steps_of(state, "bid")
        bar = self._bar(state)
        if self.help_pending(state):
            return None
        if bar is None:
            opposition = steps_of(state, "opposition")
            return opposition[0]["won"] if opposition else None
        if not bids:
            # Without any set no bid is possible: the roll has failed already.
            return False if best_bid(self._counted(state)) is None else None
        return meets_bar(Bid(bids[0]["size"], bids[0]["face"]), bar)

    def evaluate(self, state: State) -> Outcome:
        dice = self._dice(state)
        # The key is what the dice rolled (the statistics' distribution is the whole pool's);
        # the headline what counts, without the helpers' dice the Judge struck (SET-11).
        rolled = best_bid(dice)
        key = "none" if rolled is None else str(rolled)
        best = best_bid(self._counted(state))
        bar = self._bar(state)
        success = self._success(state)
        bids = steps_of(state, "bid")
        bid = Bid(bids[0]["size"], bids[0]["face"]) if bids else None
        words: dict[str, Any] = {"bid": str(bid), "best": str(best)}
        if bar is not None:
            words |= {"level": _(BAR_LEVELS[bar.size]), "bar": str(bar)}
        opposition = steps_of(state, "opposition")
        if bid is None and opposition:
            theirs = opposition[0]["bid"]
            words["theirs"] = _("no set") if theirs == "none" else theirs
            headline = (
                _("No set wins against %(theirs)s") if success else _("No set loses to %(theirs)s")
            ) % words
        elif bid is None and best is None:
            headline = _("No set against the %(level)s Bar %(bar)s") % words if bar else _("No set")
        elif bid is None:
            headline = (
                _("Best bid %(best)s against the %(level)s Bar %(bar)s") if bar else _("Best bid %(best)s")
            ) % words
        elif bar is not None:
            headline = (
                _("Bid %(bid)s meets the %(level)s Bar %(bar)s")
                if success
                else _("Bid %(bid)s falls short of the %(level)s Bar %(bar)s")
            ) % words
        elif success is None:
            headline = _("Bid %(bid)s: waiting for the other side's bid") % words
        else:
            theirs = steps_of(state, "opposition")[0]["bid"]
            words["theirs"] = _("none") if theirs == "none" else theirs
            headline = (
                _("Bid %(bid)s wins against %(theirs)s") if success else _("Bid %(bid)s loses to %(theirs)s")
            ) % words
        details: list[str] = []
        if self.help_pending(state):
            headline = _("Waiting for the Judge: does the help count (+%(dice)s)?") % {
                "dice": dice_count(self.help_dice(state))
            }
        if best is None and bar is None and bid is None and not opposition:
            details.append(
                _("No set to spend: any set on the other side wins. Record their bid for the verdict.")
            )
        if success is not None and bar is None:
            details.append(
                _("You spend further sets first.")
                if success
                else _("The other side spends further sets first.")
            )
        details.extend(self._critical_details(state))
        free = counts_of(tuple(dice[i] for i in range(len(dice)) if i not in self._spent(state)))
        tone = "neutral" if success is None else ("success" if success else "failure")
        return Outcome(success, headline, key, tone, tuple(details), margin=sum(c // 2 for c in free))

    @staticmethod
    def _critical_details(state: State) -> list[str]:
        details = []
        for step in state["steps"]:
            action = step["action"]
            if action not in CRITICAL_LABELS:
                continue
            words = {"critical": _(CRITICAL_LABELS[action]), "bid": step["bid"]}
            effect = step["effect"] if action == "critical_effect" else "none"
            if effect == "bonus":
                details.append(_("%(critical)s with %(bid)s (a one-die bonus on a later roll).") % words)
            elif effect == "penalty":
                details.append(_("%(critical)s with %(bid)s (a one-die penalty on a later roll).") % words)
            else:
                details.append(_("%(critical)s with %(bid)s.") % words)
        flinches = len(steps_of(state, "flinch"))
        if flinches:
            details.append(_("Incoming damage reduced by %(count)d.") % {"count": flinches})
        return details

    def view(self, state: State) -> tuple[StepView, ...]:
        dice = self._dice(state)
        counts = counts_of(dice)
        spent_by: dict[int, str] = {}
        for step in state["steps"][1:]:
            for index in step.get("dice", ()):
                spent_by[index] = _(SHORT_LABELS[step["action"]])
        first = state["steps"][0]
        rolled = tuple(
            Die(face, hit=counts[face - 1] >= 2, new=True, label=spent_by.get(i, ""))
            for i, face in enumerate(dice)
        )
        bar = self._bar(state)
        if bar is not None:
            title = _("Rolled %(dice)s against the %(level)s Bar %(bar)s") % {
                "dice": dice_count(len(dice)),
                "level": _(BAR_LEVELS[bar.size]),
                "bar": str(bar),
            }
        else:
            title = _("Rolled %(dice)s") % {"dice": dice_count(len(dice))}
        note = (
            _("The Bar's Face was rolled: %(face)s.") % {"face": first["bar_face"]}
            if "bar_face" in first
            else ""
        )
        views = [StepView("roll", title, rolled, note)]
        success = self._success(state)
        for step in state["steps"][1:]:
            action = step["action"]
            if action == "opposition":
                views.append(
                    StepView(
                        action,
                        _("The other side bid %(bid)s")
                        % {"bid": _("none") if step["bid"] == "none" else step["bid"]},
                        (),
                        _("Won.") if step["won"] else _("Lost."),
                    )
                )
                continue
            if action == HELP_COUNTS:
                views.append(StepView(action, _("The Judge counts the help"), (), ""))
                continue
            spent = tuple(Die(dice[i], hit=True) for i in sorted(step["dice"], key=lambda i: (dice[i], i)))
            if action == HELP_STRUCK:
                # Not a set spent: the struck dice are drawn as dropped, rolled but not counted.
                struck = tuple(Die(dice[i], dropped=True) for i in step["dice"])
                views.append(
                    StepView(
                        action, _("The Judge strikes the help"), struck, _("The helpers' dice do not count.")
                    )
                )
                continue
            if action == "bid":
                note = "" if success is None else (_("Success.") if success else _("Failure."))
                title = (
                    _("Bid %(bid)s, unseen (a blind roll)") if step.get("unseen") else _("Bid %(bid)s")
                ) % {"bid": step["bid"]}
                views.append(StepView(action, title, spent, note))
            else:
                effect = step.get("effect", "none")
                note = (
                    _("A one-die bonus on a later roll.")
                    if effect == "bonus"
                    else _("A one-die penalty on a later roll.")
                    if effect == "penalty"
                    else ""
                )
                title = _("%(critical)s: spent %(bid)s") % {
                    "critical": _(CRITICAL_LABELS[action]),
                    "bid": step["bid"],
                }
                views.append(StepView(action, title, spent, note))
        return tuple(views)

    # -- follow-ups ---------------------------------------------------------------------------
    def _allowed_actions(self, state: State) -> list[str]:
        if self.help_pending(state):
            # SET-11: help counts at the Judge's discretion; the roll waits for that call.
            return list(HELP_ACTIONS)
        if state["request"].get("sealed_bid"):
            # A contest's side: the contest seals both bids and writes them in together; its
            # roller never bids here nor records the other side's bid.
            # Its critical hits are the contest's too: spent in turn and compared set against
            # set with the loser's answers (SET-10, ``spend_set``), not from the card.
            success = self._success(state)
            if success is None or not self._unspent_sets(state):
                return []
            return [
                action
                for action in (SUCCESS_CRITICALS if success else FAILURE_CRITICALS)
                if action != "critical_hit" and (action not in ONCE_PER_ROLL or not steps_of(state, action))
            ]
        if not steps_of(state, "bid"):
            if best_bid(self._counted(state)) is not None:
                return ["bid"]
            # No set to bid: an opposed roll still gets its verdict once the other side's bid
            # is recorded (any set beats none, SET-4); against a Bar it has failed already.
            opposed_open = self._bar(state) is None and not steps_of(state, "opposition")
            return ["opposition"] if opposed_open else []
        actions = []
        if self._bar(state) is None and not steps_of(state, "opposition"):
            actions.append("opposition")
        success = self._success(state)
        if success is not None and self._unspent_sets(state):
            for action in SUCCESS_CRITICALS if success else FAILURE_CRITICALS:
                if action == "critical_hit" and not self._attacks(state):
                    continue  # SET-8: a critical hit only for the side that attacks
                if action not in ONCE_PER_ROLL or not steps_of(state, action):
                    actions.append(action)
        return actions

    def _attacks(self, state: State) -> bool:
        """SET-8: whether this roll is the attacker's: an opposed roll made as the attacker. A
        roll against a Bar attacks nobody, and a defender who wins deals no extra damage."""
        return self._bar(state) is None and bool(state["request"].get("attacker"))

    def follow_ups(self, state: State, resources: Mapping[str, Any]) -> list[FollowUp]:
        """What the rules allow now. A bid's chances: none before it (an unbid roll has not
        succeeded yet), then whether the best bid the dice allow meets the Bar (1 or 0)."""
        allowed = []
        choices = tuple(str(i) for i in self._unspent_sets(state))
        for action in self._allowed_actions(state):
            if action in HELP_ACTIONS:
                count = dice_count(self.help_dice(state))
                label = (
                    _("Help counts (+%(dice)s)") if action == HELP_COUNTS else _("No help: strike %(dice)s")
                ) % {"dice": count}
                allowed.append(FollowUp(action, label, gm_only=True))
            elif action == "bid":
                bar = self._bar(state)
                before = after = None
                if bar is not None:
                    before, after = Fraction(0), Fraction(int(meets_bar(best_bid(self._counted(state)), bar)))
                dice = Param("dice", _("Dice to bid"), choices, multiple=True)
                suggested = tuple(str(i) for i in usual_bid(state))
                allowed.append(
                    FollowUp("bid", _("Bid a set"), "", (dice,), before, after, suggested=suggested)
                )
            elif action == "opposition":
                size = Param("size", _("Their Size (0: no set)"), minimum=0, maximum=MAX_POOL)
                face = Param("face", _("Their Face"), minimum=1, maximum=6)
                allowed.append(FollowUp("opposition", _("Record the other side's bid"), params=(size, face)))
            else:
                params = [Param("dice", _("Dice of one set to spend"), choices, multiple=True)]
                if action == "critical_effect":
                    effects = choice_labels(EFFECTS)
                    params.append(Param("effect", _("Effect on a later roll"), EFFECTS, labels=effects))
                allowed.append(FollowUp(action, _(CRITICAL_LABELS[action]), _("one more set"), tuple(params)))
        return allowed

    def apply(
        self,
        state: State,
        action: str,
        params: Mapping[str, Any],
        resources: Mapping[str, Any],
        rng: Rng,
    ) -> Applied:
        if state.get("system") != self.slug:
            raise RulesError(_("This roll belongs to another dice system."))
        allowed = self._allowed_actions(state)
        if action not in allowed and not (action == "bid_best" and "bid" in allowed):
            raise RulesError(self._refusal(state, "bid" if action == "bid_best" else action))
        if action == "opposition":
            size = get_int(params, "size", "Their Size", 0, MAX_POOL)
            theirs = None if size == 0 else Bid(size, get_int(params, "face", "Their Face", 1, 6))
            if theirs is not None and theirs.size < 2:
                raise RulesError(_("A set has a Size of two or more (0 when the other side has no set)."))
            bids = steps_of(state, "bid")
            mine = Bid(bids[0]["size"], bids[0]["face"]) if bids else None
            attacker = state["request"]["attacker"]
            winner = compare_bids(mine, theirs) if attacker else compare_bids(theirs, mine)
            step: dict[str, Any] = {"action": action, "bid": "none" if theirs is None else str(theirs)}
            step["won"] = winner == ("attacker" if attacker else "defender")
            return Applied(with_step(state, step))
        if action in HELP_ACTIONS:
            step = {"action": action}
            if action == HELP_STRUCK:
                dice = self._dice(state)
                # The helpers' dice are the last rolled; penalties may have left fewer dice
                # than the help added, and then every die there is is the help's to strike.
                struck = list(range(max(0, len(dice) - self.help_dice(state)), len(dice)))
                step.update(dice=struck, faces=[dice[i] for i in struck], bid="")
            return Applied(with_step(state, step))
        if action == "bid_best":
            # A blind roll's bid: its roller does not see the dice, so the strongest bid they
            # allow is spent (every set, whole), which is what ``best_bid`` reads.
            dice, spent = self._dice(state), self._spent(state)
            counts = counts_of(tuple(dice[i] for i in range(len(dice)) if i not in spent))
            chosen = [i for i, face in enumerate(dice) if i not in spent and counts[face - 1] >= 2]
            bid = score_bid(dice[i] for i in chosen)
            step = {"action": "bid", "dice": chosen, "faces": [dice[i] for i in chosen], "bid": str(bid)}
            step.update(size=bid.size, face=bid.face, unseen=True)
            return Applied(with_step(state, step))
        indices = _parse_indices(params.get("dice"))
        dice, spent = self._dice(state), self._spent(state)
        if any(not 0 <= i < len(dice) for i in indices):
            raise RulesError(
                ngettext(
                    "There is %(dice)s on the card; choose among them.",
                    "There are %(dice)s on the card; choose among them.",
                    len(dice),
                )
                % {"dice": dice_count(len(dice))}
            )
        if any(i in spent for i in indices):
            raise RulesError(_("Some of those dice are spent already."))
        chosen = sorted(indices)
        bid = score_bid(dice[i] for i in chosen)
        step = {"action": action, "dice": chosen, "faces": [dice[i] for i in chosen], "bid": str(bid)}

        if action == "bid":
            step.update(size=bid.size, face=bid.face)
        elif len({dice[i] for i in chosen}) != 1:
            raise RulesError(_("A critical spends one set: dice that all show the same face."))
        if action == "critical_effect":
            effect = str(params.get("effect") or "none").strip().lower()
            if effect not in EFFECTS:
                raise RulesError(_("A critical effect gives a bonus die, a penalty die, or none."))
            step["effect"] = effect
        return Applied(with_step(state, step))

    def may_await_gm(self, state: State) -> bool:
        """Only help named and not ruled on yet waits for the GM (SET-11)."""
        return self.help_pending(state)

    def blind_follow_ups(self, state: State, resources: Mapping[str, Any]) -> list[FollowUp]:
        """On a blind roll its roller bids unseen: the strongest bid the dice allow. Recording
        the other side's bid shows nothing of the roller's dice either; the rest (criticals,
        which pick dice) is the GM's, who sees them."""
        allowed = self._allowed_actions(state)
        unseen = []
        if "bid" in allowed:
            unseen.append(FollowUp("bid_best", _("Bid your best set, unseen")))
        unseen += [f for f in self.follow_ups(state, resources) if f.action == "opposition"]
        return unseen

    def _refusal(self, state: State, action: str) -> str:
        if action not in ("bid", "opposition", *CRITICAL_LABELS, *HELP_ACTIONS):
            return _("%(action)s is not a follow-up in this system.") % {"action": repr(action)}
        if self.help_pending(state):
            return _("The roll waits for the Judge to say whether the help counts (SET-11).")
        if action in HELP_ACTIONS:
            if self.help_dice(state) == 0:
                return _("This roll names no help to count or strike.")
            return _("The Judge has ruled on this roll's help already.")
        if state["request"].get("sealed_bid") and action in ("bid", "opposition"):
            return _("In a contest both bids are sealed by the contest: bid from the contests panel.")
        if action == "bid":
            if steps_of(state, "bid"):
                return _("This roll has been bid already; a roll is bid once.")
            return _("There is no set in this roll to bid.")
        if action == "opposition" and steps_of(state, "opposition"):
            return _("The other side's bid is recorded already.")
        if not steps_of(state, "bid"):
            if best_bid(self._counted(state)) is None and self._bar(state) is not None:
                return _("This roll has no set: it failed against the Bar, and there is nothing to spend.")
            return _("Bid a set first.")
        if action == "opposition":
            if self._bar(state) is not None:
                return _("This roll is against a Bar, not another side.")
            return _("The other side's bid is recorded already.")
        success = self._success(state)
        if success is None:
            return _("Record the other side's bid first: criticals depend on who won.")
        if action in SUCCESS_CRITICALS and not success:
            return _("That critical improves a success, and this roll failed.")
        if action == "critical_hit" and not self._attacks(state):
            if self._bar(state) is not None:
                return _(
                    "A critical hit is for an attacker; a roll against a Bar attacks nobody: choose a critical effect."
                )
            return _(
                "A critical hit is for the attacker; a defender who wins chooses a critical effect instead."
            )
        if action in FAILURE_CRITICALS and success:
            return _("That critical softens a failure, and this roll succeeded.")
        if action in ONCE_PER_ROLL and steps_of(state, action):
            return _("%(critical)s has been chosen already on this roll.") % {
                "critical": _(CRITICAL_LABELS[action])
            }
        return _("No unspent set is left for a critical.")

    # -- odds ---------------------------------------------------------------------------------
    def outcomes(self, request: SetsRequest) -> dict[str, Fraction]:
        return {
            "none" if bid is None else str(bid): p
            for bid, p in sorted(
                best_bid_distribution(request.dice).items(), key=lambda item: item[0] or Bid(0, 0)
            )
        }

    def chance(self, request: SetsRequest) -> Fraction | None:
        if request.bar_size is None:
            return None
        return chance_against_bar(request.dice, request.bar_size, request.bar_face)

    # -- statistics ---------------------------------------------------------------------------
    def result_order(self, keys: Sequence[str]) -> list[str]:
        """No set first, then bids as SET-4 compares them: Size, then Face."""
        return sorted(keys, key=lambda key: Bid(0, 0) if key == "none" else Bid(*map(int, key.split("x"))))

    def first_success(self, state: State, first: Outcome | None = None) -> bool | None:
        """Against a Bar: whether the strongest bid the dice allow meets it, which is what
        ``chance`` measures, whatever the player then bid. Opposed: nothing to meet alone."""
        bar = self._bar(state)
        if bar is None:
            return None
        return meets_bar(best_bid(self._counted(state)), bar)

    # -- contests -----------------------------------------------------------------------------
    contest_rule = Text(
        N_(
            "each side bids its best set: the larger Size wins, then the higher Face, then the "
            "attacker; any set beats no set (SET-4)"
        )
    )

    def contest(self, request_a: SetsRequest, request_b: SetsRequest) -> ContestOdds:
        """SET-4: an opposed roll between two fresh pools, each side bidding its best set. The
        attacker (side A unless A defends; at the table, the side the GM named) wins every
        tie, so ``tie`` is always 0."""
        for side, request in (("A", request_a), ("B", request_b)):
            if not request.opposed:
                raise RulesError(
                    _("Side %(side)s rolls against a Bar; a contest compares the two sides' bids.")
                    % {"side": side}
                )
        table = request_a.sealed_bid and request_b.sealed_bid
        if not request_a.attacker and not request_b.attacker:
            raise RulesError(_("Both sides defend: one of them must be the attacker, who wins ties."))
        if table and request_a.attacker and request_b.attacker:
            # At the table who attacks is the GM's call (SET-4): no odds until it is named.
            raise RulesError(
                _("Who attacks is the GM's call: the odds wait until the GM names the attacker.")
            )
        a_attacks = request_a.attacker

        def verdict(mine: Bid | None, theirs: Bid | None) -> str:
            if a_attacks:
                return "win" if compare_bids(mine, theirs) == "attacker" else "lose"
            return "win" if compare_bids(theirs, mine) == "defender" else "lose"

        return contest_odds(
            best_bid_distribution(request_a.dice), best_bid_distribution(request_b.dice), verdict
        )

    def contest_request(self, request: SetsRequest) -> SetsRequest:
        """SET-4: a side of a contest at the table is an opposed roll whose bid the contest
        seals (a Bar chosen on the form is dropped: the other side's bid is what it meets).
        Which side attacks is the GM's call, written into each side's request
        (``SetsTable.contest_role``)."""
        return replace(request, opposed=True, bar_size=None, bar_face=None, sealed_bid=True)

    def contest_winner(self, states: Sequence[State], extras: Sequence[Mapping[str, Any]] = ()) -> int | None:
        """SET-4: the side the GM named the attacker (``extras[i]["attacking"]``) wins ties, by
        its role, not its place in the list. Each side's sealed bid (``extras[i]["bid"]``, or
        the bid written into its roll at the reveal), compared by ``settle_bids``: Size, then
        Face, then the attacker; a side that bid nothing (no set, or no bid before the GM
        closed the contest) loses to any set. Never a tie. RulesError while nobody is named
        the attacker."""
        if len(states) != 2:
            raise RulesError(_("A contested roll has exactly two sides."))
        bids = [
            extra_bid(extras[i]) if i < len(extras) and "bid" in extras[i] else state_bid(state)
            for i, state in enumerate(states)
        ]
        attacker = attacker_position(extras)
        if attacker is None:
            raise RulesError(
                _("Who attacks is the GM's call: the GM names the attacker before it is settled.")
            )
        if settle_bids(bids[attacker], bids[1 - attacker]).winner == "attacker":
            return attacker
        return 1 - attacker

    # -- command line -------------------------------------------------------------------------
    def add_cli_arguments(self, parser: argparse.ArgumentParser) -> None:
        parser.add_argument(
            "--dice",
            type=IntRange(1, MAX_POOL),
            required=True,
            help=_("pool after every modifier, 1-%(maximum)d") % {"maximum": MAX_POOL},
        )
        parser.add_argument(
            "--bar",
            nargs=2,
            metavar=("SIZE", "FACE"),
            type=OneOfEach(
                (
                    tuple(
                        (name.lower(), _("%(name)s (Size %(size)d)") % {"name": _(name), "size": size})
                        for size, name in BAR_LEVELS.items()
                    ),
                    (("rolled", _("Rolled")), *((str(face), str(face)) for face in FACES)),
                )
            ),
            help=_(
                "the Bar: SIZE 2-4 or apprentice/journeyman/master, FACE 1-6 or rolled "
                "(without --bar the roll is opposed)"
            ),
        )
        parser.add_argument(
            "--defender",
            action="store_true",
            help=_("opposed: roll as the defender (ties go to the attacker)"),
        )

    def request_from_cli(self, options: argparse.Namespace) -> SetsRequest:
        data: dict[str, Any] = {"dice": options.dice, "attacker": not options.defender}
        if options.bar:
            # argparse always gives --bar two words; the GM's form passes whatever was typed.
            if len(options.bar) != 2:
                raise RulesError(_("The Bar is a Size and a Face, for example journeyman 4 or 3 rolled."))
            data.update(bar_size=options.bar[0], bar_face=options.bar[1])
        else:
            data["opposed"] = True
        return self.parse_request(data)

    def cli_extra_odds(self, request: SetsRequest) -> dict[str, Fraction]:
        """Extra lines for ``manage.py odds``: any set at all, and each Bar with a rolled Face."""
        lines = {"any set": 1 - best_bid_distribution(request.dice).get(None, Fraction(0))}
        for size, name in BAR_LEVELS.items():
            lines[f"{name} Bar, rolled Face"] = chance_against_bar(request.dice, size, None)
        return lines

    # -- the rules page and the warm-up ----------------------------------------------------
    def build_rules_tables(self) -> tuple[Table, ...]:
        faces: list[tuple[str, int | str]] = [
            (_("Face %(face)d") % {"face": 1}, 1),
            (_("Face %(face)d") % {"face": 3}, 3),
            (_("Face %(face)d") % {"face": 6}, 6),
            (_("rolled Face"), "rolled"),
        ]
        return tuple(
            grid(
                _("Chance of meeting the %(level)s Bar (Size %(size)d) with the best bid, by pool")
                % {"level": _(BAR_LEVELS[size]), "size": size},
                _("Dice"),
                [(str(n), n) for n in range(1, 13)],
                faces,
                self._chance_against_bar(size),
            )
            for size in BAR_LEVELS
        )

    def _chance_against_bar(self, size: int) -> Callable[[int, int | str], Fraction | None]:
        """One rules table's cells: the chance to meet a Bar of ``size``, by pool and Face."""
        return lambda n, face: self.chance(
            self.parse_request({"dice": n, "bar_size": size, "bar_face": face})
        )

    def typical_requests(self) -> tuple[dict[str, Any], ...]:
        return tuple({"dice": n, "bar_size": size, "bar_face": 1} for n in range(1, 16) for size in (2, 3, 4))


system = Sets()
