"""A contested `sets` roll through the services (SET-4, SET-10): each side rolls sealed, bids
in secret from its own dice, and both bids are revealed at the same moment."""

from __future__ import annotations

import re
from typing import Any

import pytest
from channels.db import database_sync_to_async

from rolls.campaigns import services as campaigns
from rolls.contests import services as contests
from rolls.contests.sides import Side
from rolls.live import feed
from rolls.models import Contest, LogEntry, Roll
from rolls.play import services
from rolls.systems import RulesError
from tabletop.models import Character, Membership
from tests import factories
from tests.contest_sockets import assert_sealed, table_sockets
from tests.dice import ScriptedDice
from tests.test_contests import seen_by
from tests.test_table_sets import sets_sheet

FACE = re.compile(r'data-face="\d"')
# Finesse is 3 dice on ``sets_sheet``; the form's Bar is dropped in a contest.
FINESSE = {"stat": "Finesse", "bar": "2", "face": "rolled", "side": "attacker", "bonus": 0, "penalty": 0}
GUARD = {"dice": 5}


class Pair:
    """A sets table: Ada (the player's) and Bo (a second player's)."""

    def __init__(self) -> None:
        self.table = factories.table("sets", character_name="Ada", sheet=sets_sheet())
        self.second = factories.user("second")
        factories.member(self.table.campaign, self.second, name="Second")
        self.bo = campaigns.character_create(
            campaign=self.table.campaign, owner=self.second, name="Bo", sheet=sets_sheet()
        )

    @property
    def ada(self) -> Character:
        return self.table.character


@pytest.fixture
def pair(db: None) -> Pair:
    return Pair()


def duel(pair: Pair) -> Contest:
    return contests.contest_open(
        campaign=pair.table.campaign,
        opener=pair.table.gm,
        sides=[Side(pair.ada, FINESSE), Side(pair.bo, FINESSE)],
        intent="a duel on the stairs",
    )


def against_guard(pair: Pair) -> Contest:
    return contests.contest_open(
        campaign=pair.table.campaign,
        opener=pair.table.gm,
        sides=[Side(pair.ada, FINESSE), Side(None, GUARD, name="The guard")],
        intent="slip past",
    )


def side(contest: Contest, position: int) -> Any:
    return contest.sides.get(position=position)


def roll(contest: Contest, position: int, user: Any, *faces: int, gm: bool = False) -> Roll:
    return contests.contest_roll(side=side(contest, position), user=user, rng=ScriptedDice(*faces), is_gm=gm)


def bid(contest: Contest, position: int, user: Any, dice: Any = None, *, gm: bool = False) -> Contest:
    action = "no_set" if dice is None else "bid"
    params = {} if dice is None else {"dice": dice}
    return contests.contest_act(
        side=side(contest, position), user=user, action=action, params=params, is_gm=gm
    )


def test_set_4_bids_are_sealed_until_both_are_in_then_revealed_together(pair: Pair) -> None:
    contest = duel(pair)
    roll(contest, 0, pair.table.player, 4, 4, 2)
    roll(contest, 1, pair.second, 6, 6, 1)
    contest.refresh_from_db()
    # Both rolled, but the dice stay sealed: bids come first.
    assert contest.state == Contest.State.OPEN
    bid(contest, 0, pair.table.player, [0, 1])
    assert side(contest, 0).extra["bid"]["bid"] == "2x4"
    # The log says Ada bid, never what; the other phone and the table see no 2x4.
    assert LogEntry.objects.filter(action="contest-step", text="Ada has bid, sealed.").exists()
    for viewer in (pair.second,):
        assert "2x4" not in seen_by(viewer, pair)
    contest.refresh_from_db()
    assert contest.state == Contest.State.OPEN
    bid(contest, 1, pair.second, ["0", "1"])
    contest.refresh_from_db()
    assert contest.state == Contest.State.REVEALED
    # One entry says both bids, then each roll is revealed with its bid written in.
    reveal = LogEntry.objects.filter(action="contest-step").order_by("-seq").first()
    assert reveal.text == (
        "Bids revealed: Ada (attacking) bid 2x4, Bo bid 2x6. Bo wins: equal Sizes, the higher Face wins."
    )
    assert [s.winner for s in contests.standings(contest)] == [False, True]
    assert side(contest, 1).roll.current_state()["steps"][-1] == {
        "action": "opposition",
        "bid": "2x4",
        "won": True,
    }
    assert contests.contest_close(contest=contest, gm=pair.table.gm).verdict == (
        "Ada (attacking) bid 2x4, Bo bid 2x6. Bo wins: equal Sizes, the higher Face wins."
    )


