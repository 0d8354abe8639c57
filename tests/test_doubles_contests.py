"""Doubles flows through the services (issue 14): opposed rolls (DBL-7, DBL-9, DBL-11,
DBL-15), sealed until both sides have rolled, and extended actions (DBL-13)."""

from __future__ import annotations

import re
from typing import Any

import pytest
from channels.db import database_sync_to_async

from rolls.campaigns import services as campaigns
from rolls.contests import extended
from rolls.contests import services as contests
from rolls.contests.sides import Side
from rolls.live import feed
from rolls.models import Contest, ContestSide, LogEntry, Roll
from rolls.play import services
from rolls.systems import RulesError
from tabletop.models import Character, Membership
from tests import factories
from tests.contest_sockets import assert_sealed, table_sockets
from tests.dice import ScriptedDice
from tests.test_table_doubles import doubles_sheet

FACE = re.compile(r'data-face="\d"')
# Two dice, nothing ticked: an opposed roll (the contest fixes the Difficulty Number away).
PLAIN = {"abilities": [], "weaknesses": [], "bonus": 0, "penalty": 0, "helpers": 0, "dn": "opposed"}
GUARD = {"dice": 2}


class Duel:
    """A doubles table: Mara (the player's) and Bram (a second player's), Endurance 30 each."""

    def __init__(self) -> None:
        self.table = factories.table("doubles", character_name="Mara", sheet=doubles_sheet())
        self.second = factories.user("second")
        factories.member(self.table.campaign, self.second, name="Second")
        self.bram = campaigns.character_create(
            campaign=self.table.campaign, owner=self.second, name="Bram", sheet=doubles_sheet()
        )

    @property
    def mara(self) -> Character:
        return self.table.character


@pytest.fixture
def duel(db: None) -> Duel:
    return Duel()


def opposed(duel: Duel, npc: bool = False) -> Contest:
    second = Side(None, GUARD, name="The guard") if npc else Side(duel.bram, PLAIN)
    return contests.contest_open(
        campaign=duel.table.campaign,
        opener=duel.table.gm,
        sides=[Side(duel.mara, PLAIN), second],
        intent="arm wrestling",
    )


def side(contest: Contest, position: int) -> ContestSide:
    return contest.sides.get(position=position)


def roll_both(
    duel: Duel, contest: Contest, mine: tuple[int, ...], theirs: tuple[int, ...]
) -> tuple[Roll, Roll]:
    first = contests.contest_roll(
        side=side(contest, 0), user=duel.table.player, rng=ScriptedDice(*mine), is_gm=False
    )
    second = contests.contest_roll(
        side=side(contest, 1), user=duel.second, rng=ScriptedDice(*theirs), is_gm=False
    )
    return first, second


def seen_by(user: Any, duel: Duel) -> str:
    membership = Membership.objects.get(campaign=duel.table.campaign, user=user)
    html, _ = feed.render_since(membership, 0)
    return html


def test_dbl_7_the_higher_result_wins_an_opposed_roll(duel: Duel) -> None:
    contest = opposed(duel)
    roll_both(duel, contest, (5, 2), (3, 1))
    assert [s.winner for s in contests.standings(contest)] == [True, False]
    assert contests.contest_close(contest=contest, gm=duel.table.gm).verdict == "Mara wins, 5 to 3."


def test_dbl_7_equal_results_are_a_standoff(duel: Duel) -> None:
    contest = opposed(duel)
    # A pair of threes (6) against a single six: equal results.
    roll_both(duel, contest, (3, 3), (6, 2))
    assert [s.winner for s in contests.standings(contest)] == [False, False]
    verdict = contests.contest_close(contest=contest, gm=duel.table.gm).verdict
    assert verdict == "Standoff at 6: neither Mara nor Bram beats the other."


