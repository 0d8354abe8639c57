"""A demo campaign, played through the table's own services: for a newcomer who wants to see a
campaign with a history, and for the bench (``bench/history.py``), which needs a big one.

Everything goes through the functions a request would call (``rolls.campaigns.services``,
``rolls.play.services``, ``rolls.history.marks``), with the forms a phone would post
(``rolls.play.formdata``), so every row, log entry and hash is the one real play writes. One
seeded ``random.Random`` makes every choice and rolls every die: the same seed plays the same
campaign (ids and times aside).

A play session, as it goes here: the GM starts it (now and then with a new Mystery or
Adventure first, and clears the Conditions of a kid who needs it), the players roll with an
intent, follow up when the rules let them (push, Luck, Pride, drama dice, a bid...), the GM
rolls for NPCs (some in secret, some against a character), calls for a roll, asks for a
blind one, reveals a hidden roll, voids a roll made by mistake, sends everyone to a long rest
where the system has one, and ends the session.
"""

from __future__ import annotations

import random
import secrets
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from django import forms
from django.contrib.auth import get_user_model
from django.contrib.auth.models import User
from django.utils import translation
from django.utils.translation import gettext as _

from rolls import registry
from rolls.campaigns import services as campaigns
from rolls.history import marks
from rolls.models import Roll, RollCall, Visibility
from rolls.play import services
from rolls.play.formdata import form_baseline, npc_baseline, posted
from rolls.play.npc import NpcRollForm
from rolls.systems import RulesError
from rolls.tables.waits import Waits
from tabletop.models import Campaign, Character

DEFAULT_SYSTEM = "sixes"
NAMES = ("Ana", "Bo", "Cleo", "Dag", "Edda", "Finn", "Greta", "Hugo", "Iris", "Jon", "Kai", "Liv")
NPCS = ("The caretaker", "A guard", "The stranger", "Old Mrs Berg", "The machine", "A wolf")
INTENTS = (
    "Climb the water tower",
    "Sneak past the guard",
    "Read the strange symbols",
    "Talk the caretaker into opening the gate",
    "Fix the radio before dark",
    "Run from the thing in the woods",
    "Spot who is lying",
    "Hold the door shut",
    "Patch up the wound",
    "Find the hidden switch",
    "Calm the frightened horse",
    "Jump the gap",
)
NPC_INTENTS = ("Notices the kids", "Swings at", "Hides the evidence", "Chases them", "Lies about it")

# How a session is made, in chances per roll (the rest are players' own rolls).
NPC_SHARE = 0.12
SECRET_SHARE = 0.35  # of the NPC rolls
FOLLOW_UP_ON_FAILURE = 0.6
FOLLOW_UP_ON_SUCCESS = 0.08
NEW_STORY_EVERY = 4  # sessions: the third, the seventh...


@dataclass(frozen=True)
class Plan:
    system: str = DEFAULT_SYSTEM
    rolls: int = 60
    sessions: int = 3
    characters: int = 3
    seed: int = 1
    name: str = ""
    # The table's language: the log's texts are written in it, as at a table.
    language: str = "en"
    # Usable passwords to print (hashing one takes a while: the bench does without).
    passwords: bool = True
    # Each session's share of the rolls as it is played, for a progress line.
    progress: Callable[[int, int], None] | None = None


@dataclass
class Person:
    user: User
    password: str  # "" when the account has no usable password


@dataclass
class Played:
    """What the demo made and did, counted as it went."""

    campaign: Campaign
    gm: Person
    players: list[Person]
    characters: list[Character]
    rolls: int = 0
    follow_ups: int = 0
    npc_rolls: int = 0
    secret_rolls: int = 0
    blind_rolls: int = 0
    calls: int = 0
    voids: int = 0
    reveals: int = 0
    stories: int = 0
    long_rests: int = 0
    sessions: int = 0
    refused: dict[str, int] = field(default_factory=dict)  # what the rules refused, by why


