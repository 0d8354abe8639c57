"""Wake the poster when an entry of a campaign that posts to Discord commits.

A roll pays for this only when its campaign has a webhook on (``LogEntry.posts``, read by the
statement that numbers the entry), and then one short UPDATE, plus one INSERT of the task
when none is queued yet: a burst of rolls queues one flush, which posts them all. Nothing
here may fail a roll: the entry is committed, and a flush missed now runs with the next one.
"""

from __future__ import annotations

import logging
from datetime import timedelta
from typing import TYPE_CHECKING, Any

from django.db import DatabaseError
from django.utils import timezone

from tabletop.models import DiscordFeed

if TYPE_CHECKING:
    from rolls.models import LogEntry

logger = logging.getLogger(__name__)


def on_entry_committed(sender: Any, entry: LogEntry, **kwargs: Any) -> None:
    if entry.posts:
        try:
            wake(entry.campaign_id)
        except DatabaseError as error:
            logger.warning("the Discord poster of campaign %s was not woken: %s", entry.campaign_id, error)


def wake(campaign_id: int, *, after: float = 0.0, force: bool = False) -> bool:
    """Queue a flush of the campaign's posts unless one is queued already (``force``: queue
    one all the same, for a flush that found another one posting). ``after``: seconds to wait
    before it runs (a retry's backoff). Whether one was queued."""
    from rolls.discord.tasks import flush_campaign

    rows = DiscordFeed.objects.filter(campaign_id=campaign_id)
    marked = rows.update(pending=True) if force else rows.filter(pending=False).update(pending=True)
    if not marked:
        return False
    task = flush_campaign
    if after > 0:
        task = task.using(run_after=timezone.now() + timedelta(seconds=after))
    task.enqueue(campaign_id)
    return True
