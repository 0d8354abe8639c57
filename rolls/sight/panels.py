"""Panels of things waiting for someone: the GM's rolls and decisions, the calls for a roll a
player has to answer, the GM rolls made against a player's characters. Each is rendered on
its page and again over the socket when an entry touches it."""

from __future__ import annotations

import sys
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, TypedDict

from django.db.models import JSONField, OuterRef, QuerySet, Subquery
from django.forms import BoundField
from django.template.loader import render_to_string

from rolls import registry
from rolls.models import LogEntry, Roll, RollCall, Visibility
from rolls.play.calls import as_query
from rolls.sight.audience import GmPanel
from rolls.sight.cards import Card, build_card
from rolls.systems import RulesError
from rolls.systems.hand import dice_needed
from rolls.tables.waits import Waits
from tabletop.access import may_act_for
from tabletop.models import Character, Membership
from tabletop.serving.compiled_query import CompiledList

if TYPE_CHECKING:
    from django_stubs_ext import WithAnnotations

PANEL_ROLLS = 12
# The room of a panel that shows nothing: no new roll can push anything out of it.
ROOM_FOR_ALL = sys.maxsize


class _Newest(TypedDict):
    newest_seq: int
    newest_state: dict[str, Any] | None
    newest_of_character: int | None


def gm_panel(campaign_id: int, membership: Membership) -> list[Card]:
    """The GM's waiting panel's cards, as their page draws them (``_gm_waiting``)."""
    return _gm_waiting(campaign_id, membership)[0]


def gm_panel_and_room(campaign_id: int, membership: Membership) -> tuple[list[Card], GmPanel]:
    """The GM's waiting panel's cards, and the panel as a socket draws it (``_gm_waiting``),
    with the markup of each card: what ``gm_panel_with_newest`` draws it again from."""
    cards, drawn = _gm_waiting(campaign_id, membership)
    return cards, replace(drawn, cards=tuple(card.markup for card in cards))


def gm_panel_markup(drawn: GmPanel) -> str:
    """The panel as a socket sends it, from the markup of its cards."""
    return render_to_string("rolls/_gm_panel.html", {"drawn_cards": drawn.cards})


def gm_panel_with_newest(
    drawn: GmPanel, roll: Roll, state: dict[str, Any], seq: int, membership: Membership
) -> GmPanel:
    """The panel as a socket drew it (``gm_panel_and_room``), after the GM's new roll ``roll``
    that changes nothing else on it (``rolls.sight.audience.Panel.GM_NEWEST``): with its card on top
    when it waits there, as drawing the whole panel again would put it, and as it was
    otherwise."""
    # Nobody's latest roll: a roll for someone without a sheet has no character.
    card = build_card(roll, state, seq, place="gm", membership=membership, latest=False, roll_seq=seq)
    if not waits_on_gm(roll, card):
        return drawn
    characters = frozenset(pk for pk in (roll.character_id, roll.target_id) if pk is not None)
    return drawn.with_newest(card.markup, roll.pk, characters, PANEL_ROLLS)


def waits_on_gm(roll: Roll, card: Card) -> bool:
    """Whether a roll's card (at the place "gm") keeps it on the GM's panel: the GM's own roll
    with follow-ups left, a blind roll that can still settle from its dice, or a roll with a
    follow-up that is the GM's alone."""
    settles = roll.visibility == Visibility.BLIND and any(not b.follow_up.spends for b in card.follow_ups)
    return bool(card.follow_ups) and (
        roll.npc or settles or any(b.follow_up.gm_only for b in card.follow_ups)
    )


