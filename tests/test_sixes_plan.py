"""Extended Trouble (SIX-20) through the services, the pages and the sockets: the GM opens a
plan in parts, each kid rolls their own part once, sealed until every part is in; the tracker
shows each part, the exact chance of the plan before the dice are revealed, and the plan's
outcome as the engine reads it; a stalled plan closes with its unrolled parts failed."""

from __future__ import annotations

import html
import re
from fractions import Fraction
from typing import Any

import pytest
from channels.db import database_sync_to_async
from django.urls import reverse

from rolls.contests import services
from rolls.contests.sides import Side
from rolls.models import Contest, ContestSide, Roll
from rolls.systems import RulesError
from rolls.systems.base import percent
from rolls.systems.sixes import ExtendedTrouble
from tabletop.models import Character
from tests.contest_sockets import assert_sealed, table_sockets
from tests.dice import Script, ScriptedDice
from tests.factories import logged_in
from tests.test_sixes_contests import BODY, Kids

FACE = re.compile(r'data-face="\d"')
HX = {"HTTP_HX_REQUEST": "true"}
# Body 3 on the test sheet: three dice, one six needed.
ONE_PART = 1 - Fraction(5, 6) ** 3


@pytest.fixture
def kids(db: None) -> Kids:
    return Kids()


def plan(kids: Kids, *characters: Character, parts: str, needed: str = "all") -> Contest:
    return services.contest_open(
        campaign=kids.table.campaign,
        opener=kids.table.gm,
        sides=[Side(character, BODY) for character in characters],
        intent="get the tablet back",
        kind=Contest.Kind.PLAN,
        setup={"parts": parts, "needed": needed},
    )


def side(contest: Contest, position: int) -> ContestSide:
    return contest.sides.get(position=position)


def roll(kids: Kids, contest: Contest, position: int, *faces: int) -> Roll:
    return services.contest_roll(
        side=side(contest, position),
        user=kids.owner(position, contest),
        rng=ScriptedDice(*faces),
        is_gm=False,
    )


def test_six_20_each_kid_rolls_their_part_and_the_engine_decides_the_plan(kids: Kids) -> None:
    contest = plan(kids, kids.olle, kids.kim, kids.lea, parts="pick the lock; keep watch; distract")
    assert contest.setup == {"parts": ["pick the lock", "keep watch", "distract"], "needed": None}
    assert all(not s.data["helper"] for s in contest.sides.all())
    roll(kids, contest, 0, 6, 1, 1)
    roll(kids, contest, 1, 6, 6, 1)
    contest.refresh_from_db()
    assert contest.state == Contest.State.OPEN
    roll(kids, contest, 2, 1, 2, 3)
    contest.refresh_from_db()
    assert contest.state == Contest.State.REVEALED
    assert [s.roll.outcome for s in services.standings(contest) if s.roll] == [
        "success",
        "success",
        "failure",
    ]
    assert all(s.roll and s.roll.target_id is None for s in services.standings(contest))
    closed = services.contest_close(contest=contest, gm=kids.table.gm)
    assert closed.verdict == "The plan to get the tablet back: fails (parts that worked: 2 of the 3 needed)."
    # The contest's own page tells the whole plan afterwards.
    response = logged_in(kids.third).get(reverse("rolls:contest", args=[kids.table.campaign.pk, contest.pk]))
    assert response.status_code == 200
    assert "fails (parts that worked: 2 of the 3 needed)" in html.unescape(response.content.decode())


def test_six_20_the_gm_may_ask_for_fewer_parts_than_all(kids: Kids) -> None:
    contest = plan(kids, kids.olle, kids.kim, kids.lea, parts="a; b; c", needed="2")
    roll(kids, contest, 0, 6, 1, 1)
    roll(kids, contest, 1, 1, 1, 1)
    roll(kids, contest, 2, 6, 2, 3)
    closed = services.contest_close(contest=contest, gm=kids.table.gm)
    assert (
        closed.verdict == "The plan to get the tablet back: succeeds (parts that worked: 2 of the 2 needed)."
    )