def test_set_4_the_larger_size_wins_whatever_the_faces(pair: Pair) -> None:
    contest = against_guard(pair)
    roll(contest, 0, pair.table.player, 2, 2, 2)
    roll(contest, 1, pair.table.gm, 6, 6, 5, 5, 1, gm=True)
    bid(contest, 0, pair.table.player, [0, 1, 2])
    bid(contest, 1, pair.table.gm, [0, 1], gm=True)  # holds back the 5s for a critical
    assert [s.winner for s in contests.standings(contest)] == [True, False]


def test_set_4_the_attacker_wins_a_tie(pair: Pair) -> None:
    contest = duel(pair)
    roll(contest, 0, pair.table.player, 5, 5, 1)
    roll(contest, 1, pair.second, 5, 5, 6)
    bid(contest, 0, pair.table.player, [0, 1])
    bid(contest, 1, pair.second, [0, 1])
    assert [s.winner for s in contests.standings(contest)] == [True, False]
    assert (
        "identical bids: the tie goes to the attacker"
        in contests.contest_close(contest=contest, gm=pair.table.gm).verdict
    )


def test_set_6_upgraded_sets_bid_together_count_one_more_size(pair: Pair) -> None:
    contest = against_guard(pair)
    roll(contest, 0, pair.table.player, 3, 3, 1)
    roll(contest, 1, pair.table.gm, 4, 5, 3, 4, 5, gm=True)
    bid(contest, 0, pair.table.player, [0, 1])
    bid(contest, 1, pair.table.gm, [0, 1, 3, 4], gm=True)  # 4,4 + 5,5: Size 3, Face 4
    assert side(contest, 1).extra["bid"]["bid"] == "3x4"
    assert [s.winner for s in contests.standings(contest)] == [False, True]


def test_set_3_a_side_with_no_set_bids_nothing_and_loses_to_any_set(pair: Pair) -> None:
    contest = against_guard(pair)
    roll(contest, 0, pair.table.player, 1, 2, 3)
    roll(contest, 1, pair.table.gm, 6, 6, 6, 6, 1, gm=True)
    # The server reads the dice: Ada may only say "no set"; the GM may not say it for the guard.
    with pytest.raises(RulesError, match="not a step this side may take"):
        bid(contest, 0, pair.table.player, [0, 1])
    with pytest.raises(RulesError, match="not a step this side may take"):
        bid(contest, 1, pair.table.gm, None, gm=True)
    bid(contest, 0, pair.table.player, None)
    assert side(contest, 0).extra["bid"] == {"action": "bid", "size": 0, "bid": "none"}
    assert LogEntry.objects.filter(text="Ada has bid, sealed.").exists()  # no "no set" before the reveal
    bid(contest, 1, pair.table.gm, [0, 1], gm=True)
    assert [s.winner for s in contests.standings(contest)] == [False, True]
    assert contests.contest_close(contest=contest, gm=pair.table.gm).verdict == (
        "Ada (attacking) no set, The guard bid 2x6. The guard wins: any set beats no set."
    )


def test_set_4_no_set_on_either_side_goes_to_the_attacker(pair: Pair) -> None:
    contest = against_guard(pair)
    roll(contest, 0, pair.table.player, 1, 2, 3)
    roll(contest, 1, pair.table.gm, 1, 2, 3, 4, 5, gm=True)
    bid(contest, 0, pair.table.player, None)
    bid(contest, 1, pair.table.gm, None, gm=True)
    assert [s.winner for s in contests.standings(contest)] == [True, False]


def test_set_4_bids_are_refused_out_of_turn_twice_for_the_other_side_or_not_of_ones_own_dice(
    pair: Pair,
) -> None:
    contest = duel(pair)
    with pytest.raises(RulesError, match="not a step this side may take"):
        bid(contest, 0, pair.table.player, [0, 1])  # before rolling
    roll(contest, 0, pair.table.player, 4, 4, 2)
    with pytest.raises(RulesError, match="Only Bo's player"):
        bid(contest, 1, pair.table.player, [0, 1])  # for the other side
    with pytest.raises(RulesError, match="no match in this bid"):
        bid(contest, 0, pair.table.player, [0, 2])  # 4 and 2 are no set
    with pytest.raises(RulesError, match="choose among them"):
        bid(contest, 0, pair.table.player, [0, 7])  # a die Ada did not roll
    bid(contest, 0, pair.table.player, [0, 1])
    with pytest.raises(RulesError, match="not a step this side may take"):
        bid(contest, 0, pair.table.player, [0, 1])  # twice
    assert side(contest, 0).extra["bid"]["bid"] == "2x4"
    # The roll itself takes no bid and no record of the other side's bid, then or later.
    mine = side(contest, 0).roll
    with pytest.raises(RulesError, match="sealed"):
        services.follow_up_apply(
            roll=mine, actor=pair.table.player, action="opposition", params={"size": 0}, rng=ScriptedDice()
        )
    roll(contest, 1, pair.second, 3, 3, 1)
    bid(contest, 1, pair.second, [0, 1])
    mine.refresh_from_db()
    with pytest.raises(RulesError, match="sealed by the contest"):
        services.follow_up_apply(
            roll=mine, actor=pair.table.player, action="opposition", params={"size": 0}, rng=ScriptedDice()
        )
    contests.contest_close(contest=contest, gm=pair.table.gm)
    with pytest.raises(RulesError, match="over"):
        bid(contest, 1, pair.second, [0, 1])


