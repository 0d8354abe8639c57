"""`kinds`: pairs and bigger groups of one face. Each test names the rule it checks (KIN-n)."""

from __future__ import annotations

import argparse
import ast
import inspect
import json
import random
from fractions import Fraction
from typing import Any

import icepool
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rolls.systems import kinds
from rolls.systems.base import Outcome, RulesError, State
from rolls.systems.kinds import Kinds, KindsRequest

system = kinds.system


def request(**data: Any) -> KindsRequest:
    return system.parse_request(data)


def state_with(dice: list[int], **data: Any) -> State:
    """A state built by hand: the request as the engine stores it, one roll of ``dice``."""
    data.setdefault("dice", len(dice))
    return {
        "system": "kinds",
        "request": system.request_dict(request(**data)),
        "steps": [{"action": "roll", "dice": dice}],
    }


def outcome(dice: list[int], **data: Any) -> Outcome:
    return system.evaluate(state_with(dice, **data))


def icepool_largest(pool: int) -> dict[str, Fraction]:
    die = icepool.d6.pool(pool).largest_count()
    return {str(size): die.probability(size) for size in die.outcomes()}


# -- the module ---------------------------------------------------------------------------------


def test_it_exposes_a_system_instance() -> None:
    assert isinstance(system, Kinds)
    assert system.slug == "kinds"


def test_it_never_uses_the_random_module() -> None:
    tree = ast.parse(inspect.getsource(kinds))
    imported = {alias.name for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names}
    imported |= {node.module or "" for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
    assert "random" not in imported
    assert not any(name.startswith("django") for name in imported)


def test_the_docstring_opens_with_the_rules_choices() -> None:
    doc = kinds.__doc__ or ""
    assert "Rules choices" in doc
    for topic in ("Six or more of a kind", "one Success", "Disadvantage"):
        assert topic in doc


# -- the pool -----------------------------------------------------------------------------------


def test_kin_1_pool_is_skill_plus_field_diamonds() -> None:
    """KIN-1: the Diamonds of the Skill and of its Field make the pool."""
    made = request(skill=2, field=3)
    assert (made.dice, made.pool) == (5, 5)
    assert request(skill=0, field=4).pool == 4


def test_kin_1_dice_can_be_given_directly() -> None:
    """KIN-1: a request may give the dice instead of the Diamonds; both must then agree."""
    assert request(dice=6).pool == 6
    assert request(dice=5, skill=2, field=3).pool == 5
    with pytest.raises(RulesError, match="not 6"):
        request(dice=6, skill=2, field=3)


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({}, "Give the Skill and Field Diamonds"),
        ({"skill": 0, "field": 0}, "nothing to roll"),
        ({"skill": 5, "field": 5}, "at most 9"),
        ({"dice": 0}, "between 1 and 9"),
        ({"dice": 10}, "between 1 and 9"),
        ({"dice": "many"}, "whole number"),
        ({"skill": -1, "field": 3}, "between 0 and 9"),
    ],
)
def test_kin_1_impossible_pools_are_refused(data: dict[str, Any], message: str) -> None:
    """KIN-1: a pool with no dice, or more than nine, cannot be rolled."""
    with pytest.raises(RulesError, match=message):
        system.parse_request(data)


def test_kin_2_advantage_adds_a_die_each() -> None:
    """KIN-2: each Advantage adds one die."""
    assert [request(dice=4, advantage=n).pool for n in range(4)] == [4, 5, 6, 7]


def test_kin_2_advantage_never_goes_past_nine_dice() -> None:
    """KIN-2: up to a total of nine dice."""
    assert request(dice=8, advantage=3).pool == 9
    assert request(dice=9, advantage=1).pool == 9


def test_kin_2_at_most_three_advantages() -> None:
    """KIN-2: the Fortune Master gives up to three."""
    with pytest.raises(RulesError, match="Advantage must be between 0 and 3"):
        request(dice=4, advantage=4)


