"""`doubles`: the best die, or the best matching dice added up.

Two dice, plus Ability levels and bonus dice, minus Weaknesses and penalties, plus one per
helper. The result is the highest die, or the sum of the best group of matching dice when
that is higher; ones never add. Below one die the roll turns to negative dice: roll two or
more and keep the lowest. Beat the Difficulty Number (or the other side) to succeed. Drama
dice (5 Endurance each) may be bought after the roll; a miracle (30 Endurance, the GM may
refuse) guarantees success.

Rules choices where the document leaves room (also on the in-app rules page):

- **A tie does not beat (DBL-7).** To beat a Difficulty Number the result must be higher
  than it: 6 against Challenging (6) fails. The miracle's "succeed by at least one" reads
  the same way, and in an opposed roll equal results are a standoff that neither side wins.
- **Amazing Success (DBL-8)** is a result of 13 or more (above Nigh Impossible, 12), whatever
  the Difficulty Number, and in opposed rolls too. A miracle's guaranteed minimum is not a
  result the dice showed, so only the dice (the six miracle dice included) can make it amazing.
- **Catastrophe (DBL-15, DBL-16).** With one die or more, every die showing 1 is a
  catastrophe. On negative dice the kept die is the lowest, so it is a 1 exactly when any
  die rolled shows a 1: that is the catastrophe. Either way a catastrophe's result is 1.
- **Drama dice on a positive pool (DBL-10)** join the dice and everything is read again:
  they can make a new pair, and they can lift a roll of all ones out of its catastrophe.
- **Drama dice on negative dice (DBL-10).** More dice that keep the lowest could only hurt,
  so a drama die works for the player: it joins the dice, the pool keeps as many dice as it
  rolled, and those are the highest ones; the result is the lowest of them. In short, each
  drama die that beats the lowest die in play replaces it. A 1 pushed out this way no longer
  makes a catastrophe. Duplicates still never add.
- **Buying drama dice.** Any number at a time, as often as the Endurance lasts, up to 10 on
  one roll. Not while a miracle waits for the GM, and after an approved miracle only when
  the degree of success matters. Only on the character's latest roll: once the character
  has rolled again, the earlier action is over (``resources["latest"]``, True when absent).
- **Miracles (DBL-11).** Asked once per roll, on the character's latest roll, when the roll
  has not succeeded yet or the degree matters. The request waits for the GM: approving costs the 30 Endurance, refusing
  costs nothing and the roll stands (it cannot be asked again). After approval the result is
  at least the Difficulty Number plus one; when the degree matters six more dice join the
  roll first (on negative dice, as drama dice do). A miracle even overrides a catastrophe.
  In an opposed roll the miracle side wins by at least one (see ``opposed``).
- **Endurance after a miracle (DBL-10, DBL-11).** Only the Endurance spent on drama dice
  waits for the next Adventure; the document says that of drama dice alone, so a miracle's
  30 Endurance comes back the usual way. ``Applied.costs`` says which is which:
  ``{"endurance": 10, "drama": 10}`` for two drama dice, ``{"endurance": 30}`` for a miracle.
- **Drama dice odds.** Each count the player may buy shows its own exact chance in the
  picker (``Param.labels``): the chance depends on how many dice join.
- **On an older roll (DBL-10, DBL-11).** Drama dice and miracles are paid from Endurance as
  it is now, so the table takes them only on a roll of the play session in progress and of
  the current Adventure (``FollowUp.spends``); refusing a miracle costs nothing and stays the
  GM's on any roll.
- **Teaming up at the table (DBL-14).** One die per helper (``helpers``, a count here); the
  table names them among the other characters (``rolls.tables.doubles``). The document asks
  nothing more of a helper, so a helper pays nothing and shares neither success nor
  catastrophe.
- **Caps.** Each Ability and Weakness level is 0-6, at most six of each; bonus and penalty
  dice 0-10; helpers 0-6. The net pool must be between -8 (ten dice, keep the lowest) and
  20 dice.
- **Declarations (DBL-12)** are a request flag; the card says whether the declared thing is
  now something the character can do.
- **Opposed rolls (DBL-7, DBL-9, DBL-11, DBL-15).** An opposed request has no Difficulty
  Number (a contest refuses one). The higher result wins; equal results are a standoff. A
  catastrophe's result is 1, which no other roll shows, so a catastrophe loses to any roll
  that is not one, and two catastrophes are a standoff in which both sides still suffer
  their own catastrophe. Drama dice join a side's roll as they do alone; an approved
  miracle lifts its side to one above the other side (``settle_opposed``), and overrides its
  catastrophe; two miracles cancel out and the dice decide. The Complication (DBL-9) goes to
  the side whose dice showed an Amazing Success when the other's did not (``Opposed.amazing``),
  winner or not: a PC who rolled amazing and lost to a miracle keeps it. At the table only a
  PC names it (never the GM's side without a sheet), and never while the other side could
  still overturn the result: once no follow-up could still change either roll (naming it
  then freezes both rolls), or after the GM settles the contest, which ends every follow-up
  (``rolls.tables.doubles.contest``).
- **When an Amazing Success lands (DBL-8).** Its card asks how the scene changes
  (``DoublesTable.scene_prompt``).
- **Every roll form takes any pool (DBL-2, DBL-3, DBL-14).** The GM's call, a contest side,
  a challenge and an extended action's roll tick Abilities and Weaknesses as the own roll
  form does, none included; a side names who teams up, never its opponent.
- **Odds on a roll's page (DBL-10).** ``chance_after_step`` gives the chance a drama step
  bought for its own count.
- **Contest odds.** ``system.contest`` compares two fresh rolls before drama dice or a
  miracle: win, standoff (``tie``), lose.
- **Contest odds after the reveal (DBL-7, DBL-10, DBL-11).** Beside each follow-up a side may
  take, its phone shows the exact chance to win once it is taken, the other side's roll as it
  stands (``contest_drama_chances``, ``contest_miracle_chance``). A standoff is not a win.
  Drama dice get one figure per count the picker offers, since each count wins with its own
  chance. The miracle's figure is the chance if the GM approves it (refused, the roll stands
  as the verdict already reads it). Only this follow-up is counted: neither more drama dice
  later nor the other side's answer, which nobody can know yet. Reading the dice leaves the
  player no choice (the best group or die counts by itself, and drama dice on negative dice
  push out the lowest), so there is nothing to play well or badly. While a miracle waits for
  the GM on either side there is no figure: the GM's answer decides, not the dice. A side with
  no step yet (not rolled, or sealed from whoever asks) counts as a fresh roll of its pool.
- **Extended actions (DBL-13).** ``ExtendedAction`` keeps the tally: the action is won with
  the last success needed, lost with the failure that reaches the number allowed; any member
  may roll for it (``record(..., by=name)`` keeps who). Its exact chance from the next
  rolls' chance of success is ``ExtendedAction.chance``. At the table, once the log records
  the action won or lost its rolls are final: drama dice cannot reopen it.
"""

from __future__ import annotations

import argparse
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from fractions import Fraction
from functools import cache, lru_cache
from math import comb
from typing import Any

from .base import (
    TONE_NAMES,
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
    contest_odds,
    dice_count,
    get_bool,
    get_int,
    grid,
    higher_wins,
    new_state,
    percent,
    roll_dice,
    steps_of,
    with_step,
)
from .dice import Counts, binomial, counts_of
from .flags import IntRange, OneOf
from .words import N_, Text, Texts, _, ngettext

