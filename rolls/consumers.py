"""The live table: one socket per open campaign page.

The page says which sequence number it has seen last (``{"since": N}``, sent on every
(re)connect); the consumer answers with every entry after it, in order, then forwards each
new entry once. Entries are rendered here, for this socket's user, so a roll only reaches
the people allowed to see it and follow-up buttons only the people allowed to press them.
"""

from __future__ import annotations

import json
from typing import Any

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncWebsocketConsumer

from rolls.feed import render_since
from rolls.live import broadcast_presence, table_group
from tabletop.models import Membership, Presence

# Close codes the page knows: do not reconnect on these.
NOT_A_MEMBER = 4403


class TableConsumer(AsyncWebsocketConsumer):
    membership: Membership | None = None
    last_sent: int = -1  # -1: the page has not said where it is yet

    async def connect(self) -> None:
        self.campaign_id = int(self.scope["url_route"]["kwargs"]["campaign_id"])
        self.membership = await self._membership()
        if self.membership is None:
            await self.close(code=NOT_A_MEMBER)
            return
        self.group = table_group(self.campaign_id)
        await self.channel_layer.group_add(self.group, self.channel_name)
        await self.accept()
        await self._present(True)

    async def disconnect(self, code: int) -> None:
        if self.membership is None:
            return
        await self.channel_layer.group_discard(self.group, self.channel_name)
        await self._present(False)

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        """Only ``{"since": N}`` is understood; anything else is ignored."""
        try:
            message = json.loads(text_data or "")
            since = message["since"]
        except (ValueError, TypeError, KeyError):
            return
        if not isinstance(since, int) or isinstance(since, bool) or since < 0:
            return
        await self._send_since(since)

    async def table_entry(self, event: dict[str, Any]) -> None:
        if self.last_sent < 0:
            # Not synced yet: the page's "since" answer will include this committed entry.
            return
        if event["seq"] <= self.last_sent:
            return
        # Read from where this socket stands, so a lost message leaves no gap.
        await self._send_since(self.last_sent)

    async def table_presence(self, event: dict[str, Any]) -> None:
        html = await database_sync_to_async(_render_presence)(self.campaign_id)
        await self.send(text_data=html)

    async def _send_since(self, since: int) -> None:
        assert self.membership is not None
        html, last = await database_sync_to_async(render_since)(self.membership, since)
        self.last_sent = max(last, since)
        if html:
            await self.send(text_data=html)

    @database_sync_to_async
    def _membership(self) -> Membership | None:
        user = self.scope.get("user")
        if user is None or not user.is_authenticated:
            return None
        return (
            Membership.objects.select_related("campaign", "user")
            .filter(campaign_id=self.campaign_id, user=user)
            .first()
        )

    async def _present(self, here: bool) -> None:
        assert self.membership is not None

        def write() -> None:
            if here:
                Presence.objects.get_or_create(
                    channel_name=self.channel_name,
                    defaults={"campaign_id": self.campaign_id, "user_id": self.membership.user_id},  # type: ignore[union-attr]
                )
            else:
                Presence.objects.filter(channel_name=self.channel_name).delete()

        await database_sync_to_async(write)()
        await database_sync_to_async(broadcast_presence)(self.campaign_id)


def _render_presence(campaign_id: int) -> str:
    from django.template.loader import render_to_string

    users = Presence.objects.filter(campaign_id=campaign_id).values_list("user_id", flat=True)
    present = list(Membership.objects.filter(campaign_id=campaign_id, user_id__in=users))
    return render_to_string("tabletop/_presence.html", {"present": present})
