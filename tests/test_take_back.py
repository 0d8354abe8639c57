"""The roller takes back a stray tap (rolls/play/takeback.py): their own roll, within its window,
while nothing has followed it; a void in the log that every screen shows. And a void of a
character's newest roll gives the roll before it back what only the newest roll may do
(sixes SIX-7's push, doubles' drama dice)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from rolls.history import marks
from rolls.log.events import TableEvent
from rolls.models import LogEntry, Roll
from rolls.play import services
from rolls.play.takeback import WINDOW
from tests.factories import ScriptedDice, Table, logged_in
from tests.test_history import roll

pytestmark = pytest.mark.django_db


def take_back(table: Table, made: Roll, user: object, *, htmx: bool = True) -> object:
    path = reverse("rolls:roll-take-back", args=[table.campaign.pk, made.pk])
    headers = {"HTTP_HX_REQUEST": "true"} if htmx else {}
    return logged_in(user).post(path, **headers)


def voids() -> list[LogEntry]:
    return list(LogEntry.objects.filter(action=TableEvent.ROLL_VOID))


def push(made: Roll, table: Table) -> LogEntry:
    return services.follow_up_apply(
        roll=made,
        actor=table.player,
        action="push",
        params={"condition": "Scared", "description": "Olle runs for it"},
        rng=ScriptedDice(then=2),
    )


def test_the_roller_takes_back_their_roll_a_logged_void_the_table_sees(table: Table) -> None:
    made = roll(table, 1, 2, 3)

    answer = take_back(table, made, table.player)

    assert answer.status_code == 200
    made.refresh_from_db()
    assert made.voided
    (event,) = voids()
    assert event.roll_id == made.pk and event.actor_id == table.player.pk
    assert event.text == "Olle's roll (Body) was taken back by its player."
    assert "Taken back: Olle" in answer.content.decode()
    # The GM's console and the TV draw the roll struck through, and the log line.
    for url, user in (
        (reverse("rolls:session", args=[table.campaign.pk]), table.gm),
        (reverse("rolls:display", args=[table.campaign.display_token]), None),
    ):
        html = (logged_in(user) if user else logged_in(table.gm)).get(url).content.decode()
        assert '<span class="pill void">voided</span>' in html, url


def test_a_roll_is_taken_back_only_by_its_roller(table: Table) -> None:
    made = roll(table, 1, 2, 3)
    # The GM voids instead; a take-back is the roller's.
    gm = take_back(table, made, table.gm)
    assert gm.status_code == 422
    assert "Only the player who made a roll can take it back" in gm.content.decode()
    assert take_back(table, made, table.outsider).status_code == 404
    made.refresh_from_db()
    assert not made.voided and voids() == []


def test_a_roll_is_taken_back_only_within_its_window(table: Table) -> None:
    made = roll(table, 1, 2, 3)
    Roll.objects.filter(pk=made.pk).update(created=timezone.now() - WINDOW - timedelta(seconds=1))

    answer = take_back(table, made, table.player)

    assert answer.status_code == 422
    assert "only in its first 30 seconds" in answer.content.decode()
    made.refresh_from_db()
    assert not made.voided and voids() == []


def test_a_roll_with_a_follow_up_stands_SIX_7(table: Table) -> None:
    made = roll(table, 1, 2, 3)
    push(made, table)

    answer = take_back(table, made, table.player)

    assert answer.status_code == 422
    assert "Something has followed this roll already" in answer.content.decode()
    assert not Roll.objects.get(pk=made.pk).voided and voids() == []


def test_only_the_newest_roll_is_taken_back(table: Table) -> None:
    first = roll(table, 1, 2, 3)
    roll(table, 1, 2, 3)

    answer = take_back(table, first, table.player)

    assert answer.status_code == 422
    assert "rolled again since" in answer.content.decode()
    assert voids() == []


def test_a_roll_taken_back_twice_is_refused_the_second_time(table: Table) -> None:
    made = roll(table, 1, 2, 3)
    assert take_back(table, made, table.player).status_code == 200
    again = take_back(table, made, table.player)
    assert again.status_code == 422
    assert "voided already" in again.content.decode()
    assert len(voids()) == 1


def test_without_javascript_a_take_back_redirects_to_the_roll_screen(table: Table) -> None:
    made = roll(table, 1, 2, 3)
    answer = take_back(table, made, table.player, htmx=False)
    assert answer.status_code == 302
    assert Roll.objects.get(pk=made.pk).voided


def test_the_roll_screen_offers_the_take_back_while_it_may_be_taken(table: Table) -> None:
    made = roll(table, 1, 2, 3)
    screen = reverse("rolls:character", args=[table.campaign.pk, table.character.pk])
    url = reverse("rolls:roll-take-back", args=[table.campaign.pk, made.pk])
    assert f'action="{url}"' in logged_in(table.player).get(screen).content.decode()
    # Not to the GM, who voids from the roll's page.
    assert f'action="{url}"' not in logged_in(table.gm).get(screen).content.decode()
    push(made, table)
    Roll.objects.filter(pk=made.pk).update(created=timezone.now() - WINDOW)
    assert f'action="{url}"' not in logged_in(table.player).get(screen).content.decode()


def test_taking_back_the_newest_roll_gives_the_push_back_to_the_roll_before_SIX_7(table: Table) -> None:
    """SIX-7: only the kid's newest roll can be pushed. A stray second tap ended the first
    roll's push; taking the stray roll back gives it back."""
    first = roll(table, 1, 2, 3)
    stray = roll(table, 4, 5, 2)
    with pytest.raises(Exception, match="latest roll"):
        push(Roll.objects.get(pk=first.pk), table)

    answer = take_back(table, stray, table.player)

    # The answer draws the roll before it again, with its push.
    html = answer.content.decode()
    assert f'id="result-roll-{first.pk}"' in html and "follow-up-push" in html
    pushed = push(Roll.objects.get(pk=first.pk), table)
    assert pushed.action == "push"


def test_the_gms_void_of_the_newest_roll_gives_the_push_back_too_SIX_7(table: Table) -> None:
    first = roll(table, 1, 2, 3)
    stray = roll(table, 4, 5, 2)
    marks.roll_void(roll=stray, gm=table.gm)

    screen = reverse("rolls:character", args=[table.campaign.pk, table.character.pk])
    html = logged_in(table.player).get(screen).content.decode()
    assert f'id="result-roll-{first.pk}"' in html and "follow-up-push" in html
    assert push(Roll.objects.get(pk=first.pk), table).action == "push"
