"""One POST to a Discord webhook, and what its answer means for the poster.

Discord's webhook API answers 204 (or 200 with the message, under ``?wait=true``) when it
posted; 429 with ``retry_after`` (in the JSON body, or the ``Retry-After`` header) when the
webhook's bucket is empty; 404 or 401 when the webhook was deleted or its token is wrong. Its
``X-RateLimit-Remaining`` and ``X-RateLimit-Reset-After`` headers say when the bucket refills,
so the next post waits for it rather than earning a 429. Anything else (a 5xx, a timeout, no
answer at all) is an outage: the poster tries again later. Nothing here sleeps or writes: it
says what happened, and the flush decides.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from enum import Enum
from typing import Any
from urllib.parse import urlsplit

import httpx
from django.conf import settings

logger = logging.getLogger(__name__)


class Outcome(Enum):
    POSTED = "posted"  # 2xx: it is in the channel
    LIMITED = "limited"  # 429: not posted; post it again after ``wait``
    GONE = "gone"  # 404, 401, 403: the webhook is no more (or not ours): turn it off
    REFUSED = "refused"  # another 4xx: Discord will never take this message as it is
    FAILED = "failed"  # 5xx, a timeout, no connection: not posted; try again later


@dataclass(frozen=True)
class Answer:
    outcome: Outcome
    wait: float = 0.0  # seconds before the next post to this webhook
    status: int = 0  # the HTTP status, 0 when none came
    detail: str = ""  # for the log and the GM's note


def client() -> httpx.Client:
    """A client for one run of the poster: its connections kept between posts."""
    timeout = float(settings.DISCORD_TIMEOUT)
    return httpx.Client(timeout=httpx.Timeout(timeout, connect=min(timeout, 5.0)), follow_redirects=False)


def target(url: str) -> str:
    """Where a webhook's posts go: its own URL, or the same path on ``DISCORD_API_URL`` when
    that is set (a proxy, or the tests' stand-in for Discord)."""
    base = str(getattr(settings, "DISCORD_API_URL", "") or "")
    if not base:
        return url
    parts = urlsplit(url)
    return base.rstrip("/") + parts.path


def post(http: httpx.Client, url: str, payload: dict[str, Any]) -> Answer:
    """Post ``payload`` to the webhook ``url`` and say what came of it."""
    try:
        response = http.post(target(url), params={"wait": "true"}, json=payload)
    except httpx.TimeoutException as error:
        return Answer(Outcome.FAILED, detail=f"no answer in time ({type(error).__name__})")
    except httpx.HTTPError as error:
        return Answer(Outcome.FAILED, detail=f"no connection ({type(error).__name__})")
    status = response.status_code
    if 200 <= status < 300:
        return Answer(Outcome.POSTED, wait=_bucket_wait(response.headers), status=status)
    if status == 429:
        return Answer(Outcome.LIMITED, wait=_retry_after(response), status=status)
    if status in (401, 403, 404):
        return Answer(Outcome.GONE, status=status, detail=_message(response))
    if 400 <= status < 500:
        return Answer(Outcome.REFUSED, status=status, detail=_message(response))
    return Answer(Outcome.FAILED, status=status, detail=f"Discord answered {status}")


def _seconds(value: Any) -> float | None:
    try:
        seconds = float(value)
    except (TypeError, ValueError):
        return None
    # A NaN or a negative figure means nothing to wait for; an hour is the most we take.
    return min(seconds, 3600.0) if seconds >= 0 else None


def _bucket_wait(headers: httpx.Headers) -> float:
    """How long the bucket says to wait before the next post: its reset when it is empty."""
    if headers.get("X-RateLimit-Remaining", "").strip() == "0":
        return _seconds(headers.get("X-RateLimit-Reset-After")) or 0.0
    return 0.0


def _retry_after(response: httpx.Response) -> float:
    """A 429's wait: ``retry_after`` of its JSON body, else its ``Retry-After`` header, else a
    second."""
    try:
        body = response.json()
    except ValueError:
        body = None
    if isinstance(body, dict) and (seconds := _seconds(body.get("retry_after"))) is not None:
        return seconds
    return _seconds(response.headers.get("Retry-After")) or 1.0


def _message(response: httpx.Response) -> str:
    try:
        body = response.json()
    except ValueError:
        body = None
    said = body.get("message") if isinstance(body, dict) else None
    return f"{response.status_code} {said}" if said else str(response.status_code)
