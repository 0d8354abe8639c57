"""Rate limits on the endpoints a script could hammer: login, sign-up, join, roll, follow-up.

A fixed window per client and endpoint, counted in Django's cache (in memory for one process,
Redis when ``REDIS_URL`` is set, so several workers share the count). Over the limit, the
request gets a 429 page that says when to try again; htmx requests get the message in the
page's notice area instead.

When the shared cache is gone (Redis stopped), each process counts in its own memory until it
answers again: the limits still hold, per process rather than for all of them, and nothing is
refused for want of a counter. Failing open would lift the login's limit on password guessing
for as long as Redis is down; answering 503 would stop every roll and every login of a table
whose database works (a roll is written to the database, not to Redis).
"""

from __future__ import annotations

import logging
import time

from django.conf import settings
from django.core.cache import cache
from django.core.cache.backends.base import BaseCache
from django.core.cache.backends.locmem import LocMemCache
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.deprecation import MiddlewareMixin
from django.utils.translation import ngettext
from django_htmx.http import reswap, retarget

from tabletop.errors import SERVICE_ERRORS

logger = logging.getLogger(__name__)

# The clock the windows are counted by (tests hold it still: a window that ends halfway through
# a test splits its count).
now = time.time

# This process's own counts, while the shared cache cannot be reached.
fallback = LocMemCache("ratelimit-fallback", {"OPTIONS": {"MAX_ENTRIES": 20000}})


# Every count's key starts so (the suite's check of who uses the cache reads it).
CACHE_PREFIX = "ratelimit:"


def client_key(request: HttpRequest) -> str:
    """The signed-in user when there is one (a whole table may share one public address),
    else the address the request came from (uvicorn puts the proxy's forwarded address there
    only for proxies it trusts)."""
    if request.user.is_authenticated:
        return f"user:{request.user.pk}"
    return f"ip:{request.META.get('REMOTE_ADDR', '')}"


class RateLimitMiddleware(MiddlewareMixin):
    def process_view(self, request: HttpRequest, *_view: object) -> HttpResponse | None:
        # By now the URL is resolved (resolving it a second time cost more than the count
        # itself), and a request that the CSRF check refused is not counted.
        if request.method != "POST" or request.resolver_match is None:
            return None
        return self._check(request, request.resolver_match.view_name)

    def _check(self, request: HttpRequest, name: str) -> HttpResponse | None:
        limit = settings.RATE_LIMITS.get(name)
        if limit is None:
            return None
        count, seconds = limit
        moment = now()
        window = int(moment // seconds)
        key = f"{CACHE_PREFIX}{name}:{client_key(request)}:{window}"
        try:
            used = _count(cache, key, seconds)
        except SERVICE_ERRORS as error:
            logger.warning("rate limit counted in this process, the cache failed: %s", error)
            used = _count(fallback, key, seconds)
        if used <= count:
            return None
        retry = seconds - int(moment) % seconds
        response = render(request, "429.html", {"retry": retry}, status=429)
        response["Retry-After"] = str(retry)
        if getattr(request, "htmx", False):
            response = render(request, "rolls/_refusal.html", {"message": _message(retry)}, status=429)
            response["Retry-After"] = str(retry)
            response = reswap(retarget(response, "#notice"), "innerHTML")
        return response


def _count(counts: BaseCache, key: str, seconds: int) -> int:
    # incr() and add() are each atomic in both the in-memory and the Redis cache; the common
    # case (the window has a count) costs one call, not two.
    try:
        return counts.incr(key)
    except ValueError:  # the window's first request, or another took it just now
        return 1 if counts.add(key, 1, timeout=seconds + 1) else counts.incr(key)


def _message(retry: int) -> str:
    return ngettext(
        "That was a lot of requests at once. Wait %(seconds)s seconds and try again.",
        "That was a lot of requests at once. Wait %(seconds)s seconds and try again.",
        retry,
    ) % {"seconds": retry}
