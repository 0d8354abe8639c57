"""`sets`: bids, Bars, opposed rolls, criticals and exact odds (no database, seeded dice)."""

from __future__ import annotations

import argparse
import json
import random
from collections import Counter
from fractions import Fraction
from itertools import combinations
from typing import Any

import icepool
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rolls.systems import dice as dice_module
from rolls.systems.base import RulesError, State
from rolls.systems.sets import (
    MAX_POOL,
    Bid,
    SetsRequest,
    best_bid,
    best_bid_distribution,
    compare_bids,
    meets_bar,
    score_bid,
    spending_order,
    system,
)


def state_of(dice: list[int], bar_face_rolled: int | None = None, **request: Any) -> State:
    """A state with hand-picked dice, as ``roll`` would have built it."""
    parsed = system.parse_request({"dice": len(dice), **request})
    step: dict[str, Any] = {"action": "roll", "dice": list(dice)}
    if bar_face_rolled is not None:
        step["bar_face"] = bar_face_rolled
    return {"system": "sets", "request": system.request_dict(parsed), "steps": [step]}


def apply(state: State, action: str, **params: Any) -> State:
    return system.apply(state, action, params, {}, random.Random(0)).state


def actions(state: State) -> list[str]:
    return [follow_up.action for follow_up in system.follow_ups(state, {})]


# -- SET-1, SET-2, SET-11: the pool ---------------------------------------------------------------


def test_set_1_pool_is_stat_plus_bonus_minus_penalty() -> None:
    """SET-1: derived stat + bonus dice - penalty dice."""
    request = system.parse_request({"stat": 4, "bonus": 2, "penalty": 1})
    assert request.dice == 5
    state = system.roll(request, random.Random(1))
    assert len(state["steps"][0]["dice"]) == 5


def test_set_1_only_six_sided_dice() -> None:
    """SET-1: every die is a d6."""
    faces: Counter[int] = Counter()
    rng = random.Random(7)
    for _ in range(200):
        faces.update(system.roll(system.parse_request({"dice": 6}), rng)["steps"][0]["dice"])
    assert set(faces) == {1, 2, 3, 4, 5, 6}


def test_set_1_decide_no_dice_left_is_refused() -> None:
    """SET-1 decide: penalties that leave zero or fewer dice refuse the roll with a clear message."""
    with pytest.raises(RulesError, match="no dice"):
        system.parse_request({"stat": 2, "penalty": 2})
    with pytest.raises(RulesError, match="no dice"):
        system.parse_request({"stat": 1, "penalty": 4})


def test_set_1_pool_is_capped() -> None:
    """SET-1: the table rolls at most MAX_POOL dice."""
    with pytest.raises(RulesError, match=f"most the table rolls is {MAX_POOL}"):
        system.parse_request({"stat": 12, "bonus": 6})
    with pytest.raises(RulesError):
        system.parse_request({"dice": MAX_POOL + 1})
    assert system.parse_request({"dice": MAX_POOL}).dice == MAX_POOL


def test_set_1_a_single_die_rolls_but_never_makes_a_set() -> None:
    """SET-1/SET-3: one die may be rolled; it can never meet a Bar."""
    request = system.parse_request({"dice": 1, "bar_size": 2, "bar_face": 1})
    assert system.outcomes(request) == {"none": 1}
    assert system.chance(request) == 0


def test_set_2_any_derived_stat_and_the_defender_rolls_the_same_request() -> None:
    """SET-2: the engine takes whichever derived stat the Judge names; a defender rolling the
    attacker's stat differs only in losing ties."""
    attacker = system.parse_request({"stat": 3, "opposed": True})
    defender = system.parse_request({"stat": 3, "opposed": True, "attacker": False})
    assert attacker.dice == defender.dice == 3
    assert system.outcomes(attacker) == system.outcomes(defender)
    assert attacker.attacker and not defender.attacker


def test_set_11_decide_assisting() -> None:
    """SET-11 decide: +1 die per significant helper; +1 per full three lesser helpers."""
    assert system.parse_request({"stat": 3, "assists": 2}).dice == 5
    assert system.parse_request({"stat": 3, "lesser_assists": 2}).dice == 3
    assert system.parse_request({"stat": 3, "lesser_assists": 3}).dice == 4
    assert system.parse_request({"stat": 3, "lesser_assists": 5}).dice == 4
    assert system.parse_request({"stat": 3, "lesser_assists": 6}).dice == 5
    assert system.parse_request({"stat": 3, "assists": 1, "lesser_assists": 3}).dice == 5
    with pytest.raises(RulesError, match="Significant helpers"):
        system.parse_request({"stat": 3, "assists": 9})


# -- SET-3, SET-6, SET-7: sets and bids ---------------------------------------------------------


def test_set_3_a_set_is_two_or_more_matching_dice() -> None:
    """SET-3: Size = how many dice, Face = their value."""
    assert score_bid([4, 4]) == Bid(2, 4)
    assert score_bid([6, 6, 6]) == Bid(3, 6)
    assert str(score_bid([2, 2, 2, 2])) == "4x2"


def test_set_3_one_die_is_never_a_set() -> None:
    """SET-3: a lone die, alone or inside a bid, is refused."""
    with pytest.raises(RulesError, match="two or more matching dice"):
        score_bid([5])
    with pytest.raises(RulesError, match="the 3 has no match"):
        score_bid([4, 4, 3])
    assert best_bid([1, 2, 3, 4, 5, 6]) is None


