"""Who is at the table survives a server that stops without closing its sockets: its rows stop
being seen, are no longer counted, and the heartbeat of a live server removes them and tells
the table."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Iterator
from datetime import timedelta

import pytest
from channels.db import database_sync_to_async
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from tabletop import presence
from tabletop.models import Membership, Presence
from tests import factories
from tests.factories import Table, user
from tests.test_consumers import empty_channel_layer, is_presence, open_socket  # noqa: F401  (fixture)

LONG_AGO = timedelta(seconds=presence.STALE_SECONDS + 1)


@pytest.fixture(autouse=True)
def no_sockets_left() -> Iterator[None]:
    """This process's register of open sockets starts and ends empty, whatever a test did."""
    presence._open.clear()
    yield
    presence._open.clear()


def ghost(table: Table, *, seen_ago: timedelta, user: object = None) -> Presence:
    """A row left by a server that crashed."""
    return Presence.objects.create(
        campaign=table.campaign,
        user=user or table.gm,
        channel_name=f"gone.{seen_ago.total_seconds()}",
        server="crashed-1",
        seen=timezone.now() - seen_ago,
    )


@pytest.mark.django_db
def test_a_row_its_server_stopped_refreshing_is_not_counted(table: Table) -> None:
    ghost(table, seen_ago=LONG_AGO)
    presence.arrive(channel_name="live.1", campaign_id=table.campaign.pk, user_id=table.player.pk)

    assert [m.user_id for m in presence.present(table.campaign.pk)] == [table.player.pk]
    presence.leave(channel_name="live.1")


@pytest.mark.django_db
def test_a_heartbeat_refreshes_this_servers_rows_and_removes_the_dead_ones(table: Table) -> None:
    presence.arrive(channel_name="live.1", campaign_id=table.campaign.pk, user_id=table.player.pk)
    Presence.objects.filter(channel_name="live.1").update(seen=timezone.now() - timedelta(seconds=30))
    ghost(table, seen_ago=LONG_AGO)
    recent = ghost(table, seen_ago=timedelta(seconds=5), user=table.outsider)  # another live server

    changed = presence.beat()

    assert changed == {table.campaign.pk}
    live = Presence.objects.get(channel_name="live.1")
    assert timezone.now() - live.seen < timedelta(seconds=5)
    assert set(Presence.objects.values_list("channel_name", flat=True)) == {"live.1", recent.channel_name}
    presence.leave(channel_name="live.1")
    assert presence.beat() == set()


@pytest.mark.django_db
def test_a_late_server_writes_back_the_rows_another_removed(table: Table) -> None:
    presence.arrive(channel_name="live.1", campaign_id=table.campaign.pk, user_id=table.player.pk)
    Presence.objects.filter(channel_name="live.1").delete()  # it looked dead to another server

    assert presence.beat() == {table.campaign.pk}
    row = Presence.objects.get(channel_name="live.1")
    assert (row.user_id, row.server) == (table.player.pk, presence.SERVER)
    presence.leave(channel_name="live.1")