def test_set_10_the_winner_then_spends_its_other_sets_on_criticals(pair: Pair) -> None:
    contest = duel(pair)
    roll(contest, 0, pair.table.player, 4, 4, 2)
    roll(contest, 1, pair.second, 6, 6, 3)
    bid(contest, 0, pair.table.player, [0, 1])
    bid(contest, 1, pair.second, [0, 1])
    # Bo won and spent his only set: nothing left for a critical, on either card.
    assert services_follow_ups(side(contest, 1).roll) == []
    assert services_follow_ups(side(contest, 0).roll) == []
    contest = contests.contest_open(
        campaign=pair.table.campaign,
        opener=pair.table.gm,
        sides=[Side(pair.ada, {**FINESSE, "bonus": 1}), Side(None, GUARD, name="The guard")],
        intent="",
    )
    roll(contest, 0, pair.table.player, 4, 4, 6, 6)
    roll(contest, 1, pair.table.gm, 3, 3, 2, 2, 1, gm=True)
    bid(contest, 0, pair.table.player, [0, 1])
    bid(contest, 1, pair.table.gm, [0, 1], gm=True)
    # The winner's card offers the criticals of a success but its critical hits, which the
    # contest compares set against set (below); the loser's card those of a failure.
    assert [f.action for f in services_follow_ups(side(contest, 0).roll)] == ["critical_effect"]
    assert [f.action for f in services_follow_ups(side(contest, 1).roll)] == [
        "defy_death",
        "flinch",
        "clean_break",
    ]


def act(
    contest: Contest, position: int, user: Any, action: str, dice: Any = None, *, gm: bool = False
) -> Contest:
    params = {} if dice is None else {"dice": dice}
    return contests.contest_act(
        side=side(contest, position), user=user, action=action, params=params, is_gm=gm
    )


def test_set_10_critical_hits_compared_set_against_set_winner_first_then_each_answered(pair: Pair) -> None:
    contest = contests.contest_open(
        campaign=pair.table.campaign,
        opener=pair.table.gm,
        sides=[Side(pair.ada, {**FINESSE, "bonus": 3}), Side(None, {"dice": 7}, name="The guard")],
        intent="a fight at the gate",
    )
    roll(contest, 0, pair.table.player, 4, 4, 6, 6, 5, 5)
    roll(contest, 1, pair.table.gm, 3, 3, 5, 5, 5, 2, 2, gm=True)
    bid(contest, 0, pair.table.player, [0, 1])
    # Before the reveal no critical hit: the bids come first.
    with pytest.raises(RulesError, match="not a step"):
        act(contest, 0, pair.table.player, "critical_hit", [2, 3])
    bid(contest, 1, pair.table.gm, [0, 1], gm=True)
    # Ada won (2x4 over 2x3). The guard answers nothing before Ada has spent hers.
    with pytest.raises(RulesError, match="not a step"):
        act(contest, 1, pair.table.gm, "let_through", gm=True)
    # Only her own unspent dice, one set; only her player.
    with pytest.raises(RulesError, match="spent already"):
        act(contest, 0, pair.table.player, "critical_hit", [0, 1])
    with pytest.raises(RulesError, match="same face"):
        act(contest, 0, pair.table.player, "critical_hit", [2, 4])
    with pytest.raises(RulesError, match="choose among them"):
        act(contest, 0, pair.table.player, "critical_hit", [2, 9])
    with pytest.raises(RulesError, match="Only Ada's player"):
        act(contest, 0, pair.second, "critical_hit", [2, 3])
    act(contest, 0, pair.table.player, "critical_hit", [2, 3])
    act(contest, 0, pair.table.player, "critical_hit", ["4", "5"])
    # No set left: only "no more".
    assert [s.action for s in registry_steps(contest, 0)] == ["hits_done"]
    act(contest, 0, pair.table.player, "hits_done")
    with pytest.raises(RulesError, match="not a step"):
        act(contest, 0, pair.table.player, "hits_done")
    # The guard answers in order: 2x6 first, with three 5s (larger Size: no damage) ...
    assert registry_steps(contest, 1)[0].label == "Answer the critical hit 2x6"
    with pytest.raises(RulesError, match="spent already"):
        act(contest, 1, pair.table.gm, "critical_answer", [0, 1], gm=True)
    act(contest, 1, pair.table.gm, "critical_answer", [2, 3, 4], gm=True)
    # ... then 2x5 with no set: one more damage. Then nobody has a step left.
    act(contest, 1, pair.table.gm, "let_through", gm=True)
    assert registry_steps(contest, 0) == [] and registry_steps(contest, 1) == []
    with pytest.raises(RulesError, match="not a step"):
        act(contest, 1, pair.table.gm, "let_through", gm=True)

    texts = list(
        LogEntry.objects.filter(action="contest-step").order_by("seq").values_list("text", flat=True)
    )
    assert texts[-5:] == [
        "Ada spends a critical hit: 2x6.",
        "Ada spends a critical hit: 2x5.",
        "Ada spends no more critical hits (2 to answer).",
        "The guard answers the critical hit 2x6 with 3x5: no damage from it.",
        "The guard answers the critical hit 2x5 with no set: one more damage. "
        "Critical hits: 1 more damage (1 of 2 got through).",
    ]
    # The sets spent are in the rolls: each card shows its dice spent.
    ada = side(contest, 0).roll.current_state()
    assert [(s["action"], s.get("bid")) for s in ada["steps"][1:]] == [
        ("bid", "2x4"),
        ("opposition", "2x3"),
        ("critical_hit", "2x6"),
        ("critical_hit", "2x5"),
    ]
    guard = side(contest, 1).roll.current_state()
    assert guard["steps"][-1] == {
        "action": "critical_answer",
        "dice": [2, 3, 4],
        "faces": [5, 5, 5],
        "bid": "3x5",
    }
    closed = contests.contest_close(contest=contest, gm=pair.table.gm)
    assert closed.verdict == (
        "Ada (attacking) bid 2x4, The guard bid 2x3. Ada wins: equal Sizes, the higher Face wins."
        " Critical hits: 1 more damage (1 of 2 got through)."
    )


