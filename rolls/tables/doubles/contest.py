"""Doubles in contests (``rolls.contests.services``): the Complication an Amazing Success lets a PC
inflict (DBL-9), and the extended action's tracker on the contests panel (DBL-13)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from django.utils.translation import gettext as _

from rolls.systems import RulesError
from rolls.systems.base import Param, State, dice_count, percent
from rolls.systems.doubles import DN_NAMES, ExtendedAction, settle_opposed, system
from rolls.tables.base import ContestStep, ContestStepDone

if TYPE_CHECKING:
    from rolls.models import Contest, ContestSide
    from tabletop.models import Character, Membership

COMPLICATION = "complication"
NO_COMPLICATION = "no_complication"
COMPLICATION_LENGTH = 120


def complication_steps(
    contest: Contest, side: ContestSide, sides: Sequence[ContestSide]
) -> list[ContestStep]:
    """DBL-9: the PC whose dice showed an Amazing Success when the other side's did not
    (winner or not; never the GM's side without a sheet) may name one Complication for the
    other side, once, when nothing can overturn the result any more: after the GM settles the
    contest (the settle ends every follow-up, so the rolls are final whatever Endurance is
    left), or before it once no follow-up can still change either roll (``settled_for_good``).
    Never while the other side could still answer with drama dice or a miracle: the log never
    keeps a Complication the outcome later takes back."""
    if contest.kind != "contest" or len(sides) != 2 or _chosen(side):
        return []
    if contest.state not in ("revealed", "closed"):
        return []
    if side.npc or side.character is None:
        return []
    if any(each.roll is None or not each.roll.revealed for each in sides):
        return []
    states = [each.roll.current_state() for each in sides]  # type: ignore[union-attr]
    try:
        settled = settle_opposed(states[0], states[1])
    except RulesError:
        return []  # a miracle waits for the GM
    if settled.amazing != "ab"[side.position]:
        return []
    if contest.state != "closed" and not settled_for_good(sides, states):
        return []
    loser = sides[1 - side.position].name
    param = Param(
        COMPLICATION,
        _("The Complication for %(loser)s") % {"loser": loser},
        maximum=COMPLICATION_LENGTH,
        text=True,
    )
    note = _("An Amazing Success against an ordinary result (DBL-9): a temporary flaw, or one of theirs.")
    # Inflicting one is the PC's choice: they may decline, and the GM may dismiss it for them,
    # so a settled contest whose PC never chooses does not wait on the panel all session.
    decline = ContestStep(
        NO_COMPLICATION,
        _("No Complication"),
        (),
        _("%(loser)s suffers no Complication from it.") % {"loser": loser},
        gm_may=True,
    )
    return [ContestStep(COMPLICATION, _("Inflict a Complication"), (param,), note), decline]


def _chosen(side: ContestSide) -> bool:
    """Whether the side has named its Complication or declined it (DBL-9): once only."""
    return COMPLICATION in side.extra or NO_COMPLICATION in side.extra


def settled_for_good(sides: Sequence[ContestSide], states: Sequence[State]) -> bool:
    """DBL-9: whether no follow-up the rules offer could still change either side's roll (no
    drama dice or miracle either could pay for, no miracle waiting for the GM)."""
    for side, state in zip(sides, states, strict=True):
        resources: Mapping[str, Any] = {}
        if side.character is not None and side.roll is not None:
            resources = resources_of(side.character, latest=side.roll.is_latest())
        if system.follow_ups(state, resources):
            return False
    return True


def complication_freezes(sides: Sequence[ContestSide]) -> bool:
    """DBL-9: a Complication named freezes both rolls of its contest, so no later change (a
    GM's correction that gives Endurance back) can overturn what the log says; so does one
    declined."""
    return any(_chosen(side) for side in sides)


def resources_of(character: Character, *, latest: bool) -> dict[str, Any]:
    """DBL-10, DBL-11: what a doubles character may spend on a roll (the adapter's
    ``resources``): Endurance, and whether the roll is its latest."""
    return {"endurance": character.endurance, "latest": latest}


def complication_done(
    side: ContestSide, sides: Sequence[ContestSide], params: Mapping[str, Any]
) -> ContestStepDone:
    loser = sides[1 - side.position].name
    if params.get("action") == NO_COMPLICATION:
        return ContestStepDone(
            {**side.extra, NO_COMPLICATION: True},
            [],
            _("No Complication: %(name)s inflicts none on %(loser)s.") % {"name": side.name, "loser": loser},
        )
    raw = params.get(COMPLICATION, "")
    text = " ".join(str(raw).split())[:COMPLICATION_LENGTH] if isinstance(raw, str) else ""
    if not text:
        raise RulesError(_("Say what the Complication is (a temporary flaw, or one of theirs)."))
    return ContestStepDone(
        {**side.extra, COMPLICATION: text},
        [],
        _("%(name)s inflicts a Complication on %(loser)s: %(text)s.")
        % {"name": side.name, "loser": loser, "text": text},
    )


@dataclass(frozen=True)
class Contribution:
    name: str
    result: str
    success: bool


@dataclass(frozen=True)
class ExtendedBoard:
    """The tracker of an extended action, as one person sees it."""

    action: ExtendedAction
    rolls: list[Contribution]
    # The characters this person may roll with now; the panel draws each one's roll fields
    # (``ContestView.board_rows``: the table package does not build forms).
    mine: list[Character]
    chance: Fraction | None  # the exact chance of winning if each roll from here is like ``like``
    like: str

    @property
    def dn_text(self) -> str:
        return f"{_(DN_NAMES[self.action.dn])} ({self.action.dn})"

    @property
    def chance_text(self) -> str:
        return percent(self.chance) if self.chance is not None else ""

    @property
    def success_marks(self) -> list[bool]:
        return [index < self.action.successes for index in range(self.action.successes_needed)]

    @property
    def failure_marks(self) -> list[bool]:
        return [index < self.action.failures for index in range(self.action.failures_allowed)]


def extended_board(contest: Contest, membership: Membership | None) -> ExtendedBoard:
    sides = list(contest.sides.all())
    action = tally(contest, sides)
    rolls = []
    for side in sides:
        if side.roll is None:
            continue
        outcome = system.evaluate(side.roll.current_state())
        rolls.append(Contribution(side.name, outcome.headline, bool(outcome.success)))
    # The chance from here if every roll to come is like the last one (two dice before any).
    last = next((side.roll for side in reversed(sides) if side.roll is not None), None)
    net = system.parse_request(last.current_state()["request"]).net if last is not None else 2
    per_roll = system.chance(system.parse_request({"dice": net, "dn": action.dn}))
    chance = action.chance(per_roll) if per_roll is not None else None
    like = dice_count(net)
    mine: list[Character] = []
    if membership is not None and action.status == "going" and contest.state in ("open", "revealed"):
        characters = contest.campaign.characters.filter(owner_id=membership.user_id).select_related(
            "campaign"
        )
        mine = list(characters.order_by("name", "pk"))
    return ExtendedBoard(action, rolls, mine, chance, like)


# -- extended actions (DBL-13): read from the contest's rows, for the services and the panel --


def action_of(contest: Contest) -> ExtendedAction:
    """The action as the GM set it, before any roll."""
    setup = contest.setup
    return ExtendedAction(int(setup["dn"]), int(setup["successes"]), int(setup["failures"]))


def tally(contest: Contest, sides: list[ContestSide] | None = None) -> ExtendedAction:
    """DBL-13: the rolls so far, in order, each a success when it beats the Difficulty Number
    as its roll stands now; rolls after the action ended do not count."""
    action = action_of(contest)
    chosen = sides if sides is not None else list(contest.sides.select_related("roll").order_by("position"))
    for side in chosen:
        if side.roll is None or action.status != "going":
            continue
        success = system.evaluate(side.roll.current_state()).success
        action = action.record(bool(success), by=side.name)
    return action


def verdict(contest: Contest) -> str:
    """The action's end in words: won, lost, or stopped before either."""
    action = tally(contest)
    counts = _("%(successes)d of %(needed)d successes, %(failures)d of %(allowed)d failures") % {
        "successes": action.successes,
        "needed": action.successes_needed,
        "failures": action.failures,
        "allowed": action.failures_allowed,
    }
    if action.status == "won":
        return _("The extended action is won: %(counts)s.") % {"counts": counts}
    if action.status == "lost":
        return _("The extended action is lost: %(counts)s.") % {"counts": counts}
    return _("The extended action stops unfinished: %(counts)s.") % {"counts": counts}
