"""Contests: rolls that answer one another, each side rolled on its own phone (issue 14).

A contest has two sides (stars STR-9: more Stars wins, ties go to the player), or more where
the engine says so (sixes kid versus kid, SIX-18); a table may offer other kinds of flow
(``TableAdapter.contest_kinds``: sixes group Trouble) and read the contest its own way
(``TableAdapter.contest_reading``: the results, the phase, the verdict). The GM opens
one between characters, or a character and someone without a sheet whose side the GM rolls;
a player may challenge another player's character, who accepts or refuses first.

The order of play, which every function here enforces on the server:

1. **Asked** (a challenge only): the challenged side's player accepts or refuses.
2. **Open**: each side rolls once, its own side only (a player their character's, the GM a
   side without a sheet). Each roll is *sealed* (``Visibility.SEALED``): its roller and the
   GM see its dice, nobody else does, on any page, socket, export or statistic, and nobody
   follows it up yet.
3. **Revealed**: when the last side has rolled, every sealed roll is revealed at the same
   moment (one log entry per roll, which sends its card again with its dice). Now the
   follow-ups the rules allow in a contest go on (stars: Luck on one's own roll, or Luck
   against the other side's roll, which rerolls it and keeps the worse); each side's roll is
   made against the other side's character, which is what lets that player answer it.
4. **Closed**: the GM settles it; the verdict is the engine's (``contest_winner``) on the
   states as they stand. A contest that stalls (a phone went away, a player left) is closed
   by the GM from step 2: the sides rolled so far are revealed, a side that did not roll
   loses. The GM may also cancel a contest at any point; what was rolled is revealed.

Lock order: the contest's row first, then what a roll locks (``rolls.play.services``: the
character, the campaign last), so two sides rolling at the same moment queue on the contest
and exactly one of them reveals. A follow-up does not lock the contest: it is refused on a
sealed roll, and the reveal marks the rolls revealed before it commits.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from django.contrib.auth.models import User
from django.db import transaction
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext

from rolls import registry
from rolls.contests.reckoning import reckon, reckoning_words
from rolls.contests.sides import Side
from rolls.log.append import append_entry
from rolls.log.events import TableEvent
from rolls.models import Contest, ContestSide, LogEntry, Roll, Visibility
from rolls.play.services import npc_roll_create, roll_create
from rolls.stats import tally as stats_tally
from rolls.systems import RulesError
from rolls.systems.base import Rng
from tabletop.models import Campaign, Character, Membership
from tabletop.text import names_and

INTENT_LENGTH = 200
NAME_LENGTH = 60


@dataclass(frozen=True)
class Standing:
    """A side as the table sees the contest now."""

    side: ContestSide
    roll: Roll | None
    winner: bool


def contest_open(
    *,
    campaign: Campaign,
    opener: User,
    sides: Sequence[Side],
    intent: str,
    kind: str = Contest.Kind.CONTEST,
    setup: Mapping[str, Any] | None = None,
    attacker: int | None = None,
) -> Contest:
    """Open a contest. The GM opens it between any sides; a player challenges with their own
    character (side 0) another player's character, who must accept before anyone rolls.
    Another ``kind`` of flow (``TableAdapter.contest_kinds``: a group Trouble, a plan in
    parts) is the GM's, between characters only, with its ``setup`` checked by the table."""
    system = registry.engine(campaign.system)
    adapter = registry.table(campaign.system)
    # A table may play flows of its own (kinds: one Danger) without any head-to-head contest.
    if kind == Contest.Kind.CONTEST and not system.plays_contests:
        raise RulesError(_("%(system)s has no contested rolls at this table.") % {"system": system.name})
    membership = Membership.objects.filter(campaign=campaign, user=opener).first()
    if membership is None:
        raise RulesError(_("Only someone at this table opens a contest."))
    # What every character's side rolls with in this system, whatever its form said (doubles:
    # no Difficulty Number in an opposed roll); a flow's own values (below) come after them.
    fixed = adapter.contest_fixed(kind)
    sides = [
        side if side.character is None else Side(side.character, {**side.data, **fixed}) for side in sides
    ]
    flow: dict[str, Any] = {}
    if kind != Contest.Kind.CONTEST:
        if kind not in dict(adapter.contest_kinds):
            raise RulesError(_("This table does not play that kind of contest."))
        if not membership.is_gm:
            raise RulesError(_("Only the GM opens that."))
        if any(side.character is None for side in sides):
            raise RulesError(_("Only characters from the table take part in that."))
        flow = adapter.contest_setup(kind, len(sides), setup or {})
        sides = [Side(side.character, adapter.contest_side_data(kind, flow, side.data)) for side in sides]
    else:
        low, high = system.contest_sides
        if not low <= len(sides) <= high:
            if low == high:
                message = ngettext(
                    "A contest of %(system)s has %(count)s side: choose who rolls against whom.",
                    "A contest of %(system)s has %(count)s sides: choose who rolls against whom.",
                    low,
                ) % {"system": system.name, "count": low}
            else:
                message = _(
                    "A contest of %(system)s has %(low)s to %(high)s sides: choose who rolls against whom."
                ) % {"system": system.name, "low": low, "high": high}
            raise RulesError(message)
    characters = [side.character for side in sides if side.character is not None]
    if any(character.campaign_id != campaign.pk for character in characters):
        raise RulesError(_("That character is not at this table."))
    if len({character.pk for character in characters}) != len(characters):
        raise RulesError(_("A character cannot contest against themself; choose two."))
    adapter.check_contest_sides([(side.character, side.data) for side in sides])
    challenge = not membership.is_gm
    if challenge:
        if len(sides) != 2:
            raise RulesError(_("A challenge is one character against another."))
        first, second = sides
        if first.character is None or first.character.owner_id != opener.pk:
            raise RulesError(_("Challenge with a character of your own."))
        if second.character is None:
            raise RulesError(_("Only the GM rolls for someone without a sheet: ask the GM to open it."))
        if second.character.owner_id == opener.pk:
            raise RulesError(_("Challenge another player's character: you play both of these."))
    names = []
    for side in sides:
        if side.character is None:
            name = side.name.strip()[:NAME_LENGTH]
            if not name:
                raise RulesError(_("Name the side without a sheet (who is it?)."))
            system.contest_request(system.parse_request(side.data))
        else:
            name = side.character.name
            # A challenged player chooses their own roll when they accept.
            if not (challenge and side is sides[1]):
                _check_roll(side.character, side.data)
        names.append(name)
    # Who attacks, where the table says it is the GM's call: named by the GM as they open it
    # (the first side unless told), and in a challenge by nobody yet (``contest_attacker``).
    roles: list[dict[str, Any]] = [{} for _ in sides]
    if kind == Contest.Kind.CONTEST and adapter.contest_attacker_chosen:
        if attacker is not None and not 0 <= attacker < len(sides):
            raise RulesError(_("Choose which side attacks: the first or the second."))
        chosen = None if challenge else (attacker or 0)
        roles = [{"attacking": position == chosen} for position in range(len(sides))]
        if chosen is not None:
            sides = [
                Side(
                    side.character,
                    adapter.contest_role(side.data, npc=side.character is None, attacking=role["attacking"]),
                    side.name,
                )
                for side, role in zip(sides, roles, strict=True)
            ]
    intent = intent.strip()[:INTENT_LENGTH]
    # The log's line, whole sentences in the table's language (with and without what is at stake).
    words = {"intent": intent, "first": names[0], "second": names[-1], "kind": Contest.Kind(kind).label}
    if challenge:
        text = (
            _("%(first)s challenges %(second)s (%(intent)s).")
            if intent
            else _("%(first)s challenges %(second)s.")
        ) % words
    elif kind != Contest.Kind.CONTEST:
        words["names"] = _(", ").join(names)
        text = (
            _("The GM opened %(kind)s: %(names)s (%(intent)s).")
            if intent
            else _("The GM opened %(kind)s: %(names)s.")
        ) % words
    else:
        # Translators: joins the sides of a contest, "Ana against Kim against Bo".
        words["names"] = _(" against ").join(names)
        text = (
            _("The GM opened a contest: %(names)s (%(intent)s).")
            if intent
            else _("The GM opened a contest: %(names)s.")
        ) % words
    with transaction.atomic():
        return write_open_contest(
            campaign=campaign,
            opener=opener,
            kind=kind,
            intent=intent,
            setup=flow,
            asked=challenge,
            text=text,
            sides=[
                {
                    "character": side.character,
                    "name": name,
                    "npc": side.character is None,
                    "data": dict(side.data),
                    "accepted": not (challenge and position == 1),
                    "extra": roles[position],
                }
                for position, (side, name) in enumerate(zip(sides, names, strict=True))
            ],
        )


