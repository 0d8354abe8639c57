"""The flush of a campaign's posts: every entry after each webhook's cursor that the webhook
may see, posted in sequence order, the cursor advanced after each post Discord took.

"In order, never twice" is held by the data, not by timing: one flush per campaign at a time
(it claims the campaign's ``DiscordFeed`` row with a conditional UPDATE, a lease it renews
after each post), and each post advances its webhook's cursor with a compare-and-set, so a
flush that lost its place (the GM replaced the webhook, or its lease lapsed) stops before
posting again. The claim is a lease, not a row lock held across the posts: on SQLite a write
transaction locks the whole database, and a post may wait seconds on Discord.

Who sees what is the app's one rule (``rolls.sight.audience``), as the TV asks it: the table's
channel gets what ``TABLE`` sees, the GM's channel what only the GM sees (secret and blind
rolls, a contest's sealed side), each as of the entry's own moment: a secret roll's entries
go to the GM's channel even when the GM reveals it before they are posted, and the reveal
then posts the roll to the table's.
"""

from __future__ import annotations

import copy
import logging
import time
import uuid
from datetime import timedelta
from typing import Any, NamedTuple

from django.conf import settings
from django.db.models import Q
from django.urls import reverse
from django.utils import timezone, translation
from django.utils.translation import gettext as _

from rolls.discord import client, embeds, webhooks
from rolls.discord.client import Outcome
from rolls.log.events import TableEvent
from rolls.models import LogEntry, Roll, Visibility
from rolls.sight.audience import TABLE, Facts, Viewer, sight
from rolls.sight.cards import build_card
from tabletop.models import Campaign, DiscordFeed, DiscordWebhook, Membership

logger = logging.getLogger(__name__)

# How long a flush holds its campaign without a sign of life (renewed after each post): far
# longer than a post can take (DISCORD_TIMEOUT) or a rate limit is waited out in a run
# (DISCORD_LONGEST_WAIT), so only a worker that died lets it lapse.
LEASE = timedelta(minutes=5)
# Entries read at a time.
BATCH = 50
# When a flush finds another one posting: it looks again this many seconds later.
RECHECK = 2.0
# The table's decisions posted to its channel as a line (docs/discord.md): the evening's
# frame and the contests' outcomes. Calls for a roll, corrections, members, links and the
# contests' every step stay at the table.
POSTED_EVENTS = frozenset(
    {
        TableEvent.SESSION_START,
        TableEvent.SESSION_END,
        TableEvent.STORY,
        TableEvent.LONG_REST,
        TableEvent.CONTEST_OPEN,
        TableEvent.CONTEST_END,
        TableEvent.CONTEST_CANCEL,
    }
)
# Marks that show the table a roll it had not seen: the roll is posted to its channel then.
REVEALS = frozenset({TableEvent.ROLL_REVEAL, TableEvent.CONTEST_REVEAL})
TABLE_CHANNEL, GM_CHANNEL = DiscordWebhook.Audience.TABLE, DiscordWebhook.Audience.GM


class Again(NamedTuple):
    """When to flush the campaign again: ``after`` seconds; ``force``: even when a flush is
    queued already (this one found another posting, and must not be the one left out)."""

    after: float
    force: bool = False


def run(campaign_id: int) -> Again | None:
    """Post what the campaign's webhooks have not posted yet; say when to come back, if ever."""
    holder = uuid.uuid4().hex
    if not _claim(campaign_id, holder):
        # Another flush posts now; this one looks again after it, so an entry committed as
        # that one finished is not left waiting for the next roll.
        return Again(RECHECK, force=True)
    later: float | None = None
    try:
        campaign = Campaign.objects.filter(pk=campaign_id).first()
        if campaign is None:
            return None
        hooks = list(DiscordWebhook.objects.filter(campaign_id=campaign_id, note=""))
        with client.client() as http, translation.override(campaign.language):
            for hook in hooks:
                wait = _post_pending(http, campaign, hook, holder)
                if wait is not None:
                    later = wait if later is None else min(later, wait)
    finally:
        DiscordFeed.objects.filter(campaign_id=campaign_id, holder=holder).update(holder="", held_until=None)
    return Again(later) if later is not None else None


def _claim(campaign_id: int, holder: str) -> bool:
    now = timezone.now()
    return bool(
        DiscordFeed.objects.filter(campaign_id=campaign_id)
        .filter(Q(held_until__isnull=True) | Q(held_until__lt=now))
        .update(pending=False, holder=holder, held_until=now + LEASE)
    )


