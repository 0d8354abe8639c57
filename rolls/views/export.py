"""The campaign's log taken away and checked: its export (CSV, JSON) and the check of its hash
chain that the history page's button runs."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse, HttpResponseBadRequest, StreamingHttpResponse
from django.shortcuts import render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST

from rolls.history import browse, export
from rolls.history.streaming import SyncStreamingResponse
from rolls.history.verify import check_since, said
from rolls.sight.audience import Viewer
from tabletop.access import MAX_ID, membership_or_404
from tabletop.http import HtmxRequest
from tabletop.models import PlaySession

FORMATS = {"csv": "text/csv; charset=utf-8", "json": "application/json"}


@require_GET
def export_log(request: HttpRequest, pk: int) -> HttpResponse | StreamingHttpResponse:
    """``?format=csv|json`` (CSV by default) and ``&session=N`` for one play session; what the
    member may see of it, streamed."""
    membership = membership_or_404(request.user, pk)
    kind = request.GET.get("format", "csv")
    if kind not in FORMATS:
        return HttpResponseBadRequest(_("Choose format=csv or format=json."), content_type="text/plain")
    session = None
    number = request.GET.get("session", "")
    if number:
        # isdecimal, not isdigit: int() refuses "²"; and a number no column holds matches nothing.
        if not number.isdecimal() or not 0 < int(number) <= MAX_ID:
            return HttpResponseBadRequest(_("A session is given by its number."), content_type="text/plain")
        session = PlaySession.objects.filter(campaign_id=pk, number=int(number)).first()
        if session is None:
            return HttpResponseBadRequest(
                _("There is no session %(number)s.") % {"number": int(number)}, content_type="text/plain"
            )
    scope = export.Scope(campaign=membership.campaign, viewer=Viewer.of(membership), session=session)
    parts = export.csv_lines(scope) if kind == "csv" else export.json_parts(scope)
    response = SyncStreamingResponse(parts, content_type=FORMATS[kind])
    response["Content-Disposition"] = f'attachment; filename="{export.filename(scope, kind)}"'
    return response


@require_POST
def verify(request: HtmxRequest, pk: int) -> HttpResponse:
    """Run the chain check (any member) and say what it found: the entries written since the
    last press that found the log intact, so a press costs little however long the log."""
    membership = membership_or_404(request.user, pk)
    campaign = membership.campaign
    outcome = check_since(campaign)
    campaign.refresh_from_db(fields=["last_seq"])
    context = {
        "campaign": campaign,
        "verdict": said(outcome, campaign),
        "intact": outcome.intact,
        # A long log checked a piece at a time: the page asks for the next piece by itself.
        "more": outcome.intact and not outcome.finished,
        "export_options": browse.export_options(browse.session_numbers(campaign)),
    }
    template = "rolls/_log_tools.html" if request.htmx else "rolls/verify_log.html"
    return render(request, template, context)
