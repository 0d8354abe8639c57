from __future__ import annotations

import django.utils.timezone
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("rolls", "0005_roll_mystery"),
    ]

    operations = [
        migrations.AlterField(
            model_name="logentry",
            name="created",
            field=models.DateTimeField(default=django.utils.timezone.now),
        ),
        # Empty until the next migration computes the chain of the entries already written.
        migrations.AddField(
            model_name="logentry",
            name="hash",
            field=models.CharField(default="", max_length=64),
            preserve_default=False,
        ),
    ]