def _advance(hook: DiscordWebhook, done: int, holder: str) -> bool:
    """Move the webhook's cursor to ``done``, if it still stands where this flush read it and
    this flush still holds the campaign; whether it did."""
    if done == hook.cursor:
        return True
    moved = DiscordWebhook.objects.filter(pk=hook.pk, url=hook.url, cursor=hook.cursor).update(
        cursor=done, failures=0, retry_at=None
    )
    renewed = DiscordFeed.objects.filter(campaign_id=hook.campaign_id, holder=holder).update(
        held_until=timezone.now() + LEASE
    )
    if not moved or not renewed:
        logger.warning("Discord webhook %s: lost its place at #%s; stopping", hook.pk, done)
        return False
    hook.cursor = done
    return True


def _backoff(failures: int) -> float:
    return min(float(settings.DISCORD_RETRY_AFTER) * 2 ** max(failures - 1, 0), 600.0)


def _post_pending(http: Any, campaign: Campaign, hook: DiscordWebhook, holder: str) -> float | None:
    """Post the webhook's entries after its cursor. None when done (or turned off); else the
    seconds after which to try again."""
    now = timezone.now()
    if hook.retry_at is not None and hook.retry_at > now:
        return (hook.retry_at - now).total_seconds()
    longest = float(settings.DISCORD_LONGEST_WAIT)
    done = hook.cursor
    while True:
        entries = list(
            LogEntry.objects.filter(campaign_id=campaign.pk, seq__gt=done)
            .select_related("roll", "roll__character", "roll__target")
            .order_by("seq")[:BATCH]
        )
        if not entries:
            break
        for entry in entries:
            try:
                payload = payload_for(campaign, hook, entry)
            except Exception:
                # An entry that cannot be drawn (a state no engine reads any more) must not
                # hold up every post after it: passed over, and logged for whoever runs it.
                logger.exception("Discord: entry #%s of campaign %s not drawn", entry.seq, campaign.pk)
                payload = None
            if payload is None:
                done = entry.seq  # nothing for this channel: passed over
                continue
            answer = client.post(http, hook.url, payload)
            while answer.outcome is Outcome.LIMITED and answer.wait <= longest:
                time.sleep(answer.wait)
                answer = client.post(http, hook.url, payload)
            if answer.outcome in (Outcome.POSTED, Outcome.REFUSED):
                if answer.outcome is Outcome.REFUSED:
                    # Discord will never take it as it is: passed over, so the rest still go.
                    logger.warning("Discord refused entry #%s: %s", entry.seq, answer.detail)
                if not _advance(hook, entry.seq, holder):
                    return None
                done = entry.seq
                if answer.wait:
                    time.sleep(min(answer.wait, longest))  # the bucket is empty: wait for it
                continue
            if not _advance(hook, done, holder):
                return None
            if answer.outcome is Outcome.GONE:
                webhooks.turn_off(hook, gone_note(answer.status))
                logger.warning("Discord webhook %s turned off: %s", hook.pk, answer.detail)
                return None
            if answer.outcome is Outcome.LIMITED:
                # Longer than a run waits: a later run, and no roll's flush before then.
                retry_at = timezone.now() + timedelta(seconds=answer.wait)
                DiscordWebhook.objects.filter(pk=hook.pk).update(retry_at=retry_at)
                return answer.wait
            failures = hook.failures + 1
            wait = _backoff(failures)
            DiscordWebhook.objects.filter(pk=hook.pk).update(
                failures=failures, retry_at=timezone.now() + timedelta(seconds=wait)
            )
            logger.info("Discord webhook %s: %s; next try in %.0f s", hook.pk, answer.detail, wait)
            return wait
    _advance(hook, done, holder)
    return None


def gone_note(status: int) -> str:
    """What the GM reads on the console about a webhook Discord no longer takes."""
    when = timezone.localtime().strftime("%Y-%m-%d %H:%M")
    if status == 404:
        return _(
            "Turned off on %(when)s: Discord answered that this webhook no longer exists (404). "
            "Make a new one in the channel's settings and paste it here."
        ) % {"when": when}
    return _(
        "Turned off on %(when)s: Discord refused this webhook's token (%(status)s). "
        "Make a new one in the channel's settings and paste it here."
    ) % {"when": when, "status": status}


def _gm(campaign: Campaign) -> Membership:
    # Unsaved: only who it is counts (``Viewer.of``).
    return Membership(campaign=campaign, user_id=campaign.gm_id, is_gm=True)


