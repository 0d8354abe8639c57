"""`sixes`: count the sixes (rules SIX-1..SIX-22 in /work/shared/RULES.md).

No database, seeded dice, exact odds. Every rule has at least one test carrying its ID. Rules
about the table are tested through what the engine offers the table (outcome details, the
follow-ups, ``kid_versus_kid``, ``extended_trouble``, ``luck_max``, the RulesErrors).
"""

from __future__ import annotations

import argparse
import copy
import itertools
import json
import random
import re
from collections import Counter
from fractions import Fraction
from functools import cache
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rolls import registry
from rolls.systems import RulesError
from rolls.systems import sixes as sixes_module
from rolls.systems.base import Applied, Die, FollowUp, Outcome, Param, StepView
from rolls.systems.sixes import (
    CONDITIONS,
    MAX_DICE,
    SixesRequest,
    extended_trouble,
    kid_versus_kid,
    luck_max,
)
from tests.dice import ScriptedDice

system = registry.engine("sixes")

HIT = Fraction(1, 6)
MISS = Fraction(5, 6)
FACES = (1, 2, 3, 4, 5, 6)
SEEDS = range(20)
SAID = "Olle grits his teeth and pedals harder"  # what the kid does to push (SIX-23)


# --------------------------------------------------------------------------------------------
# Helpers


def make_request(**fields: Any) -> SixesRequest:
    return system.parse_request(fields)


def state_of(dice: list[int], *later: dict[str, Any], **fields: Any) -> dict[str, Any]:
    """A hand-built state: a request as the engine stores it, then the roll and later steps."""
    fields.setdefault("dice", len(dice))
    request = system.request_dict(system.parse_request(fields))
    return {"system": "sixes", "request": request, "steps": [{"action": "roll", "dice": list(dice)}, *later]}


def pushed_step(dice: list[int], rerolled: list[int], condition: str = "Scared") -> dict[str, Any]:
    return {"action": "push", "dice": dice, "rerolled": rerolled, "condition": condition}


def outcome_of(dice: list[int], **fields: Any) -> Outcome:
    return system.evaluate(state_of(dice, **fields))


def luck_step(dice: list[int], rerolled: list[int]) -> dict[str, Any]:
    return {"action": "luck", "dice": dice, "rerolled": rerolled}


def resources(**overrides: Any) -> dict[str, Any]:
    """What a fresh kid has: the latest roll, every Condition unchecked, Luck, Pride."""
    have: dict[str, Any] = {"latest": True, "conditions": list(CONDITIONS), "luck": 3, "pride": True}
    have.update(overrides)
    return have


def apply(
    state: dict[str, Any],
    action: str,
    params: dict[str, Any] | None = None,
    have: dict[str, Any] | None = None,
    rng: random.Random | None = None,
) -> Applied:
    """``system.apply`` that also checks it never touches the state or the resources it is given.
    A push is described (SIX-23): one line is said for it unless ``params`` names its own."""
    have = resources() if have is None else have
    params = {} if params is None else params
    if action == "push" and "description" not in params:
        params = {**params, "description": SAID}
    state_before, have_before = copy.deepcopy(state), copy.deepcopy(have)
    try:
        return system.apply(state, action, params, have, rng or random.Random(0))
    finally:
        assert state == state_before, "apply mutated the state it was given"
        assert have == have_before, "apply mutated the resources it was given"


def refuses(state: dict[str, Any], action: str, message: str, params=None, have=None) -> None:
    """The follow-up is refused with exactly ``message``, and not offered as a button either."""
    have = resources() if have is None else have
    with pytest.raises(RulesError, match=f"^{re.escape(message)}$"):
        apply(state, action, params, have)
    assert action not in actions(state, have)


def actions(state: dict[str, Any], have: dict[str, Any] | None = None) -> list[str]:
    return [up.action for up in system.follow_ups(state, resources() if have is None else have)]


def follow_up(state: dict[str, Any], action: str, have: dict[str, Any] | None = None) -> FollowUp:
    (found,) = [
        up for up in system.follow_ups(state, resources() if have is None else have) if up.action == action
    ]
    return found


def draws(seed: int, count: int) -> list[int]:
    rng = random.Random(seed)
    return [rng.randint(1, 6) for _ in range(count)]


@cache
def brute_force_chance(dice: int, need: int, rerolls: int) -> Fraction:
    """P(at least ``need`` sixes) by walking all 6**dice ordered rolls; after a failure the dice
    that are not sixes are rerolled (a push or a Luck point), up to ``rerolls`` times."""
    if need <= 0:
        return Fraction(1)
    rolls = list(itertools.product(FACES, repeat=dice))
    total = Fraction(0)
    for faces in rolls:
        sixes = faces.count(6)
        if sixes >= need:
            total += 1
        elif rerolls:
            total += brute_force_chance(dice - sixes, need - sixes, rerolls - 1)
    return total / len(rolls)


# --------------------------------------------------------------------------------------------
# SIX-1..4: the pool, the successes, the need, the Iconic Item


def test_six_1_pool_is_attribute_plus_skill():
    """SIX-1: mind 4 and comprehend 3, "for a total of seven dice"."""
    request = make_request(attribute=4, skill=3)
    assert (request.dice, request.attribute, request.skill) == (7, 4, 3)


@pytest.mark.parametrize("skill", [None, "", 0, "0"])
def test_six_1_with_no_suitable_skill_the_attribute_alone_is_rolled(skill):
    """SIX-1: no skill, only the attribute's dice."""
    assert make_request(attribute=3, skill=skill).dice == 3
    assert make_request(attribute=3).dice == 3


def test_six_1_a_plain_pool_can_be_asked_for_by_its_size():
    """SIX-1: the command line and the quick-roll form give the pool size directly."""
    request = make_request(dice=5)
    assert (request.dice, request.attribute, request.skill) == (5, None, 0)


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"attribute": 0}, "The attribute must be between 1 and 5 (got 0)."),
        ({"attribute": 6}, "The attribute must be between 1 and 5 (got 6)."),
        ({"attribute": 3, "skill": 6}, "The skill must be between 0 and 5 (got 6)."),
        ({"attribute": 3, "skill": -1}, "The skill must be between 0 and 5 (got -1)."),
        ({"attribute": "abc"}, "The attribute must be a whole number."),
        ({"attribute": 3, "skill": 1.5}, "The skill must be a whole number."),
    ],
)
def test_six_1_attribute_and_skill_are_refused_outside_their_scales(fields, message):
    """SIX-1: attributes run 1-5, skills 0-5."""
    with pytest.raises(RulesError, match=f"^{re.escape(message)}$"):
        system.parse_request(fields)


@pytest.mark.parametrize("seed", SEEDS)
def test_six_1_a_roll_draws_one_die_per_point_of_pool_from_the_injected_source(seed):
    """SIX-1: the roll is the pool, drawn from the random source the caller injects."""
    state = system.roll(make_request(attribute=4, skill=3), random.Random(seed))
    assert state["system"] == "sixes"
    assert state["request"] == system.request_dict(make_request(attribute=4, skill=3))
    assert state["steps"] == [{"action": "roll", "dice": draws(seed, 7)}]
    assert json.loads(json.dumps(state)) == state  # plain JSON-able data


@pytest.mark.parametrize(
    ("dice", "key", "success"),
    [
        ([5, 5, 5, 5], "0", False),
        ([1, 2, 3, 4, 5], "0", False),
        ([6], "1", True),
        ([6, 1, 2], "1", True),
        ([6, 6, 5], "2", True),
        ([6, 6, 6, 6, 6, 6, 6], "7", True),
    ],
)
def test_six_2_every_six_is_a_success_and_nothing_else_is(dice, key, success):
    """SIX-2: only a six is a success; ``Outcome.key`` counts the sixes."""
    outcome = system.evaluate(state_of(dice))
    assert (outcome.key, outcome.success) == (key, success)
    assert system.result_name == "sixes"


