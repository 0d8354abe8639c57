"""The stream overlay's token, step 2 of 3: a fresh token for each existing campaign."""

from __future__ import annotations

import secrets
from typing import Any

from django.db import migrations


def fill_tokens(apps: Any, schema_editor: Any) -> None:
    Campaign = apps.get_model("tabletop", "Campaign")
    for campaign in Campaign.objects.filter(overlay_token__isnull=True).only("pk"):
        campaign.overlay_token = secrets.token_urlsafe(24)  # as tabletop.models.new_join_token
        campaign.save(update_fields=["overlay_token"])


class Migration(migrations.Migration):
    dependencies = [("tabletop", "0013_campaign_overlay_token")]

    operations = [migrations.RunPython(fill_tokens, migrations.RunPython.noop)]
