"""Panels of things waiting for someone: the GM's rolls and decisions, the calls for a roll a
player has to answer, the GM rolls made against a player's characters. Each is rendered on
its page and again over the socket when an entry touches it."""

from __future__ import annotations

from rolls.cards import Card, latest_card
from rolls.models import Roll, RollCall, Visibility
from tabletop.access import may_act_for
from tabletop.models import Character, Membership

PANEL_ROLLS = 12


def gm_panel(campaign_id: int, membership: Membership) -> list[Card]:
    """The session's recent rolls the GM has something to do on: their own (NPC) rolls with
    follow-ups left, players' rolls waiting for a GM-only decision (a miracle), and players'
    blind rolls, whose dice only the GM sees, while they can still be settled from their own
    dice (a sets bid or critical). What a sheet would pay for (Luck, a push) is the player's
    choice to ask for, so it does not keep a blind roll waiting here."""
    cards = []
    for roll in _recent_rolls(campaign_id):
        card = latest_card(roll, place="gm", membership=membership)
        settles = roll.visibility == Visibility.BLIND and any(not b.follow_up.spends for b in card.follow_ups)
        if card.follow_ups and (roll.npc or settles or any(b.follow_up.gm_only for b in card.follow_ups)):
            cards.append(card)
    return cards


def against_panel(campaign_id: int, membership: Membership) -> list[Card]:
    """Recent GM rolls made against this member's characters that they may still answer."""
    cards = []
    for roll in _recent_rolls(campaign_id, against=True):
        if roll.target is not None and may_act_for(membership, roll.target):
            card = latest_card(roll, place="against", membership=membership)
            if card.follow_ups:
                cards.append(card)
    return cards


def _recent_rolls(campaign_id: int, *, against: bool = False) -> list[Roll]:
    rolls = Roll.objects.filter(campaign_id=campaign_id, session__ended__isnull=True)
    if against:
        rolls = rolls.filter(target__isnull=False)
    return list(rolls.select_related("character", "target", "campaign").order_by("-id")[:PANEL_ROLLS])


def open_calls(campaign_id: int, membership: Membership) -> list[tuple[RollCall, Character]]:
    """(call, character) for every open call of the running session that this member answers
    for (their characters; the GM answers for anyone) and that has no roll yet."""
    calls = (
        RollCall.objects.filter(campaign_id=campaign_id, closed=False, session__ended__isnull=True)
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
    return [(call, character) for call, character in waiting if (call.pk, character.pk) not in answered]


def call_status(campaign_id: int) -> list[dict[str, object]]:
    """For the GM: every open call and, per character asked, whether they have answered."""
    result = []
    calls = RollCall.objects.filter(campaign_id=campaign_id, closed=False, session__ended__isnull=True)
    for call in calls.prefetch_related("characters").order_by("id"):
        answered = set(call.rolls.values_list("character_id", flat=True))
        result.append({"call": call, "asked": [(c, c.pk in answered) for c in call.characters.all()]})
    return result
