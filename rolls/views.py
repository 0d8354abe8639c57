"""Roll views: thin. Parse the form, call one service, render one partial."""

from __future__ import annotations

import random

from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.views.decorators.http import require_GET, require_POST
from django_htmx.http import reswap, retarget

from rolls import services
from rolls.cards import PLACES, build_card, latest_card
from rolls.models import Roll, Visibility
from rolls.odds_tables import tables_for
from rolls.systems import SLUGS, RulesError, all_systems, get_system
from rolls.tables import AT_THE_TABLE, adapter_for
from tabletop.access import character_to_act_for, membership_or_404

# Dice come only from the operating system's random source.
RNG = random.SystemRandom()

CHARACTER_PAGE = "tabletop/character.html"


@require_POST
def roll_create(request: HttpRequest, pk: int, character_id: int) -> HttpResponse:
    membership = membership_or_404(request.user, pk)
    character = character_to_act_for(membership, character_id)
    form = adapter_for(membership.campaign.system).RollForm(request.POST, character=character)
    if not form.is_valid():
        return _refusal(request, form.errors_text())
    try:
        roll = services.roll_create(
            character=character,
            roller=request.user,
            data=form.engine_data(),
            helper=form.cleaned_data.get("helper"),
            intent=form.cleaned_data.get("intent", ""),
            rng=RNG,
        )
    except RulesError as error:
        return _refusal(request, str(error))
    card = latest_card(roll, place="result", membership=membership)
    return render(request, CHARACTER_PAGE + "#result", {"result": card, "campaign": membership.campaign})


@require_POST
def follow_up(request: HttpRequest, pk: int, roll_id: int) -> HttpResponse:
    membership = membership_or_404(request.user, pk)
    roll = get_object_or_404(
        Roll.objects.select_related("character", "target"), campaign=membership.campaign, pk=roll_id
    )
    action = request.POST.get("action", "")
    try:
        payer = services.payer_of(roll, action)
    except RulesError as error:
        return _refusal(request, str(error))
    if roll.visibility != Visibility.PUBLIC and not membership.is_gm:
        raise PermissionDenied("Only the GM acts on a roll whose result is hidden.")
    if payer is None:
        if not roll.npc:
            return _refusal(request, "This roll's character is gone; it can no longer be followed up.")
        if not membership.is_gm:
            raise PermissionDenied("Only the GM acts on a roll without a character.")
    else:
        character_to_act_for(membership, payer.pk)
    # A die picker sends one value per ticked die: those stay a list.
    params = {
        key: values if len(values) > 1 else values[0]
        for key, values in request.POST.lists()
        if key not in ("action", "place", "csrfmiddlewaretoken")
    }
    try:
        entry = services.follow_up_apply(
            roll=roll, actor=request.user, action=action, params=params, rng=RNG, by_gm=membership.is_gm
        )
    except RulesError as error:
        return _refusal(request, str(error))
    for character in (roll.character, roll.target):
        if character is not None:
            character.refresh_from_db()
    place = request.POST.get("place", "result")
    card = build_card(
        roll, entry.state or {}, entry.seq, place=place if place in PLACES else "result", membership=membership
    )
    return render(request, "rolls/_card.html", {"card": card})


@require_GET
def odds(request: HttpRequest, pk: int, character_id: int) -> HttpResponse:
    """The exact chance of success for the roll form as it stands, updated on every change."""
    membership = membership_or_404(request.user, pk)
    character = character_to_act_for(membership, character_id)
    adapter = adapter_for(membership.campaign.system)
    form = adapter.RollForm(request.GET, character=character)
    context: dict[str, object] = {"character": character}
    if form.is_valid():
        try:
            data = {**form.engine_data(), "helper": form.cleaned_data.get("helper") is not None}
            request_data, label = adapter.pool(character, data)
            system = get_system(membership.campaign.system)
            context.update(adapter.odds_context(system, system.parse_request(request_data), label))
        except RulesError as error:
            context["error"] = str(error)
    else:
        context["error"] = form.errors_text()
    return render(request, adapter.ODDS_TEMPLATE, context)


def _refusal(request: HttpRequest, message: str) -> HttpResponse:
    """A refused roll or follow-up: a clear message, status 422, nothing changed. htmx swaps
    it into the page's message area instead of the result."""
    response = render(request, "rolls/_refusal.html", {"message": message}, status=422)
    if request.htmx:
        response = reswap(retarget(response, "#notice"), "innerHTML")
    return response


@require_GET
def rules_index(request: HttpRequest) -> HttpResponse:
    return render(request, "rolls/rules/index.html", {"systems": all_systems(), "at_table": AT_THE_TABLE})


@require_GET
def rules_system(request: HttpRequest, slug: str) -> HttpResponse:
    if slug not in SLUGS:
        raise Http404("No such dice system.")
    system = get_system(slug)
    return render(
        request,
        f"rolls/rules/{slug}.html",
        {"system": system, "tables": tables_for(slug), "at_table": slug in AT_THE_TABLE},
    )