# The drama dice table's examples: (net pool, Difficulty Number).
DRAMA_EXAMPLES = ((0, 4), (2, 6), (2, 8), (4, 8), (4, 10))

BASE_DICE = 2  # DBL-1
MAX_POOL = 20
MIN_POOL = -8  # ten dice, keep the lowest
MAX_LEVEL = 6
MAX_TRAITS = 6  # Abilities (or Weaknesses) on one roll
MAX_SITUATIONAL = 10
MAX_HELPERS = 6
DRAMA_COST = 5  # Endurance per drama die
MAX_DRAMA = 10  # drama dice on one roll
MIRACLE_COST = 30
MIRACLE_DICE = 6
AMAZING_ABOVE = 12

# The names are kept in English (a request may name its Difficulty Number) and translated
# where drawn: ``_(DN_NAMES[dn])``.
DIFFICULTIES: dict[str, int] = {
    N_("Easy"): 2,
    N_("Moderate"): 4,
    N_("Challenging"): 6,
    N_("Difficult"): 8,
    N_("Very Difficult"): 10,
    N_("Nigh Impossible"): 12,
}
DN_NAMES = {dn: name for name, dn in DIFFICULTIES.items()}
OPPOSED_WORDS = ("none", "opposed")


# --------------------------------------------------------------------------------------------
# Reading dice


def negative_keep(net: int) -> int:
    """DBL-6: how many dice a pool of ``net`` <= 0 rolls (and keeps in play): 2 at zero, +1 below."""
    return BASE_DICE - net


def rolled_dice(net: int) -> int:
    return net if net >= 1 else negative_keep(net)


def face_value(face: int, count: int) -> int:
    """DBL-4, DBL-5: what ``count`` dice showing ``face`` are worth (0 when none shows)."""
    if count == 0:
        return 0
    if face == 1 or count == 1:
        return face
    return face * count


def positive_result(counts: Counts) -> int:
    """DBL-4: the highest single die or the best group added up, whichever is higher."""
    return max(face_value(face, count) for face, count in zip(range(1, 7), counts, strict=True))


def negative_result(counts: Counts, keep: int) -> int:
    """DBL-6 with drama dice: the lowest of the ``keep`` highest dice."""
    seen = 0
    for face in range(6, 0, -1):
        seen += counts[face - 1]
        if seen >= keep:
            return face
    raise ValueError("fewer dice than the pool keeps")  # pragma: no cover - callers roll enough


def is_amazing(result: int) -> bool:
    """DBL-8: above the highest Difficulty Number."""
    return result > AMAZING_ABOVE


def beats(result: int, dn: int) -> bool:
    """DBL-7: a tie does not beat."""
    return result > dn


# --------------------------------------------------------------------------------------------
# The request


@dataclass(frozen=True)
class DoublesRequest:
    abilities: tuple[int, ...] = ()
    bonus: int = 0
    weaknesses: tuple[int, ...] = ()
    penalty: int = 0
    helpers: int = 0
    dn: int | None = None  # None: an opposed roll
    degree_matters: bool = False
    declaration: bool = False
    dice: int | None = None  # the net pool given directly, instead of its parts

    @property
    def net(self) -> int:
        """DBL-1..3, DBL-14: the net pool (<= 0 means negative dice)."""
        if self.dice is not None:
            return self.dice
        return (
            BASE_DICE + sum(self.abilities) + self.bonus - sum(self.weaknesses) - self.penalty + self.helpers
        )


def _levels(data: Mapping[str, Any], key: str, label: str) -> tuple[int, ...]:
    """Levels as a list (or a comma-separated string); one number alone is their total."""
    raw = data.get(key)
    if raw is None or raw == "":
        return ()
    if isinstance(raw, str):
        items: list[Any] = [part.strip() for part in raw.split(",")]
    elif isinstance(raw, Iterable) and not isinstance(raw, Mapping):
        items = list(raw)
    else:
        items = [raw]
    if len(items) == 1:
        # A single total stands for several traits together.
        return (
            get_int(
                {key: items[0]}, key, _("The %(trait)s total") % {"trait": label}, 0, MAX_TRAITS * MAX_LEVEL
            ),
        )
    if len(items) > MAX_TRAITS:
        raise RulesError(
            _("At most %(count)d %(trait)s levels can count on one roll.")
            % {"count": MAX_TRAITS, "trait": label}
        )
    each = _("Each %(trait)s level") % {"trait": label}
    return tuple(get_int({key: item}, key, each, 0, MAX_LEVEL) for item in items)


def _dn_message() -> str:
    choices = ", ".join(f"{_(name)} ({dn})" for name, dn in DIFFICULTIES.items())
    return _("The Difficulty Number must be one of %(choices)s, or none for an opposed roll.") % {
        "choices": choices
    }


def parse_dn(raw: Any) -> int | None:
    """A Difficulty Number by number or by name; None (or "none", "opposed") for an opposed roll."""
    if raw is None:
        return None
    if isinstance(raw, str):
        text = " ".join(raw.strip().lower().replace("_", " ").replace("-", " ").split())
        if text in ("", *OPPOSED_WORDS):
            return None
        named = {name.lower(): dn for name, dn in DIFFICULTIES.items()}
        if text in named:
            return named[text]
        if not text.isdecimal():
            raise RulesError(_dn_message())
        value = int(text)
    elif isinstance(raw, int) and not isinstance(raw, bool):
        value = raw
    elif isinstance(raw, float) and raw.is_integer():
        value = int(raw)
    else:
        raise RulesError(_dn_message())
    if value not in DN_NAMES:
        raise RulesError(_dn_message())
    return value


# --------------------------------------------------------------------------------------------
# Reading a state


@dataclass(frozen=True)
class Reading:
    """What the dice of a state say, with the miracle applied."""

    dice: tuple[int, ...]  # every die rolled, in order: the roll, then drama and miracle dice
    dice_result: int
    result: int  # after a miracle's guaranteed minimum
    catastrophe: bool
    miracle: str  # "", "pending", "approved", "refused"
    used: frozenset[int]  # indexes of the dice that make the result
    dropped: frozenset[int]  # indexes of the dice not in play (negative dice)


def read_dice(dice: tuple[int, ...], net: int) -> tuple[int, frozenset[int], frozenset[int]]:
    """The result of ``dice`` rolled for a pool of ``net``, the dice that make it, the dropped ones."""
    counts = counts_of(dice)
    if net >= 1:
        result = positive_result(counts)
        best_face = max(
            (face for face in range(1, 7) if counts[face - 1]),
            key=lambda face: (face_value(face, counts[face - 1]), face),
        )
        if best_face == 1 or counts[best_face - 1] == 1:
            # A single die (ones never add, so one 1 stands for a roll of all ones).
            used = frozenset({dice.index(best_face)})
        else:
            used = frozenset(i for i, face in enumerate(dice) if face == best_face)
        return result, used, frozenset()
    keep = negative_keep(net)
    order = sorted(range(len(dice)), key=lambda i: (-dice[i], i))
    in_play = order[:keep]
    kept = in_play[-1]
    return dice[kept], frozenset({kept}), frozenset(i for i in range(len(dice)) if i != kept)


# --------------------------------------------------------------------------------------------
# Exact odds


@cache
def _pascal(rows: int) -> tuple[tuple[int, ...], ...]:
    return tuple(tuple(comb(n, k) for k in range(n + 1)) for n in range(rows + 1))


