"""Contests through the services: a stars contested roll (STR-9) played by two sides, sealed
until both have rolled, and every refusal of a step out of turn."""

from __future__ import annotations

import re
from typing import Any

import pytest
from channels.db import database_sync_to_async

from rolls.contests import services as contests
from rolls.contests.sides import Side
from rolls.live import feed
from rolls.models import Contest, LogEntry, Roll, Visibility
from rolls.play import services
from rolls.systems import RulesError
from tabletop.models import Character, Membership
from tests import factories
from tests.contest_sockets import assert_sealed, table_sockets
from tests.dice import ScriptedDice
from tests.test_table_stars import stars_sheet

FACE = re.compile(r'data-face="\d"')
ROLL = {"stat": "Agility", "skill": "", "advantage": "none"}
GUARD = {"dice": 2}  # two dice, untrained: each 5 is a Star, a 6 two


class Pair:
    """A stars table: Dave (the player's) and Eve (a second player's), two dice each."""

    def __init__(self) -> None:
        self.table = factories.table("stars", character_name="Dave", sheet=stars_sheet())
        self.second = factories.user("second")
        factories.member(self.table.campaign, self.second, name="Second")
        self.eve = services_character(self.table, self.second, "Eve")

    @property
    def dave(self) -> Character:
        return self.table.character


def services_character(table: factories.Table, owner: Any, name: str) -> Character:
    from rolls.campaigns import services as campaigns

    return campaigns.character_create(campaign=table.campaign, owner=owner, name=name, sheet=stars_sheet())


@pytest.fixture
def pair(db: None) -> Pair:
    return Pair()


def against_guard(pair: Pair, intent: str = "sneak past") -> Contest:
    return contests.contest_open(
        campaign=pair.table.campaign,
        opener=pair.table.gm,
        sides=[Side(pair.dave, ROLL), Side(None, GUARD, name="The guard")],
        intent=intent,
    )


def seen_by(user: Any, pair: Pair) -> str:
    """Everything a member's page receives of the log, as their socket renders it."""
    membership = Membership.objects.get(campaign=pair.table.campaign, user=user)
    html, _ = feed.render_since(membership, 0)
    return html


def side(contest: Contest, position: int) -> Any:
    return contest.sides.get(position=position)


def test_str_9_each_side_rolls_sealed_then_both_are_revealed_and_more_stars_wins(pair: Pair) -> None:
    contest = against_guard(pair)
    mine = contests.contest_roll(
        side=side(contest, 0), user=pair.table.player, rng=ScriptedDice(5, 6), is_gm=False
    )
    assert mine.visibility == Visibility.SEALED and not mine.revealed
    contest.refresh_from_db()
    assert contest.state == Contest.State.OPEN

    # Sealed: the player sees their own dice, the GM too, the second player and the table not.
    assert 'data-face="6"' in seen_by(pair.table.player, pair)
    assert 'data-face="6"' in seen_by(pair.table.gm, pair)
    other = seen_by(pair.second, pair)
    assert not FACE.search(other) and "sealed until the contest reveals every side at once" in other
    assert "Success" not in other and "Stars" not in other and "Failure" not in other

    guard = contests.contest_roll(
        side=side(contest, 1), user=pair.table.gm, rng=ScriptedDice(5, 1), is_gm=True
    )
    contest.refresh_from_db()
    assert contest.state == Contest.State.REVEALED
    assert Roll.objects.filter(pk__in=[mine.pk, guard.pk], revealed=True).count() == 2
    # Both revealed at once: one reveal entry per roll, carrying its state.
    reveals = LogEntry.objects.filter(action="contest-reveal").order_by("seq")
    assert [entry.roll_id for entry in reveals] == [mine.pk, guard.pk]
    assert FACE.search(seen_by(pair.second, pair))
    standing = contests.standings(contest)
    assert [s.winner for s in standing] == [True, False]  # 3 Stars against 1

    closed = contests.contest_close(contest=contest, gm=pair.table.gm)
    assert closed.state == Contest.State.CLOSED
    assert closed.verdict == "Dave wins, 3 Stars to 1 Star."
    assert LogEntry.objects.filter(action="contest-end", text=closed.verdict).exists()


def test_str_9_a_tie_goes_to_the_player(pair: Pair) -> None:
    contest = against_guard(pair)
    contests.contest_roll(side=side(contest, 0), user=pair.table.player, rng=ScriptedDice(5, 1), is_gm=False)
    contests.contest_roll(side=side(contest, 1), user=pair.table.gm, rng=ScriptedDice(1, 5), is_gm=True)
    assert [s.winner for s in contests.standings(contest)] == [True, False]
    assert contests.contest_close(contest=contest, gm=pair.table.gm).verdict == (
        "Dave wins, 1 Star to 1 Star (a tie goes to Dave)."
    )


