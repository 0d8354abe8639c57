"""One player cannot stall a table (issue 44): the costly actions are limited per member, and a
press of "Check the log" reads only what was written since the last press, a bounded piece at
a time, however long the log."""

from __future__ import annotations

import pytest
from django.conf import settings
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from rolls.history import verify
from rolls.models import LogCheck, LogEntry
from tabletop import ratelimit
from tests import factories
from tests.factories import Script, Table, logged_in

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def still_clock(monkeypatch: pytest.MonkeyPatch) -> None:
    """Twenty seconds into a window for the whole test, as tests/test_ratelimit.py holds it."""
    monkeypatch.setattr(ratelimit, "now", lambda: 1_900_000_000.0 + 20)


def check(client: Client, table: Table) -> str:
    response = client.post(reverse("rolls:verify-log", args=[table.campaign.pk]), HTTP_HX_REQUEST="true")
    assert response.status_code in (200, 429)
    return f"{response.status_code} {response.content.decode()}"


def play(table: Table, dice: Script, rolls: int) -> None:
    dice(6, 2, 3, then=1)
    client = logged_in(table.player)
    url = reverse("rolls:roll-create", args=[table.campaign.pk, table.character.pk])
    for _ in range(rolls):
        assert client.post(url, {"trait": "Body", "need": 1}, HTTP_HX_REQUEST="true").status_code == 200


COSTLY = (
    "rolls:verify-log",
    "rolls:npc-roll",
    "rolls:contest-create",
    "rolls:challenge-create",
    "rolls:contest-answer",
    "rolls:contest-roll",
    "rolls:contest-act",
    "rolls:extended-create",
    "rolls:extended-roll",
    "rolls:contest-close",
    "rolls:contest-cancel",
)


@pytest.mark.parametrize("name", COSTLY)
def test_each_costly_action_has_a_limit_per_member(name: str) -> None:
    count, seconds = settings.RATE_LIMITS[name]
    assert 0 < count <= 120 and seconds == 60


def test_checking_the_log_is_limited_per_member_and_another_member_still_may(table: Table) -> None:
    count, _ = settings.RATE_LIMITS["rolls:verify-log"]
    player = logged_in(table.player)
    for _ in range(count):
        assert check(player, table).startswith("200")

    refused = check(player, table)

    assert refused.startswith("429") and "Wait" in refused
    assert check(logged_in(table.gm), table).startswith("200")


def test_the_gms_rolls_for_npcs_are_limited(table: Table, settings: object, dice: Script) -> None:
    settings.RATE_LIMITS = {**settings.RATE_LIMITS, "rolls:npc-roll": (2, 60)}  # type: ignore[attr-defined]
    dice(6, then=2)
    gm = logged_in(table.gm)
    url = reverse("rolls:npc-roll", args=[table.campaign.pk])
    data = factories.npc_baseline(table.campaign)
    for _ in range(2):
        assert gm.post(url, data, HTTP_HX_REQUEST="true").status_code == 200
    before = LogEntry.objects.count()

    assert gm.post(url, data, HTTP_HX_REQUEST="true").status_code == 429
    assert LogEntry.objects.count() == before


def test_a_press_reads_only_what_was_written_since_the_last(table: Table, dice: Script) -> None:
    play(table, dice, 5)
    gm = logged_in(table.gm)
    assert "is intact" in check(gm, table)
    mark = LogCheck.objects.get(campaign=table.campaign)
    table.campaign.refresh_from_db()
    assert (mark.seq, mark.hash) == (table.campaign.last_seq, table.campaign.last_hash)
    play(table, dice, 2)

    with CaptureQueriesContext(connection) as queries:
        outcome = verify.check_since(table.campaign)

    assert outcome.intact and (outcome.first, outcome.last) == (mark.seq + 1, mark.seq + 2)
    assert len(queries) < 20  # a few per press, none per entry checked before


def test_an_entry_checked_before_and_changed_since_is_found(table: Table, dice: Script) -> None:
    play(table, dice, 3)
    gm = logged_in(table.gm)
    assert "is intact" in check(gm, table)
    mark = LogCheck.objects.get(campaign=table.campaign)
    LogEntry.objects.filter(campaign=table.campaign, seq=mark.seq).update(hash="0" * 64)

    said = check(gm, table)

    assert f"Entry {mark.seq} does not match: it is not the entry checked before" in said


def test_a_long_log_is_checked_a_piece_at_a_time(
    table: Table, dice: Script, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(verify, "BUDGET", 0.0)  # one batch a press
    monkeypatch.setattr(verify, "BATCH", 3)
    play(table, dice, 4)
    table.campaign.refresh_from_db()
    last = table.campaign.last_seq
    gm = logged_in(table.gm)

    first = check(gm, table)

    assert f"Entries 1 to 3 of the log of The Loop match their hashes; {last - 3} more to check" in first
    while "more to check" in (said := check(gm, table)):
        pass
    assert "is intact" in said
    assert LogCheck.objects.get(campaign=table.campaign).seq == last