def test_set_6_upgrading_counts_one_more_size_per_extra_set() -> None:
    """SET-6: 3,3,5,5 is Size 3 Face 3; John's 4,5,3,4,5 bids as a trio of 4s."""
    assert score_bid([3, 3, 5, 5]) == Bid(3, 3)
    assert best_bid([4, 5, 3, 4, 5]) == Bid(3, 4)
    assert score_bid([4, 4, 4, 5, 5]) == Bid(4, 4)
    assert score_bid([1, 1, 2, 2, 6, 6]) == Bid(4, 1)
    assert best_bid([2, 2, 2, 6, 6, 6, 1]) == Bid(4, 2)


def test_set_7_decide_one_face_in_a_bid_is_one_set() -> None:
    """SET-7 decide: four matching dice bid together are one set of four, never two pairs."""
    assert score_bid([5, 5, 5, 5]) == Bid(4, 5)


def test_set_7_part_of_a_set_may_be_bid() -> None:
    """SET-7: bid two of a four; the other pair stays for a critical."""
    state = state_of([5, 5, 5, 5, 1], bar_size=2, bar_face=5)
    state = apply(state, "bid", dice=[0, 1])
    assert state["steps"][1]["bid"] == "2x5"
    assert system.evaluate(state).success is True
    assert "critical_effect" in actions(state)
    state = apply(state, "critical_effect", dice="2,3")
    assert state["steps"][2]["bid"] == "2x5"
    assert actions(state) == []


def test_set_6_best_bid_beats_every_other_bid() -> None:
    """SET-6: bidding every set together, whole, is the strongest bid of a roll (brute force)."""
    rng = random.Random(5)
    for _ in range(300):
        roll = [rng.randint(1, 6) for _ in range(rng.randint(1, 8))]
        assert best_bid(roll) == brute_force_best(tuple(sorted(roll)))


def brute_force_best(roll: tuple[int, ...]) -> Bid | None:
    """Independent oracle: try every subset of the dice as a bid and keep the strongest."""
    best: Bid | None = None
    for size in range(2, len(roll) + 1):
        for chosen in combinations(roll, size):
            groups = Counter(chosen)
            if min(groups.values()) < 2:
                continue
            bid = Bid(max(groups.values()) + len(groups) - 1, min(groups))
            if best is None or (bid.size, bid.face) > (best.size, best.face):
                best = bid
    return best


# -- SET-4, SET-10: opposed rolls -----------------------------------------------------------------


def test_set_4_larger_size_then_higher_face_then_the_attacker() -> None:
    """SET-4: Size first, then Face, then the attacker."""
    assert compare_bids(Bid(3, 1), Bid(2, 6)) == "attacker"
    assert compare_bids(Bid(2, 6), Bid(3, 1)) == "defender"
    assert compare_bids(Bid(2, 4), Bid(2, 5)) == "defender"
    assert compare_bids(Bid(2, 5), Bid(2, 4)) == "attacker"
    assert compare_bids(Bid(2, 5), Bid(2, 5)) == "attacker"
    assert compare_bids(None, Bid(2, 1)) == "defender"
    assert compare_bids(Bid(2, 1), None) == "attacker"
    assert compare_bids(None, None) == "attacker"


def test_set_4_opposed_roll_waits_for_the_other_side() -> None:
    """SET-4: an opposed roll has no Bar; after the bid the other side's bid decides it."""
    state = state_of([2, 2, 3, 4, 6], opposed=True)
    assert system.chance(system.parse_request({"dice": 5, "opposed": True})) is None
    bid = system.follow_ups(state, {})[0]
    assert bid.chance_before is None and bid.chance_after is None
    state = apply(state, "bid", dice=[0, 1])
    assert system.evaluate(state).success is None
    assert actions(state) == ["opposition"]
    tied = apply(state, "opposition", size=2, face=2)
    assert system.evaluate(tied).success is True  # ties go to the attacker
    assert "wins against 2x2" in system.evaluate(tied).headline
    lost = apply(state, "opposition", size=2, face=3)
    assert system.evaluate(lost).success is False


def test_set_4_defender_loses_ties() -> None:
    """SET-4: rolled as the defender, an identical bid loses."""
    state = apply(state_of([2, 2, 5], opposed=True, attacker=False), "bid", dice=[0, 1])
    assert system.evaluate(apply(state, "opposition", size=2, face=2)).success is False
    assert system.evaluate(apply(state, "opposition", size=2, face=1)).success is True
    assert system.evaluate(apply(state, "opposition", size=0, face=1)).success is True


def test_set_4_opposition_is_checked() -> None:
    """SET-4: the other side's bid must be a real set, recorded once, after the bid."""
    state = state_of([2, 2, 5], opposed=True)
    with pytest.raises(RulesError, match="Bid a set first"):
        apply(state, "opposition", size=2, face=2)
    state = apply(state, "bid", dice=[0, 1])
    with pytest.raises(RulesError, match="Size of two or more"):
        apply(state, "opposition", size=1, face=2)
    with pytest.raises(RulesError, match="Their Face"):
        apply(state, "opposition", size=2, face=7)
    state = apply(state, "opposition", size=3, face=1)
    with pytest.raises(RulesError, match="recorded already"):
        apply(state, "opposition", size=3, face=1)
    with pytest.raises(RulesError, match="not another side"):
        apply(
            apply(state_of([2, 2], bar_size=2, bar_face=1), "bid", dice=[0, 1]), "opposition", size=2, face=1
        )