def _gm_waiting(campaign_id: int, membership: Membership) -> tuple[list[Card], GmPanel]:
    """The session's recent rolls the GM has something to do on: their own (NPC) rolls with
    follow-ups left, players' rolls waiting for a GM-only decision (a miracle), and players'
    blind rolls, whose dice only the GM sees, while they can still be settled from their own
    dice (a sets bid or critical). What a sheet would pay for (Luck, a push) is the player's
    choice to ask for, so it does not keep a blind roll waiting here.

    One query: the rolls come with their newest state, whether each is its character's latest
    roll, their characters, the campaign and the open session; the cards are drawn from them.
    A system in which nothing waits (``TableAdapter.gm_waits``) reads nothing.

    And the panel as drawn (``GmPanel``), which says what can change it (``rolls.sight.audience``):
    its room, how many new rolls it takes before one pushes a roll it shows out of its window
    of the ``PANEL_ROLLS`` latest (all of them, when it shows none), the rolls it shows and
    their characters and targets."""
    waits = registry.table(membership.campaign.system).gm_waits
    if not waits:
        return [], GmPanel(room=ROOM_FOR_ALL)
    cards = []
    oldest = -1  # the window's place (0: the latest roll) of the oldest roll shown
    for place, roll in enumerate(_recent_with_state(campaign_id)):
        # The GM's own rolls and blind rolls can wait here; a player's open roll only for a
        # decision that is the GM's alone, where a follow-up can ask for one. Whether it does is
        # told from its state, cheaper than drawing its card (doubles: every drama count's odds).
        if not (roll.npc or roll.visibility == Visibility.BLIND) and not (
            waits & Waits.DECISIONS and registry.engine(roll.system).may_await_gm(roll.newest_state or {})
        ):
            continue
        card = _newest_card(roll, "gm", membership)
        if waits_on_gm(roll, card):
            cards.append(card)
            oldest = place
    drawn = GmPanel(
        room=PANEL_ROLLS - 1 - oldest if cards else ROOM_FOR_ALL,
        rolls=frozenset(card.roll.pk for card in cards),
        characters=frozenset(
            pk for card in cards for pk in (card.roll.character_id, card.roll.target_id) if pk is not None
        ),
    )
    return cards, drawn


def _newest_card(roll: WithAnnotations[Roll, _Newest], place: str, membership: Membership) -> Card:
    """A panel's card of a roll as ``_recent_with_state`` read it: its newest state, and
    whether it is its character's latest roll, with nothing read again."""
    return build_card(
        roll,
        roll.newest_state or {},
        roll.newest_seq,
        place=place,
        membership=membership,
        latest=roll.character_id is not None and roll.newest_of_character == roll.pk,
    )


def _recent(campaign_id: int, *, against: bool) -> QuerySet[Roll]:
    entries = LogEntry.objects.filter(roll_id=OuterRef("pk")).order_by("-seq")
    recent = Roll.objects.filter(campaign_id=campaign_id, session__ended__isnull=True)
    if against:
        recent = recent.filter(target__isnull=False)
    return (
        recent.select_related("character", "target", "campaign", "session")
        .annotate(
            newest_seq=Subquery(entries.values("seq")[:1]),
            newest_state=Subquery(entries.values("state")[:1], output_field=JSONField()),
            newest_of_character=Subquery(
                Roll.objects.filter(character_id=OuterRef("character_id"), voided=False)
                .order_by("-id")
                .values("id")[:1]
            ),
        )
        .order_by("-id")[:PANEL_ROLLS]
    )


# Read after every roll a panel may show: compiled once (tabletop/serving/compiled_query.py).
_RECENT, _RECENT_AGAINST = (
    CompiledList(
        lambda campaign_id, against=against: _recent(campaign_id, against=against),
        "campaign_id",
        related=("character", "target", "campaign", "session"),
        annotations={"newest_seq": None, "newest_state": JSONField(), "newest_of_character": None},
    )
    for against in (False, True)
)


def _recent_with_state(campaign_id: int, *, against: bool = False) -> list[WithAnnotations[Roll, _Newest]]:
    """The open session's latest rolls (``against``: those made against a character), each
    with its newest entry's state and seq (``newest_state``, ``newest_seq``) and its
    character's latest roll (``newest_of_character``), in one query."""
    rolls: list[WithAnnotations[Roll, _Newest]] = (_RECENT_AGAINST if against else _RECENT).all(
        campaign_id=campaign_id
    )  # type: ignore[assignment]  # annotated by _recent
    if rolls:
        # One campaign for every roll and sheet, which knows its open session (every roll here
        # is of it): a sheet's Pride and a card's "is this roll stale" read them.
        campaign = rolls[0].campaign
        campaign.known_open_session = rolls[0].session
        campaign.known_open_session.campaign = campaign
        for roll in rolls:
            roll.campaign = campaign
            for sheet in (roll.character, roll.target):
                if sheet is not None:
                    sheet.campaign = campaign
    return rolls


