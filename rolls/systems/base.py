"""The protocol every dice system implements, and the small helpers they share.

The rules engine knows nothing of HTTP or the database. A system turns a plain mapping into a
validated, immutable *request*; rolls it with an injected random source into a *state* (plain
JSON-able data: the request, then one *step* per roll or follow-up); evaluates a state into an
*outcome*; lists the follow-ups the rules allow right now; applies one, returning a new state
and the resources it costs; and computes exact odds by enumeration.

States are never edited: ``apply`` returns a new state with one more step, so "you cannot go
back to the earlier result" holds by construction, and the whole chain stays readable.

Resources (Luck points, Pride, Endurance...) live on the character sheet, outside the engine.
The caller passes what the character has now as a plain mapping (``resources``); the engine
decides what is allowed and reports what an action costs in ``Applied.costs``; the caller
spends it under a row lock.
"""

from __future__ import annotations

import argparse
import copy
import unicodedata
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from fractions import Fraction
from functools import cache
from typing import Any, ClassVar, Protocol

from .words import N_, Text, Texts, _, language, ngettext

State = dict[str, Any]
"""A roll's state: ``{"system": slug, "request": {...}, "steps": [{"action": ..., ...}, ...]}``."""


class Rng(Protocol):
    """The random source: ``random.SystemRandom()`` in the app, ``random.Random(seed)`` in tests."""

    def randint(self, a: int, b: int) -> int: ...


class RulesError(ValueError):
    """A request or follow-up that the rules do not allow. ``str(error)`` is shown to the player
    as it is, so it must be a whole sentence a player understands."""


# --------------------------------------------------------------------------------------------
# Values the engine hands to the table


@dataclass(frozen=True)
class Die:
    """One die as the card draws it."""

    face: int
    hit: bool = False  # counts toward success (a six in sixes, a Star in stars, part of a set...)
    new: bool = False  # rolled in this step (rerolled, drama die, ...)
    dropped: bool = False  # rolled but not kept (disadvantage, negative dice, a reroll's loser)
    label: str = ""  # tiny caption under the die when it needs one ("drama", "d3: 2")


@dataclass(frozen=True)
class StepView:
    """One link of the chain as the card shows it: "Rolled", "Pushed (checked Scared)", ..."""

    action: str
    title: str
    dice: tuple[Die, ...] = ()
    note: str = ""


@dataclass(frozen=True)
class Outcome:
    """What a state means now.

    ``success`` is None when there is nothing to meet (an opposed roll that waits for the other
    side, a bid not yet made). ``tone`` picks the card's colour: "success", "failure",
    "catastrophe", "amazing" or "neutral". ``key`` is the result in the command line's terms
    (the number of sixes, the largest group, the result value, the best bid, the Stars).
    """

    success: bool | None
    headline: str
    key: str
    tone: str = "neutral"
    details: tuple[str, ...] = ()
    margin: int = 0  # successes beyond those needed, Stars, degree... whatever buys effects


@dataclass(frozen=True)
class Param:
    """A choice a follow-up needs before it can be applied (the Condition a push checks...)."""

    name: str
    label: str
    choices: tuple[str, ...] = ()  # empty: a free integer in [minimum, maximum]
    minimum: int = 0
    maximum: int = 0
    multiple: bool = False  # several of ``choices`` at once (the dice a bid spends): a list
    # What each of ``choices`` says when it says more than its value ("2 dice: 35% -> 60%").
    labels: tuple[str, ...] = ()
    # A choice nobody is given by default: the picker starts on this empty prompt, and
    # ``apply`` refuses a request that still names none ("Choose a Condition").
    prompt: str = ""
    # A line of free text, ``maximum`` characters at most (what the kid does to push).
    text: bool = False


@dataclass(frozen=True)
class FollowUp:
    """A follow-up the rules allow right now, as a button on the card.

    ``chance_before``/``chance_after`` are the exact chances of success without and with it,
    when there is a difficulty to meet (None otherwise), so the button can say "42% -> 67%".
    """

    action: str
    label: str
    cost: str = ""
    params: tuple[Param, ...] = ()
    chance_before: Fraction | None = None
    chance_after: Fraction | None = None
    gm_only: bool = False  # only the GM may apply it (approve a miracle, ...)
    # Paid from a character's sheet (Luck, Pride, a Condition, Endurance): the table allows it
    # only on a roll of the play session and the Mystery (or Adventure) in progress.
    spends: bool = False
    # The choices of the first param the rules suggest, offered first in one tap (sets: the
    # bid that meets the Bar and keeps the most sets for criticals). None by default.
    suggested: tuple[str, ...] = ()


