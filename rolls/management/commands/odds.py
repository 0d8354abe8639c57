"""``manage.py odds SYSTEM [flags] [--against <the other side's flags>] [--json]``: the exact
odds of a roll, and of a contest between two sides, for GMs preparing a scenario and for
scripts.

Prints the chance of every possible result (the system's result key: sixes, largest group,
result value, best bid, Stars), the chance of success against the difficulty given, and the
system's extra lines (with a push, with drama dice, a botch...). ``--json`` prints one object::

    {"system": "sixes", "request": {...}, "result": "sixes",
     "outcomes": {"0": 0.5787, ...}, "exact": {"0": "125/216", ...},
     "success": 0.4213 or null, "success_exact": "91/216" or null,
     "extra": {"with a push": 0.66, ...}, "extra_exact": {"with a push": "...", ...}}

With ``--against``, every word after it describes the other side with the same flags as one
roll of the system (``--json`` may still end the line), and the output also holds the
contest from the first side's view, before any follow-up (``DiceSystem.contest``)::

    "against": {...the other side's request...},
    "contest": {"win": 0.22, "tie": 0.56, "lose": 0.22},
    "contest_exact": {"win": "95/432", "tie": "121/216", "lose": "95/432"},
    "contest_rule": "the most sixes wins; ..."

A tie the rules award to a side counts as its win or loss (to the player in stars: the side
without ``--npc``, or the first when both or neither say it; to the attacker in sets, the first side unless it says ``--defender``); ``tie`` is what
the rules leave tied (the doubles standoff, equal sixes before pushes). A system without a
head-to-head contest (kinds) is refused with the reason.
"""

from __future__ import annotations

import argparse
import json
from fractions import Fraction
from typing import Any

from django.core.management.base import CommandError
from django.utils.translation import gettext as _

from rolls.management import SystemCommand, cli_percent, columns, describe, key_order
from rolls.systems import RulesError
from rolls.systems.base import CONTEST_KEYS, DiceSystem


class Command(SystemCommand):
    help = "Print the exact odds of a roll, or of a contest between two sides with --against."

    def add_system_arguments(self, parser: argparse.ArgumentParser, system: DiceSystem) -> None:
        rule = system.contest_rule or f"{system.name} has no contested roll; --against is refused"
        parser.add_argument(
            "--against",
            nargs=argparse.REMAINDER,
            metavar="FLAGS",
            help="the other side of a contest: every word after --against is the other side's "
            f"flags, the same flags as above (--json may still come last). Adds the chance that "
            f"this side wins, ties and loses, before any follow-up. {system.name}: {rule}.",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        system, request = self.system_request(options)
        contest: dict[str, Fraction] | None = None
        other: Any = None
        if options.get("against") is not None:
            other, other_options = self.other_side_request(system, options["against"], "--against")
            options["json"] = options["json"] or other_options.json
            try:
                contest = system.contest(request, other)
            except RulesError as error:
                raise CommandError(str(error)) from None
        outcomes = dict(sorted(system.outcomes(request).items(), key=lambda item: key_order(item[0])))
        success = system.chance(request)
        extra = system.cli_extra_odds(request)
        if options["json"]:
            data: dict[str, Any] = {
                "system": system.slug,
                "request": system.request_dict(request),
                "result": system.result_name,
                "outcomes": {key: float(chance) for key, chance in outcomes.items()},
                "exact": {key: str(chance) for key, chance in outcomes.items()},
                "success": None if success is None else float(success),
                "success_exact": None if success is None else str(success),
                "extra": {label: float(chance) for label, chance in extra.items()},
                "extra_exact": {label: str(chance) for label, chance in extra.items()},
            }
            if contest is not None:
                data["against"] = system.request_dict(other)
                data["contest"] = {key: float(contest[key]) for key in CONTEST_KEYS}
                data["contest_exact"] = {key: str(contest[key]) for key in CONTEST_KEYS}
                data["contest_rule"] = system.contest_rule
            self.stdout.write(json.dumps(data, indent=2))
            return
        self.stdout.write(describe(system, request))
        self.stdout.write("")
        # Translators: the odds' column heads on the command line (a result, its chance, the exact fraction).
        rows = [(system.result_name, _("chance"), _("exact"))]
        rows += [(key, cli_percent(chance), str(chance)) for key, chance in outcomes.items()]
        for line in columns(rows, "<><"):
            self.stdout.write(line)
        self.stdout.write("")
        lines: list[tuple[str, Fraction | None]] = [(_("chance of success"), success), *extra.items()]
        chances = [(label, "-" if chance is None else cli_percent(chance)) for label, chance in lines]
        exact = [_("(no difficulty given)") if chance is None else str(chance) for _label, chance in lines]
        for line, fraction in zip(columns(chances, "<>"), exact, strict=True):
            self.stdout.write(f"{line}  {fraction}".rstrip())
        if contest is not None:
            self.write_contest(system, other, contest)

    def write_contest(self, system: DiceSystem, other: Any, contest: dict[str, Fraction]) -> None:
        """The contest as a small table: this side's chance to win, tie and lose."""
        self.stdout.write("")
        self.stdout.write(_("Contest against %(other)s") % {"other": describe(system, other)})
        self.stdout.write(_("(%(rule)s; before any follow-up)") % {"rule": system.contest_rule})
        rows = [(_("this side"), _("chance"), _("exact"))]
        rows += [(key, cli_percent(contest[key]), str(contest[key])) for key in CONTEST_KEYS]
        for line in columns(rows, "<><"):
            self.stdout.write(line)
