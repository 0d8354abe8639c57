"""The embedded default's channel layer: Channels' in-memory layer without its full scans.

The stock ``InMemoryChannelLayer`` calls ``_clean_expired()`` at the start of every
``group_send()`` and every ``receive()``: a walk over every channel's queue and over every
member of every group. Each open socket waits in ``receive()``, so a roll at one table of six
costs seven such walks (one send, six receives), each over every socket in the process: with
1,200 sockets, some 17,000 steps a roll, the larger part of the layer's cost at 100 rolls a
second (bench/README.md has the figures). It also starts one task per channel for a group send
and builds a throwaway ``asyncio.Queue`` on every send and receive.

This subclass keeps what the stock layer promises (a message expires ``expiry`` seconds after
it was sent, a channel whose message expired leaves every group, a membership expires after
``group_expiry``, a full channel drops the message for that channel only) and changes how:

- a receiver drops its own expired messages as it takes them, so the process-wide sweep runs
  at most once every ``sweep_interval`` seconds (one second), for channels nobody receives on;
- an index from each channel to its groups makes leaving every group cheap;
- a group send puts one copy of the message on each member's queue in a loop, in join order
  (the members share that copy: the consumers here never change a message they receive);
- ``discard_channel()`` lets a consumer that stops drop what is still waiting for it.

The settings name it while ``FAST_PATH["channel_layer"]`` is on, and the stock layer otherwise.
"""

from __future__ import annotations

import asyncio
import time
from copy import deepcopy
from typing import Any

from channels.exceptions import ChannelFull
from channels.layers import InMemoryChannelLayer


class IndexedInMemoryChannelLayer(InMemoryChannelLayer):
    def __init__(self, *args: Any, sweep_interval: float = 1.0, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.sweep_interval = sweep_interval
        self._last_sweep = 0.0
        self._channel_groups: dict[str, set[str]] = {}

    def _queue(self, channel: str) -> asyncio.Queue[tuple[float, dict[str, Any]]]:
        queue = self.channels.get(channel)
        if queue is None:
            queue = self.channels[channel] = asyncio.Queue(maxsize=self.get_capacity(channel))
        return queue

    async def send(self, channel: str, message: dict[str, Any]) -> None:
        assert isinstance(message, dict), "message is not a dict"
        self.require_valid_channel_name(channel)
        assert "__asgi_channel__" not in message
        try:
            self._queue(channel).put_nowait((time.time() + self.expiry, deepcopy(message)))
        except asyncio.QueueFull:
            raise ChannelFull(channel) from None

    async def receive(self, channel: str) -> dict[str, Any]:
        self.require_valid_channel_name(channel)
        self._sweep_now_and_then()
        queue = self._queue(channel)
        try:
            while True:
                expires, message = await queue.get()
                if expires >= time.time():
                    return message
                # Expired while nobody took it: as the stock sweep would, drop it and take the
                # channel out of its groups.
                self._remove_from_groups(channel)
        finally:
            if queue.empty():
                self.channels.pop(channel, None)

    def _sweep_now_and_then(self) -> None:
        now = time.monotonic()
        if now - self._last_sweep >= self.sweep_interval:
            self._last_sweep = now
            self._clean_expired()

    def _clean_expired(self) -> None:
        now = time.time()
        for channel, queue in list(self.channels.items()):
            while not queue.empty() and queue._queue[0][0] < now:  # type: ignore[attr-defined]
                queue.get_nowait()
                self._remove_from_groups(channel)
                if queue.empty():
                    self.channels.pop(channel, None)
        timeout = int(now) - self.group_expiry
        for group, members in list(self.groups.items()):
            for channel, joined in list(members.items()):
                if joined and joined < timeout:
                    self._leave(group, channel)

    def _leave(self, group: str, channel: str) -> None:
        members = self.groups.get(group)
        if members is not None:
            members.pop(channel, None)
            if not members:
                del self.groups[group]
        groups = self._channel_groups.get(channel)
        if groups is not None:
            groups.discard(group)
            if not groups:
                del self._channel_groups[channel]

    def _remove_from_groups(self, channel: str) -> None:
        for group in list(self._channel_groups.get(channel, ())):
            self._leave(group, channel)

    async def discard_channel(self, channel: str) -> None:
        """Forget the channel of a consumer that has stopped: its groups, and the messages that
        reached it while it was closing (the stock layer keeps them until they expire, a
        minute of dead queues at a high rate of reconnects)."""
        self._remove_from_groups(channel)
        self.channels.pop(channel, None)

    async def flush(self) -> None:
        await super().flush()
        self._channel_groups = {}

    async def group_add(self, group: str, channel: str) -> None:
        self.require_valid_group_name(group)
        self.require_valid_channel_name(channel)
        self.groups.setdefault(group, {})[channel] = time.time()
        self._channel_groups.setdefault(channel, set()).add(group)

    async def group_discard(self, group: str, channel: str) -> None:
        self.require_valid_channel_name(channel)
        self.require_valid_group_name(group)
        self._leave(group, channel)

    async def group_send(self, group: str, message: dict[str, Any]) -> None:
        assert isinstance(message, dict), "Message is not a dict"
        self.require_valid_group_name(group)
        self._sweep_now_and_then()
        # One copy for the whole group, not one per member: a roll's message carries its
        # rendered card, and the consumers only read what they receive.
        expires = time.time() + self.expiry
        copy = deepcopy(message)
        for channel in list(self.groups.get(group, ())):
            try:
                self._queue(channel).put_nowait((expires, copy))
            except asyncio.QueueFull:
                pass  # that channel is full: it misses this one, the others get it
