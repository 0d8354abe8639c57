"""Contests, group and extended rolls in every system (no database, seeded dice, exact odds).

The contest odds are checked against brute force: every die of both sides enumerated with
``itertools.product`` and each roll read from the rules by the small readers below, written
apart from the engine's code.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from fractions import Fraction
from itertools import product
from typing import Any

import pytest

from rolls.systems import doubles, kinds, sets, sixes, stars
from rolls.systems.base import CONTEST_KEYS, RulesError, State, contest_odds, higher_wins
from tests.dice import ScriptedDice

FACES = range(1, 7)


def brute_force(
    dice_a: int,
    dice_b: int,
    read_a: Callable[[tuple[int, ...]], Any],
    read_b: Callable[[tuple[int, ...]], Any],
    verdict: Callable[[Any, Any], str],
) -> dict[str, Fraction]:
    """Every roll of both sides at once (6 ** (dice_a + dice_b) of them), counted by verdict."""
    counts = dict.fromkeys(CONTEST_KEYS, 0)
    for faces in product(FACES, repeat=dice_a + dice_b):
        counts[verdict(read_a(faces[:dice_a]), read_b(faces[dice_a:]))] += 1
    total = 6 ** (dice_a + dice_b)
    return {key: Fraction(count, total) for key, count in counts.items()}


def plain(a: Any, b: Any) -> str:
    return "win" if a > b else "tie" if a == b else "lose"


def assert_whole(odds: dict[str, Fraction]) -> None:
    assert set(odds) == {"win", "tie", "lose"}
    assert all(isinstance(p, Fraction) and 0 <= p <= 1 for p in odds.values())
    assert sum(odds.values()) == 1


def test_contest_odds_convolve_two_distributions() -> None:
    """The shared helper: each pair of results adds its chance to the verdict."""
    coin = {0: Fraction(1, 2), 1: Fraction(1, 2)}
    assert contest_odds(coin, coin, higher_wins) == {
        "win": Fraction(1, 4),
        "tie": Fraction(1, 2),
        "lose": Fraction(1, 4),
    }


# -- sixes ------------------------------------------------------------------------------------


def sixes_read(dice: Sequence[int]) -> int:
    return sum(1 for face in dice if face == 6)


@pytest.mark.parametrize(("a", "b"), [(1, 1), (3, 2), (2, 4), (1, 5)])
def test_six_18_contest_odds_match_brute_force(a: int, b: int) -> None:
    """SIX-18: most sixes wins; equal sixes (before pushes) are a tie."""
    odds = sixes.system.contest(
        sixes.system.parse_request({"dice": a}), sixes.system.parse_request({"dice": b})
    )
    assert odds == brute_force(a, b, sixes_read, sixes_read, plain)
    assert_whole(odds)


def test_six_18_one_die_each_by_hand() -> None:
    """SIX-18: one die each: a tie is both sixes or neither (26/36); each side wins 5/36."""
    one = sixes.system.parse_request({"dice": 1})
    assert sixes.system.contest(one, one) == {
        "win": Fraction(5, 36),
        "tie": Fraction(26, 36),
        "lose": Fraction(5, 36),
    }


def test_six_18_contest_ignores_successes_needed() -> None:
    """SIX-18: a contest counts sixes against sixes; what a roll alone would need plays no part."""
    a = sixes.system.parse_request({"dice": 3, "need": 3})
    b = sixes.system.parse_request({"dice": 2})
    assert sixes.system.contest(a, b) == sixes.system.contest(sixes.system.parse_request({"dice": 3}), b)


def test_six_18_three_kids_odds_match_brute_force() -> None:
    """SIX-18: two or more kids: each one's chance of the most sixes outright, and of a shared
    lead, against every roll of all their dice."""
    pools = {"Ann": 2, "Ben": 1, "Cat": 3}
    counts = {"Ann": 0, "Ben": 0, "Cat": 0, "tie": 0}
    for faces in product(FACES, repeat=6):
        sixes_of = {"Ann": sixes_read(faces[:2]), "Ben": sixes_read(faces[2:3]), "Cat": sixes_read(faces[3:])}
        best = max(sixes_of.values())
        leaders = [kid for kid, count in sixes_of.items() if count == best]
        counts[leaders[0] if len(leaders) == 1 else "tie"] += 1
    requests = {kid: sixes.system.parse_request({"dice": n}) for kid, n in pools.items()}
    assert sixes.kid_versus_kid_odds(requests) == {key: Fraction(n, 6**6) for key, n in counts.items()}
    two = {"Ann": requests["Ann"], "Cat": requests["Cat"]}
    odds = sixes.system.contest(requests["Ann"], requests["Cat"])
    assert sixes.kid_versus_kid_odds(two) == {"Ann": odds["win"], "Cat": odds["lose"], "tie": odds["tie"]}
    with pytest.raises(RulesError):
        sixes.kid_versus_kid_odds({"Ann": requests["Ann"]})


def test_six_19_only_kids_tied_for_the_lead_may_buy() -> None:
    """SIX-19: after the pushes, the kids tied for the lead are those who may buy successes."""
    assert sixes.contest_leaders({"Ann": 2, "Ben": 2, "Cat": 1}) == ("Ann", "Ben")
    assert sixes.contest_leaders({"Ann": 2, "Ben": 1}) == ("Ann",)
    assert sixes.kid_versus_kid({"Ann": 2, "Ben": 2, "Cat": 1}, {"Ben": 1}) == "Ben"
    with pytest.raises(RulesError):
        sixes.kid_versus_kid({"Ann": 2, "Ben": 2, "Cat": 1}, {"Cat": 2})


def test_six_17_group_trouble_gifts_an_extra_success() -> None:
    """SIX-17: nobody helps, but a kid with an extra success may hand it to a friend."""
    result = sixes.group_trouble({"Ann": 2, "Ben": 0, "Cat": 1}, need=1, gifts=[("Ann", "Ben")])
    assert result.successes == {"Ann": 1, "Ben": 1, "Cat": 1}
    assert result.rolled == {"Ann": 2, "Ben": 0, "Cat": 1}
    assert result.passed == ("Ann", "Ben", "Cat")
    assert result.everyone_passed
    alone = sixes.group_trouble({"Ann": 1, "Ben": 0})
    assert alone.passed == ("Ann",) and alone.failed == ("Ben",)


@pytest.mark.parametrize(
    ("gifts", "message"),
    [
        ([("Cat", "Ben")], "Cat has no extra success to give"),  # Cat needs her one success
        ([("Ann", "Ben"), ("Ann", "Cat")], "Ann has no extra success to give"),  # one spare only
        ([("Ann", "Ann")], "cannot give a success to themself"),
        ([("Ann", "Dan")], "only go between kids facing this Trouble"),
        ([("Ann", "Ben"), ("Ben", "Cat")], "Ben has no extra success to give"),  # no passing on
    ],
)
def test_six_17_group_trouble_refuses_gifts_beyond_the_rules(
    gifts: list[tuple[str, str]], message: str
) -> None:
    """SIX-17, SIX-21: only successes beyond those needed can be given, and only one's own."""
    with pytest.raises(RulesError, match=message):
        sixes.group_trouble({"Ann": 2, "Ben": 0, "Cat": 1}, need=1, gifts=gifts)