def test_str_9_luck_against_the_other_side_rerolls_it_and_keeps_the_worse(pair: Pair) -> None:
    contest = against_guard(pair)
    contests.contest_roll(side=side(contest, 0), user=pair.table.player, rng=ScriptedDice(5, 1), is_gm=False)
    guard = contests.contest_roll(
        side=side(contest, 1), user=pair.table.gm, rng=ScriptedDice(6, 6), is_gm=True
    )
    assert [s.winner for s in contests.standings(contest)] == [False, True]
    # The guard's roll is made against Dave, so Dave's player may answer it with Luck.
    assert guard.target == pair.dave
    luck_before = Character.objects.get(pk=pair.dave.pk).luck
    services.follow_up_apply(
        roll=guard, actor=pair.table.player, action="luck_against", params={}, rng=ScriptedDice(1, 1)
    )
    assert Character.objects.get(pk=pair.dave.pk).luck == luck_before - 1
    assert [s.winner for s in contests.standings(contest)] == [True, False]
    assert contests.contest_close(contest=contest, gm=pair.table.gm).verdict.startswith("Dave wins")


def test_no_follow_up_goes_on_a_sealed_roll(pair: Pair) -> None:
    contest = against_guard(pair)
    mine = contests.contest_roll(
        side=side(contest, 0), user=pair.table.player, rng=ScriptedDice(1, 1), is_gm=False
    )
    with pytest.raises(RulesError, match="sealed until every side"):
        services.follow_up_apply(
            roll=mine, actor=pair.table.player, action="luck", params={}, rng=ScriptedDice(6, 6)
        )
    assert LogEntry.objects.filter(kind=LogEntry.Kind.FOLLOW_UP).count() == 0


def test_each_side_is_rolled_by_its_own_player_once_and_only_while_open(pair: Pair) -> None:
    contest = against_guard(pair)
    dave, guard = side(contest, 0), side(contest, 1)
    with pytest.raises(RulesError, match="Only the GM rolls for someone without a sheet"):
        contests.contest_roll(side=guard, user=pair.table.player, rng=ScriptedDice(6, 6), is_gm=False)
    with pytest.raises(RulesError, match="Only Dave's player rolls"):
        contests.contest_roll(side=dave, user=pair.second, rng=ScriptedDice(6, 6), is_gm=False)
    with pytest.raises(RulesError, match="Only Dave's player rolls"):
        contests.contest_roll(side=dave, user=pair.table.gm, rng=ScriptedDice(6, 6), is_gm=True)
    contests.contest_roll(side=dave, user=pair.table.player, rng=ScriptedDice(1, 1), is_gm=False)
    with pytest.raises(RulesError, match="has rolled already"):
        contests.contest_roll(side=dave, user=pair.table.player, rng=ScriptedDice(6, 6), is_gm=False)
    contests.contest_close(contest=contest, gm=pair.table.gm)
    with pytest.raises(RulesError, match="This contest is over"):
        contests.contest_roll(side=guard, user=pair.table.gm, rng=ScriptedDice(6, 6), is_gm=True)
    assert Roll.objects.count() == 1


def test_a_stalled_contest_is_closed_by_the_gm_and_a_side_that_did_not_roll_loses(pair: Pair) -> None:
    contest = against_guard(pair)
    mine = contests.contest_roll(
        side=side(contest, 0), user=pair.table.player, rng=ScriptedDice(1, 1), is_gm=False
    )
    closed = contests.contest_close(contest=contest, gm=pair.table.gm)
    assert closed.verdict == "Dave wins: The guard did not roll."
    assert Roll.objects.get(pk=mine.pk).revealed
    with pytest.raises(RulesError):
        contests.contest_close(contest=contest, gm=pair.table.gm)


def test_a_player_challenges_another_who_accepts_or_refuses(pair: Pair) -> None:
    challenge = contests.contest_open(
        campaign=pair.table.campaign,
        opener=pair.table.player,
        sides=[Side(pair.dave, ROLL), Side(pair.eve, {})],
        intent="arm wrestling",
    )
    assert challenge.state == Contest.State.ASKED
    with pytest.raises(RulesError, match="has not been accepted"):
        contests.contest_roll(
            side=side(challenge, 0), user=pair.table.player, rng=ScriptedDice(6, 6), is_gm=False
        )
    with pytest.raises(RulesError, match="Only the challenged character's player"):
        contests.contest_answer(contest=challenge, user=pair.table.player, accept=True)
    contests.contest_answer(contest=challenge, user=pair.second, accept=True, data=ROLL)
    challenge.refresh_from_db()
    assert challenge.state == Contest.State.OPEN
    contests.contest_roll(side=side(challenge, 1), user=pair.second, rng=ScriptedDice(6, 1), is_gm=False)
    contests.contest_roll(
        side=side(challenge, 0), user=pair.table.player, rng=ScriptedDice(5, 1), is_gm=False
    )
    # Each roll is made against the other side's character: each may spend Luck against it.
    assert {roll.target_id for roll in Roll.objects.all()} == {pair.dave.pk, pair.eve.pk}
    assert (
        contests.contest_close(contest=challenge, gm=pair.table.gm).verdict == "Eve wins, 2 Stars to 1 Star."
    )

    refused = contests.contest_open(
        campaign=pair.table.campaign,
        opener=pair.second,
        sides=[Side(pair.eve, ROLL), Side(pair.dave, ROLL)],
        intent="",
    )
    contests.contest_answer(contest=refused, user=pair.table.player, accept=False)
    refused.refresh_from_db()
    assert refused.state == Contest.State.REFUSED
    with pytest.raises(RulesError, match="not waiting for an answer"):
        contests.contest_answer(contest=refused, user=pair.table.player, accept=True)


