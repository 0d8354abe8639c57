"""`stars`: count the Stars.

Rules choices where the document leaves room (also on the in-app rules page):

- **Professional training (STR-7).** Difficulty 3, the same as Adept, and no botches: a roll
  that would botch is a plain failure instead.
- **A difficulty set by the GM.** A request may name a difficulty from 2 to 6; it replaces the
  one the training gives, while Professional still keeps its botch immunity.
- **Botches (STR-8).** More than half the dice showing 1 is a botch even when the other dice
  show Stars: the worst result happens, so the roll fails and counts no Stars. Under
  Professional training such a roll is a failure with no Stars, not a botch.
- **Advantage and disadvantage together** cancel out: the test is rolled once.
- **Keeping one of two rolls (STR-10, STR-11).** A roll is better than another when it has
  more Stars; with equal Stars a botch is worse than a plain failure. When both are equally
  good, the earlier roll stays (so a Luck reroll that ties changes nothing).
- **Luck (STR-11).** Spending Luck repeats the whole test (rolled twice again under
  advantage or disadvantage) and keeps the better of the two results; spent against a roll,
  it keeps the worse. Each may be spent once on a roll: once by the roller ("luck"), once by
  someone the roll is made against ("luck_against", paid from that player's Luck). The second
  reroll of the same kind would reopen a result the table has already accepted. Luck works on
  d3 rolls too, where higher is better.
- **Luck maximum (STR-12).** 3, plus 1 for the Edge Charmed Life at Basic or 2 at Advanced;
  no other Edge in the list names Luck. A long rest gives one point back up to the maximum,
  and a pool found above the maximum comes down to it; a new Adventure fills the pool.
- **Luck on an older roll (STR-11, STR-12).** Luck is spent from the pool as it is now, which
  a new Adventure fills: the table takes it only on a roll of the play session in progress
  and of the current Adventure, for the roller and for the character a roll is made against.
- **A d3 (STR-2)** is its own kind of roll: one d6 halved, rounded up. It has no difficulty,
  no Stars and no botch; its result key is the d3 itself. Advantage does not apply to it.
- **Caps.** A test rolls the Stat's rating, 1-5 dice: that is the whole range the rules allow.
- **Contested rolls (STR-8, STR-9).** More Stars wins and equal Stars go to the player's
  side, by role and never by position: a request marked ``npc`` (someone the GM plays
  without a sheet; ``--npc`` on the command line) is never the player's, so when exactly one
  side is marked, the tie goes to the other one, whichever is listed first. With one
  exception: a botch is "the worst possible result", so when neither side has a Star, a side
  that botched loses to one that failed plainly (the order ``rank`` already uses to keep one
  of two rolls); two botches are a tie, the favoured side's. Nothing is left tied. A d3
  takes no part in a contest.
- **A tie between two players (or two sides of the GM's).** The document only speaks of a
  player against the GM's side; between two sides of the same kind the tie goes to the first
  side, the one who challenged (or whom the GM listed first).
- **Luck in a contest (STR-9, STR-11).** The player may make the opponent's roll be rerolled,
  keeping the worse (``luck_against`` on the opponent's roll), or reroll their own keeping
  the better; ``settle_contest`` reads both rolls as they stand, and
  ``contest_chance_after_luck`` gives the exact chance of winning after such a reroll.
- **Contests at the table.** Each side rolls sealed and nobody spends Luck before both have
  rolled (``rolls.contests.services``); the side the GM plays without a sheet is marked
  ``npc`` (``DiceSystem.sheetless``), so the player's side keeps its ties wherever it is listed.
- **Five Stars (STR-5).** Five Stars or more (a 6 counting two) is the best outcome there is,
  and the document adds that such a task takes half the usual time: the card says so
  (``FIVE_STARS``), so the GM narrates it.
"""

from __future__ import annotations

import argparse
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from fractions import Fraction
from functools import cache
from typing import Any

from .base import (
    TONE_NAMES,
    Applied,
    ContestOdds,
    DiceSystem,
    Die,
    FollowUp,
    Outcome,
    Rng,
    RulesError,
    State,
    StepView,
    Table,
    contest_odds,
    dice_count,
    get_bool,
    get_choice,
    get_int,
    grid,
    new_state,
    roll_dice,
    steps_of,
    with_step,
)
from .dice import Counts, distribution
from .flags import IntRange, OneOf
from .words import N_, Text, Texts, _, ngettext

