"""The embedded default's channel layer keeps the promises of Channels' in-memory layer:
group sends reach every member in order, a full channel misses only its own message, an
expired message is never delivered and takes its channel out of its groups."""

from __future__ import annotations

import asyncio
import time

import pytest
from channels.exceptions import ChannelFull

from tabletop.serving.channel_layer import IndexedInMemoryChannelLayer


def run(coroutine: object) -> object:
    return asyncio.run(coroutine)  # type: ignore[arg-type]


def test_a_group_send_reaches_every_member_in_order() -> None:
    async def scenario() -> list[list[int]]:
        layer = IndexedInMemoryChannelLayer()
        channels = [await layer.new_channel() for _ in range(3)]
        for channel in channels:
            await layer.group_add("table-1", channel)
        for seq in (1, 2, 3):
            await layer.group_send("table-1", {"type": "table.entry", "seq": seq})
        return [[(await layer.receive(c))["seq"] for _ in range(3)] for c in channels]

    assert run(scenario()) == [[1, 2, 3]] * 3


def test_a_group_send_does_not_reach_other_groups_or_those_who_left() -> None:
    async def scenario() -> tuple[bool, bool]:
        layer = IndexedInMemoryChannelLayer()
        here, left, elsewhere = [await layer.new_channel() for _ in range(3)]
        await layer.group_add("table-1", here)
        await layer.group_add("table-1", left)
        await layer.group_add("table-2", elsewhere)
        await layer.group_discard("table-1", left)
        await layer.group_send("table-1", {"type": "table.entry", "seq": 1})
        assert (await layer.receive(here))["seq"] == 1
        return layer.channels.get(left) is None, layer.channels.get(elsewhere) is None

    assert run(scenario()) == (True, True)


def test_a_full_channel_misses_the_message_and_the_others_get_it() -> None:
    async def scenario() -> tuple[int, list[int]]:
        layer = IndexedInMemoryChannelLayer(capacity=1)
        full, free = await layer.new_channel(), await layer.new_channel()
        await layer.group_add("table-1", full)
        await layer.group_add("table-1", free)
        await layer.send(full, {"type": "table.entry", "seq": 0})  # fills it
        await layer.group_send("table-1", {"type": "table.entry", "seq": 1})
        with pytest.raises(ChannelFull):
            await layer.send(full, {"type": "table.entry", "seq": 2})
        return (await layer.receive(full))["seq"], [(await layer.receive(free))["seq"]]

    assert run(scenario()) == (0, [1])


def test_an_expired_message_is_dropped_and_its_channel_leaves_its_groups() -> None:
    async def scenario() -> tuple[int, bool]:
        layer = IndexedInMemoryChannelLayer(expiry=0.05)
        slow = await layer.new_channel()
        await layer.group_add("table-1", slow)
        await layer.group_send("table-1", {"type": "table.entry", "seq": 1})
        time.sleep(0.1)  # nobody received it in time
        await layer.send(slow, {"type": "table.entry", "seq": 2})
        received = (await layer.receive(slow))["seq"]
        return received, slow in layer.groups.get("table-1", {})

    assert run(scenario()) == (2, False)


def test_a_discarded_channel_keeps_nothing() -> None:
    async def scenario() -> tuple[bool, bool]:
        layer = IndexedInMemoryChannelLayer()
        gone = await layer.new_channel()
        await layer.group_add("table-1", gone)
        await layer.group_send("table-1", {"type": "table.entry", "seq": 1})
        await layer.discard_channel(gone)
        return gone in layer.channels, "table-1" in layer.groups

    assert run(scenario()) == (False, False)


def test_a_message_received_is_not_the_one_sent() -> None:
    # Like the stock layer: the sender may change its dict afterwards without the receivers
    # seeing it.
    async def scenario() -> int:
        layer = IndexedInMemoryChannelLayer()
        channel = await layer.new_channel()
        await layer.group_add("table-1", channel)
        message = {"type": "table.entry", "seq": 1, "shared": {"html": "<li>"}}
        await layer.group_send("table-1", message)
        message["seq"] = 99
        return (await layer.receive(channel))["seq"]

    assert run(scenario()) == 1
