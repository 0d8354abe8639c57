"""The player's phone: a refusal shows next to what was tapped, the resources on a phone follow
the GM live, the dice read at a glance in each system, and a count of one is "1 die"."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator

import pytest
from channels.db import database_sync_to_async
from channels.layers import get_channel_layer
from channels.testing import WebsocketCommunicator
from django.template import Context, Template
from django.urls import reverse

from rolls.campaigns import services
from rolls.log.events import TableEvent
from rolls.models import Roll
from rolls.sight.audience import Facts, Panel, Viewer, delivery
from rolls.systems.base import Die
from rolls.templatetags.dice import bids, dice
from tabletop.asgi import application
from tests import factories
from tests.factories import Table, logged_in
from tests.test_consumers import ORIGIN, _cookie, frames_until, is_presence, last_seq, up_to

REFUSAL_SLOT = 'class="refusal" data-refusal'


def character_url(table: Table) -> str:
    return reverse("rolls:character", args=[table.campaign.pk, table.character.pk])


def roll_url(table: Table) -> str:
    return reverse("rolls:roll-create", args=[table.campaign.pk, table.character.pk])


def the_form(page: str, form_id: str) -> str:
    start = page.index(f'<form id="{form_id}"')
    return page[start : page.index("</form>", start)]


# -- a refusal, next to what was tapped ------------------------------------------------------------


@pytest.mark.django_db
def test_a_refused_roll_goes_to_the_refusal_slot_of_the_form_that_sent_it(table: Table) -> None:
    services.session_end(campaign=table.campaign, actor=table.gm)
    player = logged_in(table.player)

    response = player.post(roll_url(table), {"trait": "Body", "need": 1}, HTTP_HX_REQUEST="true")

    assert response.status_code == 422
    assert 'role="alert"' in response.content.decode()
    # htmx resolves this from the form that sent the request: its own slot comes first.
    assert response["HX-Retarget"].startswith("find [data-refusal], ")
    assert response["HX-Reswap"] == "innerHTML"
    # The roll form holds that slot, in the bar beside its Roll button.
    form = the_form(player.get(character_url(table)).content.decode(), "roll-form")
    bar = form[form.index('class="roll-bar"') :]
    assert bar.index(REFUSAL_SLOT) < bar.index("roll-button")


@pytest.mark.django_db
def test_a_refused_follow_up_goes_next_to_its_own_button(table: Table, dice: factories.Script) -> None:
    player = logged_in(table.player)
    dice(2, 3, 4)
    page = player.post(roll_url(table), {"trait": "Body", "need": 1}, HTTP_HX_REQUEST="true").content.decode()
    forms = re.findall(r'<form method="post"[^>]*class="follow-up[^"]*".*?</form>', page, re.S)
    assert forms, page
    for form in forms:
        assert REFUSAL_SLOT in form
    roll = Roll.objects.get()

    # Luck before the push it needs: refused, in the button's own form's slot.
    response = player.post(
        reverse("rolls:follow-up", args=[table.campaign.pk, roll.pk]),
        {"action": "nonsense", "place": "result"},
        HTTP_HX_REQUEST="true",
    )
    assert response.status_code == 422
    assert response["HX-Retarget"].startswith("find [data-refusal]")


# -- resources follow the GM -----------------------------------------------------------------------


@pytest.fixture(autouse=False)
async def empty_layer() -> AsyncIterator[None]:
    layer = get_channel_layer()
    await layer.flush()  # type: ignore[union-attr]
    yield
    await layer.flush()  # type: ignore[union-attr]


async def socket(table: Table, user: object, query: str = "") -> WebsocketCommunicator:
    headers = [(b"host", b"testserver"), (b"origin", ORIGIN)]
    headers.append((b"cookie", await database_sync_to_async(_cookie)(user)))
    communicator = WebsocketCommunicator(application, f"/ws/c/{table.campaign.pk}/{query}", headers=headers)
    connected, _ = await communicator.connect()
    assert connected
    last = await last_seq(table)
    await communicator.send_json_to({"since": last - 1})  # the newest entry again: synced
    await frames_until(communicator, up_to(last))
    return communicator


def resources_line(frames: list[str], character_id: int) -> str:
    found = [
        match
        for frame in frames
        for match in re.findall(
            rf'<div id="resources-{character_id}"[^>]*hx-swap-oob="true">.*?</div>', frame, re.S
        )
    ]
    assert len(found) == 1, frames
    return found[0]


async def no_resources(communicator: WebsocketCommunicator) -> None:
    while not await communicator.receive_nothing(timeout=0.3):
        frame = await communicator.receive_from()
        assert is_presence(frame) or "resources-" not in frame, frame


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("empty_layer")
async def test_a_gm_correction_redraws_luck_on_the_players_roll_screen_and_campaign_page(
    table: Table,
) -> None:
    screen = await socket(table, table.player, f"?character={table.character.pk}")
    listing = await socket(table, table.player, "?roster=1")
    elsewhere = await socket(table, table.player)

    await database_sync_to_async(services.resources_correct)(
        character=table.character, gm=table.gm, values={"luck": 1}
    )
    last = await last_seq(table)

    for communicator in (screen, listing):
        line = resources_line(await frames_until(communicator, up_to(last)), table.character.pk)
        assert "Luck 1" in line
    # A page that shows no resources is sent none.
    await frames_until(elsewhere, up_to(last))
    await no_resources(elsewhere)
    for communicator in (screen, listing, elsewhere):
        await communicator.disconnect()


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("empty_layer")
async def test_a_new_session_refills_luck_on_the_phone_live(table: Table) -> None:
    await database_sync_to_async(services.resources_correct)(
        character=table.character, gm=table.gm, values={"luck": 0}
    )
    screen = await socket(table, table.player, f"?character={table.character.pk}")

    await database_sync_to_async(services.session_end)(campaign=table.campaign, actor=table.gm)
    await database_sync_to_async(services.session_start)(campaign=table.campaign, actor=table.gm)
    last = await last_seq(table)

    line = resources_line(await frames_until(screen, up_to(last)), table.character.pk)
    assert "Luck 3" in line  # 15 - age 12, the sixes refill (SIX-7)
    await screen.disconnect()


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("empty_layer")
async def test_a_long_rest_brings_endurance_back_on_the_phone_live() -> None:
    table = await database_sync_to_async(factories.table)("doubles", sheet=factories.sheet_of("doubles"))
    await database_sync_to_async(services.resources_correct)(
        character=table.character, gm=table.gm, values={"endurance": 12}
    )
    screen = await socket(table, table.player, f"?character={table.character.pk}")

    await database_sync_to_async(services.long_rest)(campaign=table.campaign, actor=table.gm)
    last = await last_seq(table)

    line = resources_line(await frames_until(screen, up_to(last)), table.character.pk)
    assert "Endurance 30/30" in line
    await screen.disconnect()


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("empty_layer")
async def test_luck_spent_on_an_ability_leaves_the_phone_one_less_live_STR_14() -> None:
    table = await database_sync_to_async(factories.table)("stars", sheet=factories.sheet_of("stars"))
    await database_sync_to_async(services.resources_correct)(
        character=table.character, gm=table.gm, values={"luck": 2}
    )
    screen = await socket(table, table.player, f"?character={table.character.pk}")

    await database_sync_to_async(services.luck_for_ability)(
        character=table.character, actor=table.player, ability="Cloak of shadows"
    )
    last = await last_seq(table)

    line = resources_line(await frames_until(screen, up_to(last)), table.character.pk)
    assert "Luck 1" in line
    await screen.disconnect()


def test_a_plain_roll_still_sends_a_campaign_page_the_shared_markup() -> None:
    """The fast path: a roll that is not theirs asks nothing more of a campaign page's socket."""
    roll = Facts(action="roll", roll=True, owner_id=7, character_id=3)
    follow_up = Facts(action="push", roll=True, follow_up=True, owner_id=7, character_id=3)
    other = Viewer(user_id=8)

    assert not delivery(roll, other, None, roster=True).personal
    assert not delivery(follow_up, other, None, roster=True).personal
    assert delivery(follow_up, Viewer(user_id=7), None, roster=True).panels & Panel.RESOURCES
    correction = Facts(action=TableEvent.GM_CORRECTION.value)
    assert delivery(correction, other, 3).panels & Panel.RESOURCES
    assert not delivery(correction, other, None).panels & Panel.RESOURCES


