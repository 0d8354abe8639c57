"""Everything a roll card shows, computed once, for the one partial that draws a card in the
feed, the result panel, the history and the socket."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from functools import cache, cached_property
from typing import Any

from django.template.loader import render_to_string
from django.urls import get_script_prefix, reverse
from django.utils import translation
from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from rolls import registry
from rolls.models import LogEntry, Roll, Visibility
from rolls.play.final import contest_final, may_be_contested, turn_waits, verdict_line
from rolls.sight.audience import Facts, Viewer, sight
from rolls.sight.kept import Kept, sharing
from rolls.systems import RulesError
from rolls.systems.base import DiceSystem, FollowUp, Outcome, Param, StepView, percent
from rolls.systems.hand import dice_needed
from tabletop.models import Membership

# Where a card is drawn: part of its element id. Buttons appear only where a card is acted
# on: a player's result panel, the panel of rolls made against them, the GM's panel.
PLACES = ("feed", "history", "result", "against", "gm")
ACTIONABLE = ("result", "against", "gm")
# Card bodies kept per process: the last minutes of rolls on a busy evening, some 2 MB.
BODIES = 1024


@dataclass
class FollowUpButton:
    follow_up: FollowUp
    odds: str  # "0% -> 35%" or ""
    # On a roll made by hand: how many dice this follow-up rerolls, so its keypad asks for that
    # many (None: a choice of the form decides, ``per_choice`` then says how many for each).
    dice: int | None = None
    per_choice: dict[str, int] = field(default_factory=dict)
    choice_param: str = ""
    hint: str = ""  # what to reroll, in words: "Reroll the 3 dice that are not sixes"

    @property
    def per_choice_text(self) -> str:
        """``per_choice`` for the keypad's script: "1:1 2:2 3:3"."""
        return " ".join(f"{value}:{count}" for value, count in self.per_choice.items())

    @property
    def by_hand(self) -> bool:
        """Whether its form asks for faces: it rolls dice on a roll made by hand."""
        return bool(self.dice or self.per_choice)

    @property
    def action(self) -> str:
        return self.follow_up.action


