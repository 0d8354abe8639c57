"""``manage.py import_campaign FILE [--gm USERNAME]``: load a GM's JSON export as a new campaign."""

from __future__ import annotations

import json
from typing import Any

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.utils.translation import gettext as _

from rolls.history.importer import ImportRefused, import_campaign


class Command(BaseCommand):
    help = (
        "Load a campaign's JSON export (the GM's, of the whole campaign) as a new campaign with "
        "new ids. The people it names become new accounts without a password, except the GM "
        "when --gm names an existing account. Prints the new campaign's id last."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("file")
        parser.add_argument("--gm", metavar="USERNAME", help="an existing account to run the new campaign")

    def handle(self, *args: Any, **options: Any) -> None:
        gm = None
        if options["gm"]:
            try:
                gm = get_user_model().objects.get(username=options["gm"])
            except get_user_model().DoesNotExist:
                raise CommandError(_("No account named %(name)s.") % {"name": repr(options["gm"])}) from None
        try:
            with open(options["file"], encoding="utf-8") as handle:
                data = json.load(handle)
        except OSError as error:
            raise CommandError(
                _("Cannot read %(path)s: %(error)s.") % {"path": options["file"], "error": error.strerror}
            ) from None
        except (UnicodeDecodeError, json.JSONDecodeError) as error:
            raise CommandError(
                _("%(path)s is not JSON: %(error)s.") % {"path": options["file"], "error": error}
            ) from None
        except RecursionError:
            raise CommandError(
                _("%(path)s nests deeper than any export: refused.") % {"path": options["file"]}
            ) from None
        try:
            campaign = import_campaign(data=data, gm=gm)
        except ImportRefused as error:
            raise CommandError(_("Refused: %(error)s") % {"error": error}) from None
        except RecursionError:
            raise CommandError(
                "Refused: the file nests deeper than any export. Nothing was imported."
            ) from None
        self.stdout.write(
            _("Imported %(name)s with %(count)s log entries.")
            % {"name": repr(campaign.name), "count": campaign.last_seq}
        )
        self.stdout.write(str(campaign.pk))
