"""Contests through the pages (stars, STR-9): the GM's console opens one, each phone rolls its
own side from the contests panel with its exact odds of winning, the display shows the state,
and every step out of turn is refused with a message and changes nothing."""

from __future__ import annotations

import html
import itertools
import re
from fractions import Fraction
from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from rolls.contests.panels import contest_views
from rolls.contests.reckoning import states_of
from rolls.models import Contest, LogEntry, Roll
from rolls.systems.base import percent
from tabletop.models import Membership
from tests.dice import Script
from tests.factories import logged_in
from tests.test_contests import Pair

FACE = re.compile(r'data-face="\d"')
HX = {"HTTP_HX_REQUEST": "true"}


@pytest.fixture
def pair(db: None) -> Pair:
    return Pair()


def stars(faces: tuple[int, ...]) -> tuple[int, int]:
    """Untrained: a 5 is a Star, a 6 two; more than half ones is a botch (ranked lowest)."""
    count = sum(2 if face == 6 else 1 for face in faces if face >= 5)
    botch = sum(face == 1 for face in faces) * 2 > len(faces)
    return count, 0 if botch and not count else 1


def chance_to_win(mine: int, theirs: int) -> Fraction:
    """STR-9 by brute force over every face: more Stars wins, a tie goes to the player."""
    wins = total = 0
    for a in itertools.product(range(1, 7), repeat=mine):
        for b in itertools.product(range(1, 7), repeat=theirs):
            total += 1
            wins += stars(a) >= stars(b)
    return Fraction(wins, total)


def open_against_guard(pair: Pair, intent: str = "Sneak past") -> Any:
    data = {
        "first": str(pair.dave.pk),
        "second": "npc",
        f"s{pair.dave.pk}-stat": "Agility",
        f"s{pair.dave.pk}-skill": "",
        f"s{pair.dave.pk}-advantage": "none",
        "npc-name": "The guard",
        "npc-flag_dice": "2",
        "intent": intent,
    }
    return logged_in(pair.table.gm).post(
        reverse("rolls:contest-create", args=[pair.table.campaign.pk]), data, **HX
    )


def page(client: Any, name: str, *args: int) -> str:
    response = client.get(reverse(name, args=args))
    assert response.status_code == 200
    return html.unescape(response.content.decode())


def panel_of(text: str) -> str:
    return text.split('id="contests-panel"')[1].split("</section>")[0]


def roll_side(pair: Pair, user: Any, position: int, *, htmx: bool = True) -> Any:
    contest = Contest.objects.get()
    side = contest.sides.get(position=position)
    url = reverse("rolls:contest-roll", args=[pair.table.campaign.pk, contest.pk, side.pk])
    return logged_in(user).post(url, {}, **(HX if htmx else {}))


def test_str_9_the_gm_opens_a_contest_and_the_phone_shows_its_roll_with_the_exact_odds(pair: Pair) -> None:
    answer = open_against_guard(pair)
    assert answer.status_code == 200
    assert "Contest: Dave against The guard" in html.unescape(answer.content.decode())
    phone = panel_of(
        page(logged_in(pair.table.player), "rolls:character", pair.table.campaign.pk, pair.dave.pk)
    )
    assert "Roll Agility" in phone and "“Sneak past”" in phone
    # Two dice each, untrained: the chance computed here face by face, ties to Dave.
    expected = chance_to_win(2, 2)
    assert f"Dave's chance to win: <b>{percent(expected)}</b>" in phone
    assert f"(exact: {expected})" in phone
    # The second player sees the contest, with nothing to press.
    other = panel_of(page(logged_in(pair.second), "rolls:campaign", pair.table.campaign.pk))
    assert "Dave against The guard" in other and "<form" not in other and "<button" not in other


def test_str_9_sealed_then_revealed_then_settled_through_the_pages(pair: Pair, dice: Script) -> None:
    open_against_guard(pair)
    dice(6, 5)
    assert roll_side(pair, pair.table.player, 0).status_code == 200
    mine = Roll.objects.get()
    assert not mine.revealed
    other = page(logged_in(pair.second), "rolls:campaign", pair.table.campaign.pk)
    assert not FACE.search(other) and "rolled, sealed" in panel_of(other)
    # The player cannot roll twice, nor the guard's side.
    twice = roll_side(pair, pair.table.player, 0)
    assert twice.status_code == 422 and "has rolled already" in twice.content.decode()
    guard = roll_side(pair, pair.table.player, 1)
    assert guard.status_code == 422 and "Only the GM rolls" in guard.content.decode()
    assert Roll.objects.count() == 1

    dice(5, 1)
    assert roll_side(pair, pair.table.gm, 1).status_code == 200
    shown = page(logged_in(pair.second), "rolls:campaign", pair.table.campaign.pk)
    assert FACE.search(shown)
    panel = panel_of(shown)
    assert "Success: 3 Stars" in panel and "Success: 1 Star" in panel and "winning" in panel
    assert "Revealed: Dave is winning" in panel

    contest = Contest.objects.get()
    settled = logged_in(pair.table.gm).post(
        reverse("rolls:contest-close", args=[pair.table.campaign.pk, contest.pk]), {}, **HX
    )
    assert settled.status_code == 200
    assert Contest.objects.get().verdict == "Dave wins, 3 Stars to 1 Star."
    assert LogEntry.objects.filter(action="contest-end").exists()
    # Settled: gone from the panel, in the feed.
    assert "Dave wins, 3 Stars to 1 Star." in page(
        logged_in(pair.second), "rolls:campaign", pair.table.campaign.pk
    )