def test_six_17_group_trouble_with_seeded_dice() -> None:
    """SIX-17: each kid's roll, read by the engine, feeds the group's result."""
    rng = random.Random(17)
    states = {
        kid: sixes.system.roll(sixes.system.parse_request({"dice": 4, "group": True}), rng) for kid in "ABC"
    }
    rolled = {kid: sixes.system.successes(state) for kid, state in states.items()}
    result = sixes.group_trouble(rolled)
    assert result.passed == tuple(kid for kid in "ABC" if rolled[kid] >= 1)
    assert set(result.passed) | set(result.failed) == {"A", "B", "C"}


def test_six_16_the_helper_shares_a_failure_as_the_roll_stands() -> None:
    """SIX-16: a helped roll that fails binds the helper; once Pride saves it, it no longer does."""
    helped = sixes.system.roll(sixes.system.parse_request({"dice": 2, "helper": True}), ScriptedDice(3, 4))
    assert sixes.helper_shares_failure(helped)
    saved = sixes.system.apply(helped, "pride", {}, {"pride": True}, ScriptedDice()).state
    assert not sixes.helper_shares_failure(saved)
    unhelped = sixes.system.roll(sixes.system.parse_request({"dice": 2}), ScriptedDice(3, 4))
    assert not sixes.helper_shares_failure(unhelped)


def test_six_20_extended_trouble_tracks_the_plan() -> None:
    """SIX-20: each kid's part settles in turn; the plan is won with enough parts, lost once the
    parts left cannot make up the difference."""
    plan = sixes.ExtendedTrouble(("Ann: distract", "Ben: sneak", "Cat: grab"), needed=2)
    assert plan.status == "going" and plan.remaining == plan.parts
    plan = plan.record("Ben: sneak", False)
    assert plan.result_of("Ben: sneak") is False and plan.result_of("Ann: distract") is None
    assert plan.status == "going"
    lost = plan.record("Ann: distract", False)
    assert lost.status == "lost"
    won = plan.record("Ann: distract", True).record("Cat: grab", True)
    assert won.status == "won" and won.succeeded == 2
    with pytest.raises(RulesError, match="played already"):
        plan.record("Ben: sneak", True)
    with pytest.raises(RulesError, match="settled"):
        lost.record("Cat: grab", True)
    with pytest.raises(RulesError, match="not a part"):
        plan.record("Dan: wait", True)
    assert sixes.ExtendedTrouble(("a", "b")).target == 2  # all parts by default
    with pytest.raises(RulesError):
        sixes.ExtendedTrouble(("a", "b"), needed=3)


def test_six_20_extended_trouble_chance_matches_brute_force() -> None:
    """SIX-20: the plan's exact chance from each part's own chance, against every combination."""
    chances = {"a": Fraction(1, 2), "b": Fraction(1, 3), "c": Fraction(3, 4)}
    plan = sixes.ExtendedTrouble(("a", "b", "c"), needed=2)
    expected = Fraction(0)
    for outcome in product((True, False), repeat=3):
        weight = Fraction(1)
        for part, success in zip("abc", outcome, strict=True):
            weight *= chances[part] if success else 1 - chances[part]
        if sum(outcome) >= 2:
            expected += weight
    assert plan.chance(chances) == expected
    after = plan.record("a", True)
    assert after.chance(chances) == 1 - (1 - chances["b"]) * (1 - chances["c"])
    with pytest.raises(RulesError, match="missing"):
        plan.chance({"a": Fraction(1, 2)})


