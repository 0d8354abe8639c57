"""Load shedding: a cap on the POST requests a server process works on at once.

Past its capacity a server only queues: every request waits longer, until SQLite's lock wait
(or PostgreSQL's pool wait) runs out after many seconds and the request fails anyway, having
held a thread and its memory all along (bench/load.py at twice the capacity: p50 12 s, 560
MB). With a cap, a request over it is answered at once with the 503 "busy, try again" page
(``tabletop.errors.busy``) and changes nothing, and those under it are served at the usual
speed. Reads are not capped: they are cheap and take no lock.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

from django.conf import settings
from django.http import HttpRequest, HttpResponse

from tabletop.errors import busy


class WriteCapMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response
        self.slots = threading.BoundedSemaphore(settings.MAX_CONCURRENT_WRITES)

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if request.method != "POST":
            return self.get_response(request)
        if not self.slots.acquire(blocking=False):
            return busy(request)
        try:
            return self.get_response(request)
        finally:
            self.slots.release()
