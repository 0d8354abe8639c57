"""`stars`: Stars, botches, advantage, Luck and exact odds (no database, seeded dice)."""

from __future__ import annotations

import argparse
import json
import random
from collections.abc import Iterable
from fractions import Fraction
from typing import Any

import icepool
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rolls.systems.base import RulesError, State
from rolls.systems.stars import (
    EDGES,
    RATINGS,
    SKILLS,
    STATS,
    StarsRequest,
    after_long_rest,
    at_new_adventure,
    botch_chance,
    chance_against_luck,
    chance_with_luck,
    contest,
    contest_chance,
    count_stars,
    d3,
    is_botch,
    luck_max,
    system,
)


class Scripted:
    """A random source that hands out the faces it was given, in order."""

    def __init__(self, faces: Iterable[int]) -> None:
        self.faces = list(faces)

    def randint(self, a: int, b: int) -> int:
        assert (a, b) == (1, 6)
        return self.faces.pop(0)


def state_of(*rolls: list[int], **request: Any) -> State:
    """A fresh roll with hand-picked dice: ``system.roll`` on a scripted random source."""
    parsed = system.parse_request({"dice": len(rolls[0]), **request})
    return system.roll(parsed, Scripted(face for roll in rolls for face in roll))


def luck(state: State, action: str, *faces: int, points: int = 1) -> State:
    applied = system.apply(state, action, {}, {"luck": points}, Scripted(faces))
    assert applied.costs == {"luck": 1}
    return applied.state


def key(state: State) -> str:
    return system.evaluate(state).key


# -- STR-1..6: dice, difficulty, Stars ----------------------------------------------------------


def test_str_1_a_test_rolls_the_stats_rating_in_dice() -> None:
    """STR-1: 1-5 dice, one per point of the Stat; nothing else is allowed."""
    for rating in range(1, 6):
        state = system.roll(system.parse_request({"dice": rating}), random.Random(rating))
        assert len(state["steps"][0]["dice"]) == rating
    for bad in (0, 6, -1, "three", 2.5):
        with pytest.raises(RulesError, match="The Stat's rating"):
            system.parse_request({"dice": bad})
    with pytest.raises(RulesError, match="missing"):
        system.parse_request({})


def test_str_1_dice_are_never_added_up() -> None:
    """STR-1: the result counts Stars, not the sum of the dice."""
    assert key(state_of([5, 4, 4])) == "1"


def test_str_2_a_d3_is_a_d6_halved() -> None:
    """STR-2: 1-2 is 1, 3-4 is 2, 5-6 is 3."""
    assert [d3(face) for face in range(1, 7)] == [1, 1, 2, 2, 3, 3]
    state = system.roll(system.parse_request({"kind": "d3"}), Scripted([4]))
    outcome = system.evaluate(state)
    assert (outcome.key, outcome.success, outcome.headline) == ("2", None, "d3: 2")
    assert system.view(state)[0].dice[0].label == "d3: 2"
    request = system.parse_request({"kind": "d3", "dice": 4, "training": "adept"})
    assert request == StarsRequest(1, kind="d3")
    assert system.outcomes(request) == {"1": Fraction(1, 3), "2": Fraction(1, 3), "3": Fraction(1, 3)}
    assert system.chance(request) is None
    with pytest.raises(RulesError, match="not to a d3"):
        system.parse_request({"kind": "d3", "advantage": True})


def test_str_3_base_difficulty_is_5() -> None:
    """STR-3: untrained, each die at 5 or more is a Star."""
    assert system.parse_request({"dice": 2}).target == 5
    assert key(state_of([5, 4])) == "1"
    assert count_stars([4, 4, 3], 5) == 0


def test_str_4_a_six_is_two_stars() -> None:
    """STR-4: sixes count double."""
    assert key(state_of([6, 5, 2])) == "3"
    assert count_stars([6, 6], 5) == 4
    view = system.view(state_of([6, 5]))[0]
    assert [(die.hit, die.label) for die in view.dice] == [(True, "x2"), (True, "")]


