"""The table display's token: added empty, one fresh token per existing campaign, then unique."""

from __future__ import annotations

import secrets
from typing import Any

from django.db import migrations, models

import tabletop.models


def fill_tokens(apps: Any, schema_editor: Any) -> None:
    Campaign = apps.get_model("tabletop", "Campaign")
    for campaign in Campaign.objects.filter(display_token__isnull=True).only("pk"):
        # A column default would give every existing row the same token; each gets its own.
        campaign.display_token = secrets.token_urlsafe(24)
        campaign.save(update_fields=["display_token"])


class Migration(migrations.Migration):
    dependencies = [("tabletop", "0005_ban")]

    operations = [
        migrations.AddField(
            model_name="campaign",
            name="display_token",
            field=models.CharField(max_length=64, null=True),
        ),
        migrations.RunPython(fill_tokens, migrations.RunPython.noop),
        migrations.AlterField(
            model_name="campaign",
            name="display_token",
            field=models.CharField(default=tabletop.models.new_join_token, max_length=64, unique=True),
        ),
    ]
