"""`kinds`: look for dice showing the same face.

Rules choices where the document leaves room (also on the in-app rules page):

- **Six or more of a kind (KIN-5).** The grades stop at five of a kind, so a group of six or
  more is still an Impossible Success: nothing is graded above Impossible.
- **A group is one Success (KIN-5, KIN-7).** Four of a kind is one Extreme Success, never two
  Basic ones; a player who wants two tasks needs two different faces that each show twice or
  more (5-5-3-3 is two Basic Successes, 5-5-5-5 is one Extreme Success).
- **Advantage against Disadvantage (KIN-2, KIN-3).** When the Fortune Master hands out both,
  they cancel one for one first; what is left is added (never past 9 dice) or removed (never
  below 2 dice). A pool that is already below 2 dice is never made bigger by Disadvantage: a
  one-die pool with Disadvantage rolls its one die (and cannot succeed).
- **The size of a pool.** Nine dice is the most any roll may have: the document stops
  Advantage there, and a Skill plus its Field above nine is refused rather than rolled. A pool
  needs at least one die before Advantage; Skill and Field are each 0-9 Diamonds.
- **No Challenge named.** A roll with no Challenge level still succeeds with any Success and
  is an Accident without one; the card then only names the grades rolled.
- **Falling short (KIN-6, KIN-8).** A Success below the Challenge's grade does not pass it, so
  the Challenge ends in an Accident; the lower Success is still listed (it may accomplish
  another, easier task, KIN-7).
- **Extra Success (KIN-9).** When the best Success is graded above the Challenge, the card
  says the Fortune Master may grant an advantage; the margin is the number of grades above.
- **Follow-ups.** The document has none, so the engine offers none.
- **No head-to-head contest.** The document sets Adventurers against Challenges only, never
  one Adventurer's roll against another's, so ``system.contest`` refuses rather than invent
  a comparison (``manage.py odds kinds ... --against ...`` says so).
- **Several Adventurers facing one Danger (KIN-6, KIN-8).** Each rolls their own Challenge;
  ``face_danger`` reads the rolls together as one result (who passed, who meets an
  Accident), and ``passing_odds`` gives the exact chance of each number passing. Any roll
  may be such a Challenge (``contest_request``), though none is compared with another.
- **One Danger at the table.** The GM names one level for the Danger and who faces it; each
  rolls their own Skill. The rolls stay sealed until all are in, so the results come out
  together (with no follow-ups, nobody waits on a sealed roll); the exact odds come first
  (``rolls.tables.kinds.danger``).
"""

from __future__ import annotations

import argparse
from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from functools import cache
from typing import Any

from .base import (
    Applied,
    DiceSystem,
    Die,
    FollowUp,
    Outcome,
    Rng,
    RulesError,
    State,
    StepView,
    Table,
    dice_count,
    get_bool,
    get_choice,
    get_int,
    grid,
    new_state,
    roll_dice,
)
from .dice import Counts, counts_of, distribution
from .flags import IntRange, OneOf
from .words import N_, Text, _, ngettext

MAX_DICE = 9  # KIN-2: Advantage never goes past nine dice; no roll has more
MIN_AFTER_DISADVANTAGE = 2  # KIN-3
MAX_STEPS = 3  # up to three Advantages or Disadvantages
MAX_DIAMONDS = 9

# Grade index = group size - 1, so a pair is 1 (Basic) ... five or more is 4 (Impossible).
# Kept in English (a request's level, a choice's value) and translated where drawn.
GRADES = ("", N_("Basic"), N_("Critical"), N_("Extreme"), N_("Impossible"))
LEVELS = ("none", "basic", "critical", "extreme", "impossible")
SIZE_WORDS = {
    2: N_("two"),
    3: N_("three"),
    4: N_("four"),
    5: N_("five"),
    6: N_("six"),
    7: N_("seven"),
    8: N_("eight"),
    9: N_("nine"),
}
# What a Success of each grade passes, as a whole phrase (the grades it reaches).
PASSES = (
    "",
    N_("passes a Basic Challenge"),
    N_("passes Basic and Critical Challenges"),
    N_("passes Basic, Critical and Extreme Challenges"),
    N_("passes Basic, Critical, Extreme and Impossible Challenges"),
)