# -- doubles ----------------------------------------------------------------------------------


def doubles_read(net: int) -> Callable[[tuple[int, ...]], int]:
    """A roll's result from the rules: the best die or the best group (never of ones), or on
    zero or fewer dice the lowest die."""

    def read(dice: tuple[int, ...]) -> int:
        if net <= 0:
            return min(dice)
        best = max(dice)
        for face in set(dice):
            if face > 1 and dice.count(face) > 1:
                best = max(best, face * dice.count(face))
        return best

    return read


def rolled(net: int) -> int:
    return net if net >= 1 else 2 - net


@pytest.mark.parametrize(("a", "b"), [(1, 1), (2, 2), (3, 2), (4, 1), (0, 2), (-1, 1), (0, -2)])
def test_dbl_7_contest_odds_match_brute_force(a: int, b: int) -> None:
    """DBL-7, DBL-15, DBL-16: the higher result wins; equal results (two catastrophes
    included) are a standoff, counted as the tie."""
    odds = doubles.system.contest(
        doubles.system.parse_request({"dice": a}), doubles.system.parse_request({"dice": b})
    )
    assert odds == brute_force(rolled(a), rolled(b), doubles_read(a), doubles_read(b), plain)
    assert_whole(odds)


def test_dbl_15_a_catastrophe_loses_to_any_other_roll() -> None:
    """DBL-15: one die each: a 1 is a catastrophe, it loses to anything else; 1 against 1 is a
    standoff. The standoff is every equal pair: 6 of 36."""
    one = doubles.system.parse_request({"dice": 1})
    assert doubles.system.contest(one, one)["tie"] == Fraction(6, 36)
    catastrophe = doubles.settle_opposed(
        doubles.system.roll(one, ScriptedDice(1)), doubles.system.roll(one, ScriptedDice(2))
    )
    assert catastrophe.winner == "b" and catastrophe.catastrophes == ("a",)
    both = doubles.settle_opposed(
        doubles.system.roll(one, ScriptedDice(1)), doubles.system.roll(one, ScriptedDice(1))
    )
    assert both.winner is None and both.catastrophes == ("a", "b")
    assert "Both sides rolled a catastrophe" in both.note


def test_dbl_7_a_contest_refuses_a_difficulty_number() -> None:
    """DBL-7: an opposed roll is measured against the other side, not a Difficulty Number."""
    with pytest.raises(RulesError, match="no Difficulty Number"):
        doubles.system.contest(
            doubles.system.parse_request({"dice": 2, "dn": 6}), doubles.system.parse_request({"dice": 2})
        )


def opposed_roll(*faces: int, **data: Any) -> State:
    data.setdefault("dice", len(faces))
    return doubles.system.roll(doubles.system.parse_request(data), ScriptedDice(*faces))


def test_dbl_9_settle_opposed_offers_the_complication() -> None:
    """DBL-9: 5-5-5 (15, amazing) against 6-4 (6): the winner may inflict a Complication."""
    result = doubles.settle_opposed(opposed_roll(5, 5, 5), opposed_roll(6, 4))
    assert (result.winner, result.margin, result.complication) == ("a", 9, True)
    assert result.results == (15, 6)


def test_dbl_10_drama_dice_count_in_an_opposed_roll() -> None:
    """DBL-10: a drama die joins the side's dice before the comparison: 4-2 plus a 4 is 8."""
    a = opposed_roll(4, 2)
    a = doubles.system.apply(a, "drama", {"count": 1}, {"endurance": 5}, ScriptedDice(4)).state
    result = doubles.settle_opposed(a, opposed_roll(6, 3))
    assert result.winner == "a" and result.results == (8, 6)


def test_dbl_11_an_approved_miracle_wins_an_opposed_roll() -> None:
    """DBL-11: the miracle side wins by at least one, whatever its dice (even a catastrophe);
    while the miracle waits for the GM there is no verdict."""
    asked = doubles.system.apply(opposed_roll(1, 1), "miracle", {}, {"endurance": 30}, ScriptedDice()).state
    with pytest.raises(RulesError, match="GM approves or refuses"):
        doubles.settle_opposed(asked, opposed_roll(6, 6))
    approved = doubles.system.apply(asked, "miracle_approve", {}, {"endurance": 30}, ScriptedDice()).state
    result = doubles.settle_opposed(approved, opposed_roll(6, 6))
    assert result.winner == "a" and result.results == (13, 12) and result.margin == 1
    assert result.catastrophes == ()
    assert not result.complication  # the dice were not amazing; the miracle's floor is not
    refused = doubles.system.apply(asked, "miracle_refuse", {}, {}, ScriptedDice()).state
    assert doubles.settle_opposed(refused, opposed_roll(6, 6)).winner == "b"


def test_dbl_7_settle_opposed_refuses_a_roll_against_a_difficulty() -> None:
    with pytest.raises(RulesError, match="against a Difficulty Number"):
        doubles.settle_opposed(opposed_roll(3, 4, dn=6), opposed_roll(2, 2))


