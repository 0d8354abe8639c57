"""The made-up "Fives" engine: pure Python, as every engine module is."""

from __future__ import annotations

import argparse
from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from rolls.systems.base import (
    Applied,
    DiceSystem,
    Die,
    FollowUp,
    Outcome,
    Rng,
    RulesError,
    State,
    StepView,
    Table,
    get_int,
    grid,
    new_state,
    roll_dice,
    with_step,
)


@dataclass(frozen=True)
class FivesRequest:
    dice: int


def successes(dice: list[int]) -> int:
    return sum(1 for face in dice if face >= 5)


class Fives(DiceSystem):
    slug = "fives"
    name = "Fives"
    summary = "Fives and sixes succeed; Grit buys one reroll."

    def parse_request(self, data: Mapping[str, Any]) -> FivesRequest:
        return FivesRequest(dice=get_int(data, "dice", "The pool", 1, 9))

    def roll(self, request: FivesRequest, rng: Rng) -> State:
        return new_state(self, request, {"action": "roll", "dice": roll_dice(rng, request.dice)})

    def evaluate(self, state: State) -> Outcome:
        hits = successes(state["steps"][-1]["dice"])
        if hits:
            return Outcome(True, f"{hits} success{'es' if hits > 1 else ''}", str(hits), "success")
        return Outcome(False, "No success", "0", "failure")

    def view(self, state: State) -> tuple[StepView, ...]:
        return tuple(
            StepView(
                step["action"], step["action"].capitalize(), tuple(Die(f, hit=f >= 5) for f in step["dice"])
            )
            for step in state["steps"]
        )

    def follow_ups(self, state: State, resources: Mapping[str, Any]) -> list[FollowUp]:
        if len(state["steps"]) > 1 or successes(state["steps"][0]["dice"]) or not resources.get("grit"):
            return []
        return [FollowUp("reroll", "Reroll", cost="1 Grit")]

    def apply(
        self, state: State, action: str, params: Mapping[str, Any], resources: Mapping[str, Any], rng: Rng
    ) -> Applied:
        if action not in {f.action for f in self.follow_ups(state, resources)}:
            raise RulesError("That is not allowed now.")
        dice = roll_dice(rng, len(state["steps"][0]["dice"]))
        return Applied(with_step(state, {"action": "reroll", "dice": dice}), {"grit": 1})

    def outcomes(self, request: FivesRequest) -> dict[str, Fraction]:
        miss = Fraction(2, 3) ** request.dice
        return {"0": miss, "1+": 1 - miss}

    def chance(self, request: FivesRequest) -> Fraction:
        return self.outcomes(request)["1+"]

    def add_cli_arguments(self, parser: argparse.ArgumentParser) -> None:
        parser.add_argument("--dice", type=int, required=True, help="the pool")

    def request_from_cli(self, options: argparse.Namespace) -> FivesRequest:
        return self.parse_request({"dice": options.dice})

    def build_rules_tables(self) -> tuple[Table, ...]:
        pools = [(str(n), n) for n in range(1, 7)]
        return (
            grid(
                "Chance of a success",
                "Dice",
                pools,
                [("any", None)],
                lambda n, _: self.chance(FivesRequest(n)),
            ),
        )

    def typical_requests(self) -> tuple[dict[str, Any], ...]:
        return tuple({"dice": n} for n in range(1, 10))


system = Fives()