def test_dbl_7_a_side_is_rolled_opposed_whatever_difficulty_number_it_was_given(duel: Duel) -> None:
    contest = contests.contest_open(
        campaign=duel.table.campaign,
        opener=duel.table.gm,
        sides=[Side(duel.mara, {**PLAIN, "dn": "6"}), Side(None, {"dice": 2, "dn": 6}, name="Guard")],
        intent="",
    )
    assert side(contest, 0).data["dn"] == "opposed"
    mine = contests.contest_roll(
        side=side(contest, 0), user=duel.table.player, rng=ScriptedDice(3, 2), is_gm=False
    )
    guard = contests.contest_roll(
        side=side(contest, 1), user=duel.table.gm, rng=ScriptedDice(4, 1), is_gm=True
    )
    assert [roll.current_state()["request"]["dn"] for roll in (mine, guard)] == [None, None]
    assert contests.contest_close(contest=contest, gm=duel.table.gm).verdict == "Guard wins, 4 to 3."


def test_dbl_9_no_complication_without_an_amazing_success(duel: Duel) -> None:
    contest = opposed(duel)
    roll_both(
        duel,
        contest,
        (
            5,
            5,
        ),
        (4, 2),
    )
    # Revealed: 10 against 4, a win but nothing amazing, so no Complication to inflict.
    contest.refresh_from_db()
    with pytest.raises(RulesError, match="not a step"):
        contests.contest_act(
            side=side(contest, 0),
            user=duel.table.player,
            action="complication",
            params={"complication": "x"},
            is_gm=False,
        )


def test_dbl_9_the_winner_with_an_amazing_success_inflicts_a_complication_recorded(duel: Duel) -> None:
    sheet = doubles_sheet(abilities=[{"name": "Fighting", "level": 2}])
    Character.objects.filter(pk=duel.mara.pk).update(sheet=sheet)
    contest = contests.contest_open(
        campaign=duel.table.campaign,
        opener=duel.table.gm,
        sides=[Side(duel.mara, {**PLAIN, "abilities": ["Fighting"]}), Side(duel.bram, PLAIN)],
        intent="duel",
    )
    # Four dice, three fives: 15, an Amazing Success; Bram's 6 is not.
    roll_both(duel, contest, (5, 5, 5, 2), (6, 1))
    contest.refresh_from_db()
    # Nobody has Endurance left for drama dice or a miracle: nothing can change either roll.
    Character.objects.filter(pk__in=[duel.mara.pk, duel.bram.pk]).update(endurance=0)
    # Only the amazing PC, only their own side: the other side and the other player are refused.
    with pytest.raises(RulesError, match="not a step this side may take"):
        contests.contest_act(
            side=side(contest, 1),
            user=duel.second,
            action="complication",
            params={"complication": "x"},
            is_gm=False,
        )
    with pytest.raises(RulesError, match="Only Mara's player"):
        contests.contest_act(
            side=side(contest, 0),
            user=duel.second,
            action="complication",
            params={"complication": "x"},
            is_gm=False,
        )
    with pytest.raises(RulesError, match="Say what the Complication is"):
        contests.contest_act(
            side=side(contest, 0),
            user=duel.table.player,
            action="complication",
            params={"complication": " "},
            is_gm=False,
        )
    contests.contest_act(
        side=side(contest, 0),
        user=duel.table.player,
        action="complication",
        params={"complication": "a sprained wrist"},
        is_gm=False,
    )
    assert LogEntry.objects.filter(
        action="contest-step", text="Mara inflicts a Complication on Bram: a sprained wrist."
    ).exists()
    # Once: the step is gone.
    with pytest.raises(RulesError, match="not a step this side may take"):
        contests.contest_act(
            side=side(contest, 0),
            user=duel.table.player,
            action="complication",
            params={"complication": "again"},
            is_gm=False,
        )
    verdict = contests.contest_close(contest=contest, gm=duel.table.gm).verdict
    assert verdict == "Mara wins, 15 to 6. Mara inflicts a Complication on Bram: a sprained wrist."
    with pytest.raises(RulesError, match="not a step this side may take"):
        contests.contest_act(
            side=side(contest, 0),
            user=duel.table.player,
            action="complication",
            params={"complication": "x"},
            is_gm=False,
        )


