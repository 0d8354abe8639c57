"""The dice command line: ``manage.py roll`` and ``manage.py odds``.

No database: the commands only call the rules engine.
"""

from __future__ import annotations

import io
import json
import os
import random
import subprocess
import sys
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from rolls import registry

PROJECT_ROOT = Path(__file__).resolve().parents[1]

# Every flag of every system at least once, with the request the engine builds from the same words.
FLAGS: list[tuple[str, list[str], dict[str, Any]]] = [
    ("sixes", ["--dice", "4", "--need", "2"], {"dice": 4, "need": 2}),
    (
        "kinds",
        ["--skill", "2", "--field", "3", "--advantage", "2", "--disadvantage", "1", "--level", "critical"],
        {"skill": 2, "field": 3, "advantage": 2, "disadvantage": 1, "level": "critical"},
    ),
    ("kinds", ["--dice", "4", "--level", "Basic", "--danger"], {"dice": 4, "level": "basic", "danger": True}),
    (
        "doubles",
        [
            *("--ability", "2", "--ability", "1", "--bonus", "1", "--weakness", "1", "--penalty", "1"),
            *("--helpers", "1", "--dn", "Very Difficult", "--degree-matters", "--declaration"),
        ],
        {
            "abilities": [2, 1],
            "bonus": 1,
            "weaknesses": [1],
            "penalty": 1,
            "helpers": 1,
            "dn": 10,
            "degree_matters": True,
            "declaration": True,
        },
    ),
    ("doubles", ["--dice", "-2", "--dn", "4"], {"dice": -2, "dn": 4}),
    ("sets", ["--dice", "6", "--bar", "master", "4"], {"dice": 6, "bar_size": 4, "bar_face": 4}),
    ("sets", ["--dice", "6", "--bar", "2", "rolled"], {"dice": 6, "bar_size": 2, "bar_face": None}),
    ("sets", ["--dice", "6", "--defender"], {"dice": 6, "opposed": True, "attacker": False}),
    (
        "stars",
        ["--dice", "3", "--training", "professional", "--difficulty", "4", "--advantage"],
        {"dice": 3, "training": "professional", "difficulty": 4, "advantage": True},
    ),
    ("stars", ["--dice", "2", "--disadvantage"], {"dice": 2, "disadvantage": True}),
    ("stars", ["--d3"], {"kind": "d3"}),
]


def run(*args: str) -> str:
    out = io.StringIO()
    call_command(*args, stdout=out)
    return out.getvalue()


def odds_json(*args: str) -> dict[str, Any]:
    return json.loads(run("odds", *args, "--json"))


def fractions(exact: dict[str, str]) -> dict[str, Fraction]:
    return {key: Fraction(value) for key, value in exact.items()}


# --------------------------------------------------------------------------------------------
# odds


def test_odds_of_one_sixes_die() -> None:
    data = odds_json("sixes", "--dice", "1")
    assert data["outcomes"] == {"0": 5 / 6, "1": 1 / 6}
    assert data["exact"] == {"0": "5/6", "1": "1/6"}
    assert data["success"] == 1 / 6
    assert data["success_exact"] == "1/6"


def test_odds_of_one_stars_die_at_difficulty_5() -> None:
    """STR-3, STR-4, STR-8: a 1 botches, 2-4 fail, a 5 is a Star, a 6 two."""
    data = odds_json("stars", "--dice", "1", "--difficulty", "5")
    assert fractions(data["exact"]) == {"0": Fraction(4, 6), "1": Fraction(1, 6), "2": Fraction(1, 6)}
    assert data["outcomes"] == {"0": 4 / 6, "1": 1 / 6, "2": 1 / 6}
    assert Fraction(data["success_exact"]) == Fraction(2, 6)
    assert Fraction(data["extra_exact"]["botch"]) == Fraction(1, 6)


def test_odds_keys_are_each_systems_result() -> None:
    assert list(odds_json("kinds", "--dice", "2")["exact"]) == ["1", "2"]
    assert list(odds_json("doubles", "--dice", "1")["exact"]) == ["1", "2", "3", "4", "5", "6"]
    sets = odds_json("sets", "--dice", "2")["exact"]
    assert list(sets) == ["none", "2x1", "2x2", "2x3", "2x4", "2x5", "2x6"]
    assert Fraction(sets["none"]) == Fraction(5, 6)