def test_six_2_only_the_sixes_are_drawn_as_hits():
    """SIX-2: the card marks the sixes."""
    (roll,) = system.view(state_of([6, 5, 1, 6]))
    assert [die.hit for die in roll.dice] == [True, False, False, True]


def test_six_3_one_success_is_needed_unless_the_gm_asks_for_more():
    """SIX-3: one success as a rule."""
    assert make_request(dice=3).need == 1
    assert system.evaluate(state_of([6, 1, 1])).headline == "Success: 1 of 1 needed"


@pytest.mark.parametrize(
    ("dice", "need", "success"),
    [([6, 5, 5], 2, False), ([6, 6, 1], 2, True), ([6, 6, 1], 3, False), ([6, 6, 6], 3, True)],
)
def test_six_3_the_gm_may_demand_two_or_three_successes(dice, need, success):
    """SIX-3: two or even three successes for the almost impossible."""
    outcome = system.evaluate(state_of(dice, need=need))
    assert outcome.success is success
    assert outcome.headline.endswith(f"of {need} needed")


@pytest.mark.parametrize("need", [0, 4, -1, "abc", 1.5, True])
def test_six_3_need_is_one_to_three(need):
    """SIX-3: never fewer than one success, never more than three."""
    with pytest.raises(RulesError, match=r"^Successes needed must be"):
        make_request(dice=3, need=need)


def test_six_4_the_iconic_item_adds_two_dice():
    """SIX-4: the Iconic Item gives two extra dice."""
    assert make_request(attribute=2, skill=1, item=True).dice == 5
    assert make_request(attribute=2, skill=1, item="on").dice == 5
    assert make_request(attribute=2, skill=1, item="").dice == 3
    assert make_request(attribute=2, skill=1, item=True).item is True


def test_six_4_the_largest_pool_is_thirteen_dice():
    """SIX-4 with SIX-15: attribute 5 + skill 5 + Iconic Item 2 + one helper 1."""
    assert make_request(attribute=5, skill=5, item=True, helper=True).dice == MAX_DICE == 13
    assert make_request(dice=13).dice == 13
    with pytest.raises(RulesError, match=r"^The number of dice must be between 1 and 13 \(got 14\)\.$"):
        make_request(dice=14)


# --------------------------------------------------------------------------------------------
# SIX-5: Pride


def test_six_5_pride_after_a_failed_roll_is_an_automatic_success():
    """SIX-5: Pride after a failure; it costs the Pride of this Mystery."""
    state = state_of([1, 2, 3])
    applied = apply(state, "pride")
    assert applied.costs == {"pride": 1}
    assert applied.state["steps"][-1] == {"action": "pride"}
    outcome = system.evaluate(applied.state)
    assert outcome.success is True
    assert outcome.key == "0"  # the dice still show no six; Pride is not a die
    assert outcome.headline == "Success: 1 of 1 needed"


def test_six_5_pride_after_a_successful_roll_adds_a_success():
    """SIX-5: Pride after a success adds one."""
    applied = apply(state_of([6, 2]), "pride")
    outcome = system.evaluate(applied.state)
    assert (outcome.success, outcome.margin, outcome.headline) == (True, 1, "Success: 2 of 1 needed")


def test_six_5_pride_is_shown_as_a_step_without_dice():
    """SIX-5: the card shows the automatic success as its own step."""
    views = system.view(apply(state_of([1, 2]), "pride").state)
    assert views[-1] == StepView("pride", "Pride: one automatic success")


@pytest.mark.parametrize("pride", [False, None, 0])
def test_six_5_pride_is_refused_once_used_in_this_mystery(pride):
    """SIX-5: once per Mystery; the sheet says whether it is still there."""
    refuses(
        state_of([1, 2, 3]),
        "pride",
        "Pride has been used already in this Mystery.",
        have=resources(pride=pride),
    )


def test_six_5_pride_is_refused_when_the_sheet_does_not_say():
    """SIX-5: no Pride in the resources means none to use."""
    have = resources()
    del have["pride"]
    refuses(state_of([1, 2, 3]), "pride", "Pride has been used already in this Mystery.", have=have)


def test_six_5_pride_is_refused_twice_on_one_roll():
    """SIX-5: once per roll (and once per Mystery anyway), even if the sheet still says yes."""
    state = apply(state_of([1, 2, 3], need=3), "pride").state
    refuses(state, "pride", "Pride has been used on this roll already.")


def test_six_5_pride_may_follow_a_push_and_a_luck_point():
    """SIX-5 with SIX-12: Pride adds a success to whatever the chain shows now."""
    state = state_of([6, 1], pushed_step([6, 2], [1]), luck_step([6, 3], [1]), need=2)
    assert actions(state) == ["pride"]
    assert system.evaluate(apply(state, "pride").state).success is True


# --------------------------------------------------------------------------------------------
# SIX-6..8: Luck


@pytest.mark.parametrize("seed", SEEDS)
def test_six_6_luck_rerolls_the_failed_dice_and_keeps_the_sixes(seed):
    """SIX-6: a Luck point rerolls the dice that failed, with no Condition to check."""
    state = state_of([6, 2, 3, 6, 1], need=3)
    applied = apply(state, "luck", rng=random.Random(seed))
    assert applied.costs == {"luck": 1}
    step = applied.state["steps"][-1]
    new = draws(seed, 3)
    assert step == {"action": "luck", "dice": [6, new[0], new[1], 6, new[2]], "rerolled": [1, 2, 4]}
    assert "condition" not in step


def test_six_6_the_earlier_result_is_gone_after_luck():
    """SIX-6: the outcome follows the rerolled dice; the first roll stays only as history."""
    state = state_of([1, 2, 3], luck_step([4, 6, 5], [0, 1, 2]))
    outcome = system.evaluate(state)
    assert (outcome.success, outcome.key) == (True, "1")
    rolled, lucky = system.view(state)
    assert [die.face for die in rolled.dice] == [1, 2, 3]
    assert lucky.title == "Luck point: rerolled the failed dice"
    assert [die.face for die in lucky.dice] == [4, 6, 5]


def test_six_6_luck_is_refused_on_a_success():
    """SIX-6: Luck is spent after a failed roll only."""
    refuses(state_of([6, 2, 3]), "luck", "Luck is spent after a failed roll, and this one succeeded.")


def test_six_6_luck_is_refused_once_pride_made_the_roll_succeed():
    """SIX-6: a roll that Pride turned into a success is no longer failed."""
    state = state_of([1, 2, 3], {"action": "pride"})
    refuses(state, "luck", "Luck is spent after a failed roll, and this one succeeded.")


def test_six_7_a_second_luck_point_on_one_roll_is_refused():
    """SIX-7: at most one Luck point on one roll."""
    state = apply(state_of([1, 2, 3], need=3), "luck", rng=random.Random(1)).state
    assert system.evaluate(state).success is False
    refuses(
        state,
        "luck",
        "A Luck point has been spent on this roll already; one per roll.",
        have=resources(luck=5),
    )


@pytest.mark.parametrize("luck", [0, -1, "0"])
def test_six_7_luck_is_refused_without_a_luck_point(luck):
    """SIX-7/8: no Luck point left, no reroll."""
    refuses(state_of([1, 2, 3]), "luck", "No Luck points left.", have=resources(luck=luck))


def test_six_7_luck_is_refused_when_the_sheet_does_not_say():
    """SIX-7/8: no Luck in the resources means no point to spend."""
    have = resources()
    del have["luck"]
    refuses(state_of([1, 2, 3]), "luck", "No Luck points left.", have=have)


@pytest.mark.parametrize(("age", "most"), [(10, 5), (11, 4), (12, 3), (13, 2), (14, 1), (15, 0)])
def test_six_8_the_luck_maximum_is_fifteen_minus_age(age, most):
    """SIX-8: Luck maximum = 15 - age (the table refills it each session; nothing carries over)."""
    assert luck_max(age) == most