@dataclass
class Card:
    roll: Roll
    state: dict[str, Any]
    seq: int
    outcome: Outcome
    steps: tuple[StepView, ...]
    place: str  # one of PLACES: part of the element id
    follow_ups: list[FollowUpButton] = field(default_factory=list)
    hidden: bool = False  # a secret or blind roll, seen by someone other than the GM
    # Drawn into a page for its HTTP request (``rolls.views.pages``): its forms carry the CSRF
    # field, for a browser without script. Never in an htmx answer or on the socket, where
    # htmx sends the page's token in a header: no token to mask, no cookie to renew.
    form_token: bool = False
    refusal: str = ""  # why a plain POST of one of its follow-ups was refused, next to them
    verdict_line: str = ""  # its contest's verdict, once the GM settled it or called it off
    turn: str = ""  # whose turn it is, when the card's follow-ups wait on the other side (SET-10)

    @property
    def dom_id(self) -> str:
        return f"{self.place}-roll-{self.roll.pk}"

    @cached_property
    def follow_up_url(self) -> str:
        # Once per card, not twice per button; from the URL reversed once (``_roll_url``).
        return _roll_url("rolls:follow-up", get_script_prefix()).format(
            campaign=self.roll.campaign_id, roll=self.roll.pk
        )

    @cached_property
    def page_url(self) -> str:
        """The roll's own page: the same link for every viewer (the page decides what each sees)."""
        return _roll_url("rolls:roll", get_script_prefix()).format(
            campaign=self.roll.campaign_id, roll=self.roll.pk
        )

    @cached_property
    def number(self) -> int:
        """The roll's own number, which its page and the recap name it by: the sequence number
        of its first entry, whatever follow-up this card draws (issue 44: "#19" on a card whose
        page says "Roll #7")."""
        return self.seq if self.hidden else _first_seq(self.roll, self.seq)

    @property
    def faces(self) -> list[int]:
        """The first roll's dice: a ``Param(multiple=True)`` names dice by their index here."""
        steps = self.state.get("steps") or [{}]
        return list(steps[0].get("dice", []))

    @property
    def helper_shares(self) -> bool:
        """Whether the roll's helper now shares what it did to the roller (sixes SIX-16: its
        failure), as the table reads the card: never on a hidden card."""
        if self.hidden or not self.roll.helper_name or self.roll.voided:
            return False
        return registry.table(self.roll.system).helper_shares(self.state)

    @property
    def helper_struck(self) -> bool:
        """Whether the GM struck the roll's help (sixes SIX-15): it stands without the helper."""
        return not self.hidden and any(step.get("action") == "strike" for step in self.state.get("steps", ()))

    @property
    def scene_prompt(self) -> str:
        """What the roll asks of the table's story beyond its verdict (doubles: an Amazing
        Success changes the scene), as the table reads the card: never on a hidden or voided
        card."""
        if self.hidden or self.roll.voided or not self.state:
            return ""
        pc = self.roll.character_id is not None
        return registry.table(self.roll.system).scene_prompt(self.state, self.roll.character_name, pc=pc)

    @property
    def need(self) -> Any:
        return self.state["request"].get("need") if not self.hidden else None

    @property
    def body(self) -> SafeString:
        """The card's header, dice and verdict: what everyone who sees the entry sees alike
        (the id, the buttons and the time are drawn around it). An entry is drawn several
        times in a row: for the table's sockets as it is written, then in the roller's result
        panel; a follow-up for the feed and for the result panel. Drawn once per process, it
        is a third of a card less each time after the first (bench/load.py, profiled).

        An entry's state never changes and a roll is never edited (the names it shows, its
        character's and its target's, are kept as written when it was made)."""
        # The roll's time with its id: an id comes back after a rolled-back insert (and in
        # the tests, which roll back each test's writes).
        return _drawn(_bodies, self._key, "rolls/_card.html#body", self)

    @property
    def _key(self) -> tuple[int, datetime, int, bool, bool, str, str]:
        # With the verdict: a contest settled after its rolls' last entry draws them again.
        # With the language: a table whose GM changed it draws its older cards in the new one.
        return (
            self.roll.pk,
            self.roll.created,
            self.seq,
            self.hidden,
            self.roll.voided,
            self.verdict_line,
            translation.get_language() or "",
        )

    @property
    def follow_ups_markup(self) -> SafeString:
        """The card's follow-up forms, for a card drawn without a page's request (an htmx
        answer, a socket, a panel). They name the roll only in its follow-up URL and its
        element id; the rest is the same for every card that offers the same buttons at the
        same place (a push and Luck on a roll of five dice needing two...), and an evening
        brings back a few dozen such shapes. So they are drawn once per shape and process with
        stand-ins for the two ids, filled in per card: drawing them was more than half of the
        templates of the answer to a roll that offers three. Forms that show the dice (a
        sets bid, a die picker) are kept with the faces too: the drawing says whether it read
        them."""
        kept = sharing()
        shape = (self.place, tuple(_button_key(button) for button in self.follow_ups))
        key: _FormsKey = shape
        forms = _forms.get(key) if kept else None
        if forms is _WITH_FACES:
            key = (shape, tuple(self.faces))
            forms = _forms.get(key)
        if forms is None:
            drawing = _FormsDrawing(self.place, self.faces, self.follow_ups)
            forms = render_to_string("rolls/_card.html#follow-ups", {"card": drawing})
            if kept:
                if drawing.read_faces:
                    _forms.put(shape, _WITH_FACES)
                    key = (shape, tuple(self.faces))
                _forms.put(key, forms)
        # The forms were drawn with autoescaping; the ids are escaped as the template would.
        return mark_safe(forms.replace(_URL, escape(self.follow_up_url)).replace(_DOM, escape(self.dom_id)))

    @property
    def markup(self) -> SafeString:
        """The whole card, as ``rolls/_card.html`` draws it. Everything around the body but the
        place and the follow-up forms is the same wherever an entry is drawn (its id, tone,
        time and link), so that frame is drawn once per entry and process like the body, the
        place and the forms filled in per card: the table's feed card and the roller's result
        card of a new roll are one drawing, and a history page of 25 cards draws none on a
        second visit (bench/history.py). A card with a refusal is drawn whole; one with a form
        field only by its page's template, which has the request the field's token comes from."""
        if self.form_token:
            raise ValueError("a card with a form field is drawn by its page, with the request")
        if self.refusal or self.turn:
            return render_to_string("rolls/_card.html", {"card": self})
        frame = _drawn(_frames, self._key, "rolls/_card.html", _FrameDrawing(self))
        forms = self.follow_ups_markup if self.follow_ups else ""
        # The place first: the forms put in after it are never searched for a stand-in.
        return mark_safe(frame.replace(_PLACE, self.place).replace(_FORMS, forms))