def test_odds_keys_are_in_natural_order() -> None:
    keys = list(odds_json("doubles", "--dice", "6")["exact"])
    assert keys == sorted(keys, key=int)
    assert "12" in keys and keys.index("12") > keys.index("9")


@pytest.mark.parametrize(("slug", "args", "data"), FLAGS)
def test_odds_match_the_engine_for_every_flag(slug: str, args: list[str], data: dict[str, Any]) -> None:
    system = registry.engine(slug)
    request = system.parse_request(data)
    result = odds_json(slug, *args)
    assert result["system"] == slug
    assert result["request"] == json.loads(json.dumps(system.request_dict(request)))
    assert fractions(result["exact"]) == system.outcomes(request)
    assert sum(fractions(result["exact"]).values()) == 1
    chance = system.chance(request)
    assert result["success_exact"] == (None if chance is None else str(chance))
    assert fractions(result["extra_exact"]) == system.cli_extra_odds(request)


@pytest.mark.parametrize(
    "args",
    [
        ["doubles", "--dice", "3"],
        ["doubles", "--dice", "3", "--dn", "none"],
        ["sets", "--dice", "4"],
        ["stars", "--d3"],
    ],
)
def test_odds_success_is_null_without_a_difficulty(args: list[str]) -> None:
    data = odds_json(*args)
    assert data["success"] is None
    assert data["success_exact"] is None


def test_odds_success_is_the_chance_for_the_difficulty_given() -> None:
    system = registry.engine("doubles")
    data = odds_json("doubles", "--dice", "3", "--dn", "6")
    assert Fraction(data["success_exact"]) == system.chance(system.parse_request({"dice": 3, "dn": 6}))


def test_odds_prints_a_readable_table() -> None:
    text = run("odds", "sixes", "--dice", "1")
    lines = text.splitlines()
    assert lines[0] == "Sixes: dice 1, need 1"
    assert "sixes  chance  exact" in lines
    assert "0      83.33%  5/6" in lines
    assert "1      16.67%  1/6" in lines
    assert any(line.startswith("chance of success") and "16.67%" in line for line in lines)
    assert any(line.startswith("with a push") for line in lines)


def test_odds_table_sorts_numeric_keys_numerically() -> None:
    text = run("odds", "doubles", "--dice", "5")
    keys = [line.split()[0] for line in text.splitlines()[3:] if line and line.split()[0].isdigit()]
    assert keys == sorted(keys, key=int)
    assert keys[-1] == "30"


def test_odds_table_says_when_there_is_no_difficulty() -> None:
    text = run("odds", "sets", "--dice", "3")
    assert "(no difficulty given)" in text
    assert "Apprentice Bar, rolled Face" in text


# --------------------------------------------------------------------------------------------
# odds of a contest (--against)

# One side's flags and the other side's, with the requests the engine builds from them.
CONTESTS: list[tuple[str, list[str], list[str], dict[str, Any], dict[str, Any]]] = [
    ("sixes", ["--dice", "4"], ["--dice", "2", "--need", "2"], {"dice": 4}, {"dice": 2, "need": 2}),
    (
        "doubles",
        ["--ability", "2", "--weakness", "1"],
        ["--dice", "-1"],
        {"abilities": [2], "weaknesses": [1]},
        {"dice": -1},
    ),
    (
        "sets",
        ["--dice", "5"],
        ["--dice", "6", "--defender"],
        {"dice": 5, "opposed": True},
        {"dice": 6, "opposed": True, "attacker": False},
    ),
    (
        "sets",
        ["--dice", "5", "--defender"],
        ["--dice", "4"],
        {"dice": 5, "opposed": True, "attacker": False},
        {"dice": 4, "opposed": True},
    ),
    (
        "stars",
        ["--dice", "3", "--training", "novice", "--advantage"],
        ["--dice", "4", "--disadvantage"],
        {"dice": 3, "training": "novice", "advantage": True},
        {"dice": 4, "disadvantage": True},
    ),
]


