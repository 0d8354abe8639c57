"""Whose language a request is drawn in: the table's, under a campaign and on its TV.

Django's ``LocaleMiddleware`` activates the browser's language (Accept-Language) or the one
chosen with the switch (``set_language``'s cookie) for every page. A table plays in one
language, ``Campaign.language``: for a request whose URL names a campaign (``rolls``'s ``pk``)
or a table display or stream overlay (its token), ``CampaignLanguageMiddleware`` activates the
campaign's instead.

It costs no query. The middleware only notes which campaign the URL names; the view reads that
campaign anyway, first of all (the membership with its campaign, ``tabletop.access``; the
display by its token), and ``Campaign.from_db`` hands every row it loads to ``loaded()``, which
activates the language of the one noted. Nothing is drawn before that read: a refusal before it
(a signed-out visitor, someone who is not a member) is drawn in the browser's language, which
tells a stranger nothing of the table. docs/translations.md says where each language is active.
"""

from __future__ import annotations

from collections.abc import Callable
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.db.models import Model
from django.http import HttpRequest, HttpResponse
from django.utils import translation

# The codes a table may play in, and each language's name in its own words.
NAMES: dict[str, str] = dict(settings.LANGUAGES)


def shipped(code: str) -> bool:
    return code in NAMES


@dataclass(frozen=True)
class _Wanted:
    """The campaign a request's URL names: the column that names it and its value."""

    request: HttpRequest
    column: str  # "id", "display_token" or "overlay_token"
    value: object


# Set by the middleware for the request running in this context (a request thread runs one
# request at a time, each in the context it is called in under ASGI), None between requests.
_wanted: ContextVar[_Wanted | None] = ContextVar("campaign_language_wanted", default=None)


class CampaignLanguageMiddleware:
    """Notes the campaign a request's URL names, so that its language is active once the view
    has read it (``loaded``). After ``LocaleMiddleware``, which this overrides."""

    sync_capable = True
    async_capable = False

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        # Cleared around each request: a long-lived request thread keeps its context.
        _wanted.set(None)
        try:
            return self.get_response(request)
        finally:
            _wanted.set(None)

    def process_view(
        self,
        request: HttpRequest,
        view_func: Callable[..., Any],
        view_args: tuple[Any, ...],
        view_kwargs: dict[str, Any],
    ) -> None:
        match = request.resolver_match
        if match is None or match.namespace != "rolls":
            return
        if "pk" in view_kwargs:  # every page and action of a campaign: /c/<pk>/...
            _wanted.set(_Wanted(request, "id", view_kwargs["pk"]))
        elif match.url_name == "display":  # the TV's page, by its own token
            _wanted.set(_Wanted(request, "display_token", view_kwargs.get("token")))
        elif match.url_name == "overlay":  # the stream overlay, by its own token
            _wanted.set(_Wanted(request, "overlay_token", view_kwargs.get("token")))


def loaded(campaign: Model) -> None:
    """A campaign row was read: if it is the one this request's URL names, its language is
    active from now on (called by ``tabletop.models.Campaign.from_db``, hence no import of it
    here; once per request)."""
    wanted = _wanted.get()
    if wanted is None:
        return
    values = campaign.__dict__  # only what was loaded: a deferred column is not read for this
    if values.get(wanted.column) != wanted.value or "language" not in values:
        return
    _wanted.set(None)
    code = values["language"]
    if shipped(code):
        translation.activate(code)
        # As LocaleMiddleware sets it; and the page leaves the switch out (templates/_language_switch.html).
        wanted.request.LANGUAGE_CODE = code
        wanted.request.table_language = code  # type: ignore[attr-defined]