@cache
def _ways_within(dice: int, limits: tuple[int, ...]) -> int:
    """How many of the 6**dice ordered rolls show each face at most its limit (one limit per
    face, faces in any order).

    Faces are added one at a time: ``ways[t]`` counts the orderings of t dice among the faces
    so far, and a new face taking ``c`` of them has C(t, c) places to go."""
    pascal = _pascal(dice)
    ways = [1] + [0] * dice
    for limit in limits[:-1]:
        ways = [
            sum(row[count] * ways[total - count] for count in range(min(limit, total) + 1))
            for total, row in enumerate(pascal)
        ]
    # The last face only matters for the full roll.
    return sum(pascal[dice][count] * ways[dice - count] for count in range(min(limits[-1], dice) + 1))


def _limit(face: int, already: int, ceiling: int, dice: int) -> int:
    """How many of ``dice`` new dice may show ``face`` while that face stays worth at most
    ``ceiling`` (-1 when the dice already there are worth more). Values only grow with the
    count, so the allowed counts are 0..limit."""
    if face_value(face, already) > ceiling:
        return -1
    extra = 0
    while extra < dice and face_value(face, already + extra + 1) <= ceiling:
        extra += 1
    return extra


def _possible_results(dice: int, already: Counts) -> list[int]:
    total = sum(already) + dice
    values = {face_value(face, count) for face in range(1, 7) for count in range(1, total + 1)}
    return sorted(values)


@cache
def positive_distribution(
    dice: int, already: Counts = (0, 0, 0, 0, 0, 0)
) -> tuple[tuple[int, Fraction], ...]:
    """The exact result distribution when ``dice`` more dice join the dice ``already`` on the
    table, on a positive pool. Counted face by face (P(result <= r) for every possible r), so a
    twenty-die pool costs milliseconds instead of enumerating 53,130 multisets."""
    if dice == 0:
        return ((positive_result(already), Fraction(1)),)
    total = 6**dice
    found: list[tuple[int, Fraction]] = []
    below = 0
    for ceiling in _possible_results(dice, already):
        # Ones last: they never add, so their limit is nearly always every die (cheapest last).
        limits = tuple(_limit(face, already[face - 1], ceiling, dice) for face in (2, 3, 4, 5, 6, 1))
        ways = 0 if min(limits) < 0 else _ways_within(dice, limits)
        if ways > below:
            found.append((ceiling, Fraction(ways - below, total)))
            below = ways
    return tuple(found)


@cache
def negative_distribution(
    dice: int, keep: int, already: Counts = (0, 0, 0, 0, 0, 0)
) -> tuple[tuple[int, Fraction], ...]:
    """The exact result distribution on negative dice: the lowest of the ``keep`` highest dice
    once ``dice`` more dice join those ``already`` rolled. The result is at least v exactly
    when ``keep`` dice show v or more, so each tail is a binomial sum."""
    at_least = []
    for value in range(1, 8):
        have = sum(already[value - 1 :])
        missing = max(0, keep - have)
        tail = binomial(dice, Fraction(7 - value, 6))
        at_least.append(sum(tail[missing:], Fraction(0)))
    found = []
    for value in range(1, 7):
        chance = at_least[value - 1] - at_least[value]
        if chance:
            found.append((value, chance))
    return tuple(found)


def result_distribution(net: int, extra: int = 0, already: tuple[int, ...] = ()) -> dict[int, Fraction]:
    """The exact distribution of the dice result for a pool of ``net`` when ``extra`` drama (or
    miracle) dice join. ``already`` holds dice on the table: then only the missing dice roll."""
    counts = counts_of(already)
    if not already:
        fresh = rolled_dice(net) + extra
    else:
        fresh = extra
    if net >= 1:
        return dict(positive_distribution(fresh, counts))
    return dict(negative_distribution(fresh, negative_keep(net), counts))


def chance_to_beat(distribution: Mapping[int, Fraction], dn: int) -> Fraction:
    return sum((chance for value, chance in distribution.items() if beats(value, dn)), Fraction(0))


@lru_cache(maxsize=4096)
def _chance_beating(net: int, dn: int, extra: int, already: tuple[int, ...]) -> Fraction:
    return chance_to_beat(result_distribution(net, extra, already), dn)


def chance_beating(net: int, dn: int, extra: int = 0, already: tuple[int, ...] = ()) -> Fraction:
    """The chance of beating ``dn`` once ``extra`` dice join a pool of ``net`` with the dice
    ``already`` on the table: ``chance_to_beat`` of their distribution, kept. A card of a roll
    with a Difficulty Number asks it for every count of drama dice its picker offers, on every
    roll; summing the fractions again each time was most of drawing its buttons
    (bench/roll_cpu.py's way, on the bench's doubles tables)."""
    # The order the dice were rolled in changes nothing: one entry for every order.
    return _chance_beating(net, dn, extra, tuple(sorted(already)))


# --------------------------------------------------------------------------------------------
# The system