def test_kin_3_disadvantage_removes_a_die_each() -> None:
    """KIN-3: each Disadvantage removes one die."""
    assert [request(dice=6, disadvantage=n).pool for n in range(4)] == [6, 5, 4, 3]
    with pytest.raises(RulesError, match="Disadvantage must be between 0 and 3"):
        request(dice=6, disadvantage=4)


def test_kin_3_disadvantage_never_goes_below_two_dice() -> None:
    """KIN-3: never below two dice."""
    assert request(dice=3, disadvantage=3).pool == 2
    assert request(dice=2, disadvantage=2).pool == 2


def test_kin_3_decide_disadvantage_never_makes_a_one_die_pool_bigger() -> None:
    """KIN-3 (decided): a pool of one die stays one die under Disadvantage; it cannot succeed."""
    made = request(dice=1, disadvantage=2)
    assert made.pool == 1
    assert system.chance(made) == 0
    assert system.outcomes(made) == {"1": Fraction(1)}


def test_kin_2_kin_3_decide_advantage_and_disadvantage_cancel_first() -> None:
    """KIN-2/KIN-3 (decided): they cancel one for one, then the rest applies with its limit."""
    assert request(dice=8, advantage=3, disadvantage=2).pool == 9  # net +1
    assert request(dice=3, advantage=1, disadvantage=3).pool == 2  # net -2, floor 2
    assert request(dice=5, advantage=2, disadvantage=2).pool == 5


# -- reading the dice ---------------------------------------------------------------------------


@pytest.mark.parametrize("face", range(1, 7))
def test_kin_4_a_pair_of_any_face_is_a_success(face: int) -> None:
    """KIN-4: two dice on one face succeed, whichever face."""
    other = 1 if face != 1 else 2
    result = outcome([face, face, other], level="basic")
    assert result.success is True
    assert result.key == "2"
    assert result.headline == "Basic Success: passes the Basic Challenge"


def test_kin_4_three_ones_are_worth_three_sixes() -> None:
    """KIN-4: the face does not matter."""
    low, high = outcome([1, 1, 1, 4], level="critical"), outcome([6, 6, 6, 4], level="critical")
    assert (low.success, low.key, low.margin) == (high.success, high.key, high.margin) == (True, "3", 0)


def test_kin_4_all_different_faces_are_no_success() -> None:
    """KIN-4: no two dice alike, no Success; the key is 1."""
    result = outcome([1, 2, 3, 4, 5, 6])
    assert result.success is False
    assert result.key == "1"


@pytest.mark.parametrize(
    ("dice", "grade", "key"),
    [
        ([3, 3, 1], "Basic", "2"),
        ([3, 3, 3, 1], "Critical", "3"),
        ([3, 3, 3, 3, 1], "Extreme", "4"),
        ([3, 3, 3, 3, 3, 1], "Impossible", "5"),
    ],
)
def test_kin_5_grades_by_group_size(dice: list[int], grade: str, key: str) -> None:
    """KIN-5: two of a kind Basic, three Critical, four Extreme, five Impossible."""
    result = outcome(dice)
    assert result.headline == f"{grade} Success"
    assert result.key == key
    assert result.details[0].startswith(f"{grade} Success (")


def test_kin_5_decide_six_or_more_of_a_kind_is_impossible() -> None:
    """KIN-5 (decided): nothing grades above Impossible; six, seven... of a kind are Impossible."""
    for size in (6, 7, 9):
        result = outcome([4] * size, level="impossible")
        assert result.success is True
        assert result.headline == "Impossible Success: passes the Impossible Challenge"
        assert result.key == str(size)
    assert kinds.grade_of(9) == kinds.grade_of(5) == 4