@pytest.mark.parametrize(("slug", "mine", "theirs", "data_a", "data_b"), CONTESTS)
def test_odds_against_adds_the_contest_to_the_json(
    slug: str, mine: list[str], theirs: list[str], data_a: dict[str, Any], data_b: dict[str, Any]
) -> None:
    """SIX-18, DBL-7, SET-4, STR-9: the first side's odds as before, plus the contest."""
    system = registry.engine(slug)
    request_a, request_b = system.parse_request(data_a), system.parse_request(data_b)
    alone = odds_json(slug, *mine)
    result = json.loads(run("odds", slug, *mine, "--against", *theirs, "--json"))
    assert {key: result[key] for key in alone} == alone
    assert result["against"] == json.loads(json.dumps(system.request_dict(request_b)))
    exact = fractions(result["contest_exact"])
    assert list(exact) == ["win", "tie", "lose"]
    assert exact == system.contest(request_a, request_b)
    assert sum(exact.values()) == 1
    assert result["contest"] == {key: float(value) for key, value in exact.items()}
    assert result["contest_rule"] == system.contest_rule


def test_odds_against_one_sixes_die_each_by_hand() -> None:
    """SIX-18: one die each: each side wins with a six against a non-six (5/36), else a tie."""
    data = odds_json("sixes", "--dice", "1", "--against", "--dice", "1")
    assert data["contest_exact"] == {"win": "5/36", "tie": "13/18", "lose": "5/36"}


def test_odds_against_stars_one_die_each_by_hand() -> None:
    """STR-9, STR-8: one die each at difficulty 5; ties go to the player (side A), but a
    botch (a 1) loses to a plain failure (2-4). The player loses 12 of 36 pairs."""
    faces = {1: (0, 0), 2: (0, 1), 3: (0, 1), 4: (0, 1), 5: (1, 1), 6: (2, 1)}
    lose = sum(1 for a in faces.values() for b in faces.values() if a < b)
    assert lose == 3 + 4 * 2 + 1 + 0  # 1 against 2-4, a failure or botch against 5-6, 5 against 6
    data = odds_json("stars", "--dice", "1", "--against", "--dice", "1")
    assert data["contest_exact"] == {
        "win": str(Fraction(36 - lose, 36)),
        "tie": "0",
        "lose": str(Fraction(lose, 36)),
    }


def test_odds_against_sets_attacker_wins_every_tie() -> None:
    """SET-4: one die each: nobody has a set, and the tie goes to the attacker, side A."""
    data = odds_json("sets", "--dice", "1", "--against", "--dice", "1")
    assert data["contest_exact"] == {"win": "1", "tie": "0", "lose": "0"}
    defending = odds_json("sets", "--dice", "1", "--defender", "--against", "--dice", "1")
    assert defending["contest_exact"] == {"win": "0", "tie": "0", "lose": "1"}


def test_odds_against_takes_json_on_either_side() -> None:
    before = json.loads(run("odds", "sixes", "--dice", "2", "--json", "--against", "--dice", "3"))
    after = odds_json("sixes", "--dice", "2", "--against", "--dice", "3")
    assert before == after


def test_odds_against_prints_a_readable_contest() -> None:
    text = run("odds", "doubles", "--dice", "2", "--against", "--dice", "2")
    lines = text.splitlines()
    assert "Contest against Doubles: dice 2" in lines
    assert any(line.startswith("(the higher result wins; equal results are a standoff") for line in lines)
    assert "this side  chance  exact" in lines
    assert "win        40.05%  173/432" in lines
    assert "tie        19.91%  43/216" in lines
    assert "lose       40.05%  173/432" in lines
    # The contest comes last, after the first side's own lines.
    first_side = next(i for i, line in enumerate(lines) if line.startswith("chance of success"))
    assert lines.index("Contest against Doubles: dice 2") > first_side


