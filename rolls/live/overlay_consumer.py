"""The stream overlay's socket: the display's (``rolls.live.display_consumer``) by the overlay's
own token, sending the rolls alone.

Like the display's, it hears the table's group and is nobody at the table; unlike it, it is not
told who is: the overlay names nobody, and a stream shows whatever it is sent. It accepts the
overlay token only: the display's link, a replaced overlay link or garbage is accepted and then
closed with ``REPLACED`` (a refused handshake would reach the browser as 1006, which it retries
for ever). Once the GM replaces the overlay link (an event in the log, which every socket reads
with its token) the open socket closes with ``REPLACED`` too.
"""

from __future__ import annotations

from typing import Any

from rolls.live.display_consumer import DisplayConsumer
from rolls.live.overlay import campaign_for, overlay_since, overlay_stored
from tabletop.models import Campaign


class OverlayConsumer(DisplayConsumer):
    async def table_presence(self, event: dict[str, Any]) -> None:
        """Someone came or went: nothing for the overlay, which shows nobody."""

    def _campaign_for(self, token: str) -> Campaign | None:
        return campaign_for(token)

    def _stored(self, since: int, until: int) -> tuple[str, int] | None:
        return overlay_stored(self.campaign_id, since, until)

    def _since(self, campaign: Campaign, since: int) -> tuple[str, int]:
        return overlay_since(campaign, since)
