"""Wake the poster when an entry of a campaign that posts to Discord commits.

A roll pays for this only when its campaign has a webhook on (``LogEntry.posts``, read by the
statement that numbers the entry), and then one short UPDATE, plus one INSERT of the task
when none is queued yet: a burst of rolls queues one flush, which posts them all. Nothing
here may fail a roll: the entry is committed, and a flush missed now runs with the next one.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from django.db import DatabaseError

if TYPE_CHECKING:
    from rolls.models import LogEntry

logger = logging.getLogger(__name__)


def on_entry_committed(sender: Any, entry: LogEntry, **kwargs: Any) -> None:
    if entry.posts:
        try:
            from rolls.discord.tasks import wake

            wake(entry.campaign_id)
        except DatabaseError as error:
            logger.warning("the Discord poster of campaign %s was not woken: %s", entry.campaign_id, error)
