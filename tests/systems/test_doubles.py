"""`doubles`: the best die or the best group added up. Each test names its rule (DBL-n)."""

from __future__ import annotations

import argparse
import ast
import inspect
import itertools
import json
import random
from collections.abc import Sequence
from fractions import Fraction
from typing import Any

import icepool
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from rolls.systems import doubles
from rolls.systems.base import Outcome, RulesError, State, percent
from rolls.systems.dice import distribution
from rolls.systems.doubles import Doubles, DoublesRequest, ExtendedAction, opposed
from tests.dice import ScriptedDice

system = doubles.system
PLENTY = {"endurance": 100}


def request(**data: Any) -> DoublesRequest:
    return system.parse_request(data)


def state_with(dice: list[int], net: int | None = None, **data: Any) -> State:
    """A state built by hand: one roll of ``dice`` for a pool of ``net`` (default: as many dice)."""
    data.setdefault("dice", len(dice) if net is None else net)
    made = request(**data)
    assert len(dice) == doubles.rolled_dice(made.net)
    return {
        "system": "doubles",
        "request": system.request_dict(made),
        "steps": [{"action": "roll", "net": made.net, "dice": dice}],
    }


def outcome(dice: list[int], net: int | None = None, **data: Any) -> Outcome:
    return system.evaluate(state_with(dice, net, **data))


def actions(state: State, resources: dict[str, Any]) -> list[str]:
    return [follow.action for follow in system.follow_ups(state, resources)]


# An independent reading of the dice, written from the rules, for the oracles below.
def oracle_value(dice: Sequence[int]) -> int:
    best = max(dice)  # DBL-4: the highest die...
    for face in set(dice):
        if face != 1 and dice.count(face) >= 2:  # DBL-5: ...or a group (never of ones)
            best = max(best, face * dice.count(face))
    return best


def oracle_negative(dice: Sequence[int], keep: int) -> int:
    """The lowest of the ``keep`` highest dice (DBL-6, with drama dice on top)."""
    return sorted(dice)[-keep]


def icepool_result(net: int, extra: int = 0) -> dict[int, Fraction]:
    if net >= 1:
        die = icepool.d6.pool(net + extra).expand().map(oracle_value, star=False)
    else:
        keep = 2 - net
        die = icepool.d6.pool(keep + extra).expand().map(lambda dice: oracle_negative(dice, keep), star=False)
    return {value: die.probability(value) for value in die.outcomes()}


# -- the module ---------------------------------------------------------------------------------


def test_it_exposes_a_system_instance() -> None:
    assert isinstance(system, Doubles)
    assert system.slug == "doubles"


def test_it_never_uses_the_random_module() -> None:
    tree = ast.parse(inspect.getsource(doubles))
    imported = {alias.name for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names}
    imported |= {node.module or "" for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
    assert "random" not in imported
    assert not any(name.startswith("django") for name in imported)


def test_the_docstring_opens_with_the_rules_choices() -> None:
    doc = doubles.__doc__ or ""
    assert "Rules choices" in doc
    for topic in ("A tie does not beat", "Drama dice on negative dice", "Catastrophe", "Miracles"):
        assert topic in doc


# -- the pool -----------------------------------------------------------------------------------


def test_dbl_1_the_basic_pool_is_two_dice() -> None:
    """DBL-1: with nothing else, two dice."""
    made = request(dn=4)
    assert made.net == 2
    assert len(system.roll(made, random.Random(1))["steps"][0]["dice"]) == 2


def test_dbl_2_abilities_add_their_levels() -> None:
    """DBL-2: each relevant Ability adds its level; several add together; the GM adds bonuses."""
    assert request(abilities=[2]).net == 4
    assert request(abilities=[2, 1, 3]).net == 8
    assert request(abilities="2, 1").net == 5
    assert request(abilities=[2], bonus=2).net == 6


def test_dbl_2_a_single_number_is_the_abilities_total() -> None:
    """DBL-2: one number stands for the total of the Abilities, beyond one Ability's level."""
    made = request(abilities=9)
    assert made.net == 11
    assert system.parse_request(json.loads(json.dumps(system.request_dict(made)))) == made


def test_dbl_3_weaknesses_and_penalties_remove_dice() -> None:
    """DBL-3: Weaknesses and situational penalties take dice away."""
    assert request(abilities=[3], weaknesses=[1], penalty=1).net == 3
    assert request(weaknesses=[2, 1]).net == -1


def test_dbl_14_each_helper_adds_one_die() -> None:
    """DBL-14: the leader rolls their own dice plus one per helper."""
    assert request(abilities=[2], helpers=3).net == 7
    assert request(weaknesses=[3], helpers=1).net == 0


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"abilities": [7, 1]}, "Each Ability level must be between 0 and 6"),
        ({"abilities": [1] * 7}, "At most 6 Ability levels"),
        ({"abilities": "two"}, "whole number"),
        ({"bonus": 11}, "Bonus dice must be between 0 and 10"),
        ({"helpers": -1}, "Helpers must be between 0 and 6"),
        ({"abilities": [6, 6, 6], "bonus": 10}, "at most 20 dice"),
        ({"weaknesses": [6, 6], "penalty": 2}, "the table stops at -8"),
        ({"dice": 21}, "between -8 and 20"),
        ({"dice": 3, "abilities": [1]}, "not both"),
        ({"dn": 7}, "Difficulty Number must be one of"),
        ({"dn": "hard"}, "Difficulty Number must be one of"),
        ({"dn": True}, "Difficulty Number must be one of"),
        ({"degree_matters": "maybe"}, "yes or no"),
    ],
)
def test_impossible_requests_are_refused(data: dict[str, Any], message: str) -> None:
    with pytest.raises(RulesError, match=message):
        system.parse_request(data)