def write_open_contest(
    *,
    campaign: Campaign,
    opener: User,
    kind: str,
    intent: str,
    setup: dict[str, Any],
    text: str,
    sides: Sequence[Mapping[str, Any]] = (),
    asked: bool = False,
) -> Contest:
    """Write a contest whose opening the rules have allowed (``contest_open``, or a flow of
    one system's own such as ``rolls.contests.extended``): in the open play session, with its
    ``sides`` in order (each a ``ContestSide``'s fields), and ``text`` in the log as the
    event that opens it. ``asked``: a challenge, waiting for the other side to accept. Call
    inside a transaction; refused when no play session is open."""
    session = campaign.open_session()
    if session is None:
        raise RulesError("The GM has not started a play session yet.")
    contest = Contest.objects.create(
        campaign=campaign,
        session=session,
        system=campaign.system,
        intent=intent,
        state=Contest.State.ASKED if asked else Contest.State.OPEN,
        opened_by=opener,
        kind=kind,
        setup=setup,
    )
    for position, side in enumerate(sides):
        ContestSide.objects.create(contest=contest, position=position, **side)
    contest_event(contest, TableEvent.CONTEST_OPEN, opener, text)
    return contest


def contest_answer(
    *, contest: Contest, user: User, accept: bool, data: Mapping[str, Any] | None = None
) -> Contest:
    """The challenged side's player accepts the challenge with the roll they choose
    (``data``, their roll form's values), and everyone rolls; or refuses it."""
    with transaction.atomic():
        contest = _locked(contest)
        if contest.state != Contest.State.ASKED:
            raise RulesError(_("This contest is not waiting for an answer."))
        side = next((s for s in contest.sides.all() if not s.accepted), None)
        if side is None or side.character is None or side.character.owner_id != user.pk:
            raise RulesError(_("Only the challenged character's player answers a challenge."))
        if accept:
            adapter = registry.table(contest.system)
            data = {**(data or {}), **adapter.contest_fixed(contest.kind)}
            if side.extra.get("attacking") is not None and _attacker_named(contest):
                data = adapter.contest_role(data, npc=False, attacking=bool(side.extra["attacking"]))
            _check_roll(side.character, data)
            others = [(each.character, each.data) for each in contest.sides.all() if each.pk != side.pk]
            registry.table(contest.system).check_contest_sides([*others, (side.character, data)])
            ContestSide.objects.filter(pk=side.pk).update(accepted=True, data=data)
            contest.state = Contest.State.OPEN
            text = _("%(name)s accepts the challenge.") % {"name": side.name}
        else:
            contest.state = Contest.State.REFUSED
            text = _("%(name)s refuses the challenge.") % {"name": side.name}
        contest.save(update_fields=["state"])
        contest_event(contest, TableEvent.CONTEST_ANSWER, user, text)
        return contest


