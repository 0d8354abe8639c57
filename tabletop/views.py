"""Pages for accounts, campaigns, joining, characters and the GM's session page."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth import login, update_session_auth_hash
from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.db.models import Prefetch
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_http_methods, require_POST
from django_htmx.http import HttpResponseClientRedirect

from rolls import panels
from rolls.cards import build_card, latest_card
from rolls.models import LogEntry, Roll
from rolls.npc import NpcRollForm
from rolls.systems import RulesError
from rolls.tables import adapter_for
from tabletop import presence, services
from tabletop.access import (
    MAX_ID,
    character_or_404,
    character_to_act_for,
    gm_or_403,
    may_act_for,
    membership_or_404,
)
from tabletop.forms import CampaignForm, ClaimAccountForm, CorrectionForm, DisplayNameForm, SignupForm
from tabletop.joinlink import join_url, qr_svg
from tabletop.models import Campaign, Character, Membership

FEED_SIZE = 30


def home(request: HttpRequest) -> HttpResponse:
    memberships = []
    if request.user.is_authenticated:
        memberships = list(Membership.objects.filter(user=request.user).select_related("campaign"))
    return render(request, "tabletop/home.html", {"memberships": memberships})


@require_http_methods(["GET", "POST"])
def signup(request: HttpRequest) -> HttpResponse:
    form = SignupForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        user = form.save()
        login(request, user)
        messages.success(request, f"Welcome, {user.get_username()}. Create your first campaign.")
        return redirect("tabletop:campaign-new")
    return render(request, "tabletop/signup.html", {"form": form})


@login_required
@require_http_methods(["GET", "POST"])
def account(request: HttpRequest) -> HttpResponse:
    """Set (or change) a username and password, so a phone-joined player can log in elsewhere."""
    form = ClaimAccountForm(
        request.user, request.POST or None, initial={"username": request.user.get_username()}
    )
    if request.method == "POST" and form.is_valid():
        user = form.save()
        update_session_auth_hash(request, user)
        messages.success(request, "Saved. You can now log in with this username and password anywhere.")
        return redirect("tabletop:home")
    return render(request, "tabletop/account.html", {"form": form})


@login_required
@require_http_methods(["GET", "POST"])
def campaign_new(request: HttpRequest) -> HttpResponse:
    form = CampaignForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        campaign = services.campaign_create(
            gm=request.user,
            name=form.cleaned_data["name"],
            system=form.cleaned_data["system"],
            display_name=form.cleaned_data["display_name"],
        )
        return redirect("tabletop:session", campaign.pk)
    return render(request, "tabletop/campaign_new.html", {"form": form})


def _feed(membership: Membership, *, limit: int = FEED_SIZE) -> tuple[list[object], int]:
    """The newest feed items (cards and events), newest first, and the last sequence number
    they include: the page's socket asks for what came after it."""
    campaign = membership.campaign
    entries = list(
        LogEntry.objects.filter(campaign=campaign)
        .select_related("roll", "roll__character", "roll__target")
        .order_by("-seq")[:200]
    )
    last_seq = entries[0].seq if entries else campaign.last_seq
    items: list[object] = []
    seen: set[int] = set()
    for entry in entries:
        if entry.roll_id is None:
            items.append(entry)
        elif entry.roll_id not in seen:
            seen.add(entry.roll_id)
            card = build_card(entry.roll, entry.state or {}, entry.seq, place="feed", membership=membership)  # type: ignore[arg-type]
            items.append(card)
        if len(items) >= limit:
            break
    return items, last_seq


def campaign_page(request: HttpRequest, pk: int) -> HttpResponse:
    """A member's view of the table: their characters, everyone else's, and the live feed."""
    membership = membership_or_404(request.user, pk)
    campaign = membership.campaign
    characters = list(campaign.characters.select_related("owner"))
    mine = [c for c in characters if may_act_for(membership, c)]
    others = [c for c in characters if c not in mine]
    feed, last_seq = _feed(membership)
    return render(
        request,
        "tabletop/campaign.html",
        {
            "campaign": campaign,
            "membership": membership,
            "mine": mine,
            "resources_template": adapter_for(campaign.system).RESOURCES_TEMPLATE,
            "others": others,
            "feed": feed,
            "last_seq": last_seq,
            "session": campaign.open_session(),
            "present": presence.present(campaign.pk),
        },
    )


def session_page(request: HttpRequest, pk: int) -> HttpResponse:
    """The GM's big screen: join link and QR code, who is here, the live feed, the controls."""
    membership = gm_or_403(request.user, pk)
    campaign = membership.campaign
    url = join_url(request, campaign)
    feed, last_seq = _feed(membership)
    return render(
        request,
        "tabletop/session.html",
        {
            "campaign": campaign,
            "membership": membership,
            "join_url": url,
            "qr": qr_svg(url),
            "feed": feed,
            "last_seq": last_seq,
            "present": presence.present(campaign.pk),
            "adapter": adapter_for(campaign.system),
            "npc_form": NpcRollForm(campaign=campaign),
            "gm_cards": panels.gm_panel(campaign.pk, membership),
            "calls": panels.call_status(campaign.pk),
            "members": campaign.memberships.all(),
            "session": campaign.open_session(),
        },
    )