def test_set_10_the_winner_spends_further_sets_first() -> None:
    """SET-10: the winner of the comparison bids additional sets first."""
    assert spending_order(Bid(2, 3), Bid(3, 1)) == ("defender", "attacker")
    assert spending_order(Bid(2, 3), Bid(2, 3)) == ("attacker", "defender")
    state = apply(state_of([2, 2, 5, 5], opposed=True), "bid", dice=[0, 1])
    won = apply(state, "opposition", size=2, face=1)
    assert "You spend further sets first." in system.evaluate(won).details
    lost = apply(state, "opposition", size=3, face=1)
    assert "The other side spends further sets first." in system.evaluate(lost).details


def test_set_8_opposed_criticals_wait_for_the_result() -> None:
    """SET-8: in an opposed roll the criticals follow once the result is known."""
    state = apply(state_of([2, 2, 5, 5], opposed=True), "bid", dice=[0, 1])
    with pytest.raises(RulesError, match="Record the other side's bid first"):
        apply(state, "critical_hit", dice=[2, 3])
    won = apply(state, "opposition", size=2, face=1)
    assert actions(won) == ["critical_hit", "critical_effect"]
    lost = apply(state, "opposition", size=4, face=1)
    assert actions(lost) == ["defy_death", "flinch", "clean_break"]


def test_set_8_a_critical_hit_only_for_the_side_that_attacks() -> None:
    """SET-8: a defender who wins its opposed roll is offered no critical hit and cannot buy
    one; a critical effect stays. A roll against a Bar attacks nobody: no critical hit either."""
    defending = apply(state_of([2, 2, 5, 5], opposed=True, attacker=False), "bid", dice=[2, 3])
    won = apply(defending, "opposition", size=2, face=1)
    assert system.evaluate(won).success is True
    assert actions(won) == ["critical_effect"]
    with pytest.raises(RulesError, match="defender who wins"):
        apply(won, "critical_hit", dice=[0, 1])
    assert apply(won, "critical_effect", dice=[0, 1], effect="bonus")["steps"][-1]["effect"] == "bonus"
    bar = apply(state_of([6, 6, 2, 2], bar_size=2, bar_face=1), "bid", dice=[0, 1])
    assert system.evaluate(bar).success is True
    assert actions(bar) == ["critical_effect"]
    with pytest.raises(RulesError, match="Bar attacks nobody"):
        apply(bar, "critical_hit", dice=[2, 3])


# -- SET-5: Bars --------------------------------------------------------------------------------


@pytest.mark.parametrize(("name", "size"), [("apprentice", 2), ("Journeyman", 3), ("MASTER", 4), (3, 3)])
def test_set_5_bar_levels(name: str | int, size: int) -> None:
    """SET-5: Apprentice 2, Journeyman 3, Master 4."""
    assert system.parse_request({"dice": 4, "bar_size": name, "bar_face": 2}).bar_size == size


def test_set_5_bar_levels_are_checked() -> None:
    """SET-5: only the three levels, and a Face 1-6 or rolled."""
    for bad in ({"bar_size": 5}, {"bar_size": "grandmaster"}, {"bar_face": 0}, {"bar_face": "high"}):
        with pytest.raises(RulesError, match="Bar"):
            system.parse_request({"dice": 4, **bad})


def test_set_5_meet_or_beat_the_bar() -> None:
    """SET-5: a matching bid meets the Bar; a lower Face at the same Size does not."""
    bar = Bid(2, 3)
    assert meets_bar(Bid(2, 3), bar)
    assert meets_bar(Bid(2, 6), bar)
    assert not meets_bar(Bid(2, 2), bar)
    assert not meets_bar(None, bar)


def test_set_5_decide_a_larger_size_always_meets_the_bar() -> None:
    """SET-5 decide: a bigger Size meets the Bar whatever the Faces."""
    assert meets_bar(Bid(3, 1), Bid(2, 6))
    assert meets_bar(Bid(5, 1), Bid(4, 6))
    assert not meets_bar(Bid(2, 6), Bid(3, 1))


def test_set_5_wilcott_example() -> None:
    """SET-5: Wilcott spends his pair of 3s against an Apprentice Bar whose Face rolled a 3."""
    state = state_of([3, 1, 3, 6, 5], bar_face_rolled=3, bar_size="apprentice", bar_face="rolled")
    state = apply(state, "bid", dice="0, 2")
    outcome = system.evaluate(state)
    assert outcome.success is True
    assert outcome.headline == "Bid 2x3 meets the Apprentice Bar 2x3"
    assert system.evaluate(state_of([3, 1, 3], bar_face_rolled=4, bar_size=2)).success is None
    assert (
        system.evaluate(apply(state_of([3, 1, 3], bar_face_rolled=4, bar_size=2), "bid", dice=[0, 2])).success
        is False
    )


