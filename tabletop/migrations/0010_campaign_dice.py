"""Who rolls at a campaign's table: the app, real dice entered by hand, or either."""

from __future__ import annotations

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("tabletop", "0009_campaign_last_hash")]

    operations = [
        migrations.AddField(
            model_name="campaign",
            name="dice",
            field=models.CharField(
                choices=[
                    ("digital", "Digital: the app rolls"),
                    ("physical", "Real dice: everyone rolls and enters the faces"),
                    ("either", "Either: each player chooses for each roll"),
                ],
                default="digital",
                max_length=8,
            ),
        ),
    ]