@pytest.mark.parametrize("age", [9, 16, 0, -1])
def test_six_8_ages_outside_ten_to_fifteen_are_refused(age):
    """SIX-8: the kids are 10 to 15."""
    with pytest.raises(RulesError, match=r"^Age must be between 10 and 15\.$"):
        luck_max(age)


# --------------------------------------------------------------------------------------------
# SIX-9: failure changes the situation


def test_six_9_a_failure_prompts_the_gm_for_a_consequence():
    """SIX-9: too few successes, the action fails and the GM picks what changes."""
    outcome = system.evaluate(state_of([6, 1, 2], need=2))
    assert outcome == Outcome(
        success=False,
        headline="Failure: 1 of 2 needed",
        key="1",
        tone="failure",
        details=("The situation changes: the GM picks a Condition, new Trouble or a Complication.",),
        margin=0,
    )


def test_six_9_a_success_prompts_nothing():
    """SIX-9: no consequence prompt on a success."""
    outcome = system.evaluate(state_of([6, 1, 2]))
    assert (outcome.tone, outcome.details) == ("success", ())


# --------------------------------------------------------------------------------------------
# SIX-10..14: pushing


def test_six_10_a_failed_roll_may_be_pushed_at_the_cost_of_a_condition():
    """SIX-10: push after a failure."""
    state = state_of([1, 2, 3])
    assert actions(state) == ["push", "luck", "pride"]
    applied = apply(state, "push", {"condition": "Scared"})
    assert applied.costs == {"condition": "Scared"}


def test_six_10_a_successful_roll_may_be_pushed_to_buy_more_effects():
    """SIX-10: push after a success, for more effects."""
    state = state_of([6, 2, 3])
    assert actions(state) == ["push", "pride"]
    applied = apply(state, "push", {"condition": "Upset"}, rng=random.Random(3))
    assert system.evaluate(applied.state).success is True  # the six stays


def test_six_10_push_is_refused_once_pushed():
    """SIX-10: a roll is pushed once."""
    state = apply(state_of([1, 2, 3]), "push", {"condition": "Scared"}).state
    refuses(
        state, "push", "This roll has been pushed already; a roll is pushed once.", {"condition": "Upset"}
    )


def test_six_10_push_is_refused_once_pushed_even_if_it_succeeded():
    """SIX-10: once, whatever the push gave."""
    state = state_of([1, 2], pushed_step([6, 6], [0, 1]))
    refuses(
        state, "push", "This roll has been pushed already; a roll is pushed once.", {"condition": "Upset"}
    )


@pytest.mark.parametrize("latest", [False, None, 0])
def test_six_10_push_is_refused_when_the_roll_is_no_longer_the_latest(latest):
    """SIX-10: immediately after the roll; the table says whether another roll came in between."""
    refuses(
        state_of([1, 2, 3]),
        "push",
        "Only the character's latest roll can be pushed.",
        {"condition": "Scared"},
        resources(latest=latest),
    )


def test_six_10_push_is_refused_when_the_table_does_not_say_it_is_the_latest_roll():
    """SIX-10: without ``latest`` the engine assumes another roll may have come in between."""
    have = resources()
    del have["latest"]
    refuses(
        state_of([1, 2, 3]),
        "push",
        "Only the character's latest roll can be pushed.",
        {"condition": "Scared"},
        have,
    )


@pytest.mark.parametrize("conditions", [[], (), None])
def test_six_10_push_is_refused_with_no_condition_left_to_check(conditions):
    """SIX-10/11: a push checks a Condition; with every one checked there is none to push with."""
    refuses(
        state_of([1, 2, 3]),
        "push",
        "Every Condition is checked already: there is none left to push with.",
        {"condition": "Scared"},
        resources(conditions=conditions),
    )


@pytest.mark.parametrize(
    ("params", "conditions"),
    [
        ({"condition": "Hungry"}, list(CONDITIONS)),
        ({"condition": "Scared"}, ["Upset", "Injured"]),
    ],
)
def test_six_11_push_is_refused_with_a_condition_not_in_the_list(params, conditions):
    """SIX-11: the Condition must be one the kid has not checked yet."""
    with pytest.raises(RulesError, match=r"^Choose a Condition that is not checked yet to push the roll\.$"):
        apply(state_of([1, 2, 3]), "push", params, resources(conditions=conditions))


@pytest.mark.parametrize("condition", ["", "  ", None])
def test_six_11_a_push_names_its_condition_none_is_chosen_for_the_player(condition):
    """SIX-11: "choose any Condition": the player chooses; nothing is picked for them."""
    params = {} if condition is None else {"condition": condition}
    with pytest.raises(RulesError, match=r"^Choose the Condition the push checks: none is chosen for you\.$"):
        apply(state_of([1, 2, 3]), "push", params)
    (push,) = [up for up in system.follow_ups(state_of([1, 2, 3]), resources()) if up.action == "push"]
    assert push.params[0].prompt == "Choose a Condition"


@pytest.mark.parametrize(
    ("said", "message"),
    [
        ("", "What the kid does to push is missing."),
        ("   \t ", "What the kid does to push is missing."),
        ("x" * 161, "What the kid does to push must be at most 160 characters (got 161)."),
        (
            "I run\u202e faster",
            "What the kid does to push cannot hold invisible or control characters (this one has U+202E).",
        ),
        (
            "I\u200brun",
            "What the kid does to push cannot hold invisible or control characters (this one has U+200B).",
        ),
        (
            "I run\nfaster",
            "What the kid does to push cannot hold invisible or control characters (this one has U+000A).",
        ),
        (["a", "b"], "What the kid does to push is missing."),
    ],
)
def test_six_23_a_push_must_be_described_in_one_visible_line(said, message):
    """SIX-23: the player says what the kid does to push themself: required, one line."""
    with pytest.raises(RulesError, match=f"^{re.escape(message)}$"):
        apply(state_of([1, 2, 3]), "push", {"condition": "Scared", "description": said})


def test_six_23_the_description_is_kept_trimmed_and_shown_on_the_pushed_step():
    """SIX-23: what was said stays in the chain, and the card's push step says it."""
    said = "  I climb the fence even though my arm hurts  "
    pushed = apply(state_of([1, 2, 3]), "push", {"condition": "Scared", "description": said}).state
    assert pushed["steps"][-1]["description"] == said.strip()
    step = system.view(pushed)[-1]
    assert step.note == f"“{said.strip()}”"
    description = [p for p in follow_up(state_of([1, 2, 3]), "push").params if p.name == "description"]
    assert description == [
        Param("description", "What does the kid do to push themself?", maximum=160, text=True)
    ]


def test_six_17_group_trouble_says_extra_successes_may_be_given():
    """SIX-17: in group Trouble successes from bonus effects may go to the other kids."""
    assert (
        "Group Trouble: extra successes may go to the other kids." in outcome_of([6, 6], group=True).details
    )
    assert "Group Trouble: extra successes may go to the other kids." not in outcome_of([6, 6]).details


@pytest.mark.parametrize("seed", SEEDS)
def test_six_11_push_checks_a_condition_then_rerolls_every_die_but_the_sixes_in_place(seed):
    """SIX-11: the sixes stay where they lie; the others are rerolled from the injected source."""
    state = state_of([6, 2, 6, 3, 1], need=3)
    applied = apply(state, "push", {"condition": "exhausted"}, rng=random.Random(seed))
    assert applied.costs == {"condition": "Exhausted"}  # the player's choice, spelled as on the sheet
    new = draws(seed, 3)
    assert applied.state["steps"] == [
        {"action": "roll", "dice": [6, 2, 6, 3, 1]},
        {
            "action": "push",
            "dice": [6, new[0], 6, new[1], new[2]],
            "rerolled": [1, 3, 4],
            "condition": "Exhausted",
            "description": SAID,
        },
    ]


def test_six_11_the_card_marks_only_the_rerolled_dice_as_new():
    """SIX-11: the kept sixes are not new dice."""
    state = state_of([6, 2, 3], pushed_step([6, 6, 4], [1, 2], "Injured"))
    rolled, pushed = system.view(state)
    assert rolled == StepView(
        "roll", "Rolled 3 dice", (Die(6, hit=True, new=True), Die(2, new=True), Die(3, new=True))
    )
    assert pushed == StepView(
        "push", "Pushed, checking Injured", (Die(6, hit=True), Die(6, hit=True, new=True), Die(4, new=True))
    )