def test_set_5_rolled_face_comes_from_the_injected_rng() -> None:
    """SET-5: a rolled Face is rolled at roll time by the server and kept in the roll step."""
    request = system.parse_request({"dice": 3, "bar_size": 3, "bar_face": "rolled"})
    assert request.bar_face is None
    rng = random.Random(11)
    state = system.roll(request, rng)
    expected = random.Random(11)
    assert state["steps"][0]["dice"] == [expected.randint(1, 6) for _ in range(3)]
    assert state["steps"][0]["bar_face"] == expected.randint(1, 6)
    assert "The Bar's Face was rolled" in system.view(state)[0].note
    chosen = system.roll(system.parse_request({"dice": 3, "bar_size": 3, "bar_face": 2}), rng)
    assert "bar_face" not in chosen["steps"][0]


def test_set_5_no_set_against_a_bar_fails_at_once() -> None:
    """SET-5/SET-3: without any set no bid can be made: the roll has failed, nothing to do."""
    state = state_of([1, 2, 3, 4], bar_size=2, bar_face=1)
    outcome = system.evaluate(state)
    assert outcome.success is False and outcome.key == "none"
    assert system.follow_ups(state, {}) == []
    with pytest.raises(RulesError, match="no set"):
        apply(state, "bid", dice=[0, 1])


@pytest.mark.parametrize(
    ("attacker", "size", "won", "headline"),
    [
        (True, 2, False, "No set loses to 2x3"),
        (False, 3, False, "No set loses to 3x1"),
        (True, 0, True, "No set wins against no set"),  # a tie: the attacker's
        (False, 0, False, "No set loses to no set"),
    ],
)
def test_set_4_an_opposed_roll_with_no_set_gets_its_verdict(
    attacker: bool, size: int, won: bool, headline: str
) -> None:
    """SET-4, SET-3: with no set there is nothing to bid, yet the other side's bid is recorded
    and decides it: any set wins; no set on either side is a tie, the attacker's."""
    state = state_of([1, 2, 3, 4], opposed=True, attacker=attacker)
    assert system.evaluate(state).success is None
    assert actions(state) == ["opposition"]
    after = apply(state, "opposition", size=size, face=3 if attacker else 1)
    outcome = system.evaluate(after)
    assert (outcome.success, outcome.headline) == (won, headline)
    assert actions(after) == []  # no set left for a critical
    with pytest.raises(RulesError, match=r"^The other side's bid is recorded already\.$"):
        apply(after, "opposition", size=2, face=3)


def test_set_5_no_set_against_a_bar_refuses_the_other_sides_bid() -> None:
    """SET-5: a roll against a Bar has no other side, set or none."""
    with pytest.raises(RulesError, match="no set: it failed against the Bar"):
        apply(state_of([1, 2, 3], bar_size=2, bar_face=1), "opposition", size=2, face=3)


def test_set_3_a_blind_roll_is_bid_unseen_with_its_strongest_bid() -> None:
    """SET-3, SET-6 on a blind roll: the roller cannot see the dice, so "bid your best set"
    spends every set, whole: the bid the odds call the best."""
    state = state_of([4, 5, 3, 4, 5, 1], bar_size=3, bar_face=4)
    (unseen,) = system.blind_follow_ups(state, {})
    assert (unseen.action, unseen.params) == ("bid_best", ())
    after = system.apply(state, "bid_best", {}, {}, random.Random(0)).state
    assert after["steps"][-1] == {
        "action": "bid",
        "dice": [0, 1, 3, 4],
        "faces": [4, 5, 4, 5],
        "bid": "3x4",
        "size": 3,
        "face": 4,
        "unseen": True,
    }
    assert system.evaluate(after).success is True
    assert system.view(after)[-1].title == "Bid 3x4, unseen (a blind roll)"
    # Once bid, criticals pick dice: they are the Judge's, not offered unseen.
    assert system.blind_follow_ups(after, {}) == []
    with pytest.raises(RulesError, match=r"^This roll has been bid already; a roll is bid once\.$"):
        system.apply(after, "bid_best", {}, {}, random.Random(0))


def test_set_4_a_blind_opposed_roll_offers_the_bid_then_the_other_sides_bid() -> None:
    """SET-4 on a blind roll: bidding unseen, then recording the other side, show no die."""
    state = state_of([2, 2, 5], opposed=True)
    assert [f.action for f in system.blind_follow_ups(state, {})] == ["bid_best"]
    after = system.apply(state, "bid_best", {}, {}, random.Random(0)).state
    assert [f.action for f in system.blind_follow_ups(after, {})] == ["opposition"]
    assert [f.action for f in system.blind_follow_ups(state_of([1, 2], opposed=True), {})] == ["opposition"]


# -- bidding ------------------------------------------------------------------------------------


def test_set_6_bid_is_offered_once_after_the_roll_with_exact_chances() -> None:
    """SET-6: the bid comes once; its chances say whether the best bid meets the Bar."""
    state = state_of([4, 5, 3, 4, 5], bar_size=3, bar_face=4)
    (bid,) = system.follow_ups(state, {})
    assert bid.action == "bid"
    assert bid.params[0].multiple and bid.params[0].choices == ("0", "1", "3", "4")
    assert (bid.chance_before, bid.chance_after) == (0, 1)
    state = apply(state, "bid", dice=["0", "1", "3", "4"])
    assert system.evaluate(state).success is True
    assert "bid" not in actions(state)
    with pytest.raises(RulesError, match="bid already"):
        apply(state, "bid", dice=[2])
    higher = state_of([4, 5, 3, 4, 5], bar_size=3, bar_face=5)
    assert system.follow_ups(higher, {})[0].chance_after == 0