def contest_roll(
    *,
    side: ContestSide,
    user: User,
    rng: Rng,
    is_gm: bool,
    faces: list[int] | None = None,
    client: str | None = None,
    key: str | None = None,
) -> Roll:
    """Roll one side, sealed; the last side to roll reveals them all. A player rolls only
    their own character's side, the GM only a side without a sheet, each once, and only while
    the contest is open. ``key``: the request's one-time key (``rolls.log.resent``)."""
    with transaction.atomic():
        contest = _locked(side.contest)
        side = contest.sides.select_related("character__campaign").get(pk=side.pk)
        if contest.state == Contest.State.ASKED:
            raise RulesError(_("The challenge has not been accepted yet."))
        if contest.state != Contest.State.OPEN:
            raise RulesError(_("This contest is over: its rolls are made."))
        if side.roll_id is not None:
            raise RulesError(_("%(name)s has rolled already: once per contest.") % {"name": side.name})
        others = list(contest.sides.exclude(pk=side.pk).select_related("character"))
        # Head to head, each roll is made against the other side's character: what lets that
        # player answer it (stars: Luck against it). In a flow side by side (group Trouble, a
        # plan, one Danger) nobody rolls against anybody.
        head_to_head = len(others) == 1 and contest.kind == Contest.Kind.CONTEST
        target = others[0].character if head_to_head else None
        if side.npc:
            if not is_gm:
                raise RulesError(_("Only the GM rolls for someone without a sheet."))
            system = registry.engine(contest.system)
            # STR-9: rolled as the GM's side, which a tie never favours.
            request = system.contest_request(system.sheetless(system.parse_request(side.data)))
            roll = npc_roll_create(
                campaign=contest.campaign,
                gm=user,
                name=side.name,
                request=request,
                secret=False,
                target=target,
                intent=contest.intent,
                rng=rng,
                faces=faces,
                sealed=True,
                client=client,
                key=key,
            )
        else:
            character = side.character
            if character is None:
                raise RulesError(
                    _("%(name)s has left the table; the GM can close the contest.") % {"name": side.name}
                )
            if character.owner_id != user.pk:
                raise RulesError(
                    _("Only %(name)s's player rolls %(name)s's side.") % {"name": character.name}
                )
            roll = roll_create(
                character=character,
                roller=user,
                data=side.data,
                helper=None,
                intent=contest.intent,
                rng=rng,
                faces=faces,
                sealed=True,
                target=target,
                client=client,
                key=key,
            )
        side.roll = roll
        side.save(update_fields=["roll"])
        _reveal_when_ready(contest, user)
        return roll


