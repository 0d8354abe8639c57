"""The table display: the TV's page and socket by their own secret link, without a login,
showing what the whole table may see and nothing more; and the GM's action that replaces it."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from typing import Any

import pytest
from channels.db import database_sync_to_async
from channels.layers import get_channel_layer
from channels.testing import WebsocketCommunicator
from django.test import Client
from django.urls import reverse

from rolls import registry
from rolls.live import display
from rolls.live.display_consumer import REPLACED
from rolls.log.events import TableEvent
from rolls.models import LogEntry, Roll
from rolls.play import services
from rolls.sight.kept import sharing
from tabletop.asgi import application
from tabletop.models import Campaign, Presence
from tests.factories import ScriptedDice, Table, logged_in
from tests.test_consumers import ORIGIN, frames_until, is_presence, open_socket, up_to

DIE = re.compile(r'class="die d\d')
FACE = re.compile(r'data-face="\d"')
SECRET_INTENT = "opens the vault of whispering keys"
BLIND_INTENT = "listens at the humming door"
BLIND_TRAIT = "Heart"  # the public roll is on Body: a trait on the display names the public roll
OUTCOMES = ("Success", "Failure", "needed", "extra success")


def display_url(campaign: Campaign, **query: str) -> str:
    url = reverse("rolls:display", args=[campaign.display_token])
    return url + ("?" + "&".join(f"{k}={v}" for k, v in query.items()) if query else "")


def rotate_url(table: Table) -> str:
    return reverse("rolls:display-rotate", args=[table.campaign.pk])


# What the kid does to push a blind roll (SIX-23): as hidden as the roll.
PUSH_LINE = "kicks the cellar door"


def secret_roll(table: Table) -> Roll:
    return services.npc_roll_create(
        campaign=table.campaign,
        gm=table.gm,
        name="The warden",
        request=registry.engine(table.campaign.system).parse_request({"dice": 4}),
        secret=True,
        target=table.character,
        intent=SECRET_INTENT,
        rng=ScriptedDice(6, 6, 5, 4, then=1),
    )


def blind_roll(table: Table) -> Roll:
    return services.roll_create(
        character=table.character,
        roller=table.player,
        data={"attribute": BLIND_TRAIT, "skill": "", "need": 1},
        helper=None,
        intent=BLIND_INTENT,
        rng=ScriptedDice(6, 3, 2, then=1),
        blind=True,
    )


def public_roll(table: Table) -> Roll:
    return services.roll_create(
        character=table.character,
        roller=table.player,
        data={"attribute": "Body", "skill": "", "need": 1},
        helper=None,
        intent="climbs the fence",
        rng=ScriptedDice(6, 2, 2, then=1),
    )


def push_hidden(roll: Roll, actor: Any) -> LogEntry:
    """A follow-up on a hidden roll (a blind one: the player's character pays for the push)."""
    return services.follow_up_apply(
        roll=roll,
        actor=actor,
        action="push",
        params={"condition": "Upset", "description": PUSH_LINE},
        rng=ScriptedDice(6, 6, then=6),
    )


def assert_shows_nothing_hidden(html: str) -> None:
    for secret in (
        SECRET_INTENT,
        BLIND_INTENT,
        BLIND_TRAIT,
        PUSH_LINE,
        "The warden",
        "against",
        "Upset",
        *OUTCOMES,
    ):
        assert secret not in html, secret
    assert not DIE.search(html) and not FACE.search(html)


# -- the page ------------------------------------------------------------------------------------


@pytest.mark.django_db
def test_it_opens_by_its_token_without_a_login(table: Table) -> None:
    response = Client().get(display_url(table.campaign))

    assert response.status_code == 200
    html = response.content.decode()
    assert table.campaign.name in html
    assert reverse("rolls:join", args=[table.campaign.join_token]) in html  # the join link
    assert "<svg" in html  # and its QR code
    assert "Session 1" in html
    assert f'ws-connect="/ws/display/{table.campaign.display_token}/"' in html


@pytest.mark.django_db
def test_it_has_nothing_to_press(table: Table, dice: Any) -> None:
    public_roll(table)
    secret_roll(table)

    html = Client().get(display_url(table.campaign)).content.decode()

    for control in ("<form", "<button", "<input", "<select", "hx-post", "csrf"):
        assert control not in html, control


@pytest.mark.django_db
@pytest.mark.parametrize("token", ["nope", "x" * 65, "bad token", "%00", "%C3%BC", "..", "a%2Fb"])
def test_a_wrong_or_garbage_token_is_a_plain_404(table: Table, token: str) -> None:
    response = Client().get(f"/display/{token}/")

    assert response.status_code == 404
    assert "There is nothing here for you." in response.content.decode()


@pytest.mark.django_db
def test_a_campaign_made_now_has_a_display_token_of_its_own(table: Table) -> None:
    other = Campaign.objects.create(name="Other", system="sixes", gm=table.gm)

    tokens = {table.campaign.display_token, table.campaign.join_token, other.display_token}
    assert len(tokens) == 3
    assert all(display.campaign_for(token) is not None for token in tokens - {table.campaign.join_token})
    assert display.campaign_for(table.campaign.join_token) is None  # the join link opens no display


@pytest.mark.django_db(transaction=True)
def test_the_migration_gives_each_existing_campaign_its_own_token() -> None:
    """Run for real: back to before the column, three campaigns, forward again."""
    from django.db import connection
    from django.db.migrations.executor import MigrationExecutor

    before, after = [("tabletop", "0005_ban")], [("tabletop", "0008_campaign_display_token_unique")]
    executor = MigrationExecutor(connection)
    executor.migrate(before)
    old_apps = executor.loader.project_state(before).apps
    gm = old_apps.get_model("auth", "User").objects.create(username="old-gm")
    campaigns = old_apps.get_model("tabletop", "Campaign")
    for n in range(3):
        campaigns.objects.create(name=f"Old {n}", system="sixes", gm=gm, join_token=f"join-{n}")

    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(after)

    tokens = list(Campaign.objects.values_list("display_token", flat=True))
    # Then to the newest migrations, so the tests after this one find every column.
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(executor.loader.graph.leaf_nodes())
    assert len(tokens) == 3 and len(set(tokens)) == 3
    assert all(display.looks_like_token(token) and len(token) == 32 for token in tokens)


# -- replacing the link --------------------------------------------------------------------------


@pytest.mark.django_db
def test_the_gm_replaces_the_link_and_the_old_one_stops(table: Table) -> None:
    old = table.campaign.display_token

    response = logged_in(table.gm).post(rotate_url(table))

    assert response.status_code == 302
    table.campaign.refresh_from_db()
    assert table.campaign.display_token != old
    assert Client().get(f"/display/{old}/").status_code == 404
    assert Client().get(display_url(table.campaign)).status_code == 200
    # Logged: the history says when the old link stopped.
    entry = LogEntry.objects.get(action=TableEvent.DISPLAY_LINK)
    assert entry.actor == table.gm and "new table display link" in entry.text


@pytest.mark.django_db
def test_only_the_gm_replaces_the_link(table: Table) -> None:
    old = table.campaign.display_token

    assert logged_in(table.player).post(rotate_url(table)).status_code == 403
    assert logged_in(table.outsider).post(rotate_url(table)).status_code == 404
    anonymous = Client().post(rotate_url(table))
    assert anonymous.status_code == 302 and reverse("tabletop:login") in anonymous["Location"]
    assert logged_in(table.gm).get(rotate_url(table)).status_code == 405

    table.campaign.refresh_from_db()
    assert table.campaign.display_token == old
    assert not LogEntry.objects.filter(action=TableEvent.DISPLAY_LINK).exists()


@pytest.mark.django_db
def test_the_session_page_links_the_display_and_offers_a_new_link(table: Table) -> None:
    html = logged_in(table.gm).get(reverse("rolls:session", args=[table.campaign.pk])).content.decode()

    assert "Table display: open it on the TV" in html
    assert re.search(
        rf'<a id="display-url" href="http://testserver{display_url(table.campaign)}" target="_blank"', html
    )
    assert f'action="{rotate_url(table)}"' in html


# -- what the page shows -------------------------------------------------------------------------


@pytest.mark.django_db
def test_the_page_shows_a_hidden_roll_as_rolled_in_secret_with_nothing_of_it(table: Table) -> None:
    secret = secret_roll(table)
    blind = blind_roll(table)
    push_hidden(blind, table.player)

    html = Client().get(display_url(table.campaign)).content.decode()

    assert f'id="feed-roll-{secret.pk}"' in html and f'id="feed-roll-{blind.pk}"' in html
    assert "The GM rolled in secret." in html
    assert "Olle rolled blind" in html
    assert_shows_nothing_hidden(html)


@pytest.mark.django_db
def test_the_page_shows_a_public_roll_in_full(table: Table) -> None:
    roll = public_roll(table)
    secret_roll(table)

    html = Client().get(display_url(table.campaign)).content.decode()

    card = html[html.index(f'id="feed-roll-{roll.pk}"') :].split("card-foot", 1)[0]
    assert "climbs the fence" in card and "Body" in card and "Success" in card
    assert 'data-face="6"' in card


@pytest.mark.django_db
@pytest.mark.parametrize("value", ["1", "0", ""])
def test_the_display_link_no_longer_serves_the_overlay(table: Table, value: str) -> None:
    """A stream still pointed at the old overlay address gets a note, never the display."""
    public_roll(table)

    response = Client().get(display_url(table.campaign, overlay=value))

    assert response.status_code == 410
    html = response.content.decode()
    assert "The stream overlay has a link of its own now" in html
    assert "<svg" not in html and "/join/" not in html and table.campaign.join_token not in html
    assert "climbs the fence" not in html and "ws-connect" not in html
    assert table.campaign.overlay_token not in html


@pytest.mark.django_db
def test_the_open_calls_show_who_has_answered(table: Table) -> None:
    services.call_create(
        campaign=table.campaign,
        gm=table.gm,
        characters=[table.character],
        data={"trait": "Body"},
        label="Body",
    )

    html = Client().get(display_url(table.campaign)).content.decode()

    calls = html[html.index('id="display-calls"') :].split("</div>", 1)[0]
    assert "Body" in calls and 'class="waiting">Olle' in calls
    assert "Close this call" not in html


# -- the socket ----------------------------------------------------------------------------------


@pytest.fixture
async def empty_channel_layer() -> AsyncIterator[None]:
    layer = get_channel_layer()
    await layer.flush()  # type: ignore[union-attr]
    yield
    await layer.flush()  # type: ignore[union-attr]


async def open_display(token: str, *, origin: bytes | None = ORIGIN) -> tuple[WebsocketCommunicator, bool]:
    """The display's socket as the TV's browser opens it: the page's Origin, no cookie."""
    headers = [(b"host", b"testserver")]
    if origin is not None:
        headers.append((b"origin", origin))
    communicator = WebsocketCommunicator(application, f"/ws/display/{token}/", headers=headers)
    connected, _ = await communicator.connect()
    return communicator, connected


async def bytes_until(communicator: WebsocketCommunicator, seq: int) -> str:
    return "".join(await frames_until(communicator, up_to(seq)))


@database_sync_to_async
def campaign_now(table: Table) -> Campaign:
    return Campaign.objects.get(pk=table.campaign.pk)


def without_tails(html: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r'<span id="last-seq" data-seq="\d+" hidden></span>', "", html)).strip()


