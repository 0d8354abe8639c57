"""Dice rolled by hand (rolls/systems/hand.py): the engine rolls from the entered faces, asks
for exactly the dice each step rolls, and refuses anything else. No database."""

from __future__ import annotations

import random

import pytest

from rolls import registry
from rolls.systems import RulesError
from rolls.systems.hand import EnteredDice, dice_needed, entered_step, parse_faces
from tests.dice import ScriptedDice

SYSTEMS = ("sixes", "kinds", "doubles", "sets", "stars")


def _faces(count: int, seed: int) -> list[int]:
    source = random.Random(seed)
    return [source.randint(1, 6) for _ in range(count)]


@pytest.mark.parametrize("slug", SYSTEMS)
def test_a_roll_by_hand_is_the_roll_the_engine_makes_of_those_faces(slug: str) -> None:
    """Every request a roll form can make: the count asked for is what the engine rolls,
    and the entered faces give the state the same faces would give as random dice."""
    system = registry.engine(slug)
    for seed, data in enumerate(system.typical_requests()):
        request = system.parse_request(data)
        needed = dice_needed(lambda rng, request=request: system.roll(request, rng))
        faces = _faces(needed, seed)
        by_hand = entered_step(lambda rng, request=request: system.roll(request, rng), faces)
        assert by_hand == system.roll(request, ScriptedDice(*faces)), data


def test_a_sixes_push_asks_only_for_the_dice_that_are_not_sixes_SIX_5() -> None:
    """The sixes stay; the push rerolls the rest, so the player enters only those."""
    system = registry.engine("sixes")
    state = system.roll(system.parse_request({"dice": 5}), ScriptedDice(6, 2, 6, 1, 3))
    resources = {"latest": True, "conditions": ("Upset",), "luck": 1}

    def push(rng: object) -> object:
        return system.apply(state, "push", {"condition": "Upset", "description": "I climb"}, resources, rng)  # type: ignore[arg-type]

    assert dice_needed(push) == 3
    applied = entered_step(push, [6, 4, 5])
    assert applied.state["steps"][-1]["dice"] == [6, 6, 6, 4, 5]  # type: ignore[attr-defined]


def test_doubles_drama_dice_ask_for_the_dice_bought() -> None:
    system = registry.engine("doubles")
    request = system.parse_request({"net": 2, "difficulty": 8})
    state = system.roll(request, ScriptedDice(1, 3))
    resources = {"endurance": 30, "drama": True, "latest": True}
    for count in (1, 2, 3):
        needed = dice_needed(lambda rng, n=count: system.apply(state, "drama", {"count": n}, resources, rng))
        assert needed == count


def test_a_stars_test_with_advantage_asks_for_two_whole_rolls_STR_6() -> None:
    system = registry.engine("stars")
    request = system.parse_request({"dice": 3, "advantage": True})
    assert dice_needed(lambda rng: system.roll(request, rng)) == 6


def test_an_entry_of_the_wrong_length_is_refused_with_the_count() -> None:
    system = registry.engine("sixes")
    request = system.parse_request({"dice": 4})
    with pytest.raises(RulesError, match="Enter exactly 4 dice; you entered 3"):
        entered_step(lambda rng: system.roll(request, rng), [6, 6, 6])
    with pytest.raises(RulesError, match="Enter exactly 4 dice; you entered 5"):
        entered_step(lambda rng: system.roll(request, rng), [6, 6, 6, 1, 2])


def test_one_die_is_one_die() -> None:
    system = registry.engine("sixes")
    request = system.parse_request({"dice": 1})
    with pytest.raises(RulesError, match="Enter exactly 1 die; you entered 0"):
        entered_step(lambda rng: system.roll(request, rng), [])


def test_entered_dice_are_drawn_in_order_and_run_out_with_a_message() -> None:
    source = EnteredDice([3, 5])
    assert [source.randint(1, 6), source.randint(1, 6)] == [3, 5]
    with pytest.raises(RulesError, match="Enter exactly 3 dice"):
        source.randint(1, 6)


@pytest.mark.parametrize(
    ("raw", "faces"),
    [("6 3 1", [6, 3, 1]), ("6,3,1", [6, 3, 1]), ("631", [6, 3, 1]), (["6", "3"], [6, 3]), ("", [])],
)
def test_faces_are_read_from_what_a_form_sends(raw: object, faces: list[int]) -> None:
    assert parse_faces(raw) == faces  # type: ignore[arg-type]


@pytest.mark.parametrize("raw", ["7", "0", "6 x", "-1", "1.5", "²", ["6", "66"], "6" * 61])
def test_anything_but_a_face_is_refused(raw: object) -> None:
    with pytest.raises(RulesError):
        parse_faces(raw)  # type: ignore[arg-type]