def test_str_5_no_star_fails_and_more_stars_is_better() -> None:
    """STR-5: zero Stars is a failure; any Star succeeds; five Stars is breathtaking."""
    failed = system.evaluate(state_of([2, 3, 4]))
    assert (failed.success, failed.tone, failed.key) == (False, "failure", "0")
    one = system.evaluate(state_of([5, 3, 4]))
    assert (one.success, one.headline, one.margin) == (True, "Success: 1 Star", 1)
    five = system.evaluate(state_of([6, 6, 5, 2, 2]))
    assert (five.success, five.tone, five.key) == (True, "amazing", "5")


@pytest.mark.parametrize(
    ("training", "target"), [("untrained", 5), ("novice", 4), ("adept", 3), ("Professional", 3)]
)
def test_str_6_training_lowers_the_difficulty(training: str, target: int) -> None:
    """STR-6: untrained 5, novice 4, adept 3."""
    assert system.parse_request({"dice": 3, "training": training}).target == target


def test_str_6_daves_rock() -> None:
    """STR-6: Dave's 1,1,2,3,4 fails untrained, earns one Star as a novice, two as adept."""
    assert key(state_of([1, 1, 2, 3, 4])) == "0"
    assert key(state_of([1, 1, 2, 3, 4], training="novice")) == "1"
    assert key(state_of([1, 1, 2, 3, 4], training="adept")) == "2"


def test_str_6_the_gm_may_set_the_difficulty() -> None:
    """STR-6: an explicit difficulty 2-6 replaces the training's."""
    assert system.parse_request({"dice": 2, "training": "adept", "difficulty": 6}).target == 6
    assert key(state_of([5, 6], difficulty=6)) == "2"
    for bad in (1, 7, "hard"):
        with pytest.raises(RulesError, match="difficulty"):
            system.parse_request({"dice": 2, "difficulty": bad})
    with pytest.raises(RulesError, match="Training must be one of"):
        system.parse_request({"dice": 2, "training": "master"})


def test_str_7_decide_professional_is_difficulty_3_and_botch_proof() -> None:
    """STR-7 decide: Professional rolls at difficulty 3, like Adept, and never botches."""
    request = system.parse_request({"dice": 3, "training": "professional"})
    assert request.target == 3 and request.immune
    outcome = system.evaluate(state_of([1, 1, 4], training="professional"))
    assert (outcome.success, outcome.tone, outcome.key) == (False, "failure", "0")
    assert "Professional training makes it a plain failure" in outcome.details[0]
    assert botch_chance(request) == 0
    # A GM's difficulty keeps the immunity.
    assert system.parse_request({"dice": 3, "training": "professional", "difficulty": 5}).immune


# -- STR-8: botches -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("dice", "botch"),
    [
        ([1], True),
        ([2], False),
        ([1, 4], False),
        ([1, 1], True),
        ([1, 5, 6], False),
        ([1, 1, 6], True),
        ([1, 1, 3, 3], False),
        ([1, 1, 1, 3], True),
        ([1, 1, 2, 3, 4], False),
        ([1, 1, 1, 6, 6], True),
    ],
)
def test_str_8_botch_is_more_than_half_ones(dice: list[int], botch: bool) -> None:
    """STR-8: one die: a 1; two dice: never one 1; three dice: two 1s."""
    assert is_botch(dice) is botch
    assert (system.evaluate(state_of(dice)).tone == "catastrophe") is botch


def test_str_8_decide_a_botch_beats_the_stars_of_other_dice() -> None:
    """STR-8 decide: 1,1,6 botches: no Stars and the worst result, despite the six."""
    outcome = system.evaluate(state_of([1, 1, 6]))
    assert (outcome.success, outcome.key, outcome.tone) == (False, "0", "catastrophe")
    assert not any(die.hit for die in system.view(state_of([1, 1, 6]))[0].dice)