def test_kin_5_decide_a_four_is_one_extreme_success_not_two_pairs() -> None:
    """KIN-5 (decided): four of a kind is a single Success; it is not split into two pairs."""
    result = outcome([5, 5, 5, 5, 2], level="basic")
    assert [line for line in result.details if "Success (" in line] == [
        "Extreme Success (four 5s): passes Basic, Critical and Extreme Challenges."
    ]
    assert not any("Successes in one roll" in line for line in result.details)
    assert [(g.face, g.size) for g in kinds.groups_of([5, 5, 5, 5, 2])] == [(5, 4)]


def test_kin_6_a_higher_success_passes_a_lower_challenge() -> None:
    """KIN-6: a Critical passes a Basic Challenge, an Extreme passes a Critical one."""
    assert outcome([2, 2, 2, 5], level="basic").success is True
    assert outcome([2, 2, 2, 2, 5], level="critical").success is True
    assert outcome([2, 2, 2, 2, 2], level="extreme").success is True


def test_kin_6_kin_8_a_lower_success_fails_the_challenge() -> None:
    """KIN-6, KIN-8: a Basic Success does not pass a Critical Challenge: an Accident follows."""
    result = outcome([2, 2, 4, 5, 6], level="critical")
    assert result.success is False
    assert result.tone == "failure"
    assert result.headline == "Basic Success falls short of the Critical Challenge: an Accident"
    assert "Basic Success (two 2s): passes a Basic Challenge." in result.details


def test_kin_7_every_success_is_listed_with_what_it_passes() -> None:
    """KIN-7: several Successes in one roll are several tasks; each is listed, best first."""
    result = outcome([3, 3, 5, 5, 5, 1, 6, 6], level="basic")
    assert result.details[:4] == (
        "Critical Success (three 5s): passes Basic and Critical Challenges.",
        "Basic Success (two 6s): passes a Basic Challenge.",
        "Basic Success (two 3s): passes a Basic Challenge.",
        "3 Successes in one roll: each may accomplish its own task.",
    )


def test_kin_7_two_pairs_are_two_basic_successes() -> None:
    """KIN-7: 5-5-3-3 is two Basic Successes (two different faces)."""
    assert [(g.name, g.face) for g in kinds.groups_of([5, 3, 5, 3])] == [("Basic", 5), ("Basic", 3)]


def test_kin_8_no_success_is_an_accident() -> None:
    """KIN-8: no Success means an Accident."""
    result = outcome([1, 2, 3, 4], level="basic")
    assert result.success is False
    assert result.tone == "failure"
    assert result.headline == "No Success: an Accident"
    assert not any("Danger" in line for line in result.details)


def test_kin_8_a_dangerous_challenge_warns_of_harm() -> None:
    """KIN-8: a Challenge that can hurt is a Danger; its Accident says so."""
    failed = outcome([1, 2, 3], level="basic", danger=True)
    assert "This Challenge is a Danger: the Accident can hurt the Adventurer." in failed.details
    passed = outcome([1, 1, 3], level="basic", danger=True)
    assert not any("Danger" in line for line in passed.details)


def test_kin_8_no_challenge_named_still_needs_a_success() -> None:
    """KIN-8 (decided): with no Challenge level, any Success succeeds and none is an Accident."""
    assert outcome([4, 4, 1]).headline == "Basic Success"
    assert outcome([4, 3, 1]).success is False


def test_kin_9_a_higher_success_may_earn_an_advantage() -> None:
    """KIN-9: a Success above the one needed may earn an advantage; the margin counts grades."""
    result = outcome([6, 6, 6, 6, 1], level="basic")
    assert result.margin == 2
    assert "Higher than the Challenge needed: the Fortune Master may grant an advantage." in result.details
    exact = outcome([6, 6, 1], level="basic")
    assert exact.margin == 0
    assert not any("advantage" in line for line in exact.details)


# -- rolling and the card -----------------------------------------------------------------------


def test_it_rolls_the_pool_with_the_injected_random_source() -> None:
    made = request(skill=3, field=2, advantage=2)
    first = system.roll(made, random.Random(7))
    again = system.roll(made, random.Random(7))
    assert first == again
    assert len(first["steps"][0]["dice"]) == 7
    assert first["steps"][0]["action"] == "roll"
    assert all(1 <= face <= 6 for face in first["steps"][0]["dice"])