async def synced_display(table: Table) -> tuple[WebsocketCommunicator, int]:
    campaign = await campaign_now(table)
    communicator, connected = await open_display(campaign.display_token)
    assert connected
    await communicator.send_json_to({"since": campaign.last_seq})
    assert await communicator.receive_nothing(timeout=0.3)  # nothing new yet
    return communicator, campaign.last_seq


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("empty_channel_layer")
async def test_the_socket_sends_hidden_rolls_live_and_in_catch_up_with_nothing_of_them(table: Table) -> None:
    communicator, last = await synced_display(table)

    secret = await database_sync_to_async(secret_roll)(table)
    blind = await database_sync_to_async(blind_roll)(table)
    live = await bytes_until(communicator, last + 2)
    await database_sync_to_async(push_hidden)(blind, table.player)
    live += await bytes_until(communicator, last + 3)

    assert f'id="feed-roll-{secret.pk}"' in live and f'id="feed-roll-{blind.pk}"' in live
    assert "The GM rolled in secret." in live and "Olle rolled blind" in live
    assert_shows_nothing_hidden(live)
    await communicator.disconnect()

    # A fresh socket catching up from the start says no more.
    fresh, connected = await open_display((await campaign_now(table)).display_token)
    assert connected
    await fresh.send_json_to({"since": 0})
    caught_up = await bytes_until(fresh, last + 3)
    assert f'id="feed-roll-{secret.pk}"' in caught_up
    assert_shows_nothing_hidden(caught_up)
    await fresh.disconnect()


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("empty_channel_layer")
async def test_the_socket_sends_a_public_roll_in_full(table: Table) -> None:
    communicator, last = await synced_display(table)

    roll = await database_sync_to_async(public_roll)(table)
    live = await bytes_until(communicator, last + 1)

    assert f'id="feed-roll-{roll.pk}"' in live
    assert "climbs the fence" in live and "Success" in live and 'data-face="6"' in live
    await communicator.disconnect()


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("empty_channel_layer")
async def test_rolls_reach_the_socket_from_the_shared_markup_and_events_read_the_token(table: Table) -> None:
    """A batch of rolls goes out from the markup the table's sockets share, the bytes the
    database read would send, without that read; an event takes the long way, token and all.
    Shown by taking the token away behind the log's back (the GM's real replacement is an
    event): rolls still arrive, the next event closes the socket."""
    communicator, last = await synced_display(table)
    campaign = await campaign_now(table)

    await database_sync_to_async(public_roll)(table)
    await database_sync_to_async(secret_roll)(table)
    live = await bytes_until(communicator, last + 2)
    long_way, _ = await database_sync_to_async(display.display_since)(await campaign_now(table), last)
    # Two frames, one batch: the same cards, each frame ending with its "last seq" marker.
    assert without_tails(live) == without_tails(long_way)
    assert_shows_nothing_hidden(live.split("The GM rolled in secret.", 1)[1])

    await database_sync_to_async(Campaign.objects.filter(pk=campaign.pk).update)(display_token="gone" * 8)
    roll = await database_sync_to_async(public_roll)(table)
    if sharing():
        assert f'id="feed-roll-{roll.pk}"' in await bytes_until(communicator, last + 3)
        from rolls.campaigns import services as campaigns

        await database_sync_to_async(campaigns.session_end)(
            campaign=await campaign_now(table), actor=table.gm
        )
    # With the fast path off nothing is shared: every batch is read, and the roll closes it.
    closed = await communicator.receive_output(timeout=3)
    assert (closed["type"], closed["code"]) == ("websocket.close", REPLACED)
    await communicator.disconnect()


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("empty_channel_layer")
async def test_the_socket_redraws_the_calls_and_the_session_line(table: Table) -> None:
    communicator, last = await synced_display(table)

    await database_sync_to_async(services.call_create)(
        campaign=table.campaign,
        gm=table.gm,
        characters=[table.character],
        data={"trait": "Body"},
        label="Body",
    )
    called = await bytes_until(communicator, last + 1)
    assert 'id="display-calls"' in called and 'class="waiting">Olle' in called
    assert "<form" not in called and "<button" not in called

    from rolls.campaigns import services as campaigns

    await database_sync_to_async(campaigns.session_end)(campaign=await campaign_now(table), actor=table.gm)
    ended = await bytes_until(communicator, last + 2)
    assert 'id="display-status"' in ended and "No session running" in ended
    assert "Olle" not in ended.split('id="display-calls"', 1)[1]  # the call ended with its session
    await communicator.disconnect()


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("empty_channel_layer")
async def test_a_new_join_link_is_logged_and_redraws_the_display(table: Table) -> None:
    """The screen shows the join link's QR code: the old one must not stay up."""
    from rolls.campaigns import services as campaigns

    communicator, last = await synced_display(table)

    await database_sync_to_async(campaigns.join_link_rotate)(campaign=table.campaign, actor=table.gm)

    frame = await communicator.receive_from(timeout=3)
    assert 'id="reload-needed"' in frame
    entry = await database_sync_to_async(lambda: LogEntry.objects.select_related("actor").get(seq=last + 1))()
    assert (entry.action, entry.actor) == (TableEvent.JOIN_LINK, table.gm)
    await communicator.disconnect()


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("empty_channel_layer")
async def test_a_replaced_link_closes_the_open_socket_and_refuses_a_new_one(table: Table) -> None:
    communicator, _ = await synced_display(table)
    old = (await campaign_now(table)).display_token

    from rolls.campaigns import services as campaigns

    await database_sync_to_async(campaigns.display_link_rotate)(campaign=table.campaign, actor=table.gm)

    closed = await communicator.receive_output(timeout=3)
    assert (closed["type"], closed["code"]) == ("websocket.close", REPLACED)
    again, accepted = await open_display(old)
    # Accepted, then closed with the code the page knows (a refused handshake reads as 1006 to
    # a browser, which would retry it for ever).
    assert accepted
    assert (await again.receive_output(timeout=3))["code"] == REPLACED
    await again.send_json_to({"since": 0})
    assert await again.receive_nothing(timeout=0.3)
    await communicator.disconnect()
    await again.disconnect()


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("empty_channel_layer")
@pytest.mark.parametrize("token", ["nope", "x" * 65, "%00", "..."])
async def test_a_socket_with_a_garbage_token_is_closed_as_replaced(table: Table, token: str) -> None:
    communicator, accepted = await open_display(token)

    assert accepted
    assert (await communicator.receive_output(timeout=3))["code"] == REPLACED
    await communicator.disconnect()


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("empty_channel_layer")
async def test_a_display_socket_from_another_origin_is_refused(table: Table) -> None:
    campaign = await campaign_now(table)
    for origin in (b"http://evil.example", None):
        communicator, connected = await open_display(campaign.display_token, origin=origin)
        assert not connected
        await communicator.disconnect()


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("empty_channel_layer")
async def test_the_display_is_nobody_at_the_table(table: Table) -> None:
    player, connected, _ = await open_socket(table.campaign.pk, table.player)
    assert connected
    first = await player.receive_from(timeout=3)
    assert is_presence(first) and "Player" in first

    communicator, last = await synced_display(table)
    # The display hears who is here, and is not among them.
    await database_sync_to_async(services.call_create)(
        campaign=table.campaign,
        gm=table.gm,
        characters=[table.character],
        data={"trait": "Body"},
        label="Body",
    )
    await bytes_until(communicator, last + 1)

    rows = await database_sync_to_async(lambda: list(Presence.objects.values_list("user_id", flat=True)))()
    assert rows == [table.player.pk]
    assert await player.receive_nothing(timeout=0.3)  # no presence list: nobody came
    await player.disconnect()
    presence = await communicator.receive_from(timeout=3)
    assert is_presence(presence) and "Nobody yet" in presence
    await communicator.disconnect()


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("empty_channel_layer")
async def test_a_secret_roll_the_gm_reveals_goes_on_top_of_the_live_display(table: Table) -> None:
    """Live as after a reload: the revealed card is taken from where it was and put on top,
    even when the markup the table's sockets share is at hand."""
    from rolls.history import marks

    secret = await database_sync_to_async(secret_roll)(table)
    await database_sync_to_async(public_roll)(table)
    communicator, last = await synced_display(table)

    await database_sync_to_async(marks.roll_reveal)(roll=secret, gm=table.gm)
    sent = await bytes_until(communicator, last + 1)

    assert f'<li id="feed-roll-{secret.pk}" hx-swap-oob="delete"></li>' in sent
    assert f'<div hx-swap-oob="afterbegin:#feed" data-seq="{last + 1}"><li id="feed-roll-{secret.pk}"' in sent
    assert SECRET_INTENT in sent and 'data-face="6"' in sent
    await communicator.disconnect()