@pytest.mark.parametrize(
    ("raw", "dn"),
    [
        ("Easy", 2),
        ("moderate", 4),
        ("CHALLENGING", 6),
        (8, 8),
        ("10", 10),
        ("Very Difficult", 10),
        ("very_difficult", 10),
        ("nigh-impossible", 12),
        (12.0, 12),
        (None, None),
        ("", None),
        ("none", None),
        ("opposed", None),
    ],
)
def test_dbl_7_difficulty_numbers_by_number_or_name(raw: Any, dn: int | None) -> None:
    """DBL-7: Easy 2, Moderate 4, Challenging 6, Difficult 8, Very Difficult 10, Nigh Impossible 12."""
    assert request(dn=raw).dn == dn


# -- reading the dice ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("dice", "result"),
    [
        ([3, 5], 5),  # the highest die
        ([4, 4], 8),  # a double adds up
        ([6, 3, 3], 6),  # a double no higher than the best die
        ([2, 2, 2, 5], 6),  # triples add too
        ([5, 5, 5, 6], 15),
        ([4, 4, 6, 6, 6, 6], 24),  # the best group, not every group
        ([3, 3, 4, 4], 8),
    ],
)
def test_dbl_4_highest_die_or_best_group(dice: list[int], result: int) -> None:
    """DBL-4: the highest die, or a group of matching dice added up when that is higher."""
    assert outcome(dice).key == str(result)


def test_dbl_5_ones_never_add() -> None:
    """DBL-5: a group of ones is worth 1."""
    assert outcome([1, 1, 3]).key == "3"
    assert outcome([1, 1, 1, 1]).key == "1"
    assert doubles.face_value(1, 5) == 1


def test_dbl_6_zero_dice_keeps_the_lowest_of_two() -> None:
    """DBL-6: at zero dice, roll two and keep the lowest."""
    made = request(dice=0)
    assert len(system.roll(made, random.Random(5))["steps"][0]["dice"]) == 2
    assert outcome([5, 3], net=0).key == "3"


def test_dbl_6_one_more_die_for_each_step_below_zero() -> None:
    """DBL-6: -1 rolls three, -2 four... and keeps the lowest."""
    for net in (-1, -2, -5, -8):
        assert len(system.roll(request(dice=net), random.Random(net))["steps"][0]["dice"]) == 2 - net
    assert outcome([6, 2, 5], net=-1).key == "2"


def test_dbl_6_duplicates_never_add_on_negative_dice() -> None:
    """DBL-6: a double on negative dice is just the lowest die."""
    assert outcome([6, 6], net=0).key == "6"
    assert outcome([4, 4, 4], net=-1).key == "4"


def test_dbl_6_the_view_drops_every_die_but_the_kept_one() -> None:
    """DBL-6: the card shows the kept (lowest) die and the dropped ones."""
    (step,) = system.view(state_with([6, 2, 5], net=-1))
    assert [(d.face, d.hit, d.dropped) for d in step.dice] == [
        (6, False, True),
        (2, True, False),
        (5, False, True),
    ]
    assert step.title == "Rolled 3 negative dice (-1), keeping the lowest"


def test_dbl_4_the_view_marks_the_dice_that_make_the_result() -> None:
    """DBL-4: the group (or the single best die) is what counts."""
    (step,) = system.view(state_with([3, 5, 5, 2]))
    assert [d.hit for d in step.dice] == [False, True, True, False]
    (step,) = system.view(state_with([3, 6, 2]))
    assert [d.hit for d in step.dice] == [False, True, False]


def test_dbl_7_decide_a_tie_does_not_beat_the_difficulty() -> None:
    """DBL-7 (decided): the result must be higher than the Difficulty Number; equal fails."""
    tie = outcome([6, 3], dn="Challenging")
    assert (tie.success, tie.tone, tie.margin) == (False, "failure", 0)
    assert tie.headline == "Result 6 does not beat Challenging (6)"
    above = outcome([4, 4], dn=6)
    assert (above.success, above.tone, above.margin) == (True, "success", 2)
    assert above.headline == "Result 8 beats Challenging (6)"


def test_dbl_7_an_opposed_roll_has_nothing_to_meet_yet() -> None:
    """DBL-7: with no Difficulty Number, the result waits for the other side."""
    result = outcome([5, 2])
    assert result.success is None
    assert result.tone == "neutral"
    assert system.chance(request(dice=2)) is None


def test_dbl_7_decide_equal_opposed_results_are_a_standoff() -> None:
    """DBL-7 (decided): neither side beats an equal result."""
    tie = opposed(8, 8)
    assert (tie.winner, tie.margin, tie.complication) == (None, 0, False)
    win = opposed(9, 6)
    assert (win.winner, win.margin) == ("a", 3)
    assert opposed(4, 10).winner == "b"


