"""The GM voids a roll made by mistake and reveals a secret one later: both new entries in the
log (nothing edited), the GM's alone, drawn on every page and sent to every open socket."""

from __future__ import annotations

import re

import pytest
from channels.db import database_sync_to_async
from django.urls import reverse
from django.utils.html import escape

from rolls.history import marks
from rolls.log.events import TableEvent
from rolls.models import LogEntry, Roll
from tests.factories import Table, logged_in
from tests.test_consumers import frames_until, open_socket, sync, up_to
from tests.test_history import roll, secret_roll

FACE = re.compile(r'data-face="\d"')


def mark(table: Table, made: Roll, what: str, user: object) -> int:
    path = reverse(f"rolls:roll-{what}", args=[table.campaign.pk, made.pk])
    return int(logged_in(user).post(path).status_code)


def card_in(html: str, made: Roll, place: str) -> str:
    start = html.index(f'id="{place}-roll-{made.pk}"')
    return html[html.rindex("<li", 0, start) :].split("</li>", 1)[0]


@pytest.mark.django_db
def test_only_the_gm_voids_or_reveals(table: Table) -> None:
    made = secret_roll(table, 6, 6, 6)
    for what in ("void", "reveal"):
        assert mark(table, made, what, table.player) == 403
        assert mark(table, made, what, table.outsider) == 404
    made.refresh_from_db()
    assert not made.voided and not made.revealed
    assert not LogEntry.objects.filter(action__in=[TableEvent.ROLL_VOID, TableEvent.ROLL_REVEAL]).exists()


@pytest.mark.django_db
def test_a_voided_roll_is_struck_through_everywhere_and_logged_as_a_new_entry(table: Table) -> None:
    made = roll(table, 6, 1, 1)
    entries_before = list(LogEntry.objects.values_list("pk", "seq", "action"))

    assert mark(table, made, "void", table.gm) == 302

    made.refresh_from_db()
    assert made.voided
    # The log only grew: one event naming the roll, carrying its state.
    after = list(LogEntry.objects.order_by("seq").values_list("pk", "seq", "action"))
    assert after[: len(entries_before)] == sorted(entries_before, key=lambda row: row[1])
    event = LogEntry.objects.get(action=TableEvent.ROLL_VOID)
    assert event.roll_id == made.pk and event.kind == LogEntry.Kind.EVENT and event.state
    assert event.text == "The GM voided Olle's roll (Body)."
    player = logged_in(table.player)
    for page, place in (("rolls:history", "history"), ("rolls:campaign", "feed")):
        html = player.get(reverse(page, args=[table.campaign.pk])).content.decode()
        card = card_in(html, made, place)
        assert "voided" in card.split(">", 1)[0] and '<span class="pill void">voided</span>' in card
    page = player.get(reverse("rolls:roll", args=[table.campaign.pk, made.pk])).content.decode()
    assert '<span class="pill void">voided</span>' in page
    assert escape("The GM voided Olle's roll (Body).") in page  # a step of its chain
    display = logged_in(table.gm).get(reverse("rolls:display", args=[table.campaign.display_token]))
    assert '<span class="pill void">voided</span>' in display.content.decode()
    # Once is enough.
    assert mark(table, made, "void", table.gm) == 422


@pytest.mark.django_db
def test_a_revealed_roll_shows_its_dice_to_a_players_pages_from_then_on(table: Table) -> None:
    made = secret_roll(table, 6, 6, 6)
    player = logged_in(table.player)
    page = reverse("rolls:roll", args=[table.campaign.pk, made.pk])
    assert not FACE.search(player.get(page).content.decode())

    assert mark(table, made, "reveal", table.gm) == 302

    html = player.get(page).content.decode()
    assert 'data-face="6"' in html and "Ghost" in html and "sneaks up" in html
    history = player.get(reverse("rolls:history", args=[table.campaign.pk])).content.decode()
    assert 'data-face="6"' in card_in(history, made, "history")
    assert "The GM revealed a secret GM roll." in history
    # Revealed, it is open: a player's filters find it now.
    assert (
        f'id="history-roll-{made.pk}"'
        in player.get(
            reverse("rolls:history", args=[table.campaign.pk]), {"outcome": "success"}
        ).content.decode()
    )
    assert mark(table, made, "reveal", table.gm) == 422
    assert mark(table, roll(table, 6, 1, 1), "reveal", table.gm) == 422  # open already


