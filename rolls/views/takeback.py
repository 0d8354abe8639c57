"""The roller takes back a stray tap (``rolls.play.takeback``): from the result panel of the
roll screen, while its button lasts."""

from __future__ import annotations

from django.contrib import messages
from django.http import Http404, HttpResponse
from django.shortcuts import redirect
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from rolls import registry
from rolls.models import Roll
from rolls.play import takeback
from rolls.sight.cards import latest_card
from rolls.systems import RulesError
from rolls.views import pages
from rolls.views.pages import Refusal
from rolls.views.play import CHARACTER_PAGE
from rolls.views.refusals import refuse
from tabletop.access import acting_for, membership_or_404
from tabletop.http import HtmxRequest

REFUSAL_FORM = "take-back"


@require_POST
def roll_take_back(request: HtmxRequest, pk: int, roll_id: int) -> HttpResponse:
    membership = membership_or_404(request.user, pk)
    roll = Roll.of_campaign(membership.campaign_id, roll_id)
    if roll is None or roll.character is None:
        raise Http404("No such roll.")
    character = roll.character
    acting_for(membership, character)  # a roll of someone else's character: 403
    back = reverse("rolls:character", args=[pk, character.pk])

    def page(refusal: Refusal) -> HttpResponse:
        return pages.character_page(request, pk, character.pk, refusal=refusal)

    try:
        takeback.roll_take_back(roll=roll, roller=membership.user)
    except RulesError as error:
        return refuse(request, str(error), page, REFUSAL_FORM)
    if not request.htmx:
        messages.success(request, _("Your roll is taken back: struck through for everyone."))
        return redirect(back + "#result")
    # The result panel again: what was taken back, and the character's roll before it, now its
    # newest again, with the follow-ups that go only on the newest roll (a push) back on it.
    before = takeback.newest_standing(character)
    card = latest_card(before, place="result", membership=membership) if before else None
    answer = render_to_string(
        CHARACTER_PAGE + "#result",
        {
            "result": card,
            "taken_back": roll,
            "campaign": membership.campaign,
            "character": character,
            "resources_template": registry.table(membership.campaign.system).resources_template,
        },
    )
    return HttpResponse(answer)