@dataclass(frozen=True)
class Applied:
    """The result of a follow-up: the new state and what it costs the character.

    ``costs`` uses the resource names of ``resources`` (``{"luck": 1}``, ``{"endurance": 5}``,
    ``{"condition": "Scared"}``, ``{"pride": 1}``); the table spends them under a row lock.
    """

    state: State
    costs: Mapping[str, Any] = field(default_factory=dict)


# --------------------------------------------------------------------------------------------
# The protocol


# What an ``Outcome.tone`` is called in every system, unless the system names it otherwise.
TONE_NAMES = {
    "success": N_("Success"),
    "failure": N_("Failure"),
    "neutral": N_("Nothing to meet"),
}


class DiceSystem(ABC):
    """One dice system. Subclasses are stateless; each module exposes one instance, ``system``."""

    slug: ClassVar[str]
    # Read in the active language (``words.Text``): a subclass sets ``Text(N_("..."))``.
    name: ClassVar[Text]
    summary: ClassVar[Text]  # one line, in our own words, for the campaign form
    result_name: ClassVar[str] = "result"  # what ``Outcome.key`` counts, for odds tables
    # Follow-ups made by the character a roll is made *against* (not by the roller), paid from
    # that character's resources: the table offers them to the target's player.
    target_actions: ClassVar[frozenset[str]] = frozenset()
    # Every follow-up action the system has, named as the history's filter offers it.
    follow_up_names: ClassVar[Texts] = Texts({})
    # What each ``Outcome.tone`` is called in this system's words, for the history's filter.
    tone_names: ClassVar[Texts] = Texts(TONE_NAMES)

    # -- requests -----------------------------------------------------------------------------
    @abstractmethod
    def parse_request(self, data: Mapping[str, Any]) -> Any:
        """Validate a plain mapping (form fields, JSON, CLI flags) into the system's frozen
        request dataclass. Raises RulesError with a clear message for anything impossible."""

    def request_dict(self, request: Any) -> dict[str, Any]:
        """The request as plain JSON-able data; ``parse_request`` of it gives it back."""
        return asdict(request)

    # -- rolling ------------------------------------------------------------------------------
    @abstractmethod
    def roll(self, request: Any, rng: Rng) -> State:
        """Roll a validated request: the first state, with one step."""

    def drawn(self, step: Mapping[str, Any]) -> list[int]:
        """The faces one step of a state drew, in the order it drew them (one
        ``rng.randint(1, 6)`` each): the check of the dice (``manage.py verify_dice``) compares
        them with the stream the revealed seed gives. Most steps keep exactly those as
        ``"dice"``; a system whose steps keep them otherwise (a reroll of some dice, two rolls
        of a test) says so here."""
        return [int(face) for face in step.get("dice", ())]

    @abstractmethod
    def evaluate(self, state: State) -> Outcome:
        """What the state means now (after every step in it)."""

    @abstractmethod
    def view(self, state: State) -> tuple[StepView, ...]:
        """Every step of the chain as the card draws it, first roll first."""

    # -- follow-ups ---------------------------------------------------------------------------
    @abstractmethod
    def follow_ups(self, state: State, resources: Mapping[str, Any]) -> list[FollowUp]:
        """The follow-ups the rules allow now, given what the character has (``resources``)."""

    def chance_after_step(self, before: State, after: State, follow_up: FollowUp) -> Fraction | None:
        """The exact chance of success that a follow-up taken as it was in ``after`` gives,
        from ``before``, when ``follow_up`` (as offered on ``before`` now) carries no single
        figure because its choices each have their own (doubles' drama dice: one per count).
        None by default, and when the choice taken is not one offered now."""
        return None

    def blind_follow_ups(self, state: State, resources: Mapping[str, Any]) -> list[FollowUp]:
        """The follow-ups a roller may ask for on their own blind roll, whose dice only the GM
        sees: those that need no look at the dice. None by default."""
        return []

    def may_await_gm(self, state: State) -> bool:
        """Whether ``follow_ups`` may offer a ``gm_only`` follow-up on this state, told without
        working them out (with their odds): the GM's waiting panel reads it for each recent
        roll. It may say yes where there is none; never no where there is one. Yes by default."""
        return True

    @abstractmethod
    def apply(
        self,
        state: State,
        action: str,
        params: Mapping[str, Any],
        resources: Mapping[str, Any],
        rng: Rng,
    ) -> Applied:
        """Apply one follow-up. Raises RulesError when the rules do not allow it now, or when
        ``params`` are missing or invalid. Never mutates ``state``."""

    # -- odds ---------------------------------------------------------------------------------
    @abstractmethod
    def outcomes(self, request: Any) -> dict[str, Fraction]:
        """The exact distribution of ``Outcome.key`` for a fresh roll of ``request``."""

    @abstractmethod
    def chance(self, request: Any) -> Fraction | None:
        """The exact chance of success of a fresh roll, or None when there is nothing to meet."""

    # -- statistics ---------------------------------------------------------------------------
    def pool_size(self, request: Any) -> int:
        """The number the statistics group rolls by: the dice the request rolls (before any
        follow-up). Negative in a system whose pools go below zero."""
        return int(request.dice)

    def result_order(self, keys: Sequence[str]) -> list[str]:
        """The result keys of ``outcomes`` from the worst result to the best, so a roll can be
        placed as a percentile of its distribution. Numbers by default (more is better); keys
        that are not all numbers stay in the order ``outcomes`` lists them."""
        try:
            return sorted(keys, key=int)
        except ValueError:
            return list(keys)

    def first_success(self, state: State, first: Outcome | None = None) -> bool | None:
        """Whether the first throw alone met what ``chance(request)`` measures (None when there
        is nothing to meet): the observed counterpart of the exact chance. ``first``: the
        first throw's outcome, when the caller has it already."""
        return (first or self.evaluate(first_throw(state))).success

    def step_costs(self, step: Mapping[str, Any]) -> Mapping[str, Any]:
        """What a follow-up step written in a state cost (``Applied.costs`` as ``apply`` gave
        it), read back from the step: the statistics of rolls made before they were kept."""
        return {}

    # -- contests ------------------------------------------------------------------------------
    def contest_request(self, request: Any) -> Any:
        """``request`` when it may be a side of a contest; raises RulesError naming why not.
        A system without contests at the table refuses every request."""
        raise RulesError(_("%(system)s has no contested rolls at this table.") % {"system": self.name})

    # How many sides a contest of this system has, at least and at most.
    contest_sides: ClassVar[tuple[int, int]] = (2, 2)

    def sheetless(self, request: Any) -> Any:
        """``request`` as the roll of someone the GM plays without a sheet, where the rules
        tell a side by who plays it (stars STR-9: ties go to the player, never to the GM's
        side): a contest's side without a sheet is rolled with this. Unchanged by default."""
        return request

    def contest_winner(self, states: Sequence[State], extras: Sequence[Mapping[str, Any]] = ()) -> int | None:
        """Which side of a contest wins as the sides' states stand now (the index in
        ``states``; where the rules favour a side in a tie, they name it by its role, read from
        the states' requests, never by its place), or
        None when the rules leave it tied. ``extras``: each side's steps besides its roll
        (``ContestSide.extra``: successes bought to break a tie...), in the same order."""
        raise RulesError(_("%(system)s has no contested rolls at this table.") % {"system": self.name})

    def contest_chance_after(
        self, states: Sequence[State], position: int, action: str, target: int
    ) -> Fraction | None:
        """The exact chance that side ``position`` wins if the follow-up ``action`` is applied
        now to side ``target``'s roll (its own, or the other side's where the rules let it
        answer one), the rolls otherwise as they stand: what its phone shows beside the
        button. None where the system does not say."""
        return None

    def contest_option_chances(
        self, states: Sequence[State], position: int, follow_up: FollowUp, target: int
    ) -> list[tuple[str, Fraction]]:
        """What side ``position``'s phone lists for ``follow_up`` on side ``target``'s roll:
        (what is done, the exact chance to win after it). One line from
        ``contest_chance_after`` by default, none where it does not say; a system whose
        follow-up takes a choice that changes the odds (how many drama dice) gives a line for
        each choice."""
        chance = self.contest_chance_after(states, position, follow_up.action, target)
        # The button's own words, before any explanation after a colon ("Push the roll").
        return [] if chance is None else [(follow_up.label.split(":")[0], chance)]

    @property
    def plays_contests(self) -> bool:
        return type(self).contest_winner is not DiceSystem.contest_winner

    # -- command line -------------------------------------------------------------------------
    @abstractmethod
    def add_cli_arguments(self, parser: argparse.ArgumentParser) -> None:
        """Flags that describe a request in the system's own words (``--dice N`` at least)."""

    @abstractmethod
    def request_from_cli(self, options: argparse.Namespace) -> Any:
        """Build and validate a request from the parsed flags (raises RulesError)."""

    def cli_extra_odds(self, request: Any) -> dict[str, Fraction]:
        """Extra chances ``manage.py odds`` prints (with a push, with a drama die...)."""
        return {}

    # -- contests -----------------------------------------------------------------------------
    # How a contest between two sides is settled, in one line for ``manage.py odds`` and the
    # table; empty when the system has no head-to-head contest.
    contest_rule: ClassVar[Text] = Text("")

    def contest(self, request_a: Any, request_b: Any) -> ContestOdds:
        """The exact odds of a contest between two fresh rolls, from side A's view, before any
        follow-up: ``{"win": ..., "tie": ..., "lose": ...}``, summing to 1.

        A tie the rules award to one side counts as that side's win or loss; ``tie`` is only
        what the rules leave undecided. Raises RulesError when the system has no contest or a
        request cannot take part in one (a message that says why)."""
        raise RulesError(_("%(system)s has no contested roll.") % {"system": self.name})

    def contest_among(self, requests: Sequence[Any]) -> list[ContestOdds]:
        """Each side's exact odds in a contest of ``requests`` before anyone rolls, from that
        side's view. Two sides: ``contest``; a system with more sides overrides this."""
        if len(requests) != 2:
            raise RulesError(
                _("%(system)s has no odds for a contest of %(sides)d sides.")
                % {"system": self.name, "sides": len(requests)}
            )
        odds = self.contest(requests[0], requests[1])
        return [odds, {"win": odds["lose"], "tie": odds["tie"], "lose": odds["win"]}]

    # -- the rules page and the warm-up -------------------------------------------------------
    def rules_tables(self) -> tuple[Table, ...]:
        """Tables of exact odds for the rules page, computed once per process and language."""
        return _rules_tables(self, language())

    def build_rules_tables(self) -> tuple[Table, ...]:
        """The rules page's tables, computed (``rules_tables`` keeps them). None by default."""
        return ()

    def typical_requests(self) -> tuple[dict[str, Any], ...]:
        """Requests of every pool size the roll forms offer, as plain data for
        ``parse_request``: a serving process fills the odds caches with them at start."""
        return ()