def grade_of(size: int) -> int:
    """KIN-5: the grade of a group of ``size`` dice of one face (0: no Success)."""
    if size < 2:
        return 0
    return min(size - 1, len(GRADES) - 1)


def level_grade(level: str) -> int:
    """The grade a Challenge level asks for; ``none`` asks for any Success (Basic)."""
    return max(1, LEVELS.index(level))


def pool_after(dice: int, net: int) -> int:
    """KIN-2, KIN-3: the pool after a net Advantage (> 0) or Disadvantage (< 0)."""
    if net > 0:
        return max(dice, min(MAX_DICE, dice + net))
    if net < 0:
        # Never below two, and never bigger than it was (a one-die pool stays one die).
        return min(dice, max(MIN_AFTER_DISADVANTAGE, dice + net))
    return dice


@dataclass(frozen=True)
class KindsRequest:
    dice: int  # Skill + Field Diamonds, before Advantage and Disadvantage
    skill: int | None = None
    field: int | None = None
    advantage: int = 0
    disadvantage: int = 0
    level: str = "none"
    danger: bool = False

    @property
    def net(self) -> int:
        return self.advantage - self.disadvantage

    @property
    def pool(self) -> int:
        return pool_after(self.dice, self.net)


@dataclass(frozen=True)
class Group:
    """One Success: ``size`` dice showing ``face``."""

    face: int
    size: int

    @property
    def grade(self) -> int:
        return grade_of(self.size)

    @property
    def name(self) -> str:
        return GRADES[self.grade]


def groups_of(dice: list[int] | tuple[int, ...]) -> list[Group]:
    """KIN-4, KIN-7: every Success in the dice, best first (bigger groups, then higher faces)."""
    counts = counts_of(dice)
    found = [Group(face, size) for face, size in zip(range(1, 7), counts, strict=True) if size >= 2]
    return sorted(found, key=lambda group: (group.size, group.face), reverse=True)


def largest_group(counts: Counts) -> int:
    """The result key: the most dice showing one face (1 when nothing pairs, 0 for no dice)."""
    return max(counts)


def _passes(grade: int) -> str:
    return _(PASSES[grade])