def follow_up(roll: Roll, user: Any, action: str, dice: list[int], **params: Any) -> Any:
    roll.refresh_from_db()
    return services.follow_up_apply(
        roll=roll, actor=user, action=action, params={"dice": dice, **params}, rng=ScriptedDice()
    )


def test_set_8_a_defender_who_wins_deals_no_critical_hit_and_set_10_the_loser_waits_for_it(
    pair: Pair,
) -> None:
    """SET-8: Bo defends and wins the bids: no critical hit is offered or taken, his critical
    effect stays. SET-10: Ada's flinch waits until Bo has spent or declined his criticals."""
    five = {**FINESSE, "bonus": 2}
    contest = contests.contest_open(
        campaign=pair.table.campaign,
        opener=pair.table.gm,
        sides=[Side(pair.ada, five), Side(pair.bo, five)],
        intent="a duel",
    )
    ada = roll(contest, 0, pair.table.player, 2, 2, 4, 4, 6)
    bo = roll(contest, 1, pair.second, 5, 5, 4, 4, 1)
    bid(contest, 0, pair.table.player, [0, 1])
    bid(contest, 1, pair.second, [0, 1])
    # Bo (defending) won 2x5 over 2x2: he is offered no critical hit, only to say he is done.
    assert [step.action for step in registry_steps(contest, 1)] == ["hits_done"]
    with pytest.raises(RulesError, match="not a step"):
        act(contest, 1, pair.second, "critical_hit", [2, 3])
    assert [f.action for f in services_follow_ups(side(contest, 1).roll)] == ["critical_effect"]
    # Ada lost: her answer (a flinch) waits for Bo's criticals, and nothing is spent.
    with pytest.raises(RulesError, match="spends criticals first"):
        follow_up(ada, pair.table.player, "flinch", [2, 3])
    assert LogEntry.objects.filter(roll=ada, action="flinch").count() == 0
    follow_up(bo, pair.second, "critical_effect", [2, 3], effect="none")
    act(contest, 1, pair.second, "hits_done")
    with pytest.raises(RulesError, match="done with criticals"):
        follow_up(bo, pair.second, "critical_effect", [0, 1], effect="none")
    follow_up(ada, pair.table.player, "flinch", [2, 3])
    assert "Critical hit" not in contests.verdict(contest)


def test_set_10_the_loser_answers_a_critical_hit_only_after_the_winner_is_done(pair: Pair) -> None:
    """SET-10: Ada attacks and wins; Bo answers her critical hit only once she is done, and
    his flinch waits too. The identical answer ties to the attacker, Ada: no damage."""
    five = {**FINESSE, "bonus": 2}
    contest = contests.contest_open(
        campaign=pair.table.campaign,
        opener=pair.table.gm,
        sides=[Side(pair.ada, five), Side(pair.bo, five)],
        intent="a duel",
    )
    roll(contest, 0, pair.table.player, 5, 5, 4, 4, 6)
    bo = roll(contest, 1, pair.second, 2, 2, 4, 4, 1)
    bid(contest, 0, pair.table.player, [0, 1])
    bid(contest, 1, pair.second, [0, 1])
    with pytest.raises(RulesError, match="not a step"):
        act(contest, 1, pair.second, "let_through")
    act(contest, 0, pair.table.player, "critical_hit", [2, 3])
    with pytest.raises(RulesError, match="not a step"):
        act(contest, 1, pair.second, "critical_answer", [2, 3])
    with pytest.raises(RulesError, match="spends criticals first"):
        follow_up(bo, pair.second, "flinch", [2, 3])
    act(contest, 0, pair.table.player, "hits_done")
    act(contest, 1, pair.second, "critical_answer", [2, 3])
    assert contests.verdict(contest).endswith("Critical hits: 1 more damage (1 of 1 got through).")