# -- the dice at a glance --------------------------------------------------------------------------


def groups(html: str) -> list[tuple[str, list[int]]]:
    """Each group of dice: its class and its faces, in order."""
    found = []
    for kind, inner in re.findall(
        r'<span class="dice-group (\w+)"[^>]*>(.*?)</span>(?=<span class="dice-group|$)', html
    ):
        found.append((kind, [int(face) for face in re.findall(r'data-face="(\d)"', inner)]))
    return found


def test_kinds_puts_each_set_together_and_apart_from_the_loose_dice() -> None:
    faces = (4, 2, 4, 6, 4, 2, 5)
    html = dice(tuple(Die(f, hit=faces.count(f) >= 2) for f in faces), "kinds", "roll")

    assert groups(html) == [("set", [4, 4, 4]), ("set", [2, 2]), ("loose", [6, 5])]
    assert 'aria-label="a three of 4s"' in html
    assert 'aria-label="4, part of a set"' in html


def test_sets_groups_the_dice_by_face_with_each_sets_size_and_face() -> None:
    faces = (5, 2, 5, 3, 2, 2)
    html = dice(tuple(Die(f, hit=faces.count(f) >= 2) for f in faces), "sets", "roll")

    assert groups(html) == [("set", [2, 2, 2]), ("set", [5, 5]), ("loose", [3])]
    assert re.findall(r'class="set-size"[^>]*>([^<]*)<', html) == ["3x2", "2x5"]