def _gm_action(request: HttpRequest, pk: int, action: str) -> HttpResponse:
    membership = gm_or_403(request.user, pk)
    campaign = membership.campaign
    try:
        if action == "start":
            services.session_start(campaign=campaign, actor=request.user)
            messages.success(request, "The session has started.")
        elif action == "end":
            services.session_end(campaign=campaign, actor=request.user)
            messages.success(request, "The session has ended.")
        elif action == "mystery":
            services.mystery_start(campaign=campaign, actor=request.user)
            messages.success(request, f"{adapter_for(campaign.system).STORY.label}: done.")
        elif action == "rest":
            services.long_rest(campaign=campaign, actor=request.user)
            messages.success(request, "Everyone takes a long rest.")
        elif action == "rotate":
            services.join_link_rotate(campaign=campaign)
            messages.success(request, "New join link made; the old one no longer works.")
    except RulesError as error:
        messages.error(request, str(error))
    target = reverse("tabletop:session", args=[pk])
    if request.htmx:
        return HttpResponseClientRedirect(target)
    return redirect(target)


@require_POST
def session_start(request: HttpRequest, pk: int) -> HttpResponse:
    return _gm_action(request, pk, "start")


@require_POST
def session_end(request: HttpRequest, pk: int) -> HttpResponse:
    return _gm_action(request, pk, "end")


@require_POST
def mystery_start(request: HttpRequest, pk: int) -> HttpResponse:
    return _gm_action(request, pk, "mystery")


@require_POST
def long_rest(request: HttpRequest, pk: int) -> HttpResponse:
    return _gm_action(request, pk, "rest")


@require_POST
def join_link_rotate(request: HttpRequest, pk: int) -> HttpResponse:
    return _gm_action(request, pk, "rotate")


@require_POST
def member_remove(request: HttpRequest, pk: int, member_id: int) -> HttpResponse:
    membership = gm_or_403(request.user, pk)
    target = get_object_or_404(Membership, campaign=membership.campaign, pk=member_id)
    try:
        services.member_remove(campaign=membership.campaign, actor=request.user, membership=target)
        messages.success(request, f"{target.display_name} was removed.")
    except RulesError as error:
        messages.error(request, str(error))
    if request.htmx:  # the button of a list the socket sent: htmx posted it
        return HttpResponseClientRedirect(reverse("tabletop:session", args=[pk]))
    return redirect("tabletop:session", pk)


@require_http_methods(["GET", "POST"])
def join(request: HttpRequest, token: str) -> HttpResponse:
    """Join by link: a name is all it takes; the phone stays logged in."""
    campaign = Campaign.objects.filter(join_token=token).first()
    if campaign is None:
        return render(request, "tabletop/join_invalid.html", status=404)
    if request.user.is_authenticated and campaign.memberships.filter(user=request.user).exists():
        return redirect(campaign)
    initial = {"display_name": request.user.first_name} if request.user.is_authenticated else {}
    form = DisplayNameForm(request.POST or None, initial=initial)
    if request.method == "POST" and form.is_valid():
        name = form.cleaned_data["display_name"]
        user = request.user
        if not user.is_authenticated:
            user = services.player_create(display_name=name)
            login(request, user)
        services.member_join(campaign=campaign, user=user, display_name=name)
        return redirect("tabletop:character-new", campaign.pk)
    return render(request, "tabletop/join.html", {"campaign": campaign, "form": form})


@require_http_methods(["GET", "POST"])
def character_new(request: HttpRequest, pk: int) -> HttpResponse:
    membership = membership_or_404(request.user, pk)
    campaign = membership.campaign
    adapter = adapter_for(campaign.system)
    form = adapter.SheetForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        character = services.character_create(
            campaign=campaign, owner=request.user, name=form.cleaned_data["name"], sheet=form.to_sheet()
        )
        return redirect(character)
    return render(
        request,
        "tabletop/character_form.html",
        {"campaign": campaign, "form": form, "new": True, "sheet_form_template": adapter.SHEET_FORM_TEMPLATE},
    )