def test_odds_without_against_prints_no_contest() -> None:
    data = odds_json("sixes", "--dice", "2")
    assert "contest" not in data and "against" not in data
    assert "Contest against" not in run("odds", "sixes", "--dice", "2")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["kinds", "--dice", "3", "--against", "--dice", "3"], "Kinds has no contested roll"),
        (["sixes", "--dice", "3", "--against"], "--against needs the other side's flags"),
        (
            ["sixes", "--dice", "3", "--against", "--dice", "2", "--pool", "3"],
            "unrecognized arguments: --pool 3",
        ),
        (["sixes", "--dice", "3", "--against", "--dice", "two"], "argument --dice: invalid int value: 'two'"),
        (
            ["sixes", "--dice", "3", "--against", "--need", "2"],
            "the following arguments are required: --dice",
        ),
        (
            ["sixes", "--dice", "3", "--against", "--dice", "2", "--against", "--dice", "1"],
            "unrecognized arguments",
        ),
        (
            ["sixes", "--dice", "3", "--against", "--dice", "0"],
            "The other side (--against): The number of dice must be between 1 and 13 (got 0).",
        ),
        (
            ["doubles", "--dice", "3", "--dn", "6", "--against", "--dice", "2"],
            "An opposed roll has no Difficulty Number",
        ),
        (
            ["doubles", "--dice", "3", "--against", "--dice", "2", "--dn", "4"],
            "An opposed roll has no Difficulty Number",
        ),
        (
            ["sets", "--dice", "3", "--bar", "2", "4", "--against", "--dice", "2"],
            "Side A rolls against a Bar",
        ),
        (
            ["sets", "--dice", "3", "--defender", "--against", "--dice", "2", "--defender"],
            "Both sides defend",
        ),
        (["stars", "--d3", "--against", "--dice", "2"], "Side A rolls a d3"),
    ],
)
def test_odds_against_refuses_bad_flags_with_a_clear_message(args: list[str], message: str) -> None:
    with pytest.raises(CommandError) as refused:
        run("odds", *args)
    assert message in str(refused.value)


@pytest.mark.parametrize("slug", ["sixes", "kinds", "doubles", "sets", "stars"])
def test_odds_help_explains_against(capsys: pytest.CaptureFixture[str], slug: str) -> None:
    with pytest.raises(SystemExit):
        call_command("odds", slug, "--help")
    text = " ".join(capsys.readouterr().out.split())
    assert "--against" in text
    assert "every word after --against is the other side's flags" in text
    system = registry.engine(slug)
    expected = system.contest_rule or "has no contested roll"
    assert " ".join(expected.split()) in text