def test_dbl_8_above_twelve_is_an_amazing_success() -> None:
    """DBL-8: a result above the highest Difficulty Number (12) is amazing."""
    amazing = outcome([5, 5, 5], dn=8)
    assert (amazing.success, amazing.tone, amazing.key) == (True, "amazing", "15")
    assert amazing.headline == "Amazing Success! Result 15 against Difficult (8)"
    twelve = outcome([6, 6], dn=10)
    assert twelve.tone == "success"
    assert outcome([5, 5, 5]).tone == "amazing"  # opposed rolls too


def test_dbl_9_an_amazing_winner_inflicts_a_complication() -> None:
    """DBL-9: amazing against an opponent who is not lets the winner inflict a Complication."""
    result = opposed(15, 8)
    assert (result.winner, result.complication) == ("a", True)
    assert "Complication" in result.note
    assert opposed(8, 18).complication is True
    assert opposed(18, 15).complication is False  # both amazing
    assert opposed(12, 8).complication is False
    assert "Complication" in " ".join(outcome([6, 6, 6]).details)


def test_dbl_9_opposed_results_must_be_real_results() -> None:
    """DBL-9: the results compared are results of rolls (at least 1)."""
    with pytest.raises(RulesError):
        opposed(0, 5)
    with pytest.raises(RulesError):
        opposed(True, 5)


def test_dbl_15_all_ones_is_a_catastrophe() -> None:
    """DBL-15: every die a 1 is a catastrophic failure, with any number of dice."""
    for dice in ([1], [1, 1], [1, 1, 1, 1, 1]):
        result = outcome(dice, dn="Easy")
        assert (result.success, result.tone, result.key) == (False, "catastrophe", "1")
        assert result.headline == "Catastrophe! Result 1"
    assert outcome([1, 1, 2], dn="Easy").tone == "failure"
    assert outcome([1, 1]).tone == "catastrophe"  # opposed too


def test_dbl_16_any_one_on_negative_dice_is_a_catastrophe() -> None:
    """DBL-16 (decided): on negative dice any 1 rolled (so the kept die is 1) is a catastrophe."""
    assert outcome([1, 6], net=0, dn=2).tone == "catastrophe"
    assert outcome([6, 6, 1, 5], net=-2).tone == "catastrophe"
    assert outcome([2, 6, 6], net=-1, dn=2).tone == "failure"
    assert outcome([1, 5], net=2).tone != "catastrophe"  # positive pools need all ones


def test_dbl_12_a_declaration_is_noted() -> None:
    """DBL-12: a successful declaration becomes something the character can explicitly do."""
    won = outcome([5, 5], dn=6, declaration=True)
    assert "Declaration: it is now something the character can explicitly do." in won.details
    lost = outcome([2, 5], dn=6, declaration=True)
    assert "Declaration: it does not hold." in lost.details
    assert not any("Declaration" in line for line in outcome([5, 5], dn=6).details)


def test_dbl_13_extended_action_is_won_by_enough_successes() -> None:
    """DBL-13: a number of successes to reach before a number of failures."""
    action = ExtendedAction(dn=6, successes_needed=3, failures_allowed=2)
    action = action.record(True).record(False).record_result(8)
    assert (action.successes, action.failures, action.status) == (2, 1, "going")
    action = action.record_result(7)
    assert action.status == "won"
    with pytest.raises(RulesError, match="over"):
        action.record(True)


def test_dbl_13_extended_action_is_lost_by_too_many_failures() -> None:
    """DBL-13: reaching the failures ends it; a tie with the Difficulty Number is a failure."""
    action = ExtendedAction(dn=8, successes_needed=4, failures_allowed=2)
    first = action.record_result(8)
    assert (first.failures, action.failures) == (1, 0)  # immutable
    assert first.record_result(3).status == "lost"
    with pytest.raises(RulesError):
        ExtendedAction(dn=7, successes_needed=1, failures_allowed=1)
    with pytest.raises(RulesError):
        ExtendedAction(dn=6, successes_needed=0, failures_allowed=1)


# -- drama dice ---------------------------------------------------------------------------------


def test_dbl_10_drama_dice_cost_five_endurance_each_after_the_roll() -> None:
    """DBL-10: every 5 Endurance buys one more die, even after the roll."""
    state = state_with([3, 2], dn=6)
    (drama, *_) = system.follow_ups(state, {"endurance": 17})
    assert drama.action == "drama"
    assert drama.params[0].maximum == 3
    applied = system.apply(state, "drama", {"count": 2}, {"endurance": 17}, ScriptedDice(3, 6))
    assert applied.costs == {"endurance": 10, "drama": 10}
    assert applied.state["steps"][-1] == {"action": "drama", "dice": [3, 6]}
    assert system.evaluate(applied.state).key == "6"  # 3-3 joins up to 6; still does not beat 6
    assert state["steps"] == [{"action": "roll", "net": 2, "dice": [3, 2]}]  # untouched