def against_panel(campaign_id: int, membership: Membership) -> list[Card]:
    """Recent GM rolls made against this member's characters that they may still answer.
    One query, as ``gm_panel``; a system in which no roll is answered by the character it is
    made against (``Waits.AGAINST`` not among its ``gm_waits``) reads nothing."""
    if not registry.table(membership.campaign.system).gm_waits & Waits.AGAINST:
        return []
    cards = []
    for roll in _recent_with_state(campaign_id, against=True):
        if roll.target is None or not may_act_for(membership, roll.target):
            continue
        card = _newest_card(roll, "against", membership)
        if card.follow_ups:
            cards.append(card)
    return cards


@dataclass(frozen=True)
class WaitingCall:
    """One call for a roll as one character's phone shows it: the GM's values for that
    character (``inputs``), what to roll (``label``), the exact odds as the roll screen shows
    them, and the roll form's fields the player may still add (an Iconic Item, a helper...)."""

    call: RollCall
    character: Character
    inputs: list[tuple[str, str]]
    label: str
    odds: str
    extras: list[BoundField]
    dice: str = "digital"  # the campaign's dice mode: with real dice, a keypad answers
    needed: int | None = None  # how many faces the call's roll asks for, at a real-dice table


def open_calls(campaign_id: int, membership: Membership) -> list[WaitingCall]:
    """Every open call of the running session that this member answers for (their
    characters; the GM answers only for their own) and that has no roll yet, each as its
    character sees it."""
    calls = (
        RollCall.objects.filter(campaign_id=campaign_id, closed=False, session__ended__isnull=True)
        .select_related("campaign")
        .prefetch_related("characters")
        .order_by("id")
    )
    waiting = []
    for call in calls:
        for character in call.characters.all():
            if not may_act_for(membership, character) or (
                membership.is_gm and character.owner_id != membership.user_id
            ):
                continue
            waiting.append((call, character))
    answered = set(
        Roll.objects.filter(call__in=[call for call, _ in waiting]).values_list("call_id", "character_id")
    )
    return [
        _waiting(call, character) for call, character in waiting if (call.pk, character.pk) not in answered
    ]


def _waiting(call: RollCall, character: Character) -> WaitingCall:
    adapter = registry.table(call.campaign.system)
    data = call.data_for(character.pk)
    form = adapter.roll_form(as_query(data), character=character)
    context: dict[str, Any] = {"character": character}
    if form.is_valid():
        try:
            request_data, label = adapter.pool(character, {**form.engine_data(), "helper": False})
            system = registry.engine(call.campaign.system)
            request = system.parse_request(request_data)
            context.update(adapter.odds_that_apply(adapter.odds_context(system, request, label), character))
            if call.campaign.dice != "digital":
                context["needed"] = dice_needed(lambda rng: system.roll(request, rng))
        except RulesError as error:  # the sheet changed since the GM asked
            context["error"] = str(error)
    else:
        context["error"] = form.errors_text()
    extras_form = adapter.roll_form(
        character=character, initial=data, auto_id=f"call-{call.pk}-{character.pk}-%s"
    )
    extras = [extras_form[name] for name in adapter.call_extras if name in extras_form.fields]
    given = {field.name for field in extras}
    return WaitingCall(
        call=call,
        character=character,
        inputs=[(key, value) for key, value in call.inputs(character.pk) if key not in given],
        label=call.label_for(character.pk),
        odds=render_to_string(adapter.odds_template, context),
        extras=extras,
        dice=call.campaign.dice,
        needed=context.get("needed"),
    )


def call_status(campaign_id: int) -> list[dict[str, object]]:
    """For the GM: every open call and, per character asked, what they were asked to roll
    and whether they have answered."""
    result = []
    calls = RollCall.objects.filter(campaign_id=campaign_id, closed=False, session__ended__isnull=True)
    for call in calls.prefetch_related("characters").order_by("id"):
        answered = set(call.rolls.values_list("character_id", flat=True))
        asked = [(c, c.pk in answered, call.label_for(c.pk)) for c in call.characters.all()]
        result.append({"call": call, "asked": asked, "own": bool(call.per_character)})
    return result
