"""A roll whose faces were read off real dice and entered by hand."""

from __future__ import annotations

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("rolls", "0005_roll_mystery")]

    operations = [
        migrations.AddField(model_name="roll", name="by_hand", field=models.BooleanField(default=False)),
    ]
