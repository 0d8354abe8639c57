"""The stream overlay: the latest rolls alone, on a page and a socket of their own opened by a
secret link of their own, without a login; the display's link opens neither and the overlay's
opens no display; and the GM's action that replaces the overlay's link, on its own."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator

import pytest
from channels.db import database_sync_to_async
from channels.layers import get_channel_layer
from channels.testing import WebsocketCommunicator
from django.test import Client
from django.urls import reverse

from rolls.campaigns import services as campaigns
from rolls.live import overlay
from rolls.live.display_consumer import REPLACED
from rolls.log.events import TableEvent
from rolls.models import LogEntry
from rolls.play import services
from tabletop.asgi import application
from tabletop.joinlink import looks_like_token
from tabletop.models import Campaign, Presence
from tests.factories import Table, logged_in
from tests.test_consumers import ORIGIN, frames_until, is_presence, up_to
from tests.test_consumers import open_socket as open_member_socket
from tests.test_display import (
    SECRET_INTENT,
    assert_shows_nothing_hidden,
    blind_roll,
    public_roll,
    push_hidden,
    secret_roll,
)

FEED_CARD = re.compile(r'<li id="feed-roll-(\d+)"')


def overlay_url(campaign: Campaign) -> str:
    return reverse("rolls:overlay", args=[campaign.overlay_token])


def rotate_url(table: Table) -> str:
    return reverse("rolls:overlay-rotate", args=[table.campaign.pk])


def fresh(table: Table) -> Campaign:
    return Campaign.objects.get(pk=table.campaign.pk)


def call_for_body(table: Table) -> None:
    services.call_create(
        campaign=table.campaign,
        gm=table.gm,
        characters=[table.character],
        data={"trait": "Body"},
        label="Body",
    )


# -- the page ------------------------------------------------------------------------------------


@pytest.mark.django_db
def test_it_opens_by_its_own_token_without_a_login(table: Table) -> None:
    roll = public_roll(table)

    response = Client().get(overlay_url(table.campaign))

    assert response.status_code == 200
    html = response.content.decode()
    assert '<html lang="en" class="overlay">' in html
    assert f'ws-connect="/ws/overlay/{table.campaign.overlay_token}/"' in html
    card = html[html.index(f'id="feed-roll-{roll.pk}"') :].split("card-foot", 1)[0]
    assert "climbs the fence" in card and "Success" in card and 'data-face="6"' in card


@pytest.mark.django_db
def test_it_shows_the_three_latest_rolls_newest_on_top(table: Table) -> None:
    rolls = [public_roll(table) for _ in range(5)]

    html = Client().get(overlay_url(table.campaign)).content.decode()

    assert [int(pk) for pk in FEED_CARD.findall(html)] == [roll.pk for roll in reversed(rolls[2:])]


@pytest.mark.django_db
def test_it_shows_no_join_code_no_session_hash_no_calls_nobody_and_nothing_to_press(table: Table) -> None:
    public_roll(table)
    call_for_body(table)
    assert table.campaign.open_session().seed_hash  # type: ignore[union-attr]

    html = Client().get(overlay_url(table.campaign)).content.decode()

    for absent in (
        "<svg",  # the QR code
        "/join/",
        table.campaign.join_token,
        table.campaign.display_token,
        table.campaign.open_session().seed_hash,  # type: ignore[union-attr]
        "dice sealed",
        "Session 1",
        'id="display-calls"',
        'id="presence"',
        'id="contests-panel"',
        table.campaign.name,  # the title aside: the stream shows no heading
    ):
        assert absent not in html.split("</title>", 1)[1], absent
    for control in ("<form", "<button", "<input", "<select", "hx-post", "csrf"):
        assert control not in html, control


@pytest.mark.django_db
def test_a_hidden_roll_shows_as_on_the_tv_with_nothing_of_it(table: Table) -> None:
    secret = secret_roll(table)
    blind = blind_roll(table)
    push_hidden(blind, table.player)

    html = Client().get(overlay_url(table.campaign)).content.decode()

    assert f'id="feed-roll-{secret.pk}"' in html and f'id="feed-roll-{blind.pk}"' in html
    assert "The GM rolled in secret." in html and "Olle rolled blind" in html
    assert_shows_nothing_hidden(html)


@pytest.mark.django_db
def test_the_display_link_is_refused_by_the_overlay_and_the_overlay_link_by_the_display(table: Table) -> None:
    campaign = table.campaign

    assert Client().get(f"/overlay/{campaign.display_token}/").status_code == 404
    assert Client().get(f"/overlay/{campaign.join_token}/").status_code == 404
    refused = Client().get(f"/display/{campaign.overlay_token}/")
    assert refused.status_code == 404
    assert "There is nothing here for you." in refused.content.decode()


@pytest.mark.django_db
@pytest.mark.parametrize("token", ["nope", "x" * 65, "bad token", "%00", "%C3%BC", "..", "a%2Fb"])
def test_a_wrong_or_garbage_token_is_a_plain_404(table: Table, token: str) -> None:
    response = Client().get(f"/overlay/{token}/")

    assert response.status_code == 404
    assert "There is nothing here for you." in response.content.decode()


@pytest.mark.django_db
def test_it_follows_the_campaigns_language(table: Table) -> None:
    Campaign.objects.filter(pk=table.campaign.pk).update(language="sv")

    page = Client().get(overlay_url(table.campaign), HTTP_ACCEPT_LANGUAGE="de")

    assert page["Content-Language"] == "sv"
    assert '<html lang="sv" class="overlay">' in page.content.decode()


@pytest.mark.django_db
def test_a_campaign_made_now_has_an_overlay_token_of_its_own(table: Table) -> None:
    other = Campaign.objects.create(name="Other", system="sixes", gm=table.gm)

    tokens = {
        table.campaign.overlay_token,
        table.campaign.display_token,
        table.campaign.join_token,
        other.overlay_token,
        other.display_token,
    }
    assert len(tokens) == 5
    assert overlay.campaign_for(table.campaign.overlay_token) == table.campaign
    assert overlay.campaign_for(other.overlay_token) == other


@pytest.mark.django_db(transaction=True)
def test_the_migrations_give_each_existing_campaign_its_own_overlay_token() -> None:
    """Run for real: back to before the column, three campaigns, forward again."""
    from django.db import connection
    from django.db.migrations.executor import MigrationExecutor

    before = [("tabletop", "0012_campaign_language")]
    after = [("tabletop", "0015_campaign_overlay_token_unique")]
    executor = MigrationExecutor(connection)
    executor.migrate(before)
    old_apps = executor.loader.project_state(before).apps
    gm = old_apps.get_model("auth", "User").objects.create(username="old-gm")
    old_campaigns = old_apps.get_model("tabletop", "Campaign")
    for n in range(3):
        old_campaigns.objects.create(
            name=f"Old {n}", system="sixes", gm=gm, join_token=f"j-{n}", display_token=f"d-{n}"
        )

    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(after)

    tokens = list(Campaign.objects.values_list("overlay_token", flat=True))
    # Then to the newest migrations, so the tests after this one find every column.
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(executor.loader.graph.leaf_nodes())
    assert len(tokens) == 3 and len(set(tokens)) == 3
    assert all(looks_like_token(token) and len(token) == 32 for token in tokens)


# -- renewing the link ---------------------------------------------------------------------------


@pytest.mark.django_db
def test_the_gm_renews_the_overlay_link_and_the_old_one_stops(table: Table) -> None:
    old, display = table.campaign.overlay_token, table.campaign.display_token

    response = logged_in(table.gm).post(rotate_url(table))

    assert response.status_code == 302
    assert response["Location"] == reverse("rolls:session", args=[table.campaign.pk]) + "#overlay-link"
    campaign = fresh(table)
    assert campaign.overlay_token != old
    assert Client().get(f"/overlay/{old}/").status_code == 404
    assert Client().get(overlay_url(campaign)).status_code == 200
    # On its own: the TV's link stays as it was.
    assert campaign.display_token == display
    assert Client().get(f"/display/{display}/").status_code == 200
    # Logged: the history says when the old link stopped.
    entry = LogEntry.objects.get(action=TableEvent.OVERLAY_LINK)
    assert entry.actor == table.gm and "new stream overlay link" in entry.text


@pytest.mark.django_db
def test_renewing_from_htmx_sends_the_console_to_the_new_link(table: Table) -> None:
    response = logged_in(table.gm).post(rotate_url(table), HTTP_HX_REQUEST="true")

    assert response.status_code == 200
    assert response["HX-Redirect"] == reverse("rolls:session", args=[table.campaign.pk])


@pytest.mark.django_db
def test_renewing_the_display_link_leaves_the_overlays_alone(table: Table) -> None:
    old = table.campaign.overlay_token

    logged_in(table.gm).post(reverse("rolls:display-rotate", args=[table.campaign.pk]))

    assert fresh(table).overlay_token == old
    assert Client().get(f"/overlay/{old}/").status_code == 200


@pytest.mark.django_db
def test_only_the_gm_renews_the_link(table: Table) -> None:
    old = table.campaign.overlay_token

    assert logged_in(table.player).post(rotate_url(table)).status_code == 403
    assert logged_in(table.outsider).post(rotate_url(table)).status_code == 404
    anonymous = Client().post(rotate_url(table))
    assert anonymous.status_code == 302 and reverse("tabletop:login") in anonymous["Location"]
    assert logged_in(table.gm).get(rotate_url(table)).status_code == 405
    assert logged_in(table.gm).post(reverse("rolls:overlay-rotate", args=[987654])).status_code == 404

    assert fresh(table).overlay_token == old
    assert not LogEntry.objects.filter(action=TableEvent.OVERLAY_LINK).exists()


@pytest.mark.django_db
def test_the_session_page_gives_the_gm_the_overlay_link_and_its_renewal(table: Table) -> None:
    html = logged_in(table.gm).get(reverse("rolls:session", args=[table.campaign.pk])).content.decode()

    assert "Stream overlay: add it to OBS as a browser source" in html
    assert re.search(
        rf'<a id="overlay-url" href="http://testserver{overlay_url(table.campaign)}" target="_blank"', html
    )
    assert f'action="{rotate_url(table)}"' in html
    assert "?overlay=1" not in html


@pytest.mark.django_db
def test_a_player_never_sees_the_overlay_link(table: Table) -> None:
    player = logged_in(table.player)
    for name in ("campaign", "session"):
        response = player.get(reverse(f"rolls:{name}", args=[table.campaign.pk]))
        assert response.status_code in (200, 302, 403), name
        assert table.campaign.overlay_token not in response.content.decode(), name


# -- the socket ----------------------------------------------------------------------------------


@pytest.fixture
async def empty_channel_layer() -> AsyncIterator[None]:
    layer = get_channel_layer()
    await layer.flush()  # type: ignore[union-attr]
    yield
    await layer.flush()  # type: ignore[union-attr]


async def open_socket(path: str, *, origin: bytes | None = ORIGIN) -> tuple[WebsocketCommunicator, bool]:
    """A socket as the streaming program's browser opens it: the page's Origin, no cookie."""
    headers = [(b"host", b"testserver")]
    if origin is not None:
        headers.append((b"origin", origin))
    communicator = WebsocketCommunicator(application, path, headers=headers)
    connected, _ = await communicator.connect()
    return communicator, connected


@database_sync_to_async
def campaign_now(table: Table) -> Campaign:
    return fresh(table)


async def synced(table: Table, kind: str = "overlay") -> tuple[WebsocketCommunicator, int]:
    campaign = await campaign_now(table)
    token = campaign.overlay_token if kind == "overlay" else campaign.display_token
    communicator, connected = await open_socket(f"/ws/{kind}/{token}/")
    assert connected
    await communicator.send_json_to({"since": campaign.last_seq})
    assert await communicator.receive_nothing(timeout=0.3)  # nothing new yet
    return communicator, campaign.last_seq


async def bytes_until(communicator: WebsocketCommunicator, seq: int) -> str:
    return "".join(await frames_until(communicator, up_to(seq)))


async def closed_as_replaced(communicator: WebsocketCommunicator) -> bool:
    closed = await communicator.receive_output(timeout=3)
    return (closed["type"], closed.get("code")) == ("websocket.close", REPLACED)


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("empty_channel_layer")
async def test_the_overlay_socket_receives_a_new_roll(table: Table) -> None:
    communicator, last = await synced(table)

    roll = await database_sync_to_async(public_roll)(table)
    live = await bytes_until(communicator, last + 1)

    assert f'<div hx-swap-oob="afterbegin:#feed" data-seq="{last + 1}"><li id="feed-roll-{roll.pk}"' in live
    assert "climbs the fence" in live and "Success" in live and 'data-face="6"' in live
    await communicator.disconnect()


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("empty_channel_layer")
async def test_the_overlay_socket_sends_hidden_rolls_with_nothing_of_them_live_and_in_catch_up(
    table: Table,
) -> None:
    communicator, last = await synced(table)

    secret = await database_sync_to_async(secret_roll)(table)
    blind = await database_sync_to_async(blind_roll)(table)
    await database_sync_to_async(push_hidden)(blind, table.player)
    live = await bytes_until(communicator, last + 3)

    assert f'id="feed-roll-{secret.pk}"' in live and f'id="feed-roll-{blind.pk}"' in live
    assert "The GM rolled in secret." in live and "Olle rolled blind" in live
    assert_shows_nothing_hidden(live)
    await communicator.disconnect()

    again, connected = await open_socket(f"/ws/overlay/{(await campaign_now(table)).overlay_token}/")
    assert connected
    await again.send_json_to({"since": 0})
    caught_up = await bytes_until(again, last + 3)
    assert f'id="feed-roll-{secret.pk}"' in caught_up
    assert_shows_nothing_hidden(caught_up)
    await again.disconnect()


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("empty_channel_layer")
async def test_the_overlay_socket_sends_no_panel_no_line_and_no_session(table: Table) -> None:
    """What the TV redraws (the calls, the session line with its hash, the decisions' lines)
    the overlay neither holds nor is sent: only where the log stands."""
    communicator, last = await synced(table)

    await database_sync_to_async(call_for_body)(table)
    await database_sync_to_async(campaigns.session_end)(campaign=await campaign_now(table), actor=table.gm)
    sent = await bytes_until(communicator, last + 2)

    assert re.sub(r'<span id="last-seq" data-seq="\d+" hidden></span>', "", sent).strip() == ""
    assert f'data-seq="{last + 2}"' in sent
    await communicator.disconnect()


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("empty_channel_layer")
async def test_the_display_token_is_refused_by_the_overlay_socket_and_the_overlay_token_by_the_displays(
    table: Table,
) -> None:
    campaign = await campaign_now(table)
    for path in (
        f"/ws/overlay/{campaign.display_token}/",
        f"/ws/overlay/{campaign.join_token}/",
        f"/ws/display/{campaign.overlay_token}/",
        "/ws/overlay/nope/",
        "/ws/overlay/%00/",
    ):
        communicator, accepted = await open_socket(path)
        # Accepted, then closed with the code the page knows and does not reconnect on.
        assert accepted, path
        assert await closed_as_replaced(communicator), path
        await communicator.send_json_to({"since": 0})
        assert await communicator.receive_nothing(timeout=0.2), path
        await communicator.disconnect()


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("empty_channel_layer")
async def test_renewing_closes_the_open_overlay_socket_and_refuses_the_old_token(table: Table) -> None:
    overlay_socket, _ = await synced(table)
    display_socket, last = await synced(table, "display")
    old = (await campaign_now(table)).overlay_token

    await database_sync_to_async(campaigns.overlay_link_rotate)(campaign=table.campaign, actor=table.gm)

    assert await closed_as_replaced(overlay_socket)
    again, accepted = await open_socket(f"/ws/overlay/{old}/")
    assert accepted and await closed_as_replaced(again)
    # The TV's link is another: its socket hears the entry and stays open.
    await bytes_until(display_socket, last + 1)
    roll = await database_sync_to_async(public_roll)(table)
    assert f'id="feed-roll-{roll.pk}"' in await bytes_until(display_socket, last + 2)
    # And the new overlay link is live.
    renewed, _ = await synced(table)
    roll = await database_sync_to_async(public_roll)(table)
    assert f'id="feed-roll-{roll.pk}"' in await bytes_until(renewed, last + 3)
    for communicator in (overlay_socket, again, display_socket, renewed):
        await communicator.disconnect()


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("empty_channel_layer")
async def test_renewing_the_display_link_leaves_the_overlay_socket_open(table: Table) -> None:
    communicator, last = await synced(table)

    await database_sync_to_async(campaigns.display_link_rotate)(campaign=table.campaign, actor=table.gm)
    await bytes_until(communicator, last + 1)
    roll = await database_sync_to_async(public_roll)(table)

    assert f'id="feed-roll-{roll.pk}"' in await bytes_until(communicator, last + 2)
    await communicator.disconnect()


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("empty_channel_layer")
async def test_an_overlay_socket_from_another_origin_is_refused(table: Table) -> None:
    campaign = await campaign_now(table)
    for origin in (b"http://evil.example", None):
        communicator, connected = await open_socket(f"/ws/overlay/{campaign.overlay_token}/", origin=origin)
        assert not connected
        await communicator.disconnect()


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("empty_channel_layer")
async def test_the_overlay_is_nobody_at_the_table_and_is_told_of_nobody(table: Table) -> None:
    """The TV lists who is here; the overlay names nobody, so it is not sent the list."""
    overlay_socket, _ = await synced(table)
    display_socket, _ = await synced(table, "display")
    assert not await database_sync_to_async(Presence.objects.exists)()

    player, connected, _ = await open_member_socket(table.campaign.pk, table.player)
    assert connected

    told = await display_socket.receive_from(timeout=5)
    assert is_presence(told) and "Olle" not in told and "Player" in told
    assert await overlay_socket.receive_nothing(timeout=0.5)
    for communicator in (player, display_socket, overlay_socket):
        await communicator.disconnect()


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("empty_channel_layer")
async def test_a_new_language_redraws_the_overlay_and_a_new_join_link_does_not(table: Table) -> None:
    """The overlay shows no join code: a new join link leaves it as it is. A new language
    sends it the reload it knows, and it draws itself again in that language."""
    communicator, last = await synced(table)

    await database_sync_to_async(campaigns.join_link_rotate)(campaign=table.campaign, actor=table.gm)
    assert 'id="reload-needed"' not in await bytes_until(communicator, last + 1)
    await database_sync_to_async(campaigns.language_set)(campaign=table.campaign, gm=table.gm, language="fr")

    frame = await communicator.receive_from(timeout=10)
    assert 'id="reload-needed"' in frame
    await communicator.disconnect()


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("empty_channel_layer")
async def test_a_secret_roll_the_gm_reveals_comes_back_on_top_with_its_dice(table: Table) -> None:
    from rolls.history import marks

    secret = await database_sync_to_async(secret_roll)(table)
    await database_sync_to_async(public_roll)(table)
    communicator, last = await synced(table)

    await database_sync_to_async(marks.roll_reveal)(roll=secret, gm=table.gm)
    sent = await bytes_until(communicator, last + 1)

    # Taken from where it was, and put on top as a new roll, its dice shown.
    assert f'<li id="feed-roll-{secret.pk}" hx-swap-oob="delete"></li>' in sent
    assert f'<div hx-swap-oob="afterbegin:#feed" data-seq="{last + 1}"><li id="feed-roll-{secret.pk}"' in sent
    assert SECRET_INTENT in sent and 'data-face="6"' in sent
    await communicator.disconnect()