def test_dbl_7_settle_opposed_agrees_with_the_results_seeded() -> None:
    """DBL-7: with seeded dice, the verdict is the comparison of both sides' results."""
    rng = random.Random(7)
    pool = doubles.system.parse_request({"dice": 3})
    for _ in range(200):
        a, b = doubles.system.roll(pool, rng), doubles.system.roll(pool, rng)
        ra, rb = doubles.system.read(a).result, doubles.system.read(b).result
        expected = None if ra == rb else ("a" if ra > rb else "b")
        assert doubles.settle_opposed(a, b).winner == expected


def test_dbl_13_extended_action_records_who_rolled() -> None:
    """DBL-13: any member contributes; a tie with the Difficulty Number is a failure."""
    action = doubles.ExtendedAction(dn=6, successes_needed=2, failures_allowed=2)
    action = action.record_result(7, by="Ann").record_result(6, by="Ben")
    assert (action.successes, action.failures, action.status) == (1, 1, "going")
    assert action.rolls == (("Ann", True), ("Ben", False))
    assert action.record_result(8, by="Cat").status == "won"
    assert action.record(False).status == "lost"


def test_dbl_13_extended_action_chance_matches_brute_force() -> None:
    """DBL-13: the exact chance of reaching the successes before the failures, over every
    sequence of four rolls (3 + 2 - 1: the action is settled by then); rolls after the end
    weigh in as a whole, so each sequence is weighted by all four of its rolls."""
    p = Fraction(2, 5)
    action = doubles.ExtendedAction(dn=6, successes_needed=3, failures_allowed=2)
    expected = Fraction(0)
    for sequence in product((True, False), repeat=4):
        tally = action
        for success in sequence:
            if tally.status == "going":
                tally = tally.record(success)
        assert tally.status != "going"
        if tally.status == "won":
            weight = Fraction(1)
            for success in sequence:
                weight *= p if success else 1 - p
            expected += weight
    assert action.chance(p) == expected
    assert action.record(True).record(True).record(True).chance(p) == 1
    assert action.record(False).record(False).chance(p) == 0


# -- doubles: the chance to win after a follow-up (issue 14) ----------------------------------
#
# Checked against the engine's own chain: every face each new die (and each die of a side that
# has not rolled) may show is applied with scripted dice, and ``settle_opposed`` names the
# winner; the count of wins over every roll is the exact chance.

ENDLESS = {"endurance": 1000}


def not_rolled(net: int) -> State:
    """A side that has no step yet: its request only (not rolled, or sealed from the asker)."""
    request = doubles.system.parse_request({"dice": net})
    return {"system": "doubles", "request": doubles.system.request_dict(request), "steps": []}


def with_miracle(state: State, *faces: int) -> State:
    """``state`` with a miracle asked and approved (``faces``: its six dice when the degree matters)."""
    asked = doubles.system.apply(state, "miracle", {}, ENDLESS, ScriptedDice()).state
    return doubles.system.apply(asked, "miracle_approve", {}, ENDLESS, ScriptedDice(*faces)).state


def brute_force_win(
    mine: State, theirs: State, position: int, follow: Callable[[State, tuple[int, ...]], State], new: int
) -> Fraction:
    """Side ``position``'s share of wins over every face of the ``new`` dice ``follow`` adds to
    its roll and, when the other side has not rolled, every face of that side's dice."""
    theirs_net = doubles.system.parse_request(theirs["request"]).net
    unknown = 0 if theirs["steps"] else rolled(theirs_net)
    wins = 0
    for faces in product(FACES, repeat=new + unknown):
        after = follow(mine, faces[:new])
        other = theirs
        if unknown:
            other = doubles.system.roll(
                doubles.system.parse_request({"dice": theirs_net}), ScriptedDice(*faces[new:])
            )
        sides = (after, other) if position == 0 else (other, after)
        wins += doubles.settle_opposed(*sides).winner == "ab"[position]
    return Fraction(wins, 6 ** (new + unknown))


def drama(count: int) -> Callable[[State, tuple[int, ...]], State]:
    def follow(state: State, faces: tuple[int, ...]) -> State:
        return doubles.system.apply(state, "drama", {"count": count}, ENDLESS, ScriptedDice(*faces)).state

    return follow


DRAMA_CASES = [
    # (my net, my faces, the other side: its faces, or its net pool when it has not rolled)
    (2, (4, 2), (5, 1)),  # behind: a matching drama die makes a pair
    (2, (1, 1), (1, 1)),  # DBL-15: two catastrophes; a standoff is no win, a drama die lifts it
    (1, (6,), (3, 3)),  # a standoff at 6 to break
    (0, (3, 1), (6, 3)),  # DBL-6: negative dice, a drama die pushes out the lowest
    (-1, (2, 5, 4), 1),  # the other side not rolled: its fresh distribution
    (3, (2, 2, 5), -1),
    (2, (6, 6), (2, 1)),  # ahead already: drama dice cannot lose it (results only grow)
]


