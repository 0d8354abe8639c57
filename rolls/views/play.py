"""Rolls and what follows them: a character's roll, its follow-ups, the odds as the form
changes, the GM's rolls for people without a sheet and calls for a roll."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.db import IntegrityError
from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST
from django_htmx.http import reswap, retarget

from rolls import registry
from rolls.log import fairdice, randomness, resent
from rolls.models import LogEntry, Roll, RollCall
from rolls.play import services, takeback
from rolls.play.calls import CallBuilder
from rolls.play.npc import NpcRollForm
from rolls.sight import answers, panels
from rolls.sight.audience import Facts, Viewer, sight
from rolls.sight.cards import PLACES, build_card, latest_card
from rolls.systems import RulesError
from rolls.systems.hand import dice_needed, parse_faces
from rolls.views import pages
from rolls.views.pages import Refusal
from rolls.views.refusals import refuse
from tabletop.access import (
    MAX_ID,
    acting_for,
    character_to_act_for,
    gm_or_403,
    may_act_for,
    membership_or_404,
)
from tabletop.http import HtmxRequest
from tabletop.models import Campaign, Character, DiceMode, Membership

CHARACTER_PAGE = "rolls/character.html"
# The hidden field that static/js/table.js fills with 16 random bytes of the browser's
# (crypto.getRandomValues) as each roll or follow-up is sent: mixed into the app's dice.
CLIENT_FIELD = "client_random"


def client_value(request: HtmxRequest) -> str | None:
    """The browser's random value for the dice, or None (no JavaScript: the server draws one)."""
    try:
        return fairdice.client_value(request.POST.get(CLIENT_FIELD, ""))
    except ValueError:
        # fairdice says why in English (it is pure); the player reads it in the table's language.
        raise RulesError(
            _(
                "The browser's random value for the dice is not 32 hexadecimal digits. "
                "Reload the page and roll again."
            )
        ) from None


@require_POST
def roll_create(request: HtmxRequest, pk: int, character_id: int) -> HttpResponse:
    membership = membership_or_404(request.user, pk)
    character = character_to_act_for(membership, character_id)

    def page(refusal: Refusal) -> HttpResponse:
        return pages.character_page(request, pk, character.pk, refusal=refusal, sent=request.POST.dict())

    try:
        key = client_value(request)
    except RulesError as error:
        return refuse(request, str(error), page, "roll-form")

    def again() -> HttpResponse | None:
        """The answer to this request sent before (``rolls.log.resent``), or None. Asked only
        when the roll fails: refused (the first roll may have closed the call it answered),
        or stopped by the key's unique index. A first request, nearly every one, asks nothing."""
        first = resent.first_answer(membership.campaign_id, membership.user_id, key)
        if first is None:
            return None
        if first.kind != LogEntry.Kind.ROLL or first.roll is None or first.roll.character_id != character.pk:
            return refuse(request, _(resent.KEY_REUSED), page, "roll-form")
        return _rolled(request, membership, character, first.roll, again=True)

    def refused(message: str) -> HttpResponse:
        return again() or refuse(request, message, page, "roll-form")

    form = registry.table(membership.campaign.system).roll_form(request.POST, character=character)
    if not form.is_valid():
        return refused(form.errors_text())
    call = None
    if form.cleaned_data.get("call"):
        call = RollCall.objects.filter(campaign=membership.campaign, pk=form.cleaned_data["call"]).first()
        if call is None:
            return refused(_("That call for a roll does not exist."))
    try:
        faces = _roll_faces(request, membership.campaign, blind=bool(form.cleaned_data.get("blind")))
        roll = services.roll_create(
            character=character,
            roller=membership.user,
            data=form.engine_data(),
            helper=form.cleaned_data.get("helper"),
            intent=form.cleaned_data.get("intent", ""),
            rng=randomness.RNG,
            blind=bool(form.cleaned_data.get("blind")),
            call=call,
            faces=faces,
            client=key,
            key=key,
        )
    except RulesError as error:
        return refused(str(error))
    except IntegrityError:
        # The key's unique index: a copy of a request already written (the first one, or a
        # second copy that was on its way at the same time). Nothing of this one was kept.
        answer = again()
        if answer is None:
            raise
        return answer
    return _rolled(request, membership, character, roll)


