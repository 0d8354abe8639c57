"""Extended Trouble at the table (SIX-20): the GM opens a plan in parts, each part a short
name and the kid who plays it with their own trait; each kid rolls their part once, on their
own phone, sealed like every contest roll until all parts are in. The engine's
``ExtendedTrouble`` says how the plan stands: each part succeeds or fails with its roll (as it
stands after push, Luck and Pride), and the plan succeeds once as many parts succeed as the GM
asked for (all of them by default).

Our reading: one part per kid (a side of the contest), in the order the kids are listed; the
part names are typed as one line split by ";". Before the dice are revealed the tracker shows
the exact chance that the plan succeeds, from every part's own chance. A plan the GM closes
while parts are still unrolled counts those parts as failed.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from fractions import Fraction
from typing import TYPE_CHECKING, Any, cast

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from rolls.models import Contest, ContestSide
from rolls.systems import RulesError
from rolls.systems.base import Param, percent
from rolls.systems.sixes import ExtendedTrouble
from rolls.systems.sixes import system as sixes
from rolls.tables.base import ContestReading
from rolls.tables.sixes.contest import revealed_state

if TYPE_CHECKING:
    from tabletop.models import Character

PART_LENGTH = 40
MAX_PARTS = 8
PARTS = Param(
    "parts",
    cast(
        "str",
        gettext_lazy(
            "The plan's parts, one per ticked kid in the list's order, split by ; (Extended Trouble)"
        ),
    ),
    text=True,
    maximum=200,
)
NEEDED = Param(
    "needed",
    cast("str", gettext_lazy("Parts that must succeed (Extended Trouble)")),
    ("all", *(str(n) for n in range(1, MAX_PARTS + 1))),
    labels=(cast("str", gettext_lazy("all")), *(str(n) for n in range(1, MAX_PARTS + 1))),
)


def setup(count: int, values: Mapping[str, Any]) -> dict[str, Any]:
    """The plan's parts (one per kid, in the sides' order) and how many must succeed, checked
    by the engine's ``ExtendedTrouble``."""
    if count < 2:
        raise RulesError(_("Extended Trouble is a plan for two kids or more: tick who takes part."))
    raw = str(values.get("parts", "") or "")
    if any(ord(char) < 32 for char in raw):
        # Control characters (a NUL, which PostgreSQL's JSON refuses) are no part's name.
        raise RulesError(_("Name the parts in plain words, split by ;."))
    parts = [part.strip() for part in raw.split(";") if part.strip()]
    if len(parts) != count:
        raise RulesError(
            _("Name one part for each of the %(count)d kids ticked, split by ; (you named %(named)d).")
            % {"count": count, "named": len(parts)}
        )
    if any(len(part) > PART_LENGTH for part in parts):
        raise RulesError(_("Keep each part's name to %(length)d characters.") % {"length": PART_LENGTH})
    needed_raw = str(values.get("needed", "all") or "all")
    if needed_raw not in NEEDED.choices:
        raise RulesError(_("Choose how many parts must succeed: all, or a number."))
    needed = None if needed_raw == "all" else int(needed_raw)
    ExtendedTrouble(tuple(parts), needed)  # the engine refuses duplicate names, a bad number
    return {"parts": parts, "needed": needed}


def side_data(setup: Mapping[str, Any], data: Mapping[str, Any]) -> dict[str, Any]:
    """Each kid rolls their own part alone: a contest roll has no helper."""
    return {**data, "group": False, "helper": False}


def _part(contest: Contest, side: ContestSide) -> str:
    parts = contest.setup.get("parts", [])
    return str(parts[side.position]) if side.position < len(parts) else side.name


def _plan(contest: Contest) -> ExtendedTrouble:
    return ExtendedTrouble(
        tuple(str(part) for part in contest.setup.get("parts", [])), contest.setup.get("needed")
    )


def _successes(sides: Sequence[ContestSide]) -> dict[int, bool]:
    """Each revealed part's success as its roll stands now; a sealed roll is nobody's yet."""
    found = {}
    for side in sides:
        state = revealed_state(side)
        if state is not None:
            found[side.position] = bool(sixes.evaluate(state).success)
    return found