def test_a_state_survives_json() -> None:
    state = system.roll(request(dice=5, level="extreme", danger=True), random.Random(3))
    copy = json.loads(json.dumps(state))
    assert copy == state
    assert system.evaluate(copy) == system.evaluate(state)
    assert system.parse_request(state["request"]) == request(dice=5, level="extreme", danger=True)


def test_the_view_marks_the_dice_in_a_success() -> None:
    (step,) = system.view(state_with([2, 5, 2, 6, 5, 5]))
    assert step.title == "Rolled 6 dice"
    assert [(die.face, die.hit) for die in step.dice] == [
        (2, True),
        (5, True),
        (2, True),
        (6, False),
        (5, True),
        (5, True),
    ]


def test_the_view_notes_advantage() -> None:
    state = system.roll(request(dice=4, advantage=2), random.Random(1))
    (step,) = system.view(state)
    assert len(step.dice) == 6
    assert step.note == "4 dice, +2 for Advantage/Disadvantage"


def test_there_are_no_follow_ups() -> None:
    state = state_with([1, 2, 3])
    assert system.follow_ups(state, {"luck": 3}) == []
    with pytest.raises(RulesError, match="no follow-ups"):
        system.apply(state, "reroll", {}, {}, random.Random(1))


# -- exact odds ---------------------------------------------------------------------------------


@pytest.mark.parametrize("pool", range(1, 10))
def test_kin_4_kin_5_outcomes_match_icepool(pool: int) -> None:
    """KIN-4, KIN-5: the largest group's exact distribution, checked against icepool."""
    expected = icepool_largest(pool)
    assert system.outcomes(request(dice=pool)) == expected
    assert sum(expected.values()) == 1


@pytest.mark.parametrize("pool", range(1, 10))
@pytest.mark.parametrize(
    ("level", "size"), [("none", 2), ("basic", 2), ("critical", 3), ("extreme", 4), ("impossible", 5)]
)
def test_kin_6_chance_matches_icepool(pool: int, level: str, size: int) -> None:
    """KIN-6: a Challenge is passed by a group of its size or larger."""
    die = icepool.d6.pool(pool).largest_count()
    expected = sum((die.probability(n) for n in die.outcomes() if n >= size), Fraction(0))
    assert system.chance(request(dice=pool, level=level)) == expected


def test_kin_4_hand_computed_odds() -> None:
    """KIN-4: P(a pair in 2d6) = 1/6; six dice all different = 6!/6^6; seven dice always pair."""
    assert system.chance(request(dice=2, level="basic")) == Fraction(1, 6)
    assert system.outcomes(request(dice=6))["1"] == Fraction(720, 6**6)
    assert system.chance(request(dice=7)) == 1
    assert system.chance(request(dice=3, level="critical")) == Fraction(6, 216)
    assert system.chance(request(dice=4, level="impossible")) == 0
    assert system.outcomes(request(dice=5))["5"] == Fraction(6, 6**5)


def test_kin_2_kin_3_chance_by_advantage() -> None:
    """KIN-2, KIN-3: the chance for each net Advantage from -3 to +3, exact."""
    made = request(skill=2, field=2, level="basic", advantage=1)
    table = system.chance_by_advantage(made)
    assert list(table) == [-3, -2, -1, 0, 1, 2, 3]
    # Four dice: -3 and -2 hit the floor of two dice, +3 gives seven dice (always a pair).
    assert table[-3] == table[-2] == Fraction(1, 6)
    assert table[-1] == 1 - Fraction(6 * 5 * 4, 216)
    assert table[0] == 1 - Fraction(6 * 5 * 4 * 3, 6**4)
    assert table[3] == 1
    assert table[1] == system.chance(made)
    assert all(a <= b for a, b in zip(table.values(), list(table.values())[1:], strict=False))


