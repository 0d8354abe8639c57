"""The GM's own rolls (open or secret), blind rolls, and calls for a roll, through the views
and the socket. A secret roll's dice never leave the server for a player."""

from __future__ import annotations

import re

import pytest
from channels.db import database_sync_to_async
from django.test import Client
from django.urls import reverse

from rolls import registry
from rolls.models import LogEntry, Roll, RollCall, Visibility
from rolls.play import services
from tests import factories
from tests.factories import Script, ScriptedDice, Table, logged_in
from tests.test_consumers import frames_until, open_socket, sync, up_to

DIE = re.compile(r'class="die d\d')
FACE = re.compile(r'data-face="\d"')


@pytest.fixture
def fixed_dice(dice: Script) -> None:
    dice(6, 2, 3, 4, 5, 6, 1, 1, then=1)


def npc_roll(client: Client, table: Table, **data: str) -> object:
    fields = {"name": "The warden", "flag_dice": "3", "flag_need": "1", **data}
    return client.post(reverse("rolls:npc-roll", args=[table.campaign.pk]), fields, HTTP_HX_REQUEST="true")


@pytest.mark.django_db
def test_the_gm_rolls_openly_for_someone_without_a_sheet(table: Table, fixed_dice: None) -> None:
    response = npc_roll(logged_in(table.gm), table)

    assert response.status_code == 200  # type: ignore[attr-defined]
    roll = Roll.objects.get(npc=True)
    assert (roll.character_name, roll.visibility, roll.character) == ("The warden", Visibility.PUBLIC, None)
    html = logged_in(table.player).get(reverse("rolls:campaign", args=[table.campaign.pk])).content.decode()
    assert f'id="feed-roll-{roll.pk}"' in html
    assert "The warden" in html and 'data-face="6"' in html


@pytest.mark.django_db
def test_a_players_pages_show_a_secret_roll_without_its_dice(table: Table, fixed_dice: None) -> None:
    npc_roll(logged_in(table.gm), table, secret="on")
    roll = Roll.objects.get(npc=True)
    assert roll.visibility == Visibility.SECRET

    for url in (
        reverse("rolls:campaign", args=[table.campaign.pk]),
        reverse("rolls:history", args=[table.campaign.pk]),
    ):
        html = logged_in(table.player).get(url).content.decode()
        card = html[html.index(f'-roll-{roll.pk}"') :].split("</li>\n", 1)[0]
        assert "The GM rolled in secret." in card
        assert not DIE.search(card) and not FACE.search(card)
    gm_html = logged_in(table.gm).get(reverse("rolls:history", args=[table.campaign.pk])).content.decode()
    assert 'data-face="6"' in gm_html


@pytest.mark.django_db(transaction=True)
async def test_the_bytes_a_players_socket_receives_for_a_secret_roll_hold_no_faces(table: Table) -> None:
    player, connected, _ = await open_socket(table.campaign.pk, table.player)
    gm, gm_connected, _ = await open_socket(table.campaign.pk, table.gm)
    assert connected and gm_connected
    last = await database_sync_to_async(lambda: table.campaign.log.order_by("-seq").first().seq)()
    await sync(player, 0, last)
    await sync(gm, 0, last)

    roll = await database_sync_to_async(services.npc_roll_create)(
        campaign=table.campaign,
        gm=table.gm,
        name="Ghost",
        request=registry.engine(table.campaign.system).parse_request({"dice": 4}),
        secret=True,
        target=None,
        intent="sneaks up",
        rng=ScriptedDice(6, 6, 5, 4, then=1),
    )
    now = last + 1
    player_bytes = "".join(await frames_until(player, up_to(now)))
    gm_bytes = "".join(await frames_until(gm, up_to(now)))

    assert f'id="feed-roll-{roll.pk}"' in player_bytes
    assert "The GM rolled in secret." in player_bytes
    assert not DIE.search(player_bytes) and not FACE.search(player_bytes)
    assert "sneaks up" not in player_bytes  # not even what the GM tried
    assert "Success" not in player_bytes and "Failure" not in player_bytes
    assert 'data-face="6"' in gm_bytes and "Success" in gm_bytes
    for communicator in (player, gm):
        await communicator.disconnect()