def phone(user: Any, pair: Pair, roll: Roll) -> str:
    """What a member's phone draws of ``roll``: its character's page, with the result card."""
    from django.urls import reverse

    from tests.factories import logged_in

    client = logged_in(user)
    campaign = pair.table.campaign.pk
    return client.get(reverse("rolls:character", args=[campaign, roll.character_id])).content.decode()


def test_set_10_a_card_waiting_on_the_winner_draws_no_buttons_and_says_whose_turn_it_is(pair: Pair) -> None:
    """SET-10: Ada lost the bids; while Bo may still spend criticals her phone draws no flinch
    (the server would refuse it) and says Bo goes first. Once Bo is done her buttons are back,
    and Bo's card draws no critical any more, saying the other side answers now."""
    five = {**FINESSE, "bonus": 2}
    contest = contests.contest_open(
        campaign=pair.table.campaign,
        opener=pair.table.gm,
        sides=[Side(pair.ada, five), Side(pair.bo, five)],
        intent="a duel",
    )
    ada = roll(contest, 0, pair.table.player, 2, 2, 4, 4, 6)
    bo = roll(contest, 1, pair.second, 5, 5, 4, 4, 1)
    bid(contest, 0, pair.table.player, [0, 1])
    bid(contest, 1, pair.second, [0, 1])
    waiting = phone(pair.table.player, pair, ada)
    assert 'value="flinch"' not in waiting
    assert "Bo won the bids and spends criticals first" in waiting
    assert 'value="critical_effect"' in phone(pair.second, pair, bo)
    act(contest, 1, pair.second, "hits_done")
    answering = phone(pair.table.player, pair, ada)
    assert 'value="flinch"' in answering and "spends criticals first" not in answering
    done = phone(pair.second, pair, bo)
    assert 'value="critical_effect"' not in done and "the other side answers now" in done


def test_set_4_a_tie_goes_to_the_attacker_the_gm_named_not_the_first_side(pair: Pair) -> None:
    """SET-4: the GM names the second side the attacker; identical bids go to it."""
    contest = contests.contest_open(
        campaign=pair.table.campaign,
        opener=pair.table.gm,
        sides=[Side(pair.ada, FINESSE), Side(pair.bo, FINESSE)],
        intent="",
        attacker=1,
    )
    assert [s.extra["attacking"] for s in contest.sides.order_by("position")] == [False, True]
    assert side(contest, 0).data["side"] == "defender"
    roll(contest, 0, pair.table.player, 4, 4, 2)
    roll(contest, 1, pair.second, 4, 4, 1)
    bid(contest, 0, pair.table.player, [0, 1])
    bid(contest, 1, pair.second, [0, 1])
    assert [s.winner for s in contests.standings(contest)] == [False, True]
    assert contests.contest_close(contest=contest, gm=pair.table.gm).verdict == (
        "Ada bid 2x4, Bo (attacking) bid 2x4. Bo wins: identical bids: the tie goes to the attacker."
    )


def test_set_4_a_challenge_waits_for_the_gm_to_name_the_attacker(pair: Pair) -> None:
    """SET-4: the challenger is not the attacker by being first: the bids stay sealed until
    the GM names one, only the GM may, and closing before it is refused."""
    contest = contests.contest_open(
        campaign=pair.table.campaign,
        opener=pair.table.player,
        sides=[Side(pair.ada, FINESSE), Side(pair.bo, {})],
        intent="",
    )
    contests.contest_answer(contest=contest, user=pair.second, accept=True, data=FINESSE)
    roll(contest, 0, pair.table.player, 4, 4, 2)
    roll(contest, 1, pair.second, 4, 4, 1)
    bid(contest, 0, pair.table.player, [0, 1])
    bid(contest, 1, pair.second, [0, 1])
    contest.refresh_from_db()
    assert contest.state == Contest.State.OPEN
    with pytest.raises(RulesError, match="names the attacker"):
        contests.contest_close(contest=contest, gm=pair.table.gm)
    with pytest.raises(RulesError, match="Only the GM"):
        contests.contest_attacker(contest=contest, gm=pair.table.player, position=0)
    contests.contest_attacker(contest=contest, gm=pair.table.gm, position=1)
    assert LogEntry.objects.filter(text="The GM says Bo attacks.").exists()
    # Bo's bid was in: naming him reveals both, and the identical bids go to him.
    contest.refresh_from_db()
    assert contest.state == Contest.State.REVEALED
    assert [s.winner for s in contests.standings(contest)] == [False, True]
    with pytest.raises(RulesError, match="revealed already"):
        contests.contest_attacker(contest=contest, gm=pair.table.gm, position=0)


