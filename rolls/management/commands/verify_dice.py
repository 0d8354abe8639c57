"""``manage.py verify_dice FILE``: the check of an export file that ``verify_log FILE`` runs:
every die from its revealed seeds, and the file's hash chain, which catches an edit to where the
dice came from."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from rolls.management.commands.verify_log import check_export_file


class Command(BaseCommand):
    help = (
        "Recompute every die of a JSON export (the history page's JSON link) whose seed is "
        "revealed, and check the file's hash chain; exit 1 naming the first entry that does not match."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("file", help="a JSON export of a campaign or a play session")

    def handle(self, *args: Any, **options: Any) -> None:
        check_export_file(self, options["file"])