def test_odds_help_of_roll_has_no_against(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        call_command("roll", "sixes", "--help")
    assert "--against" not in capsys.readouterr().out


# --------------------------------------------------------------------------------------------
# roll


@pytest.mark.parametrize(("slug", "args", "data"), FLAGS)
def test_roll_takes_every_systems_flags(slug: str, args: list[str], data: dict[str, Any]) -> None:
    system = registry.engine(slug)
    request = system.parse_request(data)
    result = json.loads(run("roll", slug, *args, "--seed", "7", "--json"))
    expected = system.roll(request, random.Random(7))
    assert result["state"] == json.loads(json.dumps(expected))
    outcome = system.evaluate(expected)
    assert result["outcome"] == {
        "key": outcome.key,
        "headline": outcome.headline,
        "success": outcome.success,
        "tone": outcome.tone,
        "details": list(outcome.details),
        "margin": outcome.margin,
    }
    assert [step["title"] for step in result["steps"]] == [step.title for step in system.view(expected)]
    assert [[die["face"] for die in step["dice"]] for step in result["steps"]] == [
        [die.face for die in step.dice] for step in system.view(expected)
    ]


def test_roll_with_a_seed_is_reproducible() -> None:
    first = run("roll", "sixes", "--dice", "8", "--seed", "42", "--times", "5")
    again = run("roll", "sixes", "--dice", "8", "--seed", "42", "--times", "5")
    other = run("roll", "sixes", "--dice", "8", "--seed", "43", "--times", "5")
    assert first == again
    assert first != other


def test_roll_times_prints_a_list_of_rolls() -> None:
    rolls = json.loads(run("roll", "kinds", "--dice", "5", "--times", "3", "--seed", "1", "--json"))
    assert isinstance(rolls, list) and len(rolls) == 3
    rng = random.Random(1)
    system = registry.engine("kinds")
    request = system.parse_request({"dice": 5})
    assert [roll["state"] for roll in rolls] == [system.roll(request, rng) for _ in range(3)]


def test_roll_without_times_prints_one_object() -> None:
    roll = json.loads(run("roll", "stars", "--dice", "2", "--json"))
    assert set(roll) == {"steps", "outcome", "state"}
    assert len(roll["steps"][0]["dice"]) == 2


def test_roll_without_a_seed_uses_the_system_random_source(monkeypatch: pytest.MonkeyPatch) -> None:
    made = []

    class Recorded(random.Random):
        def __init__(self) -> None:
            made.append(self)
            super().__init__(5)

    monkeypatch.setattr(random, "SystemRandom", Recorded)
    run("roll", "sixes", "--dice", "2")
    assert len(made) == 1


def test_roll_prints_readable_rolls() -> None:
    text = run("roll", "sixes", "--dice", "3", "--seed", "42", "--times", "2")
    system = registry.engine("sixes")
    rng = random.Random(42)
    states = [system.roll(system.parse_request({"dice": 3}), rng) for _ in range(2)]
    assert text.startswith("Sixes: dice 3, need 1\n")
    for number, state in enumerate(states, start=1):
        faces = state["steps"][0]["dice"]
        shown = " ".join(f"[{face}]" if face == 6 else str(face) for face in faces)
        assert f"#{number} Rolled 3 dice  {shown}" in text
        assert system.evaluate(state).headline in text
    assert "Successes: " in text


@pytest.mark.parametrize("times", ["1", "1000"])
def test_roll_accepts_times_within_limits(times: str) -> None:
    assert len(json.loads(run("roll", "sixes", "--dice", "1", "--times", times, "--json"))) == int(times)


# --------------------------------------------------------------------------------------------
# refusals


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["odds", "dragons", "--dice", "3"], "invalid choice: 'dragons'"),
        (["roll", "dragons"], "invalid choice: 'dragons'"),
        (["odds"], "required: SYSTEM"),
        (["odds", "sixes", "--dice", "0"], "The number of dice must be between 1 and 13 (got 0)."),
        (["roll", "sixes", "--dice", "0"], "The number of dice must be between 1 and 13 (got 0)."),
        (["odds", "sixes", "--dice", "three"], "argument --dice: invalid int value: 'three'"),
        (["odds", "sixes"], "the following arguments are required: --dice"),
        (["odds", "sixes", "--dice", "3", "--pool", "3"], "unrecognized arguments: --pool 3"),
        (["odds", "sixes", "--dice", "3", "--level", "basic"], "unrecognized arguments: --level basic"),
        (["roll", "sixes", "--dice", "3", "--times", "0"], "--times must be between 1 and 1000 (got 0)."),
        (["roll", "sixes", "--dice", "3", "--times", "1001"], "--times must be between 1 and 1000"),
        (["roll", "sixes", "--dice", "3", "--seed", "abc"], "argument --seed: invalid int value"),
        (["odds", "sixes", "--dice", "3", "--times", "2"], "unrecognized arguments: --times 2"),
        (["odds", "kinds", "--dice", "4", "--level", "legendary"], "The Challenge level must be one of"),
        (["odds", "kinds", "--skill", "6", "--field", "5"], "at most 9 dice"),
        (["odds", "doubles", "--dice", "3", "--dn", "7"], "The Difficulty Number must be one of"),
        (["odds", "sets", "--dice", "4", "--bar", "grandmaster", "3"], "The Bar is Apprentice"),
        (["odds", "stars", "--dice", "6"], "The Stat's rating must be between 1 and 5"),
        (["odds", "stars", "--dice", "2", "--training", "expert"], "Training must be one of"),
        (["roll", "stars", "--d3", "--advantage"], "Advantage and disadvantage apply to tests"),
    ],
)
def test_bad_flags_are_refused_with_a_clear_message(args: list[str], message: str) -> None:
    with pytest.raises(CommandError) as refused:
        run(*args)
    assert message in str(refused.value)


