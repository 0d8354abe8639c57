"""The poster's tasks, run by Django's tasks framework (``db_worker``: docs/discord.md), and
the coalesced queueing of a flush."""

from __future__ import annotations

from datetime import timedelta

from django.db import transaction
from django.tasks import task
from django.utils import timezone

from rolls.discord import flush
from tabletop.models import DiscordFeed


@task()
def flush_campaign(campaign_id: int) -> None:
    """Post every entry of the campaign that its webhooks have not posted yet, in order."""
    again = flush.run(campaign_id)
    if again is not None:
        wake(campaign_id, after=again.after, force=again.force)


@task()
def send_test(webhook_id: int) -> None:
    """The console's "Send a test message"."""
    flush.test_message(webhook_id)


def wake(campaign_id: int, *, after: float = 0.0, force: bool = False) -> bool:
    """Queue a flush of the campaign's posts unless one is queued already (``force``: queue
    one all the same, for a flush that found another one posting). ``after``: seconds to wait
    before it runs (a retry's backoff). Whether one was queued."""
    rows = DiscordFeed.objects.filter(campaign_id=campaign_id)
    queued = flush_campaign
    if after > 0:
        queued = queued.using(run_after=timezone.now() + timedelta(seconds=after))
    # One transaction: never "pending" without the task that clears it.
    with transaction.atomic():
        marked = rows.update(pending=True) if force else rows.filter(pending=False).update(pending=True)
        if marked:
            queued.enqueue(campaign_id)
    return bool(marked)