def complicate(duel: Duel, contest: Contest, position: int, text: str = "a sprained wrist") -> None:
    contests.contest_act(
        side=side(contest, position),
        user=duel.table.player if position == 0 else duel.second,
        action="complication",
        params={"complication": text},
        is_gm=False,
    )


def amazing_mara(duel: Duel, second: Side | None = None) -> Contest:
    """Mara with Fighting 2 (four dice) against Bram, or ``second``."""
    sheet = doubles_sheet(abilities=[{"name": "Fighting", "level": 2}])
    Character.objects.filter(pk=duel.mara.pk).update(sheet=sheet)
    return contests.contest_open(
        campaign=duel.table.campaign,
        opener=duel.table.gm,
        sides=[Side(duel.mara, {**PLAIN, "abilities": ["Fighting"]}), second or Side(duel.bram, PLAIN)],
        intent="duel",
    )


def test_dbl9_the_complication_waits_while_a_follow_up_can_still_change_either_roll(duel: Duel) -> None:
    """DBL-9: Bram still has Endurance for drama dice that could make his roll amazing too, so
    Mara cannot name the Complication yet; the verdict says she may, nothing more."""
    contest = amazing_mara(duel)
    roll_both(duel, contest, (5, 5, 5, 2), (6, 1))
    contest.refresh_from_db()
    with pytest.raises(RulesError, match="not a step this side may take"):
        complicate(duel, contest, 0)
    assert not LogEntry.objects.filter(text__contains="inflicts a Complication").exists()
    verdict = contests.contest_close(contest=contest, gm=duel.table.gm).verdict
    assert verdict == "Mara wins, 15 to 6. Amazing Success: Mara may inflict a Complication on Bram."


def test_dbl9_after_the_gm_settles_the_amazing_pc_names_the_complication_and_no_roll_changes(
    duel: Duel,
) -> None:
    """DBL-9: Bram still has the Endurance for drama dice, so before the settle the Complication
    waits; the GM's settle ends every follow-up, and then Mara names it, once; the verdict says
    it, and Bram's dice can no longer overturn it."""
    contest = amazing_mara(duel)
    _, bram = roll_both(duel, contest, (5, 5, 5, 2), (6, 1))
    contest.refresh_from_db()
    with pytest.raises(RulesError, match="not a step this side may take"):
        complicate(duel, contest, 0)
    closed = contests.contest_close(contest=contest, gm=duel.table.gm)
    assert closed.verdict == "Mara wins, 15 to 6. Amazing Success: Mara may inflict a Complication on Bram."
    with pytest.raises(RulesError, match="settled this contest"):
        services.follow_up_apply(
            roll=bram, actor=duel.second, action="drama", params={"count": "2"}, rng=ScriptedDice(6, 6)
        )
    # Bram's dice were not amazing: the step is Mara's alone.
    with pytest.raises(RulesError, match="not a step this side may take"):
        complicate(duel, closed, 1)
    complicate(duel, closed, 0)
    closed.refresh_from_db()
    assert closed.state == Contest.State.CLOSED
    assert closed.verdict == "Mara wins, 15 to 6. Mara inflicts a Complication on Bram: a sprained wrist."
    assert Character.objects.get(pk=duel.bram.pk).endurance == 30  # nothing spent, nothing rolled
    with pytest.raises(RulesError, match="not a step this side may take"):
        complicate(duel, closed, 0, "again")


def test_dbl9_a_contest_called_off_names_no_complication(duel: Duel) -> None:
    """DBL-9: calling a contest off settles nothing: no Complication comes of it."""
    contest = amazing_mara(duel)
    roll_both(duel, contest, (5, 5, 5, 2), (6, 1))
    cancelled = contests.contest_cancel(contest=contest, gm=duel.table.gm)
    with pytest.raises(RulesError, match="This contest is over"):
        complicate(duel, cancelled, 0)