def test_six_11_a_roll_of_all_sixes_offers_no_push_or_luck():
    """SIX-11: nothing but sixes leaves nothing to reroll, so neither a push nor Luck is offered
    (either would cost a Condition or a point for nothing)."""
    state = state_of([6, 6], need=3)
    with pytest.raises(RulesError, match="nothing to reroll"):
        apply(state, "push", {"condition": "Upset"}, rng=ScriptedDice())
    with pytest.raises(RulesError, match="nothing to reroll"):
        apply(state, "luck", rng=ScriptedDice())
    assert actions(state) == ["pride"]


def test_six_12_a_failed_push_cannot_be_pushed_but_may_take_luck_and_pride():
    """SIX-12: after a failed push, Luck and Pride stay available."""
    state = state_of([1, 2, 3], pushed_step([4, 5, 1], [0, 1, 2]))
    assert system.evaluate(state).success is False
    assert actions(state) == ["luck", "pride"]
    lucky = apply(state, "luck", rng=random.Random(2))
    assert lucky.costs == {"luck": 1}
    proud = apply(state, "pride")
    assert proud.costs == {"pride": 1}
    assert system.evaluate(proud.state).success is True


def test_six_13_a_pushed_roll_that_still_fails_against_a_threat_asks_for_a_second_condition():
    """SIX-13: threat of a Condition + pushed + still failed: a second Condition may be checked."""
    state = state_of([1, 2], pushed_step([3, 4], [0, 1]), threat=True)
    assert system.evaluate(state).details == (
        "The situation changes: the GM picks a Condition, new Trouble or a Complication.",
        "Pushed and still failed against a threat: check a second Condition.",
    )


@pytest.mark.parametrize(
    ("steps", "threat"),
    [
        ([], True),  # not pushed
        ([pushed_step([3, 4], [0, 1])], False),  # no threat
        ([pushed_step([6, 4], [0, 1])], True),  # the push succeeded
    ],
)
def test_six_13_no_second_condition_otherwise(steps, threat):
    """SIX-13: only a pushed, failed roll against a threat asks for a second Condition."""
    details = system.evaluate(state_of([1, 2], *steps, threat=threat)).details
    assert not any("second Condition" in line for line in details)


def test_six_14_luck_may_come_before_the_push():
    """SIX-14: a push may come after the Luck point."""
    state = apply(state_of([1, 2, 3], need=3), "luck", rng=random.Random(4)).state
    assert "push" in actions(state)
    pushed = apply(state, "push", {"condition": "Upset"}, rng=random.Random(5)).state
    assert [step["action"] for step in pushed["steps"]] == ["roll", "luck", "push"]


def test_six_14_luck_may_come_after_the_push():
    """SIX-14: a push may come before the Luck point."""
    state = apply(state_of([1, 2, 3], need=3), "push", {"condition": "Upset"}, rng=random.Random(4)).state
    assert "luck" in actions(state)
    lucky = apply(state, "luck", rng=random.Random(5)).state
    assert [step["action"] for step in lucky["steps"]] == ["roll", "push", "luck"]


def test_six_14_a_lucky_roll_is_still_pushed_only_once():
    """SIX-14 with SIX-10: Luck in between does not allow a second push."""
    state = state_of([1, 2], pushed_step([1, 3], [0, 1]), luck_step([2, 2], [0, 1]))
    refuses(
        state, "push", "This roll has been pushed already; a roll is pushed once.", {"condition": "Upset"}
    )


# --------------------------------------------------------------------------------------------
# SIX-15..17: help and group Trouble


def test_six_15_a_helper_adds_one_die():
    """SIX-15: one friend helps, one extra die."""
    assert make_request(attribute=2, skill=1, helper=True).dice == 4
    assert make_request(attribute=2, skill=1, item=True, helper=True).dice == 6


@pytest.mark.parametrize("helper", [2, "2", "two", 1.5])
def test_six_15_help_is_one_friend_at_most(helper):
    """SIX-15: help is a yes or no, never a count of friends."""
    with pytest.raises(RulesError, match=r"^The choice 'helper' must be yes or no\.$"):
        make_request(attribute=2, helper=helper)


def test_six_16_the_helper_shares_a_failure():
    """SIX-16: bound to the outcome; on failure the card says the helper suffers the same."""
    outcome = system.evaluate(state_of([1, 2, 3], helper=True))
    assert "The helper suffers the same effects." in outcome.details


def test_six_16_the_helper_shares_nothing_on_a_success():
    """SIX-16: nothing to share when the roll succeeds."""
    outcome = system.evaluate(state_of([6, 2, 3], helper=True))
    assert outcome.details == ()


def test_six_17_nobody_helps_in_group_trouble():
    """SIX-17: everyone faces the same Trouble and rolls for themself."""
    with pytest.raises(
        RulesError, match=r"^Nobody can help in group Trouble: everyone rolls for themself\.$"
    ):
        make_request(attribute=3, helper=True, group=True)
    with pytest.raises(RulesError, match=r"^Nobody can help in group Trouble"):
        make_request(dice=3, helper="on", group="yes")


def test_six_17_a_group_roll_reports_the_extra_successes_to_give_away():
    """SIX-17 with SIX-21: successes beyond the need buy effects the kids may pass to each other."""
    request = make_request(attribute=3, group=True)
    assert request.group is True
    outcome = system.evaluate(state_of([6, 6, 1], attribute=3, group=True))
    assert outcome.margin == 1


# --------------------------------------------------------------------------------------------
# SIX-18..20: kids against kids, Extended Trouble


def test_six_18_the_kid_with_the_most_successes_wins():
    """SIX-18: the most successes wins and says what happens."""
    assert kid_versus_kid({"Ann": 2, "Ben": 1, "Cat": 0}) == "Ann"


def test_six_18_a_tie_has_no_winner_yet():
    """SIX-18: a tie waits for pushes and bought successes."""
    assert kid_versus_kid({"Ann": 1, "Ben": 1}) is None
    assert kid_versus_kid({"Ann": 0, "Ben": 0, "Cat": 0}) is None


def test_six_18_every_kid_may_push_even_a_winning_roll():
    """SIX-18: everyone may push, the leader too (SIX-10: a success may be pushed)."""
    ann, ben = state_of([6, 2]), state_of([3, 2])
    assert "push" in actions(ann)
    assert "push" in actions(ben)


def test_six_18_a_contest_needs_kids():
    """SIX-18: nobody to compare, no contest."""
    with pytest.raises(RulesError, match=r"^A contest needs at least two kids\.$"):
        kid_versus_kid({})


def test_six_18_a_contest_of_one_kid_is_refused():
    """SIX-18: "two or more Kids". BUG: one kid is declared the winner although the error
    message of the same function says a contest needs at least two kids."""
    try:
        winner = kid_versus_kid({"Ann": 1})
    except RulesError:
        return
    pytest.fail(
        f"BUG: kid_versus_kid({{'Ann': 1}}) returned {winner!r} instead of refusing a one-kid contest"
    )


def test_six_19_a_tie_is_broken_by_successes_bought_with_conditions():
    """SIX-19: one success per checked Condition, Broken included."""
    assert kid_versus_kid({"Ann": 1, "Ben": 1}, {"Ben": 1}) == "Ben"
    # Ann checks two Conditions (the second one is Broken), Ben one.
    assert kid_versus_kid({"Ann": 1, "Ben": 1}, {"Ann": 2, "Ben": 1}) == "Ann"


def test_six_19_still_tied_after_buying_interrupts_the_scene():
    """SIX-19: still tied, no winner: the scene is interrupted."""
    assert kid_versus_kid({"Ann": 1, "Ben": 1}, {"Ann": 1, "Ben": 1}) is None
    assert kid_versus_kid({"Ann": 1, "Ben": 1}, {}) is None


