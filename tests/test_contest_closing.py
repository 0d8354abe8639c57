"""The GM closes a contest that stalled (``rolls.contests.services.contest_close``): before it, the GM
is asked (the page's dialog, or a page of its own without script) with what closing does to
that kind of flow (``TableAdapter.contest_closing``), and the verdict then does just that.

One test per kind: a head-to-head contest (sixes kid versus kid, SIX-18; sets' sealed bids,
SET-4), a sixes group Trouble (SIX-17) and plan (SIX-20), a kinds Danger (KIN-8) and a
doubles extended action (DBL-13).
"""

from __future__ import annotations

import html
from typing import Any

from django.urls import reverse

from rolls.log.events import TableEvent
from rolls.models import Contest, LogEntry
from tests.factories import logged_in
from tests.test_contests_sets import Pair
from tests.test_contests_sets import duel as sets_duel
from tests.test_contests_sets import roll as sets_roll
from tests.test_doubles_contests import Duel, an_action, contribute
from tests.test_kinds_danger import Party, danger
from tests.test_kinds_danger import roll as danger_roll
from tests.test_sixes_contests import Kids, group, versus
from tests.test_sixes_contests import roll as kid_roll
from tests.test_sixes_plan import plan


def asked_then_closed(gm: Any, contest: Contest, question: str) -> str:
    """The GM's console offers ``question`` before closing, the form without script asks it and
    changes nothing; once confirmed, the contest closes. Its verdict."""
    client = logged_in(gm)
    console = html.unescape(client.get(reverse("rolls:session", args=[contest.campaign_id])).content.decode())
    assert f'hx-confirm="{question}"' in console
    url = reverse("rolls:contest-close", args=[contest.campaign_id, contest.pk])
    asked = client.post(url, {})
    assert asked.status_code == 200 and question in html.unescape(asked.content.decode())
    assert Contest.objects.get(pk=contest.pk).state == Contest.State.OPEN
    assert client.post(url, {"confirmed": "yes"}).status_code == 302
    closed = Contest.objects.get(pk=contest.pk)
    assert closed.state == Contest.State.CLOSED
    return closed.verdict


def test_six_18_closing_kid_versus_kid_says_a_kid_who_has_not_rolled_loses(db: None) -> None:
    kids = Kids()
    contest = versus(kids, kids.olle, kids.kim, kids.lea)
    kid_roll(kids, contest, 0, 6, 1, 1)
    verdict = asked_then_closed(
        kids.table.gm,
        contest,
        "Close it now? The rolls made so far are revealed; a kid who has not rolled loses.",
    )
    assert verdict.startswith("Olle wins") and "Kim, Lea did not roll" in verdict


def test_six_17_closing_group_trouble_says_a_kid_who_has_not_rolled_fails(db: None) -> None:
    kids = Kids()
    contest = group(kids, kids.olle, kids.kim, need=1)
    kid_roll(kids, contest, 0, 6, 1, 1)
    verdict = asked_then_closed(
        kids.table.gm,
        contest,
        "Close it now? The rolls made so far are revealed; a kid who has not rolled fails the Trouble.",
    )
    assert verdict == "Group Trouble: Olle gets through; Kim fails."


def test_six_20_closing_a_plan_says_a_part_not_rolled_counts_as_failed(db: None) -> None:
    kids = Kids()
    contest = plan(kids, kids.olle, kids.kim, parts="lure; grab")
    kid_roll(kids, contest, 0, 6, 1, 1)
    verdict = asked_then_closed(
        kids.table.gm,
        contest,
        "Close it now? The parts rolled so far are revealed; a part not rolled yet counts as failed.",
    )
    assert verdict == "The plan to get the tablet back: fails (parts that worked: 1 of the 2 needed)."


def test_kin_8_closing_a_danger_says_whoever_has_not_rolled_neither_passes_nor_fails(db: None) -> None:
    party = Party()
    contest = danger(party, party.ada, party.bo)
    danger_roll(contest, 0, 5, 5, 1)
    verdict = asked_then_closed(
        party.table.gm,
        contest,
        "Close it now? The rolls made so far are revealed; whoever has not rolled neither passes nor "
        "meets an Accident, and the verdict says they did not roll.",
    )
    assert verdict == "The Basic Danger: Ada passes; Bo did not roll."


def test_set_4_closing_before_the_bids_says_a_side_that_has_not_bid_bids_no_set(db: None) -> None:
    pair = Pair()
    contest = sets_duel(pair)
    sets_roll(contest, 0, pair.table.player, 4, 4, 2)
    verdict = asked_then_closed(
        pair.table.gm,
        contest,
        "Close it now? The rolls made so far are revealed; a side that has not rolled loses, and one "
        "that has not bid yet bids no set.",
    )
    assert verdict == "Ada wins: Bo did not roll."


def test_dbl_13_closing_an_extended_action_says_it_ends_as_its_tally_stands(db: None) -> None:
    duel = Duel()
    contest = an_action(duel)
    contribute(duel, contest, "mara", 6, 6)
    verdict = asked_then_closed(
        duel.table.gm,
        contest,
        "Close it now? The extended action ends as its tally stands: won, lost or unfinished.",
    )
    assert verdict.startswith("The extended action stops unfinished: 1 of 2 successes")
    # Its rolls were made in the open: closing it reveals none of them again (a reveal would
    # redraw a result card the roller's screen never had).
    assert not LogEntry.objects.filter(action=TableEvent.CONTEST_REVEAL).exists()


def test_a_contest_rolled_by_every_side_is_settled_without_a_question(db: None) -> None:
    kids = Kids()
    contest = versus(kids, kids.olle, kids.kim)
    kid_roll(kids, contest, 0, 6, 1, 1)
    kid_roll(kids, contest, 1, 1, 1, 1)
    url = reverse("rolls:contest-close", args=[contest.campaign_id, contest.pk])
    assert logged_in(kids.table.gm).post(url, {}).status_code == 302
    assert Contest.objects.get().verdict.startswith("Olle wins")