@pytest.mark.parametrize("position", [0, 1])
@pytest.mark.parametrize(("net", "faces", "other"), DRAMA_CASES)
def test_dbl_7_dbl_10_the_chance_to_win_after_drama_dice_matches_brute_force(
    net: int, faces: tuple[int, ...], other: tuple[int, ...] | int, position: int
) -> None:
    """DBL-7, DBL-10, DBL-15, DBL-16: for 1 and 2 drama dice, the exact chance that this side
    then beats the other side (a standoff is not a win), against every roll of the new dice."""
    mine = opposed_roll(*faces, dice=net)
    theirs = not_rolled(other) if isinstance(other, int) else opposed_roll(*other)
    states = [mine, theirs] if position == 0 else [theirs, mine]
    chances = doubles.contest_drama_chances(states, position, 2)
    for count in (1, 2):
        assert chances[count] == brute_force_win(mine, theirs, position, drama(count), count)
    assert doubles.system.contest_chance_after(states, position, "drama", position) == chances[1]


def test_dbl_10_a_drama_die_against_a_pair_of_fives_by_hand() -> None:
    """DBL-7, DBL-10: 4-2 against 5-5 (10): one drama die never reaches above 10 (a pair of
    fours is 8, a six is 6); two win only as a pair of sixes (12) or 4-4-4 (12)."""
    states = [opposed_roll(4, 2), opposed_roll(5, 5)]
    assert doubles.contest_drama_chances(states, 0, 2) == {1: 0, 2: Fraction(2, 36)}


def test_dbl_11_a_miracle_asked_in_an_opposed_roll_wins_if_approved() -> None:
    """DBL-11, DBL-15: an approved miracle wins whatever the dice, even a catastrophe; the
    figure is the GM's yes (``system.contest_chance_after`` of "miracle")."""
    states = [opposed_roll(1, 1), opposed_roll(6, 6)]
    assert doubles.system.contest_chance_after(states, 0, "miracle", 0) == 1
    assert brute_force_win(states[0], states[1], 0, lambda state, _: with_miracle(state), 0) == 1


def test_dbl_11_against_an_approved_miracle_drama_dice_cannot_win() -> None:
    """DBL-11: the other side's approved miracle lifts it above any dice; only a miracle of
    one's own cancels it, and then the dice decide."""
    mine, theirs = opposed_roll(4, 2), with_miracle(opposed_roll(2, 1))
    states = [mine, theirs]
    assert doubles.contest_drama_chances(states, 0, 2) == {1: 0, 2: 0}
    # Both miracles: 4 against 2, the dice decide.
    assert doubles.system.contest_chance_after(states, 0, "miracle", 0) == 1
    states = [opposed_roll(2, 1), with_miracle(opposed_roll(4, 2))]
    assert doubles.system.contest_chance_after(states, 0, "miracle", 0) == 0
    assert brute_force_win(states[0], states[1], 0, lambda state, _: with_miracle(state), 0) == 0
    # Side 1 holds the approved miracle: any drama die keeps it winning.
    assert doubles.contest_drama_chances(states, 1, 1) == {1: 1}


def test_dbl_11_two_miracles_where_the_degree_matters_compare_the_six_dice_too() -> None:
    """DBL-11: the degree matters, both sides get a miracle: six dice join each roll, the
    miracles cancel out, the dice decide. Every face of the asker's six dice enumerated and
    read by ``doubles_read`` (46,656 rolls: too many to walk through the engine's chain)."""
    mine = opposed_roll(3, 1, degree_matters=True)
    theirs = with_miracle(opposed_roll(2, 2, degree_matters=True), 5, 5, 4, 3, 2, 1)
    assert doubles.settle_opposed(opposed_roll(1, 1), theirs).results[1] == 10  # a pair of fives
    read = doubles_read(8)
    wins = sum(read((3, 1, *faces)) > 10 for faces in product(FACES, repeat=6))
    expected = Fraction(wins, 6**6)
    assert 0 < expected < 1
    assert doubles.system.contest_chance_after([mine, theirs], 0, "miracle", 0) == expected
    # One throw of the six through the chain agrees with the reading: 6-6 join, 12 beats 10.
    assert doubles.settle_opposed(with_miracle(mine, 6, 6, 2, 3, 4, 5), theirs).winner == "a"


def test_dbl_11_no_figure_while_a_miracle_waits_for_the_gm_or_for_what_is_not_a_players() -> None:
    """DBL-11: the GM's answer is no chance: no figure while a miracle waits on either side;
    none for the GM's own steps, for a second miracle, for the other side's roll, or for a
    roll against a Difficulty Number."""
    asked = doubles.system.apply(opposed_roll(3, 2), "miracle", {}, ENDLESS, ScriptedDice()).state
    plain_roll = opposed_roll(4, 1)
    chance_after = doubles.system.contest_chance_after
    assert chance_after([plain_roll, asked], 0, "drama", 0) is None
    assert chance_after([asked, plain_roll], 0, "miracle_approve", 0) is None
    assert chance_after([asked, plain_roll], 0, "miracle", 0) is None
    assert chance_after([with_miracle(opposed_roll(3, 2)), plain_roll], 0, "miracle", 0) is None
    assert chance_after([plain_roll, opposed_roll(3, 2)], 0, "drama", 1) is None
    assert chance_after([opposed_roll(3, 2, dn=6), plain_roll], 0, "drama", 0) is None
    assert chance_after([not_rolled(2), plain_roll], 0, "drama", 0) is None