@pytest.mark.parametrize(
    ("dice", "match"),
    [
        ([], "Choose the dice"),
        ("", "Choose the dice"),
        (None, "Choose the dice"),
        ([0, 0], "only once"),
        ([0, 9], "5 dice on the card"),
        ([-1, 0], "5 dice on the card"),
        (["a", "b"], "numbers on the card"),
        ([True, False], "numbers on the card"),
        ({"0": 1}, "Choose the dice"),
        ([0, 2], "has no match"),
        ([4], "two or more"),
    ],
)
def test_set_3_bad_bids_are_refused(dice: Any, match: str) -> None:
    """SET-3: a bid must name real, unspent dice that form sets."""
    state = state_of([4, 5, 3, 4, 5], bar_size=2, bar_face=1)
    with pytest.raises(RulesError, match=match):
        apply(state, "bid", dice=dice)


def test_unknown_follow_up_and_foreign_state_are_refused() -> None:
    state = state_of([4, 4], bar_size=2, bar_face=1)
    with pytest.raises(RulesError, match="not a follow-up"):
        apply(state, "push")
    with pytest.raises(RulesError, match="another dice system"):
        apply({**state, "system": "stars"}, "bid", dice=[0, 1])


def test_apply_never_mutates_the_state() -> None:
    state = state_of([4, 4, 2, 2], bar_size=2, bar_face=1)
    frozen = json.dumps(state)
    after = apply(state, "bid", dice=[0, 1])
    apply(after, "critical_effect", dice=[2, 3], effect="bonus")
    assert json.dumps(state) == frozen
    assert len(after["steps"]) == 2


# -- SET-8, SET-9: criticals --------------------------------------------------------------------


def test_set_8_criticals_improve_a_success() -> None:
    """SET-8: after the attacker's winning bid, further sets buy critical hits and effects."""
    state = apply(state_of([6, 6, 2, 2, 3, 3, 1], opposed=True), "bid", dice=[0, 1])
    state = apply(state, "opposition", size=2, face=5)
    assert actions(state) == ["critical_hit", "critical_effect"]
    effect = next(f for f in system.follow_ups(state, {}) if f.action == "critical_effect")
    assert [p.name for p in effect.params] == ["dice", "effect"]
    assert effect.chance_before is None
    state = apply(state, "critical_hit", dice=[2, 3])
    state = apply(state, "critical_effect", dice=[4, 5], effect="penalty")
    outcome = system.evaluate(state)
    assert outcome.success is True
    assert "Critical hit with 2x2." in outcome.details
    assert "Critical effect with 2x3 (a one-die penalty on a later roll)." in outcome.details
    assert actions(state) == []  # the lone 1 is no set


def test_set_8_critical_hits_repeat_and_effect_is_checked() -> None:
    """SET-8: critical hits may be bought again with further sets; an effect is bonus, penalty or none."""
    state = apply(state_of([6, 6, 2, 2, 3, 3], opposed=True), "bid", dice=[0, 1])
    state = apply(state, "opposition", size=2, face=1)
    state = apply(state, "critical_hit", dice=[2, 3])
    assert "critical_hit" in actions(state)
    with pytest.raises(RulesError, match="bonus die, a penalty die"):
        apply(state, "critical_effect", dice=[4, 5], effect="double")
    plain = apply(state, "critical_effect", dice=[4, 5])
    assert plain["steps"][-1]["effect"] == "none"


def test_set_8_a_critical_spends_one_set_of_unspent_dice() -> None:
    """SET-8: one critical, one set: dice of one face, not spent before."""
    state = apply(state_of([6, 6, 2, 2, 3, 3, 3], opposed=True), "bid", dice=[0, 1])
    state = apply(state, "opposition", size=2, face=1)
    with pytest.raises(RulesError, match="one set"):
        apply(state, "critical_hit", dice=[2, 3, 4, 5])
    with pytest.raises(RulesError, match="spent already"):
        apply(state, "critical_hit", dice=[0, 1])
    with pytest.raises(RulesError, match="two or more"):
        apply(state, "critical_hit", dice=[2])
    state = apply(state, "critical_hit", dice=[4, 5, 6])
    assert state["steps"][-1]["bid"] == "3x3"


def test_set_8_no_criticals_before_the_bid_or_against_the_result() -> None:
    """SET-8/SET-9: criticals come after the bid, and only the kind the result allows."""
    state = state_of([6, 6, 2, 2], bar_size=2, bar_face=3)
    with pytest.raises(RulesError, match="Bid a set first"):
        apply(state, "critical_hit", dice=[0, 1])
    won = apply(state, "bid", dice=[0, 1])
    with pytest.raises(RulesError, match="softens a failure"):
        apply(won, "flinch", dice=[2, 3])
    lost = apply(state, "bid", dice=[2, 3])
    with pytest.raises(RulesError, match="improves a success"):
        apply(lost, "critical_hit", dice=[0, 1])