def test_sets_offers_the_best_bid_first_and_each_set_after_it() -> None:
    faces = [5, 2, 5, 3, 2, 2]
    # Every set together (SET-6, upgrading: Size 3 + 1, the lowest Face), then each alone.
    assert bids(faces, ["0", "1", "2", "3", "4", "5"]) == [
        ("4x2", ["0", "1", "2", "4", "5"]),
        ("3x2", ["1", "4", "5"]),
        ("2x5", ["0", "2"]),
    ]
    assert bids(faces, ["0", "2", "3"]) == [("2x5", ["0", "2"])]


def test_sixes_shows_the_sixes_first_and_calls_them_successes() -> None:
    html = dice(tuple(Die(f, hit=f == 6) for f in (2, 6, 3, 6)), "sixes", "roll")

    assert re.findall(r'data-face="(\d)"', html) == ["6", "6", "2", "3"]
    assert html.count("a success") == 2


def test_a_kept_die_of_a_failed_doubles_roll_is_not_called_a_success() -> None:
    html = dice((Die(3, hit=True), Die(2)), "doubles", "roll")

    assert "success" not in html
    assert 'aria-label="3, counts toward the result"' in html


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("system", "faces", "first"),
    [("kinds", (3, 3, 1), 'class="dice-group set"'), ("sets", (6, 6, 6), 'class="set-size"')],
)
def test_a_result_card_groups_the_dice_through_the_views(
    system: str, faces: tuple[int, ...], first: str, dice: factories.Script
) -> None:
    table = factories.table(system, sheet=factories.sheet_of(system))
    player = logged_in(table.player)
    page = player.get(character_url(table)).content.decode()
    form = the_form(page, "roll-form")
    data = {
        name: value
        for name, value in re.findall(r'<input type="radio" name="(\w+)" value="([^"]*)"[^>]*checked', form)
    }
    # A choice made from a short list (the kinds Challenge) is sent as the list has it.
    data.update(
        re.findall(
            r'<select name="(\w+)"[^>]*>(?:(?!</select>).)*?<option value="([^"]*)" selected', form, re.S
        )
    )
    dice(*faces, then=1)

    response = player.post(roll_url(table), data, HTTP_HX_REQUEST="true")

    assert response.status_code == 200, response.content
    assert first in response.content.decode()


# -- "1 die" ---------------------------------------------------------------------------------------


def test_a_count_of_one_is_one_die() -> None:
    template = Template("{{ 1|count_of }}, {{ 3|count_of }}, {{ 0|count_of }}, {{ 1|count_of:'Star' }}")
    assert template.render(Context()) == "1 die, 3 dice, 0 dice, 1 Star"


@pytest.mark.django_db
def test_a_stat_of_one_die_says_one_die_on_the_roll_screen() -> None:
    sheet = factories.sheet_of("sets")
    sheet["stats"][0]["dice"] = 1
    table = factories.table("sets", sheet=sheet)
    page = logged_in(table.player).get(character_url(table)).content.decode()

    assert re.search(r"<b>1</b> die</small>", page)
    assert " 1 dice" not in page