# STR-13: the character sheet's lists, as the document names them.
# The Stats, Skills and Edges are the sheet's keys, kept in English and translated where drawn.
STATS = (N_("Vigor"), N_("Agility"), N_("Smarts"), N_("Presence"))
RATINGS: dict[int, str] = {
    1: N_("Poor"),
    2: N_("Average"),
    3: N_("Good"),
    4: N_("Superb"),
    5: N_("World Class"),
}
SKILLS = (
    N_("Aim"),
    N_("Athletics"),
    N_("Bookworm"),
    N_("Entertain"),
    N_("Gambling"),
    N_("Heal"),
    N_("Melee"),
    N_("Perception"),
    N_("Persuasion"),
    N_("Primal"),
    N_("Stealth"),
    N_("Technology"),
    N_("Thievery"),
    N_("Willpower"),
)
EDGES = (
    N_("Allure"),
    N_("Artisan"),
    N_("Brawler"),
    N_("Charmed Life"),
    N_("Dodge!"),
    N_("Double Trouble"),
    N_("Fast Hands"),
    N_("First Strike"),
    N_("Heirloom"),
    N_("Lifestyle"),
    N_("Mind Over Matter"),
    N_("Mysterious Blood"),
    N_("Tough as Nails"),
    N_("Third Wind"),
)
EDGE_RATINGS = ("basic", "advanced")
EDGE_RATING_NAMES = {"basic": N_("Basic"), "advanced": N_("Advanced")}
TRAININGS = ("untrained", "novice", "adept", "professional")
# The trainings as a table heads them (the values above stay the request's words).
TRAINING_NAMES = {
    "untrained": N_("Untrained"),
    "novice": N_("Novice"),
    "adept": N_("Adept"),
    "professional": N_("Professional"),
}
TRAINING_DIFFICULTY = {"untrained": 5, "novice": 4, "adept": 3, "professional": 3}
MIN_DIFFICULTY, MAX_DIFFICULTY = 2, 6
MIN_DICE, MAX_DICE = 1, 5
KINDS = ("test", "d3")
LUCK_BASE = 3
# STR-5: the prompt a roll of five Stars or more carries on its card.
FIVE_STARS = N_("Five Stars or more: done with flair, and in half the usual time.")
LUCK_EDGE_BONUS = {"basic": 1, "advanced": 2}  # Charmed Life


# --------------------------------------------------------------------------------------------
# Pure helpers


def d3(face: int) -> int:
    """STR-2: a d6 halved, rounded up (1-2: 1, 3-4: 2, 5-6: 3)."""
    return (face + 1) // 2


def is_botch(dice: Iterable[int]) -> bool:
    """STR-8: more than half the dice show 1."""
    faces = list(dice)
    return 2 * faces.count(1) > len(faces)


def count_stars(dice: Iterable[int], difficulty: int) -> int:
    """STR-3/4/8: one Star per die at or above the difficulty, two for a 6; none in a botch."""
    faces = list(dice)
    if is_botch(faces):
        return 0
    return sum(2 if face == 6 else 1 for face in faces if face >= difficulty)


def rank(dice: Iterable[int], difficulty: int, immune: bool) -> tuple[int, int]:
    """How good a roll is, for keeping one of two: Stars, then a botch below a plain failure."""
    faces = list(dice)
    return (count_stars(faces, difficulty), 0 if is_botch(faces) and not immune else 1)


def contest(player_stars: int, opponent_stars: int) -> bool:
    """STR-9: True when the player wins a contested roll (more Stars; ties go to the player)."""
    return player_stars >= opponent_stars


def luck_max(edges: Mapping[str, str] | Iterable[str] = ()) -> int:
    """STR-12: the most Luck a hero holds: 3, raised by Charmed Life (+1 Basic, +2 Advanced).

    ``edges`` is the hero's Edges: names (each at Basic) or a mapping name -> "basic"/"advanced".
    """
    rated = dict(edges.items()) if isinstance(edges, Mapping) else {name: "basic" for name in edges}
    known = {edge.lower(): edge for edge in EDGES}
    bonus = 0
    for name, rating in rated.items():
        edge = known.get(str(name).strip().lower())
        if edge is None:
            raise RulesError(
                _("%(name)s is not an Edge; the Edges are %(edges)s.")
                % {"name": repr(name), "edges": ", ".join(EDGES)}
            )
        level = str(rating).strip().lower()
        if level not in EDGE_RATINGS:
            raise RulesError(
                _("An Edge is rated Basic or Advanced, not %(rating)s.") % {"rating": repr(rating)}
            )
        if edge == "Charmed Life":
            bonus += LUCK_EDGE_BONUS[level]
    return LUCK_BASE + bonus