def test_dbl_10_drama_dice_can_make_a_new_group() -> None:
    """DBL-10, DBL-4: a drama die that matches adds up with its group."""
    state = state_with([4, 2], dn=6)
    after = system.apply(state, "drama", {"count": 1}, PLENTY, ScriptedDice(4)).state
    result = system.evaluate(after)
    assert (result.key, result.success) == ("8", True)
    assert "1 drama die bought." in result.details
    roll, drama = system.view(after)
    assert [(d.face, d.hit, d.new) for d in roll.dice] == [(4, True, False), (2, False, False)]
    assert [(d.face, d.hit, d.new, d.label) for d in drama.dice] == [(4, True, True, "drama")]


def test_dbl_10_drama_dice_may_be_bought_again_while_endurance_lasts() -> None:
    """DBL-10: any number of times, up to ten dice on one roll."""
    state = state_with([2, 3], dn=12)
    for _ in range(3):
        state = system.apply(state, "drama", {"count": 3}, PLENTY, random.Random(1)).state
    (drama, *_) = system.follow_ups(state, PLENTY)
    assert drama.params[0].maximum == 1
    with pytest.raises(RulesError, match="between 1 and 1"):
        system.apply(state, "drama", {"count": 2}, PLENTY, random.Random(1))
    state = system.apply(state, "drama", {"count": 1}, PLENTY, random.Random(1)).state
    assert "drama" not in actions(state, PLENTY)
    with pytest.raises(RulesError, match="at most 10 drama dice"):
        system.apply(state, "drama", {"count": 1}, PLENTY, random.Random(1))


def test_dbl_10_no_drama_dice_without_endurance() -> None:
    """DBL-10: a drama die needs 5 Endurance."""
    state = state_with([2, 3], dn=6)
    assert "drama" not in actions(state, {"endurance": 4})
    assert "drama" not in actions(state, {})
    with pytest.raises(RulesError, match="5 Endurance"):
        system.apply(state, "drama", {"count": 1}, {"endurance": 4}, random.Random(1))
    with pytest.raises(RulesError, match="between 1 and 2"):
        system.apply(state, "drama", {"count": 3}, {"endurance": 14}, random.Random(1))
    with pytest.raises(RulesError, match="between 1 and 2"):
        system.apply(state, "drama", {"count": 0}, {"endurance": 14}, random.Random(1))


def test_dbl_10_dbl_15_a_drama_die_lifts_all_ones() -> None:
    """DBL-10, DBL-15 (decided): the dice are read again, so all ones plus a 3 is a 3."""
    state = state_with([1, 1], dn=2)
    assert system.evaluate(state).tone == "catastrophe"
    after = system.apply(state, "drama", {"count": 1}, PLENTY, ScriptedDice(3)).state
    assert (system.evaluate(after).key, system.evaluate(after).success) == ("3", True)


def test_dbl_10_decide_a_drama_die_on_negative_dice_replaces_the_lowest() -> None:
    """DBL-10 (decided): on negative dice a drama die pushes out the lowest die when higher."""
    state = state_with([1, 5], net=0, dn=2)
    assert system.evaluate(state).tone == "catastrophe"
    better = system.apply(state, "drama", {"count": 1}, PLENTY, ScriptedDice(4)).state
    result = system.evaluate(better)
    assert (result.key, result.tone) == ("4", "success")
    roll, drama = system.view(better)
    assert [(d.face, d.hit, d.dropped) for d in roll.dice] == [(1, False, True), (5, False, True)]
    assert [(d.face, d.hit, d.dropped) for d in drama.dice] == [(4, True, False)]
    worse = system.apply(state, "drama", {"count": 1}, PLENTY, ScriptedDice(1)).state
    assert system.evaluate(worse).tone == "catastrophe"  # a drama die never makes it worse


def test_dbl_10_drama_picker_gives_the_exact_chance_for_each_count() -> None:
    """DBL-10: each number of drama dice on offer shows its own exact chance, given the dice
    rolled; the button itself shows none (one figure would be wrong for every other count)."""
    state = state_with([5, 3], dn=8)
    (drama, *_) = system.follow_ups(state, {"endurance": 15})
    (count,) = drama.params
    assert (drama.chance_before, drama.chance_after) == (Fraction(0), None)
    assert count.choices == ("1", "2", "3")
    chances = system.drama_chances(state, 3)
    # Beating 8 with one more die: a 5 (5+5=10). Nothing else pairs high enough.
    assert chances[1] == Fraction(1, 6)
    assert chances[2] > chances[1]
    assert count.labels == (
        f"1 die: 0% -> {percent(chances[1])}",
        f"2 dice: 0% -> {percent(chances[2])}",
        f"3 dice: 0% -> {percent(chances[3])}",
    )
    assert drama.cost == "5 Endurance per die"
    assert drama.spends


def test_dbl_10_drama_picker_on_a_success_names_the_cost_without_odds() -> None:
    """DBL-10: "100% -> 100%" says nothing; a success buys degree, so the cost is shown."""
    state = state_with([5, 5], dn=8)
    (drama, *_) = system.follow_ups(state, {"endurance": 10})
    assert drama.params[0].labels == ("1 die, 5 Endurance", "2 dice, 10 Endurance")


def test_dbl_10_opposed_drama_picker_names_the_cost_without_odds() -> None:
    """DBL-10: with nothing to beat yet there is no chance to show, only the Endurance."""
    state = state_with([5, 3], dn="opposed")
    (drama, *_) = system.follow_ups(state, {"endurance": 10})
    assert drama.params[0].labels == ("1 die, 5 Endurance", "2 dice, 10 Endurance")


