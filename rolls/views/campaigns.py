"""Campaigns, joining, the GM's controls of a play session, and character sheets."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods, require_POST
from django_htmx.http import HttpResponseClientRedirect

from rolls import registry
from rolls.campaigns import services
from rolls.campaigns.forms import CampaignForm, CorrectionForm, LuckForAbilityForm
from rolls.systems import RulesError
from rolls.views.confirm import ask_first, confirmed
from tabletop.access import (
    MAX_ID,
    character_or_404,
    character_to_act_for,
    gm_or_403,
    may_act_for,
    membership_or_404,
)
from tabletop.forms import DisplayNameForm
from tabletop.http import AuthenticatedHttpRequest, HtmxRequest
from tabletop.joinlink import looks_like_token
from tabletop.models import Ban, Campaign, Character, DiceMode, Membership

# The console's Invite panel (rolls/_invite_panel.html): where a new link is shown.
INVITE_PANEL = "invite-tools"


@login_required
@require_http_methods(["GET", "POST"])
def campaign_new(request: AuthenticatedHttpRequest) -> HttpResponse:
    form = CampaignForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        campaign = services.campaign_create(
            gm=request.user,
            name=form.cleaned_data["name"],
            system=form.cleaned_data["system"],
            display_name=form.cleaned_data["display_name"],
            dice=form.cleaned_data["dice"] or DiceMode.DIGITAL,
            language=form.cleaned_data["language"],
        )
        return redirect("rolls:session", campaign.pk)
    return render(request, "rolls/campaign_new.html", {"form": form})


def confirm_question(action: str, campaign: Campaign) -> str:
    """What the GM is asked before ``action`` ("end", "mystery" or "rest"); "" for one that
    needs no confirmation. The same words in the page's dialog and the page without script."""
    adapter = registry.table(campaign.system)
    if action == "end":
        session = campaign.open_session()
        if session is None:
            return _("End session for the whole table?")
        return _("End session %(number)s for the whole table?") % {"number": session.number}
    if action == "mystery":
        # Translators: the table's own question ("New Mystery? Mystery 3 begins.").
        return _("%(label)s? %(event)s") % {
            "label": adapter.story.label,
            "event": adapter.story.event.format(n=campaign.mystery + 1),
        }
    if action == "rest" and adapter.rest is not None:
        return _("%(label)s for everyone? %(event)s") % {
            "label": adapter.rest.label,
            "event": adapter.rest.event.format(n=campaign.mystery),
        }
    return ""


def _gm_action(request: HtmxRequest, pk: int, action: str) -> HttpResponse:
    membership = gm_or_403(request.user, pk)
    campaign = membership.campaign
    question = confirm_question(action, campaign)
    if question and not confirmed(request):
        return ask_first(request, campaign, question)
    try:
        if action == "start":
            services.session_start(campaign=campaign, actor=membership.user)
            messages.success(request, _("The session has started."))
        elif action == "end":
            services.session_end(campaign=campaign, actor=membership.user)
            messages.success(request, _("The session has ended."))
        elif action == "mystery":
            services.mystery_start(campaign=campaign, actor=membership.user)
            messages.success(
                request, _("%(label)s: done.") % {"label": registry.table(campaign.system).story.label}
            )
        elif action == "rest":
            services.long_rest(campaign=campaign, actor=membership.user)
            messages.success(request, _("Everyone takes a long rest."))
        elif action == "rotate":
            services.join_link_rotate(campaign=campaign, actor=membership.user)
            messages.success(request, _("New join link made; the old one no longer works."))
    except RulesError as error:
        messages.error(request, str(error))
    target = reverse("rolls:session", args=[pk])
    if request.htmx:
        return HttpResponseClientRedirect(target)
    if action == "rotate":
        # Back to the console with the Invite panel open on the new link (static/js/table.js
        # opens the folded panel the address names).
        target += "#" + INVITE_PANEL
    return redirect(target)


@require_POST
def session_start(request: HtmxRequest, pk: int) -> HttpResponse:
    return _gm_action(request, pk, "start")


@require_POST
def session_end(request: HtmxRequest, pk: int) -> HttpResponse:
    return _gm_action(request, pk, "end")


@require_POST
def mystery_start(request: HtmxRequest, pk: int) -> HttpResponse:
    return _gm_action(request, pk, "mystery")


@require_POST
def long_rest(request: HtmxRequest, pk: int) -> HttpResponse:
    return _gm_action(request, pk, "rest")


@require_POST
def join_link_rotate(request: HtmxRequest, pk: int) -> HttpResponse:
    return _gm_action(request, pk, "rotate")