class Kinds(DiceSystem):
    slug = "kinds"
    name = Text(N_("Kinds"))
    summary = Text(
        N_("Skill plus Field dice; two or more of a kind is a Success, bigger groups grade higher.")
    )
    result_name = "largest group"

    # -- requests -----------------------------------------------------------------------------
    def parse_request(self, data: Mapping[str, Any]) -> KindsRequest:
        advantage = get_int(data, "advantage", _("Advantage"), 0, MAX_STEPS, default=0)
        disadvantage = get_int(data, "disadvantage", _("Disadvantage"), 0, MAX_STEPS, default=0)
        level = get_choice(data, "level", _("The Challenge level"), LEVELS, default="none")
        danger = get_bool(data, "danger")
        has_parts = any(data.get(key) not in (None, "") for key in ("skill", "field"))
        if data.get("dice") not in (None, ""):
            dice = get_int(data, "dice", _("The number of dice"), 1, MAX_DICE)
            skill = field = None
            if has_parts:
                skill = get_int(data, "skill", _("The Skill's Diamonds"), 0, MAX_DIAMONDS, default=0)
                field = get_int(data, "field", _("The Field's Diamonds"), 0, MAX_DIAMONDS, default=0)
                if skill + field != dice:
                    raise RulesError(
                        _(
                            "The Skill and Field Diamonds make %(dice)s, not %(given)d; "
                            "give either the dice or the Diamonds."
                        )
                        % {"dice": dice_count(skill + field), "given": dice}
                    )
        elif has_parts:
            skill = get_int(data, "skill", _("The Skill's Diamonds"), 0, MAX_DIAMONDS, default=0)
            field = get_int(data, "field", _("The Field's Diamonds"), 0, MAX_DIAMONDS, default=0)
            dice = skill + field
            if dice < 1:
                raise RulesError(
                    _("The Skill and its Field have no Diamonds between them: there is nothing to roll.")
                )
            if dice > MAX_DICE:
                raise RulesError(
                    _("A Skill and its Field give at most %(maximum)d dice (got %(dice)d).")
                    % {"maximum": MAX_DICE, "dice": dice}
                )
        else:
            raise RulesError(_("Give the Skill and Field Diamonds, or the number of dice."))
        return KindsRequest(dice, skill, field, advantage, disadvantage, level, danger)

    # -- rolling ------------------------------------------------------------------------------
    def roll(self, request: KindsRequest, rng: Rng) -> State:
        return new_state(self, request, {"action": "roll", "dice": roll_dice(rng, request.pool)})

    @staticmethod
    def _dice(state: State) -> list[int]:
        return list(state["steps"][-1]["dice"])

    def evaluate(self, state: State) -> Outcome:
        request = self.parse_request(state["request"])
        dice = self._dice(state)
        groups = groups_of(dice)
        needed = level_grade(request.level)
        named = request.level != "none"
        best = groups[0].grade if groups else 0
        key = str(max(counts_of(dice)) or 1)

        details = [
            # Translators: "Critical Success (three 5s): passes Basic and Critical Challenges."
            _("%(grade)s Success (%(size)s %(face)ds): %(passes)s.")
            % {
                "grade": _(group.name),
                "size": _(SIZE_WORDS[group.size]),
                "face": group.face,
                "passes": _passes(group.grade),
            }
            for group in groups
        ]
        if len(groups) > 1:
            details.append(
                _("%(count)d Successes in one roll: each may accomplish its own task.")
                % {"count": len(groups)}
            )
        success = best >= needed
        if success:
            if named:
                headline = _("%(grade)s Success: passes the %(level)s Challenge") % {
                    "grade": _(GRADES[best]),
                    "level": _(GRADES[needed]),
                }
            else:
                headline = _("%(grade)s Success") % {"grade": _(GRADES[best])}
            tone = "success"
            if best > needed and named:
                details.append(
                    _("Higher than the Challenge needed: the Fortune Master may grant an advantage.")
                )
        else:
            if groups:
                headline = _("%(grade)s Success falls short of the %(level)s Challenge: an Accident") % {
                    "grade": _(GRADES[best]),
                    "level": _(GRADES[needed]),
                }
            else:
                headline = _("No Success: an Accident")
            tone = "failure"
            details.append(_("The Fortune Master describes a consequence other than the one hoped for."))
            if request.danger:
                details.append(_("This Challenge is a Danger: the Accident can hurt the Adventurer."))
        return Outcome(
            success=success,
            headline=headline,
            key=key,
            tone=tone,
            details=tuple(details),
            margin=max(0, best - needed) if success else 0,
        )

    def view(self, state: State) -> tuple[StepView, ...]:
        request = self.parse_request(state["request"])
        views = []
        for step in state["steps"]:
            counts = counts_of(step["dice"])
            dice = tuple(Die(face, hit=counts[face - 1] >= 2) for face in step["dice"])
            note = ""
            if request.pool != request.dice:
                change = request.pool - request.dice
                note = _("%(dice)s, %(change)s for Advantage/Disadvantage") % {
                    "dice": dice_count(request.dice),
                    "change": f"{change:+d}",
                }
            views.append(
                StepView(step["action"], _("Rolled %(dice)s") % {"dice": dice_count(len(dice))}, dice, note)
            )
        return tuple(views)

    # -- follow-ups ---------------------------------------------------------------------------
    def follow_ups(self, state: State, resources: Mapping[str, Any]) -> list[FollowUp]:
        return []

    def apply(
        self,
        state: State,
        action: str,
        params: Mapping[str, Any],
        resources: Mapping[str, Any],
        rng: Rng,
    ) -> Applied:
        raise RulesError(_("This system has no follow-ups: the roll stands as it fell."))

    # -- odds ---------------------------------------------------------------------------------
    def outcomes(self, request: KindsRequest) -> dict[str, Fraction]:
        return dict(_largest_group_distribution(request.pool))

    def chance(self, request: KindsRequest) -> Fraction:
        return _chance_of_group(request.pool, level_grade(request.level) + 1)

    def pool_size(self, request: KindsRequest) -> int:
        """The dice rolled: after Advantage and Disadvantage."""
        return request.pool

    def chance_by_advantage(self, request: KindsRequest) -> dict[int, Fraction]:
        """The chance of passing the request's Challenge for each net Advantage -3..+3 (negative:
        Disadvantage), with the same Skill and Field: what the roll form shows beside the dice."""
        size = level_grade(request.level) + 1
        return {
            net: _chance_of_group(pool_after(request.dice, net), size)
            for net in range(-MAX_STEPS, MAX_STEPS + 1)
        }

    # -- contests -----------------------------------------------------------------------------
    def contest_request(self, request: KindsRequest) -> KindsRequest:
        """Any roll may be one Adventurer's Challenge in a Danger faced together (``face_danger``);
        there is still no head-to-head contest (``contest``, ``plays_contests``)."""
        return request

    def contest(self, request_a: KindsRequest, request_b: KindsRequest) -> dict[str, Fraction]:
        """Kinds has no head-to-head contest: refused with the reason (see the module's notes)."""
        raise RulesError(
            _(
                "Kinds has no contested roll: its rules only set an Adventurer against a Challenge. "
                "When several Adventurers face one Danger, each rolls their own Challenge."
            )
        )

    # -- command line -------------------------------------------------------------------------
    def add_cli_arguments(self, parser: argparse.ArgumentParser) -> None:
        diamonds = IntRange(0, MAX_DIAMONDS)
        parser.add_argument(
            "--dice",
            type=IntRange(1, MAX_DICE),
            help=_("dice from the Skill and Field Diamonds, 1-%(maximum)d") % {"maximum": MAX_DICE},
        )
        parser.add_argument("--skill", type=diamonds, help=_("Diamonds of the Skill (instead of --dice)"))
        parser.add_argument("--field", type=diamonds, help=_("Diamonds of the Field (instead of --dice)"))
        parser.add_argument(
            "--advantage",
            type=IntRange(0, MAX_STEPS),
            default=0,
            help=_("Advantages, 0-3: +1 die each, at most 9"),
        )
        parser.add_argument(
            "--disadvantage",
            type=IntRange(0, MAX_STEPS),
            default=0,
            help=_("Disadvantages, 0-3: -1 die each, at least 2"),
        )
        parser.add_argument(
            "--level",
            type=OneOf(
                (
                    ("none", _("No Challenge level")),
                    *((LEVELS[g], _(GRADES[g])) for g in range(1, len(LEVELS))),
                )
            ),
            default="none",
            help=_("the Challenge: %(levels)s") % {"levels": ", ".join(LEVELS)},
        )
        parser.add_argument("--danger", action="store_true", help=_("the Challenge can hurt (a Danger)"))

    def request_from_cli(self, options: argparse.Namespace) -> KindsRequest:
        keys = ("dice", "skill", "field", "advantage", "disadvantage", "level", "danger")
        return self.parse_request({key: getattr(options, key, None) for key in keys})

    def cli_extra_odds(self, request: KindsRequest) -> dict[str, Fraction]:
        """Extra lines for ``manage.py odds``: the chance at each net Advantage."""
        return {
            f"with net Advantage {net:+d}": chance
            for net, chance in self.chance_by_advantage(request).items()
            if net
        }

    # -- the rules page and the warm-up ----------------------------------------------------
    def build_rules_tables(self) -> tuple[Table, ...]:
        return (
            grid(
                _("Chance of passing a Challenge by number of dice (after Advantage and Disadvantage)"),
                _("Dice"),
                [(str(n), n) for n in range(2, 10)],
                [(_(GRADES[grade]), level) for grade, level in enumerate(LEVELS) if grade],
                lambda n, level: self.chance(self.parse_request({"dice": n, "level": level})),
            ),
        )

    def typical_requests(self) -> tuple[dict[str, Any], ...]:
        return tuple(
            {"dice": n, "level": level}
            for n in range(1, 10)
            for level in ("none", "basic", "critical", "extreme", "impossible")
        )