class _FrameDrawing:
    """A card as its frame is drawn from: the card itself, its place and its follow-up forms
    stood in for (a drawing with forms, filled with none where it has none)."""

    def __init__(self, card: Card) -> None:
        self._card = card

    def __getattr__(self, name: str) -> Any:
        return getattr(self._card, name)

    @property
    def dom_id(self) -> SafeString:
        return mark_safe(f"{_PLACE}-roll-{self._card.roll.pk}")

    @property
    def follow_ups_markup(self) -> SafeString:
        return _FORMS

    follow_ups = (True,)
    form_token = False
    refusal = ""


# Stand-ins no real id equals in the digits of the other: reversed once, filled in per card.
_CAMPAIGN, _ROLL = 8_000_000_000_000_000_001, 9_000_000_000_000_000_002


@cache
def _roll_url(name: str, prefix: str) -> str:
    """The path of the URL ``name`` of a roll (its page, its follow-ups) with places for the
    ids, under the script prefix ``prefix``. ``reverse`` took some 90 µs a call here, and
    every card is drawn with its link, a few times per roll."""
    path = reverse(name, args=[_CAMPAIGN, _ROLL])
    assert path.count(str(_CAMPAIGN)) == path.count(str(_ROLL)) == 1, path
    return (
        path.replace("{", "{{")
        .replace("}", "}}")
        .replace(str(_CAMPAIGN), "{campaign}")
        .replace(str(_ROLL), "{roll}")
    )


# Stand-ins for a card's ids in its kept follow-up forms: NUL, which no text the forms show
# holds (form fields refuse it), fenced so neither can be read as part of the other.
_URL, _DOM = "\x00follow-up-url\x00", "\x00card-id\x00"
# Stand-ins for a card's place and forms in its kept frame: drawn as they are (safe), they hold
# a "<", which no text of the card holds unescaped, and NUL, which no markup holds.
_PLACE, _FORMS = mark_safe("<\x00place>"), mark_safe("<\x00forms>")
# Kept under a shape whose forms show the dice: look again with the faces.
_WITH_FACES = "\x00with faces\x00"
FORMS = 512


@dataclass
class _FormsDrawing:
    """What a card's follow-up forms are drawn from (``rolls/_card.html#follow-ups``), the
    roll's ids stood in for, noting whether the drawing read the dice."""

    place: str
    _faces: list[int]
    follow_ups: list[FollowUpButton]
    dom_id: str = _DOM
    follow_up_url: str = _URL
    form_token: bool = False
    read_faces: bool = False

    @property
    def faces(self) -> list[int]:
        self.read_faces = True
        return self._faces


def _button_key(button: FollowUpButton) -> tuple[Any, ...]:
    """Everything of a button its form shows (tests/test_card_body.py checks it names every field)."""
    return (
        button.follow_up,
        button.odds,
        button.dice,
        tuple(button.per_choice.items()),
        button.choice_param,
        button.hint,
    )


# (place, buttons), or that and the faces for forms that show the dice.
type _FormsKey = tuple[Any, ...]
_forms: Kept[_FormsKey, str] = Kept(FORMS)
_bodies: Kept[tuple[int, datetime, int, bool, bool, str, str], SafeString] = Kept(BODIES)
_frames: Kept[tuple[int, datetime, int, bool, bool, str, str], SafeString] = Kept(BODIES)


def _drawn[K](kept: Kept[K, SafeString], key: K, template: str, card: Card | _FrameDrawing) -> SafeString:
    """The card drawn with ``template``, kept under ``key`` when the fast path shares markup."""
    markup = kept.get(key)
    if markup is None:
        markup = render_to_string(template, {"card": card})
        if sharing():
            kept.put(key, markup)
    return markup