def registry_steps(contest: Contest, position: int) -> list[Any]:
    from rolls import registry

    sides = list(contest.sides.select_related("roll", "character__campaign").order_by("position"))
    contest.refresh_from_db()
    return registry.table("sets").contest_steps(contest, sides[position], sides)


def services_follow_ups(roll: Roll) -> list[Any]:
    from rolls.systems import sets

    return sets.system.follow_ups(roll.current_state(), {})


def test_a_participant_who_went_away_the_gm_closes_it_and_an_unbid_side_bids_nothing(pair: Pair) -> None:
    contest = duel(pair)
    roll(contest, 0, pair.table.player, 4, 4, 2)
    roll(contest, 1, pair.second, 6, 6, 1)
    bid(contest, 0, pair.table.player, [0, 1])
    # Bo's phone went away before bidding: the GM closes it; a side that did not bid has no set.
    closed = contests.contest_close(contest=contest, gm=pair.table.gm)
    assert closed.state == Contest.State.CLOSED
    assert closed.verdict == "Ada (attacking) bid 2x4, Bo no set. Ada wins: any set beats no set."
    assert Roll.objects.filter(contest_side__contest=contest, revealed=True).count() == 2


@pytest.mark.django_db(transaction=True)
async def test_set_4_no_bid_and_no_sealed_die_reaches_another_phone_or_the_display_early() -> None:
    pair = await database_sync_to_async(Pair)()
    campaign = pair.table.campaign
    token = await database_sync_to_async(
        lambda: campaign.__class__.objects.get(pk=campaign.pk).display_token
    )()
    members = {"second": pair.second, "gm": pair.table.gm, "player": pair.table.player}
    async with table_sockets(campaign, members, display=token) as sockets:
        contest = await database_sync_to_async(duel)(pair)
        await database_sync_to_async(roll)(contest, 0, pair.table.player, 5, 5, 5)
        await database_sync_to_async(roll)(contest, 1, pair.second, 2, 2, 3)
        await database_sync_to_async(bid)(contest, 0, pair.table.player, [0, 1])  # 2x5, holding a 5 back
        got = await sockets.received(4)
        # Ada's dice and bid: on her phone and the GM's, nowhere else.
        assert_sealed(
            got,
            secrets=["2x5", 'data-face="5"'],
            kept_from=["second", "display"],
            seen_by=["player", "gm"],
            seen=["bid 2x5", 'data-face="5"'],
        )
        assert "has bid, sealed" in got["second"] and "has bid, sealed" in got["display"]
        # Bo's own dice reach Bo (and the GM), not Ada nor the display.
        assert_sealed(
            got,
            secrets=['data-face="2"'],
            kept_from=["player", "display"],
            seen_by=["second", "gm"],
            seen=['data-face="2"'],
        )

        await database_sync_to_async(bid)(contest, 1, pair.second, [0, 1])
        revealed = await sockets.received(8)
        for name in ("second", "display", "player"):
            if name != "display":  # the display shows rolls, not the log's lines
                assert "Ada (attacking) bid 2x5, Bo bid 2x2" in revealed[name], name
            assert "Bid 2x5 wins against 2x2" in revealed[name], name
            assert 'data-face="5"' in revealed[name] and 'data-face="2"' in revealed[name], name


def plain_roll(pair: Pair, character: Character, user: Any, *faces: int) -> Roll:
    data = {**FINESSE, "bar": "2", "face": "1", "assists": 0, "lesser_assists": 0}
    return services.roll_create(
        character=character, roller=user, data=data, helper=None, intent="", rng=ScriptedDice(*faces)
    )


def test_set_8_a_critical_effect_carries_its_die_into_the_next_roll_it_applies_to(pair: Pair) -> None:
    """SET-8: the winner's critical effect gives Ada a bonus die and Bo a penalty die, each
    taken by that character's next roll only, and named on its card."""
    data = {**FINESSE, "bonus": 1}  # four dice: room for a bid and a critical
    contest = contests.contest_open(
        campaign=pair.table.campaign,
        opener=pair.table.gm,
        sides=[Side(pair.ada, data), Side(pair.bo, FINESSE)],
        intent="",
    )
    mine = roll(contest, 0, pair.table.player, 4, 4, 6, 6)
    roll(contest, 1, pair.second, 3, 3, 1)
    bid(contest, 0, pair.table.player, [0, 1])
    bid(contest, 1, pair.second, [0, 1])
    mine.refresh_from_db()
    services.follow_up_apply(
        roll=mine,
        actor=pair.table.player,
        action="critical_effect",
        params={"dice": [2, 3], "effect": "penalty"},
        rng=ScriptedDice(),
    )
    contests.contest_close(contest=contest, gm=pair.table.gm)
    # Bo's next roll takes the penalty die: two dice, and the card says why.
    nxt = plain_roll(pair, pair.bo, pair.second, 5, 5)
    assert nxt.current_state()["request"]["penalty"] == 1 and nxt.current_state()["request"]["dice"] == 2
    assert nxt.trait == "Finesse, -1 carried die"
    # Only that one roll: the next one is three dice again; Ada's own rolls never took it.
    after = plain_roll(pair, pair.bo, pair.second, 5, 5, 1)
    assert after.current_state()["request"]["dice"] == 3 and after.trait == "Finesse"
    assert plain_roll(pair, pair.ada, pair.table.player, 1, 2, 3).trait == "Finesse"