def after_long_rest(current: int, maximum: int) -> int:
    """STR-12: Luck after a long rest: one spent point back, never above the maximum (a pool
    found above it, say after Charmed Life was lost, comes down to it)."""
    if current < 0 or maximum < 0:
        raise RulesError(_("Luck cannot be negative."))
    return min(current + 1, maximum)


def at_new_adventure(maximum: int) -> int:
    """STR-12: Luck at the start of an Adventure: the whole pool."""
    if maximum < 0:
        raise RulesError(_("Luck cannot be negative."))
    return maximum


# --------------------------------------------------------------------------------------------
# Requests and odds


@dataclass(frozen=True)
class StarsRequest:
    dice: int  # the Stat's rating (1 for a d3)
    training: str = "untrained"
    difficulty: int | None = None  # set by the GM; None: what the training gives
    advantage: bool = False
    disadvantage: bool = False
    kind: str = "test"
    # STR-9: a side the GM plays without a sheet, never the player's side: ties go against it.
    npc: bool = False

    @property
    def target(self) -> int:
        """The difficulty each die must meet."""
        return self.difficulty if self.difficulty is not None else TRAINING_DIFFICULTY[self.training]

    @property
    def immune(self) -> bool:
        return self.training == "professional"

    @property
    def rolls(self) -> int:
        """How many times the test is rolled: twice under advantage or disadvantage alone."""
        return 2 if self.advantage != self.disadvantage else 1

    @property
    def keep(self) -> str:
        return "worse" if self.disadvantage and not self.advantage else "better"


Result = tuple[int, int]  # (Stars, 1 unless a botch that counts): what ``rank`` returns


@cache
def _single(dice: int, target: int, immune: bool) -> dict[Result, Fraction]:
    def key(counts: Counts) -> Result:
        faces = [face for face, count in enumerate(counts, start=1) for _ in range(count)]
        return rank(faces, target, immune)

    return distribution(dice, key)


def result_distribution(request: StarsRequest) -> dict[Result, Fraction]:
    """The exact distribution of the kept result of a test, (Stars, 0 for a botch else 1),
    both rolls counted under advantage or disadvantage. A fresh dict, safe to change."""
    return dict(_kept(request))


@cache
def _kept(request: StarsRequest) -> dict[Result, Fraction]:
    single = _single(request.dice, request.target, request.immune)
    if request.rolls == 1:
        return single
    pick = max if request.keep == "better" else min
    kept: dict[Result, Fraction] = defaultdict(Fraction)
    for first, p in single.items():
        for second, q in single.items():
            kept[pick(first, second)] += p * q
    return dict(kept)


def botch_chance(request: StarsRequest) -> Fraction:
    """The exact chance that a fresh test botches (0 under Professional training)."""
    return sum((p for (_, clean), p in _kept(request).items() if not clean), Fraction(0))


def success_chance(request: StarsRequest) -> Fraction:
    """The exact chance of at least one Star."""
    return sum((p for (stars, _), p in _kept(request).items() if stars), Fraction(0))


def chance_with_luck(request: StarsRequest) -> Fraction:
    """Success when the roller will spend Luck after a failure (the reroll keeps the better)."""
    p = success_chance(request)
    return 1 - (1 - p) ** 2


def chance_against_luck(request: StarsRequest) -> Fraction:
    """Success when someone spends Luck against the roll (the reroll keeps the worse)."""
    return success_chance(request) ** 2


def contest_won(player: Result, opponent: Result) -> bool:
    """STR-8, STR-9: whether the player wins with these results, (Stars, 0 for a botch else 1)
    as ``rank`` reads them: more Stars wins, ties go to the player, and with no Stars on
    either side a botch loses to a plain failure."""
    return player >= opponent


def _verdict(player: Result, opponent: Result) -> str:
    return "win" if contest_won(player, opponent) else "lose"


def _unfavoured_verdict(mine: Result, theirs: Result) -> str:
    """Side A's verdict when the tie belongs to side B: A wins only when B would not."""
    return "lose" if contest_won(theirs, mine) else "win"