def test_str_8_hand_computed_botch_chances() -> None:
    """STR-8: one die 1/6, two dice 1/36, three dice 16/216."""
    assert botch_chance(StarsRequest(1)) == Fraction(1, 6)
    assert botch_chance(StarsRequest(2)) == Fraction(1, 36)
    assert botch_chance(StarsRequest(3)) == Fraction(16, 216)
    assert botch_chance(StarsRequest(1, advantage=True)) == Fraction(1, 36)
    assert botch_chance(StarsRequest(1, disadvantage=True)) == Fraction(11, 36)


# -- STR-9: contests ----------------------------------------------------------------------------


def test_str_9_contested_ties_go_to_the_player() -> None:
    """STR-9: more Stars wins; a tie goes to the player."""
    assert contest(2, 1) and contest(1, 1) and contest(0, 0)
    assert not contest(1, 3)  # Dave's one Star against his neighbour's three


def test_str_9_contest_chance_matches_icepool() -> None:
    """STR-9, STR-8: the exact chance of winning a contest agrees with icepool: more Stars
    wins, a tie goes to the player, and with no Stars on either side a botch loses to a plain
    failure (the rules choice in the module's notes)."""
    dave = StarsRequest(1, training="adept")
    neighbour = StarsRequest(2)
    expected = icepool.map(lambda a, b: a >= b, oracle(1, 3, False), oracle(2, 5, False))
    assert contest_chance(dave, neighbour) == Fraction(expected.quantity(True), expected.denominator())
    # One die each at difficulty 5: Stars 0 (a 1 botches, 2-4 fail), 1 (a 5) or 2 (a 6).
    faces = {1: (0, 0), 2: (0, 1), 3: (0, 1), 4: (0, 1), 5: (1, 1), 6: (2, 1)}
    wins = sum(
        1 for a in faces.values() for b in faces.values() if a[0] > b[0] or (a[0] == b[0] and a[1] >= b[1])
    )
    assert contest_chance(StarsRequest(1), StarsRequest(1)) == Fraction(wins, 36)


# -- STR-10: advantage and disadvantage ---------------------------------------------------------


def test_str_10_advantage_keeps_the_roll_with_more_stars() -> None:
    """STR-10: both rolls stay in the state; the view drops the weaker one."""
    state = state_of([2, 3], [6, 1], advantage=True)
    step = state["steps"][0]
    assert step["rolls"] == [[2, 3], [6, 1]] and step["kept"] == 1 and step["dice"] == [6, 1]
    assert key(state) == "2"
    view = system.view(state)[0]
    assert [die.dropped for die in view.dice] == [True, True, False, False]
    assert "twice (advantage)" in view.title
    assert view.note == "Kept 2 Stars; dropped 0 Stars."


def test_str_10_disadvantage_keeps_the_roll_with_fewer_stars() -> None:
    """STR-10: disadvantage keeps the weaker roll."""
    state = state_of([5, 6], [5, 2], disadvantage=True)
    assert state["steps"][0]["kept"] == 1 and key(state) == "1"
    assert "fewer Stars" in system.evaluate(state).details[0]


def test_str_10_decide_ties_botch_is_worse_else_the_first_roll() -> None:
    """STR-10 decide: equal Stars: a botch is the worse roll; otherwise the first roll stays."""
    assert state_of([1], [2], advantage=True)["steps"][0]["kept"] == 1
    assert state_of([2], [1], disadvantage=True)["steps"][0]["kept"] == 1
    assert state_of([5], [5], advantage=True)["steps"][0]["kept"] == 0
    assert state_of([3], [2], disadvantage=True)["steps"][0]["kept"] == 0
    assert state_of([1, 1, 5], [1, 1, 6], advantage=True, training="professional")["steps"][0]["kept"] == 0


def test_str_10_decide_advantage_and_disadvantage_cancel() -> None:
    """STR-10 decide: both at once cancel out: one roll."""
    request = system.parse_request({"dice": 2, "advantage": True, "disadvantage": "on"})
    assert request.rolls == 1
    assert len(system.roll(request, random.Random(1))["steps"][0]["rolls"]) == 1
    assert system.outcomes(request) == system.outcomes(StarsRequest(2))


