"""The feed for other tools: its stream (a key, no login) and the GM's keys in the console."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse, StreamingHttpResponse
from django.http.response import HttpResponseBase
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_POST

from rolls.bridges import stream, tokens
from rolls.bridges.forms import FeedTokenForm
from rolls.models import FeedToken
from rolls.views.confirm import ask_first, confirmed
from tabletop.access import MAX_ID, gm_or_403
from tabletop.http import HtmxRequest
from tabletop.joinlink import public_base
from tabletop.models import Campaign

# The console's panel of keys (rolls/_feed_tokens.html).
FEED_PANEL = "feed-tools"
# How long a client refused for too many streams is asked to wait.
BUSY_SECONDS = 30


# -- the stream ----------------------------------------------------------------------------------


class EventStream(StreamingHttpResponse):
    """The stream's response: its place among the open streams is given back when Django
    closes it, even if the client left before the stream began."""

    def __init__(self, place: stream.Place, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.place = place

    def close(self) -> None:
        try:
            super().close()
        finally:
            self.place.release()


def _refused(status: int, message: str, **headers: str) -> JsonResponse:
    response = JsonResponse({"error": message}, status=status)
    for name, value in headers.items():
        response[name.replace("_", "-")] = value
    return response


def _secret(request: HttpRequest) -> str:
    """The key: ``Authorization: Bearer <key>``, or ``?token=<key>`` for EventSource, which
    cannot send a header (docs/feed.md says what that costs)."""
    scheme, _space, value = request.headers.get("Authorization", "").partition(" ")
    if scheme.lower() == "bearer" and value.strip():
        return value.strip()
    return request.GET.get("token", "").strip()


def _cursor(request: HttpRequest) -> int | None:
    """Where to resume: after the ``Last-Event-ID`` the client last got, or ``?after=N``;
    None for neither (from now on). ValueError for anything but a whole number."""
    value = request.headers.get("Last-Event-ID", "").strip() or request.GET.get("after", "").strip()
    if not value:
        return None
    if not value.isdecimal() or int(value) > MAX_ID:
        raise ValueError(value)
    return int(value)


def _opened(campaign_id: int, secret: str) -> tuple[tokens.Checked, int]:
    """The key's check, marked as used when it opens the feed, with the log's last number."""
    checked = tokens.check(campaign_id, secret)
    if checked.token is None:
        return checked, 0
    tokens.mark_used(checked.token)
    return checked, checked.token.campaign.last_seq


@require_GET
@never_cache
async def feed_events(request: HttpRequest, campaign_id: int) -> HttpResponseBase:
    """The table's public entries as server-sent events (docs/feed.md): those after the
    cursor, then each new one as it is written."""
    secret = _secret(request)
    if not secret:
        return _refused(
            401,
            _("This feed needs a key: send it as “Authorization: Bearer <key>”, or as ?token=<key>."),
            WWW_Authenticate='Bearer realm="feed"',
        )
    try:
        after = _cursor(request)
    except ValueError:
        return _refused(400, _("Last-Event-ID and ?after= take a sequence number: a whole number from 0."))
    checked, last_seq = await stream.off_the_loop(_opened)(
        campaign_id if campaign_id <= MAX_ID else 0, secret
    )
    if checked.verdict is tokens.Verdict.UNKNOWN:
        return _refused(
            401,
            _("This key does not open any feed: it was revoked, or never was one."),
            WWW_Authenticate='Bearer realm="feed", error="invalid_token"',
        )
    if checked.verdict is tokens.Verdict.ELSEWHERE or checked.token is None:
        return _refused(403, _("This key opens another table's feed, not this one."))
    place = stream.admit(checked.token.pk)
    if place is None:
        return _refused(
            429,
            _("Too many streams are open with this key, or on this server: close one, or try again later."),
            Retry_After=str(BUSY_SECONDS),
        )
    events = stream.events(place, campaign_id, last_seq if after is None else after, public_base(request))
    response = EventStream(place, events, content_type="text/event-stream; charset=utf-8")
    response["X-Accel-Buffering"] = "no"  # nginx: pass each event on as it comes
    return response


# -- the console's keys --------------------------------------------------------------------------


def _panel(
    request: HtmxRequest,
    campaign: Campaign,
    *,
    made: tuple[FeedToken, str] | None = None,
    form: FeedTokenForm | None = None,
    refusal: str = "",
) -> HttpResponse:
    """The keys' panel for htmx, or a page of its own for a plain POST (the new key's secret
    is shown there, once: never put in a redirect, a message or a cookie)."""
    context = {
        "campaign": campaign,
        "feed_made": made,
        "feed_form": form or FeedTokenForm(),
        "feed_refusal": refusal,
        "feed_open": True,
    }
    template = "rolls/_feed_tokens.html" if request.htmx else "rolls/feed_tokens.html"
    return render(request, template, context, status=422 if refusal else 200)


@require_POST
@never_cache
def feed_token_create(request: HtmxRequest, pk: int) -> HttpResponse:
    membership = gm_or_403(request.user, pk)
    form = FeedTokenForm(request.POST)
    if not form.is_valid():
        refusal = _("Give the key a name of at most 60 characters, so you know which tool holds it.")
        return _panel(request, membership.campaign, form=form, refusal=refusal)
    try:
        made = tokens.token_create(campaign=membership.campaign, name=form.cleaned_data["name"])
    except tokens.TokenRefused as error:
        return _panel(request, membership.campaign, form=form, refusal=str(error))
    return _panel(request, membership.campaign, made=made)


def revoke_question(token: FeedToken) -> str:
    """What the GM is asked before a key is revoked: the console's dialog asks the same
    (``rolls/_feed_tokens.html``), one message in the catalogue."""
    return _(
        "Revoke the key “%(name)s”? The tool that uses it stops receiving the feed at once, "
        "and the key never opens it again."
    ) % {"name": token.name}


@require_POST
def feed_token_revoke(request: HtmxRequest, pk: int, token_id: int) -> HttpResponse:
    membership = gm_or_403(request.user, pk)
    token = FeedToken.objects.filter(campaign=membership.campaign, pk=min(token_id, MAX_ID)).first()
    if token is None:
        raise Http404("No such key.")
    if token.active and not confirmed(request):
        return ask_first(request, membership.campaign, revoke_question(token))
    tokens.token_revoke(token=token)
    if request.htmx:
        return _panel(request, membership.campaign)
    messages.success(
        request, _("Key “%(name)s” revoked: it no longer opens the feed.") % {"name": token.name}
    )
    return redirect(reverse("rolls:session", args=[pk]) + "#" + FEED_PANEL)