@require_POST
def dice_mode(request: HtmxRequest, pk: int) -> HttpResponse:
    """The GM chooses who rolls at this table: the app, real dice entered by hand, or either."""
    membership = gm_or_403(request.user, pk)
    try:
        services.dice_mode_set(
            campaign=membership.campaign, gm=membership.user, dice=request.POST.get("dice", "")
        )
        messages.success(request, services.DICE_MODE_TEXT[membership.campaign.dice])
    except RulesError as error:
        messages.error(request, str(error))
    if request.htmx:
        return HttpResponseClientRedirect(reverse("rolls:session", args=[pk]))
    return redirect("rolls:session", pk)


@require_POST
def member_remove(request: HtmxRequest, pk: int, member_id: int) -> HttpResponse:
    membership = gm_or_403(request.user, pk)
    target = get_object_or_404(Membership, campaign=membership.campaign, pk=member_id)
    try:
        renew = request.POST.get("renew") == "on"
        services.member_remove(
            campaign=membership.campaign, actor=membership.user, membership=target, renew_link=renew
        )
        if renew:
            messages.success(
                request,
                _("%(name)s was removed. The join link is new: the old one no longer works.")
                % {"name": target.display_name},
            )
        else:
            messages.success(
                request,
                _(
                    "%(name)s was removed. The old join link still lets anyone join: "
                    "make a new one if they have it."
                )
                % {"name": target.display_name},
            )
    except RulesError as error:
        messages.error(request, str(error))
    if request.htmx:  # the button of a list the socket sent: htmx posted it
        return HttpResponseClientRedirect(reverse("rolls:session", args=[pk]))
    return redirect("rolls:session", pk)


@require_POST
def member_readmit(request: HtmxRequest, pk: int, ban_id: int) -> HttpResponse:
    """The GM lets a removed member join again."""
    membership = gm_or_403(request.user, pk)
    if not 0 < ban_id <= MAX_ID:
        raise Http404
    ban = get_object_or_404(Ban, campaign=membership.campaign, pk=ban_id)
    try:
        services.member_readmit(campaign=membership.campaign, actor=membership.user, ban=ban)
        messages.success(
            request, _("%(name)s may join again with the join link.") % {"name": ban.display_name}
        )
    except RulesError as error:
        messages.error(request, str(error))
    if request.htmx:  # the button of a list the socket sent: htmx posted it
        return HttpResponseClientRedirect(reverse("rolls:session", args=[pk]))
    return redirect("rolls:session", pk)


@require_http_methods(["GET", "POST"])
def join(request: HtmxRequest, token: str) -> HttpResponse:
    """Join by link: a name is all it takes; the phone stays logged in."""
    campaign = Campaign.objects.filter(join_token=token).first() if looks_like_token(token) else None
    if campaign is None:
        return render(request, "rolls/join_invalid.html", status=404)
    if request.user.is_authenticated and campaign.memberships.filter(user=request.user).exists():
        return redirect(campaign)
    if request.user.is_authenticated and campaign.bans.filter(user=request.user).exists():
        return _removed(request, campaign)
    initial = {"display_name": request.user.first_name} if request.user.is_authenticated else {}
    form = DisplayNameForm(request.POST or None, initial=initial)
    if request.method == "POST" and form.is_valid():
        name = form.cleaned_data["display_name"]
        user = request.user
        if not user.is_authenticated:
            user = services.player_create(display_name=name)
            login(request, user)
        try:
            services.member_join(campaign=campaign, user=user, display_name=name)
        except RulesError:  # removed a moment ago, between the check above and now
            return _removed(request, campaign)
        return redirect("rolls:character-new", campaign.pk)
    return render(request, "rolls/join.html", {"campaign": campaign, "form": form})


def _removed(request: HtmxRequest, campaign: Campaign) -> HttpResponse:
    context = {"campaign": campaign, "message": services.REMOVED}
    return render(request, "rolls/join_removed.html", context, status=403)


@require_http_methods(["GET", "POST"])
def character_new(request: HtmxRequest, pk: int) -> HttpResponse:
    membership = membership_or_404(request.user, pk)
    campaign = membership.campaign
    adapter = registry.table(campaign.system)
    form = adapter.sheet_form(request.POST or None)
    if request.method == "POST" and form.is_valid():
        character = services.character_create(
            campaign=campaign, owner=membership.user, name=form.cleaned_data["name"], sheet=form.to_sheet()
        )
        return redirect(character)
    return render(
        request,
        "rolls/character_form.html",
        {"campaign": campaign, "form": form, "new": True, "sheet_form_template": adapter.sheet_form_template},
    )