def test_six_19_only_a_kid_tied_for_the_lead_may_buy_successes():
    """SIX-19: successes are bought "if you get equal numbers of successes after the push".
    BUG: kid_versus_kid lets a kid who lost outright buy their way past the winner."""
    try:
        winner = kid_versus_kid({"Ann": 2, "Ben": 1}, {"Ben": 2})
    except RulesError:
        return
    assert winner == "Ann", (
        f"BUG: Ann won outright 2-1, yet kid_versus_kid gave the contest to {winner!r} after Ben bought 2"
    )


def test_six_20_extended_trouble_needs_every_part_by_default():
    """SIX-20: each kid's part counts toward the plan's final success or failure."""
    assert extended_trouble([True, True, True]) is True
    assert extended_trouble([True, False, True]) is False


def test_six_20_the_gm_may_ask_for_fewer_parts():
    """SIX-20: the plan succeeds once the parts the GM asked for succeeded."""
    assert extended_trouble([True, False, True], needed=2) is True
    assert extended_trouble([True, False, False], needed=2) is False


def test_six_20_extended_trouble_refuses_impossible_plans():
    """SIX-20: at least one part, and a need between 1 and the number of parts."""
    with pytest.raises(RulesError, match=r"^Extended Trouble needs at least one kid's part\.$"):
        extended_trouble([])
    for needed in (0, 4):
        with pytest.raises(RulesError, match=r"^The plan needs between 1 and 3 successful parts\.$"):
            extended_trouble([True, True, True], needed=needed)


def test_six_20_each_part_is_its_own_roll():
    """SIX-20: every kid rolls for their part; the parts are the rolls' outcomes."""
    parts = [system.evaluate(state_of(dice)).success for dice in ([6, 1], [2, 3], [6, 6])]
    assert parts == [True, False, True]
    assert extended_trouble(parts) is False
    assert extended_trouble(parts, needed=2) is True


# --------------------------------------------------------------------------------------------
# SIX-21, 22: effects and Conditions


@pytest.mark.parametrize(
    ("dice", "need", "margin", "details"),
    [
        ([6, 1], 1, 0, ()),
        ([6, 6], 1, 1, ("1 extra success to buy effects.",)),
        ([6, 6, 6], 1, 2, ("2 extra successes to buy effects.",)),
        ([6, 6, 6], 2, 1, ("1 extra success to buy effects.",)),
        ([6, 6, 6, 6], 2, 2, ("2 extra successes to buy effects.",)),
    ],
)
def test_six_21_successes_beyond_the_need_buy_effects(dice, need, margin, details):
    """SIX-21: the margin counts the successes beyond those needed."""
    outcome = system.evaluate(state_of(dice, need=need))
    assert (outcome.margin, outcome.details, outcome.tone) == (margin, details, "success")


def test_six_21_pride_counts_toward_the_effects():
    """SIX-21 with SIX-5: Pride after a success adds a success to buy effects with."""
    outcome = system.evaluate(state_of([6, 6], {"action": "pride"}))
    assert (outcome.margin, outcome.details) == (2, ("2 extra successes to buy effects.",))


def test_six_22_the_five_conditions():
    """SIX-22: Upset, Scared, Exhausted, Injured, Broken."""
    assert CONDITIONS == ("Upset", "Scared", "Exhausted", "Injured", "Broken")


def test_six_22_the_module_states_what_broken_does():
    """SIX-22 (decide): the module docstring records the choice."""
    doc = " ".join((sixes_module.__doc__ or "").split())
    assert "Broken (SIX-22)" in doc
    assert "cannot roll until the GM clears Broken" in doc


@pytest.mark.parametrize("seed", SEEDS[:5])
def test_six_22_a_push_may_check_broken_and_the_pushed_dice_still_count(seed):
    """SIX-22: a kid may push themself as far as Broken; the pushed dice count as usual.

    The engine leaves "a Broken kid cannot roll" to the table (the sheet knows the Conditions):
    the table-level refusal is tested in tests/test_rolls.py."""
    state = state_of([1, 2, 6])
    have = resources(conditions=["Broken"])
    up = follow_up(state, "push", have)
    assert up.params == (
        Param("condition", "Condition to check", ("Broken",), prompt="Choose a Condition"),
        Param("description", "What does the kid do to push themself?", maximum=160, text=True),
    )
    applied = apply(state, "push", {"condition": "broken"}, have, random.Random(seed))
    assert applied.costs == {"condition": "Broken"}
    dice = applied.state["steps"][-1]["dice"]
    assert system.evaluate(applied.state).key == str(dice.count(6))


def test_six_22_conditions_change_no_pool():
    """SIX-22: the four ordinary Conditions (and Broken) do not remove dice: a request has none."""
    assert "condition" not in system.request_dict(make_request(attribute=3, skill=2))
    assert make_request(attribute=3, skill=2, conditions=["Injured", "Broken"]).dice == 5


# --------------------------------------------------------------------------------------------
# Follow-ups in general


def test_follow_ups_for_a_fresh_failure_with_everything_in_hand():
    state = state_of([6, 2, 3], need=2)
    push, luck, pride = system.follow_ups(state, resources(conditions=["Upset", "Broken"]))
    chance = 1 - MISS**2  # one more six from the two dice that are not sixes
    assert push == FollowUp(
        "push",
        "Push the roll",
        cost="a checked Condition",
        params=(
            Param("condition", "Condition to check", ("Upset", "Broken"), prompt="Choose a Condition"),
            Param("description", "What does the kid do to push themself?", maximum=160, text=True),
        ),
        chance_before=Fraction(0),
        chance_after=chance,
        spends=True,
    )
    assert luck == FollowUp(
        "luck", "Spend a Luck point", "1 Luck point", (), Fraction(0), chance, spends=True
    )
    assert pride == FollowUp(
        "pride", "Use Pride", "Pride, once per Mystery", (), Fraction(0), Fraction(1), spends=True
    )


def test_follow_ups_for_a_success_offer_a_push_and_pride_at_certainty():
    push, pride = system.follow_ups(state_of([6, 1]), resources())
    assert (push.action, push.chance_before, push.chance_after) == ("push", 1, 1)
    assert (pride.action, pride.chance_before, pride.chance_after) == ("pride", 1, 1)


def test_no_follow_ups_without_resources():
    assert system.follow_ups(state_of([1, 2, 3]), {}) == []


@pytest.mark.parametrize(
    ("dice", "later", "need", "action", "after"),
    [
        ([1, 2, 3], [], 1, "push", 1 - MISS**3),
        ([1, 2, 3], [], 1, "luck", Fraction(91, 216)),
        ([6, 1, 1], [], 3, "push", HIT**2),
        ([6, 1, 1], [], 3, "pride", Fraction(0)),
        ([6, 6, 1], [], 3, "pride", Fraction(1)),
        ([1, 1, 1, 1], [], 2, "push", 1 - MISS**4 - 4 * HIT * MISS**3),
        ([6, 1], [pushed_step([6, 2], [1])], 2, "luck", HIT),
        ([1, 1], [{"action": "pride"}], 2, "luck", 1 - MISS**2),
        ([1, 1, 1], [{"action": "pride"}], 3, "push", 3 * HIT**2 * MISS + HIT**3),
    ],
)
def test_follow_up_chance_after_is_exact(dice, later, need, action, after):
    up = follow_up(state_of(dice, *later, need=need), action)
    assert (up.chance_before, up.chance_after) == (0, after)


def test_follow_up_chance_after_matches_brute_force():
    for dice in ([1], [1, 2], [6, 2, 3], [6, 6, 1, 2]):
        for need in (1, 2, 3):
            state = state_of(dice, need=need)
            if system.evaluate(state).success:
                continue
            misses = len(dice) - dice.count(6)
            expected = brute_force_chance(misses, need - dice.count(6), 0)
            assert follow_up(state, "push").chance_after == expected
            assert follow_up(state, "luck").chance_after == expected