def test_dbl9_the_amazing_pc_who_loses_to_a_miracle_still_inflicts_the_complication(duel: Duel) -> None:
    """DBL-9: the Complication belongs to the PC whose dice were amazing, not to the winner."""
    contest = amazing_mara(duel)
    _, bram = roll_both(duel, contest, (5, 5, 5, 2), (6, 1))
    services.follow_up_apply(roll=bram, actor=duel.second, action="miracle", params={}, rng=ScriptedDice())
    services.follow_up_apply(
        roll=Roll.objects.get(pk=bram.pk),
        actor=duel.table.gm,
        action="miracle_approve",
        params={},
        rng=ScriptedDice(),
        by_gm=True,
    )
    Character.objects.filter(pk=duel.mara.pk).update(endurance=0)
    contest.refresh_from_db()
    # Bram won with the miracle, but his dice were not amazing: no step for him.
    with pytest.raises(RulesError, match="not a step this side may take"):
        complicate(duel, contest, 1)
    complicate(duel, contest, 0)
    verdict = contests.contest_close(contest=contest, gm=duel.table.gm).verdict
    assert verdict == (
        "Bram wins, 16 to 15 (Bram: a miracle). Mara inflicts a Complication on Bram: a sprained wrist."
    )


def test_dbl9_the_gms_side_without_a_sheet_never_inflicts_a_complication(duel: Duel) -> None:
    """DBL-9: only a PC may inflict it: an amazing Ogre wins, and the verdict names none."""
    contest = opposed(duel, npc=True)
    ContestSide.objects.filter(contest=contest, position=1).update(data={"dice": 4}, name="Ogre")
    Character.objects.filter(pk=duel.mara.pk).update(endurance=0)
    contests.contest_roll(side=side(contest, 0), user=duel.table.player, rng=ScriptedDice(6, 2), is_gm=False)
    contests.contest_roll(side=side(contest, 1), user=duel.table.gm, rng=ScriptedDice(5, 5, 5, 2), is_gm=True)
    contest.refresh_from_db()
    with pytest.raises(RulesError, match="not a step this side may take"):
        contests.contest_act(
            side=side(contest, 1),
            user=duel.table.gm,
            action="complication",
            params={"complication": "x"},
            is_gm=True,
        )
    assert contests.contest_close(contest=contest, gm=duel.table.gm).verdict == "Ogre wins, 15 to 6."


def test_dbl9_a_complication_named_freezes_both_rolls(duel: Duel) -> None:
    """DBL-9: once named, no later drama dice (Endurance given back by the GM) can overturn it."""
    contest = amazing_mara(duel)
    _, bram = roll_both(duel, contest, (5, 5, 5, 2), (6, 1))
    Character.objects.filter(pk__in=[duel.mara.pk, duel.bram.pk]).update(endurance=0)
    contest.refresh_from_db()
    complicate(duel, contest, 0)
    Character.objects.filter(pk=duel.bram.pk).update(endurance=30)
    with pytest.raises(RulesError, match="final"):
        services.follow_up_apply(
            roll=bram, actor=duel.second, action="drama", params={"count": "2"}, rng=ScriptedDice(6, 6)
        )
    assert Roll.objects.get(pk=bram.pk).current_state() == bram.current_state()