def test_set_8_a_voided_roll_took_no_carried_die_the_next_one_takes_it(pair: Pair) -> None:
    """SET-8: Bo's penalty die from Ada's critical effect went into a roll the GM then voided; a
    voided roll counts for nothing (as ``Roll.is_latest`` says), so his next roll takes it."""
    from rolls.play.void import roll_void

    data = {**FINESSE, "bonus": 1}
    contest = contests.contest_open(
        campaign=pair.table.campaign,
        opener=pair.table.gm,
        sides=[Side(pair.ada, data), Side(pair.bo, FINESSE)],
        intent="",
    )
    mine = roll(contest, 0, pair.table.player, 4, 4, 6, 6)
    roll(contest, 1, pair.second, 3, 3, 1)
    bid(contest, 0, pair.table.player, [0, 1])
    bid(contest, 1, pair.second, [0, 1])
    follow_up(mine, pair.table.player, "critical_effect", [2, 3], effect="penalty")
    contests.contest_close(contest=contest, gm=pair.table.gm)
    struck = plain_roll(pair, pair.bo, pair.second, 5, 5)
    assert struck.trait == "Finesse, -1 carried die"
    roll_void(roll=struck, actor=pair.table.gm, text="a stray tap")
    nxt = plain_roll(pair, pair.bo, pair.second, 5, 5)
    assert nxt.current_state()["request"]["penalty"] == 1 and nxt.trait == "Finesse, -1 carried die"
    assert plain_roll(pair, pair.bo, pair.second, 5, 5, 1).trait == "Finesse"


def test_set_8_a_bonus_die_goes_to_the_roller_s_own_next_roll(pair: Pair) -> None:
    third = services.roll_create(
        character=pair.ada,
        roller=pair.table.player,
        data={**FINESSE, "bar": "2", "face": "1", "bonus": 1},
        helper=None,
        intent="",
        rng=ScriptedDice(2, 2, 5, 5),
    )
    services.follow_up_apply(
        roll=third, actor=pair.table.player, action="bid", params={"dice": [0, 1]}, rng=ScriptedDice()
    )
    services.follow_up_apply(
        roll=third,
        actor=pair.table.player,
        action="critical_effect",
        params={"dice": [2, 3], "effect": "bonus"},
        rng=ScriptedDice(),
    )
    nxt = plain_roll(pair, pair.ada, pair.table.player, 1, 2, 3, 4)
    assert nxt.current_state()["request"]["bonus"] == 1 and nxt.trait == "Finesse, +1 carried die"
    assert plain_roll(pair, pair.ada, pair.table.player, 1, 2, 3).trait == "Finesse"


def gm_sees(pair: Pair, contest: Contest) -> str:
    """Everything the GM's console gets: its page, its contests panel, its feed, the roll's page."""
    from django.urls import reverse

    from tests.factories import logged_in

    client = logged_in(pair.table.gm)
    campaign = pair.table.campaign.pk
    mine = side(contest, 0).roll
    pages = [
        client.get(reverse("rolls:session", args=[campaign])).content.decode(),
        client.get(reverse("rolls:roll", args=[campaign, mine.pk])).content.decode(),
        client.post(
            reverse("rolls:contest-attacker", args=[campaign, contest.pk]),
            {"position": "0"},
            HX_REQUEST="true",
        ).content.decode(),
    ]
    return "".join(pages) + seen_by(pair.table.gm, pair)


def test_set_4_when_the_gm_plays_a_side_the_players_dice_and_bid_are_sealed_from_the_gm(pair: Pair) -> None:
    """SET-4: the GM rolls the guard; Ada's dice and bid reach no page, panel or feed of the
    GM's before the GM has bid, and both are revealed together."""
    contest = against_guard(pair)
    roll(contest, 0, pair.table.player, 5, 5, 5)
    bid(contest, 0, pair.table.player, [0, 1])
    roll(contest, 1, pair.table.gm, 2, 2, 3, 1, 4, gm=True)
    before = gm_sees(pair, contest)
    assert 'data-face="5"' not in before and "2x5" not in before
    assert 'data-face="2"' in before  # the GM's own side, which the GM bids from
    assert "has bid, sealed" in before
    bid(contest, 1, pair.table.gm, [0, 1], gm=True)
    after = gm_sees(pair, contest)
    assert 'data-face="5"' in after and "Ada (attacking) bid 2x5, The guard bid 2x2" in after