ContestOdds = dict[str, Fraction]
"""A contest's exact odds from side A's view: ``{"win": p, "tie": p, "lose": p}``."""

CONTEST_KEYS = ("win", "tie", "lose")


def contest_odds[A, B](
    side_a: Mapping[A, Fraction], side_b: Mapping[B, Fraction], verdict: Callable[[A, B], str]
) -> ContestOdds:
    """Two independent result distributions compared pair by pair (a convolution): each pair
    of results adds its chance to ``verdict(a, b)``, one of "win", "tie", "lose" for side A."""
    odds = dict.fromkeys(CONTEST_KEYS, Fraction(0))
    for a, p in side_a.items():
        for b, q in side_b.items():
            odds[verdict(a, b)] += p * q
    return odds


def higher_wins(a: Any, b: Any) -> str:
    """The usual verdict: the higher result wins, equal results tie."""
    return "win" if a > b else "tie" if a == b else "lose"


# Kept by language too: the tables' captions and headings are drawn in it.
@cache
def _rules_tables(system: DiceSystem, language: str | None) -> tuple[Table, ...]:
    return system.build_rules_tables()


# --------------------------------------------------------------------------------------------
# Helpers shared by the systems


def new_state(system: DiceSystem, request: Any, first_step: dict[str, Any]) -> State:
    return {"system": system.slug, "request": system.request_dict(request), "steps": [first_step]}