def test_dbl_11_an_approved_miracle_wins_an_opposed_roll_by_one(duel: Duel) -> None:
    contest = opposed(duel)
    mine, _ = roll_both(duel, contest, (2, 1), (6, 4))
    assert [s.winner for s in contests.standings(contest)] == [False, True]
    services.follow_up_apply(
        roll=mine, actor=duel.table.player, action="miracle", params={}, rng=ScriptedDice()
    )
    # While the GM has not answered, the contest cannot be settled.
    with pytest.raises(RulesError, match="asked for a miracle"):
        contests.contest_close(contest=contest, gm=duel.table.gm)
    services.follow_up_apply(
        roll=Roll.objects.get(pk=mine.pk),
        actor=duel.table.gm,
        action="miracle_approve",
        params={},
        rng=ScriptedDice(),
        by_gm=True,
    )
    assert Character.objects.get(pk=duel.mara.pk).endurance == 0
    assert [s.winner for s in contests.standings(contest)] == [True, False]
    assert (
        contests.contest_close(contest=contest, gm=duel.table.gm).verdict
        == "Mara wins, 7 to 6 (Mara: a miracle)."
    )


def test_dbl_10_drama_dice_after_the_reveal_change_the_verdict(duel: Duel) -> None:
    contest = opposed(duel)
    mine, _ = roll_both(duel, contest, (4, 2), (5, 1))
    assert [s.winner for s in contests.standings(contest)] == [False, True]
    services.follow_up_apply(
        roll=mine, actor=duel.table.player, action="drama", params={"count": "1"}, rng=ScriptedDice(4)
    )
    assert [s.winner for s in contests.standings(contest)] == [True, False]  # a pair of fours: 8
    assert contests.contest_close(contest=contest, gm=duel.table.gm).verdict == "Mara wins, 8 to 5."


def test_dbl_15_all_ones_is_a_catastrophe_in_an_opposed_roll(duel: Duel) -> None:
    contest = opposed(duel, npc=True)
    contests.contest_roll(side=side(contest, 0), user=duel.table.player, rng=ScriptedDice(1, 1), is_gm=False)
    contests.contest_roll(side=side(contest, 1), user=duel.table.gm, rng=ScriptedDice(2, 1), is_gm=True)
    verdict = contests.contest_close(contest=contest, gm=duel.table.gm).verdict
    assert verdict == "The guard wins, 2 to 1. Mara rolled a catastrophe."


def test_dbl_15_two_catastrophes_are_a_standoff_both_suffer(duel: Duel) -> None:
    contest = opposed(duel)
    roll_both(duel, contest, (1, 1), (1, 1))
    verdict = contests.contest_close(contest=contest, gm=duel.table.gm).verdict
    assert verdict == (
        "Standoff at 1: neither Mara nor Bram beats the other. Mara rolled a catastrophe. Bram rolled a catastrophe."
    )


def test_each_side_rolls_its_own_once_while_open_and_a_stalled_one_is_closed(duel: Duel) -> None:
    contest = opposed(duel)
    with pytest.raises(RulesError, match="Only Bram's player"):
        contests.contest_roll(
            side=side(contest, 1), user=duel.table.player, rng=ScriptedDice(6, 6), is_gm=False
        )
    contests.contest_roll(side=side(contest, 0), user=duel.table.player, rng=ScriptedDice(3, 2), is_gm=False)
    with pytest.raises(RulesError, match="has rolled already"):
        contests.contest_roll(
            side=side(contest, 0), user=duel.table.player, rng=ScriptedDice(6, 6), is_gm=False
        )
    # Bram's phone went away: the GM closes it and Bram, who did not roll, loses.
    closed = contests.contest_close(contest=contest, gm=duel.table.gm)
    assert closed.verdict == "Mara wins: Bram did not roll."
    with pytest.raises(RulesError, match="This contest is over"):
        contests.contest_roll(side=side(contest, 1), user=duel.second, rng=ScriptedDice(6, 6), is_gm=False)


def test_an_opposed_roll_stays_sealed_from_the_other_player_until_both_rolled(duel: Duel) -> None:
    contest = opposed(duel)
    contests.contest_roll(side=side(contest, 0), user=duel.table.player, rng=ScriptedDice(6, 5), is_gm=False)
    other = seen_by(duel.second, duel)
    assert not FACE.search(other) and "Result" not in other
    assert 'data-face="6"' in seen_by(duel.table.player, duel)
    contests.contest_roll(side=side(contest, 1), user=duel.second, rng=ScriptedDice(2, 2), is_gm=False)
    assert 'data-face="6"' in seen_by(duel.second, duel)