def test_six_20_a_stalled_plan_closes_with_its_unrolled_parts_failed(kids: Kids) -> None:
    contest = plan(kids, kids.olle, kids.kim, parts="climb; hold the rope", needed="1")
    roll(kids, contest, 0, 1, 1, 1)
    closed = services.contest_close(contest=contest, gm=kids.table.gm)
    assert closed.state == Contest.State.CLOSED
    assert closed.verdict == "The plan to get the tablet back: fails (parts that worked: 0 of the 1 needed)."
    assert Roll.objects.get().revealed


def test_six20_a_lost_plan_counts_the_part_that_worked_after_the_one_that_failed(kids: Kids) -> None:
    """SIX-20: the first part fails (the plan is lost then), the second works: 1, not 0."""
    contest = plan(kids, kids.olle, kids.kim, parts="climb; hold the rope")
    roll(kids, contest, 0, 1, 1, 1)
    roll(kids, contest, 1, 6, 1, 1)
    closed = services.contest_close(contest=contest, gm=kids.table.gm)
    assert closed.verdict == "The plan to get the tablet back: fails (parts that worked: 1 of the 2 needed)."


def test_six20_every_part_that_worked_counts_past_the_number_needed(kids: Kids) -> None:
    """SIX-20: two parts needed and all three work: 3 of the 2 needed."""
    contest = plan(kids, kids.olle, kids.kim, kids.lea, parts="a; b; c", needed="2")
    for position in range(3):
        roll(kids, contest, position, 6, 1, 1)
    closed = services.contest_close(contest=contest, gm=kids.table.gm)
    assert (
        closed.verdict == "The plan to get the tablet back: succeeds (parts that worked: 3 of the 2 needed)."
    )


def test_six_20_each_kid_rolls_only_their_own_part_once(kids: Kids) -> None:
    contest = plan(kids, kids.olle, kids.kim, parts="climb; hold the rope")
    with pytest.raises(RulesError, match="Only Olle's player"):
        services.contest_roll(side=side(contest, 0), user=kids.second, rng=ScriptedDice(6, 6, 6), is_gm=False)
    roll(kids, contest, 0, 1, 1, 1)
    with pytest.raises(RulesError, match="once per contest"):
        roll(kids, contest, 0, 6, 6, 6)
    assert Roll.objects.count() == 1


@pytest.mark.parametrize(
    ("parts", "needed", "message"),
    [
        ("only one", "all", "one part for each of the 2 kids"),
        ("a; b; c", "all", "one part for each of the 2 kids"),
        ("same; same", "all", "its own name"),
        ("x" * 41 + "; b", "all", "40 characters"),
        ("a; b", "3", "between 1 and 2"),
        ("a; b", "lots", "how many parts"),
        ("a\x00; b", "all", "plain words"),
    ],
)
def test_six_20_a_plan_that_does_not_add_up_is_refused(
    kids: Kids, parts: str, needed: str, message: str
) -> None:
    with pytest.raises(RulesError, match=message):
        plan(kids, kids.olle, kids.kim, parts=parts, needed=needed)
    with pytest.raises(RulesError, match="Only the GM opens that"):
        services.contest_open(
            campaign=kids.table.campaign,
            opener=kids.table.player,
            sides=[Side(kids.olle, BODY), Side(kids.kim, BODY)],
            intent="",
            kind=Contest.Kind.PLAN,
            setup={"parts": "a; b"},
        )
    assert not Contest.objects.exists()


def test_six_20_the_gm_cancels_a_plan(kids: Kids) -> None:
    contest = plan(kids, kids.olle, kids.kim, parts="climb; hold the rope")
    roll(kids, contest, 0, 6, 1, 1)
    cancelled = services.contest_cancel(contest=contest, gm=kids.table.gm)
    assert cancelled.state == Contest.State.CANCELLED and Roll.objects.get().revealed


# -- the pages ---------------------------------------------------------------------------------


def page(client: Any, name: str, *args: Any) -> str:
    response = client.get(reverse(name, args=args))
    assert response.status_code == 200
    return html.unescape(response.content.decode())


def panel_of(text: str) -> str:
    return text.split('id="contests-panel"')[1].split("</section>")[0]


