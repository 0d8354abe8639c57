"""Controls that ask once before they act: a session's end, a new Mystery or rest, settling or
calling off a contest, revoking a feed key. The page's button asks in htmx's dialog
(``hx-confirm``) and sends ``confirmed=yes`` with the post (``hx-vals``); a post without it
(no script, so no dialog ran) gets the question as a page of its own, and nothing changes yet.
"""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from tabletop.models import Campaign

FIELD = "confirmed"
CONFIRMED = "yes"


def confirmed(request: HttpRequest) -> bool:
    """Whether the post says the GM answered the question."""
    return request.POST.get(FIELD) == CONFIRMED


def ask_first(request: HttpRequest, campaign: Campaign, question: str) -> HttpResponse:
    """The question as a page whose button posts the same request again, confirmed."""
    context = {
        "campaign": campaign,
        "question": question,
        "action": request.path,
        "field": FIELD,
        "confirmed": CONFIRMED,
    }
    return render(request, "rolls/confirm.html", context)