def test_dbl_11_a_miracle_costs_endurance_but_nothing_held_for_the_adventure() -> None:
    """DBL-10, DBL-11: only drama Endurance is marked "drama" (held until a new Adventure);
    a miracle's 30 is plain Endurance, regained the usual way."""
    state = state_with([1, 2], dn=8)
    asked = system.apply(state, "miracle", {}, PLENTY, random.Random(1))
    approved = system.apply(asked.state, "miracle_approve", {}, PLENTY, random.Random(1))
    assert approved.costs == {"endurance": 30}


@pytest.mark.parametrize(
    ("dice", "net", "dn"),
    [([5, 3], 2, 8), ([2, 2, 6], 3, 6), ([6, 6, 4], 3, 12), ([1, 4], 0, 2), ([3, 6, 6], -1, 4), ([1], 1, 6)],
)
def test_dbl_10_drama_chances_match_brute_force(dice: list[int], net: int, dn: int) -> None:
    """DBL-10: the exact chance after one, two or three drama dice, against every ordered roll."""
    state = state_with(dice, net=net, dn=dn)
    chances = system.drama_chances(state, 3)
    for count in (1, 2, 3):
        wins = 0
        for extra in itertools.product(range(1, 7), repeat=count):
            joined = [*dice, *extra]
            value = oracle_value(joined) if net >= 1 else oracle_negative(joined, 2 - net)
            wins += value > dn
        assert chances[count] == Fraction(wins, 6**count)


@pytest.mark.parametrize(("dice", "net", "dn"), [([6, 2, 6], 3, 10), ([1, 5, 3], -1, 2), ([4, 4], 2, 8)])
def test_dbl_10_drama_chances_are_kept_alike_for_every_order_of_the_dice(
    dice: list[int], net: int, dn: int
) -> None:
    """DBL-10: the drama picker's chances are kept per pool and dice on the table: the same
    dice rolled in another order get the same figures, each what the distribution gives."""
    first = system.drama_chances(state_with(dice, net=net, dn=dn), 3)
    for order in itertools.permutations(dice):
        assert system.drama_chances(state_with(list(order), net=net, dn=dn), 3) == first
    for count in (1, 2, 3):
        fresh = doubles.chance_to_beat(doubles.result_distribution(net, count, tuple(dice)), dn)
        assert first[count] == fresh


@pytest.mark.parametrize(("net", "count"), [(1, 1), (2, 2), (4, 3), (0, 1), (-1, 2), (-3, 3)])
def test_dbl_10_chance_with_drama_matches_icepool(net: int, count: int) -> None:
    """DBL-10: planning odds for a fresh roll with drama dice bought on top."""
    made = request(dice=net, dn=4)
    expected = sum((p for value, p in icepool_result(net, count).items() if value > 4), Fraction(0))
    assert system.chance_with_drama(made, count) == expected
    assert system.chance_with_drama(made, 0) == system.chance(made)
    assert system.chance_with_drama(request(dice=net), 1) is None
    with pytest.raises(RulesError):
        system.chance_with_drama(made, 11)


def test_dbl_10_dbl_11_decide_drama_dice_and_miracles_go_on_the_latest_roll_only() -> None:
    """DBL-10, DBL-11 (decided): once the character has rolled again, the earlier action is
    over: no drama die and no miracle on it. A miracle already asked still gets its answer."""
    state = state_with([2, 3], dn=10)
    old = {**PLENTY, "latest": False}
    assert actions(state, old) == []
    assert actions(state, {**PLENTY, "latest": True}) == ["drama", "miracle"]
    for action, params in (("drama", {"count": 1}), ("miracle", {})):
        with pytest.raises(RulesError, match="latest roll only"):
            system.apply(state, action, params, old, random.Random(1))
    asked = system.apply(state, "miracle", {}, PLENTY, random.Random(1)).state
    assert actions(asked, old) == ["miracle_approve", "miracle_refuse"]
    assert system.apply(asked, "miracle_approve", {}, old, random.Random(1)).costs == {"endurance": 30}


# -- miracles -----------------------------------------------------------------------------------


def test_dbl_11_a_miracle_waits_for_the_gm_and_costs_nothing_yet() -> None:
    """DBL-11: asking appends a pending step; the GM alone approves or refuses it."""
    state = state_with([2, 3], dn=10)
    (miracle,) = [f for f in system.follow_ups(state, {"endurance": 30}) if f.action == "miracle"]
    assert (miracle.chance_before, miracle.chance_after, miracle.gm_only) == (0, 1, False)
    asked = system.apply(state, "miracle", {}, {"endurance": 30}, random.Random(1))
    assert asked.costs == {}
    assert asked.state["steps"][-1] == {"action": "miracle"}
    pending = system.follow_ups(asked.state, {"endurance": 30})
    assert [(f.action, f.gm_only) for f in pending] == [("miracle_approve", True), ("miracle_refuse", True)]
    assert "A miracle is asked for: the GM approves or refuses it." in system.evaluate(asked.state).details
    # The GM's waiting panel tells it from the state, without drawing the card.
    assert (system.may_await_gm(state), system.may_await_gm(asked.state)) == (False, True)
    with pytest.raises(RulesError, match="waiting for the GM"):
        system.apply(asked.state, "drama", {"count": 1}, PLENTY, random.Random(1))
    with pytest.raises(RulesError, match="already"):
        system.apply(asked.state, "miracle", {}, PLENTY, random.Random(1))