@pytest.mark.django_db(transaction=True)
async def test_set_4_no_frame_to_the_gm_carries_the_players_side_when_the_gm_plays_the_other() -> None:
    """SET-4: the GM's socket gets Ada's dice and bid only with the reveal."""
    pair = await database_sync_to_async(Pair)()
    campaign = pair.table.campaign
    members = {"gm": pair.table.gm, "player": pair.table.player}
    async with table_sockets(campaign, members) as sockets:
        contest = await database_sync_to_async(against_guard)(pair)
        await database_sync_to_async(roll)(contest, 0, pair.table.player, 5, 5, 5)
        await database_sync_to_async(bid)(contest, 0, pair.table.player, [0, 1])
        got = await sockets.received(3)
        assert_sealed(
            got,
            secrets=["2x5", 'data-face="5"'],
            kept_from=["gm"],
            seen_by=["player"],
            seen=['data-face="5"'],
        )
        await database_sync_to_async(roll)(contest, 1, pair.table.gm, 2, 2, 3, 1, 4, gm=True)
        await database_sync_to_async(bid)(contest, 1, pair.table.gm, [0, 1], gm=True)
        revealed = await sockets.received(8)
        assert 'data-face="5"' in revealed["gm"] and "bid 2x5" in revealed["gm"]


@pytest.mark.django_db(transaction=True)
async def test_set_10_when_the_winner_is_done_the_losers_roll_screen_gets_its_buttons_live() -> None:
    """SET-10: Ada's card waits (no flinch, a line saying Bo goes first); when Bo says he is
    done with criticals, her roll screen's socket draws her result card again, the flinch on it."""
    from tests.test_consumers import frames_until, open_socket, sync, up_to

    pair = await database_sync_to_async(Pair)()
    five = {**FINESSE, "bonus": 2}

    def revealed() -> tuple[Contest, int]:
        contest = contests.contest_open(
            campaign=pair.table.campaign,
            opener=pair.table.gm,
            sides=[Side(pair.ada, five), Side(pair.bo, five)],
            intent="a duel",
        )
        ada = roll(contest, 0, pair.table.player, 2, 2, 4, 4, 6)
        roll(contest, 1, pair.second, 5, 5, 4, 4, 1)
        bid(contest, 0, pair.table.player, [0, 1])
        bid(contest, 1, pair.second, [0, 1])
        return contest, ada.pk

    contest, ada = await database_sync_to_async(revealed)()
    last = await database_sync_to_async(
        lambda: LogEntry.objects.order_by("-seq").values_list("seq", flat=True)[0]
    )()
    phone, connected, _ = await open_socket(
        pair.table.campaign.pk, pair.table.player, roll_screen=pair.ada.pk
    )
    try:
        assert connected
        await sync(phone, 0, last)
        await database_sync_to_async(act)(contest, 1, pair.second, "hits_done")
        got = "".join(await frames_until(phone, up_to(last + 1)))
        assert f'id="result-roll-{ada}"' in got
        assert 'value="flinch"' in got and "spends criticals first" not in got
    finally:
        await phone.disconnect()


def test_a_page_behind_by_a_batch_gets_its_side_s_card_before_any_redraw_of_it(pair: Pair) -> None:
    """Bo's roll screen is behind while Ada rolls and bids, Bo rolls (from his other phone) and
    the GM closes the contest: its socket sends it all in one batch. Each redraw of Bo's card
    by id (Ada's bid, the reveal, the verdict) must come after the whole result panel that
    first brings the card there, or it finds nothing to redraw (htmx:oobErrorNoTarget)."""
    contest = duel(pair)
    since = LogEntry.objects.order_by("-seq").values_list("seq", flat=True)[0]
    roll(contest, 0, pair.table.player, 4, 4, 2)
    bid(contest, 0, pair.table.player, [0, 1])
    bo = roll(contest, 1, pair.second, 6, 5, 1)
    contests.contest_close(contest=contest, gm=pair.table.gm)
    membership = Membership.objects.select_related("campaign").get(
        campaign=pair.table.campaign, user=pair.second
    )

    html, _ = feed.render_since(membership, since, result_for=pair.bo.pk)

    card = f'id="result-roll-{bo.pk}"'
    panel = html.index('<section id="result"')
    assert panel < html.index(card), "a redraw of Bo's card came before the panel that brings it"
    assert html.count(card) >= 2  # the verdict's redraw, after the panel
    # Ada's roll is not on Bo's roll screen: no result card of it is sent there.
    ada = side(contest, 0).roll_id
    assert f'id="result-roll-{ada}"' not in html