@pytest.mark.django_db(transaction=True)
async def test_the_table_sees_a_crashed_servers_phone_leave(
    table: Table, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(presence, "BEAT_SECONDS", 0.05)
    monkeypatch.setattr(presence, "STALE_SECONDS", 0.3)
    # The GM's screen was on a server that crashed a moment ago: still counted, for now.
    await database_sync_to_async(ghost)(table, seen_ago=timedelta(0))
    player, connected, _ = await open_socket(table.campaign.pk, table.player)
    assert connected

    lists = []
    while not lists or '<li class="gm">GM</li>' in lists[-1]:
        frame = await player.receive_from(timeout=3)
        if is_presence(frame):
            lists.append(frame)

    assert '<li class="gm">GM</li>' in lists[0]
    assert "<li>Player</li>" in lists[-1]
    assert await database_sync_to_async(Presence.objects.filter(server="crashed-1").exists)() is False
    await player.disconnect()


@pytest.mark.django_db
def test_every_live_page_shows_who_is_at_the_table(table: Table) -> None:
    # The socket's presence lists replace this element: every page with a socket has it.
    presence.arrive(channel_name="live.gm", campaign_id=table.campaign.pk, user_id=table.gm.pk)
    ghost(table, seen_ago=LONG_AGO, user=table.player)  # their server crashed a while ago
    player = Client()
    player.force_login(table.player)
    gm = Client()
    gm.force_login(table.gm)
    pages = [
        player.get(reverse("rolls:campaign", args=[table.campaign.pk])),
        player.get(reverse("rolls:character", args=[table.campaign.pk, table.character.pk])),
        gm.get(reverse("rolls:session", args=[table.campaign.pk])),
    ]
    presence.leave(channel_name="live.gm")

    for page in pages:
        html = page.content.decode()
        assert page.status_code == 200
        listed = html[html.index('<ul id="presence"') :].split("</ul>")[0]
        assert '<li class="gm">GM</li>' in listed
        assert "Player" not in listed


# -- a table that fills at once hears who is here once an interval, not once a join ---------------


@database_sync_to_async
def players_joined(table: Table, count: int) -> list[object]:
    from tests import factories

    players = [factories.user(f"phone{n}") for n in range(count)]
    for n, player in enumerate(players):
        factories.member(table.campaign, player, name=f"Phone {n}")
    return players


def listed(frame: str) -> list[str]:
    return re.findall(r"<li(?: class=\"gm\")?>([^<]*)</li>", frame)


@pytest.mark.django_db(transaction=True)
async def test_twenty_phones_joining_at_once_get_a_couple_of_lists_each_and_the_last_is_whole(
    table: Table,
) -> None:
    phones = await players_joined(table, 19)
    users = [table.gm, *phones]
    opened = await asyncio.gather(*(open_socket(table.campaign.pk, user, timeout=30) for user in users))
    sockets = [communicator for communicator, connected, _ in opened if connected]
    assert len(sockets) == 20
    everyone = {"GM", *(f"Phone {n}" for n in range(19))}

    async def lists_received(n: int) -> int:
        communicator = sockets[n]
        lists = []
        while not lists or set(listed(lists[-1])) != everyone:
            frame = await communicator.receive_from(timeout=5)
            assert is_presence(frame)
            lists.append(frame)
        # Anything still on its way (the end of an interval) comes now, and is whole too.
        while not await communicator.receive_nothing(timeout=presence.COALESCE_SECONDS + 0.2):
            frame = await communicator.receive_from()
            assert set(listed(frame)) == everyone
            lists.append(frame)
        return len(lists)

    # All twenty phones listened to at once: one after the other, each waiting out an
    # interval for what might still come, was twenty intervals (24 s) for the same check.
    counts = await asyncio.gather(*(lists_received(n) for n in range(len(sockets))))

    # One list at once for the first join, one at the end of the interval for the rest (a
    # third when the joins straddle two intervals); every join to everyone would be 210.
    assert max(counts) <= 3, counts
    for communicator in sockets:
        await communicator.disconnect()


@pytest.mark.django_db(transaction=True)
async def test_a_phone_that_leaves_is_off_the_list_at_the_end_of_the_interval(
    table: Table, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(presence, "COALESCE_SECONDS", 0.2)
    gm, _, _ = await open_socket(table.campaign.pk, table.gm)
    player, _, _ = await open_socket(table.campaign.pk, table.player)
    lists = []
    while not lists or "Player" not in lists[-1]:
        lists.append(await gm.receive_from(timeout=3))

    await player.disconnect()

    frame = await gm.receive_from(timeout=3)
    assert listed(frame) == ["GM"]
    await gm.disconnect()


@pytest.mark.django_db
def test_the_list_names_each_member_at_the_table_once_gm_first(table: Table) -> None:
    """Two pages open count once; a member whose only row went stale is not listed."""
    other = Membership.objects.create(campaign=table.campaign, user=user("late"), display_name="Late")
    for name, who in (("p.1", table.player), ("p.2", table.player), ("g.1", table.gm)):
        presence.arrive(channel_name=name, campaign_id=table.campaign.pk, user_id=who.pk)
    ghost(table, seen_ago=LONG_AGO, user=other.user)

    listed = presence.present(table.campaign.pk)

    assert [m.user_id for m in listed] == [table.gm.pk, table.player.pk]
    assert listed[0].is_gm
    for name in ("p.1", "p.2", "g.1"):
        presence.leave(channel_name=name)


@pytest.mark.django_db
def test_the_names_list_counts_a_members_newest_socket_on_this_campaign_only(table: Table) -> None:
    """One read of the members with their sockets' last heartbeat on this campaign: a member
    with a fresh socket and a stale one is there, GM first; a member whose only fresh socket is
    on another campaign is not."""
    ghost(table, seen_ago=LONG_AGO)  # the GM's stale row...
    # ...and a fresh one:
    presence.arrive(channel_name="live.gm", campaign_id=table.campaign.pk, user_id=table.gm.pk)
    presence.arrive(channel_name="live.1", campaign_id=table.campaign.pk, user_id=table.player.pk)
    other = factories.campaign(table.gm, name="Another table")
    elsewhere = user("kim")
    factories.member(table.campaign, elsewhere, name="Kim")
    factories.member(other, elsewhere, name="Kim")
    presence.arrive(channel_name="live.kim", campaign_id=other.pk, user_id=elsewhere.pk)

    here = presence.present(table.campaign.pk)

    assert [m.user_id for m in here] == [table.gm.pk, table.player.pk]
    assert [m.user_id for m in presence.present(other.pk)] == [elsewhere.pk]
    for name in ("live.gm", "live.1", "live.kim"):
        presence.leave(channel_name=name)
