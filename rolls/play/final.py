"""Whether a roll still takes follow-ups, as far as a contest is concerned: a verdict freezes
the rolls it read (issue 42). Asked by the follow-up service, which refuses, and by the cards,
which then offer no button, so what a screen offers and what the server accepts never differ."""

from __future__ import annotations

from collections.abc import Iterable

from django.utils.translation import gettext as _

from rolls import registry
from rolls.models import Contest, ContestSide, Roll


def may_be_contested(roll: Roll) -> bool:
    """Whether a roll is a side of a contest: made for one (``Roll.contested``: a contest's
    sealed side, or an open roll of a flow such as doubles' extended action). Asked before
    anything reads the contest, so a plain roll, in any system, costs no read."""
    return roll.contested


def lock_contest_of(roll: Roll) -> None:
    """Lock the contest ``roll`` is a side of, if any (one query): taken before the roll's own
    lock, in the order of the contest services (contest, roll, character), so a follow-up and
    the GM's settle, close, cancel or a contest step queue one after the other and the second
    reads what the first wrote; a follow-up tapped as the GM settles is refused, not accepted
    after the verdict."""
    list(
        Contest.objects.select_for_update(no_key=True, of=("self",)).filter(sides__roll_id=roll.pk).only("id")
    )


def contest_final(roll: Roll) -> str:
    """Why no follow-up goes on ``roll`` any more ("" when it may): the GM settled its contest
    or called it off, or its table says what its rolls decided is in the log already (doubles
    DBL-9: a Complication named; DBL-13: an extended action recorded as won or lost). A roll of
    no contest is never final here."""
    side = _side_of(roll)
    return _final(side.contest) if side is not None else ""


def refusal(roll: Roll, action: str) -> str:
    """Why the follow-up ``action`` may not go on ``roll`` now ("" when it may): its contest's
    verdict froze it (``contest_final``), or the contest waits on the other side
    (``turn_waits``). One read of the side, for the follow-up service."""
    side = _side_of(roll)
    if side is None:
        return ""
    return _final(side.contest) or _waits(side, [action]).get(action, "")


def _final(contest: Contest) -> str:
    if contest.state == Contest.State.CLOSED:
        return _("The GM settled this contest (%(verdict)s): its rolls are final.") % {
            "verdict": contest.verdict
        }
    if contest.state == Contest.State.CANCELLED:
        return _("The GM called this contest off: its rolls are final.")
    adapter = registry.table(contest.system)
    if contest.live and adapter.contest_rolls_final(contest, list(contest.sides.order_by("position"))):
        return _("What this contest's rolls decided is in the log already: they are final.")
    return ""


def turn_waits(roll: Roll, actions: Iterable[str]) -> dict[str, str]:
    """Of the follow-up ``actions``, those ``roll`` may not take yet because its contest waits on
    the other side (``TableAdapter.contest_follow_up_wait``; sets SET-10: the loser answers only
    after the winner's criticals), each with the line that says whose turn it is. Empty for a
    roll of no contest being played. The service refuses what is listed; the card draws no
    button for it and shows the line instead."""
    side = _side_of(roll)
    return _waits(side, actions) if side is not None else {}


def _waits(side: ContestSide, actions: Iterable[str]) -> dict[str, str]:
    if not side.contest.live:
        return {}
    adapter = registry.table(side.contest.system)
    sides = list(side.contest.sides.order_by("position"))
    waits = {action: adapter.contest_follow_up_wait(side.contest, side, sides, action) for action in actions}
    return {action: why for action, why in waits.items() if why}


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
        return _("Settled: %(verdict)s") % {"verdict": contest.verdict}
    if contest.state == Contest.State.CANCELLED:
        return _("The GM called this contest off.")
    return ""


def _contest_of(roll: Roll) -> Contest | None:
    """The contest ``roll`` is a side of, if any."""
    side = _side_of(roll)
    return side.contest if side is not None else None


def _side_of(roll: Roll) -> ContestSide | None:
    return ContestSide.objects.filter(roll_id=roll.pk).select_related("contest").first()