def favoured_side(npc_a: bool, npc_b: bool) -> int:
    """STR-9: the index (0 or 1) of the side a tie goes to, by role: the player's side, so
    side 1 only when side 0 is the GM's (``npc``) and side 1 is not; between two sides of the
    same kind, the first (the challenger, or the one the GM listed first)."""
    return 1 if npc_a and not npc_b else 0


def _verdict_for(favoured: int) -> Callable[[Result, Result], str]:
    return _verdict if favoured == 0 else _unfavoured_verdict


def _is_npc(state: State) -> bool:
    return bool(state.get("request", {}).get("npc"))


def contest_chance(player: StarsRequest, opponent: StarsRequest) -> Fraction:
    """STR-9: the exact chance that the player wins a contested roll (ties go to the player)."""
    return system.contest(player, opponent)["win"]


def state_result(state: State) -> Result:
    """A test's result as it stands now (after any Luck): (Stars, 0 for a botch else 1)."""
    request = StarsRequest(**state["request"])
    if request.kind != "test":
        raise RulesError(_("A d3 has no Stars to compare."))
    return rank(system._result(state), request.target, request.immune)


def after_luck(state: State, keep: str) -> dict[Result, Fraction]:
    """STR-11: the exact distribution of a test's result once Luck rerolls it, keeping the
    "better" (the roller's own Luck) or the "worse" (Luck spent against it) of the result now
    and the new test."""
    if keep not in ("better", "worse"):
        raise RulesError(_("A Luck reroll keeps the better or the worse result."))
    now = state_result(state)
    pick = max if keep == "better" else min
    found: dict[Result, Fraction] = defaultdict(Fraction)
    for fresh, p in _kept(StarsRequest(**state["request"])).items():
        found[pick(now, fresh)] += p
    return dict(found)


def contest_chance_after_luck(player_state: State, opponent_state: State, action: str) -> Fraction:
    """STR-9, STR-11: the player's exact chance of winning once Luck is spent now: "luck" on
    the player's own roll (keep the better) or "luck_against" on the opponent's (keep the
    worse). What the player's phone shows next to the Luck button in a contest."""
    if action == "luck":
        return contest_odds(
            after_luck(player_state, "better"), {state_result(opponent_state): Fraction(1)}, _verdict
        )["win"]
    if action == "luck_against":
        return contest_odds(
            {state_result(player_state): Fraction(1)}, after_luck(opponent_state, "worse"), _verdict
        )["win"]
    raise RulesError(_("%(action)s is not a Luck reroll.") % {"action": repr(action)})


@dataclass(frozen=True)
class StarsContest:
    """STR-9: the end of a contested roll: who won, each side's Stars, and whether they botched."""

    player_wins: bool
    player_stars: int
    opponent_stars: int
    player_botched: bool
    opponent_botched: bool

    @property
    def note(self) -> str:
        def said(stars: int, botched: bool) -> str:
            return (
                _("a botch")
                if botched
                else ngettext("%(count)d Star", "%(count)d Stars", stars) % {"count": stars}
            )

        mine, theirs = (
            said(self.player_stars, self.player_botched),
            said(self.opponent_stars, self.opponent_botched),
        )
        if not self.player_wins:
            return _("The opponent wins: %(theirs)s against %(mine)s.") % {"theirs": theirs, "mine": mine}
        tie = (self.player_stars, self.player_botched) == (self.opponent_stars, self.opponent_botched)
        if tie:
            return _("The player wins: %(mine)s against %(theirs)s (a tie goes to the player).") % {
                "mine": mine,
                "theirs": theirs,
            }
        return _("The player wins: %(mine)s against %(theirs)s.") % {"mine": mine, "theirs": theirs}


def settle_contest(player_state: State, opponent_state: State) -> StarsContest:
    """STR-9: the contest between two rolled tests as they stand (after any Luck on either)."""
    for state in (player_state, opponent_state):
        if state.get("system") != system.slug:
            raise RulesError(_("Both sides of a contest must be rolls of this system."))
    player, opponent = state_result(player_state), state_result(opponent_state)
    return StarsContest(
        contest_won(player, opponent), player[0], opponent[0], player[1] == 0, opponent[1] == 0
    )


# --------------------------------------------------------------------------------------------