def test_dbl_11_an_approved_miracle_costs_thirty_and_succeeds_by_one() -> None:
    """DBL-11: 30 Endurance on approval; the action succeeds by at least one, whatever the dice."""
    state = state_with([2, 3], dn=10)
    asked = system.apply(state, "miracle", {}, {"endurance": 30}, random.Random(1)).state
    approved = system.apply(asked, "miracle_approve", {}, {"endurance": 30}, random.Random(1))
    assert approved.costs == {"endurance": 30}
    assert approved.state["steps"][-1] == {"action": "miracle_approve", "dice": []}
    result = system.evaluate(approved.state)
    assert (result.success, result.key, result.margin, result.tone) == (True, "11", 1, "success")
    assert "The dice showed 3; the miracle makes it 11." in result.details
    assert actions(approved.state, PLENTY) == []  # nothing left to improve


def test_dbl_11_when_the_degree_matters_six_dice_join_the_roll() -> None:
    """DBL-11: six dice are added when the degree of success matters, and the dice still count."""
    state = state_with([2, 3], dn=4, degree_matters=True)
    asked = system.apply(state, "miracle", {}, {"endurance": 40}, random.Random(1)).state
    approved = system.apply(
        asked, "miracle_approve", {}, {"endurance": 40}, ScriptedDice(6, 6, 6, 1, 2, 5)
    ).state
    assert approved["steps"][-1] == {"action": "miracle_approve", "dice": [6, 6, 6, 1, 2, 5]}
    result = system.evaluate(approved)
    assert (result.key, result.margin, result.tone) == ("18", 14, "amazing")
    *_, step = system.view(approved)
    assert [d.label for d in step.dice] == ["miracle"] * 6
    assert "drama" in actions(approved, PLENTY)  # more degree can still be bought


def test_dbl_11_a_refused_miracle_leaves_the_dice_and_costs_nothing() -> None:
    """DBL-11: the GM may refuse; the roll stands and cannot ask again."""
    state = state_with([2, 3], dn=10)
    asked = system.apply(state, "miracle", {}, {"endurance": 30}, random.Random(1)).state
    refused = system.apply(asked, "miracle_refuse", {}, {"endurance": 30}, random.Random(1))
    assert refused.costs == {}
    result = system.evaluate(refused.state)
    assert (result.success, result.key) == (False, "3")
    assert actions(refused.state, PLENTY) == ["drama"]
    with pytest.raises(RulesError, match="already"):
        system.apply(refused.state, "miracle", {}, PLENTY, random.Random(1))
    with pytest.raises(RulesError, match="No miracle is waiting"):
        system.apply(refused.state, "miracle_approve", {}, PLENTY, random.Random(1))


def test_dbl_11_a_miracle_needs_thirty_endurance() -> None:
    """DBL-11: 30 Endurance, checked when asked and again when approved."""
    state = state_with([2, 3], dn=10)
    assert "miracle" not in actions(state, {"endurance": 29})
    with pytest.raises(RulesError, match="30 Endurance"):
        system.apply(state, "miracle", {}, {"endurance": 29}, random.Random(1))
    asked = system.apply(state, "miracle", {}, {"endurance": 30}, random.Random(1)).state
    assert actions(asked, {"endurance": 20}) == ["miracle_refuse"]
    with pytest.raises(RulesError, match="30 Endurance"):
        system.apply(asked, "miracle_approve", {}, {"endurance": 20}, random.Random(1))


def test_dbl_11_no_miracle_for_a_roll_that_already_succeeds() -> None:
    """DBL-11: a miracle guarantees success; a success needs one only when the degree matters."""
    assert "miracle" not in actions(state_with([5, 5], dn=6), PLENTY)
    assert "miracle" in actions(state_with([5, 5], dn=6, degree_matters=True), PLENTY)
    assert "miracle" in actions(state_with([5, 5]), PLENTY)  # opposed: the other side is unknown


def test_dbl_11_dbl_15_a_miracle_overrides_a_catastrophe() -> None:
    """DBL-11 (decided): success whatever the dice, even all ones."""
    state = state_with([1, 1], dn=12)
    asked = system.apply(state, "miracle", {}, PLENTY, random.Random(1)).state
    result = system.evaluate(system.apply(asked, "miracle_approve", {}, PLENTY, random.Random(1)).state)
    # Not amazing: no dice showed 13, only the miracle's floor.
    assert (result.success, result.key, result.tone) == (True, "13", "success")


def test_dbl_11_a_miracle_wins_an_opposed_roll_by_at_least_one() -> None:
    """DBL-11: in an opposed roll the miracle side wins by one or more."""
    result = opposed(3, 9, miracle_a=True)
    assert (result.winner, result.margin, result.complication) == ("a", 1, False)
    assert opposed(12, 9, miracle_a=True).margin == 3
    assert opposed(3, 9, miracle_a=True, miracle_b=True).winner == "b"


