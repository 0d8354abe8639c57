"""How a refused roll, follow-up or contest step answers: a clear message, status 422, nothing
changed. Shared by every view that acts on the table (``play``, ``takeback``, ``contests``)."""

from __future__ import annotations

from collections.abc import Callable

from django.http import HttpResponse
from django.shortcuts import render
from django_htmx.http import reswap, retarget

from rolls.views.pages import Refusal
from tabletop.http import HtmxRequest

# Where htmx puts a refusal, the first that exists: the refusal slot of the form that was sent
# (next to the button tapped: the roll bar's, a card's follow-up's), the roll form's (a button
# of its own that posts it, the d3), or the page's message area.
REFUSAL_TARGET = "find [data-refusal], #roll-form [data-refusal], #notice"


def refusal_partial(request: HtmxRequest, message: str, target: str = REFUSAL_TARGET) -> HttpResponse:
    """The message alone, for htmx to swap into ``target`` instead of the expected answer."""
    response = render(request, "rolls/_refusal.html", {"message": message}, status=422)
    return reswap(retarget(response, target), "innerHTML")


def refuse(
    request: HtmxRequest, message: str, page: Callable[[Refusal], HttpResponse], form: str
) -> HttpResponse:
    """A refused roll or follow-up. htmx swaps the message next to what was tapped
    (``REFUSAL_TARGET``) instead of the result; a plain POST (no JavaScript) gets its whole
    ``page`` again, the message next to the ``form`` that sent it."""
    if not request.htmx:
        return page(Refusal(message, form))
    return refusal_partial(request, message)
