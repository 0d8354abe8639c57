"""The contests panel: each contest being played, as one person at the table sees it.

Every page of the table draws it (a phone's roll screen and campaign page, the GM's
console, the table display), and the socket draws it again whenever an entry touches a
contest (``audience.Panel.CONTESTS``). What it shows follows the contest's order of play
(``rolls.contests.services``): who is in and what each rolls, who has rolled (never what, while the
rolls are sealed), then every result and who is winning; and for whoever has something to do
now, the button for it, with the exact odds of winning before they roll.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from django.db.models import Q
from django.utils.translation import gettext as _

from rolls import registry
from rolls.contests.reckoning import reckon, states_of
from rolls.contests.sides import SideRow, side_row
from rolls.log.reads import newest_states
from rolls.models import Contest, ContestSide
from rolls.systems import RulesError
from rolls.systems.base import State, dice_count, percent
from rolls.systems.hand import dice_needed
from rolls.tables.base import ContestStep
from tabletop.models import Membership


@dataclass(frozen=True)
class SideView:
    side: ContestSide
    rolled: bool
    result: str  # the roll's headline once revealed; "" while sealed or not rolled
    winning: bool
    yours: bool  # this person rolls it now: their character's side, or the GM's without a sheet
    label: str  # what it rolls: "Agility (Stealth)", "2 dice"
    steps: tuple[ContestStep, ...] = ()  # what this person may do for it now besides rolling
    # What the system shows of the side beyond its roll (``TableAdapter.contest_side``), drawn
    # by ``extra_template``: a sealed bid, the steps to take now.
    extra: dict[str, Any] | None = None
    extra_template: str = ""


@dataclass(frozen=True)
class Odds:
    """A side's exact chances in the contest, before anyone has rolled."""

    win: Fraction
    tie: Fraction
    lose: Fraction
    # What ``win`` is the chance of: winning head to head, or what a flow asks of each side
    # ("get 2 sixes", ``TableAdapter.contest_chance``), in the words of "Ada's chance to win".
    what: str = ""

    @property
    def win_text(self) -> str:
        return percent(self.win)

    @property
    def tie_text(self) -> str:
        return percent(self.tie) if self.tie else ""


@dataclass(frozen=True)
class ContestView:
    contest: Contest
    sides: list[SideView]
    phase: str
    answer: SideRow | None = None  # the challenge this person answers, with their roll's fields
    odds: Odds | None = None  # the chances of the side this person rolls
    odds_side: str = ""
    gm: bool = False
    closing: str = ""  # the GM's question before closing it while it is still being rolled
    # Once revealed, the follow-ups this person may still take and the exact chance to win
    # with each: ("Luck against the roll", "72%").
    options: list[tuple[str, str]] = field(default_factory=list)
    # A flow of another kind than head to head: its table package's view and template.
    board: Any = None
    board_template: str = ""
    # The characters a board lets this person roll with (``board.mine``), each with its fields.
    board_rows: list[SideRow] = field(default_factory=list)
    # The GM may name the side that attacks (sets SET-4) until the dice are revealed.
    names_attacker: bool = False


def contest_views(campaign_id: int, membership: Membership | None) -> list[ContestView]:
    """The contests of the running session still being played, as ``membership`` sees them
    (None: the table display, which acts on nothing)."""
    playing = Q(state__in=(Contest.State.ASKED, Contest.State.OPEN, Contest.State.REVEALED))
    # A settled contest of a system whose sides may still take a step after the settle.
    after = [slug for slug in registry.slugs() if registry.table(slug).steps_after_settle]
    settled = Q(state=Contest.State.CLOSED, system__in=after)
    live = list(
        Contest.objects.filter(playing | settled, campaign_id=campaign_id, session__ended__isnull=True)
        .select_related("campaign")
        .prefetch_related("sides__roll", "sides__character__campaign")
        .order_by("id")
    )
    # Every roll's newest state in one query, rather than one per side each time a reading
    # asks (``Roll.current_state``, which returns it from now on): the panel only reads.
    rolls = [side.roll for contest in live for side in contest.sides.all() if side.roll is not None]
    newest = newest_states([roll.pk for roll in rolls])
    for roll in rolls:
        if roll.pk in newest:
            roll.known_state = newest[roll.pk][0]
    live = [contest for contest in live if contest.live or _step_waits(contest)]
    return [_view(contest, membership) for contest in live]


def _step_waits(contest: Contest) -> bool:
    """Whether a side of a settled contest may still take a step (``steps_after_settle``)."""
    adapter = registry.table(contest.system)
    sides = sorted(contest.sides.all(), key=lambda side: side.position)
    return any(adapter.contest_steps(contest, side, sides) for side in sides)


