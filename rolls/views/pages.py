"""The pages of the table: the campaign, the GM's session page and a character's roll screen
(the history and a roll's own page: ``rolls.views.history``)."""

from __future__ import annotations

from dataclasses import dataclass

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from rolls import registry
from rolls.contests.forms import ChallengeBuilder, ContestBuilder
from rolls.contests.panels import contest_views
from rolls.play import takeback
from rolls.play.calls import CallBuilder
from rolls.play.npc import NpcRollForm
from rolls.sight import panels
from rolls.sight.cards import Card, latest_card
from rolls.sight.newest import newest_items
from rolls.views.campaigns import confirm_question, console_corrections
from tabletop import presence
from tabletop.access import character_to_act_for, gm_or_403, may_act_for, membership_or_404
from tabletop.joinlink import join_url, qr_svg
from tabletop.models import DiceMode

FEED_SIZE = 30


@dataclass(frozen=True)
class Refusal:
    """A plain POST (no JavaScript) that was refused: the page it came from is drawn again,
    status 422, with ``message`` next to the form that sent it. ``form``: the element id of
    that form's place, "roll-form", "npc-form", "call-form" or a card's (``Card.dom_id``)."""

    message: str
    form: str

    @property
    def on_card(self) -> bool:
        return self.form not in ("roll-form", "npc-form", "call-form")


def _in_page(request: HttpRequest, refusal: Refusal | None, cards: list[Card | None]) -> None:
    """Cards with buttons, drawn into this page: their forms carry the CSRF field, and a
    refused follow-up's message goes on its card; or at the top of the page when its card is
    no longer there (a newer roll took its place)."""
    shown = False
    for card in cards:
        if card is not None:
            card.form_token = True
            if refusal is not None and refusal.form == card.dom_id:
                card.refusal = refusal.message
                shown = True
    if refusal is not None and refusal.on_card and not shown:
        messages.error(request, refusal.message)


def campaign_page(request: HttpRequest, pk: int) -> HttpResponse:
    """A member's view of the table: their characters, everyone else's, and the live feed."""
    membership = membership_or_404(request.user, pk)
    campaign = membership.campaign
    characters = list(campaign.characters.select_related("owner"))
    mine = [c for c in characters if may_act_for(membership, c)]
    others = [c for c in characters if c not in mine]
    feed, last_seq = newest_items(membership.campaign, membership=membership, limit=FEED_SIZE, events=True)
    return render(
        request,
        "rolls/campaign.html",
        {
            "campaign": campaign,
            "membership": membership,
            "mine": mine,
            "resources_template": registry.table(campaign.system).resources_template,
            "others": others,
            "feed": feed,
            "last_seq": last_seq,
            "session": campaign.open_session(),
            "present": presence.present(campaign.pk),
            "contests": contest_views(campaign.pk, membership),
        },
    )


def session_page(
    request: HttpRequest, pk: int, *, refusal: Refusal | None = None, npc_form: NpcRollForm | None = None
) -> HttpResponse:
    """The GM's console: the tools (rolls for the GM, contests, calls, clocks, corrections, the
    invitation), who is here, the contests being played, the live feed.
    ``refusal`` and ``npc_form``: a plain POST of the GM's quick roll or a card's follow-up
    was refused, and this page is drawn again to say why."""
    membership = gm_or_403(request.user, pk)
    campaign = membership.campaign
    url = join_url(request, campaign)
    feed, last_seq = newest_items(membership.campaign, membership=membership, limit=FEED_SIZE, events=True)
    gm_cards = panels.gm_panel(campaign.pk, membership)
    _in_page(request, refusal, list(gm_cards))
    return render(
        request,
        "rolls/session.html",
        {
            "campaign": campaign,
            "membership": membership,
            "join_url": url,
            "qr": qr_svg(url),
            "feed": feed,
            "last_seq": last_seq,
            "present": presence.present(campaign.pk),
            "adapter": registry.table(campaign.system),
            "npc_form": npc_form or NpcRollForm(campaign=campaign),
            "call_form": CallBuilder(campaign),
            "contest_form": ContestBuilder(campaign),
            "contests": contest_views(campaign.pk, membership),
            "gm_cards": gm_cards,
            "calls": panels.call_status(campaign.pk),
            "members": campaign.memberships.all(),
            "removed": campaign.bans.all(),
            "session": campaign.open_session(),
            "questions": {
                action: confirm_question(action, campaign) for action in ("end", "mystery", "rest")
            },
            "refusal": refusal,
            "dice_modes": DiceMode.choices,
            "corrections": console_corrections(membership),
        },
        status=422 if refusal else 200,
    )


def character_page(
    request: HttpRequest,
    pk: int,
    character_id: int,
    *,
    refusal: Refusal | None = None,
    sent: dict[str, str] | None = None,
) -> HttpResponse:
    """The phone's roll screen for one character: form, odds, the latest result, the feed.
    ``refusal`` and ``sent`` (the roll form's values as they were sent): a plain POST of a
    roll, a call for one or a follow-up was refused, and this page is drawn again to say why,
    the form filled in as it was."""
    membership = membership_or_404(request.user, pk)
    character = character_to_act_for(membership, character_id)
    campaign = membership.campaign
    adapter = registry.table(campaign.system)
    form = adapter.roll_form(character=character, initial={**adapter.roll_initial, **(sent or {})})
    # The newest roll that stands: once the newest is voided (or taken back), the one before
    # it, with the follow-ups that go only on a character's newest roll back on it.
    last = takeback.newest_standing(character)
    result = latest_card(last, place="result", membership=membership) if last else None
    feed, last_seq = newest_items(membership.campaign, membership=membership, limit=10, events=True)
    against_cards = panels.against_panel(campaign.pk, membership)
    _in_page(request, refusal, [result, *against_cards])
    challenge = ChallengeBuilder(campaign, character)
    if not registry.engine(campaign.system).plays_contests:
        challenge.opponents = []
    return render(
        request,
        "rolls/character.html",
        {
            "campaign": campaign,
            "membership": membership,
            "character": character,
            "form": form,
            "result": result,
            "take_back": takeback.offer(last, membership),
            "feed": feed,
            "last_seq": last_seq,
            "session": campaign.open_session(),
            "resources_template": adapter.resources_template,
            "open_calls": panels.open_calls(campaign.pk, membership),
            "against_cards": against_cards,
            "contests": contest_views(campaign.pk, membership),
            # A player challenges another player's character from their own (STR-9...).
            "challenge": challenge
            if character.owner_id == membership.user_id and challenge.opponents
            else None,
            "roll_form_template": adapter.roll_form_template,
            "present": presence.present(campaign.pk),
            "refusal": refusal,
            "sent": sent or {},
        },
        status=422 if refusal else 200,
    )