def build_card(
    roll: Roll,
    state: dict[str, Any],
    seq: int,
    *,
    place: str,
    membership: Membership | None = None,
    latest: bool | None = None,
    roll_seq: int | None = None,
) -> Card:
    """A card for ``roll`` as of ``state``, as ``membership`` may see it (None: anyone at the
    table), as ``rolls.sight.audience.sight`` decides: a secret or blind roll shows no dice to anyone
    but the GM. Follow-up buttons are listed only where a card can be acted on (not in the
    feed or the history), for whoever may ask for each one; callers pass the roll's latest
    state there, so a stale card never offers a button. ``latest``: whether this is its
    character's newest roll, when the caller knows (it has just made it); read from the
    database otherwise. ``roll_seq``: the sequence number of the roll's own entry, when the
    caller has it (the history lists that entry), for a hidden card's number."""
    system = registry.engine(roll.system)
    if roll_seq is not None:
        _numbers.put((roll.pk, roll.created), roll_seq)
    seen = sight(Facts.of_roll(roll), Viewer.of(membership))
    if not seen.dice:
        # Drawn from nothing of the request or the state, and numbered as the roll itself: a
        # follow-up sends the table this same card again, so no step, action or count shows.
        card = Card(roll, {}, roll_seq or _first_seq(roll, seq), _hidden(), (), place, hidden=True)
        if place in ACTIONABLE and membership is not None and seen.unseen:
            card.follow_ups = _unseen_buttons(roll, state)
        return card
    card = Card(roll, state, seq, system.evaluate(state), system.view(state), place)
    # Where the table reads its rolls; the history tells the contest step by step, its verdict
    # last, and draws each roll as it was then.
    # A sealed side, or an open roll of a flow (doubles' extended action, DBL-13) where the
    # table reads it (the feed, its roller's screen); a panel of rolls waiting on the GM reads
    # nothing more for it.
    flow_roll = place in ("feed", "result") and may_be_contested(roll)
    if place != "history" and (roll.visibility == Visibility.SEALED or flow_roll):
        card.verdict_line = verdict_line(roll)
    # A voided roll offers nothing more (``rolls.play.services.follow_up_apply`` refuses it too).
    if place in ACTIONABLE and membership is not None and (seen.acts or seen.answers) and not roll.voided:
        card.follow_ups = _buttons(roll, state, membership, latest, acts=seen.acts, answers=seen.answers)
        # A verdict froze it (``rolls.play.final``): asked only of a card that would offer a
        # button, so a card of no contest, or with nothing to offer, costs no read.
        if card.follow_ups and may_be_contested(roll):
            if contest_final(roll):
                card.follow_ups = []
            else:
                # What the service would refuse as out of turn (SET-10) is not drawn: the card
                # says whose turn it is instead.
                waits = turn_waits(roll, [button.action for button in card.follow_ups])
                card.follow_ups = [button for button in card.follow_ups if button.action not in waits]
                card.turn = next(iter(waits.values()), "")
    return card


def _unseen_buttons(roll: Roll, state: dict[str, Any]) -> list[FollowUpButton]:
    """A blind roll's buttons for its roller: no odds, which would tell what the dice are."""
    if roll.character is None or not state:
        return []
    system = registry.engine(roll.system)
    resources = registry.table(roll.system).resources(roll.character, latest=roll.is_latest())
    return [FollowUpButton(follow_up, "") for follow_up in system.blind_follow_ups(state, resources)]


def _first_seq(roll: Roll, seq: int) -> int:
    """The sequence number of the roll's own entry (``seq`` when there is none yet): known
    when the roll was just made, or kept from when its card was first drawn (it never changes),
    else read once."""
    key = (roll.pk, roll.created)
    kept = _numbers.get(key)
    if kept is not None:
        return kept
    entry = roll.last_entry
    if entry is not None and entry.kind == LogEntry.Kind.ROLL:
        first: int | None = entry.seq
    else:
        first = roll.entries.filter(kind=LogEntry.Kind.ROLL).values_list("seq", flat=True).first()
    if first is None:
        return seq
    _numbers.put(key, first)
    return first


# Each roll's own number (its first entry's), by the roll and its time (ids come back in tests).
_numbers: Kept[tuple[int, datetime], int] = Kept(BODIES * 4)


