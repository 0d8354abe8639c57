"""Kid versus kid at the table (SIX-18, SIX-19): how the contests panel reads a sixes contest,
and the step a tied kid takes besides rolling: buying a success by checking a Condition.

Our reading of the rules (also on the rules page):

- Every kid rolls sealed; after the reveal each may push, spend Luck and use Pride on their
  own roll, as on any roll. The most successes (sixes plus Pride) leads. A kid who is behind
  (bought successes counted) has failed, so Luck is theirs even when one six met the need
  (``standing``); a kid level or ahead has not.
- A kid tied for the lead on their dice may buy one success for each Condition they check,
  Broken included, while they are not ahead alone: so a kid who falls behind a bought
  success may answer it with a Condition of their own. A kid behind on the dice buys
  nothing: bought successes break a tie, they never overturn a loss.
- A push after the buying that takes a kid clear of the others on the dice makes the bought
  successes of the kids it overtook count for nothing (their Conditions stay checked).
- When the GM settles it still tied, the scene is interrupted and nobody wins.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from rolls.models import Contest, ContestSide
from rolls.systems import RulesError
from rolls.systems.base import Param, State, choice_labels
from rolls.systems.sixes import CONDITIONS, contest_leaders
from rolls.systems.sixes import system as sixes
from rolls.systems.words import N_
from rolls.tables.base import ContestReading, ContestStep, ContestStepDone
from rolls.tables.sixes.forms import unchecked_conditions
from tabletop.models import Character

BUY = "buy"
BUY_NOTE = N_("One success for each Condition you check; Broken counts too (SIX-19).")


def revealed_state(side: ContestSide) -> State | None:
    """The side's roll as it stands, once the table may read it (never while sealed)."""
    if side.roll is None or not side.roll.revealed:
        return None
    return side.roll.current_state()


def successes_text(count: int) -> str:
    return ngettext("%(count)d success", "%(count)d successes", count) % {"count": count}


def bought(side: ContestSide) -> int:
    return int(side.extra.get("bought", 0))


def _on_dice(sides: Sequence[ContestSide]) -> dict[int, int]:
    """Each revealed side's successes on its roll (sixes and Pride), by position."""
    counts = {}
    for side in sides:
        state = revealed_state(side)
        if state is not None:
            counts[side.position] = sixes.successes(state)
    return counts


def _totals(sides: Sequence[ContestSide]) -> dict[int, int]:
    """Each revealed side's successes with those it bought, which count only for the sides
    tied for the lead on their dice (``Sixes.contest_winner``)."""
    dice = _on_dice(sides)
    if not dice:
        return {}
    leaders = set(contest_leaders({str(p): n for p, n in dice.items()}))
    by_position = {side.position: side for side in sides}
    return {p: n + (bought(by_position[p]) if str(p) in leaders else 0) for p, n in dice.items()}


def versus_reading(contest: Contest, sides: Sequence[ContestSide]) -> ContestReading | None:
    """SIX-18, SIX-19: once the dice are revealed, each kid's successes, who leads, and the
    verdict: the winner says what happens; still tied, the scene is interrupted."""
    totals = _totals(sides)
    if not totals:
        return None  # sealed, or nobody rolled: the framework's own words
    names = {side.position: side.name for side in sides}
    results = []
    for side in sides:
        if side.position not in totals:
            results.append("")
            continue
        text = successes_text(totals[side.position])
        if bought(side) and totals[side.position] > _on_dice(sides)[side.position]:
            conditions = ", ".join(_(condition) for condition in side.extra.get("conditions", []))
            text += " " + _("(%(count)d bought with %(conditions)s)") % {
                "count": bought(side),
                "conditions": conditions,
            }
        results.append(text)
    best = max(totals.values())
    leaders = [p for p, n in totals.items() if n == best]
    missing = [side.name for side in sides if side.position not in totals]
    absent = ", ".join(missing)
    # Highest first, so the winner's score leads ("Kim wins, 2 to 1").
    # Translators: between two scores, "2 to 1".
    scores = _(" to ").join(str(n) for n in sorted(totals.values(), reverse=True))
    if len(leaders) == 1:
        winner = names[leaders[0]]
        phase = _(
            "Revealed: %(winner)s leads with %(successes)s. Pushes, Luck and Pride may "
            "still change it; the GM settles it."
        ) % {"winner": winner, "successes": successes_text(best)}
        words = {"winner": winner, "scores": scores, "absent": absent}
        verdict = (
            _("%(winner)s wins, %(scores)s successes, and says what happens; %(absent)s did not roll.")
            if missing
            else _("%(winner)s wins, %(scores)s successes, and says what happens.")
        ) % words
        return ContestReading(results, phase, verdict, frozenset(leaders))
    # Translators: between the names of kids tied for the lead.
    tied = _(" and ").join(names[p] for p in leaders)
    phase = _(
        "Tied at %(successes)s: %(tied)s. Each kid may still push; then a kid tied for "
        "the lead may buy a success by checking a Condition. Still tied when the GM settles: "
        "the scene is interrupted."
    ) % {"successes": successes_text(best), "tied": tied}
    words = {"successes": successes_text(best), "tied": tied, "absent": absent}
    verdict = (
        _("Still tied at %(successes)s (%(tied)s): the scene is interrupted; %(absent)s did not roll.")
        if missing
        else _("Still tied at %(successes)s (%(tied)s): the scene is interrupted.")
    ) % words
    return ContestReading(results, phase, verdict)


