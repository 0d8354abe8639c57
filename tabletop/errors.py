"""Error pages in the app's own look, with a plain message and a way back."""

from __future__ import annotations

import logging
import sys

from django.db import OperationalError
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django_htmx.http import reswap, retarget

logger = logging.getLogger(__name__)

# Seconds a refused request is asked to wait when the database could not take it.
BUSY_RETRY = 5
BUSY_MESSAGE = (
    "The table is very busy right now and could not take that. Nothing changed: try again in a few seconds."
)


class OneLineRefusals(logging.Filter):
    """On ``django.request``: a refused request (403 and the other 4xx) in one line, with the
    refusal's reason, not its traceback. Django logs a PermissionDenied with the exception
    attached, so each player who taps a GM control wrote a dozen lines of stack; a refusal
    is the app working as it should. 5xx keep their traceback."""

    def filter(self, record: logging.LogRecord) -> bool:
        status = getattr(record, "status_code", None)
        if record.exc_info and isinstance(status, int) and status < 500:
            reason = str(record.exc_info[1])
            if reason and isinstance(record.args, tuple):
                # Escaped as Django escapes the path: one line, whatever the message holds.
                record.msg = f"{record.msg} (%s)"
                record.args = (*(record.args or ()), reason.encode("unicode_escape").decode("ascii"))
            record.exc_info = None
            record.exc_text = None
        return True


def not_found(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    return render(
        request, "error.html", {"title": "Not found", "message": "There is nothing here for you."}, status=404
    )


def forbidden(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    message = str(exception) if exception and str(exception) else "You may not do that."
    return render(request, "error.html", {"title": "Not allowed", "message": message}, status=403)


def server_error(request: HttpRequest) -> HttpResponse:
    """Django calls this inside the ``except`` of whatever went wrong, anywhere in the
    request (middleware included), so the exception is still at hand."""
    if isinstance(sys.exc_info()[1], OperationalError):
        return busy(request)
    return render(
        request,
        "error.html",
        {"title": "Something broke", "message": "The table hiccupped. Try again."},
        status=500,
    )


def busy(request: HttpRequest) -> HttpResponse:
    """503 when the server cannot take a request: too many at once (tabletop.serving.admission), or
    the database could not (SQLite's write lock waited past its timeout, PostgreSQL's
    connection pool stayed empty, the database is down). Nothing was written, or the
    request's transaction rolled back: the client may simply retry."""
    reason = sys.exc_info()[1] or "too many requests at once"
    logger.warning("busy: %s %s refused: %s", request.method, request.path, reason)
    try:
        if request.headers.get("HX-Request") == "true":  # whatever middleware has run yet
            response = render(request, "rolls/_refusal.html", {"message": BUSY_MESSAGE}, status=503)
            response = reswap(retarget(response, "#notice"), "innerHTML")
        else:
            response = render(
                request, "error.html", {"title": "Too busy", "message": BUSY_MESSAGE}, status=503
            )
    except Exception:  # the page itself needs the database (the signed-in user, say)
        response = HttpResponse(BUSY_MESSAGE, content_type="text/plain; charset=utf-8", status=503)
    response["Retry-After"] = str(BUSY_RETRY)
    return response
