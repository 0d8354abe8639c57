"""A head-to-head contest's rolls read once, as they stand: the winner the engine names, and
the verdict in the system's words (``TableAdapter.contest_verdict``) or the table's plain ones.

Both the contests panel (``rolls.contests.panels``, on every redraw) and the service that
settles a contest (``rolls.contests.services.verdict``) ask ``reckon``, so a request reads each roll's
state once and asks the engine once. A system's own reading of a flow (``TableAdapter.contest_reading``) comes before this.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from django.utils.translation import gettext as _

from rolls import registry
from rolls.log.reads import newest_states
from rolls.models import Contest, ContestSide
from rolls.systems import RulesError
from rolls.systems.base import State


@dataclass(frozen=True)
class Reckoning:
    """A head-to-head contest's rolls read once, as they stand (``reckon``): what its panel
    and its verdict both say, so neither reads the states or asks the engine again."""

    rolled: list[ContestSide]  # the sides that have rolled, in position order
    states: list[State]  # their rolls' states as they stand, in the same order
    winner: int | None  # the winner's index in ``rolled``; None for a tie, or too few rolled
    words: str  # the verdict in the system's words (``TableAdapter.contest_verdict``), or ""
    unsettled: str = ""  # why no winner can be named yet (a miracle waits for the GM)


def states_of(sides: Sequence[ContestSide]) -> list[State]:
    """The rolls of the sides that rolled, as they stand, in ``sides`` order: those a service
    holds already (``Roll.known_state``), the others read in one query, not one per side."""
    rolls = [side.roll for side in sides if side.roll is not None]
    unknown = [roll.pk for roll in rolls if roll.known_state is None]
    newest = newest_states(unknown) if unknown else {}
    return [roll.known_state if roll.known_state is not None else newest[roll.pk][0] for roll in rolls]


def reckon(
    contest: Contest, sides: Sequence[ContestSide], states: Sequence[State] | None = None
) -> Reckoning:
    """Read ``sides`` (in position order) once: their rolls' ``states`` (``states_of``, unless
    the caller has them), the engine's winner among the sides that rolled, and, when every side
    rolled, the system's words for it. A system that cannot settle it yet (RulesError) names no
    winner and says why in ``unsettled``."""
    rolled = [side for side in sides if side.roll is not None]
    states = list(states) if states is not None else states_of(sides)
    if len(rolled) < 2:
        return Reckoning(rolled, states, 0 if rolled else None, "")
    try:
        winner = registry.engine(contest.system).contest_winner(states, [side.extra for side in rolled])
        every = len(rolled) == len(sides)
        words = registry.table(contest.system).contest_verdict(contest, rolled, states) if every else ""
    except RulesError as error:
        return Reckoning(rolled, states, None, "", str(error))
    return Reckoning(rolled, states, winner, words)


def reckoning_words(contest: Contest, sides: Sequence[ContestSide], reckoning: Reckoning) -> str:
    """The verdict of a head-to-head contest read by ``reckon``, in words."""
    rolled = reckoning.rolled
    if not rolled:
        return _("Nobody rolled: the contest ends undecided.")
    if reckoning.unsettled:
        raise RulesError(reckoning.unsettled)
    if reckoning.words:
        return reckoning.words
    missing = _(", ").join(side.name for side in sides if side.roll is None)
    if len(rolled) == 1:
        return _("%(name)s wins: %(missing)s did not roll.") % {"name": rolled[0].name, "missing": missing}
    system = registry.engine(contest.system)
    results = [system.evaluate(state) for state in reckoning.states]
    # Translators: between two results of a contest, as a table says a score ("2 successes to 1 success").
    to = _(" to ")
    scores = to.join(result.headline.split(": ")[-1] for result in results)
    words = {"scores": scores, "missing": missing}
    if reckoning.winner is None:
        if missing:
            return _("A tie, %(scores)s; %(missing)s did not roll.") % words
        return _("A tie, %(scores)s.") % words
    winner = rolled[reckoning.winner]
    tied = len({result.key for result in results}) == 1
    # The winner's result first, as a table says a score.
    first = results.pop(reckoning.winner)
    words["scores"] = to.join(result.headline.split(": ")[-1] for result in [first, *results])
    words["name"] = winner.name
    # The rules gave the tie to a side by its role (stars: the player's), so it is the winner.
    if tied and missing:
        return _("%(name)s wins, %(scores)s (a tie goes to %(name)s); %(missing)s did not roll.") % words
    if tied:
        return _("%(name)s wins, %(scores)s (a tie goes to %(name)s).") % words
    if missing:
        return _("%(name)s wins, %(scores)s; %(missing)s did not roll.") % words
    return _("%(name)s wins, %(scores)s.") % words
