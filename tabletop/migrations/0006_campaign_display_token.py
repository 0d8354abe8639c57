"""The table display's token, step 1 of 3: the column, empty. (A column default would give
every existing campaign the same token; 0007 gives each its own, 0008 makes it unique. Three
migrations, as Django's docs advise: PostgreSQL may refuse to alter a table in the same
transaction that just updated its rows.)"""

from __future__ import annotations

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("tabletop", "0005_ban")]

    operations = [
        migrations.AddField(
            model_name="campaign",
            name="display_token",
            field=models.CharField(max_length=64, null=True),
        ),
    ]