def create(plan: Plan) -> Played:
    """A new campaign of ``plan.system`` with a GM, a player and a character each, and
    ``plan.sessions`` play sessions holding ``plan.rolls`` rolls in all."""
    registry.get(plan.system)  # an unknown system fails here, in its own words
    if plan.sessions < 1 or plan.characters < 1 or plan.rolls < 0:
        raise RulesError(_("A demo needs at least one session and one character, and no fewer than 0 rolls."))
    rng = random.Random(plan.seed)  # noqa: S311 -- a demo: repeatable on purpose, never the table's dice
    with translation.override(plan.language):
        played = _cast(plan, rng)
        per_session, extra = divmod(plan.rolls, plan.sessions)
        for number in range(plan.sessions):
            _Session(played, rng, number).play(per_session + (1 if number < extra else 0))
            if plan.progress is not None:
                plan.progress(number + 1, played.rolls)
    played.campaign.refresh_from_db()
    return played


# -- people, campaign, characters -----------------------------------------------------------------


def _cast(plan: Plan, rng: random.Random) -> Played:
    prefix = _free_prefix()
    gm = _person(f"{prefix}-gm", "The GM", plan.passwords)
    name = plan.name or f"Demo: {registry.engine(plan.system).name} ({prefix})"
    campaign = campaigns.campaign_create(
        gm=gm.user, name=name, system=plan.system, display_name="GM", language=plan.language
    )
    players: list[Person] = []
    characters: list[Character] = []
    for index in range(plan.characters):
        hero = NAMES[index % len(NAMES)] + (f" {index // len(NAMES) + 1}" if index >= len(NAMES) else "")
        player = _person(f"{prefix}-player{index + 1}", f"{hero}'s player", plan.passwords)
        campaigns.member_join(campaign=campaign, user=player.user, display_name=f"{hero}'s player")
        sheet = plausible_sheet(plan.system, hero, rng)
        characters.append(
            campaigns.character_create(campaign=campaign, owner=player.user, name=hero, sheet=sheet)
        )
        players.append(player)
    return Played(campaign, gm, players, characters)


def _free_prefix() -> str:
    """``demo``, ``demo2``...: the first whose GM account does not exist yet."""
    users = get_user_model().objects
    number = 1
    while users.filter(username=f"demo{number if number > 1 else ''}-gm").exists():
        number += 1
    return f"demo{number if number > 1 else ''}"


def _person(username: str, first_name: str, usable: bool) -> Person:
    user = get_user_model()(username=username, first_name=first_name[:150])
    password = secrets.token_urlsafe(9) if usable else ""
    if usable:
        user.set_password(password)
    else:
        user.set_unusable_password()
    user.save()
    return Person(user, password)


def plausible_sheet(system: str, name: str, rng: random.Random) -> dict[str, Any]:
    """A sheet of ``system`` as its form makes it: the form's own values, with its numbers
    drawn within the field's bounds, kept when the form accepts them (it checks the rules'
    budgets), else the form's defaults."""
    form_class = registry.table(system).sheet_form
    baseline = {**form_baseline(form_class()), "name": name}
    numbers = {
        key: each
        for key, each in form_class().fields.items()
        if isinstance(each, forms.IntegerField) and key in baseline
    }
    for _attempt in range(30):
        data = dict(baseline)
        for key, each in numbers.items():
            low = _bound(each, "min_value", int(baseline[key]))
            high = _bound(each, "max_value", int(baseline[key]))
            data[key] = str(rng.randint(low, max(low, min(high, low + 4))))
        form = form_class(posted(data))
        if form.is_valid():
            return form.to_sheet()
    form = form_class(posted(baseline))
    if not form.is_valid():
        raise RulesError(f"The {system} sheet form refuses its own defaults: {form.errors}")
    return form.to_sheet()


def _bound(each: forms.Field, name: str, default: int) -> int:
    value = getattr(each, name, None)
    return int(value) if value is not None else default


# -- a play session -------------------------------------------------------------------------------