def _view(contest: Contest, membership: Membership | None) -> ContestView:
    adapter = registry.table(contest.system)
    gm = membership is not None and membership.is_gm
    sides = sorted(contest.sides.all(), key=lambda side: side.position)
    reading = adapter.contest_reading(contest, sides)
    if contest.kind in adapter.flow_boards:
        # A flow with a board of its own (an extended action): its table package draws it.
        return ContestView(
            contest=contest,
            sides=[],
            phase="",
            gm=gm,
            closing=adapter.contest_closing(contest.kind) if gm else "",
            board=(board := adapter.flow_view(contest, membership)),
            board_template=adapter.template(f"flow_{contest.kind}"),
            board_rows=[
                side_row(character, (contest.kind,), place=f"contest-{contest.pk}")
                for character in getattr(board, "mine", [])
            ],
        )
    revealed = all(side.roll is not None and side.roll.revealed for side in sides)
    winner, said = None, ""
    states = states_of(sides) if revealed else []
    if reading is not None:
        winners = reading.winners
        results = reading.results
    elif revealed:
        # Every side has rolled: what the verdict would say now, read once (``contest_reckoning.reckon``).
        reckoning = reckon(contest, sides, states)
        winner = reckoning.winner
        # Not settled yet (a miracle waits for the GM): say why, name no winner.
        said = reckoning.unsettled or reckoning.words
        winners = frozenset() if winner is None else frozenset({winner})
        system = registry.engine(contest.system)
        results = [system.evaluate(state).headline for state in states]
    else:
        winners, results = frozenset(), ["" for _ in sides]
    views = []
    for index, side in enumerate(sides):
        yours = _rolls_it(side, membership)
        # What the system draws of the side itself (sets: a sealed bid and its bid buttons).
        extra = adapter.contest_side(contest, side, sides, sees=yours or gm, acts=yours)
        # The table says which steps a side may take when (a bid before the reveal, a
        # success bought after it): only whoever rolls that side is offered them, as plain
        # buttons unless the system draws the side itself.
        acting = contest.live or (contest.state == Contest.State.CLOSED and adapter.steps_after_settle)
        steps = (
            adapter.contest_steps(contest, side, sides) if (yours or gm) and acting and extra is None else []
        )
        if not yours:
            # The GM, for a player's side: only what the GM may take for them (a dismissal).
            steps = [step for step in steps if step.gm_may]
        views.append(
            SideView(
                side=side,
                rolled=side.roll is not None,
                result=results[index],
                winning=index in winners,
                yours=yours,
                label=_label(contest, side),
                steps=tuple(steps),
                extra=extra,
                extra_template=adapter.template("contest_side") if extra is not None else "",
            )
        )
    answer = None
    if contest.state == Contest.State.ASKED and membership is not None:
        waiting = next((side for side in sides if not side.accepted), None)
        if (
            waiting is not None
            and waiting.character is not None
            and waiting.character.owner_id == membership.user_id
        ):
            answer = side_row(waiting.character)
    odds, odds_side = None, ""
    mine = next((view for view in views if view.yours and not view.rolled), None)
    # The odds of winning are a head-to-head contest's; another flow's phone reads its own.
    if contest.state == Contest.State.OPEN and mine is not None and contest.kind == Contest.Kind.CONTEST:
        odds, odds_side = _odds(contest, sides, mine.side.position), mine.side.name
    elif contest.state == Contest.State.OPEN and mine is not None:
        # Another flow's own chance for a side, where its table names one (sixes: group Trouble).
        odds, odds_side = _flow_odds(contest, mine.side), mine.side.name
    options: list[tuple[str, str]] = []
    theirs = next((view.side for view in views if view.yours and view.side.character is not None), None)
    head_to_head = contest.kind == Contest.Kind.CONTEST
    if revealed and contest.state == Contest.State.REVEALED and theirs is not None and head_to_head:
        options, odds_side = _options(contest, sides, theirs, states), theirs.name
    phase = _phase(contest, views, winner, said)
    if reading is not None and contest.state != Contest.State.ASKED:
        phase = reading.phase
    return ContestView(
        contest=contest,
        sides=views,
        phase=phase,
        answer=answer,
        odds=odds,
        odds_side=odds_side,
        gm=gm,
        closing=adapter.contest_closing(contest.kind) if gm else "",
        options=options,
        names_attacker=gm
        and adapter.contest_attacker_chosen
        and head_to_head
        and contest.state in (Contest.State.ASKED, Contest.State.OPEN),
    )


