"""``manage.py verify_log CAMPAIGN_ID``: check a campaign's log against its hash chain."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from rolls.history.verify import verdict, verify_log
from tabletop.models import Campaign


class Command(BaseCommand):
    help = "Check that no entry of a campaign's log was changed, deleted or moved (exit 1 if one was)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("campaign_id", type=int)

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            campaign = Campaign.objects.get(pk=options["campaign_id"])
        except Campaign.DoesNotExist:
            raise CommandError(f"No campaign {options['campaign_id']}.") from None
        found = verify_log(campaign)
        campaign.refresh_from_db()
        if found is None:
            self.stdout.write(verdict(None, campaign))
            return
        self.stderr.write(verdict(found, campaign))
        raise SystemExit(1)