def test_dbl_10_each_drama_count_the_picker_offers_gets_its_own_line() -> None:
    """DBL-10: the phone lists one chance to win per number of drama dice it may buy."""
    states = [opposed_roll(4, 2), opposed_roll(5, 1)]
    follow_ups = {f.action: f for f in doubles.system.follow_ups(states[0], {"endurance": 15})}
    lines = doubles.system.contest_option_chances(states, 0, follow_ups["drama"], 0)
    chances = doubles.contest_drama_chances(states, 0, 3)
    assert lines == [
        ("Buy 1 drama die", chances[1]),
        ("Buy 2 drama dice", chances[2]),
        ("Buy 3 drama dice", chances[3]),
    ]
    miracle = doubles.system.follow_ups(states[0], {"endurance": 30})[-1]
    assert doubles.system.contest_option_chances(states, 0, miracle, 0) == [
        ("Ask for a miracle, if the GM approves", Fraction(1))
    ]


# -- sets -------------------------------------------------------------------------------------


def sets_read(dice: tuple[int, ...]) -> tuple[int, int] | None:
    """The best bid from the rules: every face on two dice or more; Size = the largest such
    group + 1 per other group, Face = the lowest of them. None: no set."""
    groups = {face: dice.count(face) for face in set(dice) if dice.count(face) >= 2}
    if not groups:
        return None
    return (max(groups.values()) + len(groups) - 1, min(groups))


def attacker_wins(attacker: tuple[int, int] | None, defender: tuple[int, int] | None) -> bool:
    if defender is None:
        return True
    if attacker is None:
        return False
    return attacker >= defender


@pytest.mark.parametrize(("a", "b"), [(1, 1), (2, 2), (3, 2), (4, 2), (2, 4)])
def test_set_4_contest_odds_match_brute_force(a: int, b: int) -> None:
    """SET-4: best bid against best bid; Size, then Face, then the attacker (side A)."""
    request_a = sets.system.parse_request({"dice": a, "opposed": True})
    request_b = sets.system.parse_request({"dice": b, "opposed": True})
    odds = sets.system.contest(request_a, request_b)
    expected = brute_force(a, b, sets_read, sets_read, lambda x, y: "win" if attacker_wins(x, y) else "lose")
    assert odds == expected
    assert odds["tie"] == 0
    assert_whole(odds)


@pytest.mark.parametrize(("a", "b"), [(2, 2), (3, 2)])
def test_set_4_a_defending_first_side_loses_ties(a: int, b: int) -> None:
    """SET-4: when side A defends, side B attacks and wins every tie."""
    request_a = sets.system.parse_request({"dice": a, "opposed": True, "attacker": False})
    request_b = sets.system.parse_request({"dice": b, "opposed": True})
    expected = brute_force(a, b, sets_read, sets_read, lambda x, y: "lose" if attacker_wins(y, x) else "win")
    assert sets.system.contest(request_a, request_b) == expected


def test_set_4_one_die_each_is_the_attackers() -> None:
    """SET-3, SET-4: one die is never a set: no set against no set, the tie goes to the attacker."""
    one = sets.system.parse_request({"dice": 1, "opposed": True})
    assert sets.system.contest(one, one) == {"win": 1, "tie": 0, "lose": 0}


def test_set_4_contest_refuses_a_bar_and_two_defenders() -> None:
    defender = sets.system.parse_request({"dice": 3, "opposed": True, "attacker": False})
    with pytest.raises(RulesError, match="Both sides defend"):
        sets.system.contest(defender, defender)
    with pytest.raises(RulesError, match="against a Bar"):
        sets.system.contest(sets.system.parse_request({"dice": 3, "bar_size": 2}), defender)


def test_set_4_sealed_bids_say_why() -> None:
    """SET-4: Size first, then Face, then the attacker; any set beats none."""
    Bid = sets.Bid
    assert sets.settle_bids(Bid(3, 1), Bid(2, 6)).reason == "size"
    verdict = sets.settle_bids(Bid(2, 4), Bid(2, 5))
    assert (verdict.winner, verdict.reason) == ("defender", "face")
    tie = sets.settle_bids(Bid(2, 5), Bid(2, 5))
    assert (tie.winner, tie.reason) == ("attacker", "tie")
    assert "the tie goes to the attacker" in tie.note
    assert sets.settle_bids(None, Bid(2, 1)).winner == "defender"
    assert sets.settle_bids(None, None).winner == "attacker"
    with pytest.raises(RulesError):
        sets.settle_bids(Bid(1, 3), None)


def test_set_10_critical_hits_are_compared_set_against_set() -> None:
    """SET-8, SET-10: each critical set of the winner against the loser's answer; a win or an
    unanswered set is one more damage. Ties go to the attacker."""
    Bid = sets.Bid
    exchanges = sets.compare_critical_hits(
        [Bid(2, 3), Bid(2, 6), Bid(2, 2)], [Bid(2, 4), Bid(2, 6)], winner_attacks=True
    )
    assert [e.hit for e in exchanges] == [False, True, True]
    assert exchanges[2].loser_set is None
    # The winner defends: a tie now goes to the loser, who attacked.
    defended = sets.compare_critical_hits([Bid(2, 6)], [Bid(2, 6)], winner_attacks=False)
    assert [e.hit for e in defended] == [False]
    with pytest.raises(RulesError):
        sets.compare_critical_hits([Bid(2, 6)], [Bid(2, 1), Bid(2, 2)], winner_attacks=True)