def standing(contest: Contest, side: ContestSide, sides: Sequence[ContestSide]) -> dict[str, Any]:
    """SIX-6, SIX-18: what the engine reads of a kid's place in a kid-versus-kid contest being
    played, once every roll is revealed: ``rivals``, the other kids' successes on their dice
    (what Pride is measured against), and ``behind``, whether another kid has more successes
    now, bought ones included (a losing kid has failed, so Luck is theirs). Nothing outside it."""
    if contest.kind != Contest.Kind.CONTEST or contest.state != Contest.State.REVEALED:
        return {}
    dice = _on_dice(sides)
    if side.position not in dice or len(dice) != len(sides):
        return {}
    totals = _totals(sides)
    others = [p for p in dice if p != side.position]
    return {
        "rivals": [dice[p] for p in others],
        "behind": any(totals[p] > totals[side.position] for p in others),
    }


def versus_steps(contest: Contest, side: ContestSide, sides: Sequence[ContestSide]) -> list[ContestStep]:
    """SIX-19: a kid tied for the lead on their dice, not ahead alone now, with a Condition
    still unchecked, may buy a success with it. Only once every roll is revealed."""
    if contest.state != Contest.State.REVEALED or side.character is None:
        return []
    try:
        _check_may_buy(side, sides)
    except RulesError:
        return []
    choices = tuple(unchecked_conditions(side.character.sheet))
    param = Param(
        "condition",
        _("Condition to check"),
        choices,
        labels=choice_labels(choices),
        prompt=_("Choose a Condition"),
    )
    return [ContestStep(BUY, _("Buy a success: check a Condition"), (param,), _(BUY_NOTE))]


def _check_may_buy(side: ContestSide, sides: Sequence[ContestSide]) -> None:
    dice = _on_dice(sides)
    if len(dice) != len(sides):
        raise RulesError(_("Every kid's dice must be on the table before anyone buys a success."))
    leaders = contest_leaders({str(p): n for p, n in dice.items()})
    if str(side.position) not in leaders:
        raise RulesError(_("Only a kid tied for the lead on the dice may buy a success (SIX-19)."))
    if len(leaders) == 1:
        raise RulesError(_("Nobody is tied with you: there is no tie to break."))
    totals = _totals(sides)
    if all(totals[side.position] > n for p, n in totals.items() if p != side.position):
        raise RulesError(_("You are ahead already: a bought success breaks a tie, nothing more."))
    if side.character is not None and not unchecked_conditions(side.character.sheet):
        raise RulesError(_("Every Condition is checked already: none is left to buy with."))


def versus_step(
    side: ContestSide, sides: Sequence[ContestSide], params: Mapping[str, Any], character: Character | None
) -> ContestStepDone:
    """SIX-19: check the chosen Condition on the (locked) character and add one bought success."""
    if character is None:
        raise RulesError(_("Only a kid with a sheet checks a Condition."))
    _check_may_buy(side, sides)
    condition = str(params.get("condition", "") or "").strip().capitalize()
    if condition not in CONDITIONS:
        raise RulesError(_("Choose the Condition to check: none is chosen for you."))
    if condition not in unchecked_conditions(character.sheet):
        raise RulesError(
            _("%(name)s is %(condition)s already: choose a Condition not checked yet.")
            % {"name": character.name, "condition": _(condition)}
        )
    character.sheet = {
        **character.sheet,
        "conditions": {**character.sheet.get("conditions", {}), condition: True},
    }
    extra = {
        **side.extra,
        "bought": bought(side) + 1,
        "conditions": [*side.extra.get("conditions", []), condition],
    }
    text = _("%(name)s checks %(condition)s to buy a success in the contest (%(count)d bought).") % {
        "name": side.name,
        "condition": _(condition),
        "count": extra["bought"],
    }
    return ContestStepDone(extra, ["sheet"], text)