def _rolls_it(side: ContestSide, membership: Membership | None) -> bool:
    if membership is None:
        return False
    if side.npc:
        return membership.is_gm
    return side.character is not None and side.character.owner_id == membership.user_id


def _request(contest: Contest, side: ContestSide) -> Any:
    system = registry.engine(contest.system)
    if side.npc:
        return system.contest_request(system.sheetless(system.parse_request(side.data)))
    if side.character is None:
        raise RulesError(_("%(name)s has left the table.") % {"name": side.name})
    request_data, _held = registry.table(contest.system).pool(side.character, side.data)
    # The request the roll will be made with (``rolls.play.services.roll_create``, sealed).
    return system.contest_request(system.parse_request(request_data))


def _label(contest: Contest, side: ContestSide) -> str:
    if not side.accepted:
        return _("chooses their roll when they accept")
    try:
        if side.npc:
            # What the room needs of the GM's side: how many dice it rolls.
            system = registry.engine(contest.system)
            request = _request(contest, side)
            return dice_count(dice_needed(lambda rng: system.roll(request, rng)))
        if side.character is None:
            return _("has left the table")
        _data, label = registry.table(contest.system).pool(side.character, side.data)
        return label
    except RulesError:
        return _("cannot roll as chosen (the sheet changed)")


def _odds(contest: Contest, sides: list[ContestSide], position: int) -> Odds | None:
    """The exact chances of side ``position`` against the others, before anyone rolls."""
    try:
        requests = [_request(contest, side) for side in sides]
        odds = registry.engine(contest.system).contest_among(requests)[position]
    except RulesError:
        return None
    # Translators: what a side's chance is of, in "%(side)s's chance to %(what)s".
    return Odds(odds["win"], odds["tie"], odds["lose"], _("win"))


def _flow_odds(contest: Contest, side: ContestSide) -> Odds | None:
    """The exact chance of what a flow other than head to head asks of ``side``, before it
    rolls (``TableAdapter.contest_chance``), or None where its table names none."""
    try:
        found = registry.table(contest.system).contest_chance(contest, _request(contest, side))
    except RulesError:
        return None
    if found is None:
        return None
    what, chance = found
    return Odds(chance, Fraction(0), 1 - chance, what)


def _options(
    contest: Contest, sides: list[ContestSide], mine: ContestSide, states: list[State]
) -> list[tuple[str, str]]:
    """The follow-ups ``mine``'s player may take now on a revealed contest (on their own roll,
    or answering another side's), each with the exact chance to win after it; ``states``:
    every side's roll as it stands, in ``sides`` order."""
    system = registry.engine(contest.system)
    if mine.character is None or len(states) != len(sides):
        return []
    adapter = registry.table(contest.system)
    resources = adapter.resources(mine.character, latest=True)
    # On one's own roll, where one stands in the contest too (sixes: Luck for a losing kid).
    own_resources = {**resources, **adapter.contest_resources(contest, mine, sides)}
    found = []
    for target, side in enumerate(sides):
        own = side.pk == mine.pk
        for follow_up in system.follow_ups(states[target], own_resources if own else resources):
            if own == (follow_up.action in system.target_actions):
                continue  # one's own follow-ups on one's own roll, answers on the others'
            for label, chance in system.contest_option_chances(states, mine.position, follow_up, target):
                found.append((label, percent(chance)))
    return found


def _phase(contest: Contest, views: list[SideView], winner: int | None, said: str = "") -> str:
    if contest.state == Contest.State.ASKED:
        waiting = next((view.side.name for view in views if not view.side.accepted), None)
        if waiting is None:
            return _("Waiting for the other side to accept the challenge.")
        return _("Waiting for %(name)s to accept the challenge.") % {"name": waiting}
    if contest.state == Contest.State.OPEN:
        rolled = sum(view.rolled for view in views)
        waiting = registry.table(contest.system).contest_waiting
        if waiting and rolled == len(views):
            return waiting
        return _(
            "Rolling: %(rolled)s of %(sides)s sides in. The dice stay sealed until every side has rolled."
        ) % {"rolled": rolled, "sides": len(views)}
    if contest.state == Contest.State.CLOSED:
        return _("Settled by the GM: %(verdict)s The rolls are final.") % {"verdict": contest.verdict}
    if said:
        return _("Revealed: %(said)s Follow-ups may still change it; the GM settles it.") % {"said": said}
    if winner is None:
        return _("Revealed: a tie so far.")
    return _("Revealed: %(name)s is winning. Follow-ups may still change it; the GM settles it.") % {
        "name": views[winner].side.name
    }