@pytest.mark.django_db(transaction=True)
async def test_the_bytes_of_other_sockets_hold_no_face_of_a_sealed_opposed_roll() -> None:
    duel = await database_sync_to_async(Duel)()
    members = {"second": duel.second, "gm": duel.table.gm, "player": duel.table.player}
    async with table_sockets(duel.table.campaign, members) as sockets:
        contest = await database_sync_to_async(opposed)(duel)
        first = await database_sync_to_async(side)(contest, 0)
        await database_sync_to_async(contests.contest_roll)(
            side=first, user=duel.table.player, rng=ScriptedDice(6, 5), is_gm=False
        )
        assert_sealed(
            await sockets.received(2),
            secrets=[FACE, "Result 6"],
            kept_from=["second"],
            seen_by=["player", "gm"],
            seen=['data-face="6"'],
        )
        second = await database_sync_to_async(side)(contest, 1)
        await database_sync_to_async(contests.contest_roll)(
            side=second, user=duel.second, rng=ScriptedDice(1, 2), is_gm=False
        )
        revealed = await sockets.received(5, "second")
        assert 'data-face="6"' in revealed["second"]


# -- extended actions (DBL-13) ------------------------------------------------------------------


def an_action(duel: Duel, successes: int = 2, failures: int = 2) -> Contest:
    return extended.extended_open(
        campaign=duel.table.campaign,
        gm=duel.table.gm,
        dn=6,
        successes=successes,
        failures=failures,
        intent="Climb",
    )


def contribute(duel: Duel, contest: Contest, who: str, *faces: int) -> Roll:
    character, user = (duel.mara, duel.table.player) if who == "mara" else (duel.bram, duel.second)
    return extended.extended_roll(
        contest=contest, character=character, user=user, data=PLAIN, rng=ScriptedDice(*faces)
    )


def test_dbl_13_the_party_reaches_the_successes_before_the_failures(duel: Duel) -> None:
    contest = an_action(duel)
    contribute(duel, contest, "mara", 3, 2)  # 3 does not beat 6: a failure
    contribute(duel, contest, "bram", 4, 4)  # 8: a success
    action = extended.tally(contest)
    assert (action.successes, action.failures, action.status) == (1, 1, "going")
    contribute(duel, contest, "bram", 6, 6)  # 12: the second success
    contest.refresh_from_db()
    assert extended.tally(contest).status == "won" and contest.state == Contest.State.REVEALED
    assert [roll.current_state()["request"]["dn"] for roll in Roll.objects.order_by("id")] == [6, 6, 6]
    with pytest.raises(RulesError, match="is won"):
        contribute(duel, contest, "mara", 6, 6)
    closed = contests.contest_close(contest=contest, gm=duel.table.gm)
    assert closed.verdict == "The extended action is won: 2 of 2 successes, 1 of 2 failures."
    with pytest.raises(RulesError, match="is over"):
        contribute(duel, contest, "mara", 6, 6)


def test_dbl_13_the_failure_that_reaches_the_number_allowed_loses_it(duel: Duel) -> None:
    contest = an_action(duel)
    contribute(duel, contest, "mara", 6, 1)  # a tie with the DN does not beat it (DBL-7)
    contribute(duel, contest, "mara", 1, 1)
    assert extended.tally(contest).status == "lost"
    assert contests.contest_close(contest=contest, gm=duel.table.gm).verdict == (
        "The extended action is lost: 0 of 2 successes, 2 of 2 failures."
    )


def test_dbl_13_drama_dice_on_a_contribution_count_in_the_tally(duel: Duel) -> None:
    contest = an_action(duel, successes=1, failures=2)
    roll = contribute(duel, contest, "mara", 5, 2)
    services.follow_up_apply(
        roll=roll, actor=duel.table.player, action="drama", params={"count": "1"}, rng=ScriptedDice(5)
    )
    assert extended.tally(contest).status == "won"  # a pair of fives: 10


