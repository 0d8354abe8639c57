from __future__ import annotations

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("tabletop", "0008_campaign_display_token_unique"),
    ]

    operations = [
        migrations.AddField(
            model_name="campaign",
            name="last_hash",
            field=models.CharField(default="0000000000000000000000000000000000000000000000000000000000000000", max_length=64),
        ),
    ]