def first_throw(state: State) -> State:
    """The state as it was right after the roll, before any follow-up."""
    return {**state, "steps": state["steps"][:1]}


def with_step(state: State, step: dict[str, Any]) -> State:
    """A new state with one more step; the old state is left as it was."""
    new = copy.deepcopy(state)
    new["steps"].append(step)
    return new


def roll_dice(rng: Rng, count: int) -> list[int]:
    return [rng.randint(1, 6) for _ in range(count)]


def steps_of(state: State, action: str) -> list[dict[str, Any]]:
    return [step for step in state["steps"] if step["action"] == action]


def get_int(
    data: Mapping[str, Any], key: str, label: str, minimum: int, maximum: int, default: int | None = None
) -> int:
    """An integer field, inside [minimum, maximum], with a message that names the field."""
    raw = data.get(key, default)
    if raw is None or raw == "":
        if default is not None:
            return default
        raise RulesError(_("%(label)s is missing.") % {"label": label})
    if isinstance(raw, bool):
        raise RulesError(_("%(label)s must be a whole number.") % {"label": label})
    value: int | None
    try:
        if isinstance(raw, str):
            value = int(raw.strip())
        else:
            # Any number type (float, Decimal, Fraction) must be whole: 1.5 dice is no pool.
            value = int(raw) if raw == int(raw) else None
    except (TypeError, ValueError, OverflowError):
        value = None
    if value is None:
        raise RulesError(_("%(label)s must be a whole number.") % {"label": label})
    if not minimum <= value <= maximum:
        raise RulesError(
            _("%(label)s must be between %(minimum)d and %(maximum)d (got %(value)d).")
            % {"label": label, "minimum": minimum, "maximum": maximum, "value": value}
        )
    return value


