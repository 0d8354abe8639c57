"""Roll views: thin. Parse the form, call one service, render one partial."""

from __future__ import annotations

import random

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.views.decorators.http import require_GET, require_POST
from django_htmx.http import reswap, retarget

from rolls import services
from rolls.cards import build_card, latest_card
from rolls.forms import SixesRollForm
from rolls.models import Roll
from rolls.odds_tables import tables_for
from rolls.systems import SLUGS, RulesError, all_systems, get_system
from rolls.systems.base import percent
from rolls.systems.sixes import Sixes
from rolls.tables import adapter_for
from tabletop.access import character_to_act_for, membership_or_404
from tabletop.sheets import AT_THE_TABLE

# Dice come only from the operating system's random source.
RNG = random.SystemRandom()

CHARACTER_PAGE = "tabletop/character.html"


def _form_errors(form: SixesRollForm) -> str:
    return " ".join(str(error) for errors in form.errors.values() for error in errors)


@require_POST
def roll_create(request: HttpRequest, pk: int, character_id: int) -> HttpResponse:
    membership = membership_or_404(request.user, pk)
    character = character_to_act_for(membership, character_id)
    form = SixesRollForm(request.POST, character=character)
    if not form.is_valid():
        return _refusal(request, _form_errors(form))
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
        Roll.objects.select_related("character"), campaign=membership.campaign, pk=roll_id
    )
    if roll.character is None:
        return _refusal(request, "This roll's character is gone; it can no longer be followed up.")
    character_to_act_for(membership, roll.character.pk)
    action = request.POST.get("action", "")
    params = {
        key: value for key, value in request.POST.items() if key not in ("action", "csrfmiddlewaretoken")
    }
    try:
        entry = services.follow_up_apply(roll=roll, actor=request.user, action=action, params=params, rng=RNG)
    except RulesError as error:
        return _refusal(request, str(error))
    roll.character.refresh_from_db()
    card = build_card(roll, entry.state or {}, entry.seq, place="result", membership=membership)
    return render(request, CHARACTER_PAGE + "#result", {"result": card, "campaign": membership.campaign})


@require_GET
def odds(request: HttpRequest, pk: int, character_id: int) -> HttpResponse:
    """The exact chance of success for the roll form as it stands, updated on every change."""
    membership = membership_or_404(request.user, pk)
    character = character_to_act_for(membership, character_id)
    form = SixesRollForm(request.GET, character=character)
    context: dict[str, object] = {"character": character}
    if form.is_valid():
        try:
            adapter = adapter_for(membership.campaign.system)
            data = {**form.engine_data(), "helper": form.cleaned_data.get("helper") is not None}
            request_data, trait = adapter.pool(character, data)
            system = get_system(membership.campaign.system)
            engine_request = system.parse_request(request_data)
            context.update(odds_context(system, engine_request, trait))
        except RulesError as error:
            context["error"] = str(error)
    else:
        context["error"] = _form_errors(form)
    return render(request, CHARACTER_PAGE + "#odds", context)


def odds_context(system: object, engine_request: object, trait: str) -> dict[str, object]:
    assert isinstance(system, Sixes)
    return {
        "trait": trait,
        "dice": engine_request.dice,  # type: ignore[attr-defined]
        "need": engine_request.need,  # type: ignore[attr-defined]
        "chance": percent(system.chance(engine_request)),  # type: ignore[arg-type]
        "with_push": percent(system.chance_with(engine_request, push=True)),  # type: ignore[arg-type]
        "with_push_luck": percent(system.chance_with(engine_request, push=True, luck=True)),  # type: ignore[arg-type]
    }


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