@require_http_methods(["GET", "POST"])
def character_edit(request: HtmxRequest, pk: int, character_id: int) -> HttpResponse:
    membership = membership_or_404(request.user, pk)
    character = character_to_act_for(membership, character_id)
    adapter = registry.table(membership.campaign.system)
    form = adapter.sheet_form(
        request.POST or None, initial=adapter.sheet_form.initial_from(character.name, character.sheet)
    )
    if request.method == "POST" and form.is_valid():
        try:
            services.character_update(
                character=character,
                actor=membership.user,
                name=form.cleaned_data["name"],
                sheet=form.to_sheet(),
            )
        except RulesError as error:
            form.add_error(None, str(error))
        else:
            messages.success(request, _("Sheet saved."))
            return redirect(character)
    return render(
        request,
        "rolls/character_form.html",
        {
            "campaign": membership.campaign,
            "form": form,
            "character": character,
            "new": False,
            "sheet_form_template": adapter.sheet_form_template,
        },
    )


@require_POST
def character_correct(request: HtmxRequest, pk: int, character_id: int) -> HttpResponse:
    """The GM sets a resource directly; the change goes into the log. From the sheet page or
    the console (``back=console``), and back to the page it came from."""
    membership = gm_or_403(request.user, pk)
    character = character_or_404(membership.campaign, character_id)
    corrections = registry.table(membership.campaign.system).corrections
    form = CorrectionForm(request.POST, corrections=corrections)
    if form.is_valid():
        try:
            changes = services.resources_correct(
                character=character, gm=membership.user, values=form.cleaned_data
            )
        except RulesError as error:
            messages.error(request, str(error))
        else:
            if changes:
                messages.success(request, _("Corrected: %(changes)s.") % {"changes": _(", ").join(changes)})
            else:
                messages.success(request, _("Nothing changed."))
    else:
        messages.error(request, " ".join(str(e) for errors in form.errors.values() for e in errors))
    if request.POST.get("back") == "console":
        return redirect("rolls:session", pk)
    return redirect("rolls:character-sheet", pk, character_id)


@require_POST
def luck_for_ability(request: HtmxRequest, pk: int, character_id: int) -> HttpResponse:
    """STR-14: the hero's player or the GM spends a point of Luck on an ability; logged."""
    membership = membership_or_404(request.user, pk)
    character = character_to_act_for(membership, character_id)
    form = LuckForAbilityForm(request.POST)
    if form.is_valid():
        try:
            character = services.luck_for_ability(
                character=character, actor=membership.user, ability=form.cleaned_data["ability"]
            )
        except RulesError as error:
            messages.error(request, str(error))
        else:
            messages.success(request, _("A point of Luck spent: %(luck)s left.") % {"luck": character.luck})
    else:
        messages.error(request, " ".join(str(e) for errors in form.errors.values() for e in errors))
    return redirect("rolls:character-sheet", pk, character_id)


def character_sheet(request: HtmxRequest, pk: int, character_id: int) -> HttpResponse:
    """Any member may read a sheet; only its player and the GM may edit it."""
    membership = membership_or_404(request.user, pk)
    character = character_or_404(membership.campaign, character_id)
    return render(
        request,
        "rolls/sheet.html",
        {
            "campaign": membership.campaign,
            "character": character,
            "can_edit": may_act_for(membership, character),
            "sheet_template": registry.table(membership.campaign.system).sheet_template,
            "correction_form": correction_form(membership, character),
            "luck_form": LuckForAbilityForm() if may_act_for(membership, character) else None,
        },
    )


def correction_form(
    membership: Membership, character: Character, *, auto_id: str = "id_%s"
) -> CorrectionForm | None:
    """The GM's correction form of a character's resources, filled with what it holds now;
    None for anyone else, or in a system with nothing the GM sets. ``auto_id``: the fields'
    ids, one set per character where several forms share a page (the console)."""
    corrections = registry.table(membership.campaign.system).corrections
    if not membership.is_gm or not corrections:
        return None
    return CorrectionForm(
        corrections=corrections,
        initial={c.field: getattr(character, c.field) for c in corrections},
        character=character,
        auto_id=auto_id,
    )


def console_corrections(membership: Membership) -> list[tuple[Character, CorrectionForm]] | None:
    """The console's correction form of every character at the table (the GM's only), or None
    in a system with nothing the GM sets."""
    if not registry.table(membership.campaign.system).corrections:
        return None
    forms = []
    for character in membership.campaign.characters.order_by("name", "id"):
        form = correction_form(membership, character, auto_id=f"correct-{character.pk}-%s")
        if form is not None:
            forms.append((character, form))
    return forms