def get_bool(data: Mapping[str, Any], key: str, default: bool = False) -> bool:
    """A checkbox: absent, "", "0", "false", "off" are False; "1", "true", "on", True are True."""
    raw = data.get(key, default)
    if isinstance(raw, bool):
        return raw
    if raw is None:
        return default
    text = str(raw).strip().lower()
    if text in ("", "0", "false", "off", "no"):
        return False
    if text in ("1", "true", "on", "yes"):
        return True
    raise RulesError(_("The choice %(key)s must be yes or no.") % {"key": repr(key)})


def get_choice(
    data: Mapping[str, Any], key: str, label: str, choices: Sequence[str], default: str | None = None
) -> str:
    raw = data.get(key, default)
    if raw is None or raw == "":
        if default is not None:
            return default
        raise RulesError(_("%(label)s is missing.") % {"label": label})
    text = str(raw).strip().lower()
    lowered = {choice.lower(): choice for choice in choices}
    if text not in lowered:
        raise RulesError(
            _("%(label)s must be one of: %(choices)s.") % {"label": label, "choices": ", ".join(choices)}
        )
    return lowered[text]


def choice_labels(choices: Sequence[str]) -> tuple[str, ...]:
    """What a ``Param``'s choices say in the active language, when they are words kept in
    English (a Condition, an effect): ``Param.labels``, or none where each says itself."""
    labels = tuple(_(choice) for choice in choices)
    return () if labels == tuple(choices) else labels


def dice_count(n: int) -> str:
    """A number of dice as a card says it: "1 die", "3 dice"."""
    return ngettext("%(count)d die", "%(count)d dice", n) % {"count": n}


# Unicode categories of characters a line of text must not hold (as names, tabletop/text.py):
# controls, format characters (bidirectional overrides, zero-width spaces), surrogates,
# private use, unassigned code points, line and paragraph separators.
INVISIBLE = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})


def get_line(data: Mapping[str, Any], key: str, label: str, maximum: int) -> str:
    """A required line of text that everyone at the table reads: trimmed, at most ``maximum``
    characters, nothing invisible in it (a reversed line, a zero-width space)."""
    raw = data.get(key)
    text = raw.strip() if isinstance(raw, str) else ""
    if not text:
        raise RulesError(_("%(label)s is missing.") % {"label": label})
    if len(text) > maximum:
        raise RulesError(
            _("%(label)s must be at most %(maximum)d characters (got %(length)d).")
            % {"label": label, "maximum": maximum, "length": len(text)}
        )
    for char in text:
        if unicodedata.category(char) in INVISIBLE:
            raise RulesError(
                _("%(label)s cannot hold invisible or control characters (this one has %(code)s).")
                % {"label": label, "code": f"U+{ord(char):04X}"}
            )
    return text


def percent(chance: Fraction | None) -> str:
    """A chance as the card prints it: "42%", "<1%", ">99%", "100%"."""
    if chance is None:
        return "-"
    if chance == 0:
        return _("0%")
    if chance == 1:
        return _("100%")
    value = float(chance) * 100
    # Translators: a chance on a card; some languages put a space before the percent sign.
    if value < 1:
        return _("<1%")
    if value > 99:
        return _(">99%")
    # Translators: a chance on a card, "42%".
    return _("%(percent)s%%") % {"percent": f"{value:.0f}"}


# --------------------------------------------------------------------------------------------
# Tables of exact odds, as a rules page shows them: rows by pool, columns by difficulty


@dataclass(frozen=True)
class Table:
    caption: str
    row_label: str  # what each row varies: "Dice"
    columns: tuple[str, ...]  # what each column is: "1 six", "2 sixes", ...
    rows: tuple[tuple[str, tuple[str, ...]], ...]  # (row heading, one percentage per column)


def grid[R, C](
    caption: str,
    row_label: str,
    rows: list[tuple[str, R]],
    columns: list[tuple[str, C]],
    chance: Callable[[R, C], Fraction | None],
) -> Table:
    """A table whose every cell is ``chance(row, column)``, as a percentage."""
    return Table(
        caption,
        row_label,
        tuple(label for label, _ in columns),
        tuple((label, tuple(percent(chance(row, column)) for _, column in columns)) for label, row in rows),
    )