class Doubles(DiceSystem):
    slug = "doubles"
    follow_up_names = Texts(
        {
            "drama": N_("Drama dice"),
            "miracle": N_("Miracle asked"),
            "miracle_approve": N_("Miracle approved"),
            "miracle_refuse": N_("Miracle refused"),
        }
    )
    tone_names = Texts({**TONE_NAMES, "amazing": N_("Amazing Success"), "catastrophe": N_("Catastrophe")})
    name = Text(N_("Doubles"))
    summary = Text(
        N_("Keep the best die or add up matching dice; beat the Difficulty Number. Drama dice and miracles.")
    )
    result_name = "result"

    # -- requests -----------------------------------------------------------------------------
    def parse_request(self, data: Mapping[str, Any]) -> DoublesRequest:
        abilities = _levels(data, "abilities", _("Ability"))
        weaknesses = _levels(data, "weaknesses", _("Weakness"))
        bonus = get_int(data, "bonus", _("Bonus dice"), 0, MAX_SITUATIONAL, default=0)
        penalty = get_int(data, "penalty", _("Penalty dice"), 0, MAX_SITUATIONAL, default=0)
        helpers = get_int(data, "helpers", _("Helpers"), 0, MAX_HELPERS, default=0)
        dn = parse_dn(data.get("dn"))
        degree_matters = get_bool(data, "degree_matters")
        declaration = get_bool(data, "declaration")
        dice: int | None = None
        if data.get("dice") not in (None, ""):
            if abilities or weaknesses or bonus or penalty or helpers:
                raise RulesError(
                    _("Give either the net number of dice or its parts (Abilities, bonuses...), not both.")
                )
            dice = get_int(data, "dice", _("The number of dice"), MIN_POOL, MAX_POOL)
        request = DoublesRequest(
            abilities, bonus, weaknesses, penalty, helpers, dn, degree_matters, declaration, dice
        )
        if request.net > MAX_POOL:
            raise RulesError(
                _("A roll has at most %(maximum)d dice; this one adds up to %(net)d.")
                % {"maximum": MAX_POOL, "net": request.net}
            )
        if request.net < MIN_POOL:
            raise RulesError(
                _(
                    "The penalties bring the pool to %(net)d; the table stops at %(minimum)d "
                    "(%(dice)d dice, keep the lowest)."
                )
                % {"net": request.net, "minimum": MIN_POOL, "dice": negative_keep(MIN_POOL)}
            )
        return request

    @staticmethod
    def stored_request(state: State) -> DoublesRequest:
        """The request a state was rolled with, as ``request_dict`` wrote it: checked when it
        was rolled, so built again without parsing (as stars' ``_request`` does), its lists
        back to tuples. Drawing a roll's card reads it some twenty times (its outcome, its
        view, the follow-ups and their odds); parsing it each time was a tenth of the roll."""
        fields: dict[str, Any] = {
            key: tuple(value) if isinstance(value, list) else value for key, value in state["request"].items()
        }
        return DoublesRequest(**fields)

    def request_dict(self, request: DoublesRequest) -> dict[str, Any]:
        data = super().request_dict(request)
        # Lists, so that a state read back from JSON compares equal to the one written.
        return {key: list(value) if isinstance(value, tuple) else value for key, value in data.items()}

    # -- rolling ------------------------------------------------------------------------------
    def roll(self, request: DoublesRequest, rng: Rng) -> State:
        step = {"action": "roll", "net": request.net, "dice": roll_dice(rng, rolled_dice(request.net))}
        return new_state(self, request, step)

    @staticmethod
    def _all_dice(state: State) -> tuple[int, ...]:
        return tuple(face for step in state["steps"] for face in step.get("dice", ()))

    @staticmethod
    def _miracle(state: State) -> str:
        for step in reversed(state["steps"]):
            if step["action"] == "miracle":
                return "pending"
            if step["action"] == "miracle_approve":
                return "approved"
            if step["action"] == "miracle_refuse":
                return "refused"
        return ""

    def read(self, state: State) -> Reading:
        """The state's dice read by the rules, with the miracle's minimum applied."""
        request = self.stored_request(state)
        dice = self._all_dice(state)
        dice_result, used, dropped = read_dice(dice, request.net)
        miracle = self._miracle(state)
        result = dice_result
        if miracle == "approved" and request.dn is not None:
            result = max(result, request.dn + 1)  # DBL-11: success by at least one
        catastrophe = dice_result == 1 and miracle != "approved"
        return Reading(dice, dice_result, result, catastrophe, miracle, used, dropped)

    def evaluate(self, state: State) -> Outcome:
        request = self.stored_request(state)
        reading = self.read(state)
        result, dn = reading.result, request.dn
        amazing = is_amazing(reading.dice_result)
        details: list[str] = []
        drama = sum(len(step["dice"]) for step in steps_of(state, "drama"))
        if drama:
            details.append(
                ngettext("%(count)d drama die bought.", "%(count)d drama dice bought.", drama)
                % {"count": drama}
            )
        if reading.miracle == "pending":
            details.append(_("A miracle is asked for: the GM approves or refuses it."))
        elif reading.miracle == "approved":
            details.append(_("Miracle: the action succeeds by at least one, whatever the dice."))
        elif reading.miracle == "refused":
            details.append(_("The GM refused the miracle; the dice stand."))
        if result > reading.dice_result:
            details.append(
                _("The dice showed %(dice)d; the miracle makes it %(result)d.")
                % {"dice": reading.dice_result, "result": result}
            )

        success: bool | None
        if dn is None:
            success = None
            headline = _("Result %(result)d: compare with the other side's roll") % {"result": result}
            margin = 0
        else:
            success = beats(result, dn)
            margin = result - dn
            words = {"result": result, "name": _(DN_NAMES[dn]), "dn": dn}
            if success:
                headline = _("Result %(result)d beats %(name)s (%(dn)d)") % words
            else:
                headline = _("Result %(result)d does not beat %(name)s (%(dn)d)") % words
        if reading.catastrophe:
            tone = "catastrophe"
            headline = _("Catastrophe! Result %(result)d") % {"result": result}
            details.append(_("Every die that counts shows 1: a catastrophic failure."))
        elif amazing and success is not False:
            tone = "amazing"
            if dn:
                headline = _("Amazing Success! Result %(result)d against %(name)s (%(dn)d)") % {
                    "result": result,
                    "name": _(DN_NAMES[dn]),
                    "dn": dn,
                }
            else:
                headline = _("Amazing Success! Result %(result)d") % {"result": result}
            details.append(_("Above the highest Difficulty Number: something beyond what was aimed for."))
            if dn is None:
                details.append(_("If the other side is not amazing too, a PC may inflict a Complication."))
        elif success is None:
            tone = "neutral"
        else:
            tone = "success" if success else "failure"
        if request.declaration and success is not None:
            details.append(
                _("Declaration: it is now something the character can explicitly do.")
                if success
                else _("Declaration: it does not hold.")
            )
        return Outcome(
            success=success,
            headline=headline,
            key=str(result),
            tone=tone,
            details=tuple(details),
            margin=max(0, margin),
        )

    def view(self, state: State) -> tuple[StepView, ...]:
        request = self.stored_request(state)
        reading = self.read(state)
        views = []
        index = 0
        for step in state["steps"]:
            action = step["action"]
            faces = step.get("dice", ())
            # Translators: the caption under a drama die, and under a die a miracle added.
            label = {"drama": _("drama"), "miracle_approve": _("miracle")}.get(action, "")
            dice = tuple(
                Die(
                    face,
                    hit=index + i in reading.used,
                    new=action != "roll",
                    dropped=index + i in reading.dropped,
                    label=label,
                )
                for i, face in enumerate(faces)
            )
            index += len(faces)
            if action == "roll":
                net = request.net
                if net >= 1:
                    title = _("Rolled %(dice)s") % {"dice": dice_count(net)}
                else:
                    title = _("Rolled %(count)d negative dice (%(net)d), keeping the lowest") % {
                        "count": len(faces),
                        "net": net,
                    }
                views.append(StepView(action, title, dice, _pool_note(request)))
            elif action == "drama":
                cost = DRAMA_COST * len(faces)
                title = ngettext(
                    "Drama: %(count)d more die for %(cost)d Endurance",
                    "Drama: %(count)d more dice for %(cost)d Endurance",
                    len(faces),
                ) % {"count": len(faces), "cost": cost}
                views.append(StepView(action, title, dice))
            elif action == "miracle":
                views.append(StepView(action, _("Asked for a miracle"), note=_("The GM decides.")))
            elif action == "miracle_approve":
                note = _("Six dice join the roll: the degree matters.") if faces else ""
                title = _("Miracle approved: %(cost)d Endurance") % {"cost": MIRACLE_COST}
                views.append(StepView(action, title, dice, note))
            else:
                views.append(StepView(action, _("The GM refused the miracle")))
        return tuple(views)

    # -- follow-ups ---------------------------------------------------------------------------
    def _check(
        self, state: State, action: str, params: Mapping[str, Any], resources: Mapping[str, Any]
    ) -> int:
        """Raise RulesError unless ``action`` is allowed now; the drama dice count when it is."""
        request = self.stored_request(state)
        miracle = self._miracle(state)
        endurance = _endurance(resources)
        if action in ("drama", "miracle") and not resources.get("latest", True):
            raise RulesError(_("Drama dice and miracles go on the character's latest roll only."))
        if action == "drama":
            if miracle == "pending":
                raise RulesError(_("A miracle is waiting for the GM; buy drama dice once it is settled."))
            if miracle == "approved" and not request.degree_matters:
                raise RulesError(
                    _("The miracle already makes this roll succeed; more dice would change nothing.")
                )
            bought = sum(len(step["dice"]) for step in steps_of(state, "drama"))
            room = MAX_DRAMA - bought
            if room <= 0:
                raise RulesError(_("A roll takes at most %(maximum)d drama dice.") % {"maximum": MAX_DRAMA})
            affordable = endurance // DRAMA_COST
            if affordable < 1:
                raise RulesError(
                    _("A drama die costs %(cost)d Endurance, and there is not enough left.")
                    % {"cost": DRAMA_COST}
                )
            count = get_int(
                params, "count", _("The number of drama dice"), 1, min(room, affordable), default=1
            )
            return count
        if action == "miracle":
            if miracle:
                raise RulesError(_("A miracle has been asked for on this roll already."))
            if self.evaluate(state).success and not request.degree_matters:
                raise RulesError(_("This roll succeeds already; a miracle would change nothing."))
            if endurance < MIRACLE_COST:
                raise RulesError(
                    _("A miracle costs %(cost)d Endurance, and there is not enough left.")
                    % {"cost": MIRACLE_COST}
                )
            return 0
        if action in ("miracle_approve", "miracle_refuse"):
            if miracle != "pending":
                raise RulesError(_("No miracle is waiting for the GM on this roll."))
            if action == "miracle_approve" and endurance < MIRACLE_COST:
                raise RulesError(
                    _("A miracle costs %(cost)d Endurance, and there is not enough left.")
                    % {"cost": MIRACLE_COST}
                )
            return 0
        raise RulesError(_("%(action)s is not a follow-up in this system.") % {"action": repr(action)})

    def may_await_gm(self, state: State) -> bool:
        # The GM's only follow-ups settle a miracle the player asked for.
        return self._miracle(state) == "pending"

    def follow_ups(self, state: State, resources: Mapping[str, Any]) -> list[FollowUp]:
        request = self.stored_request(state)
        now = self.evaluate(state)
        before = None if now.success is None else Fraction(int(now.success))
        allowed: list[FollowUp] = []
        for action in ("drama", "miracle", "miracle_approve", "miracle_refuse"):
            try:
                self._check(state, action, {}, resources)
            except RulesError:
                continue
            if action == "drama":
                bought = sum(len(step["dice"]) for step in steps_of(state, "drama"))
                most = min(MAX_DRAMA - bought, _endurance(resources) // DRAMA_COST)
                # The odds depend on how many dice are bought, so each count in the picker
                # carries its own exact figure; the button carries none (one figure for every
                # count would be wrong for all but one of them).
                allowed.append(
                    FollowUp(
                        "drama",
                        _("Buy drama dice"),
                        cost=_("%(cost)d Endurance per die") % {"cost": DRAMA_COST},
                        params=(self._drama_param(state, most, before),),
                        chance_before=before,
                        chance_after=None,
                        spends=True,
                    )
                )
            elif action == "miracle":
                allowed.append(
                    FollowUp(
                        "miracle",
                        _("Ask for a miracle"),
                        cost=_("%(cost)d Endurance if the GM approves") % {"cost": MIRACLE_COST},
                        chance_before=before,
                        chance_after=None if request.dn is None else Fraction(1),
                        spends=True,
                    )
                )
            elif action == "miracle_approve":
                allowed.append(
                    FollowUp(
                        "miracle_approve",
                        _("Approve the miracle"),
                        _("%(cost)d Endurance") % {"cost": MIRACLE_COST},
                        gm_only=True,
                        spends=True,
                    )
                )
            else:
                allowed.append(FollowUp("miracle_refuse", _("Refuse the miracle"), gm_only=True))
        return allowed

    def apply(
        self,
        state: State,
        action: str,
        params: Mapping[str, Any],
        resources: Mapping[str, Any],
        rng: Rng,
    ) -> Applied:
        count = self._check(state, action, params, resources)
        if action == "drama":
            step = {"action": "drama", "dice": roll_dice(rng, count)}
            # DBL-10: Endurance that went on drama dice waits for the next Adventure ("drama");
            # a miracle's 30 (below) comes back the usual way.
            cost = DRAMA_COST * count
            return Applied(with_step(state, step), {"endurance": cost, "drama": cost})
        if action == "miracle":
            return Applied(with_step(state, {"action": "miracle"}))
        if action == "miracle_refuse":
            return Applied(with_step(state, {"action": "miracle_refuse"}))
        degree = self.stored_request(state).degree_matters
        step = {"action": "miracle_approve", "dice": roll_dice(rng, MIRACLE_DICE if degree else 0)}
        return Applied(with_step(state, step), {"endurance": MIRACLE_COST})

    def _drama_param(self, state: State, most: int, before: Fraction | None) -> Param:
        """The drama dice picker: 1..``most`` dice, each choice with the exact chance of success
        it buys when there is a Difficulty Number ("2 dice: 0% -> 31%"), or its Endurance when
        there is none or the chance would not change ("2 dice, 10 Endurance"). Short: it fits
        a phone's width."""
        chances = self.drama_chances(state, most)
        labels = []
        for count in range(1, most + 1):
            dice = dice_count(count)
            # "100% -> 100%" says nothing: a roll that succeeds already buys degree, not safety.
            if count in chances and chances[count] != before:
                label = _("%(dice)s: %(before)s -> %(after)s") % {
                    "dice": dice,
                    "before": percent(before),
                    "after": percent(chances[count]),
                }
            else:
                label = _("%(dice)s, %(cost)d Endurance") % {"dice": dice, "cost": DRAMA_COST * count}
            labels.append(label)
        choices = tuple(str(count) for count in range(1, most + 1))
        return Param("count", _("Drama dice"), choices, minimum=1, maximum=most, labels=tuple(labels))

    def chance_after_step(self, before: State, after: State, follow_up: FollowUp) -> Fraction | None:
        """DBL-10: the chance of success the drama dice of ``after``'s last step bought, from
        ``before``, when that many dice are among the counts the picker offers now."""
        if follow_up.action != "drama" or not after.get("steps") or not follow_up.params:
            return None
        step = after["steps"][-1]
        count = len(step.get("dice", ())) if step.get("action") == "drama" else 0
        if str(count) not in follow_up.params[0].choices:
            return None
        return self.drama_chances(before, count).get(count)

    def drama_chances(self, state: State, up_to: int) -> dict[int, Fraction]:
        """The exact chance of success after buying 1..``up_to`` more drama dice on this roll,
        given the dice already on the table (empty for an opposed roll)."""
        request = self.stored_request(state)
        reading = self.read(state)
        if request.dn is None:
            return {}
        if reading.miracle == "approved":
            return dict.fromkeys(range(1, up_to + 1), Fraction(1))
        return {
            count: chance_beating(request.net, request.dn, count, reading.dice)
            for count in range(1, up_to + 1)
        }

    # -- odds ---------------------------------------------------------------------------------
    def outcomes(self, request: DoublesRequest) -> dict[str, Fraction]:
        return {str(value): chance for value, chance in result_distribution(request.net).items()}

    def chance(self, request: DoublesRequest) -> Fraction | None:
        if request.dn is None:
            return None
        return chance_beating(request.net, request.dn)

    def pool_size(self, request: DoublesRequest) -> int:
        """The net pool: zero and below are negative dice (two or more, keeping the lowest)."""
        return request.net

    def step_costs(self, step: Mapping[str, Any]) -> Mapping[str, Any]:
        if step.get("action") == "drama":
            cost = DRAMA_COST * len(step["dice"])
            return {"endurance": cost, "drama": cost}
        return {"endurance": MIRACLE_COST} if step.get("action") == "miracle_approve" else {}

    def chance_with_drama(self, request: DoublesRequest, count: int) -> Fraction | None:
        """The chance of success of a fresh roll when ``count`` drama dice will be bought."""
        if request.dn is None:
            return None
        if not 0 <= count <= MAX_DRAMA:
            raise RulesError(_("A roll takes between 0 and %(maximum)d drama dice.") % {"maximum": MAX_DRAMA})
        return chance_beating(request.net, request.dn, count)

    def chance_of_catastrophe(self, request: DoublesRequest) -> Fraction:
        """DBL-15, DBL-16: a fresh roll's chance of a catastrophe (a result of 1)."""
        return result_distribution(request.net).get(1, Fraction(0))

    def chance_of_amazing(self, request: DoublesRequest) -> Fraction:
        """DBL-8: a fresh roll's chance of an Amazing Success."""
        return sum(
            (chance for value, chance in result_distribution(request.net).items() if is_amazing(value)),
            Fraction(0),
        )

    # -- contests -----------------------------------------------------------------------------
    contest_rule = Text(
        N_("the higher result wins; equal results are a standoff, two catastrophes included (DBL-7, DBL-15)")
    )

    def contest_request(self, request: DoublesRequest) -> DoublesRequest:
        """DBL-7: a side of an opposed roll beats the other side's result, not a Difficulty
        Number: the request as an opposed one (a Difficulty Number given with it is dropped)."""
        return replace(request, dn=None)

    def contest_winner(self, states: Sequence[State], extras: Sequence[Mapping[str, Any]] = ()) -> int | None:
        """DBL-7, DBL-11: the higher result wins, equal results are a standoff (None); drama
        dice count and an approved miracle lifts its side (``settle_opposed``). Refused while a
        miracle waits for the GM."""
        if len(states) != 2:
            raise RulesError(_("An opposed roll has exactly two sides."))
        winner = settle_opposed(states[0], states[1]).winner
        return None if winner is None else "ab".index(winner)

    def contest_chance_after(
        self, states: Sequence[State], position: int, action: str, target: int
    ) -> Fraction | None:
        """DBL-7, DBL-10, DBL-11, DBL-15: the exact chance that side ``position`` wins the
        opposed roll once it takes ``action`` on its own roll (``target``): "drama" buys one
        die here (``contest_drama_chances`` gives every count), "miracle" counts as approved.
        None for anything else (the GM's answer to a miracle, the other side's roll) and while
        a miracle waits for the GM."""
        if target != position:
            return None  # doubles has no follow-up on the other side's roll
        if action == "drama":
            return contest_drama_chances(states, position, 1).get(1)
        if action == "miracle":
            return contest_miracle_chance(states, position)
        return None

    def contest_option_chances(
        self, states: Sequence[State], position: int, follow_up: FollowUp, target: int
    ) -> list[tuple[str, Fraction]]:
        """One line per number of drama dice the picker offers ("Buy 2 drama dice"): each
        count wins with its own chance. A miracle's line says it counts on the GM's yes."""
        if target != position:
            return []
        if follow_up.action == "drama" and follow_up.params:
            counts = [int(choice) for choice in follow_up.params[0].choices]
            chances = contest_drama_chances(states, position, max(counts, default=0))
            return [
                (
                    ngettext("Buy %(count)d drama die", "Buy %(count)d drama dice", count) % {"count": count},
                    chances[count],
                )
                for count in counts
                if count in chances
            ]
        if follow_up.action == "miracle":
            chance = contest_miracle_chance(states, position)
            return [] if chance is None else [(_("Ask for a miracle, if the GM approves"), chance)]
        return super().contest_option_chances(states, position, follow_up, target)

    def opposed_verdict(
        self,
        states: Sequence[State],
        names: Sequence[str],
        extras: Sequence[Mapping[str, Any]] = (),
        players: Sequence[bool] = (True, True),
    ) -> str:
        """The opposed roll in words: who beats whom and by what, the standoff, each side's
        catastrophe, and the Complication the amazing side inflicted or may inflict (DBL-9):
        only a side that is a PC (``players``: whether each side is one), winner or not."""
        if len(states) != 2:
            return ""
        settled = settle_opposed(states[0], states[1])
        first, second = settled.results
        if settled.winner is None:
            text = _("Standoff at %(result)d: neither %(first)s nor %(second)s beats the other") % {
                "result": first,
                "first": names[0],
                "second": names[1],
            }
        else:
            index = "ab".index(settled.winner)
            # The winner's result first, as a table says a score ("Bram wins, 5 to 4").
            won, lost = (first, second) if index == 0 else (second, first)
            text = _("%(name)s wins, %(won)d to %(lost)d") % {"name": names[index], "won": won, "lost": lost}
        miracles = [
            name for name, state in zip(names, states, strict=True) if self.read(state).miracle == "approved"
        ]
        if miracles:
            who = (
                miracles[0]
                if len(miracles) == 1
                else _("%(first)s and %(second)s") % {"first": miracles[0], "second": miracles[1]}
            )
            # Translators: the verdict above, then who a miracle helped: "Bram wins, 5 to 4 (Bram: a miracle)."
            text = _("%(verdict)s (%(names)s: a miracle).") % {"verdict": text, "names": who}
        else:
            # Translators: the verdict above as one sentence.
            text = _("%(verdict)s.") % {"verdict": text}
        for side in settled.catastrophes:
            text += " " + _("%(name)s rolled a catastrophe.") % {"name": names["ab".index(side)]}
        if settled.amazing is not None and players["ab".index(settled.amazing)]:
            index = "ab".index(settled.amazing)
            chosen = str([*extras, {}, {}][index].get("complication", ""))
            loser = names[1 - index]
            if chosen:
                text += " " + _("%(name)s inflicts a Complication on %(loser)s: %(chosen)s.") % {
                    "name": names[index],
                    "loser": loser,
                    "chosen": chosen,
                }
            elif [*extras, {}, {}][index].get("no_complication"):
                text += " " + _("Amazing Success: %(name)s inflicts no Complication on %(loser)s.") % {
                    "name": names[index],
                    "loser": loser,
                }
            else:
                text += " " + _("Amazing Success: %(name)s may inflict a Complication on %(loser)s.") % {
                    "name": names[index],
                    "loser": loser,
                }
        return text

    def contest(self, request_a: DoublesRequest, request_b: DoublesRequest) -> ContestOdds:
        """DBL-7, DBL-15, DBL-16: an opposed roll between two fresh pools, before drama dice or
        a miracle. ``tie`` is the standoff. A catastrophe shows 1, the lowest result, so it
        loses to any other roll and stands off against another catastrophe."""
        for request in (request_a, request_b):
            if request.dn is not None:
                raise RulesError(
                    _("An opposed roll has no Difficulty Number: each side beats the other's result.")
                )
        return contest_odds(
            result_distribution(request_a.net), result_distribution(request_b.net), higher_wins
        )

    # -- command line -------------------------------------------------------------------------
    def add_cli_arguments(self, parser: argparse.ArgumentParser) -> None:
        parser.add_argument(
            "--dice",
            type=IntRange(MIN_POOL, MAX_POOL),
            help=_("net pool after every modifier, %(minimum)d to %(maximum)d (0 or less: negative dice)")
            % {"minimum": MIN_POOL, "maximum": MAX_POOL},
        )
        parser.add_argument(
            "--ability",
            type=IntRange(1, MAX_LEVEL),
            action="append",
            dest="abilities",
            help=_("an Ability's level (repeat)"),
        )
        situational = IntRange(0, MAX_SITUATIONAL)
        parser.add_argument("--bonus", type=situational, default=0, help=_("situational bonus dice"))
        parser.add_argument(
            "--weakness",
            type=IntRange(1, MAX_LEVEL),
            action="append",
            dest="weaknesses",
            help=_("a Weakness's level (repeat)"),
        )
        parser.add_argument("--penalty", type=situational, default=0, help=_("situational penalty dice"))
        parser.add_argument(
            "--helpers",
            type=IntRange(0, MAX_HELPERS),
            default=0,
            help=_("characters teaming up: +1 die each"),
        )
        parser.add_argument(
            "--dn",
            type=OneOf(tuple((str(dn), f"{_(name)} ({dn})") for name, dn in DIFFICULTIES.items())),
            help=_(
                "Difficulty Number: 2-12 or its name (Easy ... 'Nigh Impossible'); none for an opposed roll"
            ),
        )
        parser.add_argument("--degree-matters", action="store_true", help=_("the degree of success matters"))
        parser.add_argument(
            "--declaration", action="store_true", help=_("the player declared this challenge")
        )

    def request_from_cli(self, options: argparse.Namespace) -> DoublesRequest:
        keys = (
            "dice",
            "abilities",
            "bonus",
            "weaknesses",
            "penalty",
            "helpers",
            "dn",
            "degree_matters",
            "declaration",
        )
        return self.parse_request({key: getattr(options, key, None) for key in keys})

    def cli_extra_odds(self, request: DoublesRequest) -> dict[str, Fraction]:
        """Extra lines for ``manage.py odds``: drama dice, catastrophe and Amazing Success."""
        extra: dict[str, Fraction] = {}
        for count in (1, 2, 3):
            chance = self.chance_with_drama(request, count)
            if chance is not None:
                extra[f"with {count} drama {'die' if count == 1 else 'dice'}"] = chance
        extra["catastrophe"] = self.chance_of_catastrophe(request)
        extra["Amazing Success"] = self.chance_of_amazing(request)
        return extra

    # -- the rules page and the warm-up ----------------------------------------------------
    def build_rules_tables(self) -> tuple[Table, ...]:
        def net_pool(net: int) -> str:
            """A net pool as a row heading: "3", or "-1 (3 dice)" for negative dice."""
            return str(net) if net >= 1 else _("%(net)d (%(count)d dice)") % {"net": net, "count": 2 - net}

        plain = grid(
            _(
                "Chance of beating each Difficulty Number, from Easy (2) to Nigh Impossible (12), by net "
                "pool (0 or less: negative dice, keep the lowest)"
            ),
            _("Net pool"),
            [(net_pool(net), net) for net in range(-3, 9)],
            [(str(dn), dn) for dn in DN_NAMES],
            lambda net, dn: self.chance(self.parse_request({"dice": net, "dn": dn})),
        )
        drama = grid(
            _(
                "Chance of beating the Difficulty Number with drama dice added to the roll (5 Endurance "
                "each); 0 or less: negative dice"
            ),
            _("Net pool, Difficulty"),
            [(f"{net_pool(net)}, {_(DN_NAMES[dn])} ({dn})", (net, dn)) for net, dn in DRAMA_EXAMPLES],
            [
                (
                    _("none")
                    if count == 0
                    else ngettext("+%(count)d die", "+%(count)d dice", count) % {"count": count},
                    count,
                )
                for count in range(4)
            ],
            lambda example, count: self.chance_with_drama(
                self.parse_request({"dice": example[0], "dn": example[1]}), count
            ),
        )
        return (plain, drama)

    def typical_requests(self) -> tuple[dict[str, Any], ...]:
        return tuple({"dice": n, "dn": dn} for n in range(-8, 21) for dn in (2, 4, 6, 8, 10, 12))


def _pool_note(request: DoublesRequest) -> str:
    """How the pool was built, for the card: "2 + Abilities 3 - penalty 1 + helpers 1 = 5"."""
    if request.dice is not None:
        return ""
    parts = [
        ("+", N_("Abilities"), sum(request.abilities)),
        ("+", N_("bonus"), request.bonus),
        ("-", N_("Weaknesses"), sum(request.weaknesses)),
        ("-", N_("penalty"), request.penalty),
        ("+", N_("helpers"), request.helpers),
    ]
    terms = [f" {sign} {_(label)} {value}" for sign, label, value in parts if value]
    return f"{BASE_DICE}{''.join(terms)} = {request.net}" if terms else ""


def _endurance(resources: Mapping[str, Any]) -> int:
    try:
        return max(0, int(resources.get("endurance", 0) or 0))
    except (TypeError, ValueError, OverflowError):
        raise RulesError(_("The character's Endurance must be a whole number.")) from None


# --------------------------------------------------------------------------------------------
# The table around the dice


@dataclass(frozen=True)
class Opposed:
    """The end of an opposed roll: ``winner`` is "a", "b" or None for a standoff."""

    winner: str | None
    margin: int
    complication: bool  # DBL-9: one side rolled an Amazing Success and the other did not
    note: str
    # DBL-15/16: the sides ("a", "b") whose roll is a catastrophe: they suffer it whoever wins
    # (a catastrophe only ever wins with a miracle, which overrides it).
    catastrophes: tuple[str, ...] = ()
    results: tuple[int, int] = (0, 0)  # each side's result after any miracle
    # DBL-9: the side ("a", "b") whose dice showed an Amazing Success when the other's did not,
    # whoever wins: that side (if a PC) may inflict the Complication. None otherwise.
    amazing: str | None = None


def opposed(result_a: int, result_b: int, *, miracle_a: bool = False, miracle_b: bool = False) -> Opposed:
    """DBL-7, DBL-9, DBL-11: who beats whom in an opposed roll.

    Equal results are a standoff: neither side beats the other. A side with an approved
    miracle (and an opponent without one) wins by at least one whatever the dice. The winner
    may inflict a Complication when their result is amazing and the loser's is not."""
    # DBL-9: amazing is what the dice showed, not a miracle's floor; the amazing side may
    # inflict the Complication whether it wins or not (the document names no winner).
    shown = {"a": result_a, "b": result_b}
    amazing = next(
        (
            side
            for side, other in (("a", "b"), ("b", "a"))
            if is_amazing(shown[side]) and not is_amazing(shown[other])
        ),
        None,
    )
    for value in (result_a, result_b):
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise RulesError(_("Each side's result must be a whole number of at least 1."))
    a, b = result_a, result_b
    if miracle_a and not miracle_b:
        a = max(a, b + 1)
    elif miracle_b and not miracle_a:
        b = max(b, a + 1)
    complication = amazing is not None
    extra = " " + _("An Amazing Success against an ordinary one: its side may inflict a Complication.")
    if a == b:
        note = _("Standoff at %(result)d: neither side beats the other.") % {"result": a}
        return Opposed(
            None, 0, complication, note + (extra if complication else ""), results=(a, b), amazing=amazing
        )
    winner, high, low = ("a", a, b) if a > b else ("b", b, a)
    note = _("%(high)d beats %(low)d.") % {"high": high, "low": low} + (extra if complication else "")
    return Opposed(winner, high - low, complication, note, results=(a, b), amazing=amazing)


def settle_opposed(state_a: State, state_b: State) -> Opposed:
    """DBL-7, DBL-9, DBL-11, DBL-15, DBL-16: the end of an opposed roll between two rolled
    states, each read with its drama dice and miracle (an approved miracle lifts its side to
    one above the other and lifts its catastrophe). Refused while a miracle waits for the GM,
    or for a roll made against a Difficulty Number."""
    readings = []
    for side, state in (("A", state_a), ("B", state_b)):
        if state.get("system") != system.slug:
            raise RulesError(_("Both sides of an opposed roll must be rolls of this system."))
        if state["request"].get("dn") is not None:
            raise RulesError(
                _("Side %(side)s rolled against a Difficulty Number, not against the other side.")
                % {"side": side}
            )
        reading = system.read(state)
        if reading.miracle == "pending":
            raise RulesError(
                _("Side %(side)s asked for a miracle: the GM approves or refuses it first.") % {"side": side}
            )
        readings.append(reading)
    first, second = readings
    result = opposed(
        first.dice_result,
        second.dice_result,
        miracle_a=first.miracle == "approved",
        miracle_b=second.miracle == "approved",
    )
    catastrophes = tuple(side for side, reading in zip("ab", readings, strict=True) if reading.catastrophe)
    note = result.note
    if len(catastrophes) == 2:
        note += " " + _("Both sides rolled a catastrophe and suffer it.")
    elif catastrophes:
        note += " " + _("Side %(side)s rolled a catastrophe.") % {"side": catastrophes[0].upper()}
    return replace(result, catastrophes=catastrophes, note=note)


# -- the chance to win an opposed roll after a follow-up (DBL-7, DBL-10, DBL-11, DBL-15) -----


def _side_distribution(state: State, extra: int = 0) -> dict[int, Fraction]:
    """The exact distribution of a side's dice result once ``extra`` more dice join it: what its
    dice show (a single value) when it has rolled and nothing joins; the distribution of a
    fresh roll of its pool when it has no step yet (not rolled, or sealed from the asker)."""
    net = system.stored_request(state).net
    return result_distribution(net, extra, system._all_dice(state))


def _opposed_sides(states: Sequence[State], position: int) -> tuple[State, State] | None:
    """(this side, the other side) when both are sides of an opposed doubles roll, this one
    rolled and no miracle waiting for the GM on either; None otherwise (nothing to say yet)."""
    if len(states) != 2 or position not in (0, 1):
        return None
    for state in states:
        if state.get("system") != system.slug or state["request"].get("dn") is not None:
            return None
    mine, theirs = states[position], states[1 - position]
    if not mine["steps"]:
        return None  # a follow-up goes on a roll that has been rolled
    if "pending" in (system._miracle(mine), system._miracle(theirs)):
        return None  # the GM's answer decides it, and that is no chance
    return mine, theirs


def _win(
    mine: Mapping[int, Fraction], theirs: Mapping[int, Fraction], lifted: bool, against: bool
) -> Fraction:
    """DBL-7, DBL-11, DBL-15: this side's chance to win with the given dice results and
    approved miracles (``lifted`` its own, ``against`` the other side's). One miracle wins
    whatever the dice; two cancel out; then only a higher result wins (a catastrophe's 1 loses
    to anything else, equal results are a standoff)."""
    if lifted != against:
        return Fraction(int(lifted))
    return contest_odds(mine, theirs, higher_wins)["win"]


def contest_drama_chances(states: Sequence[State], position: int, up_to: int) -> dict[int, Fraction]:
    """DBL-7, DBL-10: side ``position``'s exact chance to win the opposed roll after buying
    1..``up_to`` drama dice now, the other side's roll as it stands (its fresh distribution
    when it has not rolled). Empty when there is nothing to say (``_opposed_sides``)."""
    sides = _opposed_sides(states, position)
    if sides is None:
        return {}
    mine, theirs = sides
    lifted = system._miracle(mine) == "approved"
    against = system._miracle(theirs) == "approved"
    other = _side_distribution(theirs)
    return {
        count: _win(_side_distribution(mine, count), other, lifted, against) for count in range(1, up_to + 1)
    }


def contest_miracle_chance(states: Sequence[State], position: int) -> Fraction | None:
    """DBL-11: side ``position``'s exact chance to win the opposed roll if the miracle it asks
    for now is approved: certain, unless the other side's miracle was approved too, when the
    dice decide (with the six miracle dice when the degree matters). None once this roll has
    had its miracle, or when there is nothing to say (``_opposed_sides``)."""
    sides = _opposed_sides(states, position)
    if sides is None:
        return None
    mine, theirs = sides
    if system._miracle(mine):
        return None  # asked once per roll
    degree = system.stored_request(mine).degree_matters
    against = system._miracle(theirs) == "approved"
    extra = MIRACLE_DICE if degree and against else 0
    return _win(_side_distribution(mine, extra), _side_distribution(theirs), True, against)


@dataclass(frozen=True)
class ExtendedAction:
    """DBL-13: successes to reach before a number of failures, all against one Difficulty Number.

    Immutable: ``record`` returns the tally with one more roll in it."""

    dn: int
    successes_needed: int
    failures_allowed: int  # the failure that reaches this number ends the action
    successes: int = 0
    failures: int = 0
    # Who rolled each time and whether it succeeded, in order ("" when nobody was named).
    rolls: tuple[tuple[str, bool], ...] = ()

    def __post_init__(self) -> None:
        if self.dn not in DN_NAMES:
            raise RulesError(_("An extended action needs one of the Difficulty Numbers 2 to 12."))
        if not 1 <= self.successes_needed <= 20 or not 1 <= self.failures_allowed <= 20:
            raise RulesError(
                _("An extended action needs 1 to 20 successes, and ends after 1 to 20 failures.")
            )

    @property
    def status(self) -> str:
        """ "won", "lost" or "going"."""
        if self.successes >= self.successes_needed:
            return "won"
        if self.failures >= self.failures_allowed:
            return "lost"
        return "going"

    def record(self, success: bool, by: str = "") -> ExtendedAction:
        """The tally with one more roll, made by ``by`` (any member may contribute)."""
        if self.status != "going":
            raise RulesError(
                _("This extended action is over: it is won.")
                if self.status == "won"
                else _("This extended action is over: it is lost.")
            )
        return replace(
            self,
            successes=self.successes + bool(success),
            failures=self.failures + (not success),
            rolls=(*self.rolls, (by, bool(success))),
        )

    def record_result(self, result: int, by: str = "") -> ExtendedAction:
        """Record one roll's result against the action's Difficulty Number (DBL-7: a tie fails)."""
        return self.record(beats(result, self.dn), by)

    def chance(self, per_roll: Fraction) -> Fraction:
        """The exact chance of winning from here when every roll still to come succeeds with
        ``per_roll`` (``system.chance`` of the request against this Difficulty Number): the
        successes still needed must all come before the failures still allowed run out."""
        if self.status != "going":
            return Fraction(int(self.status == "won"))
        p = Fraction(per_roll)
        need = self.successes_needed - self.successes
        room = self.failures_allowed - self.failures - 1  # failures that do not end it
        # Won after need successes and f <= room failures, the last roll a success.
        return sum((comb(need - 1 + f, f) * p**need * (1 - p) ** f for f in range(room + 1)), Fraction(0))


system = Doubles()
