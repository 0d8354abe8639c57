"""``manage.py verify_dice FILE``: recompute every die of a JSON export from its revealed seeds."""

from __future__ import annotations

import json
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from rolls.history.dicecheck import check_export


class Command(BaseCommand):
    help = (
        "Recompute every die of a JSON export (the history page's JSON link) whose seed is "
        "revealed; exit 1 naming the first entry whose dice are not the seed's."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("file", help="a JSON export of a campaign or a play session")

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            with open(options["file"], encoding="utf-8") as handle:
                data = json.load(handle)
        except OSError as error:
            raise CommandError(f"Cannot read {options['file']}: {error.strerror}.") from None
        except ValueError:
            raise CommandError(f"{options['file']} is not JSON.") from None
        try:
            report = check_export(data)
        except (KeyError, TypeError, ValueError, AttributeError, IndexError) as error:
            raise CommandError(f"This export is incomplete or damaged ({error!r}).") from None
        if report.ok:
            self.stdout.write("\n".join(report.lines()))
            return
        self.stderr.write("\n".join(report.lines()))
        raise SystemExit(1)