def test_set_9_criticals_soften_a_failure() -> None:
    """SET-9: a failed bid leaves sets for defy death, flinch and clean break."""
    state = apply(state_of([2, 2, 3, 3, 4, 4, 5, 5, 6, 6], bar_size=4, bar_face=1), "bid", dice=[0, 1])
    assert system.evaluate(state).success is False
    assert actions(state) == ["defy_death", "flinch", "clean_break"]
    state = apply(state, "flinch", dice=[2, 3])
    state = apply(state, "flinch", dice=[4, 5])
    assert "Incoming damage reduced by 2." in system.evaluate(state).details
    state = apply(state, "defy_death", dice=[6, 7])
    assert actions(state) == ["flinch", "clean_break"]


def test_set_9_decide_defy_death_and_clean_break_once_per_roll() -> None:
    """SET-9 decide: defy death and clean break are bought once per roll; flinch may repeat."""
    state = apply(state_of([2, 2, 3, 3, 4, 4, 5, 5, 6, 6], bar_size=4, bar_face=1), "bid", dice=[0, 1])
    state = apply(state, "clean_break", dice=[2, 3])
    with pytest.raises(RulesError, match="Clean break has been chosen already"):
        apply(state, "clean_break", dice=[4, 5])
    assert actions(state) == ["defy_death", "flinch"]


def test_set_9_no_set_left_no_critical() -> None:
    """SET-9: when every set is spent, nothing more is offered."""
    state = apply(state_of([2, 2, 3], bar_size=3, bar_face=1), "bid", dice=[0, 1])
    assert system.evaluate(state).success is False
    assert system.follow_ups(state, {}) == []
    with pytest.raises(RulesError, match="No unspent set"):
        apply(state, "flinch", dice=[0, 1])


# -- evaluate and view --------------------------------------------------------------------------


def test_set_6_outcome_key_is_the_best_bid_with_every_set_together() -> None:
    """SET-6: the result key bids every set together, whatever was actually bid."""
    state = state_of([3, 3, 5, 5, 1], bar_size=2, bar_face=1)
    assert system.evaluate(state).key == "3x3"
    assert system.evaluate(state).margin == 2  # two sets still to spend
    state = apply(state, "bid", dice=[2, 3])
    assert system.evaluate(state).key == "3x3"
    assert system.evaluate(state).margin == 1
    assert system.evaluate(state_of([1, 2, 3], bar_size=2, bar_face=1)).key == "none"


def test_view_marks_sets_and_spent_dice() -> None:
    state = state_of([3, 3, 5, 5, 1], bar_size=2, bar_face=4)
    state = apply(state, "bid", dice=[2, 3])
    state = apply(state, "critical_effect", dice=[0, 1], effect="bonus")
    roll, bid, effect = system.view(state)
    assert roll.title == "Rolled 5 dice against the Apprentice Bar 2x4"
    assert [d.hit for d in roll.dice] == [True, True, True, True, False]
    assert [d.label for d in roll.dice] == ["effect", "effect", "bid", "bid", ""]
    assert all(d.new for d in roll.dice)
    assert bid.title == "Bid 2x5" and bid.note == "Success."
    assert [d.face for d in bid.dice] == [5, 5]
    assert effect.action == "critical_effect"
    assert effect.note == "A one-die bonus on a later roll."


def test_state_round_trips_through_json() -> None:
    state = system.roll(system.parse_request({"stat": 6, "bar_size": 2}), random.Random(3))
    assert json.loads(json.dumps(state)) == state
    request = system.parse_request({"stat": 6, "bonus": 1, "penalty": 2, "bar_size": 3, "bar_face": 4})
    assert system.parse_request(system.request_dict(request)) == request


# -- exact odds ---------------------------------------------------------------------------------


def test_set_3_hand_computed_distributions() -> None:
    """SET-3: two dice: a pair 1/6 (1/36 per face); three dice: no set 5/9, a trio 1/216 per face."""
    two = system.outcomes(SetsRequest(2))
    assert two["none"] == Fraction(5, 6)
    assert all(two[f"2x{face}"] == Fraction(1, 36) for face in range(1, 7))
    three = system.outcomes(SetsRequest(3))
    assert three["none"] == Fraction(5, 9)
    assert three["2x4"] == Fraction(15, 216)
    assert three["3x6"] == Fraction(1, 216)
    # Four dice, two pairs 1,1,2,2 upgrade to 3x1: 4!/(2!2!) = 6 orders of 1296.
    four = system.outcomes(SetsRequest(4))
    assert four["3x1"] == Fraction(6 * 5 + 4 * 5, 1296)  # two pairs with a 1 + a trio of 1s with another die


def test_set_5_hand_computed_chances() -> None:
    """SET-5: two dice against an Apprentice Bar of Face 4 need a pair of 4, 5 or 6."""
    assert system.chance(system.parse_request({"dice": 2, "bar_size": 2, "bar_face": 4})) == Fraction(3, 36)
    # A rolled Face: the average over the six Faces of (7 - face)/36.
    assert system.chance(system.parse_request({"dice": 2, "bar_size": 2, "bar_face": "rolled"})) == Fraction(
        7, 72
    )
    assert system.chance(system.parse_request({"dice": 3, "bar_size": 4, "bar_face": 1})) == 0


