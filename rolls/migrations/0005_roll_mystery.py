from __future__ import annotations

from django.db import migrations, models
from django.db.models import OuterRef, Subquery


def from_campaign(apps, schema_editor):  # type: ignore[no-untyped-def]
    """Rolls made before the column existed: their campaign's Mystery now. A roll of an
    ended session is refused for its session anyway, whatever this says."""
    Roll = apps.get_model("rolls", "Roll")
    Campaign = apps.get_model("tabletop", "Campaign")
    Roll.objects.update(mystery=Subquery(Campaign.objects.filter(pk=OuterRef("campaign_id")).values("mystery")[:1]))


class Migration(migrations.Migration):
    dependencies = [
        ("rolls", "0004_roll_call_per_character"),
        ("tabletop", "0005_ban"),
    ]

    operations = [
        migrations.AddField(
            model_name="roll",
            name="mystery",
            field=models.PositiveIntegerField(default=1),
        ),
        migrations.RunPython(from_campaign, migrations.RunPython.noop),
    ]
