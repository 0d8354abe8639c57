"""The hash chain of the entries written before entries had one (rolls/log/chain.py)."""

from __future__ import annotations

from typing import Any

from django.db import migrations

from rolls.log import chain


def fill(apps: Any, schema_editor: Any) -> None:
    Campaign = apps.get_model("tabletop", "Campaign")
    LogEntry = apps.get_model("rolls", "LogEntry")
    for campaign in Campaign.objects.order_by("pk").iterator():
        previous = chain.GENESIS
        batch = []
        for entry in LogEntry.objects.filter(campaign_id=campaign.pk).order_by("seq").iterator(chunk_size=2000):
            entry.hash = previous = chain.link(previous, chain.digest(_content(entry)))
            batch.append(entry)
            if len(batch) == 2000:
                LogEntry.objects.bulk_update(batch, ["hash"])
                batch = []
        LogEntry.objects.bulk_update(batch, ["hash"])
        Campaign.objects.filter(pk=campaign.pk).update(last_hash=previous)


def _content(entry: Any) -> dict[str, Any]:
    return chain.content(
        campaign=entry.campaign_id,
        seq=entry.seq,
        kind=entry.kind,
        action=entry.action,
        roll=entry.roll_id,
        actor=entry.actor_id,
        state=entry.state,
        text=entry.text,
        created=chain.timestamp(entry.created),
    )


class Migration(migrations.Migration):
    dependencies = [
        ("rolls", "0006_logentry_hash"),
        ("tabletop", "0009_campaign_last_hash"),
    ]

    operations = [migrations.RunPython(fill, migrations.RunPython.noop)]
