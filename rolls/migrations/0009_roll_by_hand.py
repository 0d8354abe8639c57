"""A roll whose faces were read off real dice and entered by hand."""

from __future__ import annotations

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("rolls", "0008_roll_outcome_void_reveal_notes")]

    operations = [
        migrations.AddField(model_name="roll", name="by_hand", field=models.BooleanField(default=False)),
    ]