@pytest.mark.django_db
def test_only_the_gm_rolls_for_someone_without_a_sheet(table: Table) -> None:
    assert npc_roll(logged_in(table.player), table).status_code == 403  # type: ignore[attr-defined]
    assert npc_roll(logged_in(table.outsider), table).status_code == 404  # type: ignore[attr-defined]
    assert not Roll.objects.exists()


@pytest.mark.django_db
def test_a_bad_gm_roll_is_refused_with_the_rules_message_and_changes_nothing(table: Table) -> None:
    before = LogEntry.objects.count()
    for flags in (
        {"flag_dice": "40"},
        {"flag_dice": "x"},
        {"flag_dice": "3", "flag_need": "9"},
        {"flag_dice": ""},
    ):
        response = npc_roll(logged_in(table.gm), table, **flags)
        assert response.status_code == 422, flags  # type: ignore[attr-defined]
    assert LogEntry.objects.count() == before


@pytest.mark.django_db
def test_a_blind_roll_shows_its_dice_to_the_gm_only(table: Table, fixed_dice: None) -> None:
    url = reverse("rolls:roll-create", args=[table.campaign.pk, table.character.pk])
    response = logged_in(table.player).post(
        url, {"trait": "Body", "need": 1, "blind": "on"}, HTTP_HX_REQUEST="true"
    )

    roll = Roll.objects.get()
    assert roll.visibility == Visibility.BLIND
    assert "only the GM sees the result" in response.content.decode()
    assert not FACE.search(response.content.decode())
    gm_page = logged_in(table.gm).get(reverse("rolls:history", args=[table.campaign.pk])).content.decode()
    assert 'data-face="6"' in gm_page


@pytest.mark.django_db
def test_a_player_cannot_follow_up_a_blind_roll_with_what_needs_its_dice(
    table: Table, fixed_dice: None
) -> None:
    """Only the GM sees a blind roll's dice: its roller may ask only for what needs no look at
    them (a sets bid, unseen), and nothing in sixes."""
    url = reverse("rolls:roll-create", args=[table.campaign.pk, table.character.pk])
    logged_in(table.player).post(url, {"trait": "Body", "need": 1, "blind": "on"})
    roll = Roll.objects.get()

    response = logged_in(table.player).post(
        reverse("rolls:follow-up", args=[table.campaign.pk, roll.pk]), {"action": "pride"}
    )

    assert response.status_code == 422
    assert (
        "Only the GM sees this blind roll&#x27;s dice, so that is the GM&#x27;s to do."
        in response.content.decode()
    )
    assert LogEntry.objects.filter(roll=roll).count() == 1


@pytest.mark.django_db
def test_the_gm_calls_for_a_roll_and_sees_who_answered(table: Table, fixed_dice: None) -> None:
    other = factories.member(table.campaign, name="Kim")
    kim = factories.character(table.campaign, other.user, name="Kim's kid")
    gm = logged_in(table.gm)

    response = gm.post(
        reverse("rolls:call-create", args=[table.campaign.pk, table.character.pk]),
        {"trait": "Body", "need": "2", "also": [str(kim.pk)]},
        HTTP_HX_REQUEST="true",
    )

    assert response.status_code == 200
    assert "Asked Olle, Kim&#x27;s kid to roll Body." in response.content.decode()
    call = RollCall.objects.get()
    assert set(call.characters.all()) == {table.character, kim}
    assert LogEntry.objects.filter(action="call").count() == 1

    # The player's roll screen shows the call with the GM's values, one tap to roll.
    page = logged_in(table.player).get(
        reverse("rolls:character", args=[table.campaign.pk, table.character.pk])
    )
    html = page.content.decode()
    assert f'id="call-{call.pk}-{table.character.pk}"' in html
    assert 'name="need" value="2"' in html

    answer = logged_in(table.player).post(
        reverse("rolls:roll-create", args=[table.campaign.pk, table.character.pk]),
        {**dict(call.inputs()), "call": call.pk},
        HTTP_HX_REQUEST="true",
    )
    assert answer.status_code == 200
    assert f'id="call-{call.pk}-{table.character.pk}" hx-swap-oob="delete"' in answer.content.decode()
    assert Roll.objects.get().call == call

    session = gm.get(reverse("rolls:session", args=[table.campaign.pk])).content.decode()
    status = session[session.index('id="call-status"') :]
    assert "Olle ✓" in status and "Kim&#x27;s kid …" in status