def test_str9_a_tie_goes_to_the_player_even_when_the_guard_is_listed_first(pair: Pair, dice: Script) -> None:
    """STR-9: the GM lists the guard first; Dave's phone shows his chance with the ties his,
    and one Star each goes to Dave in the panel, the verdict and the log."""
    data = {
        "first": "npc",
        "second": str(pair.dave.pk),
        f"s{pair.dave.pk}-stat": "Agility",
        f"s{pair.dave.pk}-skill": "",
        f"s{pair.dave.pk}-advantage": "none",
        "npc-name": "The guard",
        "npc-flag_dice": "1",
        "intent": "Sneak past",
    }
    gm = logged_in(pair.table.gm)
    assert (
        gm.post(reverse("rolls:contest-create", args=[pair.table.campaign.pk]), data, **HX).status_code == 200
    )
    phone = panel_of(
        page(logged_in(pair.table.player), "rolls:character", pair.table.campaign.pk, pair.dave.pk)
    )
    expected = chance_to_win(2, 1)
    assert f"Dave's chance to win: <b>{percent(expected)}</b>" in phone
    dice(5)
    assert roll_side(pair, pair.table.gm, 0).status_code == 200
    dice(5, 2)
    assert roll_side(pair, pair.table.player, 1).status_code == 200
    assert "Revealed: Dave is winning" in panel_of(
        page(logged_in(pair.second), "rolls:campaign", pair.table.campaign.pk)
    )
    contest = Contest.objects.get()
    assert (
        gm.post(
            reverse("rolls:contest-close", args=[pair.table.campaign.pk, contest.pk]), {}, **HX
        ).status_code
        == 200
    )
    verdict = "Dave wins, 1 Star to 1 Star (a tie goes to Dave)."
    assert Contest.objects.get().verdict == verdict
    assert verdict in page(logged_in(pair.second), "rolls:campaign", pair.table.campaign.pk)


def test_a_player_challenges_another_who_accepts_with_their_own_roll(pair: Pair, dice: Script) -> None:
    campaign = pair.table.campaign.pk
    url = reverse("rolls:challenge-create", args=[campaign, pair.dave.pk])
    data = {"opponent": str(pair.eve.pk), f"s{pair.dave.pk}-stat": "Vigor", "intent": "Arm wrestling"}
    assert logged_in(pair.table.player).post(url, data, **HX).status_code == 200
    contest = Contest.objects.get()
    assert contest.state == Contest.State.ASKED
    eve = panel_of(page(logged_in(pair.second), "rolls:character", campaign, pair.eve.pk))
    assert "Accept and roll this" in eve and "Refuse" in eve and f"s{pair.eve.pk}-stat" in eve
    # Dave cannot answer his own challenge, nor roll before Eve accepts.
    answer_url = reverse("rolls:contest-answer", args=[campaign, contest.pk])
    refused = logged_in(pair.table.player).post(answer_url, {"accept": "yes"}, **HX)
    assert refused.status_code == 422 and "challenged character's player" in html.unescape(
        refused.content.decode()
    )
    early = roll_side(pair, pair.table.player, 0)
    assert early.status_code == 422 and "not been accepted" in early.content.decode()

    accepted = logged_in(pair.second).post(
        answer_url, {"accept": "yes", f"s{pair.eve.pk}-stat": "Smarts"}, **HX
    )
    assert accepted.status_code == 200
    assert Contest.objects.get().state == Contest.State.OPEN
    assert Contest.objects.get().sides.get(position=1).data["stat"] == "Smarts"
    dice(1, 1)
    roll_side(pair, pair.table.player, 0)
    dice(6, 1)
    roll_side(pair, pair.second, 1)
    assert Contest.objects.get().state == Contest.State.REVEALED
    # Each roll is made against the other: Dave may spend Luck against Eve's roll now.
    dave_page = page(logged_in(pair.table.player), "rolls:character", campaign, pair.dave.pk)
    assert "Spend your Luck against this roll" in dave_page


