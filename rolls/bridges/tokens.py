"""The keys that open a table's feed: made by the GM, shown once, kept as a hash, revoked at once.

A key is ``ttf_`` and 43 random URL-safe characters (256 bits). Only its SHA-256 is stored: it
is looked up by that hash (a unique index), and the stored hash is compared again in constant
time. Looking up by a hash tells a timing attacker nothing of the key, since whoever chooses
what is hashed cannot choose what its hash begins with.

Revoking writes the time and, once that commits, tells the key's group on the channel layer
(``revoked_group``), so every open stream of it closes at once, in any process that shares the
layer; each stream also reads its key again between entries and at every keep-alive, so a
stream that missed the message stops at the next one.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import logging
import secrets
from dataclasses import dataclass
from enum import Enum

from asgiref.sync import async_to_sync
from channels.layers import BaseChannelLayer, get_channel_layer
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from rolls.models import FeedToken
from tabletop.errors import SERVICE_ERRORS
from tabletop.models import Campaign
from tabletop.serving.request_threads import serving_loop

logger = logging.getLogger(__name__)

PREFIX = "ttf_"
# Keys that work at once per campaign: a bridge or two per table, and room to replace them.
MAX_ACTIVE = 10
# A key longer than this is nobody's: refused before it is hashed.
MAX_LENGTH = 200
HINT = len(PREFIX) + 4


class TokenRefused(ValueError):
    """Why a key could not be made; ``str()`` is shown to the GM as it is."""


def digest(secret: str) -> str:
    return hashlib.sha256(secret.encode("utf-8")).hexdigest()


def revoked_group(token_id: int) -> str:
    return f"feed-token-{token_id}"


def token_create(*, campaign: Campaign, name: str) -> tuple[FeedToken, str]:
    """A new key for ``campaign``'s feed, and its secret: the only time anyone sees it."""
    name = name.strip()
    if not name:
        raise TokenRefused(_("Give the key a name, so you know which tool holds it."))
    with transaction.atomic():
        # Counted under the campaign's row lock: two GMs' tabs cannot both make the eleventh.
        list(Campaign.objects.select_for_update().filter(pk=campaign.pk).values_list("pk", flat=True))
        active = FeedToken.objects.filter(campaign=campaign, revoked__isnull=True).count()
        if active >= MAX_ACTIVE:
            raise TokenRefused(
                _("This table has %(count)s keys that work already: revoke one before making another.")
                % {"count": active}
            )
        secret = PREFIX + secrets.token_urlsafe(32)
        token = FeedToken.objects.create(
            campaign=campaign, name=name, digest=digest(secret), hint=secret[:HINT]
        )
    return token, secret


def token_revoke(*, token: FeedToken) -> bool:
    """Stop ``token`` for good; its open streams close. False when it was revoked already."""
    with transaction.atomic():
        changed = FeedToken.objects.filter(pk=token.pk, revoked__isnull=True).update(revoked=timezone.now())
        if changed:
            transaction.on_commit(lambda: _tell_streams(token.pk))
    token.refresh_from_db(fields=["revoked"])
    return bool(changed)


class Verdict(Enum):
    OPEN = "open"
    UNKNOWN = "unknown"  # no such key, or revoked: 401
    ELSEWHERE = "elsewhere"  # a key of another campaign: 403


@dataclass(frozen=True)
class Checked:
    verdict: Verdict
    token: FeedToken | None = None


def check(campaign_id: int, secret: str) -> Checked:
    """Whether ``secret`` opens the feed of campaign ``campaign_id``, and its key when it does."""
    if not secret.startswith(PREFIX) or len(secret) > MAX_LENGTH:
        return Checked(Verdict.UNKNOWN)
    wanted = digest(secret)
    token = FeedToken.objects.select_related("campaign").filter(digest=wanted).first()
    if token is None or not hmac.compare_digest(token.digest, wanted) or not token.active:
        return Checked(Verdict.UNKNOWN)
    if token.campaign_id != campaign_id:
        return Checked(Verdict.ELSEWHERE)
    return Checked(Verdict.OPEN, token)


def mark_used(token: FeedToken) -> None:
    """A stream opened with it now: the console shows when each key was last used."""
    token.last_used = timezone.now()
    FeedToken.objects.filter(pk=token.pk).update(last_used=token.last_used)


def _tell_streams(token_id: int) -> None:
    """After the revocation commits: every stream of the key, in every process, closes now."""
    layer = get_channel_layer()
    if layer is None:
        return
    group, message = revoked_group(token_id), {"type": "feed.revoked", "token": token_id}
    loop = serving_loop()
    if loop is None:
        try:
            async_to_sync(layer.group_send)(group, message)
        except SERVICE_ERRORS as error:  # the streams find it at their next keep-alive
            logger.warning("could not tell the streams of key %s: %s", token_id, error)
        return
    # On a request thread: the serving loop sends it (rolls.live.publish does the same).
    loop.call_soon_threadsafe(_send_on_loop, loop, layer, group, message)


_sending: set[asyncio.Task[None]] = set()  # the loop keeps only a weak reference to a task


def _send_on_loop(
    loop: asyncio.AbstractEventLoop, layer: BaseChannelLayer, group: str, message: dict[str, object]
) -> None:
    task = loop.create_task(layer.group_send(group, message))
    _sending.add(task)
    task.add_done_callback(_sent)


def _sent(task: asyncio.Task[None]) -> None:
    _sending.discard(task)
    if not task.cancelled() and (error := task.exception()) is not None:
        logger.warning("could not tell the streams of a revoked key: %s", error)