@pytest.mark.parametrize(
    ("sides", "message"),
    [
        ("own-npc", "Only the GM rolls for someone without a sheet"),
        ("theirs-first", "Challenge with a character of your own"),
        ("both-mine", "A character cannot contest against themself"),
    ],
)
def test_a_challenge_that_breaks_the_rules_is_refused_and_opens_nothing(
    pair: Pair, sides: str, message: str
) -> None:
    chosen = {
        "own-npc": [Side(pair.dave, ROLL), Side(None, GUARD, name="A bear")],
        "theirs-first": [Side(pair.eve, ROLL), Side(pair.dave, ROLL)],
        "both-mine": [Side(pair.dave, ROLL), Side(pair.dave, ROLL)],
    }[sides]
    with pytest.raises(RulesError, match=message):
        contests.contest_open(campaign=pair.table.campaign, opener=pair.table.player, sides=chosen, intent="")
    assert not Contest.objects.exists()


def test_a_d3_cannot_be_a_side(pair: Pair) -> None:
    with pytest.raises(RulesError, match="A d3 is not a Skill roll"):
        contests.contest_open(
            campaign=pair.table.campaign,
            opener=pair.table.gm,
            sides=[Side(pair.dave, {"kind": "d3"}), Side(None, GUARD, name="Guard")],
            intent="",
        )
    assert not Contest.objects.exists()


def test_a_system_without_contests_at_the_table_refuses_one(db: None) -> None:
    kinds = factories.table("kinds", sheet=factories.sheet_of("kinds"))
    with pytest.raises(RulesError, match="has no contested rolls"):
        contests.contest_open(
            campaign=kinds.campaign,
            opener=kinds.gm,
            sides=[Side(kinds.character, {}), Side(None, {"dice": 2}, name="Guard")],
            intent="",
        )
    assert not Contest.objects.exists()


def test_the_gm_cancels_a_contest_and_what_was_rolled_is_revealed(pair: Pair) -> None:
    contest = against_guard(pair)
    mine = contests.contest_roll(
        side=side(contest, 0), user=pair.table.player, rng=ScriptedDice(6, 6), is_gm=False
    )
    contests.contest_cancel(contest=contest, gm=pair.table.gm)
    assert Contest.objects.get().state == Contest.State.CANCELLED
    assert Roll.objects.get(pk=mine.pk).revealed
    with pytest.raises(RulesError, match="over already"):
        contests.contest_cancel(contest=contest, gm=pair.table.gm)


@pytest.mark.django_db(transaction=True)
async def test_the_bytes_of_other_sockets_hold_no_face_of_a_sealed_roll() -> None:
    pair = await database_sync_to_async(Pair)()
    members = {"second": pair.second, "gm": pair.table.gm, "player": pair.table.player}
    async with table_sockets(pair.table.campaign, members) as sockets:
        contest = await database_sync_to_async(against_guard)(pair)
        first = await database_sync_to_async(side)(contest, 0)
        await database_sync_to_async(contests.contest_roll)(
            side=first, user=pair.table.player, rng=ScriptedDice(6, 5), is_gm=False
        )
        received = await sockets.received(2)
        assert_sealed(
            received, secrets=[FACE], kept_from=["second"], seen_by=["player", "gm"], seen=['data-face="6"']
        )
        assert "sealed until the contest reveals every side at once" in received["second"]

        second = await database_sync_to_async(side)(contest, 1)
        await database_sync_to_async(contests.contest_roll)(
            side=second, user=pair.table.gm, rng=ScriptedDice(1, 1), is_gm=True
        )
        revealed = await sockets.received(5, "second")
        assert 'data-face="6"' in revealed["second"]  # Dave's dice, now that both sides have rolled


def test_kin_kinds_has_no_contest_so_no_phone_shows_contest_odds_and_the_command_line_agrees(
    db: None,
) -> None:
    """Kinds has no contested roll (Dangers are faced one Challenge each): the command line's
    ``odds kinds ... --against`` refuses, the GM's contest form opens nothing, and no phone
    shows a chance to win, so the phones and the command line never disagree."""
    from django.core.management import CommandError, call_command
    from django.urls import reverse

    from tests.factories import logged_in

    kinds = factories.table("kinds", sheet=factories.sheet_of("kinds"))
    with pytest.raises(CommandError, match="Kinds has no contested roll"):
        call_command("odds", "kinds", "--dice", "3", "--against", "--dice", "3")
    url = reverse("rolls:contest-create", args=[kinds.campaign.pk])
    refused = logged_in(kinds.gm).post(url, {"first": str(kinds.character.pk), "intent": "x"})
    assert refused.status_code < 500 and not Contest.objects.exists()
    phone = logged_in(kinds.player).get(
        reverse("rolls:character", args=[kinds.campaign.pk, kinds.character.pk])
    )
    assert phone.status_code == 200 and "chance to win" not in phone.content.decode()