def contest_attacker(*, contest: Contest, gm: User, position: int) -> Contest:
    """SET-4: the GM names the side that attacks (it wins ties, and only it deals critical
    hits), where the table leaves that to the GM (``TableAdapter.contest_attacker_chosen``):
    a player's challenge waits for it, and the GM may change it until the dice are revealed.
    Each side's roll data is written again for its role, and the log says who attacks."""
    with transaction.atomic():
        contest = _locked(contest)
        membership = Membership.objects.filter(campaign_id=contest.campaign_id, user=gm).first()
        if membership is None or not membership.is_gm:
            raise RulesError(_("Only the GM says who attacks."))
        adapter = registry.table(contest.system)
        if not adapter.contest_attacker_chosen or contest.kind != Contest.Kind.CONTEST:
            raise RulesError(_("In this contest nobody has to be named the attacker."))
        if contest.state not in (Contest.State.ASKED, Contest.State.OPEN):
            raise RulesError(_("The dice are revealed already: who attacked stands."))
        sides = list(contest.sides.order_by("position"))
        if not 0 <= position < len(sides):
            raise RulesError(_("Choose one of the contest's sides."))
        for side in sides:
            attacking = side.position == position
            side.extra = {**side.extra, "attacking": attacking}
            fields = ["extra"]
            if side.accepted and side.roll_id is None:
                side.data = adapter.contest_role(side.data, npc=side.npc, attacking=attacking)
                fields.append("data")
            side.save(update_fields=fields)
        contest_event(
            contest,
            TableEvent.CONTEST_STEP,
            gm,
            _("The GM says %(name)s attacks.") % {"name": sides[position].name},
        )
        if contest.state == Contest.State.OPEN:
            _reveal_when_ready(contest, gm)
        return contest