@pytest.mark.django_db
def test_a_call_answers_once_and_only_for_the_characters_asked(table: Table, fixed_dice: None) -> None:
    call = services.call_create(
        campaign=table.campaign,
        gm=table.gm,
        characters=[table.character],
        data={"trait": "Body", "need": "1"},
        label="Body",
    )
    other = factories.member(table.campaign, name="Kim")
    kim = factories.character(table.campaign, other.user, name="Kim's kid")
    refused = logged_in(other.user).post(
        reverse("rolls:roll-create", args=[table.campaign.pk, kim.pk]),
        {"trait": "Body", "need": 1, "call": call.pk},
    )
    assert refused.status_code == 422
    services.call_close(call=call, gm=table.gm)
    closed = logged_in(table.player).post(
        reverse("rolls:roll-create", args=[table.campaign.pk, table.character.pk]),
        {"trait": "Body", "need": 1, "call": call.pk},
    )
    assert closed.status_code == 422
    assert not Roll.objects.exists()


@pytest.mark.django_db
def test_calls_are_for_the_gm_to_make(table: Table) -> None:
    response = logged_in(table.player).post(
        reverse("rolls:call-create", args=[table.campaign.pk, table.character.pk]),
        {"trait": "Body", "need": "1"},
    )
    assert response.status_code == 403
    assert not RollCall.objects.exists()


@pytest.mark.django_db
def test_a_gm_correction_is_logged_for_the_table(table: Table) -> None:
    url = reverse("rolls:character-correct", args=[table.campaign.pk, table.character.pk])

    logged_in(table.gm).post(url, {"luck": "1"})

    table.character.refresh_from_db()
    assert table.character.luck == 1
    entry = LogEntry.objects.order_by("-seq").first()
    assert entry is not None and entry.action == "gm-correction"
    assert entry.text == "The GM corrected Olle: Luck points 3 → 1."


@pytest.mark.django_db
def test_only_the_gm_corrects_and_bad_values_change_nothing(table: Table) -> None:
    url = reverse("rolls:character-correct", args=[table.campaign.pk, table.character.pk])
    before = LogEntry.objects.count()

    assert logged_in(table.player).post(url, {"luck": "9"}).status_code == 403
    logged_in(table.gm).post(url, {"luck": "99"})
    logged_in(table.gm).post(url, {"luck": "-1"})

    table.character.refresh_from_db()
    assert table.character.luck == 3
    assert LogEntry.objects.count() == before