@pytest.mark.parametrize("action", ["reroll", "Push", "help", "", "pride "])
def test_an_unknown_follow_up_is_refused(action):
    with pytest.raises(RulesError, match=f"^{re.escape(repr(action))} is not a follow-up in this system\\.$"):
        apply(state_of([1, 2, 3]), action)


def test_apply_never_mutates_the_state_it_is_given():
    state = state_of([6, 2, 3], need=2)
    before = copy.deepcopy(state)
    pushed = system.apply(
        state, "push", {"condition": "Upset", "description": SAID}, resources(), random.Random(1)
    )
    lucky = system.apply(pushed.state, "luck", {}, resources(), random.Random(2))
    system.apply(lucky.state, "pride", {}, resources(), random.Random(3))
    assert state == before
    assert len(pushed.state["steps"]) == 2
    assert len(lucky.state["steps"]) == 3
    lucky.state["steps"][0]["dice"][0] = 1
    assert state == before and pushed.state["steps"][0]["dice"] == [6, 2, 3]


def test_a_refused_follow_up_leaves_the_state_alone():
    state = state_of([1, 2, 3])
    before = copy.deepcopy(state)
    for action, params in [("push", {"condition": "Hungry"}), ("reroll", {})]:
        with pytest.raises(RulesError):
            system.apply(state, action, params, resources(), random.Random(0))
    assert state == before


@pytest.mark.parametrize(
    ("action", "params", "have"),
    [
        ("push", {"condition": "Hungry"}, resources()),
        ("push", {}, resources()),
        ("push", {"condition": "Scared"}, resources(latest=False)),
        ("luck", {}, resources(luck=0)),
    ],
)
def test_a_refused_follow_up_draws_no_dice(action, params, have):
    """A refusal has no side effect, on the random source either: seeded replays stay aligned.
    BUG (Sixes.apply): the Condition a push checks is validated only after the dice have been
    rerolled, so a push refused for its Condition has already drawn from the random source."""
    rng = random.Random(0)
    before = rng.getstate()
    with pytest.raises(RulesError):
        system.apply(state_of([1, 2, 3]), action, params, have, rng)
    assert rng.getstate() == before, (
        f"BUG: a refused {action} with {params} drew dice from the random source before refusing"
    )


@pytest.mark.parametrize("seed", SEEDS)
def test_a_whole_chain_replays_from_a_seed(seed):
    request = make_request(attribute=2, skill=1, need=2)
    rng = random.Random(seed)
    state = system.roll(request, rng)
    for action, params in [("push", {"condition": "Scared"}), ("luck", {}), ("pride", {})]:
        if action in actions(state):
            state = apply(state, action, params, rng=rng).state
    replay_rng = random.Random(seed)
    replay = system.roll(request, replay_rng)
    for step in state["steps"][1:]:
        replay = apply(replay, step["action"], {"condition": step.get("condition", "")}, rng=replay_rng).state
    assert replay == state


# --------------------------------------------------------------------------------------------
# Exact odds


@pytest.mark.parametrize(
    ("dice", "expected"),
    [
        (1, {"0": Fraction(5, 6), "1": Fraction(1, 6)}),
        (2, {"0": Fraction(25, 36), "1": Fraction(10, 36), "2": Fraction(1, 36)}),
        (3, {"0": Fraction(125, 216), "1": Fraction(75, 216), "2": Fraction(15, 216), "3": Fraction(1, 216)}),
    ],
)
def test_outcomes_of_small_pools_by_hand(dice, expected):
    assert system.outcomes(make_request(dice=dice)) == expected


@pytest.mark.parametrize("dice", range(1, 6))
def test_outcomes_match_every_ordered_roll(dice):
    tally = Counter(roll.count(6) for roll in itertools.product(FACES, repeat=dice))
    expected = {str(k): Fraction(tally.get(k, 0), 6**dice) for k in range(dice + 1)}
    assert system.outcomes(make_request(dice=dice)) == expected


@pytest.mark.parametrize("dice", range(1, MAX_DICE + 1))
def test_outcomes_sum_to_one_and_follow_the_attribute_and_skill_pool(dice):
    result = system.outcomes(make_request(dice=dice))
    assert list(result) == [str(k) for k in range(dice + 1)]
    assert sum(result.values()) == 1
    assert result["0"] == MISS**dice


def test_outcomes_do_not_depend_on_the_need():
    assert system.outcomes(make_request(dice=4, need=3)) == system.outcomes(make_request(dice=4))


def test_chance_of_seven_dice_needing_one_success():
    """The document's example: mind 4 + comprehend 3, one six needed."""
    assert system.chance(make_request(attribute=4, skill=3)) == 1 - Fraction(5, 6) ** 7


@pytest.mark.parametrize(
    ("dice", "need", "chance"),
    [
        (1, 1, Fraction(1, 6)),
        (1, 2, Fraction(0)),
        (2, 2, Fraction(1, 36)),
        (3, 2, Fraction(16, 216)),
        (3, 3, Fraction(1, 216)),
        (13, 1, 1 - MISS**13),
    ],
)
def test_chance_by_hand(dice, need, chance):
    assert system.chance(make_request(dice=dice, need=need)) == chance
    assert system.chance_with(make_request(dice=dice, need=need)) == chance


@pytest.mark.parametrize(("dice", "need"), [(n, k) for n in range(1, 5) for k in range(1, 4)])
def test_chance_with_a_push_matches_brute_force(dice, need):
    request = make_request(dice=dice, need=need)
    assert system.chance_with(request, push=True) == brute_force_chance(dice, need, 1)
    assert system.chance_with(request, luck=True) == brute_force_chance(dice, need, 1)


@pytest.mark.parametrize(("dice", "need"), [(n, k) for n in range(1, 4) for k in range(1, 4)])
def test_chance_with_a_push_and_luck_matches_brute_force(dice, need):
    request = make_request(dice=dice, need=need)
    assert system.chance_with(request, push=True, luck=True) == brute_force_chance(dice, need, 2)


def test_chance_with_one_push_by_hand():
    """One die, one six needed: 1/6 now, or 5/6 * 1/6 on the push."""
    assert system.chance_with(make_request(dice=1), push=True) == Fraction(11, 36)


@pytest.mark.parametrize(("dice", "need"), [(1, 1), (1, 2), (2, 1), (2, 2), (2, 3), (3, 2)])
def test_chance_with_a_push_matches_what_the_engine_does_on_every_roll(dice, need):
    """Drive ``roll`` and ``apply("push")`` through every ordered roll and reroll."""
    request = make_request(dice=dice, need=need)
    total = Fraction(0)
    for first in itertools.product(FACES, repeat=dice):
        state = system.roll(request, ScriptedDice(*first))
        if system.evaluate(state).success:
            total += Fraction(1, 6**dice)
            continue
        misses = dice - first.count(6)
        if not misses:
            continue  # all sixes and still short: nothing to push
        wins = sum(
            bool(
                system.evaluate(
                    apply(state, "push", {"condition": "Upset"}, rng=ScriptedDice(*again)).state
                ).success
            )
            for again in itertools.product(FACES, repeat=misses)
        )
        total += Fraction(wins, 6 ** (dice + misses))
    assert system.chance_with(request, push=True) == total


@pytest.mark.parametrize("need", [1, 2, 3])
def test_chance_with_pride_is_one_success_fewer_to_roll(need):
    request = make_request(dice=4, need=need)
    fewer = make_request(dice=4, need=need - 1) if need > 1 else None
    assert system.chance_with(request, pride=True) == (system.chance(fewer) if fewer else 1)
    assert system.chance_with(request, push=True, pride=True) == brute_force_chance(4, need - 1, 1)


def test_cli_extra_odds_list_the_chances_with_each_follow_up():
    request = make_request(dice=2, need=2)
    assert system.cli_extra_odds(request) == {
        "with a push": brute_force_chance(2, 2, 1),
        "with a push and Luck": brute_force_chance(2, 2, 2),
        "with Pride": 1 - MISS**2,
    }