def _rolled(
    request: HtmxRequest, membership: Membership, character: Character, roll: Roll, *, again: bool = False
) -> HttpResponse:
    """The answer to a roll: its result panel, or for a plain POST the roll screen again.
    ``again``: a repeat of a request already answered (``rolls.log.resent``), whose roll was
    read back rather than just written: its sheet is redrawn as it is now."""
    pk = membership.campaign_id
    if not request.htmx:
        # No JavaScript: the roll screen again (post, redirect, get), its result on top.
        return redirect(reverse("rolls:character", args=[pk, character.pk]) + "#result")
    # A repeat reads whether the roll is still its character's newest (None: asked of the log).
    card = latest_card(roll, place="result", membership=membership, latest=None if again else True)
    # The roll's character as the service locked and read it: its resources as they are now.
    locked = roll.character
    # Drawn without the request: the result panel holds no form field of the page's (htmx
    # sends the token as a header), so the page's context processors have nothing to add.
    answer = render_to_string(
        CHARACTER_PAGE + "#result",
        {
            "result": card,
            "take_back": takeback.offer(roll, membership),
            "campaign": membership.campaign,
            "answered": roll.call,
            "character": locked,
            "resources_oob": locked is not None and (again or _changed(character, locked)),
            "resources_template": registry.table(membership.campaign.system).resources_template,
        },
    )
    return HttpResponse(answer)


def _changed(before: Character, after: Character) -> bool:
    """Whether the character's row changed between the read the form was checked against and
    the service's locked one (a follow-up from another device, the GM, a moment before): the
    answer then redraws its resources line. A roll itself spends nothing, and every change
    to a sheet reaches the page over the table's socket (``Refresh.RESOURCES``), so otherwise
    the line on the page stands as it is."""
    return any(
        field.value_from_object(before) != field.value_from_object(after)
        for field in Character._meta.concrete_fields
    )


@require_POST
def follow_up(request: HtmxRequest, pk: int, roll_id: int) -> HttpResponse:
    membership = membership_or_404(request.user, pk)
    roll = Roll.of_campaign(membership.campaign_id, roll_id)
    if roll is None:
        raise Http404("No such roll.")
    action = request.POST.get("action", "")
    place = request.POST.get("place", "result")
    place = place if place in PLACES else "result"

    def page(refusal: Refusal) -> HttpResponse:
        return _place_page(request, membership, roll, place, refusal)

    card_id = f"{place}-roll-{roll.pk}"  # Card.dom_id: the refusal goes next to its buttons
    try:
        payer = services.payer_of(roll, action)
    except RulesError as error:
        return refuse(request, str(error), page, card_id)
    # A secret roll is the GM's alone. A blind one's player may still ask, from the phone, for
    # what needs no look at the dice (a sets bid, unseen); the service holds them to that.
    seen = sight(Facts.of_roll(roll), Viewer.of(membership))
    if not seen.dice and not seen.unseen:
        raise PermissionDenied(_("Only the GM acts on a roll whose result is hidden."))
    unseen = not seen.dice
    if payer is None:
        if not roll.npc:
            message = _("This roll's character is gone; it can no longer be followed up.")
            return refuse(request, message, page, card_id)
        if not membership.is_gm:
            raise PermissionDenied(_("Only the GM acts on a roll without a character."))
    else:
        acting_for(membership, payer)  # the roll's own character or target: of this campaign
    # A die picker sends one value per ticked die: those stay a list.
    params = {
        key: values if len(values) > 1 else values[0]
        for key, values in request.POST.lists()
        if key not in ("action", "place", "csrfmiddlewaretoken", "faces", CLIENT_FIELD)
    }
    try:
        key = client_value(request)
    except RulesError as error:
        return refuse(request, str(error), page, card_id)
    try:
        entry = _follow_up_made(
            membership, roll, action, params, unseen=unseen, faces=request.POST.get("faces", ""), key=key
        )
    except RulesError as error:
        # Refused, perhaps for what the same request did before (a push is made once): that
        # request's answer, if this is a copy of it (``rolls.log.resent``); looked up only now.
        first = resent.first_answer(membership.campaign_id, membership.user_id, key)
        if first is None:
            return refuse(request, str(error), page, card_id)
        entry = first
    if entry.roll_id != roll.pk or entry.kind != LogEntry.Kind.FOLLOW_UP or entry.action != action:
        return refuse(request, _(resent.KEY_REUSED), page, card_id)
    if not request.htmx:
        return redirect(_place_url(membership, roll, place))
    if place == "result" and roll.character is not None:
        # The result card, and the roll screen's header with what the follow-up spent: drawn
        # as the entry was published, when it was the player's own (their sockets send the
        # same), or now. The service handed back the sheet it spent from and the campaign.
        kept = answers.kept(roll.campaign_id, entry.seq, membership.user_id, roll.character.pk)
        return HttpResponse((kept or answers.draw(roll, entry, membership)).html)
    card = build_card(roll, entry.state or {}, entry.seq, place=place, membership=membership)
    # From the drawing kept per entry and view, as the GM's quick roll answers (``npc_roll``).
    return HttpResponse(card.markup)


