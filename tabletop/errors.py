"""Error pages in the app's own look, with a plain message and a way back."""

from __future__ import annotations

import logging
import sys
from urllib.parse import urlsplit

from django.conf import settings
from django.contrib.auth.models import AnonymousUser
from django.contrib.auth.views import redirect_to_login
from django.db import OperationalError
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render, resolve_url
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop
from django_htmx.http import HttpResponseClientRedirect, reswap, retarget
from redis.exceptions import RedisError

from tabletop.access import SignInFirst

logger = logging.getLogger(__name__)

# A service the request needs is gone or cannot take it: the database (OperationalError: the
# pool waited out, the server down) or Redis (the cache, the channel layer). Such a request
# is answered 503 "try again" (or a socket closed with a code the page reconnects on), never
# a 500: it is the same request that works a moment later.
SERVICE_ERRORS: tuple[type[Exception], ...] = (OperationalError, RedisError)

# Seconds a refused request is asked to wait when the database could not take it.
BUSY_RETRY = 5
# Marked for the catalogue and translated where drawn: tests and callers compare the English.
BUSY_MESSAGE = gettext_noop(
    "The table is very busy right now and could not take that. Nothing changed: try again in a few seconds."
)
# Not a busy table but a service gone: said apart, so nobody waits out an outage as a rush, and
# whoever runs the server knows which it is.
OUTAGE_MESSAGE = gettext_noop(
    "The server cannot reach the table's database or its message service right now. Nothing "
    "changed: try again in a moment, and if it lasts, tell whoever runs the server."
)
OUTAGE_TITLE = gettext_noop("Out of reach")


def is_outage(error: BaseException | None) -> bool:
    """Whether a refused request met a service that is gone (the database down or unreachable,
    Redis gone), rather than one too busy to take it (SQLite's write lock waited out, every
    pooled PostgreSQL connection in use while the server still answers)."""
    if error is None:
        return False  # the admission limit: too many requests at once
    if isinstance(error, RedisError):
        return True
    if not isinstance(error, OperationalError):
        return False
    text = str(error).lower()
    if "database is locked" in text or "database table is locked" in text:
        return False  # SQLite: another write held the lock past the timeout
    if _pool_timeout(error):
        return not _database_answers()
    return True


def _pool_timeout(error: BaseException) -> bool:
    """Whether the pool waited out its timeout for a connection (psycopg_pool's PoolTimeout)."""
    cause: BaseException | None = error
    while cause is not None:
        text = str(cause).lower()
        if (
            type(cause).__name__ == "PoolTimeout"
            or "couldn't get a connection" in text
            or "pool timed out" in text
        ):
            return True
        cause = cause.__cause__ or cause.__context__
    return False


def _database_answers() -> bool:
    """Whether PostgreSQL takes a new connection within a second: the pool waited out its
    timeout either way, and only this tells a full pool (overload) from a server gone."""
    from django.db import connection

    if connection.vendor != "postgresql":
        return True  # no server to ask: a pool's wait is the only sign, and it says busy
    try:
        import psycopg

        params = connection.get_connection_params()
        params["connect_timeout"] = 1
        psycopg.connect(**params).close()
    except Exception:  # refused, timed out, or no PostgreSQL here at all
        return False
    return True


def not_found(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    return render(
        request,
        "error.html",
        {"title": _("Not found"), "message": _("There is nothing here for you.")},
        status=404,
    )


def forbidden(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    if isinstance(exception, SignInFirst):
        return _sign_in_first(request)
    message = str(exception) if exception and str(exception) else _("You may not do that.")
    return render(request, "error.html", {"title": _("Not allowed"), "message": message}, status=403)


def _sign_in_first(request: HttpRequest) -> HttpResponse:
    """To the sign-in page, which comes back here afterwards: to the page itself for a GET;
    for a form sent or an htmx request, to the page it was sent from (a POST's URL cannot be
    opened), when that page is ours."""
    if request.method in ("GET", "HEAD") and not request.headers.get("HX-Request"):
        return redirect_to_login(request.get_full_path())
    came_from = request.headers.get("HX-Current-URL") or request.headers.get("Referer") or ""
    safe = url_has_allowed_host_and_scheme(
        came_from, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    )
    login = resolve_url(settings.LOGIN_URL)
    if safe and came_from:
        parts = urlsplit(came_from)
        login = redirect_to_login(parts.path + (f"?{parts.query}" if parts.query else ""))["Location"]
    if request.headers.get("HX-Request"):
        return HttpResponseClientRedirect(login)
    return redirect(login)


def server_error(request: HttpRequest) -> HttpResponse:
    """Django calls this inside the ``except`` of whatever went wrong, anywhere in the
    request (middleware included), so the exception is still at hand."""
    if isinstance(sys.exc_info()[1], SERVICE_ERRORS):
        return busy(request)
    return render(
        request,
        "error.html",
        {"title": _("Something broke"), "message": _("The table hiccupped. Try again.")},
        status=500,
    )


def busy(request: HttpRequest) -> HttpResponse:
    """503 when the server cannot take a request: too many at once (tabletop.serving.admission), or
    the database could not (SQLite's write lock waited past its timeout, PostgreSQL's
    connection pool stayed empty, the database is down), or Redis is gone. Nothing was
    written, or the request's transaction rolled back: the client may simply retry."""
    reason = sys.exc_info()[1] or "too many requests at once"
    logger.warning("busy: %s %s refused: %s", request.method, request.path, reason)
    outage = is_outage(reason if isinstance(reason, BaseException) else None)
    title = _(OUTAGE_TITLE) if outage else _("Too busy")
    context: dict[str, object] = {"message": _(OUTAGE_MESSAGE) if outage else _(BUSY_MESSAGE)}
    if isinstance(reason, SERVICE_ERRORS):
        # The page is drawn without the signed-in user and the flash messages: both read the
        # session, and with the database gone that is one more wait for a connection (3 s)
        # before the same answer.
        context |= {"user": AnonymousUser(), "messages": ()}
    try:
        if request.headers.get("HX-Request") == "true":  # whatever middleware has run yet
            response = render(request, "rolls/_refusal.html", context, status=503)
            response = reswap(retarget(response, "#notice"), "innerHTML")
        else:
            response = render(request, "error.html", {"title": title, **context}, status=503)
    except Exception:  # the page itself needs the database (the signed-in user, say)
        response = HttpResponse(str(context["message"]), content_type="text/plain; charset=utf-8", status=503)
    response["Retry-After"] = str(BUSY_RETRY)
    return response
