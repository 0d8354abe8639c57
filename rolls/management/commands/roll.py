"""``manage.py roll SYSTEM [flags] [--times N] [--seed S] [--json]``: roll the dice outside any
campaign, for GMs preparing a scenario (NPC rolls, examples) and for scripts.

Nothing is stored. Without ``--seed`` the dice come from the operating system's random source,
as at the table; ``--seed S`` makes the rolls reproducible. ``--json`` prints one object per
roll (a list of them when ``--times`` is given)::

    {"steps": [{"action": "roll", "title": "Rolled 3 dice", "note": "",
                "dice": [{"face": 6, "hit": true, "new": true, "dropped": false, "label": ""}, ...]}],
     "outcome": {"key": "1", "headline": "...", "success": true, "tone": "success",
                 "details": [...], "margin": 0},
     "state": {...the engine's state, as stored for a roll at the table...}}
"""

from __future__ import annotations

import argparse
import json
import random
from collections import Counter
from dataclasses import asdict
from typing import Any

from django.core.management.base import CommandError
from django.utils.translation import gettext as _

from rolls.management import SystemCommand, columns, describe, key_order
from rolls.systems.base import DiceSystem, Die, Rng, State

MAX_TIMES = 1000


class Command(SystemCommand):
    help = "Roll the dice of a request (nothing is stored)."

    def add_common_arguments(self, parser: argparse.ArgumentParser) -> None:
        parser.add_argument("--times", type=int, help=f"roll the request N times, 1-{MAX_TIMES}")
        parser.add_argument("--seed", type=int, help="a seed, to get the same dice again")
        super().add_common_arguments(parser)

    def handle(self, *args: Any, **options: Any) -> None:
        times = options["times"]
        if times is not None and not 1 <= times <= MAX_TIMES:
            raise CommandError(
                _("--times must be between 1 and %(max)s (got %(times)s).")
                % {"max": MAX_TIMES, "times": times}
            )
        system, request = self.system_request(options)
        rng: Rng
        if options["seed"] is None:
            rng = random.SystemRandom()
        else:
            # Seeded dice are for reproducible examples and tests only, never for play.
            rng = random.Random(options["seed"])  # noqa: S311
        states = [system.roll(request, rng) for _time in range(times or 1)]
        if options["json"]:
            rolls = [roll_data(system, state) for state in states]
            self.stdout.write(json.dumps(rolls if times is not None else rolls[0], indent=2))
            return
        self.stdout.write(describe(system, request))
        self.stdout.write(
            _("Dice in [brackets] count toward the result; dice in (parentheses) are not kept.")
        )
        for number, state in enumerate(states, start=1):
            self.stdout.write("")
            self.write_roll(system, state, number if len(states) > 1 else None)
        if len(states) > 1:
            self.write_summary(system, states)

    def write_roll(self, system: DiceSystem, state: State, number: int | None) -> None:
        outcome = system.evaluate(state)
        prefix = f"#{number} " if number is not None else ""
        indent = " " * len(prefix)
        rows = [(step.title, " ".join(die_text(die) for die in step.dice)) for step in system.view(state)]
        for i, line in enumerate(columns(rows, "<<")):
            self.stdout.write(f"{prefix if i == 0 else indent}{line}")
        for step in system.view(state):
            if step.note:
                self.stdout.write(f"{indent}  {step.note}")
        self.stdout.write(f"{indent}=> {outcome.headline}")
        for detail in outcome.details:
            self.stdout.write(f"{indent}   {detail}")

    def write_summary(self, system: DiceSystem, states: list[State]) -> None:
        outcomes = [system.evaluate(state) for state in states]
        self.stdout.write("")
        judged = [outcome.success for outcome in outcomes if outcome.success is not None]
        if judged:
            self.stdout.write(
                _("Successes: %(count)s of %(rolls)s") % {"count": sum(judged), "rolls": len(judged)}
            )
        tally = Counter(outcome.key for outcome in outcomes)
        # Translators: the column head of a count of rolls on the command line.
        rows = [(system.result_name, _("rolls"))]
        rows += [(key, str(tally[key])) for key in sorted(tally, key=key_order)]
        for line in columns(rows, "<>"):
            self.stdout.write(line)


def die_text(die: Die) -> str:
    """A die on one line: [6] counts toward the result, (3) was rolled but not kept."""
    text = f"{die.face} {die.label}" if die.label else str(die.face)
    if die.dropped:
        return f"({text})"
    if die.hit:
        return f"[{text}]"
    return text


def roll_data(system: DiceSystem, state: State) -> dict[str, Any]:
    outcome = system.evaluate(state)
    return {
        "steps": [asdict(step) for step in system.view(state)],
        "outcome": {
            "key": outcome.key,
            "headline": outcome.headline,
            "success": outcome.success,
            "tone": outcome.tone,
            "details": list(outcome.details),
            "margin": outcome.margin,
        },
        "state": state,
    }
