"""The poster's tasks, run by Django's tasks framework (``db_worker``: docs/discord.md)."""

from __future__ import annotations

from django.tasks import task

from rolls.discord import flush


@task()
def flush_campaign(campaign_id: int) -> None:
    """Post every entry of the campaign that its webhooks have not posted yet, in order."""
    flush.run(campaign_id)


@task()
def send_test(webhook_id: int) -> None:
    """The console's "Send a test message"."""
    flush.test_message(webhook_id)