def test_set_8_a_critical_effect_carries_its_die_to_a_later_roll() -> None:
    """SET-8: a critical effect's one-die bonus or penalty is data the next roll takes."""
    request = sets.system.parse_request({"dice": 6, "bar_size": 2, "bar_face": 1})
    state = sets.system.roll(request, ScriptedDice(2, 2, 5, 5, 3, 3))
    state = sets.system.apply(state, "bid", {"dice": [0, 1]}, {}, ScriptedDice()).state
    state = sets.system.apply(
        state, "critical_effect", {"dice": [2, 3], "effect": "penalty"}, {}, ScriptedDice()
    ).state
    state = sets.system.apply(
        state, "critical_effect", {"dice": [4, 5], "effect": "bonus"}, {}, ScriptedDice()
    ).state
    carried = sets.carried_dice(state)
    assert [die.change for die in carried] == [-1, 1]
    assert "2x5" in carried[0].source
    later = sets.system.parse_request({"stat": 4, "opposed": True})
    penalised = sets.with_carried(later, carried[:1])
    assert (penalised.dice, penalised.penalty) == (3, 1)
    direct = sets.with_carried(sets.system.parse_request({"dice": 3, "opposed": True}), carried)
    assert direct.dice == 3
    with pytest.raises(RulesError, match="leave no dice"):
        sets.with_carried(sets.system.parse_request({"dice": 1, "opposed": True}), carried[:1])


# -- stars ------------------------------------------------------------------------------------


def stars_read(target: int, immune: bool = False) -> Callable[[tuple[int, ...]], tuple[int, int]]:
    """(Stars, 0 for a botch that counts else 1): a botch has no Stars."""

    def read(dice: tuple[int, ...]) -> tuple[int, int]:
        if 2 * dice.count(1) > len(dice):
            return (0, 1 if immune else 0)
        return (sum(2 if face == 6 else 1 for face in dice if face >= target), 1)

    return read


def player_wins(player: tuple[int, int], opponent: tuple[int, int]) -> str:
    if player[0] != opponent[0]:
        return "win" if player[0] > opponent[0] else "lose"
    # Equal Stars: a tie goes to the player, unless only the player botched.
    return "lose" if player[1] < opponent[1] else "win"


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ({"dice": 1}, {"dice": 1}),
        ({"dice": 1, "training": "adept"}, {"dice": 2}),
        ({"dice": 3, "training": "novice"}, {"dice": 3}),
        ({"dice": 2, "training": "professional"}, {"dice": 3, "training": "adept"}),
    ],
)
def test_str_9_contest_odds_match_brute_force(a: dict[str, Any], b: dict[str, Any]) -> None:
    """STR-9, STR-8: more Stars wins, ties go to the player, a lone botch loses the tie."""
    request_a, request_b = stars.system.parse_request(a), stars.system.parse_request(b)
    odds = stars.system.contest(request_a, request_b)
    expected = brute_force(
        request_a.dice,
        request_b.dice,
        stars_read(request_a.target, request_a.immune),
        stars_read(request_b.target, request_b.immune),
        player_wins,
    )
    assert odds == expected
    assert odds["tie"] == 0
    assert_whole(odds)


def test_str_10_contest_with_advantage_matches_brute_force() -> None:
    """STR-9, STR-10: advantage rolls the test twice and keeps the better (disadvantage the
    worse), before the comparison: two dice with advantage against one with disadvantage."""
    request_a = stars.system.parse_request({"dice": 2, "advantage": True})
    request_b = stars.system.parse_request({"dice": 1, "disadvantage": True})
    read = stars_read(5)
    counts = {"win": 0, "lose": 0}
    for faces in product(FACES, repeat=6):
        mine = max(read(faces[0:2]), read(faces[2:4]))
        theirs = min(read(faces[4:5]), read(faces[5:6]))
        counts[player_wins(mine, theirs)] += 1
    odds = stars.system.contest(request_a, request_b)
    assert odds == {"win": Fraction(counts["win"], 6**6), "tie": 0, "lose": Fraction(counts["lose"], 6**6)}


def test_str_9_a_d3_takes_no_part_in_a_contest() -> None:
    with pytest.raises(RulesError, match="d3"):
        stars.system.contest(
            stars.system.parse_request({"kind": "d3"}), stars.system.parse_request({"dice": 2})
        )


def stars_roll(*faces: int, **data: Any) -> State:
    data.setdefault("dice", len(faces))
    return stars.system.roll(stars.system.parse_request(data), ScriptedDice(*faces))


def test_str_9_settle_contest_ties_to_the_player_and_botches_lose() -> None:
    """STR-9: equal Stars go to the player; a player's botch loses to a plain failure."""
    tie = stars.settle_contest(stars_roll(5, 2), stars_roll(3, 5))
    assert tie.player_wins and "a tie goes to the player" in tie.note
    botched = stars.settle_contest(stars_roll(1), stars_roll(2))
    assert not botched.player_wins and botched.player_botched
    assert stars.settle_contest(stars_roll(2), stars_roll(1)).player_wins
    assert stars.settle_contest(stars_roll(1, 1, 6), stars_roll(1, 1, 6)).player_wins  # two botches
    lost = stars.settle_contest(stars_roll(5), stars_roll(6))
    assert not lost.player_wins and lost.note == "The opponent wins: 2 Stars against 1 Star."