@dataclass(frozen=True)
class DangerResult:
    """KIN-6, KIN-8: several Adventurers facing one Danger, each with their own roll, read as
    one result. ``outcomes`` keeps each Adventurer's own reading, in the order given."""

    outcomes: tuple[tuple[str, Outcome], ...]

    @property
    def passed(self) -> tuple[str, ...]:
        return tuple(name for name, outcome in self.outcomes if outcome.success)

    @property
    def accidents(self) -> tuple[str, ...]:
        return tuple(name for name, outcome in self.outcomes if not outcome.success)

    @property
    def headline(self) -> str:
        total, passed = len(self.outcomes), len(self.passed)
        if passed == total:
            return (
                _("All %(total)d pass the Danger") % {"total": total} if total > 1 else _("Passes the Danger")
            )
        if not passed:
            return _("Nobody passes the Danger: an Accident for everyone") if total > 1 else _("An Accident")
        return ngettext(
            # Translators: "1 of 3 pass": the subject is the number of Adventurers; by ``passed``.
            "%(passed)d of %(total)d pass the Danger; an Accident for %(names)s",
            "%(passed)d of %(total)d pass the Danger; an Accident for %(names)s",
            passed,
        ) % {"passed": passed, "total": total, "names": ", ".join(self.accidents)}