def test_kin_2_chance_by_advantage_stops_at_nine_dice() -> None:
    """KIN-2: Advantage on a nine-die pool changes nothing."""
    table = system.chance_by_advantage(request(dice=9, level="extreme"))
    assert table[1] == table[2] == table[3] == table[0]


# -- command line -------------------------------------------------------------------------------


def cli(*args: str) -> KindsRequest:
    parser = argparse.ArgumentParser()
    system.add_cli_arguments(parser)
    return system.request_from_cli(parser.parse_args(list(args)))


def test_the_command_line_speaks_the_systems_words() -> None:
    made = cli("--dice", "5", "--advantage", "2", "--disadvantage", "1", "--level", "critical", "--danger")
    assert made == request(dice=5, advantage=2, disadvantage=1, level="critical", danger=True)
    assert made.pool == 6
    assert cli("--skill", "3", "--field", "1").pool == 4
    assert cli("--dice", "3", "--level", "Extreme").level == "extreme"


@pytest.mark.parametrize(
    "args",
    [("--dice", "12"), ("--dice", "3", "--level", "legendary"), ("--dice", "3", "--advantage", "5"), ()],
)
def test_the_command_line_refuses_what_the_rules_do(args: tuple[str, ...]) -> None:
    with pytest.raises(RulesError):
        cli(*args)


def test_cli_extra_odds_lists_each_advantage_step() -> None:
    lines = system.cli_extra_odds(request(dice=3, level="basic"))
    assert set(lines) == {f"with net Advantage {n:+d}" for n in (-3, -2, -1, 1, 2, 3)}


# -- every request ------------------------------------------------------------------------------

valid_requests = st.one_of(
    st.fixed_dictionaries({"dice": st.integers(1, 9)}),
    st.integers(0, 9).flatmap(
        lambda skill: st.fixed_dictionaries(
            {"skill": st.just(skill), "field": st.integers(max(0, 1 - skill), 9 - skill)}
        )
    ),
).flatmap(
    lambda base: st.fixed_dictionaries(
        {
            **{key: st.just(value) for key, value in base.items()},
            "advantage": st.integers(0, 3),
            "disadvantage": st.integers(0, 3),
            "level": st.sampled_from((*kinds.LEVELS, "Basic", "IMPOSSIBLE", "")),
            "danger": st.sampled_from([True, False, "on", "", "0"]),
        }
    )
)

junk = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-20, 20),
    st.floats(allow_nan=True),
    st.text(max_size=5),
    st.lists(st.integers(), max_size=2),
    st.dictionaries(st.text(max_size=2), st.integers(), max_size=1),
)


@settings(max_examples=150, deadline=None)
@given(valid_requests, st.integers(0, 2**32))
def test_every_valid_request_rolls_evaluates_and_has_odds(data: dict[str, Any], seed: int) -> None:
    made = system.parse_request(data)
    assert 1 <= made.pool <= kinds.MAX_DICE
    assert system.parse_request(system.request_dict(made)) == made
    state = system.roll(made, random.Random(seed))
    result = system.evaluate(state)
    assert result.key in system.outcomes(made)
    assert system.outcomes(made)[result.key] > 0
    assert len(system.view(state)[0].dice) == made.pool
    assert system.follow_ups(state, {}) == []
    assert sum(system.outcomes(made).values()) == 1
    assert 0 <= system.chance(made) <= 1


@settings(max_examples=300, deadline=None)
@given(
    st.dictionaries(
        st.sampled_from(["dice", "skill", "field", "advantage", "disadvantage", "level", "danger"]),
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
    assert 1 <= made.pool <= kinds.MAX_DICE
    system.evaluate(system.roll(made, random.Random(0)))


def test_apply_never_changes_the_state_it_was_given() -> None:
    state = state_with([2, 2, 3])
    before = json.dumps(state)
    with pytest.raises(RulesError):
        system.apply(state, "push", {}, {}, random.Random(0))
    assert json.dumps(state) == before