def icepool_best_bids(n: int) -> dict[str, Fraction]:
    """Independent oracle: icepool enumerates the rolls; brute force finds the best bid."""
    die = icepool.map(lambda roll: str(brute_force_best(tuple(roll)) or "none"), icepool.d6.pool(n).expand())
    return {outcome: Fraction(die.quantity(outcome), die.denominator()) for outcome in die.outcomes()}


@pytest.mark.parametrize("n", [1, 2, 3, 4, 5, 6, 7])
def test_set_6_outcomes_match_icepool(n: int) -> None:
    """SET-6: the exact distribution of the best bid agrees with icepool."""
    ours = system.outcomes(SetsRequest(n))
    assert ours == icepool_best_bids(n)
    assert sum(ours.values()) == 1


@pytest.mark.parametrize("n", [8, 10, 12, MAX_POOL])
def test_set_6_outcomes_match_multiset_enumeration(n: int) -> None:
    """SET-6: for big pools, the walk over faces agrees with plain multiset enumeration."""

    def key(counts: tuple[int, ...]) -> Bid | None:
        sets = {face: count for face, count in enumerate(counts, start=1) if count >= 2}
        return Bid(max(sets.values()) + len(sets) - 1, min(sets)) if sets else None

    assert best_bid_distribution(n) == dice_module.distribution(n, key)


@pytest.mark.parametrize(("size", "face"), [(2, 1), (2, 6), (3, 3), (4, 5)])
def test_set_5_chance_matches_icepool(size: int, face: int) -> None:
    """SET-5: the chance of meeting a Bar agrees with icepool's enumeration."""
    oracle = icepool.map(
        lambda roll: (lambda best: best is not None and (best.size, best.face) >= (size, face))(
            brute_force_best(tuple(roll))
        ),
        icepool.d6.pool(6).expand(),
    )
    expected = Fraction(oracle.quantity(True), oracle.denominator())
    assert system.chance(system.parse_request({"dice": 6, "bar_size": size, "bar_face": face})) == expected


# -- command line -------------------------------------------------------------------------------


def cli(*args: str) -> SetsRequest:
    parser = argparse.ArgumentParser()
    system.add_cli_arguments(parser)
    return system.request_from_cli(parser.parse_args(list(args)))


def test_set_5_cli_bar() -> None:
    """SET-5: --bar SIZE FACE, in numbers or level names, FACE rolled allowed."""
    assert cli("--dice", "5", "--bar", "journeyman", "4") == SetsRequest(5, bar_size=3, bar_face=4)
    assert cli("--dice", "5", "--bar", "2", "rolled") == SetsRequest(5, bar_size=2, bar_face=None)
    assert cli("--dice", "3").opposed
    assert cli("--dice", "3", "--defender").attacker is False
    with pytest.raises(RulesError):
        cli("--dice", "0")
    with pytest.raises(RulesError):
        cli("--dice", "4", "--bar", "legend", "4")
    assert set(system.cli_extra_odds(cli("--dice", "4"))) == {
        "any set",
        "Apprentice Bar, rolled Face",
        "Journeyman Bar, rolled Face",
        "Master Bar, rolled Face",
    }


# -- every request: valid ones roll, invalid ones are refused ------------------------------------

values = st.one_of(
    st.integers(-3, 25),
    st.sampled_from(["apprentice", "Master", "rolled", "opposed", "yes", "off", "3", "x", ""]),
    st.none(),
    st.booleans(),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=4),
    st.lists(st.integers(0, 3), max_size=2),
)
keys = st.sampled_from(
    [
        "dice",
        "stat",
        "bonus",
        "penalty",
        "assists",
        "lesser_assists",
        "bar_size",
        "bar_face",
        "opposed",
        "attacker",
    ]
)

# Mostly sensible form fields, so that many requests are valid and get played through.
plausible = st.fixed_dictionaries(
    {},
    optional={
        "dice": st.integers(-1, MAX_POOL + 2),
        "stat": st.one_of(st.integers(-1, 16), st.just("")),
        "bonus": st.integers(-1, 11),
        "penalty": st.integers(0, 16),
        "assists": st.integers(0, 6),
        "lesser_assists": st.integers(0, 16),
        "bar_size": st.sampled_from([2, 3, 4, 5, "apprentice", "journeyman", "master", "4", ""]),
        "bar_face": st.sampled_from([None, 0, 1, 3, 6, 7, "rolled", "2", ""]),
        "opposed": st.sampled_from([True, False, "on", ""]),
        "attacker": st.booleans(),
    },
)


@settings(max_examples=400, suppress_health_check=[HealthCheck.too_slow])
@given(
    data=st.one_of(st.dictionaries(keys, values, max_size=6), plausible, plausible, plausible),
    seed=st.integers(0, 2**16),
    plays=st.data(),
)
def test_every_request_rolls_or_is_refused(data: dict[str, Any], seed: int, plays: st.DataObject) -> None:
    try:
        request = system.parse_request(data)
    except RulesError as error:
        assert str(error).endswith(".")
        return
    assert 1 <= request.dice <= MAX_POOL
    assert system.parse_request(system.request_dict(request)) == request
    rng = random.Random(seed)
    state = system.roll(request, rng)
    assert sum(system.outcomes(request).values()) == 1
    for _ in range(8):
        outcome = system.evaluate(state)
        assert outcome.key in system.outcomes(request)
        assert system.view(state)
        follow_ups = system.follow_ups(state, {})
        if not follow_ups:
            break
        # Junk parameters are refused with a rules error, never another exception.
        junk = plays.draw(
            st.dictionaries(st.sampled_from(["dice", "size", "face", "effect"]), values, max_size=3)
        )
        try:
            system.apply(
                state, plays.draw(st.sampled_from([f.action for f in follow_ups] + ["nope"])), junk, {}, rng
            )
        except RulesError:
            pass
        follow_up = plays.draw(st.sampled_from(follow_ups))
        state = system.apply(state, follow_up.action, valid_params(state, follow_up, plays), {}, rng).state