def _follow_up_made(
    membership: Membership,
    roll: Roll,
    action: str,
    params: dict[str, Any],
    *,
    unseen: bool,
    faces: str,
    key: str | None,
) -> LogEntry:
    """The follow-up written, or, for two copies of one request that both passed the lookup,
    the entry the first wrote (``rolls.log.resent``)."""
    raw = faces.strip()
    try:
        return services.follow_up_apply(
            roll=roll,
            actor=membership.user,
            action=action,
            params=params,
            rng=randomness.RNG,
            by_gm=membership.is_gm,
            unseen=unseen,
            faces=parse_faces(raw) if raw else None,
            client=key,
            key=key,
        )
    except IntegrityError:
        first = resent.first_answer(membership.campaign_id, membership.user_id, key)
        if first is None:
            raise
        return first


@require_GET
def odds(request: HtmxRequest, pk: int, character_id: int) -> HttpResponse:
    """The exact chance of success for the roll form as it stands, updated on every change."""
    membership = membership_or_404(request.user, pk)
    character = character_to_act_for(membership, character_id)
    adapter = registry.table(membership.campaign.system)
    form = adapter.roll_form(request.GET, character=character)
    context: dict[str, object] = {"character": character}
    needed: int | None = None
    if form.is_valid():
        try:
            data = {**form.engine_data(), "helper": form.cleaned_data.get("helper") is not None}
            request_data, label = adapter.pool(character, data)
            system = registry.engine(membership.campaign.system)
            parsed = system.parse_request(request_data)
            context.update(adapter.odds_that_apply(adapter.odds_context(system, parsed, label), character))
            if membership.campaign.dice != DiceMode.DIGITAL:
                # How many faces the keypad asks for: the dice this request rolls.
                needed = dice_needed(lambda rng: system.roll(parsed, rng))
        except RulesError as error:
            context["error"] = str(error)
    else:
        context["error"] = form.errors_text()
    response = render(request, adapter.odds_template, context)
    # A call's odds (its form sends "call") leave the roll form's count alone.
    if membership.campaign.dice != DiceMode.DIGITAL and "call" not in request.GET:
        response.write(render_to_string("rolls/_hand_needed.html", {"needed": needed, "oob": True}))
    return response


def _roll_faces(request: HtmxRequest, campaign: Campaign, *, blind: bool) -> list[int] | None:
    """The faces a roll form sends, or None for a roll the app makes: what the player entered
    (the service holds it to the campaign's dice mode), and none entered at a table where the
    player ticked "real dice" is an entry of no dice, refused with the count it needs."""
    raw = request.POST.get("faces", "").strip()
    if raw:
        return parse_faces(raw)
    if campaign.dice == DiceMode.EITHER and request.POST.get("by_hand") and not blind:
        return []
    return None


def _place_character(membership: Membership, roll: Roll, place: str) -> int | None:
    """The character whose roll screen holds the card at ``place``, if this member may open
    it: the roller's result panel, or the panel of rolls against its target."""
    character = roll.target if place == "against" else roll.character if place == "result" else None
    return character.pk if character is not None and may_act_for(membership, character) else None


def _place_url(membership: Membership, roll: Roll, place: str) -> str:
    """Where a plain POST of a card's follow-up goes back to: the page the card was on."""
    pk = membership.campaign_id
    character = _place_character(membership, roll, place)
    if character is not None:
        return reverse("rolls:character", args=[pk, character]) + f"#{place}-roll-{roll.pk}"
    if membership.is_gm:
        return reverse("rolls:session", args=[pk]) + f"#gm-roll-{roll.pk}"
    return reverse("rolls:campaign", args=[pk])


def _place_page(
    request: HtmxRequest, membership: Membership, roll: Roll, place: str, refusal: Refusal
) -> HttpResponse:
    """The page the refused card's follow-up came from, drawn again with the refusal."""
    character = _place_character(membership, roll, place)
    if character is not None:
        return pages.character_page(request, membership.campaign_id, character, refusal=refusal)
    if membership.is_gm:
        return pages.session_page(request, membership.campaign_id, refusal=refusal)
    messages.error(request, refusal.message)
    response = pages.campaign_page(request, membership.campaign_id)
    response.status_code = 422
    return response