def _attacker_named(contest: Contest) -> bool:
    return any(side.extra.get("attacking") for side in contest.sides.all())


def contest_close(*, contest: Contest, gm: User) -> Contest:
    """The GM settles a contest: the engine's verdict on the rolls as they stand (after the
    follow-ups), or, for one that stalled, the rolls made so far revealed and a side that did
    not roll losing."""
    with transaction.atomic():
        contest = _locked(contest)
        if contest.state not in (Contest.State.OPEN, Contest.State.REVEALED):
            raise RulesError(_("Only a contest being played can be closed."))
        if contest.state == Contest.State.OPEN:
            _reveal(contest, gm)
        contest.verdict = verdict(contest)[:200]
        contest.state = Contest.State.CLOSED
        contest.save(update_fields=["state", "verdict"])
        contest_event(contest, TableEvent.CONTEST_END, gm, contest.verdict)
        return contest


def contest_cancel(*, contest: Contest, gm: User, because: str | None = None) -> Contest:
    """The GM calls a contest off. What was rolled stays in the log, revealed: nothing rolled
    at the table is hidden for good by a contest. ``because``: why, already translated
    ("The GM called it off" unless told)."""
    if because is None:
        because = _("The GM called it off")
    with transaction.atomic():
        contest = _locked(contest)
        if not contest.live:
            raise RulesError(_("This contest is over already."))
        _reveal(contest, gm)
        contest.state = Contest.State.CANCELLED
        contest.save(update_fields=["state"])
        contest_event(
            contest,
            TableEvent.CONTEST_CANCEL,
            gm,
            # Translators: why a contest was called off, then what ended ("The GM called it off: ...").
            _("%(because)s: %(what)s.") % {"because": because, "what": _called_off(contest)},
        )
        return contest


# What the log calls each kind that is not a contest between sides, when it is called off.
CALLED_OFF_NAMES = {
    Contest.Kind.EXTENDED: gettext_lazy("extended action"),
    Contest.Kind.GROUP: gettext_lazy("Group Trouble"),
    Contest.Kind.PLAN: gettext_lazy("Extended Trouble"),
    Contest.Kind.DANGER: gettext_lazy("Danger"),
}


def _called_off(contest: Contest) -> str:
    """The contest called off, in words: its sides for a contest; for a flow, the flow and its
    intent and who rolled for it, each once. An extended action's sides are its rolls, none
    until someone rolls: "no contest between ." was all the log said of one."""
    names = list(dict.fromkeys(side.name for side in contest.sides.order_by("position")))
    listed = names_and(names)
    if contest.kind == Contest.Kind.CONTEST and names:
        return _("no contest between %(names)s") % {"names": listed}
    words = {"name": CALLED_OFF_NAMES.get(Contest.Kind(contest.kind), _("contest")), "intent": contest.intent}
    words["names"] = listed
    # Whole clauses, with and without what was at stake and who rolled, so word order may differ.
    if contest.intent and names:
        return _("the %(name)s (%(intent)s) of %(names)s ends undecided") % words
    if contest.intent:
        return _("the %(name)s (%(intent)s) ends undecided") % words
    if names:
        return _("the %(name)s of %(names)s ends undecided") % words
    return _("the %(name)s ends undecided") % words


