"""The stream overlay's token, step 3 of 3: required, unique, and a fresh one for each new campaign."""

from __future__ import annotations

from django.db import migrations, models

import tabletop.models


class Migration(migrations.Migration):
    dependencies = [("tabletop", "0014_campaign_overlay_token_fill")]

    operations = [
        migrations.AlterField(
            model_name="campaign",
            name="overlay_token",
            field=models.CharField(default=tabletop.models.new_join_token, max_length=64, unique=True),
        ),
    ]