def test_a_bad_contest_is_refused_with_a_message_and_opens_nothing(pair: Pair) -> None:
    url = reverse("rolls:contest-create", args=[pair.table.campaign.pk])
    gm = logged_in(pair.table.gm)
    for data, message in (
        ({"first": "npc", "second": "npc", "npc-name": "A", "npc-flag_dice": "2"}, "at least one character"),
        (
            {"first": str(pair.dave.pk), "second": str(pair.dave.pk), f"s{pair.dave.pk}-stat": "Vigor"},
            "cannot contest against themself",
        ),
        ({"first": "", "second": "npc"}, "Choose who rolls for the first side"),
        (
            {
                "first": str(pair.dave.pk),
                "second": "npc",
                f"s{pair.dave.pk}-stat": "Vigor",
                "npc-flag_dice": "2",
            },
            "side without a sheet",
        ),
    ):
        response = gm.post(url, data, **HX)
        assert response.status_code == 422, data
        assert message in html.unescape(response.content.decode()), data
    assert not Contest.objects.exists()
    # Without JavaScript: back to the console, the message on it.
    plain = gm.post(url, {"first": "", "second": "npc"}, follow=True)
    assert "Choose who rolls for the first side" in html.unescape(plain.content.decode())
    assert not Contest.objects.exists()


def test_only_the_gm_opens_settles_and_calls_off(pair: Pair) -> None:
    campaign = pair.table.campaign.pk
    player = logged_in(pair.table.player)
    assert player.post(reverse("rolls:contest-create", args=[campaign]), {"first": "npc"}).status_code == 403
    open_against_guard(pair)
    contest = Contest.objects.get()
    for name in ("rolls:contest-close", "rolls:contest-cancel"):
        assert (
            player.post(reverse(name, args=[campaign, contest.pk]), {"confirmed": "yes"}).status_code == 403
        )
    assert Contest.objects.get().state == Contest.State.OPEN


def test_without_javascript_closing_a_contest_asks_first(pair: Pair, dice: Script) -> None:
    open_against_guard(pair)
    dice(6, 6)
    roll_side(pair, pair.table.player, 0, htmx=False)
    contest = Contest.objects.get()
    url = reverse("rolls:contest-close", args=[pair.table.campaign.pk, contest.pk])
    asked = logged_in(pair.table.gm).post(url, {})
    assert asked.status_code == 200 and "a side that has not rolled loses." in asked.content.decode()
    assert Contest.objects.get().state == Contest.State.OPEN
    done = logged_in(pair.table.gm).post(url, {"confirmed": "yes"})
    assert done.status_code == 302
    assert Contest.objects.get().verdict == "Dave wins: The guard did not roll."


def test_the_display_shows_the_contest_and_who_has_rolled_without_any_control(
    pair: Pair, dice: Script
) -> None:
    open_against_guard(pair)
    dice(6, 6)
    roll_side(pair, pair.table.player, 0)
    display = page(logged_in(pair.second), "rolls:display", pair.table.campaign.display_token)
    panel = panel_of(display)
    assert "Dave against The guard" in panel and "rolled, sealed" in panel and "to roll" in panel
    assert "<form" not in display and "<button" not in display and not FACE.search(display)


def test_ending_the_session_calls_off_its_contests(pair: Pair, dice: Script) -> None:
    open_against_guard(pair)
    dice(6, 6)
    roll_side(pair, pair.table.player, 0)
    logged_in(pair.table.gm).post(
        reverse("rolls:session-end", args=[pair.table.campaign.pk]), {"confirmed": "yes"}
    )
    assert Contest.objects.get().state == Contest.State.CANCELLED
    assert Roll.objects.get().revealed
    assert LogEntry.objects.filter(action="contest-cancel", text__startswith="The session ended").exists()


