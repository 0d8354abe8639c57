"""``manage.py verify_log CAMPAIGN_ID`` checks a campaign's stored log against its hash chain;
``manage.py verify_log FILE`` checks an export file: its chain, every die whose seed is
revealed, and what it lists of each roll against its log (``rolls.history.filecheck``, the same
check as ``verify_dice FILE``)."""

from __future__ import annotations

import json
import os
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.utils.translation import gettext as _

from rolls.history.filecheck import Unreadable, check_file
from rolls.history.verify import verdict, verify_log
from tabletop.models import Campaign


class Command(BaseCommand):
    help = (
        "Check that no entry of a campaign's log (by its id), or of an export file (by its path), "
        "was changed, deleted or moved, and that a file's dice are its seeds' (exit 1 if not)."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("target", help="a campaign's id, or a JSON export's path")

    def handle(self, *args: Any, **options: Any) -> None:
        target = str(options["target"])
        if target.isdecimal() and not os.path.exists(target):
            self._campaign(int(target))
        else:
            check_export_file(self, target)

    def _campaign(self, pk: int) -> None:
        try:
            campaign = Campaign.objects.get(pk=pk)
        except Campaign.DoesNotExist:
            raise CommandError(_("No campaign %(pk)s.") % {"pk": pk}) from None
        found = verify_log(campaign)
        campaign.refresh_from_db()
        if found is None:
            self.stdout.write(verdict(None, campaign))
            return
        self.stderr.write(verdict(found, campaign))
        raise SystemExit(1)


def check_export_file(command: BaseCommand, path: str) -> None:
    """Read and check one export file; exit 1 naming the first entry that does not match."""
    try:
        with open(path, encoding="utf-8") as handle:
            data = json.load(handle)
    except OSError as error:
        raise CommandError(
            _("Cannot read %(path)s: %(error)s.") % {"path": path, "error": error.strerror}
        ) from None
    except ValueError:
        raise CommandError(_("%(path)s is not JSON.") % {"path": path}) from None
    try:
        report = check_file(data)
    except Unreadable as error:
        raise CommandError(str(error)) from None
    if report.ok:
        command.stdout.write("\n".join(report.lines()))
        return
    command.stderr.write("\n".join(report.lines()))
    raise SystemExit(1)
