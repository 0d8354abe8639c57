"""The table display (the TV's page, by its own link, without a login) and the GM's action
that replaces its link."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_POST
from django_htmx.http import HttpResponseClientRedirect

from rolls.campaigns import services as campaigns
from rolls.live import display
from rolls.log.events import DECISIONS
from rolls.sight.newest import newest_items
from rolls.views.campaigns import INVITE_PANEL
from tabletop import presence
from tabletop.access import gm_or_403
from tabletop.http import HtmxRequest
from tabletop.joinlink import join_url, qr_svg


@require_GET
@never_cache
def display_page(request: HttpRequest, token: str) -> HttpResponse:
    """What the whole table may see, large: the latest rolls, who is here, the join code, the
    open calls."""
    campaign = display.campaign_for(token)
    if campaign is None:
        raise Http404("No such display.")
    if request.GET.get("overlay") is not None:
        # The overlay once lived here (``?overlay=1``). A stream still pointed at that address
        # must not get the whole display, join code included, in the overlay's place: it gets
        # a note that the overlay has a link of its own (rolls.views.overlay), and nothing else.
        return render(request, "rolls/overlay_moved.html", {"campaign": campaign}, status=410)
    cards, last_seq = newest_items(
        campaign, membership=None, limit=display.SHOWN, events=DECISIONS, count_events=False
    )
    url = join_url(request, campaign)
    context: dict[str, object] = {
        **display.panels_context(campaign),
        "cards": cards,
        "last_seq": last_seq,
        "token": token,
        "join_url": url,
        "qr": qr_svg(url),
        "present": presence.present(campaign.pk),
    }
    return render(request, "rolls/display.html", context)


@login_required
@require_POST
def display_rotate(request: HtmxRequest, pk: int) -> HttpResponse:
    membership = gm_or_403(request.user, pk)
    campaigns.display_link_rotate(campaign=membership.campaign, actor=membership.user)
    messages.success(request, _("New table display link made; the old one no longer works."))
    target = reverse("rolls:session", args=[pk])
    if request.htmx:
        return HttpResponseClientRedirect(target)
    return redirect(f"{target}#{INVITE_PANEL}")  # the Invite panel open on the new link
