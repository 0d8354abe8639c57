"""``manage.py odds SYSTEM [flags] [--json]``: the exact odds of a roll, for GMs preparing a
scenario and for scripts.

Prints the chance of every possible result (the system's result key: sixes, largest group,
result value, best bid, Stars), the chance of success against the difficulty given, and the
system's extra lines (with a push, with drama dice, a botch...). ``--json`` prints one object::

    {"system": "sixes", "request": {...}, "result": "sixes",
     "outcomes": {"0": 0.5787, ...}, "exact": {"0": "125/216", ...},
     "success": 0.4213 or null, "success_exact": "91/216" or null,
     "extra": {"with a push": 0.66, ...}, "extra_exact": {"with a push": "...", ...}}
"""

from __future__ import annotations

import json
from fractions import Fraction
from typing import Any

from rolls.management import SystemCommand, cli_percent, columns, describe, key_order


class Command(SystemCommand):
    help = "Print the exact odds of a roll."

    def handle(self, *args: Any, **options: Any) -> None:
        system, request = self.system_request(options)
        outcomes = dict(sorted(system.outcomes(request).items(), key=lambda item: key_order(item[0])))
        success = system.chance(request)
        extra = system.cli_extra_odds(request)
        if options["json"]:
            data = {
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
            self.stdout.write(json.dumps(data, indent=2))
            return
        self.stdout.write(describe(system, request))
        self.stdout.write("")
        rows = [(system.result_name, "chance", "exact")]
        rows += [(key, cli_percent(chance), str(chance)) for key, chance in outcomes.items()]
        for line in columns(rows, "<><"):
            self.stdout.write(line)
        self.stdout.write("")
        lines: list[tuple[str, Fraction | None]] = [("chance of success", success), *extra.items()]
        chances = [(label, "-" if chance is None else cli_percent(chance)) for label, chance in lines]
        exact = ["(no difficulty given)" if chance is None else str(chance) for _, chance in lines]
        for line, fraction in zip(columns(chances, "<>"), exact, strict=True):
            self.stdout.write(f"{line}  {fraction}".rstrip())