def seen_by(entry: LogEntry, roll: Roll, campaign: Campaign) -> str | None:
    """Which channel may show ``entry`` of ``roll`` as of the entry's moment: the table's (what
    everyone saw), the GM's (what only the GM saw), or neither (a side sealed from the GM too)."""
    then = _as_then(roll, entry.seq)
    facts = Facts.of_roll(then)
    if sight(facts, TABLE).dice:
        return TABLE_CHANNEL
    if sight(facts, Viewer.of(_gm(campaign))).dice:
        return GM_CHANNEL
    return None


def _as_then(roll: Roll, seq: int) -> Roll:
    """The roll as it stood at entry ``seq``: revealed only from its reveal's entry on."""
    if roll.visibility == Visibility.PUBLIC or not roll.revealed:
        return roll
    reveal = (
        LogEntry.objects.filter(roll_id=roll.pk, action__in=list(REVEALS))
        .order_by("seq")
        .values_list("seq", flat=True)
        .first()
    )
    if reveal is None or seq >= reveal:
        return roll
    then = copy.copy(roll)
    then.revealed = False
    return then


def _link(hook: DiscordWebhook, path: str) -> str:
    base = str(settings.PUBLIC_URL or hook.origin or "").rstrip("/")
    return base + path if base else ""


def payload_for(campaign: Campaign, hook: DiscordWebhook, entry: LogEntry) -> dict[str, Any] | None:
    """What ``hook``'s channel is sent for ``entry``, or None: not for that channel."""
    roll = entry.roll
    if roll is None:
        if hook.audience == TABLE_CHANNEL and entry.action in POSTED_EVENTS:
            return embeds.event_embed(campaign=campaign, entry=entry)
        return None
    roll.campaign = campaign
    if entry.kind == LogEntry.Kind.EVENT:
        if entry.action in REVEALS and hook.audience == TABLE_CHANNEL:
            return _roll_payload(campaign, hook, entry, roll, membership=None)
        if entry.action == TableEvent.ROLL_VOID and seen_by(entry, roll, campaign) == hook.audience:
            first = LogEntry.objects.filter(roll_id=roll.pk, kind=LogEntry.Kind.ROLL).values_list(
                "seq", flat=True
            )
            link = _link(hook, reverse("rolls:roll", args=[campaign.pk, roll.pk]))
            number = first.first() or entry.seq
            return embeds.event_embed(campaign=campaign, entry=entry, link=link, number=number)
        return None
    channel = seen_by(entry, roll, campaign)
    if channel != hook.audience:
        return None
    membership = None if channel == TABLE_CHANNEL else _gm(campaign)
    return _roll_payload(campaign, hook, entry, _as_then(roll, entry.seq), membership=membership)


def _roll_payload(
    campaign: Campaign, hook: DiscordWebhook, entry: LogEntry, roll: Roll, *, membership: Membership | None
) -> dict[str, Any] | None:
    state = entry.state or {}
    card = build_card(roll, state, entry.seq, place="feed", membership=membership)
    if card.hidden:
        return None  # never "rolled in secret" in a channel: nothing to say there
    previous = None
    if entry.kind == LogEntry.Kind.FOLLOW_UP:
        previous = (
            LogEntry.objects.filter(roll_id=roll.pk, seq__lt=entry.seq, state__isnull=False)
            .order_by("-seq")
            .values_list("state", flat=True)
            .first()
        )
    return embeds.roll_embed(
        campaign=campaign, entry=entry, card=card, link=_link(hook, card.page_url), previous=previous
    )


def test_message(webhook_id: int) -> None:
    """Post the console's test message to the webhook: it says the channel is connected. A
    webhook Discord no longer takes is turned off, with the note, as a flush would."""
    hook = DiscordWebhook.objects.select_related("campaign").filter(pk=webhook_id).first()
    if hook is None:
        return
    campaign = hook.campaign
    with client.client() as http, translation.override(campaign.language):
        label = str(DiscordWebhook.Audience(hook.audience).label)
        payload = embeds.test_embed(campaign=campaign, audience_label=label)
        answer = client.post(http, hook.url, payload)
        if answer.outcome is Outcome.LIMITED and answer.wait <= float(settings.DISCORD_LONGEST_WAIT):
            time.sleep(answer.wait)
            answer = client.post(http, hook.url, payload)
    if answer.outcome is Outcome.GONE:
        webhooks.turn_off(hook, gone_note(answer.status))
    elif answer.outcome is not Outcome.POSTED:
        logger.warning("Discord test message to webhook %s: %s", hook.pk, answer.detail)
