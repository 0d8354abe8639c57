"""The stream overlay's token, step 1 of 3: the column, empty. (As for the display's token in
0006-0008: a column default would give every existing campaign the same token; 0014 gives each
its own, 0015 makes it unique.)"""

from __future__ import annotations

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("tabletop", "0012_campaign_language")]

    operations = [
        migrations.AddField(
            model_name="campaign",
            name="overlay_token",
            field=models.CharField(max_length=64, null=True),
        ),
    ]