def test_str_10_hand_computed_advantage() -> None:
    """STR-10: one die at 5 with advantage: no Star 4/9, one Star 1/4, two Stars 11/36."""
    assert system.outcomes(StarsRequest(1, advantage=True)) == {
        "0": Fraction(4, 9),
        "1": Fraction(1, 4),
        "2": Fraction(11, 36),
    }
    assert system.chance(StarsRequest(1, disadvantage=True)) == Fraction(1, 9)


# -- exact odds ---------------------------------------------------------------------------------


def oracle(n: int, target: int, immune: bool) -> icepool.Die:
    """Independent oracle: icepool enumerates the rolls; each becomes (Stars, not a botch)."""

    def result(roll: tuple[int, ...]) -> tuple[int, int]:
        if 2 * roll.count(1) > n:
            return (0, int(immune))
        return (sum(2 if face == 6 else 1 if face >= target else 0 for face in roll), 1)

    return icepool.map(result, icepool.d6.pool(n).expand())


def as_fractions(die: icepool.Die) -> dict[str, Fraction]:
    return {str(outcome): Fraction(die.quantity(outcome), die.denominator()) for outcome in die.outcomes()}


def test_str_3_hand_computed_single_die() -> None:
    """STR-3/4: one die at difficulty 5: no Star 4/6, one Star 1/6, two Stars 1/6."""
    assert system.outcomes(StarsRequest(1)) == {"0": Fraction(4, 6), "1": Fraction(1, 6), "2": Fraction(1, 6)}
    assert system.chance(StarsRequest(1)) == Fraction(1, 3)
    # Adept, one die: 3, 4, 5 one Star each, a 6 two, 1-2 none.
    assert system.outcomes(StarsRequest(1, "adept")) == {
        "0": Fraction(1, 3),
        "1": Fraction(1, 2),
        "2": Fraction(1, 6),
    }


@pytest.mark.parametrize("n", [1, 2, 3, 4, 5])
@pytest.mark.parametrize("training", ["untrained", "novice", "adept", "professional"])
@pytest.mark.parametrize("mode", ["plain", "advantage", "disadvantage"])
def test_str_10_outcomes_match_icepool(n: int, training: str, mode: str) -> None:
    """STR-3..8, STR-10: the exact distribution of Stars agrees with icepool."""
    target = {"untrained": 5, "novice": 4, "adept": 3, "professional": 3}[training]
    single = oracle(n, target, training == "professional")
    if mode == "plain":
        kept = single
    else:
        kept = icepool.map(lambda a, b: max(a, b) if mode == "advantage" else min(a, b), single, single)
    request = StarsRequest(n, training, advantage=mode == "advantage", disadvantage=mode == "disadvantage")
    assert system.outcomes(request) == as_fractions(kept.map(lambda result: result[0]))
    assert botch_chance(request) == Fraction(kept.quantity_where(lambda r: r[1] == 0), kept.denominator())
    assert system.chance(request) == 1 - system.outcomes(request)["0"]


@pytest.mark.parametrize("difficulty", [2, 6])
def test_str_6_gm_difficulty_matches_icepool(difficulty: int) -> None:
    """STR-6: an explicit difficulty changes the odds exactly as icepool says."""
    request = StarsRequest(3, difficulty=difficulty)
    assert system.outcomes(request) == as_fractions(oracle(3, difficulty, False).map(lambda r: r[0]))


def test_str_11_chance_with_luck() -> None:
    """STR-11: Luck after a failure: 1 - (1 - p)^2; against the roll: p^2."""
    request = StarsRequest(1)
    assert chance_with_luck(request) == 1 - Fraction(2, 3) ** 2
    assert chance_against_luck(request) == Fraction(1, 9)
    assert set(system.cli_extra_odds(request)) == {
        "botch",
        "with Luck after a failure",
        "with Luck spent against it",
    }
    assert system.cli_extra_odds(StarsRequest(1, kind="d3")) == {}