class _Session:
    def __init__(self, played: Played, rng: random.Random, number: int) -> None:
        self.played = played
        self.rng = rng
        self.number = number
        self.campaign = played.campaign
        self.gm = played.gm.user
        self.adapter = registry.table(self.campaign.system)
        self.engine = registry.engine(self.campaign.system)
        self.owners = {c.pk: p.user for c, p in zip(played.characters, played.players, strict=True)}
        self.npc_form = npc_baseline(self.campaign)  # the GM's quick roll as its form starts
        self.hidden: list[Roll] = []  # secret and blind rolls the GM may reveal later
        self.made: list[Roll] = []

    def play(self, rolls: int) -> None:
        if self.number % NEW_STORY_EVERY == 2:
            campaigns.mystery_start(campaign=self.campaign, actor=self.gm)
            self.played.stories += 1
        self._heal()
        campaigns.session_start(campaign=self.campaign, actor=self.gm)
        self.played.sessions += 1
        left = rolls
        # The moments of the evening that are not a plain roll, each at a random point of it.
        moments = {
            "call": self.rng.randrange(max(1, rolls)),
            "blind": self.rng.randrange(max(1, rolls)),
            "rest": self.rng.randrange(max(1, rolls)),
        }
        done = 0
        while left > 0:
            if done == moments["call"] and left >= 2:
                left -= self._call(min(left, 2))
            elif done == moments["blind"]:
                left -= self._blind()
            elif self.rng.random() < NPC_SHARE:
                left -= self._npc()
            else:
                left -= self._player_roll()
            done += 1
            if done == moments["rest"] and self.adapter.rest is not None and self.number % 2 == 1:
                campaigns.long_rest(campaign=self.campaign, actor=self.gm)
                self.played.long_rests += 1
        self._marks()
        campaigns.session_end(campaign=self.campaign, actor=self.gm)

    # -- the rolls --------------------------------------------------------------------------------

    def _ready(self) -> list[Character]:
        """The characters who may roll now, fresh from the database."""
        ready = []
        for character in Character.objects.filter(campaign=self.campaign).select_related("campaign"):
            try:
                self.adapter.check_can_roll(character)
            except RulesError:
                continue
            ready.append(character)
        return ready

    def _player_roll(self, *, blind: bool = False, call: RollCall | None = None) -> int:
        """A player rolls for their character (and follows up): 1 roll, or 0 when the rules
        refused it (a GM's NPC roll stands in, so the count holds)."""
        ready = self._ready()
        if len(ready) * 2 < len(self.played.characters):
            # Most of the kids are Broken: the scene ends and the GM clears their Conditions.
            self._heal()
            ready = self._ready()
        if call is not None:
            ready = [c for c in ready if call.characters.filter(pk=c.pk).exists()]
        if not ready:
            return self._npc()
        character = self.rng.choice(ready)
        data = call.data_for(character.pk) if call is not None else self._roll_form_data(character)
        form = self.adapter.roll_form(posted(data), character=character)
        if not form.is_valid():
            form = self.adapter.roll_form(posted(self._baseline(character)), character=character)
            if not form.is_valid():
                return self._npc()
        helper = None
        others = [c for c in ready if c.pk != character.pk]
        # Only a system whose roll form names a helper takes one (sixes); the others count
        # their helpers on the form, and a named one would print sixes' rule on their cards.
        if self.adapter.names_helper() and others and self.rng.random() < 0.1:
            helper = self.rng.choice(others)
        try:
            roll = services.roll_create(
                character=character,
                roller=self.owners[character.pk],
                data=form.engine_data(),
                helper=helper,
                intent=self.rng.choice(INTENTS),
                rng=self.rng,
                blind=blind,
                call=call,
            )
        except RulesError as error:
            self._refused(error)
            return self._npc()
        self._made(roll)
        self._settle(roll, roller=self.owners[character.pk], unseen=blind)
        if not blind:
            self._follow_ups(roll)
        return 1

    def _baseline(self, character: Character) -> dict[str, Any]:
        data = form_baseline(self.adapter.roll_form(character=character, initial=self.adapter.roll_initial))
        data.pop("helper", None)
        return data

    def _roll_form_data(self, character: Character) -> dict[str, Any]:
        """The roll form as the player fills it: each choice among its own choices (which
        trait, what difficulty...), a number now and then; the form and the engine judge."""
        unbound = self.adapter.roll_form(character=character, initial=self.adapter.roll_initial)
        data = form_baseline(unbound)
        data.pop("helper", None)  # the baseline's first choice: who helps is chosen apart
        for name, each in unbound.fields.items():
            if isinstance(each, forms.MultipleChoiceField | forms.BooleanField) or name == "helper":
                continue
            if isinstance(each, forms.ChoiceField):
                choices = [str(value) for value, _ in list(each.choices) if value not in (None, "")]  # type: ignore[arg-type]
                if choices and (name in ("trait", "stat", "skill") or self.rng.random() < 0.3):
                    data[name] = self.rng.choice(choices)
        return data

    def _npc(self, *, secret: bool | None = None) -> int:
        """The GM rolls for someone without a sheet: openly, in secret, or against a kid."""
        secret = self.rng.random() < SECRET_SHARE if secret is None else secret
        data = dict(self.npc_form)
        data.update(name=self.rng.choice(NPCS), intent=self.rng.choice(NPC_INTENTS))
        form = NpcRollForm(posted(data), campaign=self.campaign)
        form.is_valid()
        characters = self.played.characters
        target = self.rng.choice(characters) if characters and self.rng.random() < 0.3 else None
        roll = services.npc_roll_create(
            campaign=self.campaign,
            gm=self.gm,
            name=form.cleaned_data["name"],
            request=form.engine_request(),
            secret=secret,
            target=target,
            intent=form.cleaned_data["intent"],
            rng=self.rng,
        )
        self._made(roll)
        self._settle(roll, roller=self.gm, unseen=False)  # the GM sees a secret roll's dice
        self.played.npc_rolls += 1
        if secret:
            self.played.secret_rolls += 1
            self.hidden.append(roll)
        else:
            self._follow_ups(roll)
        return 1

    def _blind(self) -> int:
        """The GM asks a player for a blind roll: only the GM sees how it went."""
        before = self.played.rolls
        made = self._player_roll(blind=True)
        if self.played.rolls > before and self.made and self.made[-1].visibility == Visibility.BLIND:
            self.played.blind_rolls += 1
            self.hidden.append(self.made[-1])
        return made

    def _call(self, count: int) -> int:
        """The GM asks ``count`` characters for the same roll; each answers it; it closes."""
        ready = self._ready()
        if len(ready) < 1:
            return 0
        asked = self.rng.sample(ready, min(count, len(ready)))
        data = self._roll_form_data(asked[0])
        label = ""
        try:
            for each in asked:
                form = self.adapter.roll_form(posted(data), character=each)
                if not form.is_valid():
                    return 0
                request_data, each_label = self.adapter.pool(each, {**form.engine_data(), "helper": False})
                self.engine.parse_request(request_data)
                label = label or each_label
        except RulesError:
            return 0
        call = services.call_create(
            campaign=self.campaign,
            gm=self.gm,
            characters=asked,
            data=data,
            label=label,
            intent=self.rng.choice(INTENTS),
        )
        self.played.calls += 1
        made = sum(self._player_roll(call=call) for _ in asked)
        services.call_close(call=call, gm=self.gm)
        return made

    def _made(self, roll: Roll) -> None:
        self.made.append(roll)
        self.played.rolls += 1

    # -- follow-ups -------------------------------------------------------------------------------

    def _settle(self, roll: Roll, *, roller: User, unseen: bool) -> None:
        """What a roll waits for before it has a result (a sets bid), taken at once as a table
        does, secret and blind rolls too: the GM for the GM's rolls, else the roller (unseen on
        a blind roll)."""
        step = self.adapter.waiting_step(roll.current_state(), unseen=unseen)
        if step is None:
            return
        action, params = step
        try:
            services.follow_up_apply(
                roll=roll,
                actor=roller,
                action=action,
                params=params,
                rng=self.rng,
                by_gm=roll.npc,
                unseen=unseen,
            )
        except RulesError as error:
            self._refused(error)
            return
        self.played.follow_ups += 1

    def _follow_ups(self, roll: Roll) -> None:
        """Up to three follow-ups the rules offer, more likely after a failure."""
        for _attempt in range(3):
            roll.refresh_from_db(fields=["outcome"])
            state = roll.current_state()
            resources: dict[str, Any] = {}
            if roll.character_id is not None:
                character = Character.objects.select_related("campaign").get(pk=roll.character_id)
                resources = self.adapter.resources(character, latest=roll.is_latest())
            offered = self.engine.follow_ups(state, resources)
            # What waits on the GM (a miracle asked for: a system whose GM decides on asks) is
            # answered at once; the GM's optional calls (striking a friend's help) the demo's GM
            # never makes; the rest is a player's choice, likelier after a failure.
            gm_calls = [each for each in offered if each.gm_only]
            owed = gm_calls if Waits.DECISIONS in self.adapter.gm_waits else []
            offered = [each for each in offered if not each.gm_only] + owed
            chance = FOLLOW_UP_ON_SUCCESS if roll.outcome in ("success", "amazing") else FOLLOW_UP_ON_FAILURE
            if not offered or (not owed and self.rng.random() >= chance):
                return
            follow_up = self.rng.choice(owed or offered)
            actor, by_gm = self._actor(roll, follow_up.action, follow_up.gm_only)
            if actor is None:
                return
            for attempt in range(3):
                params = {p.name: self._param(p, default=attempt == 2) for p in follow_up.params}
                try:
                    services.follow_up_apply(
                        roll=roll,
                        actor=actor,
                        action=follow_up.action,
                        params=params,
                        rng=self.rng,
                        by_gm=by_gm,
                    )
                except RulesError as error:
                    self._refused(error)
                    continue
                self.played.follow_ups += 1
                break
            else:
                return

    def _actor(self, roll: Roll, action: str, gm_only: bool) -> tuple[User | None, bool]:
        """Who asks for a follow-up: the GM for what only the GM does and for NPC rolls, the
        target's player for an answer to a roll made against them, else the roller."""
        if gm_only:
            return self.gm, True
        try:
            payer = services.payer_of(roll, action)
        except RulesError:
            return None, False
        if payer is None:
            return self.gm, True
        owner = self.owners.get(payer.pk)
        return owner, False

    def _param(self, param: Any, *, default: bool) -> Any:
        """A value for one of a follow-up's choices, as the player picks it (or the form's
        first value, when the picks were refused)."""
        if param.text:
            return self.rng.choice(("I try again, harder", "Just one more go", "For my friends"))
        if param.multiple:
            if not param.choices:
                return []
            if default:
                return [param.choices[0]]
            return self.rng.sample(list(param.choices), self.rng.randint(1, len(param.choices)))
        if param.choices:
            return param.choices[0] if default else self.rng.choice(param.choices)
        return (
            param.minimum if default else self.rng.randint(param.minimum, max(param.minimum, param.maximum))
        )

    # -- the GM's marks and clocks ------------------------------------------------------------------

    def _marks(self) -> None:
        """Before the session ends: the GM reveals a hidden roll and voids one made by mistake."""
        if self.hidden and self.rng.random() < 0.6:
            marks.roll_reveal(roll=self.rng.choice(self.hidden), gm=self.gm)
            self.played.reveals += 1
        public = [r for r in self.made if r.visibility == Visibility.PUBLIC]
        if public and self.rng.random() < 0.5:
            marks.roll_void(roll=self.rng.choice(public), gm=self.gm)
            self.played.voids += 1

    def _heal(self) -> None:
        """Between sessions the GM clears the Conditions of a kid who has several (Broken
        among them), as the rules let a GM do with the sheet's form."""
        for character in Character.objects.filter(campaign=self.campaign).select_related("campaign"):
            conditions = character.sheet.get("conditions") or {}
            checked = [name for name, on in conditions.items() if on]
            if len(checked) >= 2 or "Broken" in checked:
                sheet = {**character.sheet, "conditions": {name: False for name in conditions}}
                campaigns.character_update(
                    character=character, actor=self.gm, name=character.name, sheet=sheet
                )

    def _refused(self, error: RulesError) -> None:
        reason = str(error)[:80]
        self.played.refused[reason] = self.played.refused.get(reason, 0) + 1