def open_from_console(kids: Kids, parts: str, needed: str = "all") -> Any:
    data: dict[str, Any] = {
        "kind": "plan",
        "setup-parts": parts,
        "setup-needed": needed,
        "sides": [str(kids.olle.pk), str(kids.kim.pk)],
        "intent": "Get the tablet back",
    }
    for character in (kids.olle, kids.kim):
        data[f"s{character.pk}-trait"] = "Body"
        data[f"s{character.pk}-need"] = "1"
    url = reverse("rolls:contest-create", args=[kids.table.campaign.pk])
    return logged_in(kids.table.gm).post(url, data, **HX)


def post_side(kids: Kids, user: Any, position: int, name: str) -> Any:
    contest = Contest.objects.get()
    url = reverse(name, args=[kids.table.campaign.pk, contest.pk, contest.sides.get(position=position).pk])
    return logged_in(user).post(url, {}, **HX)


def test_six_20_the_tracker_shows_the_parts_the_exact_chance_then_the_outcome(
    kids: Kids, dice: Script
) -> None:
    # The console lists the kids by name: Kim first, then Olle.
    answer = open_from_console(kids, "keep watch; pick the lock")
    assert answer.status_code == 200
    assert "Extended Trouble: Kim, Olle" in html.unescape(answer.content.decode())
    exact = ExtendedTrouble(("keep watch", "pick the lock")).chance(
        {"keep watch": ONE_PART, "pick the lock": ONE_PART}
    )
    assert exact == ONE_PART**2
    display = panel_of(page(logged_in(kids.third), "rolls:display", kids.table.campaign.display_token))
    assert "Part: <b>keep watch</b>" in display and "Part: <b>pick the lock</b>" in display
    assert f"Chance the plan succeeds: {percent(exact)} (exact: {exact})" in display
    assert "<form" not in display
    kim = panel_of(page(logged_in(kids.second), "rolls:campaign", kids.table.campaign.pk))
    assert kim.count("Roll Body") == 1  # only her own part
    dice(6, 1, 1)
    assert post_side(kids, kids.second, 0, "rolls:contest-roll").status_code == 200
    again = post_side(kids, kids.second, 0, "rolls:contest-roll")
    assert again.status_code == 422
    olle = panel_of(page(logged_in(kids.table.player), "rolls:campaign", kids.table.campaign.pk))
    assert "rolled, sealed" in olle and "part succeeds" not in olle
    dice(1, 1, 1)
    post_side(kids, kids.table.player, 1, "rolls:contest-roll")
    display = panel_of(page(logged_in(kids.third), "rolls:display", kids.table.campaign.display_token))
    assert "part succeeds" in display and "part fails" in display
    assert "Revealed: the plan fails (parts that worked: 1 of the 2 needed)" in display


def test_six_20_the_console_refuses_a_bad_plan_and_opens_nothing(kids: Kids) -> None:
    answer = open_from_console(kids, "just one")
    assert answer.status_code == 422
    assert "one part for each of the 2 kids" in html.unescape(answer.content.decode())
    assert open_from_console(kids, "a; b", needed="\x00").status_code == 422
    assert not Contest.objects.exists()


@pytest.mark.django_db(transaction=True)
async def test_six_20_other_sockets_get_no_sealed_die_of_a_part() -> None:
    kids = await database_sync_to_async(Kids)()
    members = {"kim": kids.second, "lea": kids.third, "gm": kids.table.gm, "olle": kids.table.player}
    async with table_sockets(kids.table.campaign, members) as sockets:
        contest = await database_sync_to_async(plan)(kids, kids.olle, kids.kim, parts="climb; hold the rope")
        await database_sync_to_async(roll)(kids, contest, 0, 6, 6, 5)
        received = await sockets.received(2)
        assert_sealed(
            received,
            secrets=[FACE, "part succeeds"],
            kept_from=["kim", "lea"],
            seen_by=["olle", "gm"],
            seen=['data-face="6"'],
        )
        assert "rolled, sealed" in received["kim"] and "rolled, sealed" in received["lea"]
        await database_sync_to_async(roll)(kids, contest, 1, 1, 1, 1)
        revealed = (await sockets.received(5, "lea"))["lea"]
        assert 'data-face="6"' in revealed and "the plan fails" in revealed
