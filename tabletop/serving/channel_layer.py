"""The embedded default's channel layer: an in-memory layer of our own, on Channels' layer interface.

Channels' ``InMemoryChannelLayer`` sweeps out expired messages at the start of every
``group_send()`` and every ``receive()``: a walk over every channel's queue and over every
member of every group. Each open socket waits in ``receive()``, so a roll at one table of six
costs seven such walks (one send, six receives), each over every socket in the process: with
1,200 sockets, some 17,000 steps a roll, the larger part of the layer's cost at 100 rolls a
second (bench/README.md has the figures). It also starts one task per channel for a group send
and builds a throwaway ``asyncio.Queue`` on every send and receive.

This layer implements the interface Channels documents for a layer ("Channel Layer
Specification": ``send``, ``receive``, ``new_channel``, and the ``groups`` and ``flush``
extensions) on ``BaseChannelLayer`` (its configuration, capacity patterns and name checks), with
structures of its own, and keeps what the stock in-memory layer promises: a message expires
``expiry`` seconds after it was sent, a channel whose message expired leaves every group, a
membership expires after ``group_expiry``, a full channel drops the message for that channel
only (``ChannelFull`` for a direct send). How it differs:

- each channel is a ``deque`` of (expiry time, message) with the receivers that wait on it;
  a receiver drops its own expired messages as it takes them, so the process-wide sweep runs
  at most once every ``sweep_interval`` seconds (one second), for channels nobody receives on;
- an index from each channel to its groups makes leaving every group cheap;
- a group send puts one copy of the message on each member's queue in a loop, in join order
  (the members share that copy: the consumers here never change a message they receive);
- ``discard_channel()`` lets a consumer that stops drop what is still waiting for it.

The settings name it while ``FAST_PATH["channel_layer"]`` is on, and the stock layer otherwise.
"""

from __future__ import annotations

import asyncio
import re
import secrets
import time
from collections import deque
from copy import deepcopy
from typing import Any

from channels.exceptions import ChannelFull
from channels.layers import BaseChannelLayer


class Channel:
    """One channel's messages, oldest first, and the receivers waiting for the next one."""

    __slots__ = ("capacity", "messages", "waiting")

    def __init__(self, capacity: int) -> None:
        self.capacity = capacity
        self.messages: deque[tuple[float, dict[str, Any]]] = deque()
        self.waiting: deque[asyncio.Future[None]] = deque()

    def put(self, expires: float, message: dict[str, Any]) -> bool:
        """Whether the message found room."""
        if len(self.messages) >= self.capacity:
            return False
        self.messages.append((expires, message))
        self.wake()
        return True

    def wake(self) -> None:
        """Wake the receiver that has waited longest."""
        while self.waiting:
            waiter = self.waiting.popleft()
            if not waiter.done():
                waiter.set_result(None)
                return


class IndexedInMemoryChannelLayer(BaseChannelLayer):
    extensions = ["groups", "flush"]

    def __init__(
        self,
        expiry: int = 60,  # seconds (a test passes a fraction)
        group_expiry: int = 86400,
        capacity: int = 100,
        channel_capacity: dict[re.Pattern[str] | str, int] | None = None,
        sweep_interval: float = 1.0,
        **kwargs: Any,
    ) -> None:
        super().__init__(expiry=expiry, capacity=capacity, channel_capacity=channel_capacity, **kwargs)
        # Glob patterns of channel names -> their capacity, compiled as BaseChannelLayer does.
        self._capacities = self.compile_capacities(channel_capacity or {})
        self.group_expiry = group_expiry
        self.sweep_interval = sweep_interval
        self._last_sweep = 0.0
        self.channels: dict[str, Channel] = {}
        self.groups: dict[str, dict[str, float]] = {}  # group -> channel -> when it joined
        self._channel_groups: dict[str, set[str]] = {}

    def _channel(self, name: str) -> Channel:
        channel = self.channels.get(name)
        if channel is None:
            capacity = next(
                (size for pattern, size in self._capacities if pattern.match(name)), self.capacity
            )
            channel = self.channels[name] = Channel(capacity)
        return channel

    async def new_channel(self, prefix: str = "specific") -> str:
        return f"{prefix}.inmemory!{secrets.token_hex(8)}"

    async def send(self, channel: str, message: dict[str, Any]) -> None:
        assert isinstance(message, dict), "message is not a dict"
        self.require_valid_channel_name(channel)
        assert "__asgi_channel__" not in message
        if not self._channel(channel).put(time.time() + self.expiry, deepcopy(message)):
            raise ChannelFull(channel)

    async def receive(self, channel: str) -> dict[str, Any]:
        self.require_valid_channel_name(channel)
        self._sweep_now_and_then()
        queue = self._channel(channel)
        try:
            while True:
                while queue.messages:
                    expires, message = queue.messages.popleft()
                    if expires >= time.time():
                        return message
                    # Expired while nobody took it: as the stock layer would, drop it and take
                    # the channel out of its groups.
                    self._remove_from_groups(channel)
                waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()
                queue.waiting.append(waiter)
                try:
                    await waiter
                except BaseException:
                    # Stopped while waiting (a socket's consumer ends): no longer a receiver, and
                    # a message it was woken for goes to the next one.
                    if waiter in queue.waiting:
                        queue.waiting.remove(waiter)
                    if waiter.done() and not waiter.cancelled() and queue.messages:
                        queue.wake()
                    raise
        finally:
            if not queue.messages and not queue.waiting and self.channels.get(channel) is queue:
                del self.channels[channel]

    def _sweep_now_and_then(self) -> None:
        now = time.monotonic()
        if now - self._last_sweep >= self.sweep_interval:
            self._last_sweep = now
            self.sweep()

    def sweep(self) -> None:
        """Drop every expired message (taking its channel out of its groups) and every expired
        membership."""
        now = time.time()
        for name, channel in list(self.channels.items()):
            while channel.messages and channel.messages[0][0] < now:
                channel.messages.popleft()
                self._remove_from_groups(name)
            if not channel.messages and not channel.waiting:
                del self.channels[name]
        timeout = now - self.group_expiry
        for group, members in list(self.groups.items()):
            for name, joined in list(members.items()):
                if joined < timeout:
                    self._leave(group, name)

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
        queue = self.channels.get(channel)
        if queue is not None and not queue.waiting:
            del self.channels[channel]

    async def flush(self) -> None:
        self.channels = {}
        self.groups = {}
        self._channel_groups = {}

    async def close(self) -> None:
        """Nothing to close: nothing outlives the process."""

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
            self._channel(channel).put(expires, copy)  # a full channel misses this one