@pytest.mark.django_db
def test_the_console_corrects_each_characters_resources_and_comes_back(table: Table) -> None:
    """The GM's console holds a correction form per character (the sheet page's own form, ids of
    its own per character); a correction sent from it is the same logged correction, and the
    GM lands back on the console."""
    other = factories.character(table.campaign, table.gm, name="Kim")
    console = reverse("rolls:session", args=[table.campaign.pk])
    page = logged_in(table.gm).get(console).content.decode()
    for character in (table.character, other):
        assert (
            f'action="{reverse("rolls:character-correct", args=[table.campaign.pk, character.pk])}"' in page
        )
        assert f'id="correct-{character.pk}-luck"' in page
    url = reverse("rolls:character-correct", args=[table.campaign.pk, table.character.pk])

    response = logged_in(table.gm).post(url, {"luck": "1", "back": "console"}, follow=True)

    assert response.redirect_chain == [(console, 302)]
    assert "Corrected: Luck points 3 → 1." in response.content.decode()
    table.character.refresh_from_db()
    assert table.character.luck == 1
    entry = LogEntry.objects.order_by("-seq").first()
    assert entry is not None and entry.text == "The GM corrected Olle: Luck points 3 → 1."


@pytest.mark.django_db
def test_the_console_says_how_to_start_a_session_with_the_button_there(db: None) -> None:
    gm = factories.user("gm")
    campaign = factories.campaign(gm)
    page = logged_in(gm).get(reverse("rolls:session", args=[campaign.pk])).content.decode()
    assert "No session running: start one to open the table." in page
    assert "the GM starts one" not in page
    assert f'action="{reverse("rolls:session-start", args=[campaign.pk])}"' in page
    # Elsewhere the GM is pointed at the console; a player is told who starts it.
    player = factories.user("player")
    factories.member(campaign, player)
    campaign_url = reverse("rolls:campaign", args=[campaign.pk])
    assert "start one from <a" in logged_in(gm).get(campaign_url).content.decode()
    assert "the GM starts one" in logged_in(player).get(campaign_url).content.decode()


# -- what a secret roll shows a player -----------------------------------------------------------

CARD = re.compile(r'<li id="feed-roll-\d+".*?</li>', re.S)
ANNOUNCED = re.compile(r'<div id="announcer" hx-swap-oob="innerHTML">[^<]*</div>')
# A sets sheet: one stat of six dice. A sets NPC roll is one the GM can follow up (a bid).
SETS_SHEET = {"stats": [{"name": "Might", "dice": 6}], "notes": ""}


def _card(html: str, roll: Roll, place: str = "feed") -> str:
    start = html.index(f'<li id="{place}-roll-{roll.pk}"')
    return html[start : html.index("</li>", start)]


@pytest.mark.django_db
def test_a_players_pages_show_nothing_of_a_secret_rolls_request(table: Table, fixed_dice: None) -> None:
    npc_roll(
        logged_in(table.gm),
        table,
        secret="on",
        flag_need="3",
        target=str(table.character.pk),
        intent="ambush",
    )
    roll = Roll.objects.get(npc=True)
    assert roll.target == table.character

    for url, place in (
        (reverse("rolls:campaign", args=[table.campaign.pk]), "feed"),
        (reverse("rolls:history", args=[table.campaign.pk]), "history"),
        (reverse("rolls:character", args=[table.campaign.pk, table.character.pk]), "feed"),
    ):
        card = _card(logged_in(table.player).get(url).content.decode(), roll, place)
        assert "The GM rolled in secret." in card
        assert "needs 3" not in card and "against" not in card and "Olle" not in card
        assert "The warden" not in card and "ambush" not in card
    gm_card = _card(
        logged_in(table.gm).get(reverse("rolls:history", args=[table.campaign.pk])).content.decode(),
        roll,
        "history",
    )
    assert "needs 3" in gm_card and "against Olle" in gm_card and "The warden" in gm_card


