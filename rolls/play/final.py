"""Whether a roll still takes follow-ups, as far as a contest is concerned: a verdict freezes
the rolls it read (issue 42). Asked by the follow-up service, which refuses, and by the cards,
which then offer no button, so what a screen offers and what the server accepts never differ."""

from __future__ import annotations

from rolls import registry
from rolls.models import Contest, ContestSide, Roll


def contest_final(roll: Roll) -> str:
    """Why no follow-up goes on ``roll`` any more ("" when it may): the GM settled its contest
    or called it off, or its table says what its rolls decided is in the log already (doubles
    DBL-9: a Complication named; DBL-13: an extended action recorded as won or lost). A roll of
    no contest is never final here."""
    contest = _contest_of(roll)
    if contest is None:
        return ""
    if contest.state == Contest.State.CLOSED:
        return f"The GM settled this contest ({contest.verdict}): its rolls are final."
    if contest.state == Contest.State.CANCELLED:
        return "The GM called this contest off: its rolls are final."
    adapter = registry.table(contest.system)
    if contest.live and adapter.contest_rolls_final(contest, list(contest.sides.order_by("position"))):
        return "What this contest's rolls decided is in the log already: they are final."
    return ""


def verdict_line(roll: Roll) -> str:
    """What the verdict on ``roll``'s contest says, for its card ("" for none yet, or no contest):
    once settled the card shows who won under its own outcome, since "Success: 1 of 1 needed"
    alone reads as a win to a side that lost. Read for a side of a head-to-head contest (a
    sealed roll) and for an open roll a flow counts (doubles' extended action, DBL-13: "Settled:
    The extended action is won: ..."), since its card alone says only how that one roll went."""
    contest = _contest_of(roll)
    if contest is None:
        return ""
    if contest.state == Contest.State.CLOSED:
        return f"Settled: {contest.verdict}"
    if contest.state == Contest.State.CANCELLED:
        return "The GM called this contest off."
    return ""


def _contest_of(roll: Roll) -> Contest | None:
    """The contest ``roll`` is a side of, if any."""
    side = ContestSide.objects.filter(roll_id=roll.pk).select_related("contest").first()
    return side.contest if side is not None else None