# -- STR-11: Luck -------------------------------------------------------------------------------


def test_str_11_luck_rerolls_and_keeps_the_better() -> None:
    """STR-11: a point of Luck rerolls one's own roll; the better result is kept."""
    state = state_of([2, 3])
    (own, against) = system.follow_ups(state, {"luck": 1})
    assert (own.action, own.cost) == ("luck", "1 Luck")
    assert (own.chance_before, own.chance_after) == (0, system.chance(StarsRequest(2)))
    assert (against.chance_before, against.chance_after) == (0, 0)
    better = luck(state, "luck", 6, 2)
    assert key(better) == "2"
    assert "Luck: kept the new result." in system.evaluate(better).details
    roll, reroll = system.view(better)
    assert all(die.dropped for die in roll.dice) and not any(die.dropped for die in reroll.dice)
    worse = luck(state, "luck", 1, 1)
    assert key(worse) == "0" and system.evaluate(worse).tone == "failure"  # the botch is not kept
    assert system.view(worse)[1].note == "The earlier result stands."


def test_str_11_luck_against_keeps_the_worse() -> None:
    """STR-11: Luck spent against a roll has it rerolled; the worse result is kept."""
    state = state_of([6, 2])
    against = next(f for f in system.follow_ups(state, {"luck": 2}) if f.action == "luck_against")
    assert (against.chance_before, against.chance_after) == (1, system.chance(StarsRequest(2)))
    worse = luck(state, "luck_against", 5, 2)
    assert key(worse) == "1"
    kept = luck(state, "luck_against", 6, 6)
    assert key(kept) == "2" and kept["steps"][1]["keep"] == "earlier"


def test_str_11_luck_rerolls_the_whole_test_with_advantage() -> None:
    """STR-11: under advantage the reroll is rolled twice again and keeps its better roll."""
    state = state_of([2], [3], advantage=True)
    rerolled = luck(state, "luck", 1, 5)
    assert rerolled["steps"][1]["rolls"] == [[1], [5]]
    assert key(rerolled) == "1"


def test_str_11_luck_on_a_d3_keeps_the_higher() -> None:
    """STR-11/STR-2: Luck works on a d3 roll too; higher is better."""
    state = system.roll(system.parse_request({"kind": "d3"}), Scripted([2]))
    assert [f.chance_after for f in system.follow_ups(state, {"luck": 1})] == [None, None]
    assert key(luck(state, "luck", 6)) == "3"
    assert key(luck(state, "luck_against", 6)) == "1"


def test_str_11_decide_luck_once_per_roll_each_way() -> None:
    """STR-11 decide: one Luck reroll by the roller and one against the roll, no more."""
    state = luck(state_of([2, 3]), "luck", 2, 2)
    assert [f.action for f in system.follow_ups(state, {"luck": 3})] == ["luck_against"]
    with pytest.raises(RulesError, match="spent on this roll already"):
        luck(state, "luck", 5, 5)
    state = luck(state, "luck_against", 4, 4)
    assert system.follow_ups(state, {"luck": 3}) == []
    with pytest.raises(RulesError, match="spent against this roll already"):
        luck(state, "luck_against", 5, 5)


def test_str_11_luck_needs_a_point() -> None:
    """STR-11: without a Luck point there is nothing to spend."""
    state = state_of([2, 3])
    for resources in ({}, {"luck": 0}, {"luck": "none"}, {"luck": None}):
        assert system.follow_ups(state, resources) == []
        with pytest.raises(RulesError, match="No Luck points left"):
            system.apply(state, "luck", {}, resources, Scripted([5, 5]))
    with pytest.raises(RulesError, match="not a follow-up"):
        system.apply(state, "push", {}, {"luck": 1}, Scripted([]))
    with pytest.raises(RulesError, match="another dice system"):
        system.apply({**state, "system": "sets"}, "luck", {}, {"luck": 1}, Scripted([5, 5]))