@pytest.mark.django_db(transaction=True)
async def test_a_follow_up_on_a_secret_roll_reaches_a_player_as_the_same_card() -> None:
    table = await database_sync_to_async(factories.table)("sets", character_name="Wilcott", sheet=SETS_SHEET)
    player, connected, _ = await open_socket(table.campaign.pk, table.player)
    gm, gm_connected, _ = await open_socket(table.campaign.pk, table.gm)
    roll_screen, screen_connected, _ = await open_socket(
        table.campaign.pk, table.player, roll_screen=table.character.pk
    )
    assert connected and gm_connected and screen_connected
    last = await database_sync_to_async(lambda: table.campaign.log.order_by("-seq").first().seq)()
    for communicator in (player, gm, roll_screen):
        await sync(communicator, 0, last)

    roll = await database_sync_to_async(services.npc_roll_create)(
        campaign=table.campaign,
        gm=table.gm,
        name="Guard",
        request=registry.engine("sets").parse_request({"dice": 6, "bar_size": 2, "bar_face": 1}),
        secret=True,
        target=table.character,
        intent="watches the door",
        rng=ScriptedDice(4, 4, 5, 5, 2, 6),
    )
    rolled = {
        name: "".join(await frames_until(c, up_to(last + 1)))
        for name, c in (("player", player), ("gm", gm), ("screen", roll_screen))
    }
    await database_sync_to_async(services.follow_up_apply)(
        roll=roll,
        actor=table.gm,
        action="bid",
        params={"dice": ["0", "1"]},
        rng=ScriptedDice(then=1),
        by_gm=True,
    )
    followed = {
        name: "".join(await frames_until(c, up_to(last + 2)))
        for name, c in (("player", player), ("gm", gm), ("screen", roll_screen))
    }

    for name in ("player", "screen"):
        # The card a player had, sent again byte for byte: no step, no action, no new number.
        assert CARD.findall(followed[name]) == CARD.findall(rolled[name]) != []
        for seen in (rolled[name], followed[name]):
            assert "Bid" not in seen and "bid" not in seen and "Guard" not in seen
            assert "watches the door" not in seen and "against" not in seen
        # Nothing else of theirs is redrawn for it: only the card, where the page stands, and
        # the announcer's sentence, the one the roll itself was announced with (issue 45).
        assert followed[name].count('id="') == 3, followed[name]
        assert ANNOUNCED.findall(followed[name]) == ANNOUNCED.findall(rolled[name]) != []
    assert "Bid 2" in followed["gm"] and "against Wilcott" in followed["gm"]
    for communicator in (player, gm, roll_screen):
        await communicator.disconnect()


# -- a roll made against a character keeps its name ------------------------------------------------


@pytest.mark.django_db
def test_a_roll_against_a_character_keeps_its_name_after_the_character_is_removed(
    table: Table, fixed_dice: None
) -> None:
    from rolls.campaigns import services as campaigns
    from rolls.live import feed
    from rolls.sight import cards

    npc_roll(logged_in(table.gm), table, target=str(table.character.pk))
    roll = Roll.objects.get(npc=True)
    assert roll.target_name == "Olle"
    membership = table.campaign.memberships.get(user=table.player)
    campaigns.member_remove(campaign=table.campaign, actor=table.gm, membership=membership)
    # A restart: nothing kept from before.
    cards._bodies.clear()
    feed._store.clear()

    roll.refresh_from_db()
    assert roll.target is None and roll.target_name == "Olle"
    for url, place in (
        (reverse("rolls:history", args=[table.campaign.pk]), "history"),
        (reverse("rolls:session", args=[table.campaign.pk]), "feed"),
    ):
        card = _card(logged_in(table.gm).get(url).content.decode(), roll, place)
        assert "against Olle" in card


@pytest.mark.django_db
def test_the_migration_fills_in_the_target_names_of_earlier_rolls(table: Table, fixed_dice: None) -> None:
    import importlib

    from django.apps import apps

    npc_roll(logged_in(table.gm), table, target=str(table.character.pk))
    npc_roll(logged_in(table.gm), table, name="Nobody's")
    Roll.objects.update(target_name="")

    importlib.import_module("rolls.migrations.0003_roll_target_name").fill_target_names(apps, None)

    names = dict(Roll.objects.values_list("character_name", "target_name"))
    assert names == {"The warden": "Olle", "Nobody's": ""}
