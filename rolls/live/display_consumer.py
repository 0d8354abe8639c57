"""The table display's socket: the table's socket (``rolls.live.consumers.TableConsumer``) with
``audience.TABLE`` for its viewer and the display token for its membership.

It joins the table's group, so it hears every entry and every change of who is here, but it
is nobody at the table: it never enters the presence list. A batch of rolls is sent from the
markup the table's sockets share (``rolls.live.display.display_stored``); any other batch is read
from the database together with its token. Once the GM has replaced the link (which writes an
event to the log, so every display hears of it at once, and reads) the socket closes with
``REPLACED``, which the page knows and does not reconnect on.
"""

from __future__ import annotations

import logging

from django.utils import translation

from rolls.live import consumers
from rolls.live.consumers import TableConsumer, language_changed
from rolls.live.display import campaign_for, display_since, display_stored
from rolls.live.publish import table_group
from tabletop.errors import SERVICE_ERRORS
from tabletop.models import Campaign
from tabletop.serving.consumer import database

logger = logging.getLogger(__name__)

# The display link was replaced, or never was one: static/js/display.js says so and stays closed.
REPLACED = 4410


class DisplayConsumer(TableConsumer):
    token: str = ""
    joined: bool = False  # in the table's group (and so to leave it once)

    async def connect(self) -> None:
        self.token = str(self.scope["url_route"]["kwargs"]["token"])
        campaign = await database(self._campaign_for)(self.token)
        # Accepted before it is closed, so the page learns the code (a refused handshake
        # reaches a browser as 1006, which it would retry for ever).
        await self.accept()
        if campaign is None:
            self.removed = True  # whatever it sends is answered with nothing
            await self.close(code=REPLACED)
            return
        self.campaign_id = campaign.pk
        self.language = campaign.language
        self.group = table_group(campaign.pk)
        await self.channel_layer.group_add(self.group, self.channel_name)
        self.joined = True
        # Redis lost under one socket of this process: this one reconnects with the rest.
        consumers._open_sockets.add(self)

    async def _leave(self) -> None:
        if not self.joined or self.left:
            return
        self.left = True
        consumers._open_sockets.discard(self)
        try:
            await self.channel_layer.group_discard(self.group, self.channel_name)
        except SERVICE_ERRORS as error:  # Redis gone: the group went with it, or expires
            logger.warning("could not leave the table's group: %s", error)
        discard = getattr(self.channel_layer, "discard_channel", None)
        if discard is not None:
            await discard(self.channel_name)

    async def _turned_away(self) -> None:
        # The link was replaced: leave the group and close with the code the page knows.
        await self._leave()
        await self.close(code=REPLACED)

    def _may_share(self) -> bool:
        return True

    # What the stream overlay's socket (``rolls.live.overlay_consumer``) does otherwise: the
    # campaign its link names, and what it sends.
    def _campaign_for(self, token: str) -> Campaign | None:
        return campaign_for(token)

    def _stored(self, since: int, until: int) -> tuple[str, int] | None:
        return display_stored(self.campaign_id, since, until)

    def _since(self, campaign: Campaign, since: int) -> tuple[str, int]:
        return display_since(campaign, since)

    def _read_since(self, since: int) -> tuple[str, int] | None:
        campaign = self._campaign_for(self.token)
        if campaign is None or campaign.pk != self.campaign_id:
            return None
        if campaign.language != self.language:
            return language_changed(since)
        with translation.override(self.language):
            return self._since(campaign, since)