def cancel_text(contest: Contest) -> str:
    return LogEntry.objects.get(action="contest-cancel", campaign_id=contest.campaign_id).text


def test_a_cancelled_extended_action_is_named_in_the_log_not_an_empty_contest(duel: Duel) -> None:
    untried = an_action(duel)
    contests.contest_cancel(contest=untried, gm=duel.table.gm)
    assert cancel_text(untried) == "The GM called it off: the extended action (Climb) ends undecided."


def test_an_extended_action_the_session_ends_names_each_roller_once(duel: Duel) -> None:
    contest = an_action(duel, successes=3)
    contribute(duel, contest, "mara", 3, 2)
    contribute(duel, contest, "bram", 4, 4)
    contribute(duel, contest, "mara", 4, 4)
    campaigns.session_end(campaign=duel.table.campaign, actor=duel.table.gm)
    assert cancel_text(contest) == (
        "The session ended: the extended action (Climb) of Mara and Bram ends undecided."
    )


def test_a_cancelled_contest_still_names_its_sides(duel: Duel) -> None:
    contest = opposed(duel)
    contests.contest_cancel(contest=contest, gm=duel.table.gm)
    assert cancel_text(contest) == "The GM called it off: no contest between Mara and Bram."


def test_dbl13_an_extended_action_recorded_as_lost_stays_lost_after_drama_dice(duel: Duel) -> None:
    """DBL-13: the failure that lost the action is in the log; drama dice on it are refused, so
    the action never comes back to be won."""
    contest = an_action(duel, successes=1, failures=1)
    roll = contribute(duel, contest, "mara", 5, 2)
    assert extended.tally(contest).status == "lost"
    assert LogEntry.objects.filter(text__contains="The action is lost").exists()
    with pytest.raises(RulesError, match="final"):
        services.follow_up_apply(
            roll=roll, actor=duel.table.player, action="drama", params={"count": "1"}, rng=ScriptedDice(5)
        )
    assert extended.tally(contest).status == "lost"
    assert Character.objects.get(pk=duel.mara.pk).endurance == 30
    closed = contests.contest_close(contest=contest, gm=duel.table.gm)
    assert closed.verdict == "The extended action is lost: 0 of 1 successes, 1 of 1 failures."


def test_settled_contest_rolls_take_no_more_follow_ups(duel: Duel) -> None:
    """DBL-13 and every contest: the GM's verdict freezes the rolls it read."""
    contest = opposed(duel)
    mine, _ = roll_both(duel, contest, (4, 2), (5, 1))
    contests.contest_close(contest=contest, gm=duel.table.gm)
    with pytest.raises(RulesError, match="settled this contest"):
        services.follow_up_apply(
            roll=mine, actor=duel.table.player, action="drama", params={"count": "1"}, rng=ScriptedDice(4)
        )


def test_dbl_13_only_a_players_own_character_rolls_for_it(duel: Duel) -> None:
    contest = an_action(duel)
    with pytest.raises(RulesError, match="Only Bram's player"):
        extended.extended_roll(
            contest=contest, character=duel.bram, user=duel.table.player, data=PLAIN, rng=ScriptedDice(6, 6)
        )
    with pytest.raises(RulesError, match="Only the GM opens"):
        extended.extended_open(
            campaign=duel.table.campaign, gm=duel.table.player, dn=6, successes=2, failures=2, intent=""
        )
    with pytest.raises(RulesError, match="1 to 20 successes"):
        extended.extended_open(
            campaign=duel.table.campaign, gm=duel.table.gm, dn=6, successes=0, failures=2, intent=""
        )
    contests.contest_cancel(contest=contest, gm=duel.table.gm)
    with pytest.raises(RulesError, match="is over"):
        contribute(duel, contest, "mara", 6, 6)
    assert not Roll.objects.exists()