def test_unknown_follow_ups_are_refused() -> None:
    with pytest.raises(RulesError, match="not a follow-up"):
        system.apply(state_with([2, 3], dn=4), "push", {}, PLENTY, random.Random(1))


# -- exact odds ---------------------------------------------------------------------------------


@pytest.mark.parametrize("net", range(-4, 9))
def test_dbl_4_dbl_6_outcomes_match_icepool(net: int) -> None:
    """DBL-4..6: the result's exact distribution for every small pool, checked against icepool."""
    expected = {str(value): p for value, p in icepool_result(net).items()}
    assert system.outcomes(request(dice=net)) == expected
    assert "0" not in expected


@pytest.mark.parametrize("dice", [1, 5, 9, 11])
def test_dbl_4_the_counting_matches_plain_enumeration(dice: int) -> None:
    """DBL-4, DBL-5: the face-by-face count agrees with enumerating every multiset."""
    enumerated = distribution(
        dice, lambda counts: oracle_value([f for f in range(1, 7) for _ in range(counts[f - 1])])
    )
    assert dict(doubles.positive_distribution(dice)) == enumerated


@pytest.mark.parametrize("net", [12, 16, 20])
def test_the_largest_pools_add_up_to_one(net: int) -> None:
    found = system.outcomes(request(dice=net, dn=12))
    assert sum(found.values()) == 1
    assert system.chance(request(dice=net, dn=12)) == sum(p for value, p in found.items() if int(value) > 12)


def test_dbl_7_hand_computed_odds() -> None:
    """DBL-7: one die beats Easy on 3-6; two dice beat Challenging only with 4-4, 5-5 or 6-6."""
    assert system.chance(request(dice=1, dn="Easy")) == Fraction(2, 3)
    assert system.chance(request(dn="Challenging")) == Fraction(1, 12)
    assert system.chance(request(dice=0, dn="Easy")) == Fraction(4, 9)
    assert system.chance(request(dice=2, dn=12)) == 0
    assert system.outcomes(request(dice=2))["4"] == Fraction(7, 36)


def test_dbl_15_dbl_16_hand_computed_catastrophe_odds() -> None:
    """DBL-15: all ones on three dice is 1/216; DBL-16: any 1 on three negative dice."""
    assert system.chance_of_catastrophe(request(dice=3)) == Fraction(1, 216)
    assert system.chance_of_catastrophe(request(dice=-1)) == 1 - Fraction(5, 6) ** 3


def test_dbl_8_hand_computed_amazing_odds() -> None:
    """DBL-8: two dice never pass 12; three need 5-5-5 or 6-6-6."""
    assert system.chance_of_amazing(request(dice=2)) == 0
    assert system.chance_of_amazing(request(dice=3)) == Fraction(2, 216)


def test_cli_extra_odds_names_drama_catastrophe_and_amazing() -> None:
    lines = system.cli_extra_odds(request(dice=3, dn=8))
    assert set(lines) == {
        "with 1 drama die",
        "with 2 drama dice",
        "with 3 drama dice",
        "catastrophe",
        "Amazing Success",
    }
    assert set(system.cli_extra_odds(request(dice=3))) == {"catastrophe", "Amazing Success"}


# -- states, command line -----------------------------------------------------------------------


def test_a_state_survives_json() -> None:
    made = request(abilities=[2, 1], weaknesses=[1], dn="Difficult", declaration=True)
    state = system.roll(made, random.Random(11))
    copy = json.loads(json.dumps(state))
    assert copy == state
    assert system.evaluate(copy) == system.evaluate(state)
    assert system.parse_request(copy["request"]) == made


def cli(*args: str) -> DoublesRequest:
    parser = argparse.ArgumentParser()
    system.add_cli_arguments(parser)
    return system.request_from_cli(parser.parse_args(list(args)))


def test_the_command_line_speaks_the_systems_words() -> None:
    made = cli(*"--ability 2 --ability 1 --weakness 1 --penalty 1 --helpers 2 --dn".split(), "Very Difficult")
    assert (made.net, made.dn, made.abilities) == (5, 10, (2, 1))
    assert cli("--dice", "-2", "--dn", "8").net == -2
    assert cli("--dice", "4", "--degree-matters", "--declaration").degree_matters is True
    assert cli().net == 2


@pytest.mark.parametrize(
    "args", [("--dn", "7"), ("--dice", "3", "--ability", "1"), ("--dice", "-9"), ("--dn", "hard")]
)
def test_the_command_line_refuses_what_the_rules_do(args: tuple[str, ...]) -> None:
    with pytest.raises(RulesError):
        cli(*args)


# -- every request ------------------------------------------------------------------------------

levels = st.lists(st.integers(0, 6), max_size=6)
valid_requests = st.fixed_dictionaries(
    {
        "abilities": levels,
        "weaknesses": levels,
        "bonus": st.integers(0, 10),
        "penalty": st.integers(0, 10),
        "helpers": st.integers(0, 6),
        "dn": st.sampled_from([None, "", 2, 4, "6", 8, "Very Difficult", "nigh impossible"]),
        "degree_matters": st.booleans(),
        "declaration": st.booleans(),
    }
) | st.fixed_dictionaries({"dice": st.integers(-8, 20), "dn": st.sampled_from([None, 2, 12])})