def contest_act(
    *,
    side: ContestSide,
    user: User,
    action: str,
    params: Mapping[str, Any],
    is_gm: bool,
    key: str | None = None,
) -> Contest:
    """A step of a contest besides rolling (``TableAdapter.contest_steps``): taken only by the
    side's own player (the GM for a side without a sheet), only when the system offers it.
    ``key``: the request's one-time key, kept on the step's entry (``rolls.log.resent``)."""
    with transaction.atomic():
        contest = _locked(side.contest)
        sides = list(contest.sides.select_related("roll", "character__campaign").order_by("position"))
        side = next((each for each in sides if each.pk == side.pk), side)
        adapter = registry.table(contest.system)
        settled = contest.state == Contest.State.CLOSED and adapter.steps_after_settle
        if not contest.live and not settled:
            raise RulesError(_("This contest is over."))
        offered = {step.action: step for step in adapter.contest_steps(contest, side, sides)}
        step = offered.get(action)
        # A step the GM may take for a player's side (doubles: dismiss a Complication, DBL-9).
        gm_dismisses = is_gm and step is not None and step.gm_may
        if side.npc and not is_gm:
            raise RulesError(_("Only the GM acts for someone without a sheet."))
        if (
            not side.npc
            and not gm_dismisses
            and (side.character is None or side.character.owner_id != user.pk)
        ):
            raise RulesError(_("Only %(name)s's player acts for %(name)s.") % {"name": side.name})
        if step is None:
            raise RulesError(_("That is not a step this side may take now."))
        if side.roll_id is not None:
            # Locked before the character (the roll services' order): a step may spend its dice.
            side.roll = Roll.objects.select_for_update(no_key=True).get(pk=side.roll_id)
        character = None
        if side.character is not None:
            character = (
                Character.objects.select_for_update(no_key=True, of=("self",))
                .select_related("campaign")
                .get(pk=side.character.pk)
            )
        done = adapter.contest_step(contest, side, sides, step, params, character)
        if character is not None and done.changed:
            character.save(update_fields=done.changed)
        side.extra = done.extra
        side.save(update_fields=["extra"])
        contest_event(contest, TableEvent.CONTEST_STEP, user, done.text, key=key)
        if settled:
            # The rolls are final: the verdict read again says the step too (the Complication).
            contest.verdict = verdict(contest)[:200]
            contest.save(update_fields=["verdict"])
        if done.state is not None and side.roll is not None:
            _roll_step(contest, side.roll, done.state, action, user)
        if contest.state == Contest.State.OPEN:
            _reveal_when_ready(contest, user)
        return contest


def standings(contest: Contest) -> list[Standing]:
    """Each side and its roll, and who wins as the rolls stand. Only for a contest whose rolls
    the viewer may see (revealed or closed): an open contest's sealed rolls have no winner."""
    sides = list(contest.sides.select_related("roll", "character__campaign").order_by("position"))
    reading = registry.table(contest.system).contest_reading(contest, sides)
    if reading is not None:
        return [Standing(side, side.roll, side.position in reading.winners) for side in sides]
    # Read from the rolls themselves (a sealed roll has no winner yet), not the contest's state.
    revealed = all(side.roll is not None and side.roll.revealed for side in sides)
    winner = reckon(contest, sides).winner if revealed else None
    return [Standing(side, side.roll, winner == side.position) for side in sides]


def verdict(contest: Contest) -> str:
    """The contest's result in words, from the rolls as they stand. A side that did not roll
    loses; the sides that rolled are compared among themselves. RulesError when the system
    cannot settle it yet (a miracle waits for the GM)."""
    sides = list(contest.sides.select_related("roll", "character__campaign").order_by("position"))
    reading = registry.table(contest.system).contest_reading(contest, sides)
    if reading is not None:
        return reading.verdict
    if contest.kind in registry.table(contest.system).flow_boards:
        # A flow of its own (an extended action...): its table package says how it ended.
        return registry.table(contest.system).flow_verdict(contest)
    return reckoning_words(contest, sides, reckon(contest, sides))


def _reveal_when_ready(contest: Contest, actor: User) -> None:
    """Reveal an open contest once every side has rolled and its system has nothing left to
    do in secret (``TableAdapter.contest_ready``)."""
    sides = list(contest.sides.select_related("roll", "character").order_by("position"))
    if all(s.roll_id is not None for s in sides) and registry.table(contest.system).contest_ready(
        contest, sides
    ):
        _reveal(contest, actor)
        contest.state = Contest.State.REVEALED
        contest.save(update_fields=["state"])