def icepool_sixes(icepool, dice: int):
    return icepool.d6.pool(dice).keep_outcomes([6]).size()


def icepool_rerolled(icepool, dice: int, need: int, rerolls: int):
    """The sixes after rolling, then rerolling the non-sixes after each failure."""
    if rerolls == 0:
        return icepool_sixes(icepool, dice)
    return icepool_sixes(icepool, dice).map(
        lambda sixes: (
            sixes
            if sixes >= need
            else sixes + icepool_rerolled(icepool, dice - sixes, need - sixes, rerolls - 1)
        )
    )


@pytest.mark.parametrize("dice", range(1, MAX_DICE + 1))
def test_outcomes_match_icepool(dice):
    icepool = pytest.importorskip("icepool")
    expected = icepool_sixes(icepool, dice).probabilities()
    assert system.outcomes(make_request(dice=dice)) == {str(k): p for k, p in enumerate(expected)}


@pytest.mark.parametrize(("dice", "need"), [(3, 1), (5, 2), (7, 1), (7, 3), (13, 3)])
def test_chance_with_a_push_matches_icepool(dice, need):
    icepool = pytest.importorskip("icepool")
    request = make_request(dice=dice, need=need)
    assert system.chance(request) == icepool_sixes(icepool, dice).probability(">=", need)
    for rerolls, kwargs in [(1, {"push": True}), (2, {"push": True, "luck": True})]:
        expected = icepool_rerolled(icepool, dice, need, rerolls).probability(">=", need)
        assert system.chance_with(request, **kwargs) == expected


# --------------------------------------------------------------------------------------------
# Command line


def cli(*argv: str) -> SixesRequest:
    parser = argparse.ArgumentParser(prog="odds")
    system.add_cli_arguments(parser)
    return system.request_from_cli(parser.parse_args(argv))


def test_cli_takes_the_pool_size():
    assert cli("--dice", "7") == make_request(dice=7)
    assert cli("--dice", "7").need == 1


def test_cli_takes_the_successes_needed():
    assert cli("--dice", "4", "--need", "2") == make_request(dice=4, need=2)


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (("--dice", "14"), "The number of dice must be between 1 and 13 (got 14)."),
        (("--dice", "0"), "The number of dice must be between 1 and 13 (got 0)."),
        (("--dice", "3", "--need", "4"), "Successes needed must be between 1 and 3 (got 4)."),
    ],
)
def test_cli_refuses_impossible_requests_with_a_rules_error(argv, message):
    with pytest.raises(RulesError, match=f"^{re.escape(message)}$"):
        cli(*argv)


@pytest.mark.parametrize("argv", [(), ("--dice", "abc"), ("--dice", "1.5")])
def test_cli_leaves_malformed_flags_to_argparse(argv):
    with pytest.raises(SystemExit):
        cli(*argv)


# --------------------------------------------------------------------------------------------
# Any mapping: valid ones roll, invalid ones raise RulesError and nothing else


def spelled(value: int) -> st.SearchStrategy[Any]:
    """An integer as a form, JSON or the CLI may spell it."""
    return st.sampled_from([value, str(value), float(value), f" {value} "])


yes = st.sampled_from([True, "on", "1", "true", "yes", 1])
no = st.sampled_from([False, "", "0", "off", "no", None, 0])
flag = st.one_of(yes, no)


@st.composite
def valid_mappings(draw: st.DrawFn) -> dict[str, Any]:
    data: dict[str, Any] = {}
    if draw(st.booleans()):
        data["attribute"] = draw(st.integers(1, 5).flatmap(spelled))
        if draw(st.booleans()):
            data["skill"] = draw(st.one_of(st.integers(0, 5).flatmap(spelled), st.sampled_from([None, ""])))
    else:
        data["dice"] = draw(st.integers(1, MAX_DICE).flatmap(spelled))
    if draw(st.booleans()):
        data["need"] = draw(st.one_of(st.integers(1, 3).flatmap(spelled), st.sampled_from([None, ""])))
    for key in ("item", "threat"):
        if draw(st.booleans()):
            data[key] = draw(flag)
    helping = draw(st.sampled_from(["alone", "helper", "group"]))
    data["helper"] = draw(yes if helping == "helper" else no)
    data["group"] = draw(yes if helping == "group" else no)
    return data


@st.composite
def any_resources(draw: st.DrawFn) -> dict[str, Any]:
    return {
        "latest": draw(st.booleans()),
        "conditions": draw(st.lists(st.sampled_from(CONDITIONS), unique=True)),
        "luck": draw(st.integers(0, 5)),
        "pride": draw(st.booleans()),
    }


@settings(max_examples=200, deadline=None)
@given(data=valid_mappings(), seed=st.integers(0, 2**32), have=any_resources())
def test_any_valid_mapping_rolls_evaluates_views_and_lists_follow_ups(data, seed, have):
    request = system.parse_request(data)
    assert 1 <= request.dice <= MAX_DICE
    assert 1 <= request.need <= 3
    assert system.parse_request(system.request_dict(request)) == request
    rng = random.Random(seed)
    state = system.roll(request, rng)
    assert json.loads(json.dumps(state)) == state
    for _ in range(3):  # the roll, then up to two follow-ups
        dice = [step for step in state["steps"] if "dice" in step][-1]["dice"]
        assert len(dice) == request.dice and all(1 <= face <= 6 for face in dice)
        outcome = system.evaluate(state)
        assert outcome.key == str(dice.count(6))
        assert outcome.tone == ("success" if outcome.success else "failure")
        assert len(system.view(state)) == len(state["steps"])
        # The kid's own follow-ups (the GM's strike of a helper has tests of its own).
        ups = [up for up in system.follow_ups(state, have) if not up.gm_only]
        offered = [up.action for up in ups]
        for action in {"push", "luck", "pride"} - set(offered):
            with pytest.raises(RulesError):
                apply(state, action, {"condition": "Upset"}, have, rng)
        if not ups:
            break
        up = ups[0]
        assert 0 <= up.chance_after <= 1 and up.chance_before == int(outcome.success)
        params = {"condition": up.params[0].choices[0]} if up.params else {}
        state = apply(state, up.action, params, have, rng).state


INVALID: dict[str, list[Any]] = {
    "attribute": [0, 6, -1, "6", "abc", 1.5, "1.5", True, False, [], {}],
    "skill": [6, -1, "6", "abc", 1.5, True, False, []],
    "need": [0, 4, "4", "abc", 1.5, True, False, []],
    "dice": [0, 14, -3, "14", "abc", None, "", 1.5, "2.5", True, False, []],
    "item": ["abc", 2, 1.5, "maybe"],
    "helper": ["abc", 2, 1.5, "two"],
    "group": ["abc", 2, 1.5],
    "threat": ["abc", 2, 1.5],
}


@settings(max_examples=300, deadline=None)
@given(
    data=valid_mappings(),
    bad=st.sampled_from(sorted(INVALID)).flatmap(
        lambda key: st.tuples(st.just(key), st.sampled_from(INVALID[key]))
    ),
)
def test_any_invalid_value_raises_a_rules_error_and_nothing_else(data, bad):
    key, value = bad
    data = dict(data)
    if key == "dice":  # the pool size is read only when no attribute is given
        data.pop("attribute", None)
        data.pop("skill", None)
    elif key in ("attribute", "skill"):  # the skill is read only with an attribute
        data.setdefault("attribute", 3)
        data.pop("dice", None)
    data[key] = value
    with pytest.raises(RulesError):
        system.parse_request(data)


@settings(max_examples=300, deadline=None)
@given(
    value=st.one_of(
        st.none(),
        st.booleans(),
        st.integers(),
        st.floats(allow_nan=True, allow_infinity=True),
        st.text(),
        st.lists(st.integers(), max_size=3),
        st.dictionaries(st.text(max_size=3), st.integers(), max_size=2),
    )
)
def test_any_pool_size_either_parses_within_the_cap_or_raises_a_rules_error(value):
    try:
        request = system.parse_request({"dice": value})
    except RulesError as error:
        assert str(error).endswith(".")  # a whole sentence for the player
        return
    assert 1 <= request.dice <= MAX_DICE
    assert not isinstance(value, bool)
    assert int(value) == request.dice


