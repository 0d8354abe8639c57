"""The stream overlay (the latest rolls on a transparent page, by its own link, without a login)
and the GM's action that replaces its link."""

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
from rolls.live import overlay
from rolls.sight.newest import newest_items
from tabletop.access import gm_or_403
from tabletop.http import HtmxRequest

# The overlay's link in the console's Invite panel (rolls/_overlay_link.html): named in the
# address after a renewal, it opens the folded panel (static/js/table.js) and is scrolled to.
OVERLAY_LINK = "overlay-link"


@require_GET
@never_cache
def overlay_page(request: HttpRequest, token: str) -> HttpResponse:
    """The latest rolls as the whole table may see them, newest on top, on nothing: a
    streaming program's browser source lays the page over the video."""
    campaign = overlay.campaign_for(token)
    if campaign is None:
        raise Http404("No such overlay.")
    cards, last_seq = newest_items(campaign, membership=None, limit=overlay.SHOWN, events=False)
    context = {"campaign": campaign, "cards": cards, "last_seq": last_seq, "token": token}
    return render(request, "rolls/overlay.html", context)


@login_required
@require_POST
def overlay_rotate(request: HtmxRequest, pk: int) -> HttpResponse:
    membership = gm_or_403(request.user, pk)
    campaigns.overlay_link_rotate(campaign=membership.campaign, actor=membership.user)
    messages.success(request, _("New stream overlay link made; the old one no longer works."))
    target = reverse("rolls:session", args=[pk])
    if request.htmx:
        return HttpResponseClientRedirect(target)
    return redirect(f"{target}#{OVERLAY_LINK}")  # the Invite panel open on the new link