# -- the GM's own rolls and calls for a roll --------------------------------------------------------


@require_POST
def npc_roll(request: HtmxRequest, pk: int) -> HttpResponse:
    """The GM rolls for someone without a sheet, openly or in secret."""
    membership = gm_or_403(request.user, pk)
    campaign = membership.campaign
    form = NpcRollForm(request.POST, campaign=campaign)

    def page(refusal: Refusal) -> HttpResponse:
        return pages.session_page(request, pk, refusal=refusal, npc_form=form)

    try:
        key = client_value(request)
    except RulesError as error:
        return refuse(request, str(error), page, "npc-form")

    def again() -> HttpResponse | None:
        """The answer to this request sent before, or None: asked only when the roll fails,
        as for a player's roll (``roll_create``)."""
        first = resent.first_answer(campaign.pk, membership.user_id, key)
        if first is None:
            return None
        if first.kind != LogEntry.Kind.ROLL or first.roll is None or not first.roll.npc:
            return refuse(request, _(resent.KEY_REUSED), page, "npc-form")
        return _npc_rolled(request, membership, first.roll)

    if not form.is_valid():
        return again() or refuse(request, form.errors_text(), page, "npc-form")
    try:
        raw = form.cleaned_data.get("faces", "")
        roll = services.npc_roll_create(
            campaign=campaign,
            gm=membership.user,
            name=form.cleaned_data["name"],
            request=form.engine_request(),
            secret=form.cleaned_data["secret"],
            target=form.cleaned_data["target"],
            intent=form.cleaned_data["intent"],
            rng=randomness.RNG,
            faces=parse_faces(raw) if raw else None,
            client=key,
            key=key,
        )
    except RulesError as error:
        return again() or refuse(request, str(error), page, "npc-form")
    except IntegrityError:  # the key's unique index: a copy of a request already written
        answer = again()
        if answer is None:
            raise
        return answer
    return _npc_rolled(request, membership, roll)


def _npc_rolled(request: HtmxRequest, membership: Membership, roll: Roll) -> HttpResponse:
    """The answer to the GM's quick roll (or to the same request sent again): its card."""
    pk = membership.campaign_id
    if not request.htmx:
        messages.success(request, _("Rolled for %(name)s.") % {"name": roll.character_name})
        return redirect(reverse("rolls:session", args=[pk]) + "#gm-panel")
    card = latest_card(roll, place="gm", membership=membership)
    # The card from the drawing kept per entry and view (``Card.markup``): the feed's, made
    # as the entry was published, or, for the GM's view of a secret roll, made now and kept
    # for the GM's sockets. An htmx answer holds no form field (htmx sends the token as a
    # header), so the request and its context processors add nothing.
    response = HttpResponse(card.markup)
    if not panels.waits_on_gm(roll, card):
        # Nothing is left to do on it: the feed shows it (the socket brings it), and the panel
        # of rolls waiting for the GM stays as it is, whether this answer or the socket's
        # panel comes first.
        return reswap(response, "none")
    return response


@require_GET
def npc_odds(request: HtmxRequest, pk: int) -> HttpResponse:
    """The exact odds of the GM's quick roll as its form stands: the engine's figures, the same
    the players' roll screens show, updated on every change."""
    membership = gm_or_403(request.user, pk)
    campaign = membership.campaign
    adapter = registry.table(campaign.system)
    form = NpcRollForm(request.GET, campaign=campaign)
    context: dict[str, object] = {}
    if form.is_valid():
        try:
            system = registry.engine(campaign.system)
            figures = adapter.odds_context(system, form.engine_request(), form.cleaned_data["name"])
            # Someone without a sheet pays for nothing: no push, Luck or drama dice odds.
            context.update(adapter.odds_that_apply(figures, None))
        except RulesError as error:
            context["error"] = str(error)
    elif not _only_missing(form):
        # A form the GM has not filled in yet (the panel just opened) has nothing wrong with
        # it: it gets no odds, and no "This field is required" either.
        context["error"] = form.errors_text()
    return render(request, adapter.odds_template, context)


def _only_missing(form: NpcRollForm) -> bool:
    """Whether every error of the form is a field left empty."""
    return all(error.code == "required" for errors in form.errors.as_data().values() for error in errors)