def _reveal(contest: Contest, actor: User) -> None:
    """Reveal every sealed roll of the contest at once: each gets an entry that names it and
    carries its state, so every page draws its card again, now with its dice. What the sides
    did in secret is written into their rolls first, and said in one entry before them
    (``TableAdapter.contest_revealed``)."""
    # Only sealed rolls wait for the reveal: an extended action's rolls are made in the open
    # (each already on every screen), so closing one that is still going reveals nothing.
    rolls = list(
        Roll.objects.filter(contest_side__contest=contest, revealed=False, visibility=Visibility.SEALED)
        .select_related("character")
        .order_by("id")
    )
    if not rolls:
        return
    sides = list(contest.sides.select_related("roll", "character").order_by("position"))
    states, text = registry.table(contest.system).contest_revealed(contest, sides)
    by_roll = {side.roll_id: states[side.position] for side in sides if side.position in states}
    tally = stats_tally.Change(contest.campaign_id, [roll.pk for roll in rolls])
    if text:
        contest_event(contest, TableEvent.CONTEST_STEP, actor, text)
    Roll.objects.filter(pk__in=[roll.pk for roll in rolls]).update(revealed=True)
    system = registry.engine(contest.system)
    for roll in rolls:
        roll.revealed = True
        state = by_roll.get(roll.pk)
        if state is not None:
            roll.outcome = system.evaluate(state).tone
            Roll.objects.filter(pk=roll.pk).update(outcome=roll.outcome)
        append_entry(
            campaign_id=contest.campaign_id,
            kind=LogEntry.Kind.EVENT,
            action=TableEvent.CONTEST_REVEAL,
            actor=actor,
            roll=roll,
            state=state if state is not None else roll.current_state(),
            text=_("%(name)s's roll for the contest, revealed.") % {"name": roll.character_name},
        )
    tally.record()


def _roll_step(contest: Contest, roll: Roll, state: dict[str, Any], action: str, actor: User) -> None:
    """A contest step that spent the side's own dice: a follow-up entry of its roll, so the
    card (and every page showing it) draws the dice spent."""
    tally = stats_tally.Change(contest.campaign_id, [roll.pk])
    roll.outcome = registry.engine(contest.system).evaluate(state).tone
    Roll.objects.filter(pk=roll.pk).update(outcome=roll.outcome)
    append_entry(
        campaign_id=contest.campaign_id,
        kind=LogEntry.Kind.FOLLOW_UP,
        action=action[:32],
        actor=actor,
        roll=roll,
        state=state,
    )
    tally.record()


def contest_event(
    contest: Contest, event: TableEvent, actor: User, text: str, key: str | None = None
) -> LogEntry:
    """A contest's event in the log. Its state names the contest, under the entry's hash, so the
    history draws the contest as one entry and its page finds every part of it. ``key``: the
    one-time key of the step's request (``rolls.log.resent``)."""
    return append_entry(
        campaign_id=contest.campaign_id,
        kind=LogEntry.Kind.EVENT,
        action=event,
        actor=actor,
        state={"contest": contest.pk},
        text=text[:300],
        key=key,
    )


def _check_roll(character: Character, data: Mapping[str, Any]) -> None:
    """That ``data`` is a roll this character can make in a contest (RulesError otherwise)."""
    system = registry.engine(character.campaign.system)
    request_data, _held = registry.table(system.slug).pool(character, data)
    system.contest_request(system.parse_request(request_data))


def _locked(contest: Contest) -> Contest:
    # Only the contest's own row: the campaign is locked last, by the log (``rolls.log.append``).
    return (
        Contest.objects.select_for_update(no_key=True, of=("self",))
        .select_related("campaign")
        .get(pk=contest.pk)
    )