def test_apply_never_mutates_the_state() -> None:
    state = state_of([2, 3])
    frozen = json.dumps(state)
    luck(state, "luck", 6, 6)
    assert json.dumps(state) == frozen


# -- STR-12, STR-13: Luck limits and the character sheet -----------------------------------------


def test_str_12_luck_maximum_is_3() -> None:
    """STR-12: three Luck points without the right Edge."""
    assert luck_max() == 3
    assert luck_max(["Brawler", "dodge!"]) == 3


def test_str_12_decide_charmed_life_raises_the_maximum() -> None:
    """STR-12 decide: Charmed Life adds one Luck at Basic, two at Advanced."""
    assert luck_max(["Charmed Life"]) == 4
    assert luck_max({"charmed life": "Advanced", "Allure": "basic"}) == 5
    with pytest.raises(RulesError, match="not an Edge"):
        luck_max(["Lucky Charm"])
    with pytest.raises(RulesError, match="Basic or Advanced"):
        luck_max({"Charmed Life": "legendary"})


def test_str_12_long_rest_and_new_adventure() -> None:
    """STR-12: a long rest gives one point back up to the maximum; an Adventure fills the pool."""
    assert after_long_rest(0, 3) == 1
    assert after_long_rest(2, 3) == 3
    assert after_long_rest(3, 3) == 3
    assert after_long_rest(5, 3) == 3  # above the maximum: the pool comes down to it
    assert at_new_adventure(4) == 4
    with pytest.raises(RulesError):
        after_long_rest(-1, 3)
    with pytest.raises(RulesError):
        at_new_adventure(-1)


def test_str_13_stats_skills_and_edges() -> None:
    """STR-13: four Stats rated Poor to World Class; the document's Skills and Edges."""
    assert STATS == ("Vigor", "Agility", "Smarts", "Presence")
    assert RATINGS == {1: "Poor", 2: "Average", 3: "Good", 4: "Superb", 5: "World Class"}
    assert len(SKILLS) == 14 and "Melee" in SKILLS and "Willpower" in SKILLS
    assert len(EDGES) == 14 and "Charmed Life" in EDGES and "Third Wind" in EDGES


# -- command line and round trips ---------------------------------------------------------------


def cli(*args: str) -> StarsRequest:
    parser = argparse.ArgumentParser()
    system.add_cli_arguments(parser)
    return system.request_from_cli(parser.parse_args(list(args)))


def test_str_6_cli_flags() -> None:
    """STR-6/STR-10: --dice, --training, --difficulty, --advantage/--disadvantage, --d3."""
    assert cli("--dice", "3", "--training", "novice", "--advantage") == StarsRequest(
        3, "novice", advantage=True
    )
    assert cli("--dice", "2", "--difficulty", "6").target == 6
    assert cli("--d3") == StarsRequest(1, kind="d3")
    with pytest.raises(RulesError, match="missing"):
        cli("--training", "adept")
    with pytest.raises(RulesError):
        cli("--dice", "9")


def test_state_round_trips_through_json() -> None:
    request = system.parse_request({"dice": 4, "training": "adept", "disadvantage": True})
    assert system.parse_request(system.request_dict(request)) == request
    state = system.roll(request, random.Random(2))
    assert json.loads(json.dumps(state)) == state


# -- every request: valid ones roll, invalid ones are refused ------------------------------------

values = st.one_of(
    st.integers(-2, 8),
    st.sampled_from(["novice", "Adept", "professional", "d3", "test", "on", "yes", "3", "x", ""]),
    st.none(),
    st.booleans(),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=4),
    st.lists(st.integers(0, 3), max_size=2),
)
junk = st.dictionaries(
    st.sampled_from(["dice", "training", "difficulty", "advantage", "disadvantage", "kind"]),
    values,
    max_size=6,
)
plausible = st.fixed_dictionaries(
    {"dice": st.integers(0, 6)},
    optional={
        "training": st.sampled_from(["untrained", "novice", "adept", "professional", "master", ""]),
        "difficulty": st.sampled_from([None, "", 1, 2, 4, 6, 7]),
        "advantage": st.booleans(),
        "disadvantage": st.booleans(),
        "kind": st.sampled_from(["test", "test", "d3", "d4"]),
    },
)