CALL_SKIPS = ("csrfmiddlewaretoken", "intent", "blind", "call", "also")


@require_POST
def call_create(request: HtmxRequest, pk: int, character_id: int) -> HttpResponse:
    """The GM asks this character (and any others ticked under ``also``) to roll what the
    roll form says now."""
    membership = gm_or_403(request.user, pk)
    campaign = membership.campaign
    character = character_to_act_for(membership, character_id)
    others = list(
        campaign.characters.filter(
            # isdecimal, and no id past the largest a column holds (SQLite raises on one).
            pk__in=[int(v) for v in request.POST.getlist("also") if v.isdecimal() and 0 < int(v) <= MAX_ID]
        )
    )
    adapter = registry.table(campaign.system)
    data = {key: values if len(values) > 1 else values[0] for key, values in request.POST.lists()}
    data = {key: value for key, value in data.items() if key not in CALL_SKIPS}
    asked = [character, *[other for other in others if other.pk != character.pk]]
    try:
        label = ""
        for each in asked:
            form = adapter.roll_form(data, character=each)
            if not form.is_valid():
                raise RulesError(
                    _("For %(name)s: %(errors)s") % {"name": each.name, "errors": form.errors_text()}
                )
            request_data, each_label = adapter.pool(each, {**form.engine_data(), "helper": False})
            registry.engine(campaign.system).parse_request(request_data)
            label = label or each_label
        services.call_create(
            campaign=campaign,
            gm=membership.user,
            characters=asked,
            data=data,
            label=label,
            intent=request.POST.get("intent", "")[:200],
        )
    except RulesError as error:

        def page(refusal: Refusal) -> HttpResponse:
            return pages.character_page(request, pk, character.pk, refusal=refusal, sent=request.POST.dict())

        return refuse(request, str(error), page, "roll-form")
    names = _(", ").join(each.name for each in asked)
    message = _("Asked %(names)s to roll %(label)s.") % {"names": names, "label": label}
    if not request.htmx:
        messages.success(request, message)
        return redirect("rolls:character", pk, character.pk)
    response = render(request, "rolls/_notice.html", {"message": message})
    return reswap(retarget(response, "#notice"), "innerHTML")


@require_POST
def calls_create(request: HtmxRequest, pk: int) -> HttpResponse:
    """The GM asks one or several characters from the session page, each for a trait of its
    own sheet, with what is needed and why."""
    membership = gm_or_403(request.user, pk)
    campaign = membership.campaign
    try:
        parsed = CallBuilder(campaign).parse(request.POST)
        call = services.call_create(
            campaign=campaign,
            gm=membership.user,
            characters=parsed.characters,
            data=parsed.shared,
            label=parsed.label(),
            per_character=parsed.per_character,
            intent=parsed.intent,
        )
    except RulesError as error:

        def page(refusal: Refusal) -> HttpResponse:
            return pages.session_page(request, pk, refusal=refusal)

        return refuse(request, str(error), page, "call-form")
    asked = _(", ").join(
        _("%(name)s (%(roll)s)") % {"name": c.name, "roll": call.label_for(c.pk)} for c in parsed.characters
    )
    message = _("Asked %(asked)s.") % {"asked": asked}
    if not request.htmx:
        messages.success(request, message)
        return redirect("rolls:session", pk)
    response = render(request, "rolls/_notice.html", {"message": message})
    return reswap(retarget(response, "#notice"), "innerHTML")


@require_POST
def call_close(request: HtmxRequest, pk: int, call_id: int) -> HttpResponse:
    """The GM closes a call. Its form is drawn by the socket too (``rolls/_call_status.html``), with
    no token of its own: htmx posts it with the page's token and gets the status back; a second
    tap on a call closed meanwhile (by another of the GM's screens) gets the same."""
    membership = gm_or_403(request.user, pk)
    if request.htmx:
        call = RollCall.objects.filter(campaign=membership.campaign, pk=call_id, closed=False).first()
        if call is not None:
            services.call_close(call=call, gm=membership.user)
        return render(
            request, "rolls/_call_status.html", {"calls": panels.call_status(membership.campaign_id)}
        )
    call = get_object_or_404(RollCall, campaign=membership.campaign, pk=call_id, closed=False)
    services.call_close(call=call, gm=membership.user)
    messages.success(request, _("The call for %(label)s is closed.") % {"label": call.label})
    return redirect("rolls:session", pk)