def test_help_lists_the_systems(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        call_command("odds", "--help")
    assert exited.value.code == 0
    text = capsys.readouterr().out
    listed = [line.split()[0] for line in text.splitlines() if line.startswith("    ") and line.split()]
    assert [slug for slug in listed if slug in registry.slugs()] == list(registry.slugs())


@pytest.mark.parametrize(
    ("slug", "flags"),
    [
        ("sixes", ["--dice", "--need"]),
        ("kinds", ["--dice", "--skill", "--field", "--advantage", "--disadvantage", "--level", "--danger"]),
        ("doubles", ["--dice", "--ability", "--weakness", "--bonus", "--penalty", "--helpers", "--dn"]),
        ("sets", ["--dice", "--bar", "--defender"]),
        ("stars", ["--dice", "--training", "--difficulty", "--advantage", "--disadvantage", "--d3"]),
    ],
)
@pytest.mark.parametrize("command", ["roll", "odds"])
def test_help_of_a_system_lists_its_flags(
    capsys: pytest.CaptureFixture[str], command: str, slug: str, flags: list[str]
) -> None:
    with pytest.raises(SystemExit):
        call_command(command, slug, "--help")
    text = capsys.readouterr().out
    for flag in [*flags, "--json"]:
        assert flag in text
    assert ("--seed" in text) == (command == "roll")


# --------------------------------------------------------------------------------------------
# the real command line


def manage(*args: str) -> subprocess.CompletedProcess[str]:
    # The test checks the command, not manage.py's first-run set-up of the environment.
    env = {**os.environ, "TABLETOP_NO_BOOTSTRAP": "1"}
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=PROJECT_ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
        check=False,
    )


def test_manage_py_odds_prints_json() -> None:
    result = manage("odds", "sixes", "--dice", "3", "--json")
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert fractions(data["exact"]) == {
        "0": Fraction(125, 216),
        "1": Fraction(75, 216),
        "2": Fraction(15, 216),
        "3": Fraction(1, 216),
    }
    assert data["outcomes"]["3"] == 1 / 216
    assert Fraction(data["success_exact"]) == Fraction(91, 216)


def test_manage_py_refuses_a_bad_request_without_a_traceback() -> None:
    result = manage("roll", "sixes", "--dice", "0")
    assert result.returncode != 0
    assert "The number of dice must be between 1 and 13 (got 0)." in result.stderr
    assert "Traceback" not in result.stderr


def test_manage_py_odds_against_prints_the_contest() -> None:
    result = manage("odds", "sixes", "--dice", "1", "--against", "--dice", "1", "--json")
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["contest_exact"] == {"win": "5/36", "tie": "13/18", "lose": "5/36"}


@pytest.mark.parametrize(
    ("words", "message"),
    [
        (["--dice", "2", "--pool", "3"], "unrecognized arguments: --pool 3"),
        (["--dice", "x"], "invalid int value: 'x'"),
        ([], "--against needs the other side's flags"),
    ],
)
def test_manage_py_odds_against_bad_flags_exit_2_like_argparse(words: list[str], message: str) -> None:
    result = manage("odds", "sixes", "--dice", "3", "--against", *words)
    assert result.returncode == 2
    assert message in result.stderr
    assert "usage: manage.py odds sixes [flags] --against" in result.stderr
    assert "Traceback" not in result.stderr


def test_str9_odds_against_give_the_tie_to_the_player_in_either_order() -> None:
    """STR-9: ``--npc`` marks the GM's side; listed first or second, the player keeps the ties,
    so the two views of one contest are each other's mirror."""
    player_first = odds_json("stars", "--dice", "1", "--against", "--dice", "2", "--npc")
    guard_first = odds_json("stars", "--dice", "2", "--npc", "--against", "--dice", "1")
    assert player_first["contest_exact"]["win"] == guard_first["contest_exact"]["lose"]
    assert player_first["contest_exact"]["lose"] == guard_first["contest_exact"]["win"]
    # Unmarked, the first side is the one that keeps ties: the guard would steal them.
    unmarked = odds_json("stars", "--dice", "2", "--against", "--dice", "1")
    assert unmarked["contest_exact"]["win"] != guard_first["contest_exact"]["win"]