def _buttons(
    roll: Roll,
    state: dict[str, Any],
    membership: Membership,
    latest: bool | None,
    *,
    acts: bool,
    answers: bool,
) -> list[FollowUpButton]:
    """The follow-ups this member may ask for: the roller's (on their character's roll, or
    any for the GM), and the answers to a roll made against their character (paid from that
    character's sheet)."""
    system = registry.engine(roll.system)
    adapter = registry.table(roll.system)
    offered: list[FollowUp] = []
    # What each follow-up is paid from, for counting the dice of a roll made by hand.
    paid_from: dict[str, Any] = {}
    if acts and roll.character is not None:
        resources = adapter.roll_resources(
            roll, roll.character, latest=roll.is_latest() if latest is None else latest
        )
        mine = [f for f in system.follow_ups(state, resources) if f.action not in system.target_actions]
        offered += mine
        paid_from.update((f.action, resources) for f in mine)
    elif acts and roll.npc:
        offered += [f for f in system.follow_ups(state, {}) if f.action not in system.target_actions]
    if answers and roll.target is not None:
        resources = adapter.resources(roll.target, latest=True)
        theirs = [f for f in system.follow_ups(state, resources) if f.action in system.target_actions]
        offered += theirs
        paid_from.update((f.action, resources) for f in theirs)
    # What a sheet pays for goes only on a roll of the open session and Mystery (the service
    # refuses it on any other): no button for it on an older roll's card.
    stale = any(f.spends for f in offered) and bool(roll.stale_for(roll.campaign, "", adapter.story_name))
    buttons = []
    for follow_up in offered:
        if (follow_up.gm_only and not membership.is_gm) or (follow_up.spends and stale):
            continue
        odds = ""
        # "100% -> 100%" says nothing (a push after a success buys effects, not safety).
        if follow_up.chance_after is not None and follow_up.chance_after != follow_up.chance_before:
            odds = f"{percent(follow_up.chance_before)} -> {percent(follow_up.chance_after)}"
        button = FollowUpButton(follow_up, odds)
        if roll.by_hand:
            _count_dice(button, system, state, paid_from.get(follow_up.action, {}))
        buttons.append(button)
    return buttons


def _hidden() -> Outcome:
    """What a card says of a roll its viewer may not see, in the active language."""
    return Outcome(success=None, headline=_("Rolled in secret"), key="", tone="neutral")


def _reroll_hint(slug: str, action: str, dice: int) -> str:
    """What a follow-up rerolls, in words; where the rules name it better than a count does
    (sixes: the dice that are not sixes, the dice that failed), in their words."""
    words = {"count": dice}
    if (slug, action) == ("sixes", "push"):
        return (
            ngettext(
                "Reroll the %(count)s die that are not sixes; the others stay as they are.",
                "Reroll the %(count)s dice that are not sixes; the others stay as they are.",
                dice,
            )
            % words
        )
    if (slug, action) == ("sixes", "luck"):
        return (
            ngettext(
                "Reroll the %(count)s die that failed; the others stay as they are.",
                "Reroll the %(count)s dice that failed; the others stay as they are.",
                dice,
            )
            % words
        )
    return (
        ngettext(
            "Reroll the %(count)s die you reroll; the others stay as they are.",
            "Reroll the %(count)s dice you reroll; the others stay as they are.",
            dice,
        )
        % words
    )


def _count_dice(button: FollowUpButton, system: DiceSystem, state: dict[str, Any], resources: Any) -> None:
    """How many faces a follow-up of a roll made by hand asks for: a dry run with what its
    form sends by default, and with each choice of a param that may change the count (how
    many drama dice). Counting never spends: ``apply`` returns the costs, the table pays."""
    follow_up = button.follow_up
    defaults = {param.name: _default(param) for param in follow_up.params}

    def count(params: dict[str, Any]) -> int | None:
        try:
            return dice_needed(lambda rng: system.apply(state, follow_up.action, params, resources, rng))
        except RulesError:
            return None

    button.dice = count(defaults)
    for param in follow_up.params:
        if param.text or param.multiple:
            continue
        values = param.choices or tuple(str(v) for v in range(param.minimum, param.maximum + 1))
        counts = {str(v): count({**defaults, param.name: v}) for v in values[:12]}
        found = {c for c in counts.values() if c is not None}
        if len(found) > 1:
            button.dice = None
            button.choice_param = param.name
            button.per_choice = {v: c for v, c in counts.items() if c is not None}
            button.hint = _("One face for each of the %(what)s.") % {"what": param.label.lower()}
            return
    if button.dice:
        button.hint = _reroll_hint(system.slug, follow_up.action, button.dice)


def _default(param: Param) -> Any:
    """What a follow-up's form sends for a param before the player changes it."""
    if param.text:
        return "by hand"
    if param.multiple:
        return [param.choices[0]] if param.choices else []
    if param.choices:
        return param.choices[0]
    return param.minimum


def latest_card(
    roll: Roll, *, place: str, membership: Membership | None = None, latest: bool | None = None
) -> Card:
    """The card of the roll's newest state: the entry a service just wrote for it in this
    request, or else the newest one in the log."""
    entry = roll.last_entry or roll.entries.order_by("-seq").first()
    assert entry is not None
    return build_card(roll, entry.state or {}, entry.seq, place=place, membership=membership, latest=latest)
