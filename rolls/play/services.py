"""Rolls, follow-ups and calls for a roll. Each function is one transaction: it locks what it
spends, applies the rule, and appends log entries (``rolls.log.append``), which are published to the
table once the transaction commits."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from django.contrib.auth.models import User
from django.db import transaction
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop

from rolls import registry
from rolls.log import fairdice
from rolls.log.append import append_entry, append_event, reserve
from rolls.log.events import TableEvent
from rolls.log.randomness import ROLL_SEED, SESSION_SEED, AppDice, EntryDice, wants_own_seed
from rolls.models import FollowUpUse, LogEntry, Roll, RollCall, Visibility
from rolls.play.final import contest_final, lock_contest_of, may_be_contested, refusal
from rolls.stats import record
from rolls.stats import tally as stats_tally
from rolls.systems import RulesError
from rolls.systems.base import DiceSystem, Rng, dice_count
from rolls.systems.hand import dice_needed, entered_step
from tabletop.models import Campaign, Character, DiceMode, PlaySession
from tabletop.serving.compiled_query import CompiledInsert, CompiledQuery, CompiledSave

# Read and locked on every roll and paid follow-up; written on every roll: compiled once
# (tabletop/serving/compiled_query.py).
_NEW_ROLL = CompiledInsert(Roll)
_NEW_USE = CompiledInsert(FollowUpUse)
# Written on every follow-up: what it spends from a sheet, what it adds to its roll's row.
_SAVE_CHARACTER = CompiledSave(Character)
_SAVE_ROLL = CompiledSave(Roll)
# The seed of a roll's session while it runs (a follow-up's dice), read when the dice are drawn.
_RUNNING_SESSION_SEED = CompiledQuery(
    lambda pk: PlaySession.objects.filter(pk=pk, ended__isnull=True).only("seed"), "pk"
)
_LOCKED_ROLL = CompiledQuery(lambda pk: Roll.objects.select_for_update(no_key=True).filter(pk=pk), "pk")
# Only the character's row: the campaign it is read with is locked last, by the log's UPDATE
# of its sequence number, so every write takes its locks in one order (rolls.campaigns.services).
_LOCKED_CHARACTER = CompiledQuery(
    lambda pk: (
        Character.objects.select_for_update(no_key=True, of=("self",))
        .select_related("campaign")
        .filter(pk=pk)
    ),
    "pk",
    related=("campaign",),
)


def _locked(character: Character) -> Character:
    return _LOCKED_CHARACTER.get(pk=character.pk)


def _refuse_when_final(roll: Roll, adapter: Any, action: str = "") -> None:
    """A verdict freezes the rolls it read (``rolls.play.final``): a follow-up on one could make
    the log contradict itself. And a side's follow-up ``action`` waits for its turn where the
    table says so (``TableAdapter.contest_follow_up_wait``, sets SET-10: the loser answers after
    the winner's criticals). A roll that cannot be a contest's side reads nothing here: this
    runs on every follow-up."""
    if not may_be_contested(roll):
        return
    reason = refusal(roll, action) if action else contest_final(roll)
    if reason:
        raise RulesError(reason)


def roll_create(
    *,
    character: Character,
    roller: User,
    data: Mapping[str, Any],
    helper: Character | None,
    intent: str,
    rng: Rng,
    blind: bool = False,
    call: RollCall | None = None,
    faces: list[int] | None = None,
    sealed: bool = False,
    flow: bool = False,
    target: Character | None = None,
    client: str | None = None,
    key: str | None = None,
) -> Roll:
    """Roll for a character from the roll form's ``data``; raises RulesError when the rules or
    the table refuse, and then nothing is written. A blind roll's result reaches only the GM.
    ``faces``: the dice the player rolled by hand, as the campaign's dice mode allows
    (``player_dice``); the engine rolls from them instead of ``rng``. ``sealed`` and
    ``target``: a side of a contest (``rolls.contests.services``), seen by its roller and the GM until
    the contest reveals it, and made against the other side's character. ``flow``: an open
    roll made for a flow (doubles' extended action), which its contest reads. ``client``: the
    random value the roller's browser sent (``fairdice.client_value``), mixed into the app's
    dice. ``key``: the request's one-time key, kept on the entry (``rolls.log.resent``)."""
    system = registry.engine(character.campaign.system)
    adapter = registry.table(system.slug)
    with transaction.atomic():
        character = _locked(character)
        campaign = character.campaign
        session = campaign.open_session()
        if session is None:
            raise RulesError(_("The GM has not started a play session yet."))
        # Kept on the campaign the new roll carries: the roller's result card asks again
        # whether a follow-up that costs may go on it (``Roll.stale_for``), and read here, under
        # the character's lock, it is the session the roll was made in. A second read was one
        # more query on every roll (bench/roll_cpu.py).
        campaign.known_open_session = session
        player_dice(campaign, faces, blind=blind)
        adapter.check_can_roll(character)
        if helper is not None and not adapter.names_helper():
            raise RulesError(_("In this system helpers are counted on the roll form; name no helper."))
        if helper is not None and (helper.pk == character.pk or helper.campaign_id != campaign.pk):
            raise RulesError(_("A character cannot help themself; choose another character at this table."))
        if call is not None and (call.closed or not call.characters.filter(pk=character.pk).exists()):
            raise RulesError(_("That call for a roll is not for this character, or it is over."))
        request_data, trait = adapter.pool(character, {**data, "helper": helper is not None})
        request = system.parse_request(request_data)
        if sealed:
            request = system.contest_request(request)
        # A sealed roll draws from the session's seed: the contest reveals its dice long before
        # the session's end reveals the seed (and the end calls off any contest still open).
        return _roll_written(
            system=system,
            request=request,
            campaign=campaign,
            session=session,
            roller=roller,
            rng=rng,
            faces=faces,
            client=client,
            hidden=blind,
            character=character,
            character_name=character.name,
            helper=helper,
            helper_name=helper.name if helper else "",
            intent=intent,
            trait=trait[:80],
            visibility=Visibility.SEALED if sealed else Visibility.BLIND if blind else Visibility.PUBLIC,
            contested=sealed or flow,
            call=call,
            target=target,
            key=key,
        )


def npc_roll_create(
    *,
    campaign: Campaign,
    gm: User,
    name: str,
    request: Any,
    secret: bool,
    target: Character | None,
    intent: str,
    rng: Rng,
    faces: list[int] | None = None,
    sealed: bool = False,
    client: str | None = None,
    key: str | None = None,
) -> Roll:
    """The GM rolls for someone without a sheet: openly, or in secret (only the GM ever sees
    its dice). ``request`` is already validated by the system. A roll made against a
    character lets that character's player answer it (Luck against it, in stars).
    ``faces``: dice the GM rolled by hand, at a table that uses real dice; the GM's rolls may
    always be digital, secret ones included."""
    system = registry.engine(campaign.system)
    if faces is not None and campaign.dice == DiceMode.DIGITAL:
        raise RulesError(_(DIGITAL_TABLE))
    with transaction.atomic():
        session = campaign.open_session()
        if session is None:
            raise RulesError(_("Start a play session before rolling."))
        if target is not None and target.campaign_id != campaign.pk:
            raise RulesError(_("That character is not at this table."))
        return _roll_written(
            system=system,
            request=request,
            campaign=campaign,
            session=session,
            roller=gm,
            rng=rng,
            faces=faces,
            client=client,
            hidden=secret,
            character=None,
            character_name=name.strip()[:60] or "GM",
            intent=intent,
            visibility=Visibility.SEALED if sealed else Visibility.SECRET if secret else Visibility.PUBLIC,
            contested=sealed,
            target=target,
            npc=True,
            key=key,
        )


def _roll_written(
    *,
    system: DiceSystem,
    request: Any,
    campaign: Campaign,
    session: PlaySession,
    roller: User,
    rng: Rng,
    faces: list[int] | None,
    client: str | None,
    hidden: bool,
    intent: str,
    target: Character | None,
    key: str | None = None,
    **who: Any,
) -> Roll:
    """The part of a roll that a player's and the GM's share, once the table has allowed it:
    the dice drawn for the entry's number (or entered by hand), the roll and its entry
    written, and the statistics' sums moved on. ``hidden``: a blind or secret roll, whose
    dice come from a seed of its own until it is revealed. ``who``: the ``Roll`` fields that
    say who rolled, for whom, and who may see it. Call inside the transaction that allowed it."""
    seed, following = _hidden_seed(session, rng, hidden=hidden, by_hand=faces is not None)
    place = reserve(campaign.pk)  # the dice need the entry's number: the campaign, last
    dice = _entry_dice(rng, session.seed, seed, place.seq, client)
    state = _rolled(lambda source: system.roll(request, source), faces, dice.rng)
    outcome = system.evaluate(state)
    roll = _NEW_ROLL.create(
        campaign=campaign,
        session=session,
        mystery=campaign.mystery,
        roller=roller,
        system=system.slug,
        intent=intent.strip()[:200],
        target=target,
        target_name=target.name if target is not None else "",
        outcome=outcome.tone,
        by_hand=faces is not None,
        **who,
        **record.roll_figures(system, request, state, outcome),
        seed=seed,
        seed_hash=_commitment(seed),
    )
    append_entry(
        campaign_id=campaign.pk,
        kind=LogEntry.Kind.ROLL,
        action="roll",
        actor=roller,
        roll=roll,
        state=state,
        dice=_roll_record(dice, seed, following),
        place=place,
        key=key,
    )
    stats_tally.new_roll(roll)
    return roll


def payer_of(roll: Roll, action: str) -> Character | None:
    """Whose resources a follow-up spends, and so whose player may ask for it: the roll's
    character, or for an answer to a roll made against someone, that someone. None for a GM
    roll without a character (only the GM acts on it, and it costs nothing)."""
    if action in registry.engine(roll.system).target_actions:
        if roll.target is None:
            raise RulesError(_("This roll was not made against anyone."))
        return roll.target
    return roll.character


def follow_up_apply(
    *,
    roll: Roll,
    actor: User,
    action: str,
    params: Mapping[str, Any],
    rng: Rng,
    by_gm: bool = False,
    unseen: bool = False,
    faces: list[int] | None = None,
    client: str | None = None,
    key: str | None = None,
) -> LogEntry:
    """Apply one follow-up to a roll and spend what it costs, under the roll's row lock and the
    paying character's; raises RulesError (and writes nothing) when the rules refuse.
    ``by_gm``: the actor is the campaign's GM (GM-only follow-ups, such as approving a
    miracle). ``unseen``: the actor is the roller of a blind roll, who does not see its dice:
    only the follow-ups the engine allows unseen (``DiceSystem.blind_follow_ups``).
    ``faces``: the dice rerolled by hand, for a roll made by hand (and only for one): exactly
    as many as the follow-up rerolls."""
    if faces is not None and not roll.by_hand:
        raise RulesError(_("The app rolled this roll, so it rolls its follow-ups too: enter no dice."))
    system = registry.engine(roll.system)
    adapter = registry.table(system.slug)
    payer = payer_of(roll, action)
    if payer is None and not roll.npc:
        raise RulesError(_("This roll's character is gone; it can no longer be followed up."))
    if payer is None and not by_gm:
        raise RulesError(_("Only the GM acts on a roll without a character."))
    with transaction.atomic():
        # The locks come first: two taps on one roll queue here, and the second reads the state
        # the first wrote. The roll's own lock, because an NPC roll has no sheet to lock; always
        # the roll before the character, so two follow-ups never wait on each other in a circle.
        # A target's answer (stars Luck against a roll) takes the same roll lock first, so the
        # roller's Luck and the target's, tapped at the same moment, apply one after the other.
        # A contest's side locks its contest before the roll (the contest services' order), so
        # the GM's settle and this follow-up never both read the contest as it was.
        if may_be_contested(roll):
            lock_contest_of(roll)
        locked = _LOCKED_ROLL.get(pk=roll.pk)
        if locked.voided:
            raise RulesError(_("The GM voided this roll: it takes no more follow-ups."))
        if locked.visibility == Visibility.SEALED and not locked.revealed:
            raise RulesError(_("This roll is sealed until every side of the contest has rolled."))
        _refuse_when_final(roll, adapter, action)
        character = _locked(payer) if payer is not None else None
        campaign = character.campaign if character is not None else Campaign.objects.get(pk=roll.campaign_id)
        state = roll.current_state()
        resources: Mapping[str, Any] = {}
        if character is not None:
            roll.known_latest = roll.is_latest()  # read once: the answer's card asks again
            resources = adapter.roll_resources(locked, character, latest=roll.known_latest)
        if unseen:
            offered = {follow_up.action: follow_up for follow_up in system.blind_follow_ups(state, resources)}
            if action not in offered:
                raise RulesError(_("Only the GM sees this blind roll's dice, so that is the GM's to do."))
        else:
            offered = {follow_up.action: follow_up for follow_up in system.follow_ups(state, resources)}
        follow_up = offered.get(action)
        if follow_up is not None and follow_up.gm_only and not by_gm:
            raise RulesError(_("Only the GM can do that (%(what)s).") % {"what": follow_up.label.lower()})
        label = follow_up.label if follow_up is not None else action
        if follow_up is not None and follow_up.spends:
            _refuse_when_stale(locked, campaign, label, adapter.story_name)

        def step(source: Rng) -> Any:
            return system.apply(state, action, params, resources, source)

        place = reserve(roll.campaign_id)  # the dice need the entry's number: the campaign, last
        dice = _follow_up_dice(rng, locked, place.seq, client)
        applied = _rerolled_by_hand(step, faces) if locked.by_hand else step(dice.rng)
        if applied.costs:
            # Whatever the engine offered, nothing is paid from a sheet for an old roll.
            _refuse_when_stale(locked, campaign, label, adapter.story_name)
        if character is not None:
            changed = adapter.spend(character, applied.costs)
            if changed:
                _SAVE_CHARACTER.save(character, changed)
        elif applied.costs:
            raise RulesError(_("Nobody's sheet can pay for that on this roll."))
        # The history filters on the outcome, and the statistics add up the faces: kept on the
        # row with the entry they follow from, in one UPDATE of the row locked above; their
        # tallies with them.
        tally = stats_tally.Change(roll.campaign_id, [roll.pk])
        after = system.evaluate(applied.state)
        use, rolled = record.follow_up_figures(
            system, system.evaluate(state), applied.state, after, applied.costs
        )
        changed = record.add_faces(locked, rolled)
        if after.tone != locked.outcome:
            locked.outcome = after.tone
            changed.append("outcome")
        if changed:
            _SAVE_ROLL.save(locked, changed)
        roll.outcome = after.tone
        entry = append_entry(
            campaign_id=roll.campaign_id,
            kind=LogEntry.Kind.FOLLOW_UP,
            action=action,
            actor=actor,
            roll=roll,
            state=applied.state,
            dice=dice.record(),
            place=place,
            key=key,
        )
        _NEW_USE.create(
            roll=roll, seq=entry.seq, payer=character, payer_name=character.name if character else "", **use
        )
        tally.record()
        # What the answer's card reads, handed back on the caller's roll rather than read
        # again: the sheet as this follow-up left it (its buttons and the header show what is
        # left) and the campaign with its open session known (whether a cost may go on it).
        roll.campaign = campaign
        if character is not None:
            setattr(roll, "target" if action in system.target_actions else "character", character)
        return entry


DIGITAL_TABLE = gettext_noop(
    "This table rolls digital dice: the app rolls them, so there are no faces to enter."
)


def player_dice(campaign: Campaign, faces: list[int] | None, *, blind: bool) -> None:
    """Whether a player's roll may (or must) come with faces rolled by hand, by the campaign's
    dice mode; raises RulesError naming why not. A blind roll is always rolled by the app:
    the player would see dice only the GM may see."""
    if faces is not None:
        if blind:
            raise RulesError(_("A blind roll is rolled by the app: nobody but the GM may see its dice."))
        if campaign.dice == DiceMode.DIGITAL:
            raise RulesError(_(DIGITAL_TABLE))
    elif campaign.dice == DiceMode.PHYSICAL and not blind:
        raise RulesError(_("This table rolls real dice: enter the faces you rolled."))


def _entry_dice(rng: Rng, session_seed: str, roll_seed: str, seq: int, client: str | None) -> EntryDice:
    """A new roll's dice: from its own seed when it has one (secret, blind), else its
    session's."""
    if roll_seed:
        return EntryDice(rng, seed=roll_seed, source=ROLL_SEED, seq=seq, client=client)
    return EntryDice(rng, seed=session_seed, source=SESSION_SEED, seq=seq, client=client)


def _commitment(seed: str) -> str:
    return fairdice.commitment(bytes.fromhex(seed)) if seed else ""


def _hidden_seed(session: PlaySession, rng: Rng, *, hidden: bool, by_hand: bool) -> tuple[str, str]:
    """A secret or blind roll's own seed, and the hash of the one the next such roll will take
    (or two empty strings). The seed was drawn, and its hash written in the log, before this
    roll's random value arrived (at the session's start, or with the hidden roll before it),
    so the server cannot pick it to suit that value. Locks the session's row: after the
    characters, before the campaign."""
    if not wants_own_seed(rng, hidden=hidden, by_hand=by_hand):
        return "", ""
    locked = PlaySession.objects.select_for_update(no_key=True).only("hidden_seed").get(pk=session.pk)
    if not locked.hidden_seed:
        return "", ""  # a session started before hidden rolls had seeds: none to take
    following = fairdice.new_seed()
    PlaySession.objects.filter(pk=session.pk).update(hidden_seed=following.hex())
    return locked.hidden_seed, fairdice.commitment(following)


def _roll_record(dice: EntryDice, roll_seed: str, following: str) -> dict[str, Any] | None:
    """A hidden roll's entry names the hash of its own seed, and announces the next one's."""
    if roll_seed:
        return dice.record(commit=_commitment(roll_seed), next_hidden=following)
    return dice.record()


def _follow_up_dice(rng: Rng, roll: Roll, seq: int, client: str | None) -> EntryDice:
    """A follow-up's dice come from a seed nobody else knows yet: the roll's own while it is
    hidden, else its session's while the session runs. After that (a seed already public), a
    player who chose the value mixed in could choose the dice: the app's dice come from the
    operating system, and the entry records no seed. (No rule lets a follow-up draw dice on a
    roll of an ended session today: every one that does costs something from a sheet.)
    Read here, under the campaign's lock (``reserve``), not from an earlier read: a session
    that ended meanwhile has revealed its seed."""
    if not isinstance(rng, AppDice) or roll.by_hand:
        return EntryDice(rng, seed="", source=SESSION_SEED, seq=seq, client=client)
    if roll.seed and not roll.revealed:
        return EntryDice(rng, seed=roll.seed, source=ROLL_SEED, seq=seq, client=client)
    session = _RUNNING_SESSION_SEED.get_or_none(pk=roll.session_id)
    return EntryDice(rng, seed=session.seed if session else "", source=SESSION_SEED, seq=seq, client=client)


def _rolled[T](step: Callable[[Any], T], faces: list[int] | None, rng: Rng) -> T:
    """A step rolled by the app, or on exactly the faces entered for it."""
    return step(rng) if faces is None else entered_step(step, faces)


def _rerolled_by_hand[T](step: Callable[[Any], T], faces: list[int] | None) -> T:
    """A follow-up of a roll made by hand: the dice it rerolls are entered too, and only
    those (a step that rerolls nothing, like a sets bid, takes none)."""
    if faces is None:
        needed = dice_needed(step)
        if needed:
            raise RulesError(_("Enter the %(dice)s you rerolled.") % {"dice": dice_count(needed)})
        faces = []
    return entered_step(step, faces)


def _refuse_when_stale(roll: Roll, campaign: Campaign, label: str, story_name: str) -> None:
    """Luck, Pride, a push, drama dice... are paid from the sheet as it is now: they go only
    on a roll of the open play session and of the Mystery/Adventure in progress (SIX-5,
    SIX-8, SIX-10, STR-12, DBL-10). Raises RulesError naming why."""
    # Read afresh each time (the check after the engine runs under the campaign's lock: a
    # session ended meanwhile refuses the cost) and kept for the answer's card, whose buttons
    # ask the same.
    campaign.known_open_session = None
    campaign.known_open_session = campaign.open_session()
    # Translators: a follow-up's name quoted in a sentence ("“Use Pride” needs a play session...").
    reason = roll.stale_for(campaign, _("“%(label)s”") % {"label": label}, story_name)
    if reason:
        raise RulesError(reason)


def call_create(
    *,
    campaign: Campaign,
    gm: User,
    characters: list[Character],
    data: Mapping[str, Any],
    label: str,
    per_character: Mapping[int, tuple[Mapping[str, Any], str]] | None = None,
    intent: str = "",
) -> RollCall:
    """The GM asks characters for a roll: each player's phone shows it with the roll form's
    values filled in (``data``, or each character's own values and label in ``per_character``
    by character id), one tap to roll; the session page shows who has answered."""
    if not characters:
        raise RulesError(_("Choose at least one character to ask."))
    if any(character.campaign_id != campaign.pk for character in characters):
        raise RulesError(_("Those characters are not all at this table."))
    # The call keeps the form's values as sent, to fill the phones' forms: a NUL character in
    # one passes the forms' checks of other fields but no PostgreSQL text column takes it.
    if "\x00" in intent or _holds_nul(data) or _holds_nul(per_character or {}):
        raise RulesError(_("A field holds a character that cannot be kept (a NUL): remove it."))
    with transaction.atomic():
        session = campaign.open_session()
        if session is None:
            raise RulesError(_("Start a play session before calling for rolls."))
        own = {
            str(character_id): {"data": dict(values), "label": each_label[:120]}
            for character_id, (values, each_label) in (per_character or {}).items()
        }
        call = RollCall.objects.create(
            campaign=campaign,
            session=session,
            label=label[:120],
            data=dict(data),
            per_character=own,
            intent=intent.strip()[:200],
        )
        call.characters.set(characters)
        if own:
            asked = _(", ").join(
                _("%(name)s (%(roll)s)") % {"name": c.name, "roll": call.label_for(c.pk)} for c in characters
            )
            words = {"asked": asked, "intent": call.intent}
            if call.intent:
                text = _("The GM asks %(asked)s for a roll: %(intent)s.") % words
            else:
                text = _("The GM asks %(asked)s for a roll.") % words
        else:
            words = {"names": _(", ").join(character.name for character in characters), "label": label}
            words["intent"] = call.intent
            if call.intent:
                text = _("The GM asks %(names)s to roll %(label)s: %(intent)s.") % words
            else:
                text = _("The GM asks %(names)s to roll %(label)s.") % words
        append_event(campaign_id=campaign.pk, event=TableEvent.CALL, actor=gm, text=text[:300])
        return call


def _holds_nul(value: Any) -> bool:
    if isinstance(value, str):
        return "\x00" in value
    if isinstance(value, Mapping):
        return any(_holds_nul(key) or _holds_nul(each) for key, each in value.items())
    if isinstance(value, list | tuple):
        return any(_holds_nul(each) for each in value)
    return False


def call_close(*, call: RollCall, gm: User) -> None:
    with transaction.atomic():
        call.closed = True
        call.save(update_fields=["closed"])
        append_event(
            campaign_id=call.campaign_id,
            event=TableEvent.CALL_CLOSED,
            actor=gm,
            text=_("The call to roll %(label)s is over.") % {"label": call.label},
        )