junk = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-30, 30),
    st.floats(allow_nan=True),
    st.text(max_size=6),
    st.lists(st.one_of(st.integers(-3, 9), st.text(max_size=2)), max_size=8),
    st.dictionaries(st.text(max_size=2), st.integers(), max_size=1),
)


def net_of(data: dict[str, Any]) -> int:
    if "dice" in data:
        return int(data["dice"])
    gained = sum(data["abilities"]) + data["bonus"] + data["helpers"]
    return 2 + gained - sum(data["weaknesses"]) - data["penalty"]


@settings(max_examples=150, deadline=None)
@given(valid_requests, st.integers(0, 2**32), st.integers(0, 80))
def test_every_valid_request_rolls_evaluates_and_follows_up(
    data: dict[str, Any], seed: int, endurance: int
) -> None:
    assume(-8 <= net_of(data) <= 20)
    made = system.parse_request(data)
    assert system.parse_request(system.request_dict(made)) == made
    rng = random.Random(seed)
    state = system.roll(made, rng)
    odds = system.outcomes(made)
    assert sum(odds.values()) == 1
    assert odds[system.evaluate(state).key] > 0
    resources = {"endurance": endurance}
    # Waits.DECISIONS: a new roll never waits for the GM, nothing having asked them yet.
    assert not system.may_await_gm(state)
    for _ in range(4):
        assert system.view(state)
        follow_ups = system.follow_ups(state, resources)
        # DBL-11: the GM's panel tells a roll that waits for them from its state alone.
        assert system.may_await_gm(state) == any(f.gm_only for f in follow_ups)
        if not follow_ups:
            break
        chosen = follow_ups[rng.randrange(len(follow_ups))]
        params = {"count": 1} if chosen.params else {}
        applied = system.apply(state, chosen.action, params, resources, rng)
        spent = int(applied.costs.get("endurance", 0))
        resources = {"endurance": resources["endurance"] - spent}
        assert resources["endurance"] >= 0
        state = applied.state
        system.evaluate(state)


@settings(max_examples=300, deadline=None)
@given(
    st.dictionaries(
        st.sampled_from(
            [
                "dice",
                "abilities",
                "weaknesses",
                "bonus",
                "penalty",
                "helpers",
                "dn",
                "degree_matters",
                "declaration",
            ]
        ),
        junk,
        max_size=5,
    )
)
def test_every_request_either_parses_or_raises_a_rules_error(data: dict[str, Any]) -> None:
    try:
        made = system.parse_request(data)
    except RulesError as error:
        assert str(error).endswith(".")
        return
    assert doubles.MIN_POOL <= made.net <= doubles.MAX_POOL
    state = system.roll(made, random.Random(0))
    system.evaluate(state)
    system.follow_ups(state, PLENTY)


@settings(max_examples=100, deadline=None)
@given(st.sampled_from(["drama", "miracle", "miracle_approve", "miracle_refuse", "luck", ""]), junk, junk)
def test_every_follow_up_either_applies_or_raises_a_rules_error(
    action: str, count: Any, endurance: Any
) -> None:
    state = state_with([2, 3], dn=8)
    before = json.dumps(state)
    try:
        system.apply(state, action, {"count": count}, {"endurance": endurance}, random.Random(0))
    except RulesError:
        pass
    assert json.dumps(state) == before


@pytest.mark.parametrize(
    "data",
    [
        {"abilities": [2, 1], "weaknesses": [1], "bonus": 1, "dn": "challenging", "degree_matters": True},
        {"dice": -2, "dn": 8},
        {"dice": 3},  # opposed: no Difficulty Number
    ],
)
def test_a_stored_request_reads_back_as_it_was_parsed(data: dict[str, Any]) -> None:
    """A card reads its roll's request some twenty times: ``stored_request`` builds it again
    from the state without parsing, and gives what parsing gave when it was rolled (DBL-1..3)."""
    made = request(**data)
    state = {"system": "doubles", "request": system.request_dict(made), "steps": []}
    copy = json.loads(json.dumps(state))  # as read back from the log

    assert system.stored_request(state) == made
    assert system.stored_request(copy) == made
    assert hash(system.stored_request(copy)) == hash(made)  # its levels tuples again, as parsed


def test_a_difficulty_number_out_of_the_table_is_refused_with_the_names() -> None:
    with pytest.raises(RulesError, match=r"one of .*Challenging \(6\).*or none for an opposed roll"):
        request(dice=2, dn=7)


def test_dbl9_the_complication_goes_to_the_amazing_side_not_the_winner() -> None:
    """DBL-9: the side whose dice showed an Amazing Success when the other's did not, even
    when a miracle beats it; none when both or neither are amazing."""
    beaten = opposed(15, 6, miracle_b=True)
    assert beaten.winner == "b" and beaten.amazing == "a" and beaten.complication
    assert opposed(6, 14).amazing == "b"
    assert opposed(14, 13).amazing is None and opposed(8, 6).amazing is None
    # Only a PC names it: the GM's side is told nothing in the verdict.
    states = [state_with([5, 5, 5, 2], dn=None), state_with([6, 1], dn=None)]
    assert "Complication" not in system.opposed_verdict(states, ["Ogre", "Ann"], players=(False, True))
    assert "Ogre may inflict a Complication on Ann" in system.opposed_verdict(states, ["Ogre", "Ann"])
