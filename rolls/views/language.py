"""The table's language: the GM chooses it on the console (rolls/_language_form.html).

Pages outside a campaign have Django's own switch (``set_language``, templates/_language_switch.html).
"""

from __future__ import annotations

from django.contrib import messages
from django.http import HttpResponse
from django.shortcuts import redirect
from django.urls import reverse
from django.utils import translation
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST
from django_htmx.http import HttpResponseClientRedirect

from rolls.campaigns import services
from rolls.systems import RulesError
from tabletop import language as languages
from tabletop.access import gm_or_403
from tabletop.http import HtmxRequest


@require_POST
def language_set(request: HtmxRequest, pk: int) -> HttpResponse:
    """The GM sets the language the table plays in; a player is refused (403), an unknown code
    too (the message says which the app speaks), and nothing changes."""
    membership = gm_or_403(request.user, pk)
    campaign = membership.campaign
    try:
        services.language_set(
            campaign=campaign, gm=membership.user, language=request.POST.get("language", "")
        )
    except RulesError as error:
        messages.error(request, str(error))
    else:
        # The console the GM goes back to is drawn in the new language, and so is this.
        translation.activate(campaign.language)
        messages.success(
            request,
            _("The table now plays in %(language)s.") % {"language": languages.NAMES[campaign.language]},
        )
    target = reverse("rolls:session", args=[pk])
    if request.htmx:
        return HttpResponseClientRedirect(target)
    return redirect(target)