def test_str_11_luck_against_the_opponent_keeps_the_worse_in_a_contest() -> None:
    """STR-9, STR-11: the player makes the opponent reroll, keeping the worse: 6-5 (3 Stars)
    rerolled to 2-2 leaves none, and the player's one Star wins."""
    player, opponent = stars_roll(5, 3), stars_roll(6, 5)
    assert not stars.settle_contest(player, opponent).player_wins
    worse = stars.system.apply(opponent, "luck_against", {}, {"luck": 1}, ScriptedDice(2, 2)).state
    assert stars.settle_contest(player, worse).player_wins


def test_str_11_chance_after_luck_matches_brute_force() -> None:
    """STR-11: the exact chance of winning after a Luck reroll, over every reroll."""
    player, opponent = stars_roll(5, 3), stars_roll(6, 5)  # 1 Star against 3
    read = stars_read(5)
    against = sum(
        1 for faces in product(FACES, repeat=2) if player_wins((1, 1), min((3, 1), read(faces))) == "win"
    )
    assert stars.contest_chance_after_luck(player, opponent, "luck_against") == Fraction(against, 36)
    own = sum(
        1 for faces in product(FACES, repeat=2) if player_wins(max((1, 1), read(faces)), (3, 1)) == "win"
    )
    assert stars.contest_chance_after_luck(player, opponent, "luck") == Fraction(own, 36)
    with pytest.raises(RulesError):
        stars.contest_chance_after_luck(player, opponent, "pride")


def test_str_9_seeded_contests_agree_with_the_stars() -> None:
    """STR-9: with seeded dice, the verdict is the comparison of the two readings."""
    rng = random.Random(9)
    request = stars.system.parse_request({"dice": 3})
    for _ in range(200):
        a, b = stars.system.roll(request, rng), stars.system.roll(request, rng)
        expected = player_wins(stars.state_result(a), stars.state_result(b)) == "win"
        assert stars.settle_contest(a, b).player_wins is expected


# -- kinds ------------------------------------------------------------------------------------


def test_kinds_has_no_head_to_head_contest() -> None:
    """KIN-6, KIN-8: the rules set Adventurers against Challenges only: a contest is refused."""
    pool = kinds.system.parse_request({"dice": 3})
    with pytest.raises(RulesError, match="Kinds has no contested roll"):
        kinds.system.contest(pool, pool)


def test_kin_8_several_adventurers_face_one_danger() -> None:
    """KIN-6, KIN-8: each rolls their own Challenge; the rolls read together as one result."""
    basic = kinds.system.parse_request({"dice": 3, "level": "basic", "danger": True})
    states = {
        "Ada": kinds.system.roll(basic, ScriptedDice(4, 4, 1)),
        "Bo": kinds.system.roll(basic, ScriptedDice(1, 2, 3)),
        "Cy": kinds.system.roll(basic, ScriptedDice(6, 6, 6)),
    }
    result = kinds.face_danger(states)
    assert result.passed == ("Ada", "Cy") and result.accidents == ("Bo",)
    assert result.headline == "2 of 3 pass the Danger; an Accident for Bo"
    everyone = kinds.face_danger({"Ada": states["Ada"], "Cy": states["Cy"]})
    assert everyone.headline == "All 2 pass the Danger"
    with pytest.raises(RulesError):
        kinds.face_danger({})


def test_kin_6_passing_odds_match_brute_force() -> None:
    """KIN-6: the chance that exactly k Adventurers pass, from every roll of all their dice."""
    requests = {
        "Ada": kinds.system.parse_request({"dice": 2, "level": "basic"}),
        "Bo": kinds.system.parse_request({"dice": 3, "level": "critical"}),
    }
    counts = dict.fromkeys(range(3), 0)
    for faces in product(FACES, repeat=5):
        ada = max(faces[:2].count(f) for f in FACES) >= 2
        bo = max(faces[2:].count(f) for f in FACES) >= 3
        counts[ada + bo] += 1
    assert kinds.passing_odds(requests) == {k: Fraction(n, 6**5) for k, n in counts.items()}


# -- every system ------------------------------------------------------------------------------

POOLS: dict[str, list[dict[str, Any]]] = {
    "sixes": [{"dice": n} for n in range(1, 14)],
    "doubles": [{"dice": n} for n in range(-8, 21, 2)],
    "sets": [{"dice": n, "opposed": True} for n in range(1, 16)],
    "stars": [
        {"dice": n, "training": training, **extra}
        for n in range(1, 6)
        for training in ("untrained", "adept", "professional")
        for extra in ({}, {"advantage": True}, {"disadvantage": True})
    ],
}


@pytest.mark.parametrize("module", [sixes, doubles, sets, stars], ids=lambda m: m.system.slug)
def test_every_contest_sums_to_one(module: Any) -> None:
    """SIX-18, DBL-7, SET-4, STR-9: every pair of pools the forms offer has exact odds that
    sum to 1; a system whose rules award every tie leaves none."""
    engine = module.system
    requests = [engine.parse_request(data) for data in POOLS[engine.slug]]
    for a in requests:
        for b in requests[:: max(1, len(requests) // 6)]:
            odds = engine.contest(a, b)
            assert_whole(odds)
            if engine.slug in ("sets", "stars"):
                assert odds["tie"] == 0
    assert engine.contest_rule