def test_the_history_shows_a_contest_as_one_entry_and_its_page_lists_every_part(
    pair: Pair, dice: Script
) -> None:
    open_against_guard(pair)
    dice(6, 5)
    roll_side(pair, pair.table.player, 0)
    campaign = pair.table.campaign.pk
    # Sealed: in the second player's history, one entry, no die, nothing of Dave's roll.
    other = page(logged_in(pair.second), "rolls:history", campaign)
    assert other.count('class="contest-entry"') == 1 and "being rolled" in other
    assert not FACE.search(other) and "sealed until the contest reveals every side at once" in other
    dice(5, 1)
    roll_side(pair, pair.table.gm, 1)
    contest = Contest.objects.get()
    logged_in(pair.table.gm).post(reverse("rolls:contest-close", args=[campaign, contest.pk]), {}, **HX)
    shown = page(logged_in(pair.second), "rolls:history", campaign)
    entry = shown.split('class="contest-entry"')[1].split("</li>\n</ol>")[0]
    assert "Dave wins, 3 Stars to 1 Star." in entry and FACE.search(entry)
    # Its rolls and its later events are inside it, not listed again on their own.
    assert shown.count(f'id="history-roll-{Roll.objects.get(npc=False).pk}"') == 1
    assert "revealed." not in shown.split('class="contest-entry"')[0]
    # Filtered to rolls only, each roll is listed as any roll is.
    rolls_only = logged_in(pair.second).get(reverse("rolls:history", args=[campaign]), {"kind": "rolls"})
    assert 'class="contest-entry"' not in rolls_only.content.decode()

    whole = page(logged_in(pair.second), "rolls:contest", campaign, contest.pk)
    assert "Dave wins, 3 Stars to 1 Star." in whole.split("Step by step")[0]
    parts = whole.split("Step by step")[1]
    order = [
        "The GM opened a contest: Dave against The guard",
        'class="who">Dave</strong>',
        "Dave's roll for the contest, revealed.",
        "The guard's roll for the contest, revealed.",
        "Dave wins, 3 Stars to 1 Star.",
    ]
    places = [parts.index(text) for text in order]
    assert places == sorted(places)


def test_str_9_after_the_reveal_the_phone_shows_the_chance_to_win_with_luck_against_the_other_roll(
    pair: Pair, dice: Script
) -> None:
    open_against_guard(pair)
    dice(5, 1)  # Dave: one Star
    roll_side(pair, pair.table.player, 0)
    dice(6, 6)  # the guard: four Stars
    roll_side(pair, pair.table.gm, 1)
    panel = panel_of(
        page(logged_in(pair.table.player), "rolls:character", pair.table.campaign.pk, pair.dave.pk)
    )
    # Luck against the guard's roll rerolls it and keeps the worse: Dave wins (ties to him) when
    # the new roll has at most one Star: both dice 1-4, or one 5 and one 1-4.
    chance = Fraction(4 * 4 + 2 * 4, 36)
    assert f"Spend your Luck against this roll: <b>{percent(chance)}</b> to win" in panel
    # The second player, in no side, is offered nothing.
    assert "to win" not in panel_of(page(logged_in(pair.second), "rolls:campaign", pair.table.campaign.pk))


@pytest.mark.parametrize("intent", ["Sneak\x00past", "Sneak\u202epast"])
def test_a_control_character_in_what_is_at_stake_is_refused_and_opens_nothing(
    pair: Pair, intent: str
) -> None:
    """A NUL is refused before it reaches the database (PostgreSQL would refuse to store it)."""
    response = open_against_guard(pair, intent=intent)
    assert response.status_code == 422
    assert "cannot hold invisible or control characters" in html.unescape(response.content.decode())
    assert not Contest.objects.exists()


def test_str_9_the_panel_reads_every_roll_of_its_contests_in_one_query(pair: Pair, dice: Script) -> None:
    """The panel draws again on every entry: each side's newest state comes from one query for
    all of them (``rolls.log.reads.newest_states``), and the winner, each result and the chances
    after a follow-up are read from those states, not the log again."""
    open_against_guard(pair)
    dice(6, 5)
    roll_side(pair, pair.table.player, 0)
    dice(1, 2)
    roll_side(pair, pair.table.gm, 1)
    membership = Membership.objects.get(campaign=pair.table.campaign, user=pair.table.player)
    with CaptureQueriesContext(connection) as queries:
        (view,) = contest_views(pair.table.campaign.pk, membership)
    assert view.sides[0].winning and view.sides[0].result and view.sides[1].result
    log_reads = [query["sql"] for query in queries if '"rolls_logentry"' in query["sql"]]
    assert len(log_reads) == 1, log_reads


def test_str_9_closing_and_the_verdict_read_every_side_in_one_query(pair: Pair, dice: Script) -> None:
    """What a close or a verdict reckons from (``contest_reckoning.states_of``): each side's
    roll as it stands, read for all the sides at once, not once per side."""
    open_against_guard(pair)
    dice(6, 5)
    roll_side(pair, pair.table.player, 0)
    dice(1, 2)
    roll_side(pair, pair.table.gm, 1)
    sides = list(Contest.objects.get().sides.select_related("roll").order_by("position"))
    with CaptureQueriesContext(connection) as queries:
        states = states_of(sides)
    assert len(queries) == 1
    assert states == [Roll.objects.get(pk=side.roll_id).current_state() for side in sides]
    assert [state["steps"][0]["dice"] for state in states] == [[6, 5], [1, 2]]
