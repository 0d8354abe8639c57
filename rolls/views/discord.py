"""The GM's Discord webhooks on the console (templates/rolls/_discord_panel.html): save one,
remove one, send a test message. The GM's alone: a player gets 403, anyone else 404, and the
URLs are never drawn for anyone but the GM, masked."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from rolls.discord import tasks, webhooks
from rolls.systems import RulesError
from tabletop.access import gm_or_403
from tabletop.http import HtmxRequest
from tabletop.joinlink import public_base
from tabletop.models import Campaign, DiscordWebhook

PANEL = "discord-tools"


def panel_context(campaign: Campaign, **extra: Any) -> dict[str, Any]:
    return {"campaign": campaign, "hooks": webhooks.shown(campaign), **extra}


def _answer(
    request: HtmxRequest, campaign: Campaign, *, said: str = "", error: str = "", audience: str = ""
) -> HttpResponse:
    """htmx: the panel drawn again, with what happened; a plain POST: back to the console."""
    if request.htmx:
        context = panel_context(campaign, said=said, error=error, error_audience=audience, open=True)
        return render(request, "rolls/_discord_panel.html", context, status=422 if error else 200)
    if error:
        messages.error(request, error)
    else:
        messages.success(request, said)
    return redirect(reverse("rolls:session", args=[campaign.pk]) + f"#{PANEL}")


@login_required
@require_POST
def discord_save(request: HtmxRequest, pk: int) -> HttpResponse:
    """Save the webhook URL the GM pasted for the table's channel or the GM's. A URL that is
    not Discord's (or not https) is refused with the reason, and nothing changes."""
    membership = gm_or_403(request.user, pk)
    campaign = membership.campaign
    audience = request.POST.get("audience", "")
    try:
        webhooks.save(
            campaign=campaign, audience=audience, url=request.POST.get("url", ""), origin=public_base(request)
        )
    except RulesError as error:
        return _answer(request, campaign, error=str(error), audience=audience)
    return _answer(request, campaign, said=_("Saved: the rolls from now on are posted there."))


@login_required
@require_POST
def discord_remove(request: HtmxRequest, pk: int) -> HttpResponse:
    membership = gm_or_403(request.user, pk)
    campaign = membership.campaign
    try:
        removed = webhooks.remove(campaign=campaign, audience=request.POST.get("audience", ""))
    except RulesError as error:
        return _answer(request, campaign, error=str(error))
    said = _("Removed: nothing more is posted there.") if removed else _("There was no webhook to remove.")
    return _answer(request, campaign, said=said)


@login_required
@require_POST
def discord_test(request: HtmxRequest, pk: int) -> HttpResponse:
    """Queue a test message to a saved webhook: the worker posts it in a moment."""
    membership = gm_or_403(request.user, pk)
    campaign = membership.campaign
    audience = request.POST.get("audience", "")
    hook = DiscordWebhook.objects.filter(campaign_id=campaign.pk, audience=audience).first()
    if hook is None:
        return _answer(request, campaign, error=_("Save a webhook first."), audience=audience)
    tasks.send_test.enqueue(hook.pk)
    return _answer(request, campaign, said=_("A test message is on its way: look in the channel."))