@pytest.mark.django_db(transaction=True)
async def test_a_reveal_sends_the_dice_to_a_players_open_page(table: Table) -> None:
    made = await database_sync_to_async(secret_roll)(table, 6, 6, 6)
    player, connected, _ = await open_socket(table.campaign.pk, table.player)
    assert connected
    last = await database_sync_to_async(lambda: table.campaign.log.order_by("-seq").first().seq)()
    before = "".join(await sync(player, 0, last))
    assert f'id="feed-roll-{made.pk}"' in before and not FACE.search(before)

    await database_sync_to_async(marks.roll_reveal)(roll=made, gm=table.gm)
    sent = "".join(await frames_until(player, up_to(last + 1)))

    # The card replaces the hidden one (same id, no "afterbegin"), with the dice.
    assert f'id="feed-roll-{made.pk}"' in sent and 'data-face="6"' in sent and "sneaks up" in sent
    assert "afterbegin" not in sent
    await player.disconnect()


@pytest.mark.django_db(transaction=True)
async def test_a_void_sends_the_struck_card_to_every_open_page(table: Table) -> None:
    made = await database_sync_to_async(roll)(table, 6, 1, 1)
    player, connected, _ = await open_socket(table.campaign.pk, table.player)
    assert connected
    last = await database_sync_to_async(lambda: table.campaign.log.order_by("-seq").first().seq)()
    await sync(player, 0, last)

    await database_sync_to_async(marks.roll_void)(roll=made, gm=table.gm)
    sent = "".join(await frames_until(player, up_to(last + 1)))

    assert f'id="feed-roll-{made.pk}"' in sent and '<span class="pill void">voided</span>' in sent
    await player.disconnect()


@pytest.mark.django_db
def test_a_void_of_a_secret_roll_tells_a_player_nothing_of_it(table: Table) -> None:
    made = secret_roll(table, 6, 6, 6)
    assert mark(table, made, "void", table.gm) == 302
    player = logged_in(table.player)
    for url in (
        reverse("rolls:history", args=[table.campaign.pk]),
        reverse("rolls:campaign", args=[table.campaign.pk]),
        reverse("rolls:roll", args=[table.campaign.pk, made.pk]),
    ):
        html = player.get(url).content.decode()
        assert "The GM voided a secret GM roll." in html or url.endswith(f"/{made.pk}/")
        assert "Ghost" not in html and "sneaks up" not in html and not FACE.search(html)


@pytest.mark.django_db
def test_a_voided_roll_takes_no_more_follow_ups_SIX_23(table: Table) -> None:
    from rolls.play import services
    from rolls.sight.cards import latest_card
    from rolls.systems import RulesError
    from tests.factories import ScriptedDice

    made = roll(table, 1, 2, 3)
    membership = table.campaign.memberships.get(user=table.player)
    assert latest_card(made, place="result", membership=membership).follow_ups  # a push, before
    marks.roll_void(roll=made, gm=table.gm)

    made.refresh_from_db()
    made.last_entry = None
    assert latest_card(made, place="result", membership=membership).follow_ups == []
    with pytest.raises(RulesError, match="voided"):
        services.follow_up_apply(
            roll=made,
            actor=table.player,
            action="push",
            params={"condition": "Scared", "description": "Ada runs for it"},
            rng=ScriptedDice(then=6),
        )
    assert LogEntry.objects.filter(roll=made, kind=LogEntry.Kind.FOLLOW_UP).count() == 0