@settings(max_examples=100, deadline=None)
@given(data=valid_mappings())
def test_a_request_survives_a_round_trip_through_json(data):
    request = system.parse_request(data)
    stored = json.loads(json.dumps(system.request_dict(request)))
    assert system.parse_request(stored) == request


# -- issue 43: contests as the rules say, help as the GM's call --------------------------------

KID_RESOURCES = {"latest": True, "conditions": ["Upset"], "luck": 2, "pride": True}


def test_six_6_six_18_a_kid_losing_a_contest_may_spend_luck_though_one_six_meets_the_need():
    """SIX-6 with SIX-18 (our reading): a kid behind in kid versus kid has failed what they
    tried, so Luck is theirs, and it rerolls the dice that are not sixes."""
    state = state_of([6, 1, 2])  # one six: a success against the need of one
    losing = {**KID_RESOURCES, "rivals": [2], "behind": True}
    assert "luck" in {up.action for up in system.follow_ups(state, losing)}
    applied = apply(state, "luck", {}, losing, ScriptedDice(6, 6))
    assert applied.state["steps"][-1]["dice"] == [6, 6, 6]
    assert applied.state["steps"][-1]["rerolled"] == [1, 2]
    assert applied.costs == {"luck": 1}


def test_six_6_six_18_a_kid_level_or_ahead_in_a_contest_is_refused_luck():
    """SIX-6: a kid who is not behind has not failed; the refusal says so."""
    state = state_of([6, 1, 2])
    for standing in ({"rivals": [1], "behind": False}, {"rivals": [0], "behind": False}):
        have = {**KID_RESOURCES, **standing}
        assert "luck" not in {up.action for up in system.follow_ups(state, have)}
        with pytest.raises(RulesError, match="not losing the contest"):
            apply(state, "luck", {}, have, ScriptedDice(6, 6))


def test_six_18_in_a_contest_the_buttons_carry_no_odds_of_the_need_and_pride_that_ties_says_so():
    """SIX-18: in kid versus kid the need's odds say nothing (the panel shows the chance to
    win); Pride that brings the kid level is named as a tie, not a success."""
    state = state_of([1, 1, 2])
    have = {**KID_RESOURCES, "rivals": [1], "behind": True}
    ups = {up.action: up for up in system.follow_ups(state, have)}
    assert ups["pride"].label == "Use Pride (it only ties the lead)"
    assert all(up.chance_before is None and up.chance_after is None for up in ups.values())
    # Alone, the same roll's Pride is "0% -> 100%": one success meets the need of one.
    alone = {up.action: up for up in system.follow_ups(state, KID_RESOURCES)}
    assert (alone["pride"].label, alone["pride"].chance_after) == ("Use Pride", 1)


def test_six_18_the_phone_line_for_pride_that_only_ties_is_no_win():
    """SIX-18: the contests panel's line for Pride: 0 to win, named as a tie."""
    mine, theirs = state_of([1, 1, 2]), state_of([6, 1, 1])
    pride = FollowUp("pride", "Use Pride", spends=True)
    assert system.contest_option_chances([mine, theirs], 0, pride, 0) == [
        ("Use Pride (it only ties the lead)", Fraction(0))
    ]
    ahead = state_of([6, 1, 2])
    assert system.contest_option_chances([ahead, theirs], 0, pride, 0) == [("Use Pride", Fraction(1))]


def test_six_18_a_kids_own_chance_of_a_shared_lead_among_three():
    """SIX-18: Ann rolls 3 dice against kids of 4 and 5. That any two kids share the lead is
    41%; Ann's own chance of a shared lead is 30.5%, exactly as counted die by die here."""
    from rolls.systems.sixes import kid_versus_kid_odds, shared_lead_odds

    pools = {"Ann": 3, "Bo": 4, "Cy": 5}
    requests = {kid: make_request(dice=n) for kid, n in pools.items()}
    # Each kid's count of sixes, exactly, then every combination of counts.
    counts = {kid: {k: p for k, p in enumerate(binomial_of(n))} for kid, n in pools.items()}
    alone = shared = anyone = Fraction(0)
    for a, b, c in itertools.product(counts["Ann"], counts["Bo"], counts["Cy"]):
        p = counts["Ann"][a] * counts["Bo"][b] * counts["Cy"][c]
        best = max(a, b, c)
        anyone += p if [a, b, c].count(best) > 1 else 0
        shared += p if a == best and [a, b, c].count(best) > 1 else 0
        alone += p if a == best and [a, b, c].count(best) == 1 else 0
    assert shared_lead_odds(requests)["Ann"] == shared
    assert kid_versus_kid_odds(requests)["tie"] == anyone
    assert f"{float(anyone):.0%}" == "41%" and f"{float(shared):.1%}" == "30.5%"
    ann = system.contest_among([requests["Ann"], requests["Bo"], requests["Cy"]])[0]
    assert ann == {"win": alone, "tie": shared, "lose": 1 - alone - shared}


def binomial_of(n: int) -> list[Fraction]:
    """The number of sixes among ``n`` dice, counted over every face of every die."""
    tally = Counter(faces.count(6) for faces in itertools.product(range(1, 7), repeat=n))
    return [Fraction(tally[k], 6**n) for k in range(n + 1)]


def test_six_15_the_gm_strikes_the_help_and_the_helpers_die_leaves_the_pool():
    """SIX-15: help is the GM's call. A helped roll offers the GM (only) a strike; the helper's
    die (the pool's last) goes, and the helper is no longer bound to the outcome (SIX-16)."""
    state = state_of([1, 2, 6], attribute=2, helper=True)
    ups = {up.action: up for up in system.follow_ups(state, KID_RESOURCES)}
    assert ups["strike"].gm_only and not ups["strike"].spends
    assert system.evaluate(state).success
    applied = apply(state, "strike", {}, KID_RESOURCES)
    assert applied.costs == {}
    assert applied.state["steps"][-1] == {"action": "strike", "dice": [1, 2], "rerolled": []}
    assert not system.evaluate(applied.state).success
    assert "The helper suffers the same effects." not in system.evaluate(applied.state).details
    assert not sixes_module.helper_shares_failure(applied.state)
    assert system.drawn(applied.state["steps"][-1]) == []
    assert system.view(applied.state)[-1].title.startswith("The GM struck the help")
    # Once; never on a roll nobody helped, nor on a pool given as a number of dice.
    for refused, match in (
        (applied.state, "struck this roll's help already"),
        (state_of([1, 2, 6], attribute=3), "Nobody helped"),
        (state_of([1, 2, 6], helper=True), "given as a number"),
    ):
        with pytest.raises(RulesError, match=match):
            apply(refused, "strike", {}, KID_RESOURCES)
    # A push after the strike rerolls only the roller's own dice.
    pushed = apply(applied.state, "push", {"condition": "Upset"}, KID_RESOURCES, ScriptedDice(6, 6))
    assert pushed.state["steps"][-1]["dice"] == [6, 6]


def test_six_23_a_pushed_roll_that_succeeds_prompts_the_gm_to_describe_the_push():
    """SIX-23: after a push that works the card asks the GM to narrate it; not before, not
    after a push that fails, and not on a success without a push."""
    prompt = sixes_module.PUSH_WORKED
    state = state_of([1, 1, 2])
    assert prompt not in system.evaluate(state).details
    worked = apply(state, "push", {"condition": "Upset"}, KID_RESOURCES, ScriptedDice(6, 1, 1)).state
    assert prompt in system.evaluate(worked).details
    failed = apply(state, "push", {"condition": "Upset"}, KID_RESOURCES, ScriptedDice(1, 1, 1)).state
    assert prompt not in system.evaluate(failed).details
    assert prompt not in system.evaluate(state_of([6, 1, 2])).details