def valid_params(state: State, follow_up: Any, plays: st.DataObject) -> dict[str, Any]:
    if follow_up.action == "opposition":
        return {"size": plays.draw(st.sampled_from([0, 2, 3, 5])), "face": plays.draw(st.integers(1, 6))}
    if not follow_up.params:
        return {}  # the Judge's call on help (SET-11)
    dice = state["steps"][0]["dice"]
    choices = [int(choice) for choice in follow_up.params[0].choices]
    face = plays.draw(st.sampled_from(sorted({dice[i] for i in choices})))
    chosen = [i for i in choices if dice[i] == face]
    params: dict[str, Any] = {"dice": ",".join(map(str, chosen))}
    if follow_up.action == "critical_effect":
        params["effect"] = plays.draw(st.sampled_from(["none", "bonus", "penalty"]))
    return params


def test_set_8_the_bid_offered_first_keeps_the_most_sets_for_criticals() -> None:
    """SET-7, SET-8, SET-9: ``usual_bid`` against a Bar meets it with the fewest sets spent:
    3 3 1 1 6 5 against 2x3 bids 2x3 (the 1s kept), 6 6 6 5 5 against 3x1 bids the three 6s
    (the 5s kept); one that fails anyway spends one small pair; opposed bids everything."""
    from rolls.systems.sets import usual_bid

    assert usual_bid(state_of([3, 3, 1, 1, 6, 5], bar_size=2, bar_face=3)) == [0, 1]
    assert usual_bid(state_of([6, 6, 6, 5, 5], bar_size=3, bar_face=1)) == [0, 1, 2]
    assert usual_bid(state_of([3, 3, 1, 1, 6, 5], bar_size=4, bar_face=1)) == [2, 3]
    assert usual_bid(state_of([3, 3, 1, 1, 6, 5], opposed=True)) == [0, 1, 2, 3]
    bid = next(f for f in system.follow_ups(state_of([3, 3, 1, 1, 6, 5], bar_size=2, bar_face=3), {}))
    assert bid.suggested == ("0", "1")


def test_set_11_help_waits_for_the_judge_who_counts_it_or_strikes_its_dice() -> None:
    """SET-11: a roll naming help (one significant helper, three lesser ones) waits: nothing
    but the Judge's call is offered, and only to the GM. Counted, the pool stands; struck, the
    helpers' dice (the last two) are spent and count for nothing."""
    state = state_of([4, 4, 1, 2, 6, 6], bar_size=2, bar_face=5, stat=4, assists=1, lesser_assists=3)
    assert system.help_dice(state) == 2
    offered = system.follow_ups(state, {})
    assert [(f.action, f.gm_only) for f in offered] == [("help_counts", True), ("help_struck", True)]
    assert system.may_await_gm(state) and system.evaluate(state).success is None
    assert "Waiting for the Judge" in system.evaluate(state).headline
    with pytest.raises(RulesError, match="whether the help counts"):
        apply(state, "bid", dice=[4, 5])
    counted = apply(state, "help_counts")
    assert actions(counted) == ["bid"] and not system.may_await_gm(counted)
    assert apply(counted, "bid", dice=[4, 5])["steps"][-1]["bid"] == "2x6"
    with pytest.raises(RulesError, match="ruled on this roll's help already"):
        apply(counted, "help_struck")
    struck = apply(state, "help_struck")
    assert struck["steps"][-1]["dice"] == [4, 5]
    assert system.evaluate(struck).headline.startswith("Best bid 2x4")
    with pytest.raises(RulesError, match="spent already"):
        apply(struck, "bid", dice=[4, 5])
    assert apply(struck, "bid", dice=[0, 1])["steps"][-1]["bid"] == "2x4"
    alone = state_of([4, 4, 1], bar_size=2, bar_face=1, stat=3, lesser_assists=2)
    assert actions(alone) == ["bid"]  # two lesser helpers give nothing: nothing to rule on


def test_set_11_help_struck_from_a_pool_penalties_cut_below_the_help_strikes_every_die_left() -> None:
    """SET-11: three helpers' dice, eight dice of penalty: the one die left is the help's, and
    striking the help strikes it (found by the property test above)."""
    request = system.parse_request(
        {"dice": 0, "attacker": False, "opposed": True, "stat": 6, "bar_size": 2, "assists": 3, "penalty": 8}
    )
    state = system.roll(request, random.Random(0))
    struck = system.apply(state, "help_struck", {}, {}, random.Random(0)).state
    step = struck["steps"][-1]
    assert step["action"] == "help_struck"
    # Every die there is, from the first: fewer dice than the help added were left.
    assert step["faces"] and step["dice"] == list(range(len(step["faces"])))