class Stars(DiceSystem):
    slug = "stars"
    follow_up_names = Texts({"luck": N_("Luck"), "luck_against": N_("Luck against the roll")})
    tone_names = Texts({**TONE_NAMES, "amazing": N_("Breathtaking"), "catastrophe": N_("Botch")})
    name = Text(N_("Stars"))
    summary = Text(
        N_("Roll your Stat in dice; each die at the difficulty is a Star, a six two. Luck rerolls.")
    )
    result_name = "Stars"
    target_actions = frozenset({"luck_against"})

    # -- requests -----------------------------------------------------------------------------
    def parse_request(self, data: Mapping[str, Any]) -> StarsRequest:
        kind = get_choice(data, "kind", _("The kind of roll"), KINDS, default="test")
        advantage = get_bool(data, "advantage")
        disadvantage = get_bool(data, "disadvantage")
        if kind == "d3":
            if advantage or disadvantage:
                raise RulesError(_("Advantage and disadvantage apply to tests, not to a d3."))
            return StarsRequest(1, kind="d3")
        dice = get_int(data, "dice", _("The Stat's rating"), MIN_DICE, MAX_DICE)
        training = get_choice(data, "training", _("Training"), TRAININGS, default="untrained")
        difficulty = None
        if data.get("difficulty") not in (None, ""):
            difficulty = get_int(data, "difficulty", _("The difficulty"), MIN_DIFFICULTY, MAX_DIFFICULTY)
        return StarsRequest(dice, training, difficulty, advantage, disadvantage, npc=get_bool(data, "npc"))

    def request_dict(self, request: StarsRequest) -> dict[str, Any]:
        """The request as plain data; ``npc`` only when set, so a player's roll stores what
        it always did."""
        data = super().request_dict(request)
        if not data.get("npc"):
            data.pop("npc", None)
        return data

    def sheetless(self, request: StarsRequest) -> StarsRequest:
        """STR-9: the GM's side without a sheet is not the player's: ties go against it."""
        return replace(request, npc=True) if request.kind == "test" else request

    # -- contests (STR-9) ------------------------------------------------------------------------
    def contest_request(self, request: StarsRequest) -> StarsRequest:
        if request.kind == "d3":
            raise RulesError(_("A d3 is not a Skill roll: a contested roll rolls a Stat's dice."))
        return request

    def contest_winner(self, states: Sequence[State], extras: Sequence[Mapping[str, Any]] = ()) -> int | None:
        """STR-9: two sides, more Stars wins, a tie goes to the player's side by role
        (``favoured_side``: not the side marked ``npc``; between two alike, side 0, the one
        who challenged). With no Stars on either side, a botch loses to a plain failure
        (``settle_contest``)."""
        if len(states) != 2:
            raise RulesError(_("A contested roll has exactly two sides."))
        favoured = favoured_side(_is_npc(states[0]), _is_npc(states[1]))
        other = 1 - favoured
        return favoured if settle_contest(states[favoured], states[other]).player_wins else other

    def contest_chance_after(
        self, states: Sequence[State], position: int, action: str, target: int
    ) -> Fraction | None:
        """STR-9, STR-11: Luck on one's own roll keeps the better of two; Luck against the
        other side's keeps the worse."""
        if len(states) != 2 or action not in ("luck", "luck_against"):
            return None
        keep = "better" if target == position else "worse"
        sides = [{state_result(state): Fraction(1)} for state in states]
        sides[target] = after_luck(states[target], keep)
        favoured = favoured_side(_is_npc(states[0]), _is_npc(states[1]))
        odds = contest_odds(sides[0], sides[1], _verdict_for(favoured))
        return odds["win"] if position == 0 else odds["lose"]

    # -- rolling ------------------------------------------------------------------------------
    @staticmethod
    def _test(parsed: StarsRequest, rng: Rng) -> dict[str, Any]:
        """Roll the test once or twice; the step records both rolls and which one is kept."""
        rolls = [roll_dice(rng, parsed.dice) for _ in range(parsed.rolls)]
        kept = 0
        if parsed.kind == "test" and len(rolls) == 2:
            first, second = (rank(roll, parsed.target, parsed.immune) for roll in rolls)
            # Ties keep the first roll.
            if (second > first) if parsed.keep == "better" else (second < first):
                kept = 1
        return {"rolls": rolls, "kept": kept, "dice": rolls[kept]}

    def drawn(self, step: Mapping[str, Any]) -> list[int]:
        # A test with advantage or disadvantage drew two rolls; "dice" is only the kept one.
        if "rolls" in step:
            return [int(face) for roll in step["rolls"] for face in roll]
        return super().drawn(step)

    def roll(self, request: StarsRequest, rng: Rng) -> State:
        return new_state(self, request, {"action": "roll", **self._test(request, rng)})

    @staticmethod
    def _request(state: State) -> StarsRequest:
        return StarsRequest(**state["request"])

    @staticmethod
    def _source(state: State) -> int:
        """The index of the step whose kept roll is the result now."""
        source = 0
        for index, step in enumerate(state["steps"]):
            if index and step["keep"] == "new":
                source = index
        return source

    def _result(self, state: State) -> list[int]:
        return list(state["steps"][self._source(state)]["dice"])

    def _score(self, request: StarsRequest, dice: list[int]) -> tuple[int, int]:
        if request.kind == "d3":
            return (d3(dice[0]), 1)
        return rank(dice, request.target, request.immune)

    def evaluate(self, state: State) -> Outcome:
        request = self._request(state)
        dice = self._result(state)
        details = self._luck_details(state)
        if request.kind == "d3":
            value = d3(dice[0])
            return Outcome(
                None, _("d3: %(value)d") % {"value": value}, str(value), details=details, margin=value
            )
        stars = count_stars(dice, request.target)
        if request.rolls == 2:
            twice = (
                _("Rolled twice, kept the roll with more Stars.")
                if request.keep == "better"
                else _("Rolled twice, kept the roll with fewer Stars.")
            )
            details = (twice, *details)
        if is_botch(dice) and not request.immune:
            return Outcome(False, _("Botch: the worst possible result"), "0", "catastrophe", details)
        if is_botch(dice):
            details = (_("A botch, but Professional training makes it a plain failure."), *details)
            return Outcome(False, _("Failure: no Stars"), "0", "failure", details)
        if not stars:
            return Outcome(False, _("Failure: no Stars"), "0", "failure", details)
        if stars >= 5:
            # A five-Star roll is done in half the time: the card tells the table so.
            details = (*details, _(FIVE_STARS))
            headline = ngettext("Breathtaking: %(count)d Star", "Breathtaking: %(count)d Stars", stars)
            return Outcome(True, headline % {"count": stars}, str(stars), "amazing", details, stars)
        headline = ngettext("Success: %(count)d Star", "Success: %(count)d Stars", stars) % {"count": stars}
        return Outcome(True, headline, str(stars), "success", details, stars)

    @staticmethod
    def _luck_details(state: State) -> tuple[str, ...]:
        lines = []
        for step in state["steps"][1:]:
            new = step["keep"] == "new"
            if step["action"] == "luck":
                lines.append(_("Luck: kept the new result.") if new else _("Luck: kept the earlier result."))
            else:
                lines.append(
                    _("Luck against the roll: kept the new result.")
                    if new
                    else _("Luck against the roll: kept the earlier result.")
                )
        return tuple(lines)

    def view(self, state: State) -> tuple[StepView, ...]:
        request = self._request(state)
        source = self._source(state)
        views = []
        for index, step in enumerate(state["steps"]):
            dice: list[Die] = []
            for which, roll in enumerate(step["rolls"]):
                kept = index == source and which == step["kept"]
                dice.extend(self._die(request, face, roll, dropped=not kept) for face in roll)
            views.append(
                StepView(step["action"], self._title(request, step), tuple(dice), self._note(request, step))
            )
        return tuple(views)

    @staticmethod
    def _die(request: StarsRequest, face: int, roll: list[int], dropped: bool) -> Die:
        if request.kind == "d3":
            return Die(face, new=True, dropped=dropped, label=_("d3: %(value)d") % {"value": d3(face)})
        star = face >= request.target and not is_botch(roll)
        label = "x2" if star and face == 6 else ""
        return Die(face, hit=star, new=True, dropped=dropped, label=label)

    @staticmethod
    def _title(request: StarsRequest, step: Mapping[str, Any]) -> str:
        if step["action"] == "luck":
            return _("Luck: rerolled, keeping the better")
        if step["action"] == "luck_against":
            return _("Luck against the roll: rerolled, keeping the worse")
        if request.kind == "d3":
            return _("Rolled a d3")
        words = {"dice": dice_count(request.dice), "target": request.target}
        if request.rolls != 2:
            return _("Rolled %(dice)s at difficulty %(target)d") % words
        if request.keep == "better":
            return _("Rolled %(dice)s twice (advantage) at difficulty %(target)d") % words
        return _("Rolled %(dice)s twice (disadvantage) at difficulty %(target)d") % words

    @staticmethod
    def _note(request: StarsRequest, step: Mapping[str, Any]) -> str:
        if step["action"] != "roll":
            return _("Kept the new result.") if step["keep"] == "new" else _("The earlier result stands.")
        if request.kind == "test" and len(step["rolls"]) == 2:
            kept, dropped = step["rolls"][step["kept"]], step["rolls"][1 - step["kept"]]
            return _("Kept %(kept)s; dropped %(dropped)s.") % {
                "kept": _stars(kept, request),
                "dropped": _stars(dropped, request),
            }
        return ""

    # -- follow-ups ---------------------------------------------------------------------------
    def _check(self, state: State, action: str, resources: Mapping[str, Any]) -> None:
        """Raise RulesError unless ``action`` is allowed now (STR-11)."""
        if action not in ("luck", "luck_against"):
            raise RulesError(_("%(action)s is not a follow-up in this system.") % {"action": repr(action)})
        if steps_of(state, action):
            if action == "luck":
                raise RulesError(_("Luck has been spent on this roll already; one reroll per roll."))
            raise RulesError(_("Luck has been spent against this roll already; one reroll per roll."))
        if _points(resources.get("luck")) < 1:
            raise RulesError(_("No Luck points left."))

    def follow_ups(self, state: State, resources: Mapping[str, Any]) -> list[FollowUp]:
        """Luck rerolls. The chances: the roll's success now, and after the reroll (for a test)."""
        request = self._request(state)
        allowed = []
        for action in ("luck", "luck_against"):
            try:
                self._check(state, action, resources)
            except RulesError:
                continue
            before = after = None
            if request.kind == "test":
                now = bool(self.evaluate(state).success)
                fresh = success_chance(request)
                before = Fraction(int(now))
                after = (
                    (Fraction(1) if now else fresh) if action == "luck" else (fresh if now else Fraction(0))
                )
            if action == "luck":
                label = _("Spend Luck: reroll, keep the better")
            else:
                label = _("Spend your Luck against this roll: reroll, keep the worse")
            allowed.append(FollowUp(action, label, _("1 Luck"), (), before, after, spends=True))
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
        self._check(state, action, resources)
        request = self._request(state)
        earlier = self._score(request, self._result(state))
        step = {"action": action, **self._test(request, rng)}
        new = self._score(request, step["dice"])
        # Ties keep the earlier result: a reroll that is no better (or no worse) changes nothing.
        step["keep"] = "new" if (new > earlier if action == "luck" else new < earlier) else "earlier"
        return Applied(with_step(state, step), {"luck": 1})

    # -- odds ---------------------------------------------------------------------------------
    def outcomes(self, request: StarsRequest) -> dict[str, Fraction]:
        if request.kind == "d3":
            return {"1": Fraction(1, 3), "2": Fraction(1, 3), "3": Fraction(1, 3)}
        stars: dict[int, Fraction] = defaultdict(Fraction)
        for (count, _kept_low), p in _kept(request).items():
            stars[count] += p
        return {str(count): stars[count] for count in sorted(stars)}

    def chance(self, request: StarsRequest) -> Fraction | None:
        return None if request.kind == "d3" else success_chance(request)

    # -- statistics ---------------------------------------------------------------------------

    def step_costs(self, step: Mapping[str, Any]) -> Mapping[str, Any]:
        return {"luck": 1} if step.get("action") in ("luck", "luck_against") else {}

    # -- contests -----------------------------------------------------------------------------
    contest_rule = Text(
        N_(
            "more Stars wins and a tie goes to the player: the side not marked --npc, or the first "
            "side when both or neither are; with no Stars on either side a botch loses to a plain "
            "failure (STR-9)"
        )
    )

    def contest(self, request_a: StarsRequest, request_b: StarsRequest) -> ContestOdds:
        """STR-9: side A against side B, two fresh tests before any Luck, each with its own
        advantage or disadvantage, from A's view. Ties go to the player's side by role
        (``favoured_side``: B only when A is the GM's side and B is not): ``tie`` is 0."""
        for side, request in (("A", request_a), ("B", request_b)):
            if request.kind != "test":
                raise RulesError(
                    _("Side %(side)s rolls a d3; a contest compares the Stars of two tests.") % {"side": side}
                )
        verdict = _verdict_for(favoured_side(request_a.npc, request_b.npc))
        return contest_odds(_kept(request_a), _kept(request_b), verdict)

    # -- command line -------------------------------------------------------------------------
    def add_cli_arguments(self, parser: argparse.ArgumentParser) -> None:
        parser.add_argument(
            "--dice",
            type=IntRange(MIN_DICE, MAX_DICE),
            help=_("the Stat's rating, %(low)d-%(high)d") % {"low": MIN_DICE, "high": MAX_DICE},
        )
        parser.add_argument(
            "--training",
            type=OneOf(tuple((t, t.capitalize()) for t in TRAININGS)),
            default="untrained",
            help=_("untrained, novice, adept or professional"),
        )
        parser.add_argument(
            "--difficulty",
            type=IntRange(MIN_DIFFICULTY, MAX_DIFFICULTY),
            help=_("a difficulty set by the GM, 2-6 (replaces training's)"),
        )
        parser.add_argument("--advantage", action="store_true", help=_("roll twice, keep the more Stars"))
        parser.add_argument("--disadvantage", action="store_true", help=_("roll twice, keep the fewer Stars"))
        parser.add_argument("--d3", action="store_true", help=_("roll a d3 instead of a test"))
        parser.add_argument(
            "--npc",
            action="store_true",
            help=_(
                "this side is played by the GM without a sheet: in a contest a tie goes to the other side (STR-9)"
            ),
        )

    def request_from_cli(self, options: argparse.Namespace) -> StarsRequest:
        return self.parse_request(
            {
                "kind": "d3" if options.d3 else "test",
                "dice": options.dice,
                "training": options.training,
                "difficulty": options.difficulty,
                "advantage": options.advantage,
                "disadvantage": options.disadvantage,
                "npc": getattr(options, "npc", False),
            }
        )

    def cli_extra_odds(self, request: StarsRequest) -> dict[str, Fraction]:
        """Extra lines for ``manage.py odds``: botches and Luck."""
        if request.kind == "d3":
            return {}
        return {
            "botch": botch_chance(request),
            "with Luck after a failure": chance_with_luck(request),
            "with Luck spent against it": chance_against_luck(request),
        }

    # -- the rules page and the warm-up ----------------------------------------------------
    def build_rules_tables(self) -> tuple[Table, ...]:
        def stat(n: int) -> str:
            return f"{n} ({_(RATINGS[n])})"

        def measure(what: str, **data: object) -> Fraction:
            """The chance of at least one Star ("star") or of a botch ("botch")."""
            request = self.parse_request(data)
            return success_chance(request) if what == "star" else botch_chance(request)

        stats = [(stat(n), n) for n in range(1, 6)]
        trainings = [(_(TRAINING_NAMES[training]), training) for training in TRAININGS]
        return (
            grid(
                _("Chance of at least one Star by Stat and training"),
                _("Stat"),
                stats,
                trainings,
                lambda n, training: measure("star", dice=n, training=training),
            ),
            grid(
                _("Chance of a botch by Stat and training"),
                _("Stat"),
                stats,
                trainings,
                lambda n, training: measure("botch", dice=n, training=training),
            ),
            grid(
                _(
                    "Untrained (difficulty 5), rolled twice: advantage keeps the better roll, disadvantage "
                    "the worse"
                ),
                _("Stat"),
                stats,
                [
                    (_("a Star, advantage"), ("star", "advantage")),
                    (_("a Star, disadvantage"), ("star", "disadvantage")),
                    (_("botch, advantage"), ("botch", "advantage")),
                    (_("botch, disadvantage"), ("botch", "disadvantage")),
                ],
                lambda n, how: measure(how[0], dice=n, **{how[1]: True}),
            ),
        )

    def typical_requests(self) -> tuple[dict[str, Any], ...]:
        return tuple(
            {"dice": n, "training": training, **extra}
            for n in range(1, 6)
            for training in ("untrained", "novice", "adept", "professional")
            for extra in ({}, {"advantage": True}, {"disadvantage": True})
        )


def _stars(dice: list[int], request: StarsRequest) -> str:
    if is_botch(dice) and not request.immune:
        return _("a botch")
    stars = count_stars(dice, request.target)
    return ngettext("%(count)d Star", "%(count)d Stars", stars) % {"count": stars}


def _points(raw: Any) -> int:
    """A resource count from the character sheet; anything unreadable counts as none."""
    try:
        return int(raw)
    except (TypeError, ValueError, OverflowError):
        return 0


system = Stars()