@require_http_methods(["GET", "POST"])
def character_edit(request: HttpRequest, pk: int, character_id: int) -> HttpResponse:
    membership = membership_or_404(request.user, pk)
    character = character_to_act_for(membership, character_id)
    adapter = adapter_for(membership.campaign.system)
    form = adapter.SheetForm(
        request.POST or None, initial=adapter.SheetForm.initial_from(character.name, character.sheet)
    )
    if request.method == "POST" and form.is_valid():
        try:
            services.character_update(
                character=character, actor=request.user, name=form.cleaned_data["name"], sheet=form.to_sheet()
            )
        except RulesError as error:
            form.add_error(None, str(error))
        else:
            messages.success(request, "Sheet saved.")
            return redirect(character)
    return render(
        request,
        "tabletop/character_form.html",
        {
            "campaign": membership.campaign,
            "form": form,
            "character": character,
            "new": False,
            "sheet_form_template": adapter.SHEET_FORM_TEMPLATE,
        },
    )


def character_page(request: HttpRequest, pk: int, character_id: int) -> HttpResponse:
    """The phone's roll screen for one character: form, odds, the latest result, the feed."""
    membership = membership_or_404(request.user, pk)
    character = character_to_act_for(membership, character_id)
    campaign = membership.campaign
    adapter = adapter_for(campaign.system)
    form = adapter.RollForm(character=character, initial=adapter.ROLL_INITIAL)
    last = Roll.objects.filter(character=character).select_related("character").order_by("-id").first()
    result = latest_card(last, place="result", membership=membership) if last else None
    feed, last_seq = _feed(membership, limit=10)
    return render(
        request,
        "tabletop/character.html",
        {
            "campaign": campaign,
            "membership": membership,
            "character": character,
            "form": form,
            "result": result,
            "feed": feed,
            "last_seq": last_seq,
            "session": campaign.open_session(),
            "resources_template": adapter.RESOURCES_TEMPLATE,
            "open_calls": panels.open_calls(campaign.pk, membership),
            "against_cards": panels.against_panel(campaign.pk, membership),
            "roll_form_template": adapter.ROLL_FORM_TEMPLATE,
            "present": presence.present(campaign.pk),
        },
    )


def history(request: HttpRequest, pk: int) -> HttpResponse:
    """Every roll of the campaign, newest first, grouped by play session, with its chain."""
    membership = membership_or_404(request.user, pk)
    campaign = membership.campaign
    rolls = (
        Roll.objects.filter(campaign=campaign)
        .select_related("session", "character", "target")
        .prefetch_related(Prefetch("entries", queryset=LogEntry.objects.order_by("seq")))
        .order_by("-id")
    )
    character_filter = request.GET.get("character", "")
    # isdecimal, not isdigit: int() refuses "²"; and an id no column holds matches nothing.
    if character_filter.isdecimal() and 0 < int(character_filter) <= MAX_ID:
        rolls = rolls.filter(character_id=int(character_filter))
    page = Paginator(rolls, 25).get_page(request.GET.get("page"))
    groups: list[dict[str, object]] = []
    for roll in page.object_list:
        entries = list(roll.entries.all())
        card = build_card(
            roll, entries[-1].state or {}, entries[-1].seq, place="history", membership=membership
        )
        if not groups or groups[-1]["session"] != roll.session:
            groups.append({"session": roll.session, "cards": []})
        groups[-1]["cards"].append(card)  # type: ignore[attr-defined]
    return render(
        request,
        "tabletop/history.html",
        {
            "campaign": campaign,
            "membership": membership,
            "page": page,
            "groups": groups,
            "characters": campaign.characters.all(),
            "character_filter": character_filter,
        },
    )


@require_POST
def character_correct(request: HttpRequest, pk: int, character_id: int) -> HttpResponse:
    """The GM sets a resource directly; the change goes into the log."""
    membership = gm_or_403(request.user, pk)
    character = character_or_404(membership.campaign, character_id)
    corrections = adapter_for(membership.campaign.system).CORRECTIONS
    form = CorrectionForm(request.POST, corrections=corrections)
    if form.is_valid():
        changes = services.resources_correct(character=character, gm=request.user, values=form.cleaned_data)
        messages.success(request, f"Corrected: {', '.join(changes)}." if changes else "Nothing changed.")
    else:
        messages.error(request, " ".join(str(e) for errors in form.errors.values() for e in errors))
    return redirect("tabletop:character-sheet", pk, character_id)


def character_sheet(request: HttpRequest, pk: int, character_id: int) -> HttpResponse:
    """Any member may read a sheet; only its player and the GM may edit it."""
    membership = membership_or_404(request.user, pk)
    character = character_or_404(membership.campaign, character_id)
    return render(
        request,
        "tabletop/sheet.html",
        {
            "campaign": membership.campaign,
            "character": character,
            "can_edit": may_act_for(membership, character),
            "sheet_template": adapter_for(membership.campaign.system).SHEET_TEMPLATE,
            "correction_form": _correction_form(membership, character),
        },
    )


def _correction_form(membership: Membership, character: Character) -> CorrectionForm | None:
    corrections = adapter_for(membership.campaign.system).CORRECTIONS
    if not membership.is_gm or not corrections:
        return None
    return CorrectionForm(
        corrections=corrections, initial={f: getattr(character, f) for f, _, _ in corrections}
    )
