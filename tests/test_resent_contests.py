"""A contest's tap sent twice (its first answer lost on the way) is done once: a side's roll,
an extended action's roll and a step (a sealed bid) carry the phone's one-time key like a
roll does (``rolls.log.resent``), and the key sent again gets the panel as it now stands."""

from __future__ import annotations

from typing import Any

import pytest
from django.urls import reverse

from rolls.log.events import TableEvent
from rolls.models import Contest, LogEntry, Roll
from tests.dice import Script
from tests.factories import logged_in
from tests.test_contest_views import HX
from tests.test_contest_views_sets import open_duel as open_sets_duel
from tests.test_contests_sets import Pair
from tests.test_doubles_contest_views import open_duel as open_doubles_duel
from tests.test_doubles_contests import Duel

pytestmark = pytest.mark.django_db

KEY = "0123456789abcdef0123456789abcdef"
OTHER_KEY = "fedcba9876543210fedcba9876543210"


def side_post(table: Any, user: Any, verb: str, position: int, data: dict[str, Any]) -> Any:
    contest = Contest.objects.get()
    side = contest.sides.get(position=position)
    url = reverse(f"rolls:{verb}", args=[table.campaign.pk, contest.pk, side.pk])
    return logged_in(user).post(url, data, **HX)


def test_a_sides_roll_sent_twice_rolls_once_and_answers_with_the_panel(dice: Script) -> None:
    duel = Duel()
    open_doubles_duel(duel)
    dice(5, 5, 2, 1, 1)

    first = side_post(duel.table, duel.table.player, "contest-roll", 0, {"client_random": KEY})
    again = side_post(duel.table, duel.table.player, "contest-roll", 0, {"client_random": KEY})

    assert first.status_code == again.status_code == 200
    assert 'id="contests-panel"' in again.content.decode()
    assert Roll.objects.count() == 1
    assert "rolled, sealed" in again.content.decode()


def test_an_extended_roll_sent_twice_rolls_once(dice: Script) -> None:
    duel = Duel()
    gm = logged_in(duel.table.gm)
    campaign = duel.table.campaign.pk
    gm.post(
        reverse("rolls:extended-create", args=[campaign]),
        {"dn": "6", "successes": "3", "failures": "2", "intent": "Climb the tower"},
        **HX,
    )
    contest = Contest.objects.get()
    url = reverse("rolls:extended-roll", args=[campaign, contest.pk, duel.mara.pk])
    player = logged_in(duel.table.player)
    dice(5, 5, 1, 2, 3, 4)

    first = player.post(url, {"client_random": KEY}, **HX)
    again = player.post(url, {"client_random": KEY}, **HX)
    another = player.post(url, {"client_random": OTHER_KEY}, **HX)

    assert first.status_code == again.status_code == another.status_code == 200
    # The repeat rolled nothing; a fresh key is a second roll for the action, as it should be.
    assert Roll.objects.count() == 2
    assert contest.sides.count() == 2


def test_set_4_a_sealed_bid_sent_twice_is_made_once_and_answers_without_a_refusal(dice: Script) -> None:
    pair = Pair()
    open_sets_duel(pair)
    dice(4, 4, 2)
    side_post(pair.table, pair.table.player, "contest-roll", 0, {})
    bid = {"action": "bid", "dice": ["0", "1"], "client_random": KEY}

    first = side_post(pair.table, pair.table.player, "contest-act", 0, bid)
    again = side_post(pair.table, pair.table.player, "contest-act", 0, bid)

    assert first.status_code == again.status_code == 200
    assert "bid 2x4, sealed" in again.content.decode()
    assert LogEntry.objects.filter(action=TableEvent.CONTEST_STEP, key=KEY).count() == 1
    # Without the key the same bid is a second step, which the table refuses, as before.
    plain = side_post(pair.table, pair.table.player, "contest-act", 0, {"action": "bid", "dice": ["0", "1"]})
    assert plain.status_code == 422


def test_a_key_spent_on_a_roll_is_refused_for_a_contest_step(dice: Script) -> None:
    pair = Pair()
    open_sets_duel(pair)
    dice(4, 4, 2)
    side_post(pair.table, pair.table.player, "contest-roll", 0, {"client_random": KEY})
    steps = LogEntry.objects.filter(action=TableEvent.CONTEST_STEP).count()

    reused = side_post(
        pair.table,
        pair.table.player,
        "contest-act",
        0,
        {"action": "bid", "dice": ["0", "1"], "client_random": KEY},
    )

    assert reused.status_code == 422
    assert "already sent once" in reused.content.decode()
    assert LogEntry.objects.filter(action=TableEvent.CONTEST_STEP).count() == steps


def test_a_malformed_key_on_a_contest_step_is_refused_and_changes_nothing(dice: Script) -> None:
    pair = Pair()
    open_sets_duel(pair)
    before = LogEntry.objects.count()

    refused = side_post(pair.table, pair.table.player, "contest-roll", 0, {"client_random": "not hex"})

    assert refused.status_code == 422
    assert LogEntry.objects.count() == before and not Roll.objects.exists()
