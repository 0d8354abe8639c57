"""The live table over a real websocket: the whole ASGI application (origin check, session
cookie, routing, consumer), the real channel layer and database, and rolls written through the
services, as the views write them."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest
from channels.db import database_sync_to_async
from channels.layers import get_channel_layer
from channels.testing import WebsocketCommunicator
from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.test import Client

from rolls.campaigns import services as table_services
from rolls.live.consumers import _result_for
from rolls.log import append
from rolls.log.events import TableEvent
from rolls.models import LogEntry, Roll
from rolls.play import services
from tabletop.asgi import application
from tabletop.models import Membership, Presence
from tests import factories
from tests.factories import ScriptedDice, Table

pytestmark = pytest.mark.django_db(transaction=True)

ORIGIN = b"http://testserver"
NOT_A_MEMBER = 4403
# One element per log entry in the feed: a roll's card or an event, each with its seq.
FEED_ITEM = re.compile(r'<li id="(?:feed-roll-\d+|event-\d+)"[^>]*?\bdata-seq="(\d+)"')


@pytest.fixture(autouse=True)
async def empty_channel_layer() -> AsyncIterator[None]:
    layer = get_channel_layer()
    await layer.flush()  # type: ignore[union-attr]
    yield
    await layer.flush()  # type: ignore[union-attr]


def _cookie(user: AbstractBaseUser) -> bytes:
    client = Client()
    client.force_login(user)
    name = settings.SESSION_COOKIE_NAME
    return f"{name}={client.cookies[name].value}".encode()


async def open_socket(
    campaign_id: int,
    user: AbstractBaseUser | None = None,
    *,
    origin: bytes | None = ORIGIN,
    roll_screen: int | None = None,
    timeout: float = 1,
) -> tuple[WebsocketCommunicator, bool, Any]:
    """A socket as a browser opens it: with the page's Origin and the session cookie; from
    the roll screen of character ``roll_screen`` (which has a result panel), or another page."""
    headers = [(b"host", b"testserver")]
    if origin is not None:
        headers.append((b"origin", origin))
    if user is not None:
        headers.append((b"cookie", await database_sync_to_async(_cookie)(user)))
    query = f"?character={roll_screen}" if roll_screen is not None else ""
    communicator = WebsocketCommunicator(application, f"/ws/c/{campaign_id}/{query}", headers=headers)
    connected, detail = await communicator.connect(timeout=timeout)
    return communicator, connected, detail


def is_presence(frame: str) -> bool:
    return frame.lstrip().startswith('<ul id="presence"')


async def frames_until(communicator: WebsocketCommunicator, done: Callable[[str], bool]) -> list[str]:
    """Frames (presence lists skipped: they come whenever someone connects) up to the first
    one for which ``done`` is true."""
    frames = []
    while True:
        # A deadline, not a measurement: generous, so a loaded machine (CI runs the suite three
        # times beside PostgreSQL and Redis) does not fail a frame that is merely late.
        frame = await communicator.receive_from(timeout=10)
        if is_presence(frame):
            continue
        frames.append(frame)
        if done(frame):
            return frames


def up_to(seq: int) -> Callable[[str], bool]:
    return lambda frame: f'<span id="last-seq" data-seq="{seq}" hidden>' in frame


async def sync(communicator: WebsocketCommunicator, since: int, last: int) -> list[str]:
    await communicator.send_json_to({"since": since})
    return await frames_until(communicator, up_to(last))


async def assert_quiet(communicator: WebsocketCommunicator) -> None:
    """Nothing but presence lists arrives."""
    while not await communicator.receive_nothing(timeout=0.3):
        frame = await communicator.receive_from()
        assert is_presence(frame), frame


def seqs(frames: list[str]) -> list[int]:
    return [int(seq) for frame in frames for seq in FEED_ITEM.findall(frame)]


@database_sync_to_async
def last_seq(table: Table) -> int:
    table.campaign.refresh_from_db()
    return table.campaign.last_seq


@database_sync_to_async
def all_seqs(table: Table) -> list[int]:
    return list(
        LogEntry.objects.filter(campaign=table.campaign).order_by("seq").values_list("seq", flat=True)
    )


@database_sync_to_async
def roll_for(table: Table, *faces: int, character: Any = None, roller: Any = None) -> Roll:
    return services.roll_create(
        character=character or table.character,
        roller=roller or table.player,
        data={"attribute": "Body", "skill": "", "need": 1},
        helper=None,
        intent="",
        rng=ScriptedDice(*faces, then=1),
    )


@database_sync_to_async
def follow_up(roll: Roll, actor: Any, action: str, *faces: int, **params: Any) -> LogEntry:
    return services.follow_up_apply(
        roll=roll, actor=actor, action=action, params=params, rng=ScriptedDice(*faces, then=1)
    )


def write_note(table: Table, text: str) -> LogEntry:
    """A table event that refreshes nothing but the feed (the GM's note of a correction)."""
    with transaction.atomic():
        return append.append_event(
            campaign_id=table.campaign.pk, event=TableEvent.GM_CORRECTION, actor=table.gm, text=text
        )


event = database_sync_to_async(write_note)


# -- who may connect -----------------------------------------------------------------------------


async def test_a_member_of_another_campaign_is_refused_on_connect(table: Table) -> None:
    communicator, connected, code = await open_socket(table.campaign.pk, table.outsider)

    assert (connected, code) == (False, NOT_A_MEMBER)
    await communicator.disconnect()
    # The presence row is written in the membership's own trip to the database: a refused
    # socket is at no table.
    assert not await database_sync_to_async(Presence.objects.exists)()


async def test_a_member_is_at_the_table_once_connected_and_gone_once_closed(table: Table) -> None:
    communicator, connected, _ = await open_socket(table.campaign.pk, table.player)
    assert connected

    rows = await database_sync_to_async(
        lambda: list(Presence.objects.values_list("campaign_id", "user_id"))
    )()
    assert rows == [(table.campaign.pk, table.player.pk)]
    await communicator.disconnect()
    assert not await database_sync_to_async(Presence.objects.exists)()


async def test_an_anonymous_visitor_is_refused_on_connect(table: Table) -> None:
    communicator, connected, code = await open_socket(table.campaign.pk)

    assert (connected, code) == (False, NOT_A_MEMBER)
    await communicator.disconnect()


async def test_a_campaign_that_does_not_exist_is_refused_on_connect(table: Table) -> None:
    for campaign_id in (999, 99999999999999999999999):
        communicator, connected, code = await open_socket(campaign_id, table.gm)
        assert (connected, code) == (False, NOT_A_MEMBER)
        await communicator.disconnect()


@pytest.mark.parametrize("origin", [b"http://evil.example", b"https://testserver.evil.example", None])
async def test_a_socket_from_a_foreign_or_missing_origin_is_refused(
    table: Table, origin: bytes | None
) -> None:
    communicator, connected, _ = await open_socket(table.campaign.pk, table.player, origin=origin)

    assert not connected
    await communicator.disconnect()
    assert not await database_sync_to_async(Presence.objects.exists)()


async def test_a_member_connects_and_the_gm_sees_them_at_the_table(table: Table) -> None:
    gm, connected, _ = await open_socket(table.campaign.pk, table.gm)
    assert connected
    player, connected, _ = await open_socket(table.campaign.pk, table.player)
    assert connected

    frames = []
    while not any("<li>Player</li>" in frame for frame in frames):
        frames.append(await gm.receive_from(timeout=3))

    assert is_presence(frames[-1])
    assert '<li class="gm">GM</li>' in frames[-1]
    await player.disconnect()
    await gm.disconnect()
    assert not await database_sync_to_async(Presence.objects.exists)()


# -- what a member receives ----------------------------------------------------------------------


async def test_since_zero_sends_every_entry_in_order_then_the_last_seq(table: Table) -> None:
    made = await roll_for(table, 1, 2, 3)
    await follow_up(made, table.player, "luck", 6, 1, 1)
    await event(table, "The lights flicker.")
    last = await last_seq(table)
    communicator, connected, _ = await open_socket(table.campaign.pk, table.player)
    assert connected

    frames = await sync(communicator, 0, last)

    assert seqs(frames) == await all_seqs(table)
    assert frames[-1].rstrip().endswith(f'<span id="last-seq" data-seq="{last}" hidden></span>')
    everything = "".join(frames)
    assert "Olle joins the story." in everything
    assert "The lights flicker." in everything
    assert f'id="feed-roll-{made.pk}"' in everything
    await assert_quiet(communicator)
    await communicator.disconnect()


async def test_a_roll_arrives_on_top_of_the_feed_and_its_follow_up_replaces_it(table: Table) -> None:
    communicator, connected, _ = await open_socket(table.campaign.pk, table.gm)
    assert connected
    await sync(communicator, 0, await last_seq(table))

    made = await roll_for(table, 1, 2, 3)
    rolled = await frames_until(communicator, up_to(await last_seq(table)))

    frame = "".join(rolled)
    assert seqs(rolled) == [await last_seq(table)]
    assert (
        f'<div hx-swap-oob="afterbegin:#feed" data-seq="{await last_seq(table)}"><li id="feed-roll-{made.pk}"'
        in frame
    )
    assert "Failure: 0 of 1 needed" in frame

    await follow_up(
        made, table.player, "push", 6, 6, 1, condition="Scared", description="Olle grits his teeth"
    )
    pushed = await frames_until(communicator, up_to(await last_seq(table)))

    frame = "".join(pushed)
    assert seqs(pushed) == [await last_seq(table)]
    assert "afterbegin" not in frame
    # A top-level element with the card's id: htmx swaps it in place of the old card.
    assert frame.lstrip().startswith(f'<li id="feed-roll-{made.pk}"')
    assert "Pushed, checking Scared" in frame
    assert "Success: 2 of 1 needed" in frame
    await assert_quiet(communicator)
    await communicator.disconnect()


async def test_catch_up_after_a_reconnect_sends_exactly_the_missed_entries(table: Table) -> None:
    communicator, connected, _ = await open_socket(table.campaign.pk, table.player)
    assert connected
    seen = await last_seq(table)
    before = await sync(communicator, 0, seen)
    await communicator.disconnect()

    made = await roll_for(table, 1, 2, 3)
    await follow_up(made, table.player, "pride")
    await event(table, "A car passes.")
    second = await roll_for(table, 6, 6, 6)
    now = await last_seq(table)

    communicator, connected, _ = await open_socket(table.campaign.pk, table.player)
    assert connected
    after = await sync(communicator, seen, now)

    assert seqs(before) == list(range(1, seen + 1))
    assert seqs(after) == list(range(seen + 1, now + 1))
    assert set(seqs(before)).isdisjoint(seqs(after))
    frame = "".join(after)
    assert f'id="feed-roll-{second.pk}"' in frame
    assert "A car passes." in frame
    await assert_quiet(communicator)
    await communicator.disconnect()


async def test_entries_written_before_the_page_says_since_arrive_once(table: Table) -> None:
    communicator, connected, _ = await open_socket(table.campaign.pk, table.player)
    assert connected
    seen = await last_seq(table)

    await roll_for(table, 1, 2, 3)
    await event(table, "A dog barks.")
    now = await last_seq(table)
    frames = await sync(communicator, seen, now)

    assert seqs(frames) == [seen + 1, seen + 2]
    await assert_quiet(communicator)
    await communicator.disconnect()


async def test_live_entries_arrive_once_each_in_order(table: Table) -> None:
    communicator, connected, _ = await open_socket(table.campaign.pk, table.player)
    assert connected
    seen = await last_seq(table)
    await sync(communicator, 0, seen)

    made = await roll_for(table, 1, 2, 3)
    await follow_up(made, table.player, "luck", 1, 1, 1)
    await follow_up(made, table.player, "pride")
    await event(table, "Thunder.")
    now = await last_seq(table)
    frames = await frames_until(communicator, up_to(now))

    assert seqs(frames) == list(range(seen + 1, now + 1))
    await assert_quiet(communicator)
    await communicator.disconnect()


async def test_a_page_too_far_behind_is_told_to_reload(table: Table) -> None:
    @database_sync_to_async
    def many_events() -> None:
        for i in range(201):
            write_note(table, f"Note {i}")

    await many_events()
    communicator, connected, _ = await open_socket(table.campaign.pk, table.player)
    assert connected

    await communicator.send_json_to({"since": 0})
    frames = await frames_until(communicator, lambda frame: "reload-needed" in frame)

    assert seqs(frames) == []
    # Still there from where it stood: a page that reloads gets the newest state.
    await communicator.send_json_to({"since": await last_seq(table) - 1})
    assert seqs(await frames_until(communicator, up_to(await last_seq(table)))) == [await last_seq(table)]
    await communicator.disconnect()


MALFORMED = [
    pytest.param({"text_data": "not json"}, id="not-json"),
    pytest.param({"text_data": '{"since": -1}'}, id="negative"),
    pytest.param({"text_data": '{"since": "x"}'}, id="string"),
    pytest.param({"text_data": '{"since": "3"}'}, id="number-as-string"),
    pytest.param({"text_data": '{"since": 1.5}'}, id="float"),
    pytest.param({"text_data": '{"since": true}'}, id="boolean"),
    pytest.param({"text_data": '{"since": null}'}, id="null"),
    pytest.param({"text_data": '{"since": 99999999999999999999999}'}, id="huge"),
    pytest.param({"text_data": '{"since": 1e999}'}, id="infinity"),
    pytest.param({"text_data": '{"until": 0}'}, id="no-since"),
    pytest.param({"text_data": "[0]"}, id="a-list"),
    pytest.param({"text_data": "7"}, id="a-number"),
    pytest.param({"text_data": " "}, id="blank"),
    pytest.param({"bytes_data": b"\x00\xff binary"}, id="binary"),
]


@pytest.mark.parametrize("frame", MALFORMED)
async def test_a_malformed_frame_is_ignored_and_the_socket_stays_open(
    table: Table, frame: dict[str, Any]
) -> None:
    communicator, connected, _ = await open_socket(table.campaign.pk, table.player)
    assert connected

    await communicator.send_to(**frame)
    await assert_quiet(communicator)

    # Still open, still unsynced: a good frame afterwards gets everything, from the start.
    last = await last_seq(table)
    assert seqs(await sync(communicator, 0, last)) == list(range(1, last + 1))
    await communicator.disconnect()


# -- what each member may see --------------------------------------------------------------------


async def _table_sockets(table: Table) -> dict[str, Any]:
    """Synced sockets for the roll's player and the GM, both on the roll screen of the
    player's character, for another player (Kim) and for the GM's session page."""
    kim = await database_sync_to_async(factories.member)(table.campaign, name="Kim")
    sockets = {}
    screen = table.character.pk
    for name, user, roll_screen in (
        ("player", table.player, screen),
        ("kim", kim.user, None),
        ("gm", table.gm, screen),
        ("session", table.gm, None),
    ):
        communicator, connected, _ = await open_socket(table.campaign.pk, user, roll_screen=roll_screen)
        assert connected
        await sync(communicator, 0, await last_seq(table))
        sockets[name] = communicator
    return sockets


async def test_a_plain_roll_reaches_every_socket_as_the_same_feed_card(table: Table) -> None:
    # The roller's result card and its buttons come with the HTTP response to the roll.
    sockets = await _table_sockets(table)

    made = await roll_for(table, 1, 2, 3)
    now = await last_seq(table)
    frames = {name: "".join(await frames_until(c, up_to(now))) for name, c in sockets.items()}

    assert frames["player"] == frames["kim"] == frames["gm"] == frames["session"]
    assert f'id="feed-roll-{made.pk}"' in frames["kim"]
    assert "result-roll" not in frames["kim"]
    assert "follow-up-" not in frames["kim"]
    for communicator in sockets.values():
        await communicator.disconnect()


async def test_follow_up_buttons_reach_only_the_roller_and_the_gm_on_its_roll_screen(table: Table) -> None:
    sockets = await _table_sockets(table)
    made = await roll_for(table, 1, 2, 3)
    await follow_up(made, table.player, "luck", 1, 1, 1)
    now = await last_seq(table)
    frames = {name: "".join(await frames_until(c, up_to(now))) for name, c in sockets.items()}

    for name in ("player", "gm"):
        assert f'id="feed-roll-{made.pk}"' in frames[name]
        assert f'<li id="result-roll-{made.pk}"' in frames[name]
        assert 'class="follow-ups"' in frames[name]
        assert "follow-up-pride" in frames[name]
    # Pages without that result panel get the feed card everyone gets, without buttons.
    for name in ("kim", "session"):
        assert f'id="feed-roll-{made.pk}"' in frames[name]
        assert "result-roll" not in frames[name]
        assert "follow-ups" not in frames[name]
        assert "follow-up-" not in frames[name]
    # Nothing ever waits on the GM's panel in sixes: a follow-up does not redraw it.
    assert 'id="gm-panel"' not in frames["session"]
    assert frames["session"] == frames["kim"]
    for communicator in sockets.values():
        await communicator.disconnect()


@pytest.mark.parametrize("system", ["sixes", "stars"])
async def test_a_roll_against_a_character_redraws_its_players_panel_only_where_they_can_answer_it(
    system: str,
) -> None:
    """An NPC roll against the player's character: in stars (Luck against, STR-11) their
    socket redraws the panel of rolls against them, with the answer; in sixes nobody answers
    such a roll, so their socket is sent the table's markup and no panel is read or drawn."""
    sheet = None if system == "sixes" else factories.sheet_of(system)
    table = await database_sync_to_async(factories.table)(system, sheet=sheet)
    sockets = await _table_sockets(table)

    attack = await database_sync_to_async(factories.an_npc_roll)(table.campaign, table.gm, table.character)
    now = await last_seq(table)
    frames = {name: "".join(await frames_until(c, up_to(now))) for name, c in sockets.items()}

    assert f'id="feed-roll-{attack.pk}"' in frames["player"]
    if system == "stars":
        assert 'id="against-panel"' in frames["player"]
        assert f'id="against-roll-{attack.pk}"' in frames["player"]
        assert "follow-up-luck_against" in frames["player"]
    else:
        assert frames["player"] == frames["kim"]
        assert "against-panel" not in frames["player"]
    assert "against-panel" not in frames["kim"]
    for communicator in sockets.values():
        await communicator.disconnect()


@database_sync_to_async
def doubles_table_with_a_failed_roll() -> tuple[Table, Roll]:
    table = factories.table("doubles", sheet=factories.sheet_of("doubles"))
    made = services.roll_create(
        character=table.character,
        roller=table.player,  # type: ignore[arg-type]
        data={**factories.roll_data("doubles", table.character), "dn": 6},
        helper=None,
        intent="",
        rng=ScriptedDice(2, 3),
    )
    return table, made


@database_sync_to_async
def gm_panel_markup(table: Table) -> str:
    from django.template.loader import render_to_string

    from rolls.sight import panels

    gm = Membership.objects.select_related("campaign").get(campaign=table.campaign, is_gm=True)
    return render_to_string("rolls/_gm_panel.html", {"gm_cards": panels.gm_panel(table.campaign.pk, gm)})


async def test_a_follow_up_that_asks_the_gm_sends_the_gms_socket_the_panel_with_it() -> None:
    """Doubles: a player's drama dice change nothing the GM decides on, but a miracle asked
    waits for the GM: only then does the session page's socket draw the panel again."""
    table, made = await doubles_table_with_a_failed_roll()
    session, connected, _ = await open_socket(table.campaign.pk, table.gm)
    assert connected
    await sync(session, 0, await last_seq(table))

    await follow_up(made, table.player, "miracle")
    frames = "".join(await frames_until(session, up_to(await last_seq(table))))

    panel = await gm_panel_markup(table)
    assert "follow-up-miracle_approve" in panel
    assert panel in frames
    await session.disconnect()


async def test_the_gms_socket_leaves_a_panel_it_drew_empty_as_it_is_for_a_players_roll() -> None:
    """Sets: the GM's own and blind rolls wait on their panel. Once the GM's socket has drawn
    it empty, a player's open roll cannot change it: the GM's page is sent the table's markup
    alone. The GM's own roll draws it again."""
    table = await database_sync_to_async(factories.table)("sets", sheet=factories.sheet_of("sets"))
    # Each socket's catch-up draws the panels its page shows (the session began): empty.
    sockets = await _table_sockets(table)
    assert 'class="card' not in await gm_panel_markup(table)
    player_roll = database_sync_to_async(factories.a_roll)

    for _ in range(2):
        await player_roll("sets", table.character, table.player)
        now = await last_seq(table)
        frames = {name: "".join(await frames_until(c, up_to(now))) for name, c in sockets.items()}
        assert 'id="gm-panel"' not in frames["session"]
        assert frames["session"] == frames["kim"]

    await database_sync_to_async(factories.an_npc_roll)(table.campaign, table.gm, table.character)
    frames = "".join(await frames_until(sockets["session"], up_to(await last_seq(table))))
    assert 'id="gm-panel"' in frames
    for communicator in sockets.values():
        await communicator.disconnect()


async def test_a_stale_card_in_one_batch_never_offers_a_button(table: Table) -> None:
    made = await roll_for(table, 1, 2, 3)
    await follow_up(made, table.player, "luck", 1, 1, 1)
    communicator, connected, _ = await open_socket(
        table.campaign.pk, table.player, roll_screen=table.character.pk
    )
    assert connected

    frames = await sync(communicator, 0, await last_seq(table))

    result_cards = [frame for frame in frames if f'<li id="result-roll-{made.pk}"' in frame]
    assert len(result_cards) == 1
    assert "Luck point: rerolled the failed dice" in result_cards[0]
    await communicator.disconnect()


async def test_six_5_a_new_mystery_updates_every_pages_status_line(table: Table) -> None:
    communicator, connected, _ = await open_socket(table.campaign.pk, table.player)
    assert connected
    await sync(communicator, 0, await last_seq(table))

    await database_sync_to_async(table_services.mystery_start)(campaign=table.campaign, actor=table.gm)
    frames = await frames_until(communicator, up_to(await last_seq(table)))

    frame = "".join(frames)
    assert "Mystery 2 begins. Pride is available again." in frame
    assert '<p id="session-status"' in frame
    assert "Session 1 is on · Mystery 2" in frame
    await communicator.disconnect()


async def test_the_status_line_follows_the_session_ending_and_starting(table: Table) -> None:
    communicator, connected, _ = await open_socket(table.campaign.pk, table.player)
    assert connected
    await sync(communicator, 0, await last_seq(table))

    await database_sync_to_async(table_services.session_end)(campaign=table.campaign, actor=table.gm)
    ended = "".join(await frames_until(communicator, up_to(await last_seq(table))))
    await database_sync_to_async(table_services.session_start)(campaign=table.campaign, actor=table.gm)
    started = "".join(await frames_until(communicator, up_to(await last_seq(table))))

    assert "No session running" in ended
    assert "Session 2 is on · Mystery 1" in started
    await communicator.disconnect()


async def test_a_removed_member_stops_receiving_the_table(table: Table) -> None:
    communicator, connected, _ = await open_socket(table.campaign.pk, table.player)
    assert connected
    await sync(communicator, 0, await last_seq(table))
    membership = await database_sync_to_async(Membership.objects.get)(
        campaign=table.campaign, user=table.player
    )

    await database_sync_to_async(table_services.member_remove)(
        campaign=table.campaign, actor=table.gm, membership=membership
    )
    await event(table, "A secret only the table may read.")

    while True:
        output = await communicator.receive_output(timeout=3)
        if output["type"] == "websocket.close":
            break
        assert "A secret only the table may read." not in output.get("text", "")
    assert output["code"] == NOT_A_MEMBER
    # Later entries neither reach the socket nor close it a second time.
    await event(table, "Another secret.")
    assert await communicator.receive_nothing(timeout=0.3)
    await communicator.disconnect()


async def test_the_gms_list_of_members_follows_joins_and_removals(table: Table) -> None:
    gm, connected, _ = await open_socket(table.campaign.pk, table.gm)
    assert connected
    player, connected, _ = await open_socket(table.campaign.pk, table.player)
    assert connected
    for socket in (gm, player):
        await sync(socket, 0, await last_seq(table))
    newcomer = await database_sync_to_async(factories.user)("newcomer")

    await database_sync_to_async(table_services.member_join)(
        campaign=table.campaign, user=newcomer, display_name="Kim"
    )
    joined = "".join(await frames_until(gm, up_to(await last_seq(table))))
    on_players_phone = "".join(await frames_until(player, up_to(await last_seq(table))))
    kim = await database_sync_to_async(Membership.objects.get)(campaign=table.campaign, user=newcomer)
    await database_sync_to_async(table_services.member_remove)(
        campaign=table.campaign, actor=table.gm, membership=kim
    )
    removed = "".join(await frames_until(gm, up_to(await last_seq(table))))

    members = re.compile(r'<ul id="members".*?</ul>', re.S)
    assert "Kim" in members.search(joined).group()  # type: ignore[union-attr]
    assert 'aria-label="Remove Kim"' in joined
    assert 'aria-label="Remove Kim"' not in members.search(removed).group()  # type: ignore[union-attr]
    assert 'aria-label="Let Kim back in"' in members.search(removed).group()  # type: ignore[union-attr]
    assert "Player" in members.search(removed).group()  # type: ignore[union-attr]
    ban = await database_sync_to_async(table.campaign.bans.get)()
    await database_sync_to_async(table_services.member_readmit)(
        campaign=table.campaign, actor=table.gm, ban=ban
    )
    readmitted = "".join(await frames_until(gm, up_to(await last_seq(table))))
    assert "Kim" not in members.search(readmitted).group()  # type: ignore[union-attr]
    assert 'id="members"' not in on_players_phone  # the list is the GM's
    await player.disconnect()
    await gm.disconnect()


@pytest.mark.parametrize(
    ("query", "character"),
    [
        (b"character=12", 12),
        (b"", None),
        (b"character=", None),
        (b"character=x", None),
        (b"character=0", None),
        (b"character=-3", None),
        (b"character=99999999999999999999", None),
        (b"character=1&character=2", None),
        (b"character=%FF", None),
    ],
)
def test_a_roll_screen_names_its_character_and_anything_else_is_no_character(
    query: bytes, character: int | None
) -> None:
    assert _result_for(query) == character


# -- what a connect costs ---------------------------------------------------------------------------


def test_connecting_reads_the_membership_and_writes_the_presence_row_with_one_query_each(
    table: Table, django_assert_num_queries: Any
) -> None:
    """What the consumer reads and writes for a connect (Channels' middleware has read the
    session and the user before it): the membership with its campaign and last seq, one
    INSERT for the presence row. A page that has everything sends nothing to read."""
    from rolls.live.consumers import TableConsumer
    from tabletop import presence

    consumer = TableConsumer()
    consumer.scope = {"user": table.player}
    consumer.campaign_id = table.campaign.pk
    with django_assert_num_queries(1):
        membership = consumer._find_membership()
    table.campaign.refresh_from_db()
    assert membership is not None and membership.campaign.last_seq == table.campaign.last_seq
    with django_assert_num_queries(1):
        presence.arrive(channel_name="test.1", campaign_id=table.campaign.pk, user_id=table.player.pk)
    presence.leave(channel_name="test.1")


async def test_a_page_that_has_everything_is_sent_nothing_and_one_behind_its_entries(table: Table) -> None:
    made = await roll_for(table, 1, 2, 3)
    now = await last_seq(table)
    current, _, _ = await open_socket(table.campaign.pk, table.player)
    behind, _, _ = await open_socket(table.campaign.pk, table.gm)

    await current.send_json_to({"since": now})
    frames = await sync(behind, now - 1, now)

    assert f'id="feed-roll-{made.pk}"' in "".join(frames)
    await assert_quiet(current)
    # An entry written after the connect still comes, from where the page stands.
    after = await roll_for(table, 6, 6, 6)
    frames = await frames_until(current, up_to(now + 1))
    assert f'id="feed-roll-{after.pk}"' in "".join(frames)
    for communicator in (current, behind):
        await communicator.disconnect()
