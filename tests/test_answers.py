"""A follow-up a player asks on their roll screen is drawn once, as the entry is published: the
answer to their tap sends that markup, and so do their sockets on that roll screen, without
reading the entry back; what they send is what the long way (``render_since``) draws."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from pytest_django.fixtures import DjangoCaptureOnCommitCallbacks, Settings

from rolls.live import feed
from rolls.models import LogEntry, Roll
from rolls.sight import answers
from tabletop.models import Membership
from tests import factories
from tests.conftest import Script
from tests.factories import Table


@pytest.fixture(autouse=True)
def _sharing(settings: Settings) -> None:
    """Kept markup is a piece of the fast path: on here, whatever FAST_PATH says."""
    settings.FAST_PATH = {**settings.FAST_PATH, "shared_markup": True}


def tags(html: str) -> str:
    """The markup as htmx reads it: the white space between elements says nothing."""
    return re.sub(r">\s+<", "><", html).strip()


def member(table: Table, user: Any) -> Membership:
    return Membership.objects.select_related("campaign").get(campaign=table.campaign, user=user)


def roll_and_tap(
    table: Table,
    dice: Script,
    capture: DjangoCaptureOnCommitCallbacks,
    action: str = "luck",
    user: Any = None,
) -> tuple[Roll, LogEntry, str]:
    """The player rolls (1, 1, 1: a failure, Luck to spend) and ``user`` (the player) taps
    ``action`` on the result card; the roll, the follow-up's entry and the answer's markup."""
    phone = factories.logged_in(user or table.player)
    dice(1, 1, 1)
    with capture(execute=True):
        factories.logged_in(table.player).post(
            reverse("rolls:roll-create", args=[table.campaign.pk, table.character.pk]),
            {"trait": "Body", "need": "1"},
            HTTP_HX_REQUEST="true",
        )
    roll = Roll.objects.latest("pk")
    dice(6, 1, 1)
    with capture(execute=True):
        answer = phone.post(
            reverse("rolls:follow-up", args=[table.campaign.pk, roll.pk]),
            {"action": action, "place": "result"},
            HTTP_HX_REQUEST="true",
        )
    assert answer.status_code == 200, answer.content
    return roll, LogEntry.objects.latest("seq"), answer.content.decode()


def test_the_players_follow_up_is_drawn_once_for_their_answer_and_their_sockets(
    table: Table, dice: Script, django_capture_on_commit_callbacks: DjangoCaptureOnCommitCallbacks
) -> None:
    roll, entry, answered = roll_and_tap(table, dice, django_capture_on_commit_callbacks)
    player = member(table, table.player)

    kept = answers.kept(table.campaign.pk, entry.seq, table.player.pk, table.character.pk)
    assert kept is not None
    assert answered == kept.html
    assert f'<li id="result-roll-{roll.pk}"' in answered
    assert 'class="follow-ups"' in answered  # the player's buttons: Pride after Luck
    assert f'id="resources-{table.character.pk}"' in answered

    # Their roll screen's socket: from the kept markup alone, not one query.
    with CaptureQueriesContext(connection) as queries:
        batch = feed.shared_since(player, entry.seq - 1, entry.seq, result_for=table.character.pk)
    assert len(queries) == 0
    assert batch is not None
    # Exactly what reading the entry back and drawing it again sends.
    again, last = feed.render_since(player, entry.seq - 1, result_for=table.character.pk)
    assert batch[1] == last == entry.seq
    assert tags(batch[0]) == tags(again)


def test_the_gms_follow_up_on_a_players_roll_is_drawn_for_each_screen_as_before(
    table: Table, dice: Script, django_capture_on_commit_callbacks: DjangoCaptureOnCommitCallbacks
) -> None:
    _, entry, answered = roll_and_tap(table, dice, django_capture_on_commit_callbacks, user=table.gm)
    player = member(table, table.player)

    # The GM's buttons are not the player's: nothing kept, each draws its own.
    assert answers.kept(table.campaign.pk, entry.seq, table.player.pk, table.character.pk) is None
    assert answers.kept(table.campaign.pk, entry.seq, table.gm.pk, table.character.pk) is None
    assert 'class="follow-ups"' in answered
    assert feed.shared_since(player, entry.seq - 1, entry.seq, result_for=table.character.pk) is None
    own, _ = feed.render_since(player, entry.seq - 1, result_for=table.character.pk)
    assert f'<li id="result-roll-{entry.roll_id}"' in own


def test_only_the_roll_screen_of_the_rolls_character_sends_the_kept_answer(
    table: Table, dice: Script, django_capture_on_commit_callbacks: DjangoCaptureOnCommitCallbacks
) -> None:
    _, entry, _ = roll_and_tap(table, dice, django_capture_on_commit_callbacks)
    player, gm = member(table, table.player), member(table, table.gm)
    since = entry.seq - 1

    # The GM on that roll screen draws their own buttons; the player's campaign page lists the
    # resources of all their characters, and reads them.
    assert feed.shared_since(gm, since, entry.seq, result_for=table.character.pk) is None
    assert feed.shared_since(player, since, entry.seq, roster=True) is None
    # A page without a result panel or a resources line is sent the shared feed card alone.
    plain = feed.shared_since(player, since, entry.seq)
    assert plain is not None
    assert "result-roll" not in plain[0]
    assert "resources-" not in plain[0]


def test_a_batch_of_more_than_the_answered_entry_is_drawn_from_the_database(
    table: Table, dice: Script, django_capture_on_commit_callbacks: DjangoCaptureOnCommitCallbacks
) -> None:
    # The answer is the roll's newest state: in a batch with an older state of the same roll
    # (a socket that catches up), only the newest may carry buttons, so the batch is drawn.
    roll, entry, _ = roll_and_tap(table, dice, django_capture_on_commit_callbacks)
    player = member(table, table.player)
    assert feed.shared_since(player, entry.seq - 2, entry.seq, result_for=table.character.pk) is None
    own, _ = feed.render_since(player, entry.seq - 2, result_for=table.character.pk)
    assert own.count(f'<li id="result-roll-{roll.pk}"') == 1


def test_the_broadcast_carries_the_answer_to_the_sockets_of_another_process(
    table: Table, dice: Script, django_capture_on_commit_callbacks: DjangoCaptureOnCommitCallbacks
) -> None:
    _, entry, answered = roll_and_tap(table, dice, django_capture_on_commit_callbacks)
    entry = LogEntry.objects.select_related("roll", "roll__character", "actor").get(pk=entry.pk)
    carried = answers.prepare(entry)
    assert carried is not None
    feed._forget_all()  # another process: it kept nothing

    answers.receive(table.campaign.pk, entry.seq, carried)

    kept = answers.kept(table.campaign.pk, entry.seq, table.player.pk, table.character.pk)
    assert kept is not None
    assert tags(kept.html) == tags(answered)


def test_with_nothing_kept_the_answer_and_the_socket_draw_the_same_markup(
    table: Table,
    dice: Script,
    settings: Settings,
    django_capture_on_commit_callbacks: DjangoCaptureOnCommitCallbacks,
) -> None:
    settings.FAST_PATH = {**settings.FAST_PATH, "shared_markup": False}
    roll, entry, answered = roll_and_tap(table, dice, django_capture_on_commit_callbacks)

    assert answers.kept(table.campaign.pk, entry.seq, table.player.pk, table.character.pk) is None
    assert f'<li id="result-roll-{roll.pk}"' in answered
    assert f'id="resources-{table.character.pk}"' in answered
    own, _ = feed.render_since(member(table, table.player), entry.seq - 1, result_for=table.character.pk)
    assert tags(answered) in tags(own)
