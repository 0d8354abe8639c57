"""Load shedding: a cap on the POST requests a server process works on or queues for at once.

Past its capacity a server only queues: every request waits longer, until SQLite's lock wait
(or PostgreSQL's pool wait) runs out after many seconds and the request fails anyway, having
held its memory all along (bench/load.py at twice the capacity: p50 12 s, 560 MB). With a
cap, a request over it is answered at once with the 503 "busy, try again" page
(``tabletop.errors.busy``) and changes nothing, and those under it are served at the usual
speed. Reads are not capped: they are cheap and take no lock.

The count is kept where requests queue, in the ASGI handler (``tabletop.serving.request_threads``),
which marks a request over the cap in its environ (``request.META``); this middleware gives it its answer. With
``FAST_PATH["request_threads"]`` off, Django's own handler serves and marks nothing: the cap
is not enforced and this middleware passes every request on.
"""

from __future__ import annotations

from collections.abc import Callable

from django.http import HttpRequest, HttpResponse

from tabletop.errors import busy
from tabletop.serving.request_threads import OVER_CAPACITY


class WriteCapMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if request.META.get(OVER_CAPACITY):
            return busy(request)
        return self.get_response(request)