@settings(max_examples=400, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.one_of(junk, plausible, plausible), seed=st.integers(0, 2**16), plays=st.data())
def test_every_request_rolls_or_is_refused(data: dict[str, Any], seed: int, plays: st.DataObject) -> None:
    try:
        request = system.parse_request(data)
    except RulesError as error:
        assert str(error).endswith(".")
        return
    assert system.parse_request(system.request_dict(request)) == request
    rng = random.Random(seed)
    state = system.roll(request, rng)
    distribution = system.outcomes(request)
    assert sum(distribution.values()) == 1
    resources = {"luck": plays.draw(st.sampled_from([0, 1, 3, "2", None]))}
    for _ in range(3):
        outcome = system.evaluate(state)
        assert outcome.key in distribution
        assert system.view(state)
        follow_ups = system.follow_ups(state, resources)
        action = plays.draw(st.sampled_from(["luck", "luck_against", "bid"]))
        try:
            state = system.apply(state, action, {}, resources, rng).state
        except RulesError:
            assert action not in [f.action for f in follow_ups]
        else:
            assert action in [f.action for f in follow_ups]


def test_str9_a_tie_goes_to_the_player_whichever_side_is_listed_first() -> None:
    """STR-9: the GM's side without a sheet (``npc``) never takes a tie, wherever it stands:
    the odds from either side's view and the winner of two equal rolls agree."""
    player, guard = StarsRequest(1), StarsRequest(2, npc=True)
    first = system.contest(player, guard)
    second = system.contest(guard, player)
    assert first["tie"] == second["tie"] == 0
    assert (second["win"], second["lose"]) == (first["lose"], first["win"])
    # Listed second, the player keeps the ties: the same chance as listed first without the mark.
    assert first["win"] == system.contest(StarsRequest(1), StarsRequest(2))["win"]
    # One Star each: the player wins in either order.
    mine = state_of([5])
    theirs = state_of([5, 2], npc=True)
    assert system.contest_winner([mine, theirs]) == 0
    assert system.contest_winner([theirs, mine]) == 1
    # Luck's odds from either place agree too: the guard listed first, Dave rerolls his own.
    assert system.contest_chance_after([theirs, mine], 1, "luck", 1) == system.contest_chance_after(
        [mine, theirs], 0, "luck", 0
    )


def test_str9_between_two_players_the_tie_goes_to_the_first_side() -> None:
    """STR-9 (decided): two players, or two sides of the GM's, tie to the first side listed
    (the challenger)."""
    for a, b in ((StarsRequest(1), StarsRequest(1)), (StarsRequest(1, npc=True), StarsRequest(1, npc=True))):
        odds = system.contest(a, b)
        assert odds["tie"] == 0 and odds["win"] > odds["lose"]


def test_str9_the_npc_mark_is_stored_only_when_set() -> None:
    """STR-9: a player's request stores what it always did; the GM's side keeps its mark."""
    assert "npc" not in system.request_dict(StarsRequest(2))
    marked = system.sheetless(StarsRequest(2))
    assert system.parse_request(system.request_dict(marked)) == marked


def test_str_5_five_stars_or_more_is_done_in_half_the_time() -> None:
    """STR-5: a roll of five Stars or more carries the half-the-time line on its card."""
    from rolls.systems.stars import FIVE_STARS

    assert FIVE_STARS in system.evaluate(state_of([6, 6, 5, 2, 2])).details
    assert FIVE_STARS in system.evaluate(state_of([6, 6, 6])).details  # six Stars
    assert FIVE_STARS not in system.evaluate(state_of([6, 6, 2])).details