def plan_now(contest: Contest, sides: Sequence[ContestSide], *, ending: bool = False) -> ExtendedTrouble:
    """The engine's plan with every revealed part recorded in the order the parts were rolled,
    and, when it ends now (``ending``: the GM closes it), every part never rolled as failed."""
    plan = _plan(contest)
    done = _successes(sides)
    order = sorted(
        (side for side in sides if side.position in done), key=lambda side: (side.roll_id or 0, side.position)
    )
    settled = [(side, done[side.position]) for side in order]
    if ending:
        settled += [(side, False) for side in sides if side.roll_id is None]
    for side, success in settled:
        if plan.status != "going":
            break  # the engine records nothing once the plan is won or lost
        plan = plan.record(_part(contest, side), success)
    return plan


# The adapter's ``pool``, handed in by the adapter (this module is its part, below it).
Pool = Callable[["Character", Mapping[str, Any]], tuple[dict[str, Any], str]]


def chance(contest: Contest, sides: Sequence[ContestSide], pool: Pool) -> Fraction | None:
    """The exact chance that the plan succeeds, from each part's own chance before rolling;
    None when a part cannot be rolled as chosen (the sheet changed, the kid left)."""
    chances = {}
    for side in sides:
        if side.character is None:
            return None
        try:
            request_data, _label = pool(side.character, side.data)
            part_chance = sixes.chance(sixes.parse_request(request_data))
        except RulesError:
            return None
        chances[_part(contest, side)] = part_chance
    return _plan(contest).chance(chances)


def _count(plan: ExtendedTrouble, sides: Sequence[ContestSide]) -> str:
    """ "parts that worked: 1 of the 2 needed" (SIX-20): every revealed part that succeeds as
    its roll stands, counted from the rolls themselves. The engine's plan stops recording
    once it is won or lost, so its own count would miss a part that worked after that."""
    worked = sum(_successes(sides).values())
    return _("parts that worked: %(worked)d of the %(target)d needed") % {
        "worked": worked,
        "target": plan.target,
    }


def reading(contest: Contest, sides: Sequence[ContestSide], pool: Pool) -> ContestReading:
    plan = plan_now(contest, sides)
    ended = plan_now(contest, sides, ending=True)
    # Each revealed part's own verdict ("Success: 1 of 1 needed"); its tracker line says
    # whether the part succeeds (``side_view``). Nobody "wins" a plan: no side is marked.
    results = []
    for side in sides:
        state = revealed_state(side)
        results.append("" if state is None else sixes.evaluate(state).headline)
    outcome = {
        "won": _("the plan succeeds"),
        "lost": _("the plan fails"),
        "going": _("the plan still hangs"),
    }[plan.status]
    if contest.state == Contest.State.OPEN:
        rolled = sum(side.roll_id is not None for side in sides)
        odds = chance(contest, sides, pool)
        # The chance first: the TV's column is short, and it is the line the table reads.
        phase = _("%(rolled)d of %(total)d parts rolled, sealed until all are in.") % {
            "rolled": rolled,
            "total": len(sides),
        }
        if odds is not None:
            odds_text = _("Chance the plan succeeds: %(percent)s (exact: %(exact)s).") % {
                "percent": percent(odds),
                "exact": odds,
            }
            phase = f"{odds_text} {phase}"
    else:
        phase = _(
            "Revealed: %(outcome)s (%(count)s). Each kid may still push, spend Luck or use "
            "Pride on their part; the GM settles it."
        ) % {"outcome": outcome, "count": _count(plan, sides)}
    words = {"intent": contest.intent, "count": _count(ended, sides)}
    if contest.intent:
        verdict = {
            "won": _("The plan to %(intent)s: succeeds (%(count)s)."),
            "lost": _("The plan to %(intent)s: fails (%(count)s)."),
            "going": _("The plan to %(intent)s: still hangs (%(count)s)."),
        }[ended.status] % words
    else:
        verdict = {
            "won": _("The plan: succeeds (%(count)s)."),
            "lost": _("The plan: fails (%(count)s)."),
            "going": _("The plan: still hangs (%(count)s)."),
        }[ended.status] % words
    return ContestReading(results, phase, verdict)


def side_view(contest: Contest, side: ContestSide) -> dict[str, Any]:
    """What the tracker shows of a side beyond its roll: the part it plays and, once its roll
    is revealed, whether the part succeeds as the roll stands (None before: sealed or unrolled)."""
    state = revealed_state(side)
    return {
        "part": _part(contest, side),
        "succeeds": None if state is None else bool(sixes.evaluate(state).success),
    }