def face_danger(states: Mapping[str, State]) -> DangerResult:
    """KIN-6, KIN-8: each Adventurer's rolled Challenge (name -> state), read together."""
    if not states:
        raise RulesError(_("Name at least one Adventurer facing the Danger."))
    for state in states.values():
        if state.get("system") != system.slug:
            raise RulesError(_("Every roll facing the Danger must be a roll of this system."))
    return DangerResult(tuple((name, system.evaluate(state)) for name, state in states.items()))


def passing_odds(requests: Mapping[str, KindsRequest]) -> dict[int, Fraction]:
    """The exact chance that exactly k of these Adventurers pass their Challenge, for k from 0
    to all of them (each roll independent): ``[len(requests)]`` is everyone passing, ``[0]``
    nobody."""
    found = {0: Fraction(1)}
    for request in requests.values():
        p = system.chance(request)
        nxt: dict[int, Fraction] = {}
        for passed, q in found.items():
            nxt[passed + 1] = nxt.get(passed + 1, Fraction(0)) + q * p
            nxt[passed] = nxt.get(passed, Fraction(0)) + q * (1 - p)
        found = nxt
    return dict(sorted(found.items()))


@cache
def _largest_group_distribution(pool: int) -> tuple[tuple[str, Fraction], ...]:
    found = distribution(pool, lambda counts: str(largest_group(counts) or 1))
    return tuple(sorted(found.items(), key=lambda item: int(item[0])))


@cache
def _chance_of_group(pool: int, size: int) -> Fraction:
    """P(some face shows on at least ``size`` of ``pool`` dice)."""
    return sum(
        (chance for key, chance in _largest_group_distribution(pool) if int(key) >= size),
        Fraction(0),
    )


system = Kinds()
